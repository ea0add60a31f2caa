/**
 * The long annotation-table layout of the Wu et al. ACL 2023 laypeople-vs-experts release ("Are Experts Needed?
 * On Human Evaluation of Counselling Reflection Generation", `annotations.csv`): one row per (reflection,
 * annotator). Shared by the importer (`importTable.ts`) and the exporter (`exportTable.ts`).
 */
import type { ErrorCategory, LikertAgreement } from '../dialogue/types';

/** The release's columns, in its order. */
export const ANNOTATION_TABLE_COLUMNS = [
  'annomi_dialogue_id',
  'stage',
  'dialogue_context',
  'reflection_source',
  'reflection',
  'annotator',
  'coherent_and_context_consistent',
  'dialogue_contradicting',
  'malformed',
  'off_topic',
  'on_topic_but_unverifiable',
  'parroting',
] as const;

export type AnnotationTableColumn = (typeof ANNOTATION_TABLE_COLUMNS)[number];

/** Error columns of the release and the categories they hold (Yes/No, empty when coherent). */
export const ERROR_COLUMNS: Readonly<Record<string, ErrorCategory>> = {
  dialogue_contradicting: 'dialogueContradicting',
  malformed: 'malformed',
  off_topic: 'offTopic',
  on_topic_but_unverifiable: 'onTopicButUnverifiable',
  parroting: 'parroting',
};

/**
 * Columns the release does not have but ReflectEval reads and writes when a table has them (the first study's
 * labels). Keys are our canonical names; values are the header spellings accepted (after normalisation:
 * lower case, runs of spaces/hyphens/dots → `_`).
 */
export const OPTIONAL_COLUMNS = {
  most_evident_error: ['most_evident_error', 'mee', 'most_evident', 'most_evident_error_category'],
  other: ['other', 'other_error'],
  other_text: ['other_text', 'other_error_text', 'other_description', 'other_explanation'],
  empathy: ['empathy', 'empathetic', 'empathy_rating', 'empathy_likert', 'empathy_agreement'],
  annotator_group: ['annotator_group', 'group'],
} as const;

export type OptionalColumn = keyof typeof OPTIONAL_COLUMNS;

/** Header normalisation used to match column names: trim, lower case, spaces/hyphens/dots → `_`. */
export function normaliseHeader(h: string): string {
  return h
    .replace(/^\ufeff/, '')
    .trim()
    .toLowerCase()
    .replace(/[\s\-.]+/g, '_');
}

/** Default `reflection_source` values that mean a human-written response (compared case-insensitively, trimmed). */
export const DEFAULT_HUMAN_SOURCES: readonly string[] = [
  'Human',
  'human-written',
  'Ground truth',
  'ground-truth',
  'groundtruth',
  'Gold',
  'gold standard',
  'gold-standard',
  'Reference',
  'Therapist',
  'Original',
  'AnnoMI',
];

/** Default prefix of expert annotator names (the release names them `Expert 1` … `Expert 9`). */
export const DEFAULT_EXPERT_PREFIX = 'Expert';

/** Cell values read as "no answer" (pandas writes NaN as an empty cell; the README says N/A). */
const EMPTY = new Set(['', 'n/a', 'na', 'nan', 'none', 'null', '-', '—']);

/** True for a cell that holds no answer. */
export function isEmptyCell(v: string): boolean {
  return EMPTY.has(v.trim().toLowerCase());
}

/**
 * Reads a Yes/No cell: `yes`/`y`/`true`/`1` and `no`/`n`/`false`/`0` in any case and surrounding whitespace;
 * empty and N/A-like cells are `undefined`.
 *
 * @throws Error (message only; the caller adds file, line and column) on anything else
 */
export function parseYesNo(v: string): boolean | undefined {
  const s = v.trim().toLowerCase();
  if (EMPTY.has(s)) return undefined;
  if (s === 'yes' || s === 'y' || s === 'true' || s === '1') return true;
  if (s === 'no' || s === 'n' || s === 'false' || s === '0') return false;
  throw new Error(`expected Yes or No, got ${JSON.stringify(v)}`);
}

