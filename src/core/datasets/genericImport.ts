/**
 * The generic dataset importer: CSV, JSON or JSONL files laid out as researchers already have them, read through a
 * column mapping ({@link DatasetMapping}, `mapping.ts`) into dialogue items. See docs/importing.md.
 *
 * - The **records** are CSV rows, JSON Lines, or the elements of a JSON array — or the elements of a list nested
 *   in each record (`recordPath`: the responses of a context), each seeing its parent's fields.
 * - The **context** is a JSON list of turns, or text with one turn per line (speakers written before each turn or
 *   alternating), in one column of each response row; or turn rows (speaker, text, optional order) grouped by a
 *   dialogue id, with the response rows among them. Speakers are kept as the dataset writes them.
 * - Each **response** row gives a candidate (the same text from the same source in one context is one
 *   candidate); its **source** says where it comes from (`human` origins for the human sources).
 * - The **reference** is a column, the context's human-written response, or its response from a named source.
 * - **Labels**: one row per (response, annotator) with label columns (long), one coherence column per annotator
 *   (wide), or one list of ratings per column with one value per annotator (lists). Rating columns are rubric
 *   dimensions named after their columns; the study's rubric is returned (`rubric`) to be written beside the
 *   dialogue file.
 *
 * Strict about what is wrong: the import stops on any bad row and reports every problem with the file, its line
 * (and spreadsheet row when a quoted line break makes them differ, or JSON path for JSON), the column and the
 * value. A label value the mapping does not cover is such a problem — never read through a default rule. Unmapped
 * columns are kept (`extraColumns` on the candidate or annotation, on the turn for turn rows), never dropped.
 */
import { existsSync } from 'node:fs';
import type { Annotation, Candidate, CandidateOrigin, DialogueItem, ErrorCategory, Turn } from '../dialogue/types';
import { assertWritable, writeTextAtomic } from '../format/files';
import { formatItems } from '../format/jsonl';
import type { LabelValue } from '../rubric/labelValues';
import { dimensionNamed, type Rubric } from '../rubric/rubric';
import { rubricPathOf } from '../rubric/rubricFile';
import { DEFAULT_EXPERT_PREFIX, DEFAULT_HUMAN_SOURCES, parseErrorCategory, parseLikert, parseYesNo, type TableProblem } from './annotationColumns';
import { DatasetImportError, formatOf, jsonPath, readDataset, type DatasetRecord } from './datasetRecords';
import { checkColumns, MappingError, validateMapping, type DatasetMapping, type DimensionColumn, type TextContextMapping } from './mapping';
import { cellText, dimensionColumns, mappingRuleProblems, readDimensionValue, rubricOfMapping } from './studyRubric';

export { DatasetImportError, formatOf, readDataset, sniffJsonFormat, type Dataset, type DatasetFormat, type DatasetRecord } from './datasetRecords';

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
  /** Data records read (CSV rows without the header, JSON records, or nested response records). */
  records: number;
  /** Turn rows and response rows (rows layout), or response rows (json and text layouts). */
  turnRows: number;
  responseRows: number;
  annotators: { id: string; group: 'expert' | 'layperson' }[];
  /** Columns no role reads, kept as `extraColumns`, and where. */
  keptColumns: { name: string; level: 'turn' | 'candidate' | 'annotation' }[];
  mapping: DatasetMapping;
  /** The study's rubric (its rating dimensions) to write beside the dialogue file; null for the MI preset. */
  rubric: Rubric | null;
  /** The speakers of the contexts as stored, with their number of turns, most frequent first. */
  speakers: { speaker: string; turns: number }[];
}

