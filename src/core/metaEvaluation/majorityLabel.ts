/**
 * An evaluator against the majority human label at a threshold: the confusion matrix, Cohen's kappa, and the
 * precision and recall of "incoherent" (the figures LLM-judge users ask for). A score at or above the threshold
 * means "coherent". The majority label is the first study's majority vote (GEM 2022 §5.2): strictly more than half
 * of the group's coherence labels; a tie is "no majority" and left out.
 */
import type { DialogueItem } from '../dialogue/types';
import { DEFAULT_GROUP_RULES, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';
import { usableScore } from '../correlation/ceiling';
import { cohenKappa, type CohenKappaResult } from '../agreement/cohenKappa';
import type { IntervalMethod } from '../stats/bootstrap';

/** Counts with "incoherent" as the positive class. */
export interface ConfusionMatrix {
  /** Evaluator incoherent, majority incoherent. */
  truePositive: number;
  /** Evaluator incoherent, majority coherent. */
  falsePositive: number;
  /** Evaluator coherent, majority incoherent. */
  falseNegative: number;
  /** Evaluator coherent, majority coherent. */
  trueNegative: number;
}

/** The comparison at one threshold. */
export interface MajorityComparison {
  evaluatorId: string;
  group: HumanGroup;
  /** Score ≥ threshold → coherent. */
  threshold: number;
  /** Candidates with a usable score and a majority label. */
  n: number;
  /** Left out: a tie among the group's labels. */
  noMajority: number;
  /** Left out: a majority label but no usable score. */
  unscored: number;
  confusion: ConfusionMatrix;
  /** Cohen's kappa between the evaluator's label and the majority label (unweighted; `ci` over dialogue items with a bootstrap). */
  kappa: CohenKappaResult;
  /** TP / (TP + FP), or null when the evaluator never says incoherent. */
  precisionIncoherent: number | null;
  /** TP / (TP + FN), or null when the majority never says incoherent. */
  recallIncoherent: number | null;
  /** Harmonic mean of the two, or null. */
  f1Incoherent: number | null;
  /** (TP + TN) / n, or null without candidates. */
  accuracy: number | null;
}

/** The majority coherence label of a candidate's group labels: true, false, or null (tie or no label). */
export function majorityCoherence(labels: readonly boolean[]): boolean | null {
  const yes = labels.filter(Boolean).length;
  const no = labels.length - yes;
  return yes > no ? true : no > yes ? false : null;
}

/**
 * The evaluator's labels (score ≥ threshold → coherent) against the majority label of the group's annotators.
 *
 * @throws RangeError on a non-finite threshold
 */
export function evaluatorVsMajority(items: readonly DialogueItem[], evaluatorId: string, options: { threshold: number; group?: HumanGroup; groupRules?: GroupRules; bootstrap?: { resamples: number; seed: number | string; level?: number; interval?: IntervalMethod } }): MajorityComparison {
  if (!Number.isFinite(options.threshold)) throw new RangeError(`the threshold must be a finite number, got ${options.threshold}`);
  const group = options.group ?? 'experts';
  const keep = inGroup(group, options.groupRules ?? DEFAULT_GROUP_RULES);
  const predicted: string[] = [];
  const actual: string[] = [];
  const clusters: string[] = [];
  let noMajority = 0;
  let unscored = 0;
  for (const it of items) {
    for (const c of it.candidates) {
      const labels = c.annotations.filter((a) => typeof a.coherent === 'boolean' && keep(a)).map((a) => a.coherent as boolean);
      if (labels.length === 0) continue;
      const m = majorityCoherence(labels);
      if (m === null) {
        noMajority++;
        continue;
      }
      const s = usableScore(it, c, evaluatorId);
      if (s === null) {
        unscored++;
        continue;
      }
      predicted.push(s >= options.threshold ? 'coherent' : 'incoherent');
      actual.push(m ? 'coherent' : 'incoherent');
      clusters.push(it.id);
    }
  }
  const confusion: ConfusionMatrix = { truePositive: 0, falsePositive: 0, falseNegative: 0, trueNegative: 0 };
  predicted.forEach((p, i) => {
    const a = actual[i];
    if (p === 'incoherent') a === 'incoherent' ? confusion.truePositive++ : confusion.falsePositive++;
    else a === 'incoherent' ? confusion.falseNegative++ : confusion.trueNegative++;
  });
  const { truePositive: tp, falsePositive: fp, falseNegative: fn, trueNegative: tn } = confusion;
  const precision = tp + fp ? tp / (tp + fp) : null;
  const recall = tp + fn ? tp / (tp + fn) : null;
  return {
    evaluatorId,
    group,
    threshold: options.threshold,
    n: predicted.length,
    noMajority,
    unscored,
    confusion,
    kappa: cohenKappa(actual, predicted, { categories: ['coherent', 'incoherent'], ...(options.bootstrap ? { bootstrap: { ...options.bootstrap, clusters } } : {}) }),
    precisionIncoherent: precision,
    recallIncoherent: recall,
    f1Incoherent: precision !== null && recall !== null && precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : null,
    accuracy: predicted.length ? (tp + tn) / predicted.length : null,
  };
}

/**
 * The threshold that makes an evaluator call "coherent" as often as the humans do: among the distinct scores (each
 * a candidate threshold "score ≥ t → coherent"), the one whose share of coherent calls is closest to `targetShare`,
 * the larger threshold on a tie. Uses only the humans' overall rate, never a per-candidate label; for evaluators
 * without a natural cut (BLEU-4) this is the fair default.
 *
 * @throws RangeError on no scores or a share outside [0, 1]
 */
export function matchRateThreshold(scores: readonly number[], targetShare: number): number {
  if (scores.length === 0) throw new RangeError('no scores to set a threshold on');
  if (!(targetShare >= 0 && targetShare <= 1)) throw new RangeError(`the target share must be in [0, 1], got ${targetShare}`);
  const sorted = [...scores].sort((a, b) => a - b);
  const distinct = [...new Set(sorted)];
  let best = distinct[distinct.length - 1];
  let bestGap = Infinity;
  let below = 0;
  for (const t of distinct) {
    while (below < sorted.length && sorted[below] < t) below++;
    const share = (sorted.length - below) / sorted.length;
    const gap = Math.abs(share - targetShare);
    if (gap <= bestGap) [best, bestGap] = [t, gap];
  }
  return best;
}
