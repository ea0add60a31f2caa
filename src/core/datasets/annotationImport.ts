/**
 * Import of long annotation tables (one CSV row per (reflection, annotator), the layout of the Wu et al.
 * ACL 2023 release; see `layout.ts` and docs/annotations.md) into dialogue items.
 */
import { parse } from 'csv-parse/sync';
import type { Annotation, Candidate, CandidateOrigin, DialogueItem, ErrorCategory, Speaker, Turn } from '../dialogue/types';
import { labelCell, SpellingCount, storedTableStyle, type TableStyle } from './annotationCells';
import {
  ANNOTATION_TABLE_COLUMNS,
  AnnotationTableError,
  DEFAULT_EXPERT_PREFIX,
  DEFAULT_HUMAN_SOURCES,
  ERROR_COLUMNS,
  OPTIONAL_COLUMNS,
  isEmptyCell,
  normaliseHeader,
  parseErrorCategory,
  parseLikert,
  parseYesNo,
  type OptionalColumn,
  type TableProblem,
} from './annotationColumns';

/** Options of {@link importAnnotationTable}. */
export interface AnnotationImportOptions {
  /** Annotator names starting with this (case-insensitive) are experts, the others laypeople (default `Expert`). */
  expertPrefix?: string;
  /**
   * Make each item's human-written response its `reference` (default false). Which responses are human is
   * decided by `humanSources`.
   */
  reference?: boolean;
  /** `reflection_source` values that mean a human response (case-insensitive; default {@link DEFAULT_HUMAN_SOURCES}). */
  humanSources?: readonly string[];
  /** Base name of the table, recorded in provenance and used in error messages (default `annotations.csv`). */
  file?: string;
}

/** Something worth telling the user that does not stop the import. */
export interface AnnotationImportWarning {
  line: number;
  row: number;
  message: string;
}

/** What {@link importAnnotationTable} made of a table. */
export interface AnnotationImportResult {
  items: DialogueItem[];
  warnings: AnnotationImportWarning[];
  /** Data rows read (header excluded). */
  rows: number;
  /** Columns kept as `extraColumns` (original header spelling), and the level each was stored at. */
  extraColumns: { name: string; level: 'item' | 'candidate' | 'annotation' }[];
  annotators: { id: string; group: 'expert' | 'layperson' }[];
}

/** One CSV record: its cells, the physical line it starts on, and its spreadsheet row (header = 1). */
export interface ParsedRow {
  line: number;
  row: number;
  cells: string[];
}

/** Line starts of a UTF-8 buffer, to turn csv-parse's byte offsets into 1-based line numbers. */
function lineLocator(buf: Buffer): (byte: number) => number {
  const starts: number[] = [0];
  for (let i = 0; i < buf.length; i++) {
    if (buf[i] === 0x0a) starts.push(i + 1);
    else if (buf[i] === 0x0d && buf[i + 1] !== 0x0a) starts.push(i + 1);
  }
  return (byte) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= byte) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/** The field delimiter: `,` unless the header line has none and has tabs or semicolons. */
function detectDelimiter(text: string): string {
  const first = text.replace(/^\ufeff/, '').split(/\r\n|\n|\r/, 1)[0] ?? '';
  if (first.includes(',')) return ',';
  if (first.includes('\t')) return '\t';
  if (first.includes(';')) return ';';
  return ',';
}

/**
 * Reads the records of a CSV text (a BOM, CRLF or CR line ends, quoted line breaks; comma, tab or semicolon
 * delimited, from the header line) with the physical line each starts on and its spreadsheet row (the header is
 * row 1). Shared with the generic importer (`src/core/datasets/genericImport.ts`).
 *
 * @throws AnnotationTableError when the text is not readable CSV, with the line where reading stopped
 */
export function readCsvRecords(text: string, file: string): ParsedRow[] {
  return readRecords(text, file);
}

