/**
 * The generic dataset importer: CSV or JSONL files laid out as researchers already have them, read through a
 * column mapping ({@link DatasetMapping}, `mapping.ts`) into dialogue items. See docs/importing.md.
 *
 * - The **context** is a JSON list of turns in one column of each response row, or turn rows (speaker, text,
 *   optional order) grouped by a dialogue id, with the response rows among them.
 * - Each **response** row gives a candidate (the same text from the same source in one context is one
 *   candidate); its **source** says where it comes from (`human` origins for the human sources).
 * - The **reference** is a column, or the context's human-written response.
 * - **Labels**: one row per (response, annotator) with label columns (long), or one coherence column per
 *   annotator (wide).
 *
 * Strict about what is wrong: the import stops on any bad row and reports every problem with the file, its line
 * (and spreadsheet row when a quoted line break makes them differ) and the column. Unmapped columns are kept
 * (`extraColumns` on the candidate or annotation, on the turn for turn rows), never dropped.
 */
import type { Annotation, Candidate, CandidateOrigin, DialogueItem, ErrorCategory, Speaker, Turn } from '../dialogue/types';
import { readCsvRecords } from './annotationImport';
import { AnnotationTableError, DEFAULT_EXPERT_PREFIX, DEFAULT_HUMAN_SOURCES, parseErrorCategory, parseLikert, parseYesNo, type TableProblem } from './annotationColumns';
import { checkColumns, MappingError, validateMapping, type DatasetMapping } from './mapping';

/** Every problem of a dataset, each with its line, row and column (an {@link AnnotationTableError}). */
export class DatasetImportError extends AnnotationTableError {
  /** @param problems - listed by line (the order they were found in is kept for one line) */
  constructor(file: string, problems: TableProblem[]) {
    super(file, [...problems].sort((a, b) => a.line - b.line));
    this.name = 'DatasetImportError';
  }
}

/** Options of {@link importDataset}. */
export interface DatasetImportOptions {
  /** Base name of the file, for provenance and messages (default `dataset`). */
  file?: string;
  /** Where the mapping came from, for messages (default `mapping`). */
  mappingSource?: string;
}

/** What {@link importDataset} made of a file. */
export interface DatasetImportResult {
  items: DialogueItem[];
  /** Things worth saying that did not stop the import (an exact repeat kept once, …). */
  warnings: TableProblem[];
  /** Data records read (CSV rows without the header, JSONL lines with a record). */
  records: number;
  /** Turn rows and response rows (rows layout), or response rows (json layout). */
  turnRows: number;
  responseRows: number;
  annotators: { id: string; group: 'expert' | 'layperson' }[];
  /** Columns no role reads, kept as `extraColumns`, and where. */
  keptColumns: { name: string; level: 'turn' | 'candidate' | 'annotation' }[];
  mapping: DatasetMapping;
}

/** One record of the file, whatever its format. */
export interface DatasetRecord {
  line: number;
  row: number;
  /** The value of a column (CSV) or field (JSONL, dotted paths into nested objects); undefined when absent. */
  value(column: string): unknown;
  /** Its columns, in order. */
  columns: string[];
}

/** The records of a dataset file and its columns (the CSV header, or every top-level field of the JSONL records). */
export interface Dataset {
  format: 'csv' | 'jsonl';
  columns: string[];
  records: DatasetRecord[];
}

/** `csv` for .csv/.tsv/.txt, `jsonl` for .jsonl/.ndjson/.json. */
export function formatOf(file: string): 'csv' | 'jsonl' | undefined {
  if (/\.(csv|tsv|txt)$/i.test(file)) return 'csv';
  if (/\.(jsonl|ndjson|json)$/i.test(file)) return 'jsonl';
  return undefined;
}

/**
 * Reads a dataset file's records.
 *
 * @throws DatasetImportError on unreadable CSV, JSONL lines that are not JSON objects, or CSV rows with too many
 *   or too few fields (each problem with its line)
 */
