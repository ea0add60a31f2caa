/**
 * The known truth of each design: the population value of every statistic, computed with the project's own
 * functions on one very large study of the same design (its sampling error is stated with the results), and, for the
 * alt-test, the evaluator noise at which its advantage over every annotator is exactly ε.
 */
import { kendallTauB, pearsonR, spearmanRho } from '../../src/core/stats/correlation';
import { fleissKappa } from '../../src/core/agreement/fleiss';
import { alphaOfCounts } from '../../src/core/agreement/krippendorffAlpha';
import { ac1OfCounts } from '../../src/core/agreement/gwetAC1';
import { icc } from '../../src/core/agreement/icc';
import { valueCounts } from '../../src/core/agreement/reliabilityData';
import { generateStudy, humanScores, reliabilityMatrix, type StudyDesign } from './generate';
import type { BinaryTruth, RatingTruth } from './methods';

const arr = (v: ArrayLike<number>) => Array.from(v);

/** Population values of the binary-label statistics (a study of `contexts` contexts). */
export function binaryTruth(d: StudyDesign, contexts: number, seed = 'truth'): BinaryTruth {
  const s = generateStudy(d, seed, contexts);
  const h = arr(humanScores(s));
  const a = arr(s.a);
  const counts = valueCounts(reliabilityMatrix(s), [0, 1]);
  return {
    spearman: spearmanRho(a, h).statistic as number,
    kendall: kendallTauB(a, h).statistic as number,
    pearson: pearsonR(a, h).statistic as number,
    fleiss: fleissKappa(counts).kappa as number,
    alpha: alphaOfCounts(counts, [0, 1], 'nominal').alpha as number,
    ac1: ac1OfCounts(counts, 2).ac1 as number,
    ceiling: ceilingTruth(s),
  };
}

/** The leave-one-out ceiling's estimand: the mean over the panel of corr_Spearman(label, share of the rest who said coherent). */
function ceilingTruth(s: ReturnType<typeof generateStudy>): number {
  const p = s.design.perCandidate;
  const x: number[][] = s.design.panel.map(() => []);
  const y: number[][] = s.design.panel.map(() => []);
  for (let i = 0; i < s.context.length; i++) {
    let total = 0;
    for (let r = 0; r < p; r++) total += s.values[i * p + r];
    for (let r = 0; r < p; r++) {
      const a = s.annotators[i * p + r];
      const own = s.values[i * p + r];
      x[a].push(own);
      y[a].push((total - own) / (p - 1));
    }
  }
  const rs = x.map((xs, a) => spearmanRho(xs, y[a]).statistic as number);
  return rs.reduce((t, r) => t + r, 0) / rs.length;
}

/** Population values of the rating statistics. */
export function ratingTruth(d: StudyDesign, contexts: number, seed = 'truth'): RatingTruth {
  const s = generateStudy(d, seed, contexts);
  const scale = [1, 2, 3, 4, 5];
  const counts = valueCounts(reliabilityMatrix(s), scale);
  const p = d.perCandidate;
  const rows = Array.from({ length: s.context.length }, (_, i) => Array.from({ length: p }, (_, r) => s.values[i * p + r] as number));
  const r = icc(rows);
  return { alphaOrdinal: alphaOfCounts(counts, scale, 'ordinal').alpha as number, ac1: ac1OfCounts(counts, 5).ac1 as number, icc1: r.icc.ICC1 as number, icc1k: r.icc.ICC1k as number };
}

/** Spearman's ρ of the mean of the judge's K replies with the human score. */
export function repeatabilityTruth(d: StudyDesign, contexts: number, seed = 'truth'): number {
  const s = generateStudy(d, seed, contexts);
  const K = d.replies?.count ?? 1;
  const mean = Array.from({ length: s.context.length }, (_, i) => {
    let t = 0;
    for (let r = 0; r < K; r++) t += s.replies![i * K + r];
    return t / K;
  });
  return spearmanRho(mean, arr(humanScores(s))).statistic as number;
}

/**
 * E[d] = ρ^h − ρ^f of the alt-test for one annotator of an exchangeable panel (accuracy alignment against the other
 * annotators of the instance), on a large study: the evaluator is the study's evaluator A (a 0/1 label).
 */
export function altTestGap(d: StudyDesign, contexts: number, seed = 'truth'): number {
  const s = generateStudy(d, seed, contexts);
  const p = d.perCandidate;
  let sum = 0;
  let n = 0;
  for (let i = 0; i < s.context.length; i++) {
    for (let r = 0; r < p; r++) {
      const h = s.values[i * p + r];
      let sh = 0;
      let sf = 0;
      for (let o = 0; o < p; o++) {
        if (o === r) continue;
        sh += s.values[i * p + o] === h ? 1 : 0;
        sf += s.values[i * p + o] === s.a[i] ? 1 : 0;
      }
      sum += (sh >= sf ? 1 : 0) - (sf >= sh ? 1 : 0);
      n++;
    }
  }
  return sum / n;
}

/** The evaluator noise σ_e at which {@link altTestGap} equals ε (bisection; the gap grows with the noise). */
export function calibrateAltTest(d: StudyDesign, epsilon: number, contexts: number): number {
  let lo = 0;
  let hi = 20;
  for (let i = 0; i < 30; i++) {
    const mid = (lo + hi) / 2;
    const gap = altTestGap({ ...d, evaluator: { ...d.evaluator, noiseSd: mid } }, contexts, `calibrate-${i}`);
    if (gap < epsilon) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}
