/**
 * Lossless reading and writing of dialogue JSONL files.
 *
 * A file is split into physical lines that keep their exact bytes and line endings. Lines that hold a valid
 * item are parsed; blank lines and malformed lines are kept verbatim and reported, never dropped. Writing
 * re-serialises only the lines that were edited, so every other byte of the file stays as it was.
 *
 * Two ways in (docs/format.md, "Guarantees"):
 * - **bytes** (`parseDocument(Uint8Array)`, the CLI via `readDialogueFile`): lines end at LF or CRLF only (a lone
 *   CR is content), each line is decoded strictly as UTF-8, a line that is not UTF-8 is a problem line kept as
 *   its bytes, and {@link documentBytes} writes every line that was not edited as the bytes it was read from;
 * - **text** (`parseDocument(string)`, the editor: VS Code's decoded TextDocument): lines end at CRLF, LF or a
 *   lone CR, as VS Code counts them, so line numbers are the editor's.
 */
import Ajv, { type ErrorObject } from 'ajv';
import schema from '../../../docs/dialogue-item.schema.json';
import type { DialogueItem } from '../dialogue/types';
import { concatBytes, decodeUtf8Lossy, decodeUtf8Strict, encodeUtf8, splitByteLines, utf8Errors, type Utf8Error } from './bytes';
import { encodeItem, expandItemScores, extendHeader, formatHeader, isHeaderLine, validateHeader, type FileHeader } from './compactScores';

/** What kind of problem a line has (for editors: a diagnostic's code). */
export type LineProblemCode = 'invalidUtf8' | 'bom' | 'json' | 'notObject' | 'schema' | 'duplicateId' | 'header' | 'compactScore';

/** A problem found on one line of a file. `line` is 1-based, as editors show it. */
export interface LineProblem {
  file: string;
  /** 1-based line number (from bytes: lines counted by LF; from text: as VS Code counts them). */
  line: number;
  /** Dotted path of the offending field, e.g. `candidates[0].origin.kind`; absent for JSON syntax errors. */
  field?: string;
  message: string;
  code?: LineProblemCode;
  /** For `invalidUtf8`: offset in the file of the first byte that is not UTF-8. */
  byteOffset?: number;
}

/** One physical line of the file with its exact text and line ending. */
export interface RawLine {
  /**
   * The line's text without its line ending. For a line read from bytes that are not UTF-8 this is a lossy
   * decoding (errors as U+FFFD), for display only: such a line is never written from its text.
   */
  text: string;
  /**
   * The line ending that followed it: `'\n'`, `'\r\n'`, `''` for a last line without one, or (text only) a lone
   * `'\r'`.
   */
  eol: '\n' | '\r\n' | '\r' | '';
  /** Read from bytes: the line's exact bytes without its line ending (a view into the file's buffer). */
  bytes?: Uint8Array;
  /** Read from bytes: offset of the line's first byte in the file. */
  byteOffset?: number;
  /** Read from bytes that are not UTF-8: the runs that are not (offsets relative to the line). */
  utf8Errors?: Utf8Error[];
}

export type ParsedLine =
  | { kind: 'item'; raw: RawLine; item: DialogueItem }
  | { kind: 'blank'; raw: RawLine }
  /** The first line of a compact file: the evaluators its compact scores stand for (`compactScores.ts`). */
  | { kind: 'header'; raw: RawLine; header: FileHeader }
  | { kind: 'invalid'; raw: RawLine; problems: LineProblem[] };

/** A parsed dialogue file: every line in order, plus the index of item lines. */
export interface DialogueDocument {
  file: string;
  lines: ParsedLine[];
  /** For each item, in file order, its 0-based line index in `lines`. */
  itemLines: number[];
  /** Every problem found, in line order (invalid lines and duplicate ids); see `lineReports` for one per line. */
  problems: LineProblem[];
  /** Read from bytes: the file's bytes as read (lines' `bytes` are views into it). */
  bytes?: Uint8Array;
  /** Read from disk (`readDialogueFile`): the file's absolute path. */
  path?: string;
  /**
   * A compact file's header (its first line): items' compact scores are expanded in memory, and edited items are
   * written compactly again (docs/format.md, "Compact files").
   */
  header?: FileHeader;
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

/** Lines of a file read as bytes: split at LF and CRLF only, each decoded strictly as UTF-8. */
export function splitByteLinesRaw(bytes: Uint8Array): RawLine[] {
  return splitByteLines(bytes).map(({ start, end, eol }) => {
    const view = bytes.subarray(start, end);
    const text = decodeUtf8Strict(view);
    if (text !== undefined) return { text, eol, bytes: view, byteOffset: start };
    const errors = utf8Errors(view);
    return { text: decodeUtf8Lossy(view), eol, bytes: view, byteOffset: start, utf8Errors: errors.length ? errors : [{ offset: 0, length: view.length }] };
  });
}

const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).toUpperCase().padStart(2, '0')).join(' ');

