/**
 * The records of a dataset file, whatever its layout: CSV (any delimiter), JSON Lines, or one JSON document — an
 * array of records, or an object holding one — optionally with a list of responses nested in each record
 * (`recordPath`, as pandas' `json_normalize(record_path=…)`: each element of the list is one record, which also
 * sees its parent's fields). Every record knows where it is: its line, and for JSON its path (`[3].responses[2]`),
 * so a problem names the file, the line, the path and the field.
 */
import { findNodeAtLocation, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { readCsvRecords } from './annotationImport';
import { AnnotationTableError, type TableProblem } from './annotationColumns';

/** Every problem of a dataset, each with its line, row (or JSON path) and column (an {@link AnnotationTableError}). */
export class DatasetImportError extends AnnotationTableError {
  /** @param problems - listed by line (the order they were found in is kept for one line) */
  constructor(file: string, problems: TableProblem[]) {
    super(file, [...problems].sort((a, b) => a.line - b.line));
    this.name = 'DatasetImportError';
  }
}

/** The formats a dataset file can have: `json` is one JSON document (an array of records), `jsonl` one record per line. */
export type DatasetFormat = 'csv' | 'json' | 'jsonl';

/** A JSON path segment: a field name or a list index. */
export type PathSegment = string | number;

/** `[3].responses[2].Overall[1]`: a JSON path as people read it (a top-level JSONL record's path starts with its field). */
export function jsonPath(segments: readonly PathSegment[]): string {
  let out = '';
  for (const s of segments) out += typeof s === 'number' ? `[${s}]` : /^[A-Za-z_$][\w$]*$/.test(s) ? (out ? `.${s}` : s) : `[${JSON.stringify(s)}]`;
  return out;
}

/** One record of the file, whatever its format. */
export interface DatasetRecord {
  /** 1-based line where the record starts (CSV: the header is line 1). */
  line: number;
  /** CSV: the spreadsheet row (header = 1); JSON and JSONL: the record's number (1-based). */
  row: number;
  /** JSON and JSONL: where the record is (`[3]`, `[3].responses[2]`; a JSONL line's nested record: `responses[2]`). */
  path?: PathSegment[];
  /** The value of a column (CSV) or field (JSON: dotted paths into nested objects; a nested record's own fields first, then its parent's); undefined when absent. */
  value(column: string): unknown;
  /** JSON and JSONL: the line and path of a field of this record (and of an element of it when it is a list), for problems. */
  locate?(column: string, index?: number): { line: number; path: PathSegment[] };
  /** Its columns, in order. */
  columns: string[];
}

/** The records of a dataset file and its columns (the CSV header, or every field of the JSON records). */
export interface Dataset {
  /** The format as read (a `.json` file holding JSON Lines is `jsonl`). */
  format: DatasetFormat;
  columns: string[];
  records: DatasetRecord[];
  /** JSON: the field of an object document that held the records (`data` in `{"data": [...]}`). */
  recordsField?: string;
  /** The list field whose elements are the records (`recordPath`), when there is one. */
  recordPath?: string;
}

/** `csv` for .csv/.tsv/.txt, `json` for .json, `jsonl` for .jsonl/.ndjson. */
export function formatOf(file: string): DatasetFormat | undefined {
  if (/\.(csv|tsv|txt)$/i.test(file)) return 'csv';
  if (/\.json$/i.test(file)) return 'json';
  if (/\.(jsonl|ndjson)$/i.test(file)) return 'jsonl';
  return undefined;
}

/**
 * Which JSON format a text is, whatever its name says: an array or a multi-line object document is `json`; one
 * object per line is `jsonl`; a single object on one line is `hint` (the declared format). A file named `.json`
 * holding JSON Lines, or `.jsonl` holding an array, is read as what it is.
 */
export function sniffJsonFormat(text: string, hint: 'json' | 'jsonl' = 'json'): 'json' | 'jsonl' {
  const t = text.replace(/^\ufeff/, '');
  const first = t.match(/\S/)?.[0];
  if (first === '[') return 'json';
  const lines = t.split(/\r\n|\n|\r/).filter((l) => l.trim() !== '');
  try {
    JSON.parse(lines[0] ?? '');
  } catch {
    return 'json';
  }
  // one object on one line: a JSON Lines file of one record, or a JSON document holding the records
  return lines.length > 1 ? 'jsonl' : hint;
}

function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return starts;
}

function lineAtOffset(starts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

function getPath(obj: Record<string, unknown>, path: string): unknown {
  if (Object.hasOwn(obj, path)) return obj[path];
  if (!path.includes('.')) return undefined;
  return path.split('.').reduce<unknown>((v, p) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>)[p] : undefined), obj);
}

