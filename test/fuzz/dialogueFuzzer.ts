/**
 * A seeded fuzzer for the byte guarantees of dialogue files (issue 14, docs/format.md "Guarantees").
 *
 * Each case takes a few item lines of a real dialogue file (the AnnoMI sample and the synthetic annotation table,
 * both imported with the CLI), corrupts them in one to five ways (truncation, bytes that are not UTF-8, surrogates
 * encoded as bytes, NUL, BOMs, lone CRs, CR/LF mixes, a missing last line ending, huge lines, schema violations,
 * values that are not objects, duplicate ids, blank and garbage lines), writes the file and then:
 *
 * 1. checks the parser against the fuzzer's own account of which lines are items (first occurrence of an id wins);
 * 2. opens it, labels one item with `applyLabelOp` and saves it through the core (`writeItemsBack`);
 * 3. runs `reflect-eval score` in process, then runs it again (it must then change nothing and write nothing);
 * 4. runs `reflect-eval export annotations` (it must not touch the file) and imports the table back;
 * 5. every `slowEvery` cases, `reflect-eval generate` and `reflect-eval judge` with the bundled model.
 *
 * Every fourth case is compacted after step 3 (`compactDocument`, docs/format.md "Compact files"): the compacted file
 * must hold the file's lines after its header line, every line that is not an item byte for byte (a leading byte
 * order mark moves to the header), each item with its id; it is then scored with the other metric (a new evaluator
 * for the header) and the remaining steps run on it, with the header the one other line a step may rewrite.
 *
 * After every step that may write, the file is compared with the one before, line by line as LF-terminated byte
 * runs (the fuzzer's own split, independent of the parser): a line the step was not allowed to change (anything
 * but an item line) must be byte-identical, a changed item line must still end the same way and parse as the same
 * item. Every differing line that breaks this is a lost line; a run must lose none.
 *
 * Case `i` of seed `s` depends on nothing else, so `--seed s --start i --count 1` replays it.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import seedrandom from 'seedrandom';
import { buildProgram } from '../../src/cli/main';
import { readDialogueFile, writeItemsBack } from '../../src/core/format/files';
import { compactDocument } from '../../src/core/format/compact';
import { documentItems, parseDocument } from '../../src/core/format/jsonl';
import { applyLabelOp, type LabelOp } from '../../src/core/labels/annotate';
import { ERROR_CATEGORIES } from '../../src/core/labels/scheme';
import type { DialogueItem, LikertAgreement } from '../../src/core/dialogue/types';

const root = resolve(__dirname, '../..');

/** One line the fuzzer wrote: its content bytes, its line ending, and whether it should be an item. */
interface FuzzLine {
  content: Uint8Array;
  eol: '\n' | '\r\n' | '';
  /** The id when the line is a valid item (duplicates are settled later, first occurrence wins). */
  itemId?: string;
}

type Rng = seedrandom.PRNG;

/** Options of {@link fuzzDialogues}. */
export interface FuzzOptions {
  /** Cases to run. */
  count: number;
  seed: string;
  /** Index of the first case (to replay one). */
  start?: number;
  /** Run `generate` and `judge` every this many cases (0: never). */
  slowEvery?: number;
  /** Largest huge line, in bytes (default 10 MB); one huge line in 20 has this size. */
  maxHugeBytes?: number;
  /** Keep the files of failing cases here (default: a folder in the system's temp folder). */
  failDir?: string;
  onProgress?: (done: number, stats: FuzzStats) => void;
}

/** One broken guarantee. */
export interface FuzzFailure {
  case: number;
  step: string;
  message: string;
  /** Where the case's input file was kept. */
  input?: string;
}

/** What a run did and found. */
export interface FuzzStats {
  cases: number;
  /** Corruptions applied, in all and by kind. */
  corruptions: number;
  byKind: Record<string, number>;
  /** Lines written into case files, and how many of them were not items. */
  lines: number;
  problemLines: number;
  /** Runs of each job. */
  jobs: Record<string, number>;
  /** Item lines rewritten by jobs (allowed), and lines changed that must not have been (must be 0). */
  itemLinesRewritten: number;
  linesLost: number;
  /** Runs that changed nothing and left the file's bytes and mtime alone. */
  untouchedWrites: number;
  failures: FuzzFailure[];
}