/** The problem of a line whose bytes are not UTF-8. */
function invalidUtf8Problem(raw: RawLine, file: string, line: number): LineProblem {
  const errors = raw.utf8Errors ?? [];
  const count = errors.reduce((n, e) => n + e.length, 0);
  const first = errors[0]?.offset ?? 0;
  const shown = raw.bytes ? ` (${hex(raw.bytes.subarray(first, first + Math.min(errors[0]?.length ?? 1, 4)))})` : '';
  const at = raw.byteOffset !== undefined ? `, file offset ${raw.byteOffset + first}` : '';
  return {
    file,
    line,
    code: 'invalidUtf8',
    ...(raw.byteOffset !== undefined ? { byteOffset: raw.byteOffset + first } : {}),
    message: `not valid UTF-8: ${count} byte${count === 1 ? '' : 's'} in ${errors.length} place${errors.length === 1 ? '' : 's'} cannot be decoded, the first at byte ${first} of the line${at}${shown}`,
  };
}

/**
 * Parses one line. A line that is not UTF-8 (read from bytes), not a JSON object, or that does not satisfy the
 * item schema, is `invalid` and carries problems naming the file, line and field.
 *
 * @param file - file name used in problem reports
 * @param lineIndex - 0-based index of the line (reported 1-based)
 * @param header - the file's header, when it has one: compact scores (`"#3": 4`) are expanded with it; without
 *   one, a line is never a header unless it is the first
 */
export function parseLine(raw: RawLine, file: string, lineIndex: number, header?: FileHeader): ParsedLine {
  const line = lineIndex + 1;
  if (raw.utf8Errors?.length) return { kind: 'invalid', raw, problems: [invalidUtf8Problem(raw, file, line)] };
  const text = lineIndex === 0 ? raw.text.replace(/^\uFEFF/, '') : raw.text;
  if (text.trim() === '') return { kind: 'blank', raw };
  if (text.startsWith('\uFEFF')) {
    return { kind: 'invalid', raw, problems: [{ file, line, code: 'bom', message: 'starts with a byte order mark (U+FEFF, bytes EF BB BF), which only the first line of a file may have' }] };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { kind: 'invalid', raw, problems: [{ file, line, code: 'json', message: `not valid JSON: ${(err as Error).message}` }] };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'invalid', raw, problems: [{ file, line, code: 'notObject', message: 'a line must hold one JSON object (an item)' }] };
  }
  if (isHeaderLine(value)) {
    if (lineIndex !== 0) return { kind: 'invalid', raw, problems: [{ file, line, code: 'header', field: 'reflectEval', message: 'a ReflectEval header belongs on the first line of a file; here it is kept as it is and not used' }] };
    const checked = validateHeader(value);
    if ('header' in checked) return { kind: 'header', raw, header: checked.header };
    return { kind: 'invalid', raw, problems: checked.problems.map((p) => ({ file, line, code: 'header' as const, ...p })) };
  }
  if (header) {
    const compactProblems = expandItemScores(value as Record<string, unknown>, header);
    if (compactProblems.length) return { kind: 'invalid', raw, problems: compactProblems.map((p) => ({ file, line, code: 'compactScore' as const, ...p })) };
  }
  const errors = validateItem(value);
  if (errors.length > 0) {
    return { kind: 'invalid', raw, problems: errors.map((e) => ({ file, line, code: 'schema' as const, ...describeAjvError(e) })) };
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
 * An item whose id an earlier item already has is not an item: its line is `invalid` (a `duplicateId` problem)
 * and kept as it is, so no job ever rewrites it.
 *
 * @param input - the file's bytes (lines end at LF or CRLF; each line decoded strictly as UTF-8; the CLI's way,
 *   see `readDialogueFile`), or its decoded text (lines end at CRLF, LF or a lone CR, as VS Code counts them)
 * @param file - the file name used in problem reports
 * @param previous - an earlier parse of the same file: item lines whose text is unchanged are reused rather
 *   than parsed and validated again, so an edit to one line of a 10,000-item file costs one line's work.
 *   Reused items are shared, so callers must treat items as immutable (every edit helper here copies).
 */