export function readDataset(text: string, format: 'csv' | 'jsonl', file = 'dataset'): Dataset {
  const problems: TableProblem[] = [];
  if (format === 'jsonl') {
    const records: DatasetRecord[] = [];
    const columns: string[] = [];
    const seen = new Set<string>();
    text.replace(/^\ufeff/, '').split(/\r\n|\n|\r/).forEach((lineText, i) => {
      if (!lineText.trim()) return;
      let value: unknown;
      try {
        value = JSON.parse(lineText);
      } catch (err) {
        problems.push({ line: i + 1, row: records.length + 1, message: `not valid JSON: ${(err as Error).message}` });
        return;
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        problems.push({ line: i + 1, row: records.length + 1, message: 'expected a JSON object (one record per line)' });
        return;
      }
      const obj = value as Record<string, unknown>;
      for (const k of Object.keys(obj)) if (!seen.has(k)) (seen.add(k), columns.push(k));
      records.push({ line: i + 1, row: records.length + 1, columns: Object.keys(obj), value: (path) => (path in obj ? obj[path] : path.split('.').reduce<unknown>((v, p) => (v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[p] : undefined), obj)) });
    });
    if (problems.length) throw new DatasetImportError(file, problems);
    return { format, columns, records };
  }
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

/** A value as the text of a cell: strings as they are, numbers and booleans written out, objects as JSON. */
function cellText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const BASE_SPEAKERS: Record<string, Speaker> = { therapist: 'therapist', counsellor: 'therapist', counselor: 'therapist', client: 'client', patient: 'client' };

function speakerTable(m: DatasetMapping): Map<string, Speaker> {
  const t = new Map(Object.entries(BASE_SPEAKERS));
  for (const s of m.speakers?.therapist ?? []) t.set(s.trim().toLowerCase(), 'therapist');
  for (const s of m.speakers?.client ?? []) t.set(s.trim().toLowerCase(), 'client');
  return t;
}

function speakerError(v: unknown, speakers: Map<string, Speaker>): string {
  return `speaker must be one of ${[...speakers.keys()].join(', ')} (add others under "speakers" in the mapping), got ${JSON.stringify(v)}`;
}

/**
 * Turns from a JSON context value (a string holding JSON, or the parsed value in JSONL): a list of one-key objects
 * `{"client": "…"}`, or of `{speaker | role | interlocutor, text | utterance | content}` objects, or an object
 * holding such a list.
 *
 * @throws Error (message only) naming the turn that is wrong
 */
export function contextTurns(value: unknown, speakers: Map<string, Speaker>): Turn[] {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch (err) {
      const start = (value as string).trim().slice(0, 40);
      throw new Error(`not valid JSON (${(err as Error).message}); expected a list like [{"therapist": "…"}, {"client": "…"}], got ${JSON.stringify(start)}${(value as string).trim().length > 40 ? '…' : ''}`);
    }
  }
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const lists = Object.values(v as Record<string, unknown>).filter(Array.isArray);
    if (lists.length === 1) v = lists[0];
  }
  if (!Array.isArray(v)) throw new Error(`expected a JSON list of turns, got ${v === null ? 'null' : typeof v}`);
  return v.map((t, i): Turn => {
    if (t === null || typeof t !== 'object' || Array.isArray(t)) throw new Error(`turn ${i + 1} is not an object like {"client": "…"}`);
    const rec = t as Record<string, unknown>;
    const entries = Object.entries(rec);
    if (entries.length === 1) {
      const [k, text] = entries[0];
      const speaker = speakers.get(k.trim().toLowerCase());
      if (!speaker) throw new Error(`turn ${i + 1}: ${speakerError(k, speakers)}`);
      if (typeof text !== 'string') throw new Error(`turn ${i + 1}: the text of ${JSON.stringify(k)} must be a string`);
      return { speaker, text };
    }
    const who = rec.speaker ?? rec.role ?? rec.interlocutor;
    const text = rec.text ?? rec.utterance ?? rec.content;
    if (typeof who !== 'string' || typeof text !== 'string') throw new Error(`turn ${i + 1} must be {"<speaker>": "<text>"} or have "speaker" (or "role") and "text" (or "utterance", "content"), got keys ${JSON.stringify(entries.map(([k]) => k))}`);
    const speaker = speakers.get(who.trim().toLowerCase());
    if (!speaker) throw new Error(`turn ${i + 1}: ${speakerError(who, speakers)}`);
    return { speaker, text };
  });
}

