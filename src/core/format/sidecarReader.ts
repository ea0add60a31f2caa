/**
 * The reader of one label sidecar file (`<study>.labels/<annotator>.jsonl`; docs/format.md, "Labels in sidecar
 * files"): its name ↔ annotator, its lines, and which of them are labels — the one reader every job, the editor and
 * the side bar use (`labelSidecars.ts` `parseLabelSidecar` binds it to the annotation schema). Split from
 * `labelSidecars.ts` so that the side bar's scanner, in VS Code's small entry bundle, reads sidecars with the same
 * code without bundling the schema validator: it is given the check (`AnnotationCheck`) when it needs one.
 *
 * Pure: bytes in, values out.
 */
import { decodeUtf8Lossy, decodeUtf8Strict, encodeUtf8, splitByteLines, utf8Errors } from './bytes';
import type { RawLine } from './jsonl';
import type { Annotation } from '../dialogue/types';

/**
 * Why a line's annotation object is not an annotation (the field, as `annotation.<path>`, and why), or undefined
 * when it is one. The annotator is checked by the reader.
 */
export type AnnotationCheck = (annotation: Record<string, unknown>) => { field: string; message: string } | undefined;

/** Characters an annotator id keeps in its sidecar's name; every other UTF-8 byte is written `%XX`. */
const KEPT = /^[A-Za-z0-9._-]$/;

/**
 * The sidecar file name of an annotator: the id with every character but `A–Z a–z 0–9 . _ -` percent-encoded
 * (UTF-8, upper-case hex), then `.jsonl` — `E1` → `E1.jsonl`, `Expert 1` → `Expert%201.jsonl`. One id, one name,
 * and the name gives the id back ({@link sidecarAnnotator}).
 *
 * @throws RangeError for an empty id or one that is not Unicode text (a lone surrogate)
 */