function readRecords(text: string, file: string): ParsedRow[] {
  const buf = Buffer.from(text, 'utf8');
  const lineOf = lineLocator(buf);
  type Info = { record: string[]; info: { bytes: number } };
  let records: Info[];
  try {
    records = parse(buf, { bom: true, info: true, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, delimiter: detectDelimiter(text) }) as unknown as Info[];
  } catch (err) {
    const e = err as Error & { bytes?: number; records?: number };
    const line = typeof e.bytes === 'number' ? lineOf(e.bytes) : 1;
    throw new AnnotationTableError(file, [{ line, row: (e.records ?? 0) + 1, message: `not a readable CSV file: ${e.message}` }]);
  }
  let prevEnd = 0;
  return records.map((r, i) => {
    let start = prevEnd;
    while (start < buf.length && (buf[start] === 0x0a || buf[start] === 0x0d)) start++;
    prevEnd = r.info.bytes;
    return { line: lineOf(start), row: i + 1, cells: r.record };
  });
}

/** Header analysis: where each known column is, and the extra ones. */
interface Header {
  names: string[];
  index: Record<string, number>;
  optional: Partial<Record<OptionalColumn, number>>;
  extra: { name: string; index: number }[];
}

function readHeader(cells: string[], file: string): Header {
  const names = cells.map((c, i) => (i === 0 ? c.replace(/^\ufeff/, '') : c).trim());
  const norm = names.map(normaliseHeader);
  const problems: TableProblem[] = [];
  const seen = new Map<string, number>();
  norm.forEach((n, i) => {
    if (seen.has(n)) problems.push({ line: 1, row: 1, column: names[i], message: `column ${JSON.stringify(names[i])} appears twice (columns ${seen.get(n)! + 1} and ${i + 1})` });
    seen.set(n, i);
  });
  const index: Record<string, number> = {};
  for (const c of ANNOTATION_TABLE_COLUMNS) if (seen.has(c)) index[c] = seen.get(c)!;
  const missing = ANNOTATION_TABLE_COLUMNS.filter((c) => !(c in index));
  if (missing.length === ANNOTATION_TABLE_COLUMNS.length) {
    throw new AnnotationTableError(file, [
      { line: 1, row: 1, message: `this is not an annotation table: none of its columns is one of ${ANNOTATION_TABLE_COLUMNS.join(', ')} (header: ${names.slice(0, 8).join(', ')}${names.length > 8 ? ', …' : ''})` },
    ]);
  }
  if (missing.length) problems.push({ line: 1, row: 1, message: `missing column(s): ${missing.join(', ')}` });
  if (problems.length) throw new AnnotationTableError(file, problems);
  const optional: Partial<Record<OptionalColumn, number>> = {};
  const used = new Set(Object.values(index));
  for (const [key, aliases] of Object.entries(OPTIONAL_COLUMNS) as [OptionalColumn, readonly string[]][]) {
    const i = norm.findIndex((n, j) => !used.has(j) && aliases.includes(n));
    if (i >= 0) {
      optional[key] = i;
      used.add(i);
    }
  }
  const extra = names.flatMap((name, i) => (used.has(i) ? [] : [{ name, index: i }]));
  return { names, index, optional, extra };
}

/** Label columns in the order the importer checks them (see `cells.ts`). */
const LABEL_COLUMNS_IN_ORDER = ['coherent_and_context_consistent', ...Object.keys(ERROR_COLUMNS), 'other', 'most_evident_error', 'empathy', 'annotator_group'];

/**
 * The table's spellings (see `cells.ts`): the most common cell read as Yes, as No, and, on incoherent rows that
 * recorded errors, the most common cell of an error not chosen. Cells that do not parse are skipped here (the
 * row is reported later).
 */
function detectStyle(records: readonly ParsedRow[], header: Header): TableStyle {
  const yes = new SpellingCount();
  const no = new SpellingCount();
  const unmarked = new SpellingCount();
  const read = (v: string | undefined) => {
    try {
      return parseYesNo(v ?? '');
    } catch {
      return null;
    }
  };
  const errorIdx = [...Object.keys(ERROR_COLUMNS).map((c) => header.index[c]), header.optional.other].filter((i): i is number => i !== undefined);
  for (const { cells } of records) {
    const coherentCell = cells[header.index.coherent_and_context_consistent];
    const coherent = read(coherentCell);
    if (coherent === true) yes.add(coherentCell);
    else if (coherent === false) no.add(coherentCell);
    const errs = errorIdx.map((i) => ({ cell: cells[i] ?? '', v: read(cells[i]) }));
    for (const e of errs) if (e.v === true) yes.add(e.cell);
    if (coherent === false && errs.some((e) => e.v !== undefined && e.v !== null)) {
      for (const e of errs) if (e.v !== true && e.v !== null) unmarked.add(e.cell);
    }
  }
  const noSpelling = no.mostCommon('No');
  return { yes: yes.mostCommon('Yes'), no: noSpelling, unmarkedError: unmarked.mostCommon(noSpelling) };
}