/** Reads a coherence cell: the mapping's own values first, then Yes/No leniently; empty = no answer. */
function coherenceReader(m: DatasetMapping): (v: string) => boolean | undefined {
  const yes = new Set((m.coherentValues?.yes ?? []).map((s) => s.trim().toLowerCase()));
  const no = new Set((m.coherentValues?.no ?? []).map((s) => s.trim().toLowerCase()));
  return (v) => {
    const s = v.trim().toLowerCase();
    if (yes.has(s)) return true;
    if (no.has(s)) return false;
    try {
      return parseYesNo(v);
    } catch {
      const extra = [...yes, ...no].length ? `, or ${[...yes].map((x) => JSON.stringify(x)).join('/')} / ${[...no].map((x) => JSON.stringify(x)).join('/')}` : '';
      throw new Error(`expected Yes or No (also y/n, true/false, 1/0${extra}; add other values under "coherentValues"), got ${JSON.stringify(v)}`);
    }
  };
}

interface ResponseRow {
  rec: DatasetRecord;
  itemKey: string;
  text: string;
  source: string;
  annotations: Annotation[];
  referenceText: string;
  extra: Record<string, string>;
}

interface ItemAcc {
  key: string;
  baseId: string;
  transcriptId?: string;
  context: Turn[];
  rows: ResponseRow[];
}

/** A human-readable comparison of order values: numerically when both are numbers. */
function compareOrder(a: string, b: string): number {
  const x = Number(a);
  const y = Number(b);
  if (a.trim() !== '' && b.trim() !== '' && Number.isFinite(x) && Number.isFinite(y)) return x - y;
  return a.localeCompare(b, 'en', { numeric: true });
}

/**
 * Imports a dataset through a mapping.
 *
 * @param text - the file's text (UTF-8)
 * @param mappingValue - the mapping (validated here: {@link validateMapping}, then its columns against the file)
 * @param options.file - the file's base name; its extension gives the format when the mapping does not
 * @throws MappingError for a bad mapping or columns the file lacks; DatasetImportError listing every bad row
 */
