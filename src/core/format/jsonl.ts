/**
 * Lossless reading and writing of dialogue JSONL files.
 *
 * A file is split into physical lines that keep their exact bytes and line endings. Lines that hold a valid
 * item are parsed; blank lines and malformed lines are kept verbatim and reported, never dropped. Writing
 * re-serialises only the lines that were edited, so every other byte of the file stays as it was.
 */
import Ajv, { type ErrorObject } from 'ajv';
import schema from '../../../docs/dialogue-item.schema.json';
import type { DialogueItem } from '../dialogue/types';

/** A problem found on one line of a file. `line` is 1-based, as editors show it. */
export interface LineProblem {
  file: string;
  line: number;
  /** Dotted path of the offending field, e.g. `candidates[0].origin.kind`; absent for JSON syntax errors. */
  field?: string;
  message: string;
}

/** One physical line of the file with its exact text and line ending. */
export interface RawLine {
  /** The line's text without its line ending. */
  text: string;
  /** The line ending that followed it: `'\n'`, `'\r\n'`, a lone `'\r'`, or `''` for a last line without one. */
  eol: '\n' | '\r\n' | '\r' | '';
}

export type ParsedLine =
  | { kind: 'item'; raw: RawLine; item: DialogueItem }
  | { kind: 'blank'; raw: RawLine }
  | { kind: 'invalid'; raw: RawLine; problems: LineProblem[] };

/** A parsed dialogue file: every line in order, plus the index of item lines. */
export interface DialogueDocument {
  file: string;
  lines: ParsedLine[];
  /** For each item, in file order, its 0-based line index in `lines`. */
  itemLines: number[];
  /** Every problem found, in line order (invalid lines and duplicate ids). */
  problems: LineProblem[];
}

/** A replacement of one whole line (0-based `line`), without its line ending. */
export interface LineEdit {
  line: number;
  oldText: string;
  newText: string;
}

/** Error thrown when a file cannot be used at all; carries the problems that made it so. */
export class DialogueFormatError extends Error {
  constructor(
    message: string,
    readonly problems: LineProblem[],
  ) {
    super(message);
    this.name = 'DialogueFormatError';
  }
}

let validator: ReturnType<Ajv['compile']> | undefined;
function validateItem(value: unknown): ErrorObject[] {
  if (!validator) {
    const ajv = new Ajv({ allErrors: true, strict: false });
    validator = ajv.compile(schema);
  }
  return validator(value) ? [] : (validator.errors ?? []);
}

/** `/candidates/0/origin/kind` → `candidates[0].origin.kind`. */
function fieldPath(pointer: string, extra?: string): string {
  const parts = pointer.split('/').slice(1).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (extra) parts.push(extra);
  let out = '';
  for (const p of parts) out += /^\d+$/.test(p) ? `[${p}]` : out ? `.${p}` : p;
  return out || '(item)';
}

function describeAjvError(e: ErrorObject): { field: string; message: string } {
  if (e.keyword === 'required') {
    const missing = (e.params as { missingProperty: string }).missingProperty;
    return { field: fieldPath(e.instancePath, missing), message: `missing required field "${missing}"` };
  }
  if (e.keyword === 'enum') {
    const allowed = (e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ');
    return { field: fieldPath(e.instancePath), message: `must be one of ${allowed}` };
  }
  return { field: fieldPath(e.instancePath), message: e.message ?? e.keyword };
}

/**
 * Splits text into lines, keeping each line ending. Line breaks are `\r\n`, `\n` and a lone `\r`, as VS Code
 * counts them, so line numbers agree with the editor's. A final empty line after the last break is not a line.
 */
export function splitLines(text: string): RawLine[] {
  const lines: RawLine[] = [];
  const re = /\r\n|\n|\r/g;
  let start = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    lines.push({ text: text.slice(start, m.index), eol: m[0] as RawLine['eol'] });
    start = m.index + m[0].length;
  }
  if (start < text.length) lines.push({ text: text.slice(start), eol: '' });
  return lines;
}

/**
 * Parses one line. A line that is not a JSON object, or that does not satisfy the item schema, is `invalid`
 * and carries problems naming the file, line and field.
 *
 * @param file - file name used in problem reports
 * @param lineIndex - 0-based index of the line (reported 1-based)
 */