interface Turns {
  turns: Turn[];
  key: string;
}

const SPEAKERS: Record<string, Speaker> = { therapist: 'therapist', counsellor: 'therapist', counselor: 'therapist', client: 'client', patient: 'client' };

/** Reads `dialogue_context`: a JSON list of one-key objects `{"therapist": text}` / `{"client": text}`. */
function parseContext(v: string): Turns {
  let value: unknown;
  try {
    value = JSON.parse(v);
  } catch (err) {
    const start = v.trim().slice(0, 40);
    throw new Error(`not valid JSON (${(err as Error).message}); expected a list like [{"therapist": "…"}, {"client": "…"}], got ${JSON.stringify(start)}${v.trim().length > 40 ? '…' : ''}`);
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    // lenient: {"turns": [...]} (one list inside an object), or {"0": {...}, "1": {...}} (turns keyed by position)
    const vals = Object.values(value as Record<string, unknown>);
    const lists = vals.filter(Array.isArray);
    if (lists.length === 1 && vals.length === 1) value = lists[0];
    else if (vals.length > 0 && vals.every((v) => v !== null && typeof v === 'object' && !Array.isArray(v))) value = vals;
  }
  if (!Array.isArray(value)) throw new Error(`expected a JSON list of turns, got ${value === null ? 'null' : typeof value}`);
  const turns = value.map((t, i): Turn => {
    if (t === null || typeof t !== 'object' || Array.isArray(t)) throw new Error(`turn ${i + 1} is not an object like {"client": "…"}`);
    const entries = Object.entries(t as Record<string, unknown>);
    // {"therapist": text} (the release) — or {"speaker"/"role"/"interlocutor": …, "text"/"utterance": …}
    if (entries.length === 1) {
      const [k, text] = entries[0];
      const speaker = SPEAKERS[k.trim().toLowerCase()];
      if (!speaker) throw new Error(`turn ${i + 1}: speaker must be "therapist" or "client", got ${JSON.stringify(k)}`);
      if (typeof text !== 'string') throw new Error(`turn ${i + 1}: the text of ${JSON.stringify(k)} must be a string`);
      return { speaker, text };
    }
    const rec = t as Record<string, unknown>;
    const who = rec.speaker ?? rec.role ?? rec.interlocutor;
    const text = rec.text ?? rec.utterance ?? rec.utterance_text;
    const speaker = typeof who === 'string' ? SPEAKERS[who.trim().toLowerCase()] : undefined;
    if (!speaker || typeof text !== 'string') throw new Error(`turn ${i + 1} must have exactly one key, "therapist" or "client", got keys ${JSON.stringify(entries.map(([k]) => k))}`);
    return { speaker, text };
  });
  return { turns, key: JSON.stringify(turns.map((t) => [t.speaker, t.text])) };
}

function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

interface RowData {
  at: ParsedRow;
  dialogueId: string;
  stage: string;
  context: Turns;
  source: string;
  reflection: string;
  annotator: string;
  annotation?: Annotation;
  extra: Record<string, string>;
}