const enc = new TextEncoder();
const BOM = [0xef, 0xbb, 0xbf];
const utf8 = (s: string) => enc.encode(s);
const cat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};
const int = (rng: Rng, lo: number, hi: number) => lo + Math.floor(rng() * (hi - lo + 1));
const pick = <T>(rng: Rng, xs: readonly T[]): T => xs[Math.floor(rng() * xs.length)];
const insertAt = (b: Uint8Array, at: number, ins: Uint8Array) => cat(b.subarray(0, at), ins, b.subarray(at));
/** Offset just after the first `"text":"` (inside a string value), or -1. */
const inText = (b: Uint8Array) => {
  const i = Buffer.from(b).indexOf('"text":"');
  return i < 0 ? -1 : i + 8;
};

/** Byte sequences that are not UTF-8 (WTF-8 surrogates, overlongs, stray continuation bytes, cut sequences, Latin-1). */
const NOT_UTF8: readonly number[][] = [
  [0x80], [0xbf], [0xff], [0xfe], [0xc0, 0xaf], [0xc1, 0xbf], [0xe0, 0x80, 0xaf], [0xed, 0xa0, 0x80], [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80], [0xf5, 0x80, 0x80, 0x80], [0xe2, 0x82], [0xf0, 0x9f, 0x98], [0x63, 0x61, 0x66, 0xe9], [0xe9, 0xff],
];

/** Schema violations of a parsed item (each one breaks docs/dialogue-item.schema.json). */
const SCHEMA_BREAKS: readonly ((it: Record<string, unknown>) => void)[] = [
  (it) => delete it.id,
  (it) => delete it.context,
  (it) => delete it.candidates,
  (it) => (it.id = 42),
  (it) => (it.context = 'a string'),
  (it) => (it.context = [{ speaker: '', text: 'hi' }]),
  (it) => (it.candidates = [{ id: 'c', text: 't', origin: { kind: 'robot' } }]),
  (it) => (it.candidates = [{ id: 'c', text: 't' }]),
  (it) => (it.candidates = [{ id: 'c', text: 't', origin: { kind: 'human' }, annotations: [{ coherent: 'yes' }] }]),
];

/**
 * The corruptions: each changes `lines` in place (`t` is a random existing line) and returns false if it could
 * not apply. A corruption that leaves a line valid says so by keeping `itemId`; one that breaks it deletes it.
 */
