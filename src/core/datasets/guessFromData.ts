/**
 * A mapping guessed from a dataset file's columns *and values* (issue 39 item 5): what `reflect-eval import
 * generic --guess` prints and what the VS Code wizard starts from. Beyond the column names ({@link guessMapping}),
 * the values say how the file is laid out: a JSON list of responses nested in each record (`recordPath`), a
 * context given as text (one turn per line, speakers written before each turn or alternating), the reference as
 * the response of a source named like "Original Ground Truth", sources named like "human", and a rating dimension
 * per numeric column — binary for 0/1, ordinal for a few integer points, numeric otherwise — read one rating per
 * row (long, with an annotator column) or one list of ratings per row (lists, with an annotators list). The guess is
 * tried on the file; what it found and what it could not is said in `notes`.
 */
import { DEFAULT_HUMAN_SOURCES } from './annotationColumns';
import { formatOf, readDataset, sniffJsonFormat, type Dataset, type DatasetFormat } from './datasetRecords';
import { importDataset, type DatasetImportResult } from './genericImport';
import { findColumn, guessMapping, norm, type DatasetMapping, type DimensionColumn } from './mapping';

/** What {@link guessDatasetMapping} found. */
export interface GuessedMapping {
  mapping: DatasetMapping;
  /** What was guessed and why, and what is left to check — one line each (the CLI prints them on stderr). */
  notes: string[];
  /** The records as the guessed mapping reads them (with its `recordPath`). */
  data: Dataset;
  /** The guessed mapping's import, or null when it does not import (the problems are in `notes`). */
  result: DatasetImportResult | null;
}

const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

function asNumber(v: unknown): number | undefined {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && NUMBER.test(v.trim())) return Number(v.trim());
  return undefined;
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
}

