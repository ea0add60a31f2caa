/**
 * Packets on disk: `<folder>/<study>.<annotator>.dialogues.jsonl` (the packet), `<study>.<annotator>.rubric.json`
 * (the study's rubric, so the packet opens with its dimensions in the editor) and `<study>.<annotator>.packet.json`
 * (the manifest: not `*.jsonl`, so no tool takes it for a dialogue file). The folder may exist; an annotator's
 * earlier packet files there are replaced.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { siblingFile } from '../dialogue/siblingFile';
import { serializeItem, documentItems, parseDocument } from '../format/jsonl';
import { writeTextAtomic } from '../format/files';
import { MI_RUBRIC } from '../rubric/presets';
import type { Rubric } from '../rubric/rubric';
import type { PacketInput } from './collect';
import { PACKET_FORMAT, type Packet, type PacketManifest } from './packets';

/** The study's name without `.dialogues.jsonl` / `.jsonl`. */
function studyName(studyFile: string): string {
  return siblingFile(basename(studyFile), '');
}

/** A file-name-safe form of an annotator id (letters, digits, `-`, `_`, `.` kept; anything else `_`). */
export function annotatorSlug(annotator: string): string {
  return annotator.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** The three files of an annotator's packet in `folder`. */
export function packetPaths(folder: string, studyFile: string, annotator: string): { packet: string; rubric: string; manifest: string } {
  const base = join(folder, `${studyName(studyFile)}.${annotatorSlug(annotator)}`);
  return { packet: `${base}.dialogues.jsonl`, rubric: `${base}.rubric.json`, manifest: `${base}.packet.json` };
}

/** The manifest beside a packet file (`x.dialogues.jsonl` → `x.packet.json`). */
export function manifestPathOf(packetFile: string): string {
  return siblingFile(packetFile, '.packet.json');
}

/**
 * Writes every packet's three files into `folder` (made if missing), atomically each.
 *
 * @returns the files written, per annotator
 * @throws Error when two annotators' ids map to the same file name
 */
export function writePackets(folder: string, studyFile: string, packets: readonly Packet[], rubric: Rubric): { annotator: string; packet: string; rubric: string; manifest: string }[] {
  mkdirSync(folder, { recursive: true });
  const out = packets.map((p) => ({ annotator: p.annotator, ...packetPaths(folder, studyFile, p.annotator) }));
  const clash = out.find((o, i) => out.findIndex((x) => x.packet === o.packet) !== i);
  if (clash) throw new Error(`two annotators' packets would both be ${clash.packet}: give annotator ids that differ in letters or digits`);
  const rubricText = `${JSON.stringify(rubric === MI_RUBRIC ? { preset: MI_RUBRIC.name } : rubric, null, 2)}\n`;
  packets.forEach((p, i) => {
    writeTextAtomic(out[i].packet, p.items.map((it) => `${serializeItem(it)}\n`).join(''));
    writeTextAtomic(out[i].rubric, rubricText);
    writeTextAtomic(out[i].manifest, `${JSON.stringify(p.manifest, null, 2)}\n`);
  });
  return out;
}

/**
 * Reads a packet and its manifest for collect. Lines that are not items become problem lines (named, and refusing
 * the collect), never skipped silently.
 *
 * @throws Error naming the file when the packet or its manifest cannot be read
 */
export function readPacket(packetFile: string): PacketInput {
  const manifestFile = manifestPathOf(packetFile);
  if (!existsSync(packetFile)) throw new Error(`${packetFile}: no such packet`);
  if (!existsSync(manifestFile)) throw new Error(`${packetFile}: its manifest ${basename(manifestFile)} is missing (assign writes it beside the packet)`);
  let manifest: PacketManifest;
  try {
    manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as PacketManifest;
  } catch (err) {
    throw new Error(`${manifestFile}: not valid JSON (${(err as Error).message})`);
  }
  const doc = parseDocument(readFileSync(packetFile), basename(packetFile));
  const items = documentItems(doc);
  return {
    file: basename(packetFile),
    items: doc.itemLines.map((index, i) => ({ line: index + 1, item: items[i] })),
    problemLines: doc.problems.map((p) => ({ line: p.line, message: `${p.field ? `${p.field}: ` : ''}${p.message}` })),
    manifest,
    manifestFile: basename(manifestFile),
  };
}

/**
 * The manifests in `folder` of packets cut from the study named `studyFile` (its file name): what `progress
 * --packets` and the editor's team progress count each annotator's assignment from. Files that are not packet
 * manifests, or of another study, are skipped; a manifest that is not valid JSON is named.
 *
 * @throws Error naming the file of a manifest that is not valid JSON
 */
export function readManifests(folder: string, studyFile: string): PacketManifest[] {
  if (!existsSync(folder)) return [];
  const out: PacketManifest[] = [];
  for (const f of readdirSync(folder).filter((x) => x.endsWith('.packet.json')).sort()) {
    let m: PacketManifest;
    try {
      m = JSON.parse(readFileSync(join(folder, f), 'utf8')) as PacketManifest;
    } catch (err) {
      throw new Error(`${join(folder, f)}: not valid JSON (${(err as Error).message})`);
    }
    if (m?.format === PACKET_FORMAT && m.study?.file === basename(studyFile)) out.push(m);
  }
  return out;
}