const CORRUPTIONS: Record<string, (rng: Rng, lines: FuzzLine[], t: number, items: readonly FuzzLine[], maxHuge: number) => boolean> = {
  truncate: (rng, lines, t) => {
    const l = lines[t];
    if (l.content.length < 2) return false;
    // Cut before the last "}", so an item's outer object is never closed (trailing blanks would keep it whole).
    const brace = l.content.lastIndexOf(0x7d);
    l.content = l.content.slice(0, int(rng, 1, brace >= 1 ? brace : l.content.length - 1));
    delete l.itemId;
    return true;
  },
  notUtf8: (rng, lines, t) => {
    const l = lines[t];
    for (let k = int(rng, 1, 3); k > 0; k--) l.content = insertAt(l.content, int(rng, 0, l.content.length), Uint8Array.from(pick(rng, NOT_UTF8)));
    delete l.itemId;
    return true;
  },
  latin1: (_rng, lines, t) => {
    const l = lines[t];
    const text = new TextDecoder().decode(l.content);
    const withAccent = /[\u0080-\u00ff]/.test(text) ? text : text.replace('"text":"', '"text":"caf\u00e9 ');
    if (!/[\u0080-\u00ff]/.test(withAccent) || /[^\u0000-\u00ff]/.test(withAccent)) return false;
    l.content = Uint8Array.from(withAccent, (c) => c.charCodeAt(0));
    delete l.itemId;
    return true;
  },
  surrogateBytes: (rng, lines, t) => {
    const l = lines[t];
    const at = inText(l.content);
    if (at < 0) return false;
    const s = int(rng, 0xd800, 0xdfff);
    l.content = insertAt(l.content, at, Uint8Array.from([0xe0 | (s >> 12), 0x80 | ((s >> 6) & 0x3f), 0x80 | (s & 0x3f)]));
    delete l.itemId;
    return true;
  },
  nul: (rng, lines, t) => {
    const l = lines[t];
    l.content = insertAt(l.content, int(rng, 0, l.content.length), Uint8Array.from([0]));
    delete l.itemId;
    return true;
  },
  bom: (_rng, lines, t) => {
    // Only the first line may start with a BOM: settled in buildCase once every line has its place.
    lines[t].content = insertAt(lines[t].content, 0, Uint8Array.from(BOM));
    return true;
  },
  loneCrInString: (_rng, lines, t) => {
    const l = lines[t];
    const at = inText(l.content);
    if (at < 0) return false;
    l.content = insertAt(l.content, at, Uint8Array.from([0x0d]));
    delete l.itemId;
    return true;
  },
  loneCrBetweenTokens: (_rng, lines, t) => {
    const l = lines[t];
    if (l.content[0] !== 0x7b) return false;
    l.content = insertAt(l.content, 1, Uint8Array.from([0x0d])); // JSON whitespace: still the same item
    return true;
  },
  crBeforeCrlf: (_rng, lines, t) => {
    const l = lines[t];
    l.content = cat(l.content, Uint8Array.from([0x0d])); // "…}\r\r\n": a trailing lone CR is JSON whitespace
    l.eol = '\r\n';
    return true;
  },
  eolFlip: (_rng, lines, t) => {
    const l = lines[t];
    if (l.eol === '') return false;
    l.eol = l.eol === '\n' ? '\r\n' : '\n';
    return true;
  },
  trailingSpace: (rng, lines, t) => {
    lines[t].content = cat(lines[t].content, utf8(pick(rng, [' ', '\t', '  \t '])));
    return true;
  },
  escapedSurrogate: (_rng, lines, t) => {
    const l = lines[t];
    const at = inText(l.content);
    if (at < 0) return false;
    l.content = insertAt(l.content, at, utf8('\\ud800')); // a lone surrogate, escaped: valid JSON, still an item
    return true;
  },
  lineSeparator: (_rng, lines, t) => {
    const l = lines[t];
    const at = inText(l.content);
    if (at < 0) return false;
    l.content = insertAt(l.content, at, utf8('\u2028\u2029\u0085')); // raw in a string: valid JSON, still an item
    return true;
  },
  schema: (rng, lines, t) => {
    const l = lines[t];
    if (!l.itemId) return false;
    const value = JSON.parse(new TextDecoder().decode(l.content).replace(/^\uFEFF/, '')) as Record<string, unknown>;
    pick(rng, SCHEMA_BREAKS)(value);
    l.content = utf8(rng() < 0.5 ? JSON.stringify(value) : JSON.stringify(value, null, 1).replace(/\n/g, ' '));
    delete l.itemId;
    return true;
  },
  notObject: (rng, lines, t) => {
    lines[t] = { content: utf8(pick(rng, ['[1,2]', '"an item"', '42', 'null', 'true', '[]', '{}', '{"id":"x"}'])), eol: lines[t].eol };
    return true;
  },
  duplicateId: (rng, lines, _t, items) => {
    const source = pick(rng, items);
    const copy: FuzzLine = { content: source.content, eol: '\n', itemId: source.itemId };
    if (rng() < 0.5) {
      const value = JSON.parse(new TextDecoder().decode(source.content).replace(/^\uFEFF/, '')) as DialogueItem;
      value.context = [...value.context, { speaker: 'client', text: 'a different line with the same id' }];
      copy.content = utf8(JSON.stringify(value));
    }
    lines.splice(int(rng, 0, lines.length), 0, copy);
    return true;
  },
  huge: (rng, lines, _t, _items, maxHuge) => {
    const size = rng() < 0.05 ? maxHuge : int(rng, 64 * 1024, Math.min(maxHuge, 1024 * 1024));
    const head = utf8('{"id":"huge","context":[{"speaker":"client","text":"');
    const body = new Uint8Array(size).fill(0x61);
    for (let k = 0; k < 200; k++) body[int(rng, 0, size - 1)] = pick(rng, [0x20, 0x22, 0x5c, 0x7b, 0x0d, 0x00, 0xe9]);
    lines.splice(int(rng, 0, lines.length), 0, { content: cat(head, body), eol: '\n' });
    return true;
  },
  blank: (rng, lines) => {
    lines.splice(int(rng, 0, lines.length), 0, { content: utf8(pick(rng, ['', ' ', '\t', '  \t', '\r', ' \r '])), eol: '\n' });
    return true;
  },
  garbage: (rng, lines) => {
    const b = Uint8Array.from({ length: int(rng, 1, 300) }, () => {
      const x = int(rng, 0, 255);
      return x === 0x0a ? 0x0b : x;
    });
    lines.splice(int(rng, 0, lines.length), 0, { content: b, eol: '\n' });
    return true;
  },
};