export function sidecarFileName(annotator: string): string {
  if (annotator === '') throw new RangeError('an annotator id is empty');
  let out = '';
  for (const ch of annotator) {
    if (KEPT.test(ch)) out += ch;
    else {
      const cp = ch.codePointAt(0)!;
      if (cp >= 0xd800 && cp <= 0xdfff) throw new RangeError(`annotator id ${JSON.stringify(annotator)} has a lone surrogate`);
      for (const b of encodeUtf8(ch)) out += `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return `${out}.jsonl`;
}

/** The annotator a sidecar file name stands for, or undefined when it is not the name {@link sidecarFileName} gives. */
export function sidecarAnnotator(fileName: string): string | undefined {
  if (!fileName.endsWith('.jsonl') || fileName === '.jsonl') return undefined;
  let id: string;
  try {
    id = decodeURIComponent(fileName.slice(0, -'.jsonl'.length));
  } catch {
    return undefined;
  }
  try {
    return sidecarFileName(id) === fileName ? id : undefined;
  } catch {
    return undefined;
  }
}

/** What kind of problem a sidecar line (or the study, for `mixed`) has. */
export type LabelProblemCode = 'fileName' | 'invalidUtf8' | 'json' | 'notObject' | 'field' | 'annotator' | 'duplicate' | 'orphanItem' | 'orphanCandidate' | 'conflict' | 'mixed';

/** A problem of the labels: the file (`study.labels/E1.jsonl`, or the study), 1-based line, field and why. */
export interface LabelProblem {
  file: string;
  line: number;
  field?: string;
  message: string;
  code: LabelProblemCode;
}

/** One valid line of a sidecar: an annotator's annotation on one candidate. */
export interface SidecarEntry {
  /** 0-based line in the file. */
  lineIndex: number;
  item: string;
  candidate: string;
  /** Position in the candidate's list of annotations, when the line says (see the module comment). */
  index?: number;
  annotation: Annotation;
  /** The line's object as read: fields this version does not know are kept when the line is rewritten. */
  value: Record<string, unknown>;
}

/** One annotator's sidecar as read. */
export interface LabelSidecar {
  /** File name in the labels folder, e.g. `E1.jsonl`. */
  name: string;
  /** The name problems give: `study.labels/E1.jsonl`. */
  file: string;
  annotator: string;
  /** The file's bytes and lines (lines end at LF or CRLF, as in a study). */
  bytes: Uint8Array;
  lines: RawLine[];
  /** Valid lines, in file order (a second line for one candidate is a problem, not an entry). */
  entries: SidecarEntry[];
  /** Lines that are not labels (kept in the file as they are, left out of every job). */
  problems: LabelProblem[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const keyOf = (item: string, candidate: string) => `${item}\u0000${candidate}`;

/**
 * A sidecar's lines (at LF or CRLF, as a study's). A file that is UTF-8 throughout (the usual case) is decoded once
 * and split as text: its lines' bytes are their text's UTF-8, which is what {@link rewriteSidecar} writes back.
 */
function sidecarLines(bytes: Uint8Array): RawLine[] {
  const text = decodeUtf8Strict(bytes);
  if (text === undefined) {
    // Not UTF-8 throughout: each line decoded on its own, as jsonl.ts `splitByteLinesRaw` does (not imported: jsonl.ts
    // bundles the item schema's validator, which the side bar's entry bundle must not carry).
    return splitByteLines(bytes).map(({ start, end, eol }) => {
      const view = bytes.subarray(start, end);
      const line = decodeUtf8Strict(view);
      if (line !== undefined) return { text: line, eol, bytes: view, byteOffset: start };
      const errors = utf8Errors(view);
      return { text: decodeUtf8Lossy(view), eol, bytes: view, byteOffset: start, utf8Errors: errors.length ? errors : [{ offset: 0, length: view.length }] };
    });
  }
  const out: RawLine[] = [];
  let start = 0;
  for (let lf = text.indexOf('\n'); lf >= 0; lf = text.indexOf('\n', start)) {
    const crlf = lf > start && text.charCodeAt(lf - 1) === 13;
    out.push({ text: text.slice(start, crlf ? lf - 1 : lf), eol: crlf ? '\r\n' : '\n' });
    start = lf + 1;
  }
  if (start < text.length) out.push({ text: text.slice(start), eol: '' });
  return out;
}

const BLANK = /^\s*$/;

/** Why a parsed line is not a label of `annotator`, or undefined when it is one. */
function lineProblem(value: unknown, annotator: string, check: AnnotationCheck): { code: LabelProblemCode; message: string; field?: string } | undefined {
  if (!isObject(value)) return { code: 'notObject', message: 'a line must hold one JSON object: {"item": …, "candidate": …, "annotation": {…}}' };
  for (const k of ['item', 'candidate'] as const) {
    if (typeof value[k] !== 'string' || value[k] === '') return { code: 'field', field: k, message: `must be the ${k === 'item' ? "item's" : "candidate's"} id (a non-empty string), got ${JSON.stringify(value[k]) ?? 'nothing'}` };
  }
  const index = value.index;
  if (index !== undefined && !(Number.isInteger(index) && (index as number) >= 0)) return { code: 'field', field: 'index', message: `must be a position in the candidate's annotations (an integer ≥ 0), got ${JSON.stringify(index)}` };
  const annotation = value.annotation;
  if (!isObject(annotation)) return { code: 'field', field: 'annotation', message: `must be an annotation object, got ${JSON.stringify(annotation) ?? 'nothing'}` };
  const shape = check(annotation);
  if (shape) return { code: 'field', field: shape.field, message: shape.message };
  if (annotation.annotator !== annotator) return { code: 'annotator', field: 'annotation.annotator', message: `${JSON.stringify(annotation.annotator)} is not this file's annotator (${JSON.stringify(annotator)}, by its name)` };
  return undefined;
}

/**
 * Reads one sidecar's bytes. Never throws for a bad line: it is kept and reported (named by file, line and field).
 *
 * @param folder - the labels folder's name as problems show it (`study.labels`)
 * @param name - the file's name; must be the annotator's {@link sidecarFileName}
 * @param check - the check of a line's annotation object (`labelSidecars.ts` `annotationSchemaProblem`: the
 *   annotation schema of docs/dialogue-item.schema.json)
 * @returns the sidecar, or a `fileName` problem when the name is not an annotator's
 */
export function readSidecarFile(folder: string, name: string, bytes: Uint8Array, check: AnnotationCheck): LabelSidecar | LabelProblem {
  const file = `${folder}/${name}`;
  const annotator = sidecarAnnotator(name);
  if (annotator === undefined) {
    return { file, line: 1, code: 'fileName', message: `not a sidecar's name (an annotator id with every character but A-Z a-z 0-9 . _ - written %XX, then .jsonl): left out, never written` };
  }
  const lines = sidecarLines(bytes);
  const entries: SidecarEntry[] = [];
  const problems: LabelProblem[] = [];
  const first = new Map<string, number>();
  const bad = (i: number, code: LabelProblemCode, message: string, field?: string) => {
    problems.push({ file, line: i + 1, code, message: `${message} (line kept as it is, left out)`, ...(field ? { field } : {}) });
  };
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i];
    if (raw.utf8Errors?.length) {
      bad(i, 'invalidUtf8', 'not valid UTF-8');
      continue;
    }
    const text = i === 0 ? raw.text.replace(/^\uFEFF/, '') : raw.text;
    if (BLANK.test(text)) continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      bad(i, 'json', `not valid JSON: ${(err as Error).message}`);
      continue;
    }
    const problem = lineProblem(value, annotator, check);
    if (problem) {
      bad(i, problem.code, problem.message, problem.field);
      continue;
    }
    const v = value as { item: string; candidate: string; index?: number; annotation: Annotation };
    const key = keyOf(v.item, v.candidate);
    const earlier = first.get(key);
    if (earlier !== undefined) {
      bad(i, 'duplicate', `a second label of ${annotator} on item ${JSON.stringify(v.item)}, candidate ${JSON.stringify(v.candidate)} (the first is on line ${earlier + 1})`, 'candidate');
      continue;
    }
    first.set(key, i);
    const entry: SidecarEntry = { lineIndex: i, item: v.item, candidate: v.candidate, annotation: v.annotation, value: value as Record<string, unknown> };
    if (v.index !== undefined) entry.index = v.index;
    entries.push(entry);
  }
  return { name, file, annotator, bytes, lines, entries, problems };
}