export function parseDocument(input: string | Uint8Array, file: string, previous?: DialogueDocument): DialogueDocument {
  const doc = parseRawLines(typeof input === 'string' ? splitLines(input) : splitByteLinesRaw(input), file, previous);
  return typeof input === 'string' ? doc : { ...doc, bytes: input };
}

/**
 * {@link parseDocument} of text already split into lines (as {@link splitLines} splits it: a text ending in a line
 * break has no last empty line), e.g. the dialogue editor's document, which holds its lines (`LineText.rawLines`).
 */
export function parseRawLines(raws: RawLine[], file: string, previous?: DialogueDocument): DialogueDocument {
  // The first line decides whether the file has a header; an unchanged first item is reused like any other.
  const previousFirst = previous?.lines[0];
  const sameFirst = raws.length > 0 && !raws[0].utf8Errors && previousFirst?.kind === 'item' && previousFirst.raw.text === raws[0].text;
  const first = sameFirst ? { kind: 'item' as const, raw: raws[0], item: previousFirst.item } : raws.length ? parseLine(raws[0], file, 0) : undefined;
  const header = first?.kind === 'header' ? first.header : undefined;
  // An item line reads the same only under the same header.
  const previousHeader = previous?.lines[0]?.kind === 'header' ? previous.lines[0].raw.text : undefined;
  const reuse = new Map<string, ParsedLine>();
  if (previous && previousHeader === (header ? raws[0].text : undefined)) for (const i of previous.itemLines) reuse.set(previous.lines[i].raw.text, previous.lines[i]);
  const lines: ParsedLine[] = raws.map((raw, i) => {
    if (i === 0 && first) return first;
    const hit = raw.utf8Errors ? undefined : reuse.get(raw.text);
    return hit && hit.kind === 'item' ? { kind: 'item' as const, raw, item: hit.item } : parseLine(raw, file, i, header);
  });
  const itemLines: number[] = [];
  const problems: LineProblem[] = [];
  const seen = new Map<string, number>();
  lines.forEach((l, i) => {
    if (l.kind === 'item') {
      const first = seen.get(l.item.id);
      if (first === undefined) {
        seen.set(l.item.id, i);
        itemLines.push(i);
        return;
      }
      const problem: LineProblem = { file, line: i + 1, field: 'id', code: 'duplicateId', message: `duplicate item id "${l.item.id}" (first on line ${first + 1}); this line is kept as it is and left out` };
      lines[i] = { kind: 'invalid', raw: l.raw, problems: [problem] };
    }
    const parsed = lines[i];
    if (parsed.kind === 'invalid') problems.push(...parsed.problems);
  });
  return { file, lines, itemLines, problems, ...(header ? { header } : {}) };
}

/** All items of a document, in file order. */
export function documentItems(doc: DialogueDocument): DialogueItem[] {
  return doc.itemLines.map((i) => (doc.lines[i] as { item: DialogueItem }).item);
}

/**
 * Serialises an item as one JSONL line (no line ending): compact JSON; with a compact file's header, each score the
 * header can say exactly is written under its alias (`compactScores.ts`), every other one in the long form.
 */
export function serializeItem(item: DialogueItem, header?: FileHeader): string {
  return encodeItem(item, header);
}

/**
 * The edit that replaces the line of item `itemIndex` with `item`.
 *
 * @throws RangeError if `itemIndex` is out of range.
 */
export function itemEdit(doc: DialogueDocument, itemIndex: number, item: DialogueItem, header: FileHeader | undefined = doc.header): LineEdit {
  const line = doc.itemLines[itemIndex];
  if (line === undefined) throw new RangeError(`${doc.file}: no item at index ${itemIndex}`);
  const oldText = doc.lines[line].raw.text;
  const bom = line === 0 && oldText.startsWith('\uFEFF') ? '\uFEFF' : '';
  return { line, oldText, newText: bom + serializeItem(item, header) };
}

/**
 * Applies line edits and returns the new file text. Lines not edited keep their exact text; a line whose
 * text is unchanged is left alone. For a document read from bytes, {@link documentBytes} is the lossless form
 * (a line that is not UTF-8 has no exact text).
 */
export function applyLineEdits(doc: DialogueDocument, edits: LineEdit[]): string {
  const replaced = new Map(edits.map((e) => [e.line, e.newText]));
  return doc.lines.map((l, i) => (replaced.get(i) ?? l.raw.text) + l.raw.eol).join('');
}

