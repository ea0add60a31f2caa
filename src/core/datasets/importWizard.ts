/**
 * What the VS Code import wizard ("ReflectEval: Import Dataset (CSV/JSON/JSONL)…") computes, without VS Code: the
 * column choices for a role (the guessed column first, each with sample values), the mapping built from the
 * answers and the guess (`guessDatasetMapping`: nested records, text contexts, rating dimensions), and the
 * preview document. Speakers are kept as the dataset writes them, as on the command line.
 */
import type { DatasetImportResult, Dataset, DatasetFormat } from './genericImport';
import { previewItems } from './genericImport';
import type { DatasetMapping } from './mapping';

/** One column offered for a role. */
export interface ColumnChoice {
  column: string;
  /** Up to three distinct non-empty values from the first records, on one line each. */
  samples: string[];
  /** This is the column {@link guessMapping} picked for the role. */
  guessed: boolean;
}

function oneLine(v: unknown, max = 60): string {
  const s = (typeof v === 'string' ? v : v === undefined || v === null ? '' : JSON.stringify(v)).replace(/\s+/g, ' ').trim();
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** Up to `k` distinct non-empty values of `column` among the first 200 records, shortened to one line. */
export function sampleValues(data: Dataset, column: string, k = 3): string[] {
  const out: string[] = [];
  for (const r of data.records.slice(0, 200)) {
    const v = oneLine(r.value(column));
    if (v && !out.includes(v)) out.push(v);
    if (out.length >= k) break;
  }
  return out;
}

/** The file's columns for one role: the guessed one first, then the others in file order, minus `exclude`. */
export function columnChoices(data: Dataset, guessed: string | undefined, exclude: Iterable<string> = []): ColumnChoice[] {
  const skip = new Set(exclude);
  const cols = data.columns.filter((c) => !skip.has(c) || c === guessed);
  const ordered = guessed && cols.includes(guessed) ? [guessed, ...cols.filter((c) => c !== guessed)] : cols;
  return ordered.map((column) => ({ column, samples: sampleValues(data, column), guessed: column === guessed }));
}

/** The wizard's answers. */
export interface WizardAnswers {
  format: DatasetFormat;
  dataset?: string;
  context: DatasetMapping['context'];
  /** json and text layouts: columns identifying an item (optional). */
  itemId?: string[];
  speakers?: DatasetMapping['speakers'];
  responseText: string;
  source?: string;
  sourceName?: string;
  reference: { kind: 'none' } | { kind: 'column'; column: string } | { kind: 'human' } | { kind: 'source'; source: string };
  /** `guessed`: the guessed labels as they are (rating dimensions, lists). */
  labels: { kind: 'none' } | { kind: 'long'; annotator: string; coherent: string } | { kind: 'wide'; columns: string[] } | { kind: 'guessed' };
}

/**
 * The mapping of the answers. The guessed mapping contributes what the wizard does not ask about: where the
 * records are (`recordPath`), the human sources, the study's rubric fields, long labels' error, group, MEE,
 * empathy and rating columns (when the annotator and coherence columns are the guessed ones), and the guessed
 * labels as a whole for `{kind: 'guessed'}`.
 */
export function mappingFromAnswers(a: WizardAnswers, guessed?: DatasetMapping): DatasetMapping {
  const m: DatasetMapping = { format: a.format, ...(guessed?.recordPath ? { recordPath: guessed.recordPath } : {}), ...(a.dataset ? { dataset: a.dataset } : {}), context: a.context, response: { text: a.responseText } };
  if (a.itemId?.length && a.context.layout !== 'rows') m.itemId = a.itemId;
  if (a.speakers && Object.values(a.speakers).some((v) => v.length)) m.speakers = a.speakers;
  if (a.source) m.response.source = a.source;
  else if (a.sourceName) m.response.sourceName = a.sourceName;
  if (a.reference.kind === 'column') m.reference = { column: a.reference.column };
  else if (a.reference.kind === 'human') m.reference = { fromHumanResponse: true };
  else if (a.reference.kind === 'source') m.reference = { source: a.reference.source };
  if (guessed?.humanSources) m.humanSources = guessed.humanSources;
  if (a.labels.kind === 'long') {
    const g = guessed?.labels?.layout === 'long' && guessed.labels.annotator === a.labels.annotator && (guessed.labels.coherent ?? a.labels.coherent) === a.labels.coherent ? guessed.labels : undefined;
    m.labels = { ...(g ?? {}), layout: 'long', annotator: a.labels.annotator, coherent: a.labels.coherent };
  } else if (a.labels.kind === 'wide') m.labels = { layout: 'wide', coherent: a.labels.columns };
  else if (a.labels.kind === 'guessed' && guessed?.labels) m.labels = guessed.labels;
  if (guessed?.rubric && m.labels && (m.labels.layout === 'lists' || (m.labels.layout === 'long' && m.labels.dimensions?.length))) m.rubric = guessed.rubric;
  return m;
}

/** A one-line summary of guessed labels for the wizard's pick: `3 rating dimensions (Understandable, Natural, Overall), one list per annotator`. */
export function guessedLabelsSummary(m: DatasetMapping): string | undefined {
  const l = m.labels;
  if (!l || l.layout === 'wide' || !l.dimensions?.length) return undefined;
  const names = l.dimensions.map((d) => `${d.column} (${d.type === 'ordinal' ? `${d.points[0]}–${d.points[d.points.length - 1]}` : d.type})`);
  return `${l.dimensions.length} rating dimension(s): ${names.join(', ')}; ${l.layout === 'lists' ? `a list of ratings per column${l.annotators ? `, annotators named by "${l.annotators}"` : ''}` : `one row per response and annotator ("${l.annotator}")`}`;
}

/** The preview document: what was read, the mapping (to reuse with `reflect-eval import generic --mapping`), the first items. */
export function previewDocument(result: DatasetImportResult, file: string, n = 5): string {
  const candidates = result.items.reduce((s, it) => s + it.candidates.length, 0);
  const labelled = result.items.reduce((s, it) => s + it.candidates.filter((c) => c.annotations.length).length, 0);
  const experts = result.annotators.filter((a) => a.group === 'expert').length;
  const r = result.rubric;
  const lines = [
    `Preview of ${file}: ${result.records} records → ${result.items.length} contexts, ${candidates} responses (${labelled} labelled), ` +
      `${result.annotators.length} annotators (${experts} experts), ${result.items.filter((i) => i.reference).length} references.`,
    ...(result.speakers.length ? [`Speakers (as written): ${result.speakers.map((s) => `${s.speaker} (${s.turns} turns)`).join(', ')}.`] : []),
    ...(r ? [`Rubric (written beside the dialogue file as <name>.rubric.json): ${r.dimensions.map((d) => `${d.name} (${d.type})`).join(', ')}; primary ${r.primary}${r.speakers?.respondent ? `; responses by ${r.speakers.respondent}` : ''}.`] : []),
    ...(result.keptColumns.length ? [`Kept unmapped columns: ${result.keptColumns.map((c) => `${c.name} (per ${c.level})`).join(', ')}.`] : []),
    ...result.warnings.slice(0, 10).map((w) => `Warning, line ${w.line}${w.path ? ` (${w.path})` : ''}: ${w.message}`),
    ...(result.warnings.length > 10 ? [`… and ${result.warnings.length - 10} more warnings`] : []),
    '',
    `First ${Math.min(n, result.items.length)} of ${result.items.length} items:`,
    '',
    previewItems(result.items, n, 120, r),
    '',
    'Mapping (save it as mapping.json to import the same way from the command line:',
    `reflect-eval import generic ${file} --mapping mapping.json -o out.dialogues.jsonl):`,
    '',
    JSON.stringify(result.mapping, null, 2),
  ];
  return lines.join('\n') + '\n';
}