export function parseLine(raw: RawLine, file: string, lineIndex: number): ParsedLine {
  const line = lineIndex + 1;
  const text = lineIndex === 0 ? raw.text.replace(/^\uFEFF/, '') : raw.text;
  if (text.trim() === '') return { kind: 'blank', raw };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { kind: 'invalid', raw, problems: [{ file, line, message: `not valid JSON: ${(err as Error).message}` }] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'invalid', raw, problems: [{ file, line, message: 'a line must hold one JSON object (an item)' }] };
  }
  const errors = validateItem(value);
  if (errors.length > 0) {
    return { kind: 'invalid', raw, problems: errors.map((e) => ({ file, line, ...describeAjvError(e) })) };
  }
  const item = value as DialogueItem;
  // Optional arrays/maps default in memory only; the line's bytes are untouched unless the item is edited.
  for (const c of item.candidates) {
    if (!Array.isArray(c.annotations)) c.annotations = [];
    if (c.scores === undefined) c.scores = {};
  }
  return { kind: 'item', raw, item };
}

/**
 * Parses a whole dialogue file. Never throws for bad lines: they are kept verbatim and listed in `problems`.
 *
 * @param text - the file's full text
 * @param file - the file name used in problem reports
 * @param previous - an earlier parse of the same file: item lines whose text is unchanged are reused rather
 *   than parsed and validated again, so an edit to one line of a 10,000-item file costs one line's work.
 *   Reused items are shared, so callers must treat items as immutable (every edit helper here copies).
 */
export function parseDocument(text: string, file: string, previous?: DialogueDocument): DialogueDocument {
  const reuse = new Map<string, ParsedLine>();
  if (previous) for (const i of previous.itemLines) reuse.set(previous.lines[i].raw.text, previous.lines[i]);
  const lines = splitLines(text).map((raw, i) => {
    const hit = reuse.get(raw.text);
    return hit && hit.kind === 'item' ? { kind: 'item' as const, raw, item: hit.item } : parseLine(raw, file, i);
  });
  const itemLines: number[] = [];
  const problems: LineProblem[] = [];
  const seen = new Map<string, number>();
  lines.forEach((l, i) => {
    if (l.kind === 'invalid') problems.push(...l.problems);
    if (l.kind !== 'item') return;
    const first = seen.get(l.item.id);
    if (first !== undefined) {
      problems.push({ file, line: i + 1, field: 'id', message: `duplicate item id "${l.item.id}" (first on line ${first + 1})` });
    } else {
      seen.set(l.item.id, i);
    }
    itemLines.push(i);
  });
  return { file, lines, itemLines, problems };
}

/** All items of a document, in file order. */
export function documentItems(doc: DialogueDocument): DialogueItem[] {
  return doc.itemLines.map((i) => (doc.lines[i] as { item: DialogueItem }).item);
}

/** Serialises an item as one JSONL line (no line ending). */
export function serializeItem(item: DialogueItem): string {
  return JSON.stringify(item);
}

/**
 * The edit that replaces the line of item `itemIndex` with `item`.
 *
 * @throws RangeError if `itemIndex` is out of range.
 */
export function itemEdit(doc: DialogueDocument, itemIndex: number, item: DialogueItem): LineEdit {
  const line = doc.itemLines[itemIndex];
  if (line === undefined) throw new RangeError(`${doc.file}: no item at index ${itemIndex}`);
  const oldText = doc.lines[line].raw.text;
  const bom = line === 0 && oldText.startsWith('\uFEFF') ? '\uFEFF' : '';
  return { line, oldText, newText: bom + serializeItem(item) };
}

/**
 * Applies line edits and returns the new file text. Lines not edited keep their exact bytes; a line whose
 * text is unchanged is left alone.
 */
export function applyLineEdits(doc: DialogueDocument, edits: LineEdit[]): string {
  const replaced = new Map(edits.map((e) => [e.line, e.newText]));
  return doc.lines.map((l, i) => (replaced.get(i) ?? l.raw.text) + l.raw.eol).join('');
}

/**
 * Text of a document after appending items at its end. Keeps every existing byte; adds a line ending to a
 * last line that lacked one, using the file's dominant line ending.
 */
export function appendItems(doc: DialogueDocument, items: DialogueItem[]): string {
  const base = doc.lines.map((l) => l.raw.text + l.raw.eol).join('');
  const eol = doc.lines.some((l) => l.raw.eol === '\r\n') ? '\r\n' : '\n';
  const sep = base === '' || base.endsWith('\n') ? '' : eol;
  return base + sep + items.map((it) => serializeItem(it) + eol).join('');
}

/** Text of a new file holding `items`, one per line, `\n`-terminated. */
export function formatItems(items: DialogueItem[]): string {
  return items.map((it) => serializeItem(it) + '\n').join('');
}
