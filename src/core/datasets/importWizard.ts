/**
 * What the VS Code import wizard ("ReflectEval: Import Dataset (CSV/JSONL)…") computes, without VS Code: the
 * column choices for a role (the guessed column first, each with sample values), the speaker values the mapping
 * does not know yet, the mapping built from the answers, and the preview document.
 */
import type { DatasetImportResult, Dataset } from './genericImport';
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

const KNOWN_SPEAKERS = new Set(['therapist', 'counsellor', 'counselor', 'client', 'patient']);

/**
 * The values of the speaker column (turn rows: rows whose response column is empty) that are not a known speaker
 * spelling, in order of first appearance: the wizard asks whether each is the therapist or the client.
 */
export function unknownSpeakers(data: Dataset, speakerColumn: string, responseColumn: string): string[] {
  const out: string[] = [];
  for (const r of data.records) {
    const response = r.value(responseColumn);
    if (typeof response === 'string' ? response.trim() : response !== undefined && response !== null) continue;
    const v = String(r.value(speakerColumn) ?? '').trim();
    if (v && !KNOWN_SPEAKERS.has(v.toLowerCase()) && !out.some((x) => x.toLowerCase() === v.toLowerCase())) out.push(v);
  }
  return out;
}

/** The wizard's answers. */
export interface WizardAnswers {
  format: 'csv' | 'jsonl';
  dataset?: string;
  context: DatasetMapping['context'];
  /** json layout: columns identifying an item (optional). */
  itemId?: string[];
  speakers?: DatasetMapping['speakers'];
  responseText: string;
  source?: string;
  sourceName?: string;
  reference: { kind: 'none' } | { kind: 'column'; column: string } | { kind: 'human' };
  labels: { kind: 'none' } | { kind: 'long'; annotator: string; coherent: string } | { kind: 'wide'; columns: string[] };
}

/**
 * The mapping of the answers. The guessed mapping contributes what the wizard does not ask about: long labels'
 * error, group, MEE and empathy columns (when the annotator and coherence columns are the guessed ones).
 */
export function mappingFromAnswers(a: WizardAnswers, guessed?: DatasetMapping): DatasetMapping {
  const m: DatasetMapping = { format: a.format, ...(a.dataset ? { dataset: a.dataset } : {}), context: a.context, response: { text: a.responseText } };
  if (a.itemId?.length && a.context.layout === 'json') m.itemId = a.itemId;
  if (a.speakers && (a.speakers.therapist?.length || a.speakers.client?.length)) m.speakers = a.speakers;
  if (a.source) m.response.source = a.source;
  else if (a.sourceName) m.response.sourceName = a.sourceName;
  if (a.reference.kind === 'column') m.reference = { column: a.reference.column };
  else if (a.reference.kind === 'human') m.reference = { fromHumanResponse: true };
  if (a.labels.kind === 'long') {
    const g = guessed?.labels?.layout === 'long' && guessed.labels.annotator === a.labels.annotator && guessed.labels.coherent === a.labels.coherent ? guessed.labels : undefined;
    m.labels = { ...(g ?? {}), layout: 'long', annotator: a.labels.annotator, coherent: a.labels.coherent };
  } else if (a.labels.kind === 'wide') m.labels = { layout: 'wide', coherent: a.labels.columns };
  return m;
}

/** The preview document: what was read, the mapping (to reuse with `reflect-eval import generic --mapping`), the first items. */
export function previewDocument(result: DatasetImportResult, file: string, n = 5): string {
  const candidates = result.items.reduce((s, it) => s + it.candidates.length, 0);
  const labelled = result.items.reduce((s, it) => s + it.candidates.filter((c) => c.annotations.length).length, 0);
  const experts = result.annotators.filter((a) => a.group === 'expert').length;
  const lines = [
    `Preview of ${file}: ${result.records} records → ${result.items.length} contexts, ${candidates} responses (${labelled} labelled), ` +
      `${result.annotators.length} annotators (${experts} experts), ${result.items.filter((i) => i.reference).length} references.`,
    ...(result.keptColumns.length ? [`Kept unmapped columns: ${result.keptColumns.map((c) => `${c.name} (per ${c.level})`).join(', ')}.`] : []),
    ...result.warnings.slice(0, 10).map((w) => `Warning, line ${w.line}: ${w.message}`),
    ...(result.warnings.length > 10 ? [`… and ${result.warnings.length - 10} more warnings`] : []),
    '',
    `First ${Math.min(n, result.items.length)} of ${result.items.length} items:`,
    '',
    previewItems(result.items, n),
    '',
    'Mapping (save it as mapping.json to import the same way from the command line:',
    `reflect-eval import generic ${file} --mapping mapping.json -o out.dialogues.jsonl):`,
    '',
    JSON.stringify(result.mapping, null, 2),
  ];
  return lines.join('\n') + '\n';
}