export function importDataset(text: string, mappingValue: unknown, options: DatasetImportOptions = {}): DatasetImportResult {
  const file = options.file ?? 'dataset';
  const source = options.mappingSource ?? 'mapping';
  const m = validateMapping(mappingValue, source);
  if (m.reference?.column && m.reference.fromHumanResponse) throw new MappingError(source, [{ field: 'reference', message: 'give either "column" (a reference column) or "fromHumanResponse", not both' }]);
  const format = m.format ?? formatOf(file);
  if (!format) throw new MappingError(source, [{ field: 'format', message: `cannot tell the format from the file name ${JSON.stringify(file)}: give "format": "csv" or "jsonl"` }]);
  const data = readDataset(text, format, file);
  checkColumns(m, data.columns, source, format === 'jsonl');

  const problems: TableProblem[] = [];
  const warnings: TableProblem[] = [];
  const speakers = speakerTable(m);
  const readCoherent = coherenceReader(m);
  const expertPrefix = (m.expertPrefix ?? DEFAULT_EXPERT_PREFIX).toLowerCase();
  const humanSources = new Set((m.humanSources ?? DEFAULT_HUMAN_SOURCES).map((s) => s.trim().toLowerCase()));
  const get = (rec: DatasetRecord, c: string | undefined) => (c === undefined ? '' : cellText(rec.value(c)));
  const problem = (rec: DatasetRecord, message: string, column?: string) => problems.push({ line: rec.line, row: rec.row, ...(column ? { column } : {}), message });
  const groupOf = (annotator: string, cell?: string): 'expert' | 'layperson' => (cell?.trim() ? (/^expert/i.test(cell.trim()) ? 'expert' : 'layperson') : annotator.toLowerCase().startsWith(expertPrefix) ? 'expert' : 'layperson');

  // columns no role reads: kept
  const mapped = new Set<string>();
  const note = (c: string | undefined) => c !== undefined && mapped.add(c);
  (m.itemId ?? []).forEach(note);
  if (m.context.layout === 'json') note(m.context.column);
  else [m.context.dialogue, m.context.speaker, m.context.text, m.context.order].forEach(note);
  [m.response.text, m.response.source, m.reference?.column].forEach(note);
  const labels = m.labels;
  const wideColumns = labels?.layout === 'wide' ? (Array.isArray(labels.coherent) ? Object.fromEntries(labels.coherent.map((c) => [c, c.trim()])) : labels.coherent) : {};
  if (labels?.layout === 'long') [labels.annotator, labels.coherent, labels.group, labels.mostEvidentError, labels.empathy, ...Object.values(labels.errors ?? {})].forEach(note);
  else Object.keys(wideColumns).forEach(note);
  // (a JSONL object one of whose fields is mapped, `errors` for `errors.malformed`, counts as read)
  const extraColumns = data.columns.filter((c) => !mapped.has(c) && ![...mapped].some((p) => p.startsWith(`${c}.`)));
  const extraOf = (rec: DatasetRecord) => {
    const out: Record<string, string> = {};
    for (const c of extraColumns) {
      const v = get(rec, c);
      if (v !== '') out[c] = v;
    }
    return out;
  };

  /** The annotations of one response row. */
  const annotationsOf = (rec: DatasetRecord): Annotation[] => {
    if (!labels) return [];
    const cell = <T>(column: string, read: (v: string) => T): T | undefined => {
      try {
        return read(get(rec, column));
      } catch (err) {
        problem(rec, (err as Error).message, column);
        return undefined;
      }
    };
    if (labels.layout === 'wide') {
      const out: Annotation[] = [];
      for (const [column, annotator] of Object.entries(wideColumns)) {
        const coherent = cell(column, readCoherent);
        if (coherent === undefined) continue;
        const group = labels.groups?.[annotator] ?? groupOf(annotator);
        out.push({ annotator, group, coherent });
      }
      return out;
    }
    const annotator = get(rec, labels.annotator).trim();
    const coherent = cell(labels.coherent, readCoherent);
    const errorFlags = Object.entries(labels.errors ?? {}).map(([cat, col]) => ({ cat: cat as ErrorCategory, col, v: cell(col, parseYesNo) }));
    const mee = labels.mostEvidentError ? cell(labels.mostEvidentError, parseErrorCategory) : undefined;
    const empathy = labels.empathy ? cell(labels.empathy, parseLikert) : undefined;
    const anyLabel = coherent !== undefined || errorFlags.some((f) => f.v !== undefined) || mee !== undefined || empathy !== undefined;
    if (!annotator) {
      if (anyLabel) problem(rec, 'has labels but no annotator', labels.annotator);
      return [];
    }
    const marked = errorFlags.filter((f) => f.v === true);
    if (coherent === true && marked.length) problem(rec, `marked coherent but also has error(s) marked Yes: ${marked.map((f) => f.col).join(', ')} (error columns are for incoherent responses)`, labels.coherent);
    if (coherent === undefined && marked.length) problem(rec, 'error(s) are marked but the coherence cell is empty', labels.coherent);
    const ann: Annotation = { annotator, group: groupOf(annotator, labels.group ? get(rec, labels.group) : undefined) };
    if (coherent !== undefined) ann.coherent = coherent;
    if (coherent === false && errorFlags.some((f) => f.v !== undefined)) ann.errors = marked.map((f) => f.cat);
    if (mee !== undefined) {
      if (ann.errors?.length && !ann.errors.includes(mee)) problem(rec, `most evident error ${JSON.stringify(get(rec, labels.mostEvidentError))} is not one of the errors marked Yes (${ann.errors.join(', ')})`, labels.mostEvidentError);
      ann.mostEvidentError = mee;
    }
    if (empathy !== undefined) ann.empathy = empathy;
    return [ann];
  };

  // ---- rows: turns and responses
  const items = new Map<string, ItemAcc>();
  const responses: ResponseRow[] = [];
  let turnRows = 0;
  const turnExtraColumns = new Set<string>();
  const responseOf = (rec: DatasetRecord, itemKey: string): ResponseRow | undefined => {
    const before = problems.length;
    const text = get(rec, m.response.text);
    const src = (m.response.source ? get(rec, m.response.source) : m.response.sourceName ?? '').trim();
    const annotations = annotationsOf(rec);
    if (problems.length !== before) return undefined;
    return { rec, itemKey, text, source: src, annotations, referenceText: m.reference?.column ? get(rec, m.reference.column) : '', extra: extraOf(rec) };
  };

  if (m.context.layout === 'json') {
    const ctx = m.context;
    const idCount = new Map<string, number>();
    for (const rec of data.records) {
      let turns: Turn[];
      try {
        turns = contextTurns(rec.value(ctx.column), speakers);
      } catch (err) {
        problem(rec, (err as Error).message, ctx.column);
        continue;
      }
      if (!get(rec, m.response.text).trim()) {
        problem(rec, 'the response is empty', m.response.text);
        continue;
      }
      const idParts = (m.itemId ?? []).map((c) => get(rec, c).trim());
      const key = JSON.stringify([idParts, turns.map((t) => [t.speaker, t.text])]);
      if (!items.has(key)) {
        const base = idParts.length ? slug(idParts.join('-')) || 'item' : slug(m.dataset ?? file.replace(/\.[^.]*$/, '')) || 'item';
        const n = (idCount.get(base) ?? 0) + 1;
        idCount.set(base, n);
        items.set(key, { key, baseId: idParts.length ? (n === 1 ? base : `${base}-${n}`) : `${base}-${n}`, ...(idParts.length ? { transcriptId: idParts[0] } : {}), context: turns, rows: [] });
      }
      const r = responseOf(rec, key);
      if (r) responses.push(r);
    }
  } else {
    const ctx = m.context;
    const dialogues = new Map<string, { rec: DatasetRecord; order: string; turn: Turn }[]>();
    const pending: { rec: DatasetRecord; dialogue: string; order: string }[] = [];
    for (const rec of data.records) {
      const dialogue = get(rec, ctx.dialogue).trim();
      const isResponse = get(rec, m.response.text).trim() !== '';
      const speakerCell = get(rec, ctx.speaker);
      const turnText = ctx.text === m.response.text ? '' : get(rec, ctx.text);
      const order = ctx.order ? get(rec, ctx.order).trim() : '';
      if (!dialogue) {
        problem(rec, 'the dialogue id is empty', ctx.dialogue);
        continue;
      }
      if (isResponse) {
        if (turnText.trim()) {
          problem(rec, `has both a turn text (${ctx.text}) and a response (${m.response.text}): put each on its own row`, m.response.text);
          continue;
        }
        pending.push({ rec, dialogue, order });
        continue;
      }
      if (!turnText.trim() && !speakerCell.trim()) {
        problem(rec, `is neither a turn (speaker and ${ctx.text}) nor a response (${m.response.text}); fill it in or remove it`);
        continue;
      }
      const speaker = speakers.get(speakerCell.trim().toLowerCase());
      if (!speaker) {
        problem(rec, speakerError(speakerCell, speakers), ctx.speaker);
        continue;
      }
      if (ctx.order && !order) {
        problem(rec, 'the turn has no order', ctx.order);
        continue;
      }
      turnRows++;
      const turn: Turn = { speaker, text: turnText };
      const extra = extraOf(rec);
      if (Object.keys(extra).length) {
        turn.extraColumns = extra;
        Object.keys(extra).forEach((c) => turnExtraColumns.add(c));
      }
      const list = dialogues.get(dialogue) ?? [];
      const clash = ctx.order ? list.find((t) => t.order === order) : undefined;
      if (clash) problem(rec, `dialogue ${JSON.stringify(dialogue)} already has a turn with order ${JSON.stringify(order)} (line ${clash.rec.line})`, ctx.order);
      list.push({ rec, order, turn });
      dialogues.set(dialogue, list);
    }
    for (const list of dialogues.values()) if (ctx.order) list.sort((a, b) => compareOrder(a.order, b.order));
    for (const p of pending) {
      const turns = dialogues.get(p.dialogue);
      if (!turns) {
        problem(p.rec, `dialogue ${JSON.stringify(p.dialogue)} has no turn rows`, ctx.dialogue);
        continue;
      }
      const context = p.order ? turns.filter((t) => compareOrder(t.order, p.order) < 0) : turns;
      const key = JSON.stringify([p.dialogue, p.order]);
      if (!items.has(key)) items.set(key, { key, baseId: `${slug(p.dialogue) || 'dialogue'}${p.order ? `-${slug(p.order)}` : ''}`, transcriptId: p.dialogue, context: context.map((t) => t.turn), rows: [] });
      const r = responseOf(p.rec, key);
      if (r) responses.push(r);
    }
  }
  if (problems.length) throw new DatasetImportError(file, problems);

  // ---- candidates
  for (const r of responses) items.get(r.itemKey)!.rows.push(r);
  const annotators = new Map<string, 'expert' | 'layperson'>();
  const candidateExtra = new Set<string>();
  const annotationExtra = new Set<string>();
  const usedItemIds = new Set<string>();
  const result: DialogueItem[] = [];
  let anyWithoutSource = false;
  for (const acc of items.values()) {
    if (acc.rows.length === 0) continue;
    const baseId = `${m.itemIdPrefix ?? ''}${acc.baseId}`;
    let id = baseId;
    for (let n = 2; usedItemIds.has(id); n++) id = `${baseId}-${n}`;
    usedItemIds.add(id);
    const groups = new Map<string, ResponseRow[]>();
    for (const r of acc.rows) {
      const key = JSON.stringify([r.source.toLowerCase(), r.text.trim()]);
      groups.set(key, [...(groups.get(key) ?? []), r]);
    }
    const usedIds = new Set<string>();
    const perSource = new Map<string, number>();
    const candidates: Candidate[] = [];
    const humans: { text: string; rec: DatasetRecord; cand: Candidate }[] = [];
    for (const rows of groups.values()) {
      const first = rows[0];
      const human = first.source !== '' && humanSources.has(first.source.toLowerCase());
      if (!first.source) anyWithoutSource = true;
      const origin: CandidateOrigin = { kind: human ? 'human' : 'model', ...(first.source ? { source: first.source } : {}) };
      const stem = slug(first.source) || 'response';
      const n = (perSource.get(stem) ?? 0) + 1;
      perSource.set(stem, n);
      let cid = human && m.reference?.fromHumanResponse ? 'ref' : `${stem}-${n}`;
      for (let k = 2; usedIds.has(cid); k++) cid = human && m.reference?.fromHumanResponse ? `ref-${k}` : `${stem}-${n}-${k}`;
      usedIds.add(cid);
      // labels, one annotation per annotator
      const byAnnotator = new Map<string, { ann: Annotation; rec: DatasetRecord }>();
      const annotations: Annotation[] = [];
      // extra columns: on the candidate when constant over its rows, else on each (long) annotation
      const varying = extraColumns.filter((c) => rows.some((r) => (r.extra[c] ?? '') !== (first.extra[c] ?? '')));
      const candExtra = Object.fromEntries(Object.entries(first.extra).filter(([c]) => !varying.includes(c)));
      for (const r of rows) {
        const rowExtra = Object.fromEntries(Object.entries(r.extra).filter(([c]) => varying.includes(c)));
        if (Object.keys(rowExtra).length && (labels?.layout !== 'long' || r.annotations.length === 0)) {
          problems.push({ line: r.rec.line, row: r.rec.row, column: Object.keys(rowExtra)[0], message: `this response appears on several rows whose ${Object.keys(rowExtra).join(', ')} differ, and ${labels?.layout === 'long' ? 'this row has no annotator to keep them on' : 'there is one candidate to keep them on'}; make them agree or remove a row` });
        }
        for (const a of r.annotations) {
          const prev = byAnnotator.get(a.annotator);
          if (prev) {
            if (JSON.stringify(prev.ann) === JSON.stringify({ ...a, ...(Object.keys(rowExtra).length ? { extraColumns: rowExtra } : {}) })) warnings.push({ line: r.rec.line, row: r.rec.row, message: `repeats line ${prev.rec.line} exactly (same response, annotator and labels); kept once` });
            else problems.push({ line: r.rec.line, row: r.rec.row, column: labels?.layout === 'long' ? labels.annotator : undefined, message: `${a.annotator} labelled this response already on line ${prev.rec.line}, differently; keep one of the two` });
            continue;
          }
          const ann: Annotation = { ...a, ...(Object.keys(rowExtra).length ? { extraColumns: rowExtra } : {}) };
          if (ann.extraColumns) Object.keys(rowExtra).forEach((c) => annotationExtra.add(c));
          byAnnotator.set(a.annotator, { ann, rec: r.rec });
          annotations.push(ann);
          annotators.set(a.annotator, a.group === 'expert' ? 'expert' : 'layperson');
        }
      }
      const cand: Candidate = { id: cid, text: first.text, origin, annotations, scores: {} };
      if (Object.keys(candExtra).length) {
        cand.extraColumns = candExtra;
        Object.keys(candExtra).forEach((c) => candidateExtra.add(c));
      }
      candidates.push(cand);
      if (human && !humans.some((h) => h.text.trim() === first.text.trim())) humans.push({ text: first.text, rec: first.rec, cand });
    }
    const item: DialogueItem = {
      id,
      context: acc.context,
      provenance: { dataset: m.dataset ?? file, sourceFile: file, ...(acc.transcriptId !== undefined ? { transcriptId: acc.transcriptId } : {}) },
      candidates,
    };
    if (m.reference?.column) {
      const texts = [...new Set(acc.rows.map((r) => r.referenceText).filter((t) => t.trim() !== ''))];
      if (texts.length > 1) {
        const second = acc.rows.find((r) => r.referenceText === texts[1])!;
        problems.push({ line: second.rec.line, row: second.rec.row, column: m.reference.column, message: `item ${id} has ${texts.length} different references (first on line ${acc.rows.find((r) => r.referenceText === texts[0])!.rec.line}); one context has one reference` });
      } else if (texts.length === 1) item.reference = { text: texts[0] };
    } else if (m.reference?.fromHumanResponse) {
      if (humans.length > 1) problems.push({ line: humans[1].rec.line, row: humans[1].rec.row, column: m.response.text, message: `item ${id} has ${humans.length} different human responses (lines ${humans.map((h) => h.rec.line).join(', ')}); which one is the reference?` });
      else if (humans.length === 1) item.reference = { text: humans[0].text };
    }
    result.push(item);
  }
  if (problems.length) throw new DatasetImportError(file, problems);
  if (anyWithoutSource) warnings.unshift({ line: 1, row: 1, message: 'some responses have no source (map "response.source" or set "response.sourceName"): they are marked as model outputs without a source' });
  const kept: DatasetImportResult['keptColumns'] = [
    ...[...turnExtraColumns].map((name) => ({ name, level: 'turn' as const })),
    ...[...candidateExtra].map((name) => ({ name, level: 'candidate' as const })),
    ...[...annotationExtra].filter((c) => !candidateExtra.has(c)).map((name) => ({ name, level: 'annotation' as const })),
  ];
  return {
    items: result,
    warnings,
    records: data.records.length,
    turnRows,
    responseRows: responses.length,
    annotators: [...annotators.entries()].map(([aid, group]) => ({ id: aid, group })).sort((a, b) => a.group.localeCompare(b.group) || a.id.localeCompare(b.id, undefined, { numeric: true })),
    keptColumns: kept,
    mapping: m,
  };
}