function slug(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

/** The MI preset's spellings of its two roles (any case): stored as `therapist` / `client` in an MI-preset study. */
export const MI_SPEAKER_SPELLINGS: Readonly<Record<string, string>> = { therapist: 'therapist', counsellor: 'therapist', counselor: 'therapist', client: 'client', patient: 'client' };

/**
 * How a speaker as written is stored: the mapping's `speakers` (stored name → spellings, any case) first; in an
 * MI-preset study (`miPreset`) the MI spellings as `therapist` / `client`; every other speaker as written
 * (surrounding spaces aside).
 */
export function speakerResolver(m: Pick<DatasetMapping, 'speakers'>, miPreset: boolean): (raw: string) => string {
  const table = new Map<string, string>(miPreset ? Object.entries(MI_SPEAKER_SPELLINGS) : []);
  for (const [name, spellings] of Object.entries(m.speakers ?? {})) for (const s of spellings) table.set(s.trim().toLowerCase(), name);
  return (raw) => table.get(raw.trim().toLowerCase()) ?? raw.trim();
}

const TEXT_KEYS = new Set(['text', 'utterance', 'content', 'speaker', 'role', 'interlocutor', 'message']);

/**
 * Turns from a JSON context value (a string holding JSON, or the parsed value in JSON/JSONL): a list of one-key
 * objects `{"client": "…"}` (the key is the speaker), or of `{speaker | role | interlocutor, text | utterance |
 * content}` objects, or an object holding such a list.
 *
 * @param speakerOf - how a speaker as written is stored ({@link speakerResolver}; default: as written)
 * @throws Error (message only) naming the turn that is wrong
 */
export function contextTurns(value: unknown, speakerOf: (raw: string) => string = (s) => s.trim()): Turn[] {
  let v = value;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch (err) {
      const start = (value as string).trim().slice(0, 40);
      throw new Error(`not valid JSON (${(err as Error).message}); expected a list like [{"therapist": "…"}, {"client": "…"}], got ${JSON.stringify(start)}${(value as string).trim().length > 40 ? '…' : ''} (for text with one turn per line, use the "text" layout)`);
    }
  }
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const lists = Object.values(v as Record<string, unknown>).filter(Array.isArray);
    if (lists.length === 1) v = lists[0];
  }
  if (!Array.isArray(v)) throw new Error(`expected a JSON list of turns, got ${v === null ? 'null' : typeof v}`);
  const named = (i: number, raw: string): string => {
    const s = speakerOf(raw);
    if (!s) throw new Error(`turn ${i + 1}: the speaker is empty`);
    return s;
  };
  return v.map((t, i): Turn => {
    if (t === null || typeof t !== 'object' || Array.isArray(t)) throw new Error(`turn ${i + 1} is not an object like {"client": "…"}`);
    const rec = t as Record<string, unknown>;
    const entries = Object.entries(rec);
    if (entries.length === 1 && !TEXT_KEYS.has(entries[0][0].trim().toLowerCase())) {
      const [k, text] = entries[0];
      if (typeof text !== 'string') throw new Error(`turn ${i + 1}: the text of ${JSON.stringify(k)} must be a string`);
      return { speaker: named(i, k), text };
    }
    const who = rec.speaker ?? rec.role ?? rec.interlocutor;
    const text = rec.text ?? rec.utterance ?? rec.content;
    if (typeof who !== 'string' || typeof text !== 'string') throw new Error(`turn ${i + 1} must be {"<speaker>": "<text>"} or have "speaker" (or "role") and "text" (or "utterance", "content"), got keys ${JSON.stringify(entries.map(([k]) => k))}`);
    return { speaker: named(i, who), text };
  });
}

/**
 * Turns from a text context (docs/importing.md, the `text` layout): split at the separator (default a line
 * break), surrounding spaces trimmed, empty pieces dropped; speakers from a `Speaker: ` prefix on each turn, or
 * alternating back from the last turn (the first of `alternate` speaks the last turn).
 *
 * @throws Error (message only) naming the turn without a speaker prefix
 */
export function textTurns(value: unknown, c: Pick<TextContextMapping, 'separator' | 'alternate' | 'speakerPrefix'>, speakerOf: (raw: string) => string = (s) => s.trim()): Turn[] {
  if (value !== undefined && value !== null && typeof value !== 'string') throw new Error(`expected the context as text, got ${Array.isArray(value) ? 'a list (use the "json" layout)' : typeof value}`);
  const pieces = (value ?? '').split(c.separator ?? '\n').map((p) => p.trim()).filter((p) => p !== '');
  if (c.speakerPrefix) {
    return pieces.map((p, i) => {
      const m = /^([^:\n]{1,40}?)\s*:\s*([\s\S]*)$/.exec(p);
      if (!m || !m[1].trim()) throw new Error(`turn ${i + 1} does not start with "<speaker>: ", got ${JSON.stringify(p.slice(0, 40))}${p.length > 40 ? '…' : ''}`);
      return { speaker: speakerOf(m[1]), text: m[2] };
    });
  }
  const [last, other] = c.alternate ?? ['A', 'B'];
  return pieces.map((text, i) => ({ speaker: speakerOf((pieces.length - 1 - i) % 2 === 0 ? last : other), text }));
}