/** A cell holding a JSON list (or the list itself), else undefined. */
function listValue(v: unknown): unknown[] | undefined {
  if (Array.isArray(v)) return v;
  if (typeof v === 'string' && /^\s*\[/.test(v)) {
    try {
      const p = JSON.parse(v) as unknown;
      return Array.isArray(p) ? p : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/** Column names that identify or order things rather than rate them. */
function idLike(column: string): boolean {
  const n = norm(column);
  return /(id|idx|index|key|uuid|hash)$/.test(n) || /^(id|idx|index|turn|order|position|row|line|split|fold|year|seed|timestamp|time|date|duration)/.test(n);
}

/**
 * The rating dimension of a numeric column from its observed values: binary when they are 0 and 1, ordinal over
 * the integers from the lowest to the highest observed (at most 11 points), numeric over the observed range
 * otherwise. The note says what was observed, so a scale whose ends nobody used can be widened by hand.
 */
export function dimensionFromValues(column: string, values: readonly number[]): { dimension: DimensionColumn; note: string } {
  const distinct = [...new Set(values)].sort((a, b) => a - b);
  const min = distinct[0];
  const max = distinct[distinct.length - 1];
  const observed = distinct.length > 12 ? `${distinct.length} values from ${min} to ${max}` : distinct.join(', ');
  if (distinct.every((v) => v === 0 || v === 1)) return { dimension: { column, type: 'binary' }, note: `"${column}": binary (observed ${observed}; 1 = yes)` };
  if (distinct.every(Number.isInteger) && max - min <= 10 && max > min) {
    const points = Array.from({ length: max - min + 1 }, (_, i) => min + i);
    const gaps = points.filter((p) => !distinct.includes(p));
    return { dimension: { column, type: 'ordinal', points }, note: `"${column}": ordinal ${min}–${max} (observed ${observed}${gaps.length ? `; nobody chose ${gaps.join(', ')}` : ''}) — widen "points" if the scale is longer` };
  }
  return { dimension: { column, type: 'numeric', min, max }, note: `"${column}": numeric from ${min} to ${max} (the observed range${distinct.every(Number.isInteger) ? ', integers' : ''}) — set the scale's real range` };
}

/** The first `k` non-empty values of a column (JSON booleans count as 1 and 0 when a column is typed: a binary dimension). */
function valuesOf(data: Dataset, column: string, k = 500): unknown[] {
  const out: unknown[] = [];
  for (const r of data.records) {
    const v = r.value(column);
    if (!isEmpty(v)) out.push(v);
    if (out.length >= k) break;
  }
  return out;
}

/** A field of the JSON records holding a list of objects with a text field (the responses of a context), if any. */
function nestedResponses(data: Dataset): string | undefined {
  if (data.format === 'csv' || data.records.length === 0) return undefined;
  const candidates = data.columns.filter((c) => {
    const vs = valuesOf(data, c, 50);
    return vs.length > 0 && vs.every((v) => Array.isArray(v) && v.length > 0 && v.every((x) => x !== null && typeof x === 'object' && !Array.isArray(x)));
  });
  if (candidates.length === 0) return undefined;
  const named = findColumn(candidates, ['responses', 'candidates', 'hypotheses', 'outputs', 'generations', 'systems', 'replies'], ['response', 'candidate', 'output']);
  return named ?? candidates[0];
}

/** How the values of a text context name their speakers, and what separates the turns. */
function textLayout(values: readonly string[]): { separator: string; speakerPrefix: boolean } {
  const separator = values.some((v) => v.includes('\n')) ? '\n' : values.some((v) => v.includes('|||')) ? '|||' : values.some((v) => v.includes('__eou__')) ? '__eou__' : '\n';
  const lines = values.flatMap((v) => v.split(separator).map((l) => l.trim()).filter(Boolean));
  const prefixed = lines.map((l) => /^([^:\n]{1,40}?)\s*:\s/.exec(l)?.[1].trim()).filter((x): x is string => Boolean(x));
  const names = new Set(prefixed);
  return { separator, speakerPrefix: lines.length > 0 && prefixed.length >= 0.9 * lines.length && names.size <= 8 };
}

/**
 * Guesses a mapping from a dataset file ({@link GuessedMapping}); the guess is a starting point to read and edit.
 *
 * @param text - the file's text
 * @param file - its name (the extension gives the format: `.csv`/`.tsv`/`.txt`, `.json`, `.jsonl`/`.ndjson`;
 *   otherwise JSON when the text starts with `[` or `{`, else CSV)
 * @throws DatasetImportError when the file itself cannot be read (not CSV or JSON at all)
 */
export function guessDatasetMapping(text: string, file: string): GuessedMapping {
  const notes: string[] = [];
  let format: DatasetFormat = formatOf(file) ?? (/^\ufeff?\s*[[{]/.test(text) ? 'json' : 'csv');
  if (format !== 'csv') format = sniffJsonFormat(text);
  let data = readDataset(text, format, file);
  if (data.recordsField) notes.push(`the records are the list in the field "${data.recordsField}" of the JSON object`);
  const recordPath = nestedResponses(data);
  if (recordPath) {
    const perRecord = data.records.map((r) => (r.value(recordPath) as unknown[]).length);
    data = readDataset(text, format, file, { recordPath });
    notes.push(`each record holds its responses in the list "${recordPath}" (${Math.min(...perRecord)}–${Math.max(...perRecord)} per record): "recordPath" reads each as a row that also sees its record's fields`);
  }
  const columns = data.columns;
  const base = guessMapping(columns);
  const m: DatasetMapping = { format: data.format, ...(recordPath ? { recordPath } : {}), ...base };
  const used = new Set<string>();
  const use = (c: string | undefined) => c !== undefined && used.add(c);

  // ---- context: a JSON list, or text
  if (m.context.layout === 'json') {
    const vs = valuesOf(data, m.context.column, 200);
    const lists = vs.filter((v) => Array.isArray(v) || (typeof v === 'string' && /^\s*[[{]/.test(v) && listValue(v) !== undefined) || (v !== null && typeof v === 'object'));
    if (vs.length && lists.length < vs.length) {
      const texts = vs.filter((v): v is string => typeof v === 'string');
      const { separator, speakerPrefix } = textLayout(texts);
      m.context = { layout: 'text', column: m.context.column, ...(separator !== '\n' ? { separator } : {}), ...(speakerPrefix ? { speakerPrefix: true } : { alternate: ['A', 'B'] }) };
      notes.push(
        speakerPrefix
          ? `the context "${m.context.column}" is text, one turn per ${separator === '\n' ? 'line' : JSON.stringify(separator)}, each starting with its speaker ("User: …")`
          : `the context "${m.context.column}" is text, one turn per ${separator === '\n' ? 'line' : JSON.stringify(separator)}, without speakers: they alternate between "A" (the last turn) and "B" (the turn before, and the responses) — rename them in "alternate"`,
      );
    } else notes.push(`the context "${m.context.column}" is a JSON list of turns`);
    use(m.context.column);
  } else if (m.context.layout === 'rows') [m.context.dialogue, m.context.speaker, m.context.text, m.context.order].forEach(use);
  [m.response.text, m.response.source, m.reference?.column].forEach(use);

  // ---- item ids
  if (m.context.layout !== 'rows') {
    const id = findColumn(columns, ['itemid', 'id', 'item', 'exampleid', 'sampleid', 'contextid', 'dialogueid', 'dialogid', 'conversationid', 'convid', 'instanceid'], [], used);
    if (id) {
      m.itemId = [id];
      use(id);
      notes.push(`items are identified by "${id}" (with their context)`);
    }
  }

  // ---- sources: human-written ones and the reference
  if (m.response.source) {
    const sources = new Map<string, number>();
    for (const r of data.records) {
      const s = String(r.value(m.response.source) ?? '').trim();
      if (s) sources.set(s, (sources.get(s) ?? 0) + 1);
    }
    const defaults = new Set(DEFAULT_HUMAN_SOURCES.map((s) => s.toLowerCase()));
    if (!m.reference) {
      const refLike = [...sources.keys()].find((s) => /ground[\s_-]*truth|reference|\bgold\b|\boriginal\b|\btarget\b/i.test(s));
      if (refLike) {
        m.reference = { source: refLike };
        notes.push(`the reference is each context's response from "${refLike}" (candidate "ref")`);
      }
    }
    const humanLike = [...sources.keys()].filter((s) => /\bhuman\b/i.test(s) && !defaults.has(s.toLowerCase()) && s !== m.reference?.source);
    if (humanLike.length) {
      m.humanSources = [...DEFAULT_HUMAN_SOURCES, ...humanLike];
      notes.push(`responses from ${humanLike.map((s) => `"${s}"`).join(', ')} are human-written ("humanSources")`);
    }
    notes.push(`sources: ${[...sources.entries()].slice(0, 12).map(([s, n]) => `${s} (${n})`).join(', ')}${sources.size > 12 ? ', …' : ''}`);
  }
  if (m.reference?.column) notes.push(`the reference is the column "${m.reference.column}"`);
  if (!m.reference) notes.push('no reference found (reference-based metrics need one: "reference": {"column": …} or {"source": …})');

  // ---- labels: MI coherence (from the names), then a rating dimension per numeric column
  // rater columns guessed from their names must hold yes/no answers, not lists or ratings
  if (m.labels?.layout === 'wide' && Array.isArray(m.labels.coherent)) {
    const yesNo = m.labels.coherent.filter((c) => valuesOf(data, c, 200).every((v) => typeof v !== 'object' && /^(yes|no|y|n|true|false|1|0)$/i.test(String(v).trim())));
    if (yesNo.length) m.labels = { ...m.labels, coherent: yesNo };
    else delete m.labels;
  }
  const l = m.labels;
  if (l?.layout === 'long') [l.annotator, l.coherent, l.group, l.mostEvidentError, l.empathy, ...Object.values(l.errors ?? {})].forEach(use);
  if (l?.layout === 'wide') (Array.isArray(l.coherent) ? l.coherent : Object.keys(l.coherent)).forEach(use);
  const annotator = l?.layout === 'long' ? l.annotator : findColumn(columns, ['annotator', 'rater', 'annotatorid', 'raterid', 'worker', 'workerid', 'judge', 'coder', 'evaluator'], [], used);
  const scalar: DimensionColumn[] = [];
  const lists: DimensionColumn[] = [];
  const skipped: string[] = [];
  for (const c of columns) {
    if (used.has(c) || c === annotator || idLike(c)) continue;
    const vs = valuesOf(data, c);
    if (vs.length === 0) continue;
    const asLists = vs.map(listValue);
    if (asLists.every((x) => x !== undefined)) {
      const flat = asLists.flatMap((x) => x!).filter((x) => !isEmpty(x));
      const nums = flat.map(asNumber);
      if (flat.length && nums.every((x) => x !== undefined)) {
        const { dimension, note } = dimensionFromValues(c, nums as number[]);
        lists.push(dimension);
        notes.push(`${note}; one rating per annotator in each list`);
      }
      continue;
    }
    const nums = vs.map(asNumber);
    if (nums.every((x) => x !== undefined)) {
      if (!annotator) {
        skipped.push(c);
        continue;
      }
      const { dimension, note } = dimensionFromValues(c, nums as number[]);
      scalar.push(dimension);
      notes.push(note);
    }
  }
  if (lists.length) {
    const ids = columns.filter((c) => !used.has(c) && valuesOf(data, c, 1).length > 0 && valuesOf(data, c, 50).every((v) => Array.isArray(v) && v.every((x) => typeof x === 'string')));
    const annotators = findColumn(ids, ['annotators', 'raters', 'workers', 'annotatorids', 'workerids', 'judges', 'coders'], ['annot', 'rater', 'worker']) ?? (ids.length === 1 ? ids[0] : undefined);
    m.labels = { layout: 'lists', ...(annotators ? { annotators } : {}), dimensions: lists };
    notes.push(annotators ? `the annotators of each rating list are named, in order, by "${annotators}"` : 'the rating lists name no annotators: they are called 1, 2, … by position');
  } else if (scalar.length && annotator) {
    m.labels = l?.layout === 'long' ? { ...l, dimensions: scalar } : { layout: 'long', annotator, dimensions: scalar };
    notes.push(`one row per response and annotator ("${annotator}")`);
  }
  if (skipped.length) notes.push(`numeric column(s) ${skipped.map((c) => `"${c}"`).join(', ')} are not read as ratings: there is no annotator column (kept as extra columns)`);
  if (!m.labels) notes.push('no labels found: the responses are imported unlabelled');

  // ---- try it: the speakers, the respondent and the primary dimension come from the items
  let result: DatasetImportResult | null = null;
  try {
    result = importDataset(text, m, { file, mappingSource: 'the guessed mapping' });
  } catch (err) {
    const lines = (err as Error).message.split('\n');
    notes.push(`the guessed mapping does not import yet: ${lines.slice(0, 4).join(' | ')}${lines.length > 4 ? ' | …' : ''}`);
  }
  if (result) {
    if (result.speakers.length) notes.push(`speakers (kept as written): ${result.speakers.map((s) => `${s.speaker} (${s.turns} turns)`).join(', ')}`);
    if (result.rubric) {
      const respondent = respondentOf(result);
      if (respondent) {
        m.rubric = { ...(m.rubric ?? {}), respondent };
        notes.push(`the responses are "${respondent}"'s turns (rubric.respondent): the speaker who does not speak the context's last turn`);
      }
      notes.push(`the study's rubric (written beside the output as <name>.rubric.json): ${result.rubric.dimensions.map((d) => d.name).join(', ')}; primary "${result.rubric.primary}"`);
      result = importDataset(text, m, { file, mappingSource: 'the guessed mapping' });
    }
    notes.push(`it reads ${result.records} records: ${result.items.length} contexts, ${result.items.reduce((s, i) => s + i.candidates.length, 0)} responses, ${result.annotators.length} annotators, ${result.items.filter((i) => i.reference).length} references${result.warnings.length ? `, ${result.warnings.length} warning(s)` : ''}`);
  }
  return { mapping: ordered(m), notes, data, result };
}

const ORDER: (keyof DatasetMapping)[] = ['format', 'recordPath', 'dataset', 'itemId', 'itemIdPrefix', 'context', 'speakers', 'response', 'reference', 'humanSources', 'labels', 'coherentValues', 'expertPrefix', 'missingValues', 'rubric'];

/** The mapping's fields in reading order (where the records are, the context, the response, the reference, the labels, the rubric). */
function ordered(m: DatasetMapping): DatasetMapping {
  const out: Record<string, unknown> = {};
  for (const k of ORDER) if (m[k] !== undefined) out[k] = m[k];
  for (const [k, v] of Object.entries(m)) if (!(k in out)) out[k] = v;
  return out as unknown as DatasetMapping;
}

/** The speaker the responses answer as: among contexts with two or more speakers, the one most often not speaking the last turn. */
function respondentOf(result: DatasetImportResult): string | undefined {
  const votes = new Map<string, number>();
  for (const it of result.items) {
    const last = it.context[it.context.length - 1]?.speaker;
    const others = [...new Set(it.context.map((t) => t.speaker))].filter((s) => s !== last);
    if (others.length === 1) votes.set(others[0], (votes.get(others[0]) ?? 0) + 1);
  }
  if (result.mapping.context.layout === 'text' && result.mapping.context.alternate) return result.mapping.context.alternate[1];
  return [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0];
}