/**
 * The first `n` items as readable text, for `import generic --preview` and the wizard's preview: each item's id,
 * its context turns, the reference, and every candidate with its source and labels.
 */
export function previewItems(items: readonly DialogueItem[], n: number, width = 120): string {
  const cut = (s: string, w: number) => (s.length > w ? `${s.slice(0, w - 1)}…` : s);
  const one = (s: string) => s.replace(/\s+/g, ' ').trim();
  const out: string[] = [];
  for (const it of items.slice(0, n)) {
    const labelled = it.candidates.filter((c) => c.annotations.length).length;
    out.push(`${it.id}  (${it.context.length} turns, ${it.candidates.length} responses, ${labelled} labelled${it.reference ? ', reference' : ''})`);
    for (const t of it.context) out.push(cut(`  ${t.speaker === 'therapist' ? 'T' : 'C'}: ${one(t.text)}`, width));
    if (it.reference) out.push(cut(`  reference: ${one(it.reference.text)}`, width));
    for (const c of it.candidates) {
      const votes = c.annotations.filter((a) => typeof a.coherent === 'boolean');
      const labels = votes.length ? `  [coherent ${votes.filter((a) => a.coherent).length}/${votes.length}: ${votes.map((a) => `${a.annotator} ${a.coherent ? '✓' : '✗'}${a.errors?.length ? ` (${a.errors.join(', ')})` : ''}`).join(', ')}]` : '';
      out.push(cut(`  → ${c.id} (${c.origin.source ?? c.origin.kind}): ${one(c.text)}`, width));
      if (labels) out.push(cut(`    ${labels.trim()}`, width));
    }
    out.push('');
  }
  if (items.length > n) out.push(`… and ${items.length - n} more item(s)`);
  return out.join('\n').trimEnd();
}