/**
 * The file's bytes after line edits. For a document read from bytes, every line that is not edited is written as
 * the bytes it was read from (its line ending too), whatever they are; edited lines are encoded as UTF-8 and keep
 * their line's ending. For a document read from text, the text of {@link applyLineEdits}, encoded as UTF-8.
 *
 * @throws RangeError if an edit names a line the document does not have
 */
export function documentBytes(doc: DialogueDocument, edits: readonly LineEdit[] = []): Uint8Array {
  for (const e of edits) if (!doc.lines[e.line]) throw new RangeError(`${doc.file}: no line ${e.line + 1}`);
  if (!doc.bytes) return encodeUtf8(applyLineEdits(doc, [...edits]));
  const parts: Uint8Array[] = [];
  let cursor = 0;
  // As in applyLineEdits, the last edit of a line wins.
  const replaced = [...new Map(edits.map((e) => [e.line, e.newText]))].sort((a, b) => a[0] - b[0]);
  for (const [line, newText] of replaced) {
    const { raw } = doc.lines[line];
    const start = raw.byteOffset ?? 0;
    parts.push(doc.bytes.subarray(cursor, start), encodeUtf8(newText + raw.eol));
    cursor = start + (raw.bytes?.length ?? 0) + raw.eol.length;
  }
  parts.push(doc.bytes.subarray(cursor));
  return concatBytes(parts);
}

/**
 * Text of a document after appending items at its end. Keeps every existing line's text; adds a line ending to a
 * last line that lacked one, using the file's dominant line ending. (Text: a line read from bytes that are not
 * UTF-8 comes out with U+FFFD; append to such a file through {@link documentBytes} and bytes of your own.)
 */
export function appendItems(doc: DialogueDocument, items: DialogueItem[]): string {
  const base = doc.lines.map((l) => l.raw.text + l.raw.eol).join('');
  const eol = doc.lines.some((l) => l.raw.eol === '\r\n') ? '\r\n' : '\n';
  const sep = base === '' || base.endsWith('\n') ? '' : eol;
  return base + sep + items.map((it) => serializeItem(it, doc.header) + eol).join('');
}

/** Text of a new file holding `items`, one per line, `\n`-terminated. */
export function formatItems(items: DialogueItem[]): string {
  return items.map((it) => serializeItem(it) + '\n').join('');
}

/** What {@link replaceItemsById} did. */
export interface ReplaceItemsResult {
  /** The file's new bytes (the same bytes when nothing changed). */
  bytes: Uint8Array;
  /** Item lines rewritten. */
  changed: number;
  /** Ids of given items that no item line of the file has (their changes are not in `bytes`). */
  missing: string[];
}

/**
 * Puts items into a file's bytes by id: each item line whose id one of `items` has, and whose item differs, is
 * rewritten (compact JSON, UTF-8, the line's own ending, a leading BOM kept); every other byte stays. This is the
 * byte-preserving way to save items edited elsewhere (e.g. the editor's decoded text) into a file that has lines
 * VS Code would change.
 *
 * @param fileBytes - the file's bytes on disk
 * @param items - items to write; an id given twice: the last one wins
 * @param file - the file name used in errors
 */
export function replaceItemsById(fileBytes: Uint8Array, items: readonly DialogueItem[], file = ''): ReplaceItemsResult {
  const doc = parseDocument(fileBytes, file);
  const byId = new Map(items.map((it) => [it.id, it]));
  const edits: LineEdit[] = [];
  documentItems(doc).forEach((current, i) => {
    const next = byId.get(current.id);
    if (!next) return;
    byId.delete(current.id);
    if (serializeItem(next) !== serializeItem(current)) edits.push(itemEdit(doc, i, next));
  });
  return { bytes: edits.length ? documentBytes(doc, edits) : fileBytes, changed: edits.length, missing: [...byId.keys()] };
}

/**
 * For a compact file about to take `items` (changed items): the header that lists every evaluator they have, and
 * the edit of the header line when that adds any. A file without a header gets none (it stays in the long form).
 */
export function headerEditFor(doc: DialogueDocument, items: readonly DialogueItem[]): { header?: FileHeader; edit?: LineEdit } {
  if (!doc.header) return {};
  const header = extendHeader(doc.header, items);
  if (header === doc.header) return { header };
  const oldText = doc.lines[0].raw.text;
  const bom = oldText.startsWith('\uFEFF') ? '\uFEFF' : '';
  return { header, edit: { line: 0, oldText, newText: bom + formatHeader(header) } };
}