const KINDS = Object.keys(CORRUPTIONS);

/** A base file's item lines (bytes, without line endings) and ids. */
interface Base {
  name: string;
  lines: FuzzLine[];
}

async function cli(...args: string[]): Promise<void> {
  await buildProgram().exitOverride().parseAsync(['node', 'reflect-eval', ...args]);
}

/** Runs `fn` with stderr silenced (the CLI logs progress there). */
async function quietly<T>(fn: () => Promise<T>): Promise<T> {
  const write = process.stderr.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    return await fn();
  } finally {
    process.stderr.write = write;
  }
}

/** Imports the two base files with the CLI (once per run). */
async function prepareBases(dir: string): Promise<Base[]> {
  const annomi = join(dir, 'annomi.dialogues.jsonl');
  const table = join(dir, 'table.dialogues.jsonl');
  await quietly(() => cli('import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '20', '--seed', '3', '--no-one-per-dialogue', '-o', annomi));
  await quietly(() => cli('import', 'annotations', join(root, 'data/annotations/synthetic-annotations.csv'), '--reference', '-o', table));
  return [annomi, table].map((file) => ({
    name: file,
    lines: documentItems(readDialogueFile(file)).map((it) => ({ content: utf8(JSON.stringify(it)), eol: '\n' as const, itemId: it.id })),
  }));
}

/** LF-terminated byte runs of a file (the last one may lack its LF): the fuzzer's own line split. */
function physicalLines(b: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (let lf = b.indexOf(0x0a); lf >= 0; lf = b.indexOf(0x0a, start)) {
    out.push(b.subarray(start, lf + 1));
    start = lf + 1;
  }
  if (start < b.length) out.push(b.subarray(start));
  return out;
}

const same = (a: Uint8Array, b: Uint8Array) => a.length === b.length && Buffer.from(a.buffer, a.byteOffset, a.length).equals(Buffer.from(b.buffer, b.byteOffset, b.length));
const ending = (l: Uint8Array) => (l.at(-1) !== 0x0a ? '' : l.at(-2) === 0x0d ? '\r\n' : '\n');

/** In the map of lines a step may rewrite: a compact file's header line. */
const HEADER_LINE = '\u0000header';

/**
 * Compares a file before and after a step. `items` maps physical line index → the id of the item on it (the lines a
 * step may rewrite; {@link HEADER_LINE} for a compact file's header). Returns the lines lost and the item lines
 * rewritten.
 */
function compare(before: Uint8Array, after: Uint8Array, items: ReadonlyMap<number, string>): { lost: string[]; rewritten: number } {
  const a = physicalLines(before);
  const b = physicalLines(after);
  const lost: string[] = [];
  let rewritten = 0;
  if (a.length !== b.length) return { lost: [`line count ${a.length} → ${b.length}`], rewritten };
  a.forEach((line, i) => {
    if (same(line, b[i])) return;
    const id = items.get(i);
    if (id === undefined) {
      lost.push(`line ${i + 1} (not an item) changed: ${line.length} → ${b[i].length} bytes`);
      return;
    }
    if (ending(line) !== ending(b[i])) lost.push(`line ${i + 1}: line ending ${JSON.stringify(ending(line))} → ${JSON.stringify(ending(b[i]))}`);
    let parsed: { id?: unknown; reflectEval?: unknown } | undefined;
    try {
      const text = new TextDecoder('utf-8', { fatal: true }).decode(b[i]);
      parsed = JSON.parse(text.replace(/^\uFEFF/, '')) as { id?: unknown };
    } catch (err) {
      lost.push(`line ${i + 1}: the rewritten item does not parse: ${(err as Error).message}`);
      return;
    }
    if (id === HEADER_LINE) {
      if (parsed.reflectEval === undefined) lost.push(`line ${i + 1}: the header came back as something else`);
    } else if (parsed.id !== id) lost.push(`line ${i + 1}: item ${id} came back as ${String(parsed.id)}`);
    if (i === 0 && (line[0] === 0xef) !== (b[i][0] === 0xef)) lost.push('line 1: the BOM was not kept');
    rewritten++;
  });
  return { lost, rewritten };
}

/**
 * What compaction broke: the compacted file must be a header line followed by the input's lines, each line that is
 * not an item byte for byte (a byte order mark at the start of the file moves to the header), each item line with
 * its ending and id.
 */
function compactionLost(input: Uint8Array, compacted: Uint8Array, items: ReadonlyMap<number, string>): string[] {
  const a = physicalLines(input);
  const b = physicalLines(compacted);
  if (b.length !== a.length + 1) return [`compaction: line count ${a.length} → ${b.length} (expected one more, the header)`];
  const bom = a[0]?.[0] === 0xef && a[0][1] === 0xbb && a[0][2] === 0xbf;
  if (bom !== (b[0][0] === 0xef)) return ['compaction: the byte order mark did not move to the header'];
  const lost: string[] = [];
  a.forEach((line, i) => {
    const was = i === 0 && bom ? line.subarray(3) : line;
    if (!b[i + 1]) return;
    const now = b[i + 1];
    if (!items.has(i)) {
      if (!same(was, now)) lost.push(`compaction: line ${i + 1} (not an item) changed: ${was.length} → ${now.length} bytes`);
      return;
    }
    if (ending(line) !== ending(now)) lost.push(`compaction: line ${i + 1}: line ending ${JSON.stringify(ending(line))} → ${JSON.stringify(ending(now))}`);
    let id: unknown;
    try {
      id = (JSON.parse(Buffer.from(now).toString('utf8')) as { id?: unknown }).id;
    } catch (err) {
      lost.push(`compaction: line ${i + 1}: the item does not parse: ${(err as Error).message}`);
      return;
    }
    if (id !== items.get(i)) lost.push(`compaction: line ${i + 1}: item ${items.get(i)} came back as ${String(id)}`);
  });
  return lost;
}

/** Builds case `index`: lines, their expected items (line index → id), and the corruptions applied. */
function buildCase(seed: string, index: number, bases: readonly Base[], maxHuge: number): { rng: Rng; lines: FuzzLine[]; kinds: string[] } {
  const rng = seedrandom(`${seed}/${index}`);
  const base = bases[index % bases.length];
  const n = int(rng, 2, 8);
  const crlf = rng() < 0.2;
  const chosen = new Set<number>();
  while (chosen.size < Math.min(n, base.lines.length)) chosen.add(int(rng, 0, base.lines.length - 1));
  const lines: FuzzLine[] = [...chosen].map((i) => ({ ...base.lines[i], eol: crlf ? '\r\n' : '\n' }));
  const items = lines.map((l) => ({ ...l })); // the pristine lines, for duplicateId
  const kinds: string[] = [];
  for (let k = int(rng, 1, 5); k > 0; k--) {
    const kind = pick(rng, KINDS);
    if (lines.length === 0) break;
    if (CORRUPTIONS[kind](rng, lines, int(rng, 0, lines.length - 1), items, maxHuge)) kinds.push(kind);
  }
  const last = lines.at(-1);
  // A last line without its line ending (an empty one would not be a line at all).
  if (last && last.content.length > 0 && rng() < 0.3) last.eol = '';
  lines.forEach((l, i) => {
    let boms = 0;
    while (l.content.length >= 3 * (boms + 1) && BOM.every((b, k) => l.content[3 * boms + k] === b)) boms++;
    if (boms > (i === 0 ? 1 : 0)) delete l.itemId;
  });
  return { rng, lines, kinds };
}

/** Which physical lines hold items: valid lines whose id no earlier line has. */
function expectedItems(lines: readonly FuzzLine[]): Map<number, string> {
  const out = new Map<number, string>();
  const seen = new Set<string>();
  lines.forEach((l, i) => {
    if (l.itemId === undefined || seen.has(l.itemId)) return;
    seen.add(l.itemId);
    out.set(i, l.itemId);
  });
  return out;
}

function labelOp(rng: Rng): LabelOp {
  switch (int(rng, 0, 4)) {
    case 0:
      return { kind: 'coherence', coherent: pick(rng, [true, false, null]) };
    case 1:
      return { kind: 'toggleError', error: pick(rng, ERROR_CATEGORIES) };
    case 2:
      return { kind: 'mostEvidentError', error: pick(rng, [...ERROR_CATEGORIES, null]) };
    case 3:
      return { kind: 'empathy', value: pick(rng, [1, 2, 3, 4, 5, null] as (LikertAgreement | null)[]) };
    default:
      return { kind: 'otherText', text: pick(rng, ['', 'talks past the client', 'caf\u00e9 \u2028 \ud83d\ude00']) };
  }
}

/** Label tuples of items, to compare an annotation table round trip. */
function labelTuples(items: readonly DialogueItem[]): string[] {
  const out = new Set<string>();
  for (const it of items) for (const c of it.candidates) for (const a of c.annotations) if (typeof a.coherent === 'boolean') out.add(JSON.stringify([c.text.trim(), a.annotator, a.coherent]));
  return [...out].sort();
}

/** Runs the fuzzer. Never throws for a broken guarantee: failures are in the returned stats. */
export async function fuzzDialogues(options: FuzzOptions): Promise<FuzzStats> {
  const stats: FuzzStats = { cases: 0, corruptions: 0, byKind: {}, lines: 0, problemLines: 0, jobs: {}, itemLinesRewritten: 0, linesLost: 0, untouchedWrites: 0, failures: [] };
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-fuzz-'));
  const failDir = options.failDir ?? join(tmpdir(), `reflect-eval-fuzz-failures-${options.seed}`);
  try {
    const bases = await prepareBases(dir);
    const file = join(dir, 'case.dialogues.jsonl');
    const csv = join(dir, 'case.csv');
    const back = join(dir, 'back.dialogues.jsonl');
    const start = options.start ?? 0;
    for (let index = start; index < start + options.count; index++) {
      const { rng, lines, kinds } = buildCase(options.seed, index, bases, options.maxHugeBytes ?? 10 * 1024 * 1024);
      const input = cat(...lines.map((l) => cat(l.content, utf8(l.eol))));
      stats.cases++;
      stats.corruptions += kinds.length;
      for (const k of kinds) stats.byKind[k] = (stats.byKind[k] ?? 0) + 1;
      stats.lines += lines.length;
      let items = expectedItems(lines);
      stats.problemLines += lines.length - items.size;
      // The lines a step may rewrite (after compaction: the header too).
      let rewritable: Map<number, string> = items;
      writeFileSync(file, input);
      const fail = (step: string, message: string) => {
        const kept = join(failDir, `case-${index}.dialogues.jsonl`);
        mkdirSync(failDir, { recursive: true });
        writeFileSync(kept, input);
        stats.failures.push({ case: index, step, message: `${message} (corruptions: ${kinds.join(', ')})`, input: kept });
      };
      /** Runs a step that may write the file and checks what it did; `mayChange` false: it must not write at all. */
      const step = async (name: string, run: () => Promise<unknown> | unknown, mayChange = true) => {
        const before = readFileSync(file);
        const old = new Date(Date.UTC(2020, 0, 1, 0, 0, index % 60));
        utimesSync(file, old, old);
        try {
          await quietly(async () => run());
        } catch (err) {
          fail(name, `threw: ${(err as Error).stack ?? err}`);
          return;
        }
        stats.jobs[name] = (stats.jobs[name] ?? 0) + 1;
        const after = readFileSync(file);
        const { lost, rewritten } = compare(before, after, mayChange ? rewritable : new Map());
        stats.itemLinesRewritten += rewritten;
        if (lost.length) {
          stats.linesLost += lost.length;
          fail(name, lost.join('; '));
        }
        if (same(before, after)) {
          if (statSync(file).mtimeMs !== old.getTime()) fail(name, 'changed nothing but wrote the file');
          else stats.untouchedWrites++;
        }
      };

      // 1. The parser agrees with the fuzzer on which lines are items.
      const doc = readDialogueFile(file);
      const got = doc.itemLines.map((i) => `${i}:${(doc.lines[i] as { item: DialogueItem }).item.id}`).join(' ');
      const want = [...items].map(([i, id]) => `${i}:${id}`).join(' ');
      if (got !== want || doc.lines.length !== lines.length) fail('parse', `items on lines ${got || '-'}, expected ${want || '-'}; ${doc.lines.length} lines, expected ${lines.length}`);

      // 2. Open → label → save through the core.
      const current = documentItems(doc);
      const target = current.findIndex((it) => it.candidates.length > 0);
      if (target >= 0) {
        await step('label', () => {
          const it = current[target];
          const op = labelOp(rng);
          const next = current.slice();
          next[target] = applyLabelOp(it, pick(rng, it.candidates).id, pick(rng, ['Expert-1', 'Fuzz', 'L1']), op, new Date(0));
          writeItemsBack(doc, next, file);
        });
      }

      // 3. score, then score again: the second run finds everything scored and must not write.
      const metric = pick(rng, ['rougeL', 'rougeL', 'bleu4']);
      await step('score', () => cli('score', file, '--metric', metric));

      // 3b. Every fourth case: compact the scored file, then score it with the other metric.
      if (index % 4 === 3) {
        const scored = readFileSync(file);
        const scoredDoc = readDialogueFile(file);
        const compacted = Buffer.from(compactDocument(scoredDoc).bytes);
        stats.jobs.compact = (stats.jobs.compact ?? 0) + 1;
        const lost = compactionLost(scored, compacted, items);
        const back = parseDocument(compacted, 'case.dialogues.jsonl');
        if (back.lines[0]?.kind !== 'header') lost.push('compaction: no header on line 1');
        const ids = (d: typeof back) => documentItems(d).map((it) => it.id).join(' ');
        if (ids(back) !== ids(scoredDoc)) lost.push(`compaction: items ${ids(scoredDoc)} read back as ${ids(back)}`);
        if (lost.length) {
          stats.linesLost += lost.length;
          fail('compact', lost.join('; '));
        }
        writeFileSync(file, compacted);
        items = new Map([...items].map(([i, id]) => [i + 1, id]));
        rewritable = new Map([[0, HEADER_LINE], ...items]);
        await step('score (compact file)', () => cli('score', file, '--metric', metric === 'bleu4' ? 'rougeL' : 'bleu4'));
      }
      await step('score again', () => cli('score', file, '--metric', metric), false);

      // 4. export annotations reads only; the table imports back with the same labels.
      await step(
        'export annotations',
        async () => {
          await cli('export', 'annotations', file, '-o', csv, '--force');
          const labelled = documentItems(readDialogueFile(file));
          if (labelTuples(labelled).length) {
            await cli('import', 'annotations', csv, '-o', back, '--force');
            const a = labelTuples(labelled).join('\n');
            const b = labelTuples(documentItems(readDialogueFile(back))).join('\n');
            if (a !== b) throw new Error(`labels differ after the annotation table round trip:\n${a}\n---\n${b}`);
          }
        },
        false,
      );

      // 5. The slow jobs, with the bundled model, now and then.
      if (options.slowEvery && (index - start) % options.slowEvery === options.slowEvery - 1 && items.size > 0) {
        await step('generate', () => cli('generate', file, '--max-new-tokens', '3', '--seed', String(index)));
        await step('judge', () => cli('judge', file, '--no-cache'));
      }
      options.onProgress?.(index - start + 1, stats);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return stats;
}

/** The one-paragraph summary a run prints. */
export function describeStats(s: FuzzStats): string {
  const kinds = Object.entries(s.byKind)
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  const jobs = Object.entries(s.jobs)
    .map(([k, n]) => `${k} ${n}`)
    .join(', ');
  return [
    `${s.cases} files, ${s.corruptions} corruptions tried (${kinds})`,
    `${s.lines} lines written, ${s.problemLines} of them not items`,
    `job runs: ${jobs}`,
    `${s.itemLinesRewritten} item lines rewritten by jobs; ${s.untouchedWrites} runs changed nothing and did not write`,
    `lines lost: ${s.linesLost}; failures: ${s.failures.length}`,
  ].join('\n');
}
