/**
 * How many expert labels could ANY design-unbiased plan save on a pool? A bound, computed on a fully labelled
 * pool, that says whether a goal such as "30 % fewer labels than random order" is within reach at all.
 *
 * Setting (docs/labelling-plan.md, "What the design alone can buy"). Spearman's rho is h(θ) of the pool totals θ
 * (see {@link SpearmanTotals}); linearised at the pool value, an estimate's error is Σ_i (φ̂_i − φ_i) with
 * φ_i = γ·f_i the candidates' influence values (γ = ∇h(θ)). A working model of the human score given the evaluator's
 * rank gives each candidate a predicted level distribution p_k(i), hence a mean μ_i and a variance
 * σ_i² = Σ_k p_k(i) c_k(i)² − μ_i² of φ_i (c_k(i) = γ·f_i(k)).
 *
 * The bound. For any sampling design with first-order inclusion probabilities π_i and any design-unbiased
 * estimator of Σφ_i, the variance anticipated under a model in which the labels are independent with variances
 * σ_i² is at least Σ_i (1/π_i − 1) σ_i² (Godambe & Joshi 1965, "Admissibility and Bayes estimation in sampling
 * finite populations I", Ann. Math. Statist. 36; Särndal, Swensson & Wretman 1992, Model Assisted Survey
 * Sampling, on optimal designs). With n labels (Σπ_i = n) it is smallest for π_i = min(1, c·σ_i) (the Neyman
 * allocation, with take-all units where c·σ_i would exceed 1; a Lagrange argument). For simple random sampling
 * (π_i = n/N) it is (N/n − 1)·Σσ_i², which the model-assisted difference estimator under simple random sampling
 * without replacement attains exactly (N²(1 − n/N)/n times the anticipated S_e² = Σσ_i²/N). So, for a target
 * variance V, the fewest labels any design-unbiased plan can need is the n at which the Neyman bound reaches V, against
 * N·Σσ²/(V + Σσ²) for random order with the same model: their ratio bounds the saving from the design alone.
 *
 * An adaptive (sequential) design is a design too; under the working model the labels are independent given the
 * scores, so once that model is known (here: an "oracle" fitted on the whole labelled pool, leaving out each
 * candidate's own label) adaptivity can learn nothing more about an unlabelled candidate. The bound is a theorem
 * for designs fixed in advance under the model; for adaptive designs it is the measure of what the design can buy,
 * not a proof.
 */
import type { DialogueItem } from '../dialogue/types';
import { normalUpperQuantile } from '../stats/confidenceSequence';
import { gridSettings, KernelLevelModel, LEVEL_MODEL_GRID, leaveOneOutLevels, leaveOneOutLogScore } from '../design/levelModel';
import { assistCoordinates, fullyLabelledPool, type PoolOptions } from './pool';
import { NeymanCurve } from '../design/neyman';

export { godambeJoshiVariance, labelsForVariance, neymanInclusion } from '../design/neyman';
export { leaveOneOutLevels } from '../design/levelModel';
import { SpearmanTotals } from './spearmanTotals';


/** Options of {@link designBound}: the pool (assisting signals are more coordinates of the working model) and the targets. */
export interface DesignBoundOptions extends PoolOptions {
  /** Fixed-n interval half-widths to report (z·√V = h). */
  halfWidths: number[];
  /** Confidence level of those intervals (default 0.95). */
  level?: number;
  /**
   * Working-model settings tried; the one whose leave-one-out predictions of the pool's labels score best (mean log
   * probability of each candidate's own level) is used (default: {@link LEVEL_MODEL_GRID}, bandwidths 0.05, 0.1,
   * 0.2, 0.4, 0.8 × priors 0.5, 2, 8, the grid plans choose their working model from).
   */
  models?: { bandwidth: number; prior: number }[];
  /** The smallest random-order label count the curve starts at (default 20). */
  minLabels?: number;
}

/** Labels needed at one target. */
export interface DesignBoundTarget {
  halfWidth: number;
  /** Random order, same (oracle) model: N·Σσ²/(V + Σσ²). */
  random: number;
  /** The Neyman design's bound: no design-unbiased plan needs fewer. */
  neyman: number;
  /** 1 − neyman / random. */
  saving: number;
}

