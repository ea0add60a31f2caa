/**
 * The inter-annotator agreement table of the first study (Wu et al., GEM 2022, §5.1, Table 4): Fleiss' kappa
 * and the number of subjects for coherence, empathy and the most evident error, original and derived.
 */
import { DEFAULT_GROUP_RULES, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';
import type { Annotation, DialogueItem, LikertAgreement } from '../dialogue/types';
import { fleissKappa, ratingCounts } from './fleiss';
import {
  ERROR_CATEGORIES,
  MERGED_ERROR_CATEGORIES,
  MERGED_LIKERT,
  consensusAdjustedMostEvidentErrors,
  errorLabel,
  mergeLikert,
  mergedErrorLabel,
  type ErrorLabel,
} from '../labels/scheme';

/** The rows of Table 4, in the paper's order. */
export type AgreementKey =
  | 'coherence'
  | 'empathy'
  | 'mostEvidentError'
  | 'consensusMostEvidentError'
  | 'empathyMerged'
  | 'mostEvidentErrorMerged'
  | 'consensusMostEvidentErrorMerged';

/** Row order and labels of Table 4 ("(M)": involves category merging). */
export const AGREEMENT_ROWS: readonly { key: AgreementKey; label: string; derived: boolean; merged: boolean }[] = [
  { key: 'coherence', label: 'Coherent & consistent?', derived: false, merged: false },
  { key: 'empathy', label: 'Empathetic?', derived: false, merged: false },
  { key: 'mostEvidentError', label: 'Most evident error', derived: false, merged: false },
  { key: 'consensusMostEvidentError', label: 'Consensus-adjusted most evident error', derived: true, merged: false },
  { key: 'empathyMerged', label: 'Empathetic? (M)', derived: true, merged: true },
  { key: 'mostEvidentErrorMerged', label: 'Most evident error (M)', derived: true, merged: true },
  { key: 'consensusMostEvidentErrorMerged', label: 'Consensus-adjusted most evident error (M)', derived: true, merged: true },
];

/** One row of the agreement table. */
export interface AgreementRow {
  key: AgreementKey;
  /** Table 4's wording. */
  label: string;
  /** Derived from the original labels (consensus adjustment or merging). */
  derived: boolean;
  /** Involves category merging. */
  merged: boolean;
  /** Fleiss' kappa, or null when undefined (see `undefinedReason`). */
  kappa: number | null;
  undefinedReason?: string;
  /** #Sub: subjects (responses) the kappa is computed over. */
  subjects: number;
  /** Ratings per subject (n). */
  raters: number;
  /** Category names (column order of the count table). */
  categories: string[];
  /** Number of ratings in each category, over all subjects. */
  categoryCounts: number[];
  /** Fleiss' per-category kappas (null where undefined). */
  perCategory: (number | null)[];
  /** P̄ and P̄e (null without subjects). */
  observedAgreement: number | null;
  expectedAgreement: number | null;
  /** Responses that met the row's condition but were left out, by reason (e.g. an incoherent label without an MEE). */
  leftOut: Record<string, number>;
}

/** The agreement table of one annotator group. */
export interface AgreementTable {
  group: HumanGroup;
  /** Ratings per subject n used for every row; null when nobody in the group labelled anything. */
  raters: number | null;
  /** Annotator ids of the group that have at least one coherence label. */
  annotators: string[];
  /** Responses with at least one coherence label from the group. */
  labelledResponses: number;
  /**
   * Responses left out of every row because their number of coherence labels differs from `raters`
   * (Fleiss' kappa needs the same number of ratings per subject), by reason.
   */
  leftOut: Record<string, number>;
  rows: AgreementRow[];
}

/** Options of {@link agreementTable}. */
export interface AgreementOptions {
  /** Whose labels count (default `all`). */
  group?: HumanGroup;
  groupRules?: GroupRules;
  /**
   * Ratings per subject n. Default: the most common number of coherence labels per labelled response (the
   * larger on a tie). Responses with another number of labels are left out and counted in `leftOut`.
   */
  raters?: number;
}

function bump(m: Record<string, number>, reason: string): void {
  m[reason] = (m[reason] ?? 0) + 1;
}

/** A row from subjects' ratings (or the reason there is no kappa). */
function row<C extends string | number>(
  spec: (typeof AGREEMENT_ROWS)[number],
  ratings: C[][],
  categories: readonly C[],
  raters: number,
  leftOut: Record<string, number>,
  names: (c: C) => string = String,
): AgreementRow {
  const { counts } = ratingCounts(ratings, categories);
  const categoryCounts = categories.map((_, j) => counts.reduce((s, r) => s + r[j], 0));
  const base = { ...spec, subjects: ratings.length, raters, categories: categories.map(names), categoryCounts, leftOut };
  if (ratings.length === 0) {
    return { ...base, kappa: null, undefinedReason: 'no subjects', perCategory: categories.map(() => null), observedAgreement: null, expectedAgreement: null };
  }
  const k = fleissKappa(counts);
  return {
    ...base,
    kappa: k.kappa,
    ...(k.undefinedReason ? { undefinedReason: k.undefinedReason } : {}),
    perCategory: k.perCategory,
    observedAgreement: k.observedAgreement,
    expectedAgreement: k.expectedAgreement,
  };
}

/** The most common value (the larger on a tie), or null for an empty list. */
function modalCount(ns: number[]): number | null {
  const freq = new Map<number, number>();
  for (const n of ns) freq.set(n, (freq.get(n) ?? 0) + 1);
  let best: number | null = null;
  let bestF = 0;
  for (const [n, f] of freq) if (f > bestF || (f === bestF && best !== null && n > best)) [best, bestF] = [n, f];
  return best;
}

/**
 * Table 4 of the first study for one annotator group: Fleiss' kappa (Fleiss 1971) with its number of subjects
 * for
 * - **Coherent & consistent?** over every response with n coherence labels;
 * - **Empathetic?** over responses all n annotators called coherent, on the 5-point scale;
 * - **Most evident error** over responses all n annotators called incoherent, with MEE filling (a single chosen
 *   error is the MEE);
 * - the derived rows: **consensus-adjusted MEE** (`consensusAdjustedMostEvidentErrors`), and the **(M)** rows
 *   with category merging (Hallucinatory; Likert {1,2} → disagree, {4,5} → agree), consensus sought among the
 *   merged categories.
 *
 * Subjects are candidates (every candidate with labels, the reference included, as the study's 150 responses
 * include the 15 ground truths). Labels propagated through clusters are not annotations and do not count.
 * A response that meets a row's condition but lacks a value (a coherent label without an empathy rating, an
 * incoherent one without a filled MEE) is left out of that row and counted in its `leftOut`; responses whose
 * number of coherence labels is not n are left out of every row and counted in the table's `leftOut`.
 */
export function agreementTable(items: readonly DialogueItem[], options: AgreementOptions = {}): AgreementTable {
  const group = options.group ?? 'all';
  const keep = inGroup(group, options.groupRules ?? DEFAULT_GROUP_RULES);
  const subjects: Annotation[][] = [];
  const annotators = new Set<string>();
  for (const item of items) {
    for (const c of item.candidates) {
      const labelled = c.annotations.filter((a) => typeof a.coherent === 'boolean' && keep(a));
      if (labelled.length === 0) continue;
      for (const a of labelled) annotators.add(a.annotator);
      subjects.push(labelled);
    }
  }
  const n = options.raters ?? modalCount(subjects.map((s) => s.length));
  const tableLeftOut: Record<string, number> = {};
  const complete = subjects.filter((s) => {
    if (s.length === n) return true;
    bump(tableLeftOut, `${s.length} coherence label${s.length === 1 ? '' : 's'} instead of ${n}`);
    return false;
  });
  if (n === null || (options.raters === undefined && n < 2)) {
    return { group, raters: n, annotators: [...annotators].sort(), labelledResponses: subjects.length, leftOut: tableLeftOut, rows: [] };
  }
  if (!Number.isInteger(n) || n < 2) throw new RangeError(`raters must be an integer ≥ 2, got ${n}`);

  const spec = (key: AgreementKey) => AGREEMENT_ROWS.find((r) => r.key === key)!;
  const coherence = complete.map((s) => s.map((a) => (a.coherent ? 'coherent' : 'incoherent')));

  const allCoherent = complete.filter((s) => s.every((a) => a.coherent));
  const empathyLeft: Record<string, number> = {};
  const empathy: LikertAgreement[][] = [];
  for (const s of allCoherent) {
    if (s.every((a) => isLikert(a.empathy))) empathy.push(s.map((a) => a.empathy as LikertAgreement));
    else bump(empathyLeft, 'a coherent label without an empathy rating (1–5)');
  }

  const allIncoherent = complete.filter((s) => s.every((a) => a.coherent === false));
  const meeRows = (labels: ErrorLabel<string>[][], consensus: boolean) => {
    const left: Record<string, number> = {};
    const ratings: string[][] = [];
    for (const s of labels) {
      const mees = consensus ? consensusAdjustedMostEvidentErrors(s) : s.map((l) => l.mostEvidentError);
      if (mees.every((m) => m !== undefined)) ratings.push(mees as string[]);
      else bump(left, 'an incoherent label without a most evident error (several errors, none marked most evident, or no error)');
    }
    return { ratings, left };
  };
  const original = allIncoherent.map((s) => s.map(errorLabel));
  const merged = allIncoherent.map((s) => s.map(mergedErrorLabel));
  const mee = meeRows(original, false);
  const cmee = meeRows(original, true);
  const meeM = meeRows(merged, false);
  const cmeeM = meeRows(merged, true);

  const rows: AgreementRow[] = [
    row(spec('coherence'), coherence, ['coherent', 'incoherent'], n, {}),
    row(spec('empathy'), empathy, [1, 2, 3, 4, 5] as LikertAgreement[], n, empathyLeft),
    row(spec('mostEvidentError'), mee.ratings, ERROR_CATEGORIES as string[], n, mee.left),
    row(spec('consensusMostEvidentError'), cmee.ratings, ERROR_CATEGORIES as string[], n, cmee.left),
    row(spec('empathyMerged'), empathy.map((s) => s.map(mergeLikert)), MERGED_LIKERT as string[], n, { ...empathyLeft }),
    row(spec('mostEvidentErrorMerged'), meeM.ratings, MERGED_ERROR_CATEGORIES as string[], n, meeM.left),
    row(spec('consensusMostEvidentErrorMerged'), cmeeM.ratings, MERGED_ERROR_CATEGORIES as string[], n, cmeeM.left),
  ];
  return { group, raters: n, annotators: [...annotators].sort(), labelledResponses: subjects.length, leftOut: tableLeftOut, rows };
}

function isLikert(v: unknown): v is LikertAgreement {
  return v === 1 || v === 2 || v === 3 || v === 4 || v === 5;
}
