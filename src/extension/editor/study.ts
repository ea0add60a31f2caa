/**
 * What the dialogue editor reads beside its file (issue 39 item 3, issue 44 item 2): the study's rubric
 * (`<study>.rubric.json`, core `loadRubric`; the MI preset without one) and, for a team packet, its manifest
 * (`<packet>.packet.json`, core `manifestPathOf`). A rubric file that breaks a rule is not replaced by a guess: the
 * editor shows its problems (file, line, field) and refuses to label until it is fixed. No `vscode` import; the
 * provider re-reads it when either file changes (dialogueEditor.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { MI_RUBRIC } from '../../core/rubric/presets';
import { loadRubric, rubricPathOf, RubricError, type RubricProblem } from '../../core/rubric/rubricFile';
import type { Rubric } from '../../core/rubric/rubric';
import { manifestPathOf } from '../../core/team/packetFiles';
import { PACKET_FORMAT, type PacketManifest } from '../../core/team/packets';
import type { PacketInfo } from '../../../webview/editor/protocol';

export type { PacketInfo };

/** The rubric and packet of an open dialogue file. */
export interface StudySetup {
  /** The rubric labels follow; null when its file has problems (the editor then refuses to label). */
  rubric: Rubric | null;
  /** The rubric file, or null for the MI preset of a file without one. */
  rubricFile: string | null;
  /** Why the rubric file cannot be used (empty when it can). */
  problems: RubricProblem[];
  /** Set when the file is a team packet (its manifest is beside it). */
  packet: PacketInfo | null;
}

/** The setup of a file that is not on disk (an untitled or remote document): the MI preset, no packet. */
export const DEFAULT_SETUP: StudySetup = { rubric: MI_RUBRIC, rubricFile: null, problems: [], packet: null };

/** The packet a manifest describes, or null when it is not a packet manifest (then the file is an ordinary study). */
export function packetInfoOf(manifest: unknown, manifestFile: string): PacketInfo | null {
  const m = manifest as Partial<PacketManifest> | null;
  if (!m || m.format !== PACKET_FORMAT || typeof m.annotator !== 'string' || !m.annotator.trim()) return null;
  const assigned = Object.values(m.items ?? {}).reduce((n, it) => n + Object.keys(it?.candidates ?? {}).length, 0);
  return { annotator: m.annotator, assigned, study: m.study?.file ?? '', manifest: basename(manifestFile), blind: m.blind !== false };
}

/**
 * Reads the rubric and packet manifest beside `file` (an absolute path on disk).
 *
 * A manifest that is not valid JSON is reported as a rubric problem too (the editor must not label a packet as
 * somebody else because its manifest could not be read).
 */
export function readStudySetup(file: string): StudySetup {
  let rubric: Rubric | null = null;
  let rubricFile: string | null = null;
  let problems: RubricProblem[] = [];
  try {
    const loaded = loadRubric(file);
    rubric = loaded.rubric;
    rubricFile = loaded.file;
  } catch (err) {
    rubricFile = rubricPathOf(file);
    problems = err instanceof RubricError ? err.problems : [{ file: rubricFile, line: 1, field: '(rubric)', message: (err as Error).message }];
  }
  let packet: PacketInfo | null = null;
  const manifestFile = manifestPathOf(file);
  if (existsSync(manifestFile)) {
    try {
      packet = packetInfoOf(JSON.parse(readFileSync(manifestFile, 'utf8')), manifestFile);
    } catch (err) {
      rubric = null;
      problems = [...problems, { file: manifestFile, line: 1, field: '(manifest)', message: `the packet's manifest is not valid JSON (${(err as Error).message})` }];
    }
  }
  return { rubric, rubricFile, problems, packet };
}

/**
 * Who labels and whether blind mode is on, for a file with this setup: a team packet labels as its annotator,
 * always blind (issue 44 item 2: no prompt, no setting changes it); any other file as the settings say.
 */
export function labellingSettings(setup: Pick<StudySetup, 'packet'>, configured: { annotator: string | null; blind: boolean }): { annotator: string | null; blind: boolean } {
  return setup.packet ? { annotator: setup.packet.annotator, blind: true } : configured;
}

/** The files whose change means the setup must be read again: the rubric and the manifest. */
export function setupFilesOf(file: string): string[] {
  return [rubricPathOf(file), manifestPathOf(file)];
}