/**
 * Reads an annotation table into dialogue items.
 *
 * - **Items** group rows by context: `annomi_dialogue_id` + `stage` + the parsed `dialogue_context` (JSON
 *   spacing does not matter). Item ids are `annomi-<dialogue id>-<stage slug>`, with `-2`, `-3`… when one
 *   dialogue and stage have several contexts, in order of first appearance.
 * - **Candidates** group an item's rows by (`reflection` text, `reflection_source`), ignoring whitespace around
 *   the text and the case of the source; the first row's spellings are kept.
 *   Human sources (`humanSources`) get origin kind `human`, the others `model`, with `source` as written; a
 *   source listing several origins joined by ` | ` (as the exporter writes exact duplicates) gives
 *   `duplicateOrigins`. With `reference`, the item's human response becomes its `reference` and has id `ref`.
 * - **Annotations**: one per row with an annotator. `annotator` is kept verbatim; `group` is `expert` when the
 *   name starts with `expertPrefix` (case-insensitive) or an `annotator_group` column says so, else
 *   `layperson`. Coherence and error columns read Yes/No leniently (any case, whitespace, y/n, true/false,
 *   1/0; empty or N/A = no answer). Errors are read only when the response is marked incoherent.
 *   `most_evident_error`, `other`, `other_text` and `empathy` columns are read when present.
 * - **Extra columns** are kept, never dropped, as `extraColumns` on the item (value constant within every item),
 *   the candidate (constant within every candidate) or the annotation, and the header order is kept in
 *   `provenance.tableColumns`, so {@link exportAnnotationTable} writes them back.
 * - A row with an empty `annotator` and no labels is a response nobody has labelled yet (the exporter writes one
 *   for unlabelled candidates); with empty `reflection` and `reflection_source` too, an item without candidates.
 *
 * Nothing is skipped silently: every bad row is reported (line, spreadsheet row, column, what is wrong) in one
 * {@link AnnotationTableError}; an exact repeat of a (response, annotator) row is kept once, with a warning. A
 * response that *every* one of its annotators labelled k > 1 times was shown k times (e.g. two decoding runs gave
 * the same text) and becomes k candidates, with a warning; other repeats that disagree are errors.
 *
 * @param csvText - the table (UTF-8 text; a BOM, CRLF line ends, tab or semicolon delimiters are accepted)
 * @throws AnnotationTableError listing every problem found
 */
