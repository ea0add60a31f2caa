/**
 * An error-category judge (prompts/requests/error-categories.mustache) against the experts' error labels, one
 * category at a time: for each of the first study's categories (GEM 2022 §4; ACL 2023 §3), "does it apply to this
 * candidate?" as the judge says it and as the majority of the group's annotators say it, compared by Cohen's kappa
 * (Cohen 1960, unweighted, two categories; {@link cohenKappa}), precision, recall and F1 of "applies"; and the most
 * evident error (MEE, GEM 2022 §5.1 with its filling rule) against the majority MEE.
 *
 * The majority is the first study's majority vote (GEM 2022 §5.2–5.3, {@link majorityVote}): strictly more than half
 * of the annotators who answered the coherence question. An annotator who said coherent votes "does not apply" for
 * every category and "none" for the MEE; an incoherent annotator without an MEE (several errors, none marked) casts
 * no MEE vote. A tie leaves the candidate out of that category's comparison (counted as `noMajority`).
 */
import type { DialogueItem, ErrorCategory } from '../dialogue/types';
import { DEFAULT_GROUP_RULES, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';
import { ERROR_CATEGORIES, ERROR_LABELS, errorLabel, majorityVote } from '../labels/scheme';
import { isReferenceSelfScore } from '../correlation/ceiling';
import { cohenKappa, type CohenKappaResult } from '../agreement/cohenKappa';
import type { PlainTable } from './metaEvaluationExport';
import type { IntervalMethod } from '../stats/bootstrap';

/** One category's comparison ("applies" is the positive class). */
export interface CategoryAgreement {
  category: ErrorCategory;
  /** Candidates with both a judge answer and a majority. */
  n: number;
  truePositive: number;
  falsePositive: number;
  falseNegative: number;
  trueNegative: number;
  /** Cohen's kappa between the majority (rater A) and the judge (rater B), categories ['no', 'yes']. */
  kappa: CohenKappaResult;
  /** TP / (TP + FP): of the candidates the judge flags, the share the majority flags; null when the judge never flags. */
  precision: number | null;
  /** TP / (TP + FN): of the candidates the majority flags, the share the judge flags; null when the majority never flags. */
  recall: number | null;
  /** 2PR / (P + R), or null when either is null or both are 0. */
  f1: number | null;
  /** Candidates left out because the annotators tie on this category. */
  noMajority: number;
}

/** The whole comparison of one judge. */
export interface ErrorCategoryAgreement {
  evaluatorId: string;
  group: HumanGroup;
  categories: CategoryAgreement[];
  /** Most evident error (with "none" for coherent) against the majority MEE: unweighted kappa over 7 labels. */
  mostEvidentError: { n: number; agreement: number | null; kappa: CohenKappaResult; noMajority: number; judgeWithoutMee: number };
  /** Labelled candidates without a usable error-category answer (unparsable, failed, not judged, or not such a score). */
  unscored: number;
  /** Labelled candidates (at least one coherence answer from the group). */
  labelled: number;
}

/** The error-category answer stored on a score, or null when the score is not a usable one. */
export function judgedErrorCategories(score: unknown): { categories: ErrorCategory[]; mostEvidentError?: ErrorCategory } | null {
  const s = score as { status?: string; categories?: unknown; mostEvidentError?: unknown } | undefined;
  if (!s || s.status !== 'ok' || !Array.isArray(s.categories)) return null;
  return { categories: s.categories as ErrorCategory[], ...(typeof s.mostEvidentError === 'string' ? { mostEvidentError: s.mostEvidentError as ErrorCategory } : {}) };
}

/**
 * The evaluators of a file whose scores are error-category answers (at least one candidate carries a usable one),
 * in order of first appearance.
 */
export function errorCategoryEvaluators(items: readonly DialogueItem[]): string[] {
  const ids = new Set<string>();
  for (const it of items) for (const c of it.candidates) for (const [id, score] of Object.entries(c.scores ?? {})) if (!ids.has(id) && judgedErrorCategories(score)) ids.add(id);
  return [...ids];
}

/**
 * Compares an error-category judge's answers with the majority error labels of a group, per category and for the MEE.
 *
 * @param evaluatorId - the judge's evaluator id (its scores carry `categories`, `mostEvidentError`)
 * @param options.group - whose labels make the majority (default `experts`)
 * @param options.bootstrap - percentile intervals of each kappa, resampling dialogue items (clusters)
 * @returns per category n, the 2 × 2 counts, kappa, precision, recall and F1; the MEE comparison
 */
export function errorCategoryAgreement(
  items: readonly DialogueItem[],
  evaluatorId: string,
  options: { group?: HumanGroup; groupRules?: GroupRules; bootstrap?: { resamples: number; seed: number | string; level?: number; interval?: IntervalMethod } } = {},
): ErrorCategoryAgreement {
  const group = options.group ?? 'experts';
  const keep = inGroup(group, options.groupRules ?? DEFAULT_GROUP_RULES);
  const perCategory = new Map<ErrorCategory, { actual: string[]; predicted: string[]; clusters: string[]; noMajority: number }>(
    ERROR_CATEGORIES.map((c) => [c, { actual: [], predicted: [], clusters: [], noMajority: 0 }]),
  );
  const mee = { actual: [] as string[], predicted: [] as string[], clusters: [] as string[], noMajority: 0, judgeWithoutMee: 0 };
  let unscored = 0;
  let labelled = 0;
  for (const it of items) {
    for (const c of it.candidates) {
      const labels = c.annotations.filter((a) => typeof a.coherent === 'boolean' && keep(a)).map(errorLabel);
      if (labels.length === 0) continue;
      labelled++;
      const judged = isReferenceSelfScore(it, c, evaluatorId) ? null : judgedErrorCategories(c.scores?.[evaluatorId]);
      if (!judged) {
        unscored++;
        continue;
      }
      for (const cat of ERROR_CATEGORIES) {
        const slot = perCategory.get(cat)!;
        const m = majorityVote(labels.map((l) => l.errors.includes(cat)));
        if (m.value === null) {
          slot.noMajority++;
          continue;
        }
        slot.actual.push(m.value ? 'yes' : 'no');
        slot.predicted.push(judged.categories.includes(cat) ? 'yes' : 'no');
        slot.clusters.push(it.id);
      }
      const m = majorityVote(labels.map((l) => (l.incoherent ? l.mostEvidentError : 'none')));
      if (m.value === null) {
        mee.noMajority++;
        continue;
      }
      const said = judged.categories.length === 0 ? 'none' : judged.mostEvidentError;
      if (!said) {
        mee.judgeWithoutMee++;
        continue;
      }
      mee.actual.push(m.value);
      mee.predicted.push(said);
      mee.clusters.push(it.id);
    }
  }
  const boot = (clusters: string[]) => (options.bootstrap ? { bootstrap: { ...options.bootstrap, clusters } } : {});
  const categories = ERROR_CATEGORIES.map((category): CategoryAgreement => {
    const s = perCategory.get(category)!;
    let tp = 0;
    let fp = 0;
    let fn = 0;
    let tn = 0;
    s.actual.forEach((a, i) => {
      const p = s.predicted[i];
      if (p === 'yes') a === 'yes' ? tp++ : fp++;
      else a === 'yes' ? fn++ : tn++;
    });
    const precision = tp + fp ? tp / (tp + fp) : null;
    const recall = tp + fn ? tp / (tp + fn) : null;
    return {
      category,
      n: s.actual.length,
      truePositive: tp,
      falsePositive: fp,
      falseNegative: fn,
      trueNegative: tn,
      kappa: cohenKappa(s.actual, s.predicted, { categories: ['no', 'yes'], ...boot(s.clusters) }),
      precision,
      recall,
      f1: precision !== null && recall !== null && precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : null,
      noMajority: s.noMajority,
    };
  });
  const agree = mee.actual.filter((a, i) => a === mee.predicted[i]).length;
  return {
    evaluatorId,
    group,
    categories,
    mostEvidentError: {
      n: mee.actual.length,
      agreement: mee.actual.length ? agree / mee.actual.length : null,
      kappa: cohenKappa(mee.actual, mee.predicted, { categories: ['none', ...ERROR_CATEGORIES], ...boot(mee.clusters) }),
      noMajority: mee.noMajority,
      judgeWithoutMee: mee.judgeWithoutMee,
    },
    unscored,
    labelled,
  };
}

/** The comparison as a table for text, Markdown, LaTeX or CSV export (one row per category, then the MEE). */
export function errorCategoryAgreementPlainTable(r: ErrorCategoryAgreement, displayName: string): PlainTable {
  return {
    title: `${displayName}: error categories against the majority of the ${r.group} (positive class: the category applies)`,
    columns: ['category', 'n', 'majority yes', 'judge yes', 'TP', "Cohen's kappa", 'precision', 'recall', 'F1'],
    rows: [
      ...r.categories.map((c) => [ERROR_LABELS[c.category], c.n, c.truePositive + c.falseNegative, c.truePositive + c.falsePositive, c.truePositive, { value: c.kappa.kappa, ci: c.kappa.ci }, c.precision, c.recall, c.f1]),
      ['most evident error (with none)', r.mostEvidentError.n, '', '', '', { value: r.mostEvidentError.kappa.kappa, ci: r.mostEvidentError.kappa.ci }, '', '', ''],
    ],
    notes: [
      `${r.labelled} labelled candidates; ${r.unscored} without a usable error-category answer are left out.`,
      `Ties left out per category: ${r.categories.map((c) => `${ERROR_LABELS[c.category]} ${c.noMajority}`).join(', ')}; MEE: ${r.mostEvidentError.noMajority} ties, ${r.mostEvidentError.judgeWithoutMee} where the judge named several categories but no MEE; MEE exact agreement ${r.mostEvidentError.agreement === null ? '–' : r.mostEvidentError.agreement.toFixed(3)}.`,
      "Kappa: Cohen (1960), unweighted, majority vs judge; '–' where undefined (one label throughout). Majority: strictly more than half of the group's annotators (GEM 2022 §5.2).",
    ],
  };
}