/** What {@link designBound} returns. */
export interface DesignBoundResult {
  pool: number;
  poolValue: number;
  /** The working model used: the best leave-one-out predictor of the pool's labels among those tried. */
  model: { bandwidth: number; prior: number };
  /** Its mean leave-one-out log probability of a candidate's own level (natural log; the level shares alone score {@link marginalLogScore}). */
  logScore: number;
  /** The same score for the pool's level shares without the candidate (no evaluator information). */
  marginalLogScore: number;
  /** Coefficient of variation of σ_i: the design gains only where σ varies. */
  sdVariation: number;
  targets: DesignBoundTarget[];
  /** The largest saving over targets whose random-order label count lies in [minLabels, N − 1] (at most 200 of them), and that count. */
  maxSaving: { saving: number; random: number; neyman: number };
}

/**
 * The design-only saving bound on a fully labelled pool (see the module comment): σ_i from the leave-one-out level
 * probabilities of the working model, among those tried, that best predicts the pool's own labels (leave-one-out
 * log score; a model picked for its saving would over-fit, claiming a certainty it does not have and so a saving no
 * design delivers), at the pool's own γ.
 *
 * @throws Error when fewer than 3 pool candidates are fully labelled, or the pool's correlation is undefined
 */
export function designBound(items: readonly DialogueItem[], options: DesignBoundOptions): DesignBoundResult {
  const { pool, totals, truth, y } = fullyLabelledPool(items, options, 'the bound');
  const coords = [...totals.unitRanks, ...assistCoordinates(pool)];
  const N = pool.candidates.length;
  const K = totals.levelCount;
  const z = normalUpperQuantile((1 - (options.level ?? 0.95)) / 2);
  const minLabels = options.minLabels ?? 20;
  const models = options.models ?? gridSettings(LEVEL_MODEL_GRID);
  if (models.length === 0) throw new RangeError('designBound: at least one working model is needed');
  // The working model: the best leave-one-out predictor of the pool's own labels (the first best in order).
  const units = y.map((_, i) => i);
  let best = { model: models[0], logScore: -Infinity };
  for (const model of models) {
    const fitted = new KernelLevelModel(coords, K, model);
    y.forEach((k, i) => fitted.add(i, k));
    const score = leaveOneOutLogScore(fitted, units, y);
    if (score > best.logScore) best = { model, logScore: score };
  }
  if (!Number.isFinite(best.logScore)) throw new Error('designBound: no working model gives every candidate\'s own level a positive probability');
  const chosen = { ...best, p: leaveOneOutLevels(coords, y, K, best.model) };
  const counts = new Float64Array(K);
  for (const k of y) counts[k]++;
  const marginalLogScore = y.reduce((acc, k) => acc + Math.log((counts[k] - 1 + 0.5) / (N - 1 + K / 2)), 0) / N;
  const coef = new Float64Array(K);
  const sd = new Float64Array(N);
  for (let i = 0; i < N; i++) {
    totals.coefficients(truth.gradient, i, coef);
    let m1 = 0;
    let m2 = 0;
    for (let k = 0; k < K; k++) {
      m1 += chosen.p[i * K + k] * coef[k];
      m2 += chosen.p[i * K + k] * coef[k] * coef[k];
    }
    sd[i] = Math.sqrt(Math.max(0, m2 - m1 * m1));
  }
  const mean = sd.reduce((acc, v) => acc + v, 0) / N;
  const sdVariation = Math.sqrt(sd.reduce((acc, v) => acc + (v - mean) ** 2, 0) / N) / mean;
  const curve = new NeymanCurve(sd);
  const s2 = curve.sumSquares;
  const randomLabels = (v: number) => (N * s2) / (v + s2);
  const targets = options.halfWidths.map((h) => {
    const v = (h / z) ** 2;
    const random = randomLabels(v);
    const neyman = curve.labels(v);
    return { halfWidth: h, random, neyman, saving: 1 - neyman / random };
  });
  // The largest saving over the targets at which random order needs r labels, r from minLabels to N − 1 (at most
  // 200 values of r, evenly spaced, for a large pool).
  let maxSaving = { saving: -Infinity, random: 0, neyman: 0 };
  const first = Math.max(1, Math.min(minLabels, N - 1));
  const step = Math.max(1, Math.ceil((N - 1 - first) / 200));
  for (let r = first; r <= N - 1; r += step) {
    const neyman = curve.labels((N * s2) / r - s2); // the variance at which random order needs exactly r labels
    if (1 - neyman / r > maxSaving.saving) maxSaving = { saving: 1 - neyman / r, random: r, neyman };
  }
  return { pool: N, poolValue: truth.value, model: chosen.model, logScore: chosen.logScore, marginalLogScore, sdVariation, targets, maxSaving };
}