export function importAnnotationTable(csvText: string, options: AnnotationImportOptions = {}): AnnotationImportResult {
  const file = options.file ?? 'annotations.csv';
  const expertPrefix = (options.expertPrefix ?? DEFAULT_EXPERT_PREFIX).toLowerCase();
  const humanSources = new Set((options.humanSources ?? DEFAULT_HUMAN_SOURCES).map((s) => s.trim().toLowerCase()));
  const records = readRecords(csvText, file);
  if (records.length === 0) throw new AnnotationTableError(file, [{ line: 1, row: 1, message: 'the file is empty; expected a header row with the annotation-table columns' }]);
  const header = readHeader(records[0].cells, file);
  const problems: TableProblem[] = [];
  const warnings: AnnotationImportWarning[] = [];
  const rows: RowData[] = [];
  const style = detectStyle(records.slice(1), header);
  const storedStyle = storedTableStyle(style);

  for (const at of records.slice(1)) {
    const { cells } = at;
    const problem = (message: string, column?: string) => problems.push({ line: at.line, row: at.row, ...(column ? { column } : {}), message });
    if (cells.length < header.names.length) {
      problem(`has ${cells.length} field(s), the header has ${header.names.length} (a quote left open or a missing delimiter?)`);
      continue;
    }
    if (cells.length > header.names.length && cells.slice(header.names.length).some((c) => c.trim() !== '')) {
      problem(`has ${cells.length} fields, the header has ${header.names.length}`);
      continue;
    }
    const get = (c: string) => cells[header.index[c]] ?? '';
    const colName = (col: string) => header.names[col in header.index ? header.index[col] : header.optional[col as OptionalColumn]!];
    const raw = (col: string) => cells[col in header.index ? header.index[col] : header.optional[col as OptionalColumn]!] ?? '';
    const has = (col: OptionalColumn) => header.optional[col] !== undefined;
    const cell = <T>(column: string, read: (v: string) => T): T | undefined => {
      try {
        return read(raw(column));
      } catch (err) {
        problem((err as Error).message, colName(column));
        return undefined;
      }
    };
    const before = problems.length;
    const dialogueId = get('annomi_dialogue_id').trim();
    const stage = get('stage').trim();
    const source = get('reflection_source').trim();
    const reflection = get('reflection');
    const annotator = get('annotator').trim();
    const context = cell('dialogue_context', parseContext);
    const coherent = cell('coherent_and_context_consistent', parseYesNo);
    const errorFlags = Object.entries(ERROR_COLUMNS).map(([col, cat]) => ({ col, cat, v: cell(col, parseYesNo) }));
    if (has('other')) errorFlags.push({ col: 'other', cat: 'other', v: cell('other', parseYesNo) });
    const mee = has('most_evident_error') ? cell('most_evident_error', parseErrorCategory) : undefined;
    const empathy = has('empathy') ? cell('empathy', parseLikert) : undefined;
    const otherText = has('other_text') ? raw('other_text') : undefined;
    const groupCell = has('annotator_group') ? raw('annotator_group').trim() : '';

    const anyError = errorFlags.some((f) => f.v === true);
    const anyLabel = coherent !== undefined || errorFlags.some((f) => f.v !== undefined) || mee !== undefined || empathy !== undefined || (otherText !== undefined && !isEmptyCell(otherText));
    if (!dialogueId) problem('annomi_dialogue_id is empty', header.names[header.index.annomi_dialogue_id]);
    if (!annotator && anyLabel) problem('has labels but no annotator', header.names[header.index.annotator]);
    if (!reflection.trim() && (annotator || source)) problem('reflection is empty', header.names[header.index.reflection]);
    if (reflection.trim() && !source) problem('reflection_source is empty', header.names[header.index.reflection_source]);
    if (coherent === true && anyError) {
      const marked = errorFlags.filter((f) => f.v === true).map((f) => colName(f.col));
      problem(`the response is marked coherent but also has error(s) marked Yes: ${marked.join(', ')} (error columns are for incoherent responses)`, header.names[header.index.coherent_and_context_consistent]);
    }
    if (coherent === undefined && anyError) problem('error(s) are marked but coherent_and_context_consistent is empty', header.names[header.index.coherent_and_context_consistent]);
    let annotation: Annotation | undefined;
    if (annotator && problems.length === before) {
      annotation = { annotator };
      const expert = groupCell ? /^expert/i.test(groupCell) : annotator.toLowerCase().startsWith(expertPrefix);
      annotation.group = groupCell || (expert ? 'expert' : 'layperson');
      if (coherent !== undefined) annotation.coherent = coherent;
      if (coherent === false) {
        const answered = errorFlags.filter((f) => f.v !== undefined);
        if (answered.length) annotation.errors = errorFlags.filter((f) => f.v === true).map((f) => f.cat) as ErrorCategory[];
      }
      if (mee !== undefined) {
        if (annotation.errors?.length && !annotation.errors.includes(mee)) {
          problem(`most evident error ${JSON.stringify(raw('most_evident_error'))} is not one of the errors marked Yes (${annotation.errors.join(', ')})`, colName('most_evident_error'));
        }
        annotation.mostEvidentError = mee;
      }
      if (otherText !== undefined && !isEmptyCell(otherText)) annotation.otherText = otherText;
      if (empathy !== undefined) annotation.empathy = empathy;
      // Cells this table wrote differently from its style (a lower-case "yes", an empty error cell in a table
      // that writes No): kept, so the export writes them back as they were.
      const cellsKept: Record<string, string> = {};
      for (const col of [...LABEL_COLUMNS_IN_ORDER].filter((c) => c in header.index || header.optional[c as OptionalColumn] !== undefined)) {
        const v = raw(col);
        if (v !== labelCell(col, annotation, style)) cellsKept[col] = v;
      }
      if (Object.keys(cellsKept).length) annotation.tableCells = cellsKept;
    }
    if (problems.length !== before || !context) continue;
    const extra: Record<string, string> = {};
    for (const e of header.extra) extra[e.name] = cells[e.index] ?? '';
    rows.push({ at, dialogueId, stage, context, source, reflection, annotator, annotation, extra });
  }
  if (problems.length) throw new AnnotationTableError(file, problems);

  // group rows into items and candidates
  interface CandidateAcc {
    key: string;
    source: string;
    text: string;
    rows: RowData[];
  }
  interface ItemAcc {
    key: string;
    dialogueId: string;
    stage: string;
    context: Turn[];
    rows: RowData[];
    candidates: Map<string, CandidateAcc>;
  }
  const items = new Map<string, ItemAcc>();
  for (const r of rows) {
    const key = JSON.stringify([r.dialogueId, r.stage, r.context.key]);
    let item = items.get(key);
    if (!item) items.set(key, (item = { key, dialogueId: r.dialogueId, stage: r.stage, context: r.context.turns, rows: [], candidates: new Map() }));
    item.rows.push(r);
    if (!r.reflection.trim() && !r.source && !r.annotator) continue; // a context without responses
    // one response: the same text (ignoring surrounding whitespace) from the same source (ignoring case)
    const ckey = JSON.stringify([r.source.toLowerCase(), r.reflection.trim()]);
    let cand = item.candidates.get(ckey);
    if (!cand) item.candidates.set(ckey, (cand = { key: ckey, source: r.source, text: r.reflection, rows: [] }));
    cand.rows.push(r);
  }

  const isOrphan = (r: RowData) => !r.reflection.trim() && !r.source && !r.annotator;
  for (const item of items.values()) {
    if (item.candidates.size === 0) continue;
    for (const r of item.rows.filter(isOrphan)) {
      problems.push({ line: r.at.line, row: r.at.row, message: 'has no reflection, reflection_source or annotator, but this context has responses on other rows; fill the row in or remove it' });
    }
  }

  // where each extra column lives: the most general level at which it is constant everywhere
  const itemGroups = [...items.values()].filter((i) => i.candidates.size > 0).map((i) => i.rows);
  const candGroups = [...items.values()].flatMap((i) => [...i.candidates.values()].map((c) => c.rows));
  const levels = header.extra.map((e) => {
    const constantIn = (groups: RowData[][]) => groups.every((g) => g.every((r) => r.extra[e.name] === g[0].extra[e.name]));
    if (constantIn(itemGroups)) return { name: e.name, level: 'item' as const };
    if (constantIn(candGroups)) return { name: e.name, level: 'candidate' as const };
    return { name: e.name, level: 'annotation' as const };
  });
  const pick = (row: RowData | undefined, keep: (level: 'item' | 'candidate' | 'annotation') => boolean) => {
    const out: Record<string, string> = {};
    for (const l of levels) if (row && keep(l.level) && row.extra[l.name] !== '') out[l.name] = row.extra[l.name];
    return out;
  };

  const annotators = new Map<string, 'expert' | 'layperson'>();
  const idCount = new Map<string, number>();
  const result: DialogueItem[] = [];
  for (const acc of items.values()) {
    const base = `annomi-${slug(acc.dialogueId) || 'x'}${acc.stage ? `-${slug(acc.stage)}` : ''}`;
    const nth = (idCount.get(base) ?? 0) + 1;
    idCount.set(base, nth);
    const id = nth === 1 ? base : `${base}-${nth}`;
    const perSource = new Map<string, number>();
    // Candidate ids are unique within the item: two human responses (`ref`, `ref-2`, …), a source whose slug is
    // itself "ref", or any other clash get the next free number.
    const usedIds = new Set<string>();
    const freeId = (base: string, first: string): string => {
      let id = first;
      for (let n = 2; usedIds.has(id); n++) id = `${base}-${n}`;
      usedIds.add(id);
      return id;
    };
    const candidates: Candidate[] = [];
    const humans: CandidateAcc[] = [];
    for (const c of acc.candidates.values()) {
      const sources = c.source.split(' | ').map((s) => s.trim()).filter(Boolean);
      const origins: CandidateOrigin[] = (sources.length ? sources : [c.source]).map((s) => ({ kind: humanSources.has(s.toLowerCase()) ? 'human' : 'model', source: s }));
      const human = origins[0].kind === 'human';
      if (human && !humans.some((h) => h.text.trim() === c.text.trim())) humans.push(c);
      const stem = slug(sources[0] ?? '') || 'response';
      // A response that every annotator labelled k > 1 times was shown k times (e.g. two decoding runs gave the
      // same text): k candidates, the j-th row of each annotator in the j-th. Otherwise one candidate.
      const labelled = c.rows.filter((r) => r.annotation);
      const perAnnotator = new Map<string, RowData[]>();
      for (const r of labelled) perAnnotator.set(r.annotator, [...(perAnnotator.get(r.annotator) ?? []), r]);
      const counts = new Set([...perAnnotator.values()].map((rs) => rs.length));
      const k = counts.size === 1 ? [...counts][0] : 1;
      if (k > 1) {
        warnings.push({ line: labelled[0].at.line, row: labelled[0].at.row, message: `this response (${c.source}) has ${k} rows from each of its ${perAnnotator.size} annotators: imported as ${k} separate candidates` });
      }
      const instances: RowData[][] = Array.from({ length: k }, (_, j) => (k === 1 ? c.rows : [...perAnnotator.values()].map((rs) => rs[j]).sort((a, b) => a.at.row - b.at.row)));
      if (k > 1) instances[0] = [...c.rows.filter((r) => !r.annotation), ...instances[0]];
      instances.forEach((rowsOf, j) => {
        const annotations: Annotation[] = [];
        const byAnnotator = new Map<string, RowData>();
        for (const r of rowsOf) {
          if (!r.annotation) {
            const lost = levels.filter((l) => l.level === 'annotation' && r.extra[l.name] !== '').map((l) => l.name);
            if (lost.length) {
              problems.push({ line: r.at.line, row: r.at.row, column: lost[0], message: `has no annotator, so its value(s) in ${lost.join(', ')} (which differ from row to row) have nowhere to be kept; fill in the annotator or empty them` });
            } else if (labelled.length) {
              warnings.push({ line: r.at.line, row: r.at.row, message: 'has no annotator and no labels; the response is labelled on other rows, so this row adds nothing' });
            }
            continue;
          }
          const prev = byAnnotator.get(r.annotator);
          if (prev) {
            const labels = (a: Annotation | undefined) => JSON.stringify({ ...a, tableCells: undefined }); // spelling aside
            const same = labels(prev.annotation) === labels(r.annotation) && JSON.stringify(prev.extra) === JSON.stringify(r.extra);
            if (!same) {
              problems.push({ line: r.at.line, row: r.at.row, column: header.names[header.index.annotator], message: `${r.annotator} labelled this response already on line ${prev.at.line}, differently; keep one of the two rows` });
            } else warnings.push({ line: r.at.line, row: r.at.row, message: `repeats line ${prev.at.line} exactly (same response, annotator and labels); kept once` });
            continue;
          }
          byAnnotator.set(r.annotator, r);
          const ann: Annotation = { ...r.annotation };
          const extra = pick(r, (l) => l === 'annotation');
          if (Object.keys(extra).length) ann.extraColumns = extra;
          annotations.push(ann);
          annotators.set(ann.annotator, /^expert/i.test(ann.group ?? '') ? 'expert' : 'layperson');
        }
        const n = (perSource.get(stem) ?? 0) + 1;
        perSource.set(stem, n);
        const cand: Candidate = {
          id: options.reference && human ? freeId('ref', 'ref') : freeId(stem, `${stem}-${n}`),
          text: c.text,
          origin: origins[0],
          ...(origins.length > 1 ? { duplicateOrigins: origins.slice(1) } : {}),
          annotations,
          scores: {},
        };
        const extra = pick(c.rows[0], (l) => l === 'candidate');
        if (Object.keys(extra).length) cand.extraColumns = extra;
        candidates.push(cand);
      });
    }
    const item: DialogueItem = {
      id,
      context: acc.context,
      provenance: { dataset: 'AnnoMI', transcriptId: acc.dialogueId, stage: acc.stage, sourceFile: file, tableColumns: header.names, ...(storedStyle ? { tableStyle: storedStyle } : {}) },
      candidates,
    };
    if (options.reference) {
      if (humans.length > 1) {
        const lines = humans.map((h) => h.rows[0].at.line);
        problems.push({ line: lines[1], row: humans[1].rows[0].at.row, column: header.names[header.index.reflection], message: `item ${id} has ${humans.length} different human responses (lines ${lines.join(', ')}); which one is the reference? Import without the reference option, or fix the table` });
      } else if (humans.length === 1) item.reference = { text: humans[0].text };
    }
    const extra = pick(acc.rows[0], (l) => l === 'item' || acc.candidates.size === 0);
    if (Object.keys(extra).length) item.extraColumns = extra;
    result.push(item);
  }
  if (problems.length) throw new AnnotationTableError(file, problems);
  return {
    items: result,
    warnings,
    rows: records.length - 1,
    extraColumns: levels,
    annotators: [...annotators.entries()].map(([id, group]) => ({ id, group })).sort((a, b) => a.group.localeCompare(b.group) || a.id.localeCompare(b.id, undefined, { numeric: true })),
  };
}