const CATEGORY_NAMES: Record<string, ErrorCategory> = {
  malformed: 'malformed',
  dialoguecontradicting: 'dialogueContradicting',
  contradicting: 'dialogueContradicting',
  parroting: 'parroting',
  offtopic: 'offTopic',
  ontopicbutunverifiable: 'onTopicButUnverifiable',
  unverifiable: 'onTopicButUnverifiable',
  other: 'other',
};

/**
 * Reads an error category written in any of the usual spellings ("On-topic but unverifiable",
 * `on_topic_but_unverifiable`, `onTopicButUnverifiable`, …); empty cells are `undefined`.
 *
 * @throws Error on an unknown category
 */
export function parseErrorCategory(v: string): ErrorCategory | undefined {
  if (isEmptyCell(v)) return undefined;
  const key = v.toLowerCase().replace(/[^a-z]/g, '');
  const c = CATEGORY_NAMES[key];
  if (!c) {
    throw new Error(`unknown error category ${JSON.stringify(v)} (expected one of Malformed, Dialogue-contradicting, Parroting, Off-topic, On-topic but unverifiable, Other)`);
  }
  return c;
}

const LIKERT_WORDS: Record<string, LikertAgreement> = {
  disagree: 1,
  stronglydisagree: 1,
  somewhatdisagree: 2,
  neitheragreenordisagree: 3,
  neither: 3,
  neutral: 3,
  somewhatagree: 4,
  agree: 5,
  stronglyagree: 5,
};

/**
 * Reads the empathy statement agreement (first study §4.2.3): 1–5, or the scale's words ("somewhat agree");
 * empty cells are `undefined`.
 *
 * @throws Error on anything else
 */
export function parseLikert(v: string): LikertAgreement | undefined {
  if (isEmptyCell(v)) return undefined;
  const s = v.trim();
  if (/^[1-5](\.0+)?$/.test(s)) return Number(s) as LikertAgreement;
  const w = LIKERT_WORDS[s.toLowerCase().replace(/[^a-z]/g, '')];
  if (w) return w;
  throw new Error(`expected an agreement of 1–5 (1 disagree … 5 agree), got ${JSON.stringify(v)}`);
}

/**
 * Writes a string as Python's `json.dumps` would (ASCII only: non-ASCII as `\uXXXX`), so exported contexts look
 * like the release's and load with `json.loads`.
 */
export function pythonJsonString(s: string): string {
  return JSON.stringify(s).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A problem in a table: where it is and what is wrong. */
export interface TableProblem {
  /** 1-based physical line where the record starts (the header is line 1). */
  line: number;
  /** 1-based record number counting the header as row 1, as a spreadsheet shows it (differs from `line` after quoted line breaks). */
  row: number;
  /** The column, when one is to blame. */
  column?: string;
  /** JSON and JSON Lines: where the value is (`[3].responses[2].Overall[1]`); shown instead of the row and column. */
  path?: string;
  message: string;
}

/** Error reading an annotation table: every problem found, each with its line, row and column. */
export class AnnotationTableError extends Error {
  constructor(
    readonly file: string,
    readonly problems: TableProblem[],
  ) {
    const where = (p: TableProblem) => (p.path ? `at ${p.path}` : [p.row !== p.line ? `row ${p.row}` : '', p.column ? `column "${p.column}"` : ''].filter(Boolean).join(', '));
    const shown = problems.slice(0, 20).map((p) => `${file}:${p.line}: ${where(p) ? `${where(p)}: ` : ''}${p.message}`);
    if (problems.length > shown.length) shown.push(`… and ${problems.length - shown.length} more problem(s)`);
    super(problems.length === 1 ? shown[0] : `${problems.length} problems in ${file}:\n${shown.join('\n')}`);
    this.name = 'AnnotationTableError';
  }
}