/**
 * Reads a coherence cell: with `coherentValues`, exactly those values (any case) and nothing else; without, yes
 * and no as y/n, true/false, 1/0 in any case. Empty = no answer. Never both: a mapping's own values replace the
 * built-in spellings, so a 1–5 scale mapped with `{"yes": ["4", "5"], "no": ["2", "3"]}` reports its 1s instead of
 * reading them as yes.
 */
export function coherenceReader(m: Pick<DatasetMapping, 'coherentValues'>): (v: string) => boolean | undefined {
  if (!m.coherentValues) {
    return (v) => {
      try {
        return parseYesNo(v);
      } catch {
        throw new Error(`expected Yes or No (also y/n, true/false, 1/0), got ${JSON.stringify(v)} (give the column's own values under "coherentValues")`);
      }
    };
  }
  const yes = new Set((m.coherentValues.yes ?? []).map((s) => s.trim().toLowerCase()));
  const no = new Set((m.coherentValues.no ?? []).map((s) => s.trim().toLowerCase()));
  const list = (set: Set<string>) => (set.size ? [...set].map((x) => JSON.stringify(x)).join(', ') : 'none');
  return (v) => {
    const s = v.trim().toLowerCase();
    if (s === '') return undefined;
    if (yes.has(s)) return true;
    if (no.has(s)) return false;
    throw new Error(`${JSON.stringify(v)} is not one of the coherence values of the mapping (yes: ${list(yes)}; no: ${list(no)}); add it to "coherentValues" — no other value is read`);
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

/** A list of values from a JSON list, or a cell holding one (`"[3, 5, 4]"`); undefined for an empty cell. */
function listOf(raw: unknown): unknown[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (Array.isArray(raw)) return raw;
  if (typeof raw === 'string') {
    if (raw.trim() === '') return undefined;
    try {
      const v = JSON.parse(raw) as unknown;
      if (Array.isArray(v)) return v;
    } catch {
      /* reported below */
    }
  }
  throw new Error(`expected a list with one value per annotator (e.g. [4, 5, 3]), got ${JSON.stringify(raw).slice(0, 60)}`);
}

/**
 * Imports a dataset through a mapping.
 *
 * @param text - the file's text (UTF-8)
 * @param mappingValue - the mapping (validated here: {@link validateMapping} and the rules a schema cannot say,
 *   then its columns against the file)
 * @param options.file - the file's base name; its extension gives the format when the mapping does not
 * @throws MappingError for a bad mapping or columns the file lacks; DatasetImportError listing every bad row
 */
export function importDataset(text: string, mappingValue: unknown, options: DatasetImportOptions = {}): DatasetImportResult {
  const file = options.file ?? 'dataset';
  const source = options.mappingSource ?? 'mapping';
  const m = validateMapping(mappingValue, source);
  const datasetName = m.dataset ?? file;
  const rules = mappingRuleProblems(m, datasetName);
  if (rules.length) throw new MappingError(source, rules);
  const format = m.format ?? formatOf(file);
  if (!format) throw new MappingError(source, [{ field: 'format', message: `cannot tell the format from the file name ${JSON.stringify(file)}: give "format": "csv", "json" or "jsonl"` }]);
  if (m.recordPath && format === 'csv') throw new MappingError(source, [{ field: 'recordPath', message: 'reads a list nested in each JSON record; a CSV file has none' }]);
  const data = readDataset(text, format, file, { recordPath: m.recordPath });
  checkColumns(m, data.columns, source, data.format !== 'csv');

  const rubric = rubricOfMapping(m, datasetName);
  const problems: TableProblem[] = [];
  const warnings: TableProblem[] = [];
  const speakerOf = speakerResolver(m, rubric === null);
  const readCoherent = coherenceReader(m);
  const expertPrefix = (m.expertPrefix ?? DEFAULT_EXPERT_PREFIX).toLowerCase();
  const humanSources = new Set((m.humanSources ?? DEFAULT_HUMAN_SOURCES).map((s) => s.trim().toLowerCase()));
  const refSource = m.reference?.source?.trim().toLowerCase();
  const missing = new Set((m.missingValues ?? []).map((s) => s.trim()));
  const get = (rec: DatasetRecord, c: string | undefined) => (c === undefined ? '' : cellText(rec.value(c)));
  /** Where a problem is: the record's line and row, or for JSON the line and path of the field (and list element). */
  const at = (rec: DatasetRecord, column?: string, index?: number): Pick<TableProblem, 'line' | 'row' | 'path' | 'column'> => {
    // JSON records and nested ones: the path of the value; a top-level JSON Lines record: its line and column (and the list index)
    if (rec.path && rec.locate && column !== undefined && (rec.path.length > 0 || index !== undefined)) {
      const loc = rec.locate(column, index);
      return { line: loc.line, row: loc.line, path: jsonPath(loc.path), column };
    }
    if (rec.path && rec.path.length) return { line: rec.line, row: rec.line, path: jsonPath(rec.path), ...(column ? { column } : {}) };
    return { line: rec.line, row: rec.row, ...(column ? { column } : {}) };
  };
  const problem = (rec: DatasetRecord, message: string, column?: string, index?: number) => problems.push({ ...at(rec, column, index), message });
  const groupOf = (annotator: string, cell?: string): 'expert' | 'layperson' => (cell?.trim() ? (/^expert/i.test(cell.trim()) ? 'expert' : 'layperson') : annotator.toLowerCase().startsWith(expertPrefix) ? 'expert' : 'layperson');

  // columns no role reads: kept
  const mapped = new Set<string>();
  const note = (c: string | undefined) => c !== undefined && mapped.add(c);
  (m.itemId ?? []).forEach(note);
  if (m.context.layout !== 'rows') note(m.context.column);
  else [m.context.dialogue, m.context.speaker, m.context.text, m.context.order].forEach(note);
  [m.response.text, m.response.source, m.reference?.column].forEach(note);
  const labels = m.labels;
  const wideColumns = labels?.layout === 'wide' ? (Array.isArray(labels.coherent) ? Object.fromEntries(labels.coherent.map((c) => [c, c.trim()])) : labels.coherent) : {};
  if (labels?.layout === 'long') [labels.annotator, labels.coherent, labels.group, labels.mostEvidentError, labels.empathy, ...Object.values(labels.errors ?? {})].forEach(note);
  else if (labels?.layout === 'lists') note(labels.annotators);
  else Object.keys(wideColumns).forEach(note);
  const dims: { spec: DimensionColumn; dim: NonNullable<ReturnType<typeof dimensionNamed>> }[] = dimensionColumns(m).map((spec) => ({ spec, dim: dimensionNamed(rubric!, spec.column)! }));
  dims.forEach((d) => note(d.spec.column));
  // (a JSON object one of whose fields is mapped, `errors` for `errors.malformed`, counts as read)
  const extraColumns = data.columns.filter((c) => !mapped.has(c) && ![...mapped].some((p) => p.startsWith(`${c}.`)));
  const extraOf = (rec: DatasetRecord) => {
    const out: Record<string, string> = {};
    for (const c of extraColumns) {
      const v = get(rec, c);
      if (v !== '') out[c] = v;
    }
    return out;
  };

  /** The rating values of one row's dimension columns (long layout), by dimension name; problems reported. */
  const ratingsOf = (rec: DatasetRecord): Record<string, LabelValue> => {
    const out: Record<string, LabelValue> = {};
    for (const { spec, dim } of dims) {
      try {
        const v = readDimensionValue(rec.value(spec.column), spec, dim, missing);
        if (v !== undefined) out[spec.column] = v;
      } catch (err) {
        problem(rec, `${spec.column}: ${(err as Error).message}`, spec.column);
      }
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
    if (labels.layout === 'lists') {
      let ids: string[] | undefined;
      if (labels.annotators) {
        try {
          ids = (listOf(rec.value(labels.annotators)) ?? []).map((x) => cellText(x).trim());
        } catch (err) {
          problem(rec, (err as Error).message.replace('one value per annotator', 'one annotator id per rating'), labels.annotators);
          return [];
        }
        const blank = ids.findIndex((x) => !x);
        if (blank >= 0) {
          problem(rec, `annotator ${blank + 1} has an empty id`, labels.annotators, blank);
          return [];
        }
      }
      const byPosition = new Map<number, Annotation>();
      for (const { spec, dim } of dims) {
        let list: unknown[] | undefined;
        try {
          list = listOf(rec.value(spec.column));
        } catch (err) {
          problem(rec, `${spec.column}: ${(err as Error).message}`, spec.column);
          continue;
        }
        if (!list) continue;
        if (ids && list.length !== ids.length) {
          problem(rec, `${spec.column} has ${list.length} rating(s) but ${labels.annotators} names ${ids.length} annotator(s); one rating per annotator, in their order (null for none)`, spec.column);
          continue;
        }
        list.forEach((raw, k) => {
          let v: LabelValue | undefined;
          try {
            v = readDimensionValue(raw, spec, dim, missing);
          } catch (err) {
            problem(rec, `${spec.column}[${k}]: ${(err as Error).message}`, spec.column, k);
            return;
          }
          if (v === undefined) return;
          const id = ids ? ids[k] : String(k + 1);
          const ann = byPosition.get(k) ?? { annotator: id, group: labels.groups?.[id] ?? groupOf(id) };
          ann[spec.column] = v;
          byPosition.set(k, ann);
        });
      }
      return [...byPosition.entries()].sort((a, b) => a[0] - b[0]).map(([, a]) => a);
    }
    const annotator = get(rec, labels.annotator).trim();
    const coherent = labels.coherent ? cell(labels.coherent, readCoherent) : undefined;
    const errorFlags = Object.entries(labels.errors ?? {}).map(([cat, col]) => ({ cat: cat as ErrorCategory, col, v: cell(col, parseYesNo) }));
    const mee = labels.mostEvidentError ? cell(labels.mostEvidentError, parseErrorCategory) : undefined;
    const empathy = labels.empathy ? cell(labels.empathy, parseLikert) : undefined;
    const ratings = ratingsOf(rec);
    const anyLabel = coherent !== undefined || errorFlags.some((f) => f.v !== undefined) || mee !== undefined || empathy !== undefined || Object.keys(ratings).length > 0;
    if (!annotator) {
      if (anyLabel) problem(rec, 'has labels but no annotator', labels.annotator);
      return [];
    }
    const marked = errorFlags.filter((f) => f.v === true);
    if (labels.coherent && coherent === true && marked.length) problem(rec, `marked coherent but also has error(s) marked Yes: ${marked.map((f) => f.col).join(', ')} (error columns are for incoherent responses)`, labels.coherent);
    if (labels.coherent && coherent === undefined && marked.length) problem(rec, 'error(s) are marked but the coherence cell is empty', labels.coherent);
    const ann: Annotation = { annotator, group: groupOf(annotator, labels.group ? get(rec, labels.group) : undefined) };
    if (coherent !== undefined) ann.coherent = coherent;
    if (coherent === false && errorFlags.some((f) => f.v !== undefined)) ann.errors = marked.map((f) => f.cat);
    if (mee !== undefined) {
      if (ann.errors?.length && !ann.errors.includes(mee)) problem(rec, `most evident error ${JSON.stringify(get(rec, labels.mostEvidentError))} is not one of the errors marked Yes (${ann.errors.join(', ')})`, labels.mostEvidentError);
      ann.mostEvidentError = mee;
    }
    if (empathy !== undefined) ann.empathy = empathy;
    Object.assign(ann, ratings);
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

  if (m.context.layout !== 'rows') {
    const ctx = m.context;
    const idCount = new Map<string, number>();
    const parentDepth = data.recordPath ? data.recordPath.split('.').length + 1 : 0;
    for (const rec of data.records) {
      let turns: Turn[];
      try {
        turns = ctx.layout === 'json' ? contextTurns(rec.value(ctx.column), speakerOf) : textTurns(rec.value(ctx.column), ctx, speakerOf);
      } catch (err) {
        problem(rec, (err as Error).message, ctx.column);
        continue;
      }
      if (!get(rec, m.response.text).trim()) {
        problem(rec, 'the response is empty', m.response.text);
        continue;
      }
      const idParts = (m.itemId ?? []).map((c) => get(rec, c).trim());
      // responses nested in one record belong to its context
      const parent = parentDepth && rec.path ? jsonPath(rec.path.slice(0, rec.path.length - parentDepth)) : '';
      const key = JSON.stringify([idParts, parent, turns.map((t) => [t.speaker, t.text])]);
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
      const speaker = speakerOf(speakerCell);
      if (!speaker) {
        problem(rec, `the turn has no speaker (its text: ${JSON.stringify(turnText.trim().slice(0, 40))})`, ctx.speaker);
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
  /** Responses equal to their context's reference column but not human-written, by source: count and first row. */
  const equalToReference = new Map<string, { n: number; rec: DatasetRecord }>();
  const withoutReferenceSource: DatasetRecord[] = [];
  const isRef = (source: string) => refSource !== undefined && source.toLowerCase() === refSource;
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
    const fromRefSource: { text: string; rec: DatasetRecord }[] = [];
    for (const rows of groups.values()) {
      const first = rows[0];
      const reference = isRef(first.source);
      const human = first.source !== '' && (humanSources.has(first.source.toLowerCase()) || reference);
      if (!first.source) anyWithoutSource = true;
      const origin: CandidateOrigin = { kind: human ? 'human' : 'model', ...(first.source ? { source: first.source } : {}) };
      const stem = slug(first.source) || 'response';
      const n = (perSource.get(stem) ?? 0) + 1;
      perSource.set(stem, n);
      const asRef = reference || (human && m.reference?.fromHumanResponse);
      let cid = asRef ? 'ref' : `${stem}-${n}`;
      for (let k = 2; usedIds.has(cid); k++) cid = asRef ? `ref-${k}` : `${stem}-${n}-${k}`;
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
          problems.push({ ...at(r.rec, Object.keys(rowExtra)[0]), message: `this response appears on several rows whose ${Object.keys(rowExtra).join(', ')} differ, and ${labels?.layout === 'long' ? 'this row has no annotator to keep them on' : 'there is one candidate to keep them on'}; make them agree or remove a row` });
        }
        for (const a of r.annotations) {
          const prev = byAnnotator.get(a.annotator);
          if (prev) {
            if (JSON.stringify(prev.ann) === JSON.stringify({ ...a, ...(Object.keys(rowExtra).length ? { extraColumns: rowExtra } : {}) })) warnings.push({ ...at(r.rec), message: `repeats line ${prev.rec.line} exactly (same response, annotator and labels); kept once` });
            else problems.push({ ...at(r.rec, labels?.layout === 'long' ? labels.annotator : labels?.layout === 'lists' ? labels.annotators : undefined), message: `${a.annotator} labelled this response already on line ${prev.rec.line}, differently; keep one of the two` });
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
      if (reference && !fromRefSource.some((h) => h.text.trim() === first.text.trim())) fromRefSource.push({ text: first.text, rec: first.rec });
    }
    const item: DialogueItem = {
      id,
      context: acc.context,
      provenance: { dataset: datasetName, sourceFile: file, ...(acc.transcriptId !== undefined ? { transcriptId: acc.transcriptId } : {}) },
      candidates,
    };
    if (m.reference?.column) {
      const texts = [...new Set(acc.rows.map((r) => r.referenceText).filter((t) => t.trim() !== ''))];
      if (texts.length > 1) {
        const second = acc.rows.find((r) => r.referenceText === texts[1])!;
        problems.push({ ...at(second.rec, m.reference.column), message: `item ${id} has ${texts.length} different references (first on line ${acc.rows.find((r) => r.referenceText === texts[0])!.rec.line}); one context has one reference` });
      } else if (texts.length === 1) item.reference = { text: texts[0] };
    } else if (m.reference?.fromHumanResponse) {
      if (humans.length > 1) problems.push({ ...at(humans[1].rec, m.response.text), message: `item ${id} has ${humans.length} different human responses (lines ${humans.map((h) => h.rec.line).join(', ')}); which one is the reference? (give "reference": {"source": "<its source>"})` });
      else if (humans.length === 1) item.reference = { text: humans[0].text };
    } else if (m.reference?.source) {
      if (fromRefSource.length > 1) problems.push({ ...at(fromRefSource[1].rec, m.response.text), message: `item ${id} has ${fromRefSource.length} different responses from the reference source ${JSON.stringify(m.reference.source)} (lines ${fromRefSource.map((h) => h.rec.line).join(', ')}); one context has one reference` });
      else if (fromRefSource.length === 1) item.reference = { text: fromRefSource[0].text };
      else withoutReferenceSource.push(acc.rows[0].rec);
    }
    // a model response that is the reference text itself: said, never silently scored against itself
    if (item.reference) {
      const ref = item.reference.text.trim();
      for (const c of candidates) {
        if (c.origin.kind === 'human' || c.text.trim() !== ref) continue;
        const src = c.origin.source ?? '';
        const rec = groups.get(JSON.stringify([src.toLowerCase(), c.text.trim()]))![0].rec;
        const seen = equalToReference.get(src);
        equalToReference.set(src, { n: (seen?.n ?? 0) + 1, rec: seen?.rec ?? rec });
      }
    }
    result.push(item);
  }
  if (problems.length) throw new DatasetImportError(file, problems);
  if (anyWithoutSource) warnings.unshift({ line: 1, row: 1, message: 'some responses have no source (map "response.source" or set "response.sourceName"): they are marked as model outputs without a source' });
  for (const [src, { n, rec }] of equalToReference) {
    const from = src ? `source ${JSON.stringify(src)}` : 'no source';
    const hint = m.reference?.column
      ? ` If ${src ? JSON.stringify(src) : 'it'} is the human-written reference, list it under "humanSources" (or use "reference": {"source": …}) so it is imported as human-written.`
      : ' (A model output may happen to equal the reference; it is kept as it is.)';
    warnings.push({
      ...at(rec, m.response.text),
      message: `${n} model response(s) with ${from} (first here) are their context's reference text${m.reference?.column ? ` (column ${JSON.stringify(m.reference.column)})` : ''}: each is the reference itself, which reference-based metrics do not score against the reference.${hint}`,
    });
  }
  if (withoutReferenceSource.length) warnings.push({ ...at(withoutReferenceSource[0]), message: `${withoutReferenceSource.length} context(s) (first here) have no response from the reference source ${JSON.stringify(m.reference!.source)}: they have no reference` });
  const kept: DatasetImportResult['keptColumns'] = [
    ...[...turnExtraColumns].map((name) => ({ name, level: 'turn' as const })),
    ...[...candidateExtra].map((name) => ({ name, level: 'candidate' as const })),
    ...[...annotationExtra].filter((c) => !candidateExtra.has(c)).map((name) => ({ name, level: 'annotation' as const })),
  ];
  const speakerTurns = new Map<string, number>();
  for (const it of result) for (const t of it.context) speakerTurns.set(t.speaker, (speakerTurns.get(t.speaker) ?? 0) + 1);
  return {
    items: result,
    warnings,
    records: data.records.length,
    turnRows,
    responseRows: responses.length,
    annotators: [...annotators.entries()].map(([aid, group]) => ({ id: aid, group })).sort((a, b) => a.group.localeCompare(b.group) || a.id.localeCompare(b.id, undefined, { numeric: true })),
    keptColumns: kept,
    mapping: m,
    rubric,
    speakers: [...speakerTurns.entries()].map(([speaker, turns]) => ({ speaker, turns })).sort((a, b) => b.turns - a.turns || a.speaker.localeCompare(b.speaker)),
  };
}

/**
 * The files an import writes: the dialogue file, and the study's rubric beside it (`<study>.rubric.json`,
 * {@link rubricPathOf}) when the study is not the MI preset.
 */
export function importOutputFiles(result: Pick<DatasetImportResult, 'items' | 'rubric'>, out: string): { path: string; text: string }[] {
  const files = [{ path: out, text: formatItems(result.items) }];
  if (result.rubric) files.push({ path: rubricPathOf(out), text: `${JSON.stringify(result.rubric, null, 2)}\n` });
  return files;
}

/**
 * Writes an import's files ({@link importOutputFiles}), each atomically.
 *
 * @throws Error before writing anything when a file exists and `force` is not set, or when the study is the MI
 *   preset but a rubric file lies beside the output (it would make the study use that rubric instead)
 * @returns the paths written
 */
export function writeImportOutputs(result: Pick<DatasetImportResult, 'items' | 'rubric'>, out: string, force = false): string[] {
  const files = importOutputFiles(result, out);
  for (const f of files) assertWritable(f.path, force);
  if (!result.rubric && existsSync(rubricPathOf(out))) throw new Error(`${rubricPathOf(out)} lies beside the output: the study would use that rubric, but this import is in the MI preset (it declares no rating dimensions); remove or rename it, or write the dialogue file elsewhere`);
  for (const f of files) writeTextAtomic(f.path, f.text);
  return files.map((f) => f.path);
}

/** How a turn's speaker is shown in a preview: the MI roles by their initials (as before), every other speaker as written. */
function speakerTag(speaker: string): string {
  return speaker === 'therapist' ? 'T' : speaker === 'client' ? 'C' : speaker;
}

/** A rating annotation's labels on one line: `sm: Understandable yes, Overall 5`. */
function ratingsLine(a: Annotation, names: readonly string[]): string {
  const shown = (v: unknown) => (typeof v === 'boolean' ? (v ? 'yes' : 'no') : typeof v === 'string' ? JSON.stringify(v) : String(v));
  return `${a.annotator}: ${names.filter((n) => a[n] !== undefined).map((n) => `${n} ${shown(a[n])}`).join(', ')}`;
}

/**
 * The first `n` items as readable text, for `import generic --preview` and the wizard's preview: each item's id,
 * its context turns, the reference, and every candidate with its source and labels (coherence, or the rubric's
 * rating dimensions when given).
 */
export function previewItems(items: readonly DialogueItem[], n: number, width = 120, rubric: Rubric | null = null): string {
  const cut = (s: string, w: number) => (s.length > w ? `${s.slice(0, w - 1)}…` : s);
  const one = (s: string) => s.replace(/\s+/g, ' ').trim();
  const ratingNames = rubric ? rubric.dimensions.filter((d) => d.type !== 'multiSelect' && !['coherent', 'errors', 'otherText', 'empathy'].includes(d.name)).map((d) => d.name) : [];
  const out: string[] = [];
  for (const it of items.slice(0, n)) {
    const labelled = it.candidates.filter((c) => c.annotations.length).length;
    out.push(`${it.id}  (${it.context.length} turns, ${it.candidates.length} responses, ${labelled} labelled${it.reference ? ', reference' : ''})`);
    for (const t of it.context) out.push(cut(`  ${speakerTag(t.speaker)}: ${one(t.text)}`, width));
    if (it.reference) out.push(cut(`  reference: ${one(it.reference.text)}`, width));
    for (const c of it.candidates) {
      const votes = c.annotations.filter((a) => typeof a.coherent === 'boolean');
      const labels = votes.length ? `  [coherent ${votes.filter((a) => a.coherent).length}/${votes.length}: ${votes.map((a) => `${a.annotator} ${a.coherent ? '✓' : '✗'}${a.errors?.length ? ` (${a.errors.join(', ')})` : ''}`).join(', ')}]` : '';
      out.push(cut(`  → ${c.id} (${c.origin.source ?? c.origin.kind}): ${one(c.text)}`, width));
      if (labels) out.push(cut(`    ${labels.trim()}`, width));
      const rated = c.annotations.filter((a) => ratingNames.some((nm) => a[nm] !== undefined));
      if (rated.length) out.push(cut(`    [${rated.map((a) => ratingsLine(a, ratingNames)).join('; ')}]`, width));
    }
    out.push('');
  }
  if (items.length > n) out.push(`… and ${items.length - n} more item(s)`);
  return out.join('\n').trimEnd();
}