function hasPath(obj: Record<string, unknown>, path: string): boolean {
  return Object.hasOwn(obj, path) || (path.includes('.') && Object.hasOwn(obj, path.split('.')[0]) && getPath(obj, path) !== undefined);
}

function describe(v: unknown): string {
  return v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v).slice(0, 40)}`;
}

/** Options of {@link readDataset}. */
export interface ReadDatasetOptions {
  /** A list field of each record whose elements are the records (responses nested in a context). */
  recordPath?: string;
}

interface JsonSource {
  obj: Record<string, unknown>;
  line: number;
  path: PathSegment[];
  /** Line of a sub-path of this object. */
  lineOf: (sub: PathSegment[]) => number;
}

/**
 * Records from JSON objects (top-level records, or their nested lists with `recordPath`).
 */
function jsonRecords(sources: JsonSource[], recordPath: string | undefined, problems: TableProblem[]): { records: DatasetRecord[]; columns: string[] } {
  const records: DatasetRecord[] = [];
  const columns: string[] = [];
  const seen = new Set<string>();
  const addColumns = (keys: Iterable<string>) => {
    for (const k of keys) if (!seen.has(k)) (seen.add(k), columns.push(k));
  };
  const make = (obj: Record<string, unknown>, parent: JsonSource | undefined, path: PathSegment[], line: number, lineOf: (sub: PathSegment[]) => number): DatasetRecord => {
    const own = Object.keys(obj);
    const cols = parent ? [...own, ...Object.keys(parent.obj).filter((k) => k !== recordPath && !own.includes(k))] : own;
    return {
      line,
      row: records.length + 1,
      path,
      columns: cols,
      value: (c) => (hasPath(obj, c) || !parent ? getPath(obj, c) : c === recordPath ? undefined : getPath(parent.obj, c)),
      locate: (c, index) => {
        const inOwn = hasPath(obj, c) || !parent;
        const base = inOwn ? path : parent.path;
        const sub: PathSegment[] = [...(Object.hasOwn(inOwn ? obj : parent.obj, c) ? [c] : c.split('.')), ...(index !== undefined ? [index] : [])];
        return { line: inOwn ? lineOf(sub) : parent.lineOf(sub), path: [...base, ...sub] };
      },
    };
  };
  for (const src of sources) {
    if (!recordPath) {
      addColumns(Object.keys(src.obj));
      records.push(make(src.obj, undefined, src.path, src.line, src.lineOf));
      continue;
    }
    const list = getPath(src.obj, recordPath);
    if (!Array.isArray(list)) {
      problems.push({ line: src.line, row: src.line, path: jsonPath([...src.path, recordPath]), message: list === undefined ? `has no field "${recordPath}" (the recordPath: a list of responses)` : `"${recordPath}" must be a list of response objects, got ${describe(list)}` });
      continue;
    }
    list.forEach((el, j) => {
      const sub: PathSegment[] = [...recordPath.split('.'), j];
      if (el === null || typeof el !== 'object' || Array.isArray(el)) {
        problems.push({ line: src.lineOf(sub), row: src.lineOf(sub), path: jsonPath([...src.path, ...sub]), message: `expected a response object, got ${describe(el)}` });
        return;
      }
      const o = el as Record<string, unknown>;
      addColumns(Object.keys(o));
      addColumns(Object.keys(src.obj).filter((k) => k !== recordPath));
      records.push(make(o, src, [...src.path, ...sub], src.lineOf(sub), (s) => src.lineOf([...sub, ...s])));
    });
  }
  return { records, columns };
}

/**
 * Reads a dataset file's records.
 *
 * - `csv`: a header row, then one record per row (comma, tab or semicolon, detected).
 * - `json` / `jsonl`: whichever the text is ({@link sniffJsonFormat}): one JSON document — an array of record
 *   objects, or an object one of whose fields is that array — or one record object per line.
 * - `options.recordPath`: a list field of each JSON record whose elements are the records; each also sees its
 *   parent's fields (not for CSV).
 *
 * @throws DatasetImportError on unreadable CSV, text that is not JSON (one problem at the first error, with its
 *   line), records that are not objects, or CSV rows with too many or too few fields (each problem with its line,
 *   and its JSON path for JSON)
 */
export function readDataset(text: string, format: DatasetFormat, file = 'dataset', options: ReadDatasetOptions = {}): Dataset {
  const problems: TableProblem[] = [];
  if (format === 'json' || format === 'jsonl') {
    const actual = sniffJsonFormat(text, format);
    const sources: JsonSource[] = [];
    let recordsField: string | undefined;
    if (actual === 'jsonl') {
      let n = 0;
      text.replace(/^\ufeff/, '').split(/\r\n|\n|\r/).forEach((lineText, i) => {
        if (!lineText.trim()) return;
        n++;
        let value: unknown;
        try {
          value = JSON.parse(lineText);
        } catch (err) {
          problems.push({ line: i + 1, row: n, message: `not valid JSON: ${(err as Error).message}` });
          return;
        }
        if (value === null || typeof value !== 'object' || Array.isArray(value)) {
          problems.push({ line: i + 1, row: n, message: `expected a JSON object (one record per line), got ${describe(value)}` });
          return;
        }
        sources.push({ obj: value as Record<string, unknown>, line: i + 1, path: [], lineOf: () => i + 1 });
      });
    } else {
      const body = text.replace(/^\ufeff/, '');
      const errors: ParseError[] = [];
      const tree = parseTree(body, errors, { disallowComments: true, allowTrailingComma: false });
      const starts = lineStarts(body);
      if (errors.length || !tree) {
        const e = errors[0];
        const line = e ? lineAtOffset(starts, e.offset) : 1;
        throw new DatasetImportError(file, [{ line, row: line, message: `not valid JSON (${e ? printParseErrorCode(e.error) : 'empty file'}); expected an array of records, or one JSON object per line` }]);
      }
      const value = JSON.parse(body) as unknown;
      let list: unknown[];
      let listNode: Node = tree;
      if (Array.isArray(value)) list = value;
      else if (value !== null && typeof value === 'object') {
        const fields = Object.entries(value as Record<string, unknown>).filter(([, v]) => Array.isArray(v) && v.length > 0 && v.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x)));
        if (fields.length !== 1) {
          throw new DatasetImportError(file, [{ line: 1, row: 1, message: `expected an array of records, or an object holding one list of records; this object has ${fields.length === 0 ? 'no list of objects' : `${fields.length} (${fields.map(([k]) => k).join(', ')})`} among its fields ${Object.keys(value).slice(0, 10).join(', ')}` }]);
        }
        recordsField = fields[0][0];
        list = fields[0][1] as unknown[];
        listNode = findNodeAtLocation(tree, [recordsField])!;
      } else throw new DatasetImportError(file, [{ line: 1, row: 1, message: `expected an array of records, got ${describe(value)}` }]);
      const base: PathSegment[] = recordsField ? [recordsField] : [];
      list.forEach((rec, i) => {
        const node = listNode.children?.[i];
        const line = node ? lineAtOffset(starts, node.offset) : 1;
        if (rec === null || typeof rec !== 'object' || Array.isArray(rec)) {
          problems.push({ line, row: line, path: jsonPath([...base, i]), message: `expected a record object, got ${describe(rec)}` });
          return;
        }
        const lineOf = (sub: PathSegment[]) => {
          if (!node) return line;
          for (let k = sub.length; k >= 0; k--) {
            const n = findNodeAtLocation(node, sub.slice(0, k));
            if (n) return lineAtOffset(starts, n.offset);
          }
          return line;
        };
        sources.push({ obj: rec as Record<string, unknown>, line, path: [...base, i], lineOf });
      });
    }
    const { records, columns } = jsonRecords(sources, options.recordPath, problems);
    if (problems.length) throw new DatasetImportError(file, problems);
    return { format: actual, columns, records, ...(recordsField ? { recordsField } : {}), ...(options.recordPath ? { recordPath: options.recordPath } : {}) };
  }
  if (options.recordPath) throw new DatasetImportError(file, [{ line: 1, row: 1, message: `"recordPath" (${options.recordPath}) reads lists nested in JSON records; a CSV file has none` }]);
  const rows = readCsvRecords(text, file);
  if (rows.length === 0) throw new DatasetImportError(file, [{ line: 1, row: 1, message: 'the file is empty; expected a header row' }]);
  const columns = rows[0].cells.map((c, i) => (i === 0 ? c.replace(/^\ufeff/, '') : c).trim());
  const index = new Map<string, number>();
  columns.forEach((c, i) => {
    if (index.has(c)) problems.push({ line: 1, row: 1, column: c, message: `column ${JSON.stringify(c)} appears twice (columns ${index.get(c)! + 1} and ${i + 1})` });
    else index.set(c, i);
  });
  const records: DatasetRecord[] = [];
  for (const r of rows.slice(1)) {
    if (r.cells.length < columns.length) {
      problems.push({ line: r.line, row: r.row, message: `has ${r.cells.length} field(s), the header has ${columns.length} (a quote left open or a missing delimiter?)` });
      continue;
    }
    if (r.cells.length > columns.length && r.cells.slice(columns.length).some((c) => c.trim() !== '')) {
      problems.push({ line: r.line, row: r.row, message: `has ${r.cells.length} fields, the header has ${columns.length}` });
      continue;
    }
    records.push({ line: r.line, row: r.row, columns, value: (c) => (index.has(c) ? r.cells[index.get(c)!] : undefined) });
  }
  if (problems.length) throw new DatasetImportError(file, problems);
  return { format, columns, records };
}
