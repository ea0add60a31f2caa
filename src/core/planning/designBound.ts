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
import { gridSettings, KernelLevelModel, LEVEL_MODEL_GRID, leaveOneOutLogScore } from '../design/levelModel';
import { assistCoordinates, fullyLabelledPool, type PoolOptions } from './pool';
import { SpearmanTotals } from './spearmanTotals';

/**
 * The Neyman inclusion probabilities π_i = min(1, c·σ_i) with Σπ_i = n (take-all units where c·σ_i ≥ 1).
 *
 * @param sd - σ_i ≥ 0 per candidate (N values)
 * @param n - expected sample size, 0 < n ≤ N
 * @returns π, N values in [0, 1] summing to n (units with σ_i = 0 get 0 unless every σ is 0: then n/N each)
 * @throws RangeError on n outside (0, N] or a negative or non-finite σ
 */
export function neymanInclusion(sd: ArrayLike<number>, n: number): Float64Array {
  const N = sd.length;
  if (!(n > 0 && n <= N)) throw new RangeError(`sample size must be in (0, ${N}] (got ${n})`);
  for (let i = 0; i < N; i++) if (!(sd[i] >= 0 && Number.isFinite(sd[i]))) throw new RangeError(`sd[${i}] must be a finite number ≥ 0 (got ${sd[i]})`);
  const order = Array.from({ length: N }, (_, i) => i).sort((a, b) => sd[b] - sd[a]);
  let rest = 0;
  for (let i = 0; i < N; i++) rest += sd[i];
  const pi = new Float64Array(N);
  if (!(rest > 0)) return pi.fill(n / N);
  // Take the m largest whole while the remaining allocation would give them π ≥ 1.
  let m = 0;
  while (m < N && (n - m) * sd[order[m]] >= rest) {
    rest -= sd[order[m]];
    m++;
  }
  for (let j = 0; j < N; j++) {
    const i = order[j];
    pi[i] = j < m ? 1 : rest > 0 ? ((n - m) * sd[i]) / rest : 0;
  }
  return pi;
}

/**
 * The Godambe–Joshi lower bound Σ_i (1/π_i − 1) σ_i² on the model-anticipated variance of a design-unbiased
 * estimator of a total (units with σ_i = 0 contribute 0 whatever π_i).
 *
 * @throws RangeError on unequal lengths, or π_i = 0 where σ_i > 0
 */
export function godambeJoshiVariance(sd: ArrayLike<number>, pi: ArrayLike<number>): number {
  if (sd.length !== pi.length) throw new RangeError(`sd and π must have the same length (${sd.length} vs ${pi.length})`);
  let v = 0;
  for (let i = 0; i < sd.length; i++) {
    if (sd[i] === 0) continue;
    if (!(pi[i] > 0)) throw new RangeError(`π[${i}] is 0 where σ is ${sd[i]}: no design-unbiased estimator exists`);
    v += (1 / pi[i] - 1) * sd[i] * sd[i];
  }
  return v;
}

/**
 * The Neyman design's Godambe–Joshi variance as a function of the sample size, for one σ vector: sorted once, then
 * each evaluation is O(number of take-all units) with Σ_{j ≥ m} (σ_j·R/(n − m) − σ_j²) = R²/(n − m) − Σ_{j ≥ m} σ_j²,
 * R the σ total of the units not taken whole. The same value as
 * `godambeJoshiVariance(sd, neymanInclusion(sd, n))`.
 */
class NeymanCurve {
  private readonly sorted: Float64Array;
  /** Suffix sums of σ and σ² over the descending order. */
  private readonly tail: Float64Array;
  private readonly tail2: Float64Array;

  constructor(sd: ArrayLike<number>) {
    for (let i = 0; i < sd.length; i++) if (!(sd[i] >= 0 && Number.isFinite(sd[i]))) throw new RangeError(`sd[${i}] must be a finite number ≥ 0 (got ${sd[i]})`);
    this.sorted = Float64Array.from(sd).sort().reverse();
    const N = this.sorted.length;
    this.tail = new Float64Array(N + 1);
    this.tail2 = new Float64Array(N + 1);
    for (let j = N - 1; j >= 0; j--) {
      this.tail[j] = this.tail[j + 1] + this.sorted[j];
      this.tail2[j] = this.tail2[j + 1] + this.sorted[j] * this.sorted[j];
    }
  }

  /** Σσ². */
  get sumSquares(): number {
    return this.tail2[0];
  }

  /** The bound at expected sample size n in (0, N]. */
  variance(n: number): number {
    const N = this.sorted.length;
    let m = 0;
    while (m < N && (n - m) * this.sorted[m] >= this.tail[m]) m++;
    if (m === N || !(this.tail[m] > 0)) return 0;
    return (this.tail[m] * this.tail[m]) / (n - m) - this.tail2[m];
  }

  /** The smallest n (bisection to 1e-9) at which the bound reaches V. */
  labels(variance: number): number {
    let lo = 0;
    let hi = this.sorted.length;
    for (let it = 0; it < 100 && hi - lo > 1e-9; it++) {
      const mid = (lo + hi) / 2;
      if (this.variance(mid) <= variance) hi = mid;
      else lo = mid;
    }
    return hi;
  }
}

/**
 * The fewest labels n (a real number; round up for a count) at which the bound reaches `variance`: for random order
 * N·Σσ²/(V + Σσ²); for the Neyman design found by bisection (the bound decreases in n).
 *
 * @param variance - target variance V > 0, in the squared units of σ
 * @returns n in (0, N]
 * @throws RangeError on V ≤ 0 or a negative or non-finite σ
 */
export function labelsForVariance(sd: ArrayLike<number>, variance: number, design: 'uniform' | 'neyman'): number {
  if (!(variance > 0)) throw new RangeError(`target variance must be positive (got ${variance})`);
  const curve = new NeymanCurve(sd);
  if (design === 'uniform') return (sd.length * curve.sumSquares) / (variance + curve.sumSquares);
  return curve.labels(variance);
}

/**
 * Leave-one-out predicted level probabilities of every pool candidate from the {@link KernelLevelModel} fitted on all
 * the other candidates' labels: an oracle working model, as good as one can know the human score from the
 * evaluators' ranks with the whole pool labelled, without the candidate's own label.
 *
 * @param coords - per coordinate, the N candidates' positions in (0, 1)
 * @param y - level index of every candidate
 * @returns N × K probabilities, row-major
 */
export function leaveOneOutLevels(coords: readonly Float64Array[], y: readonly number[], levels: number, settings: { bandwidth: number; prior: number }): Float64Array {
  const model = new KernelLevelModel(coords, levels, settings);
  y.forEach((k, i) => model.add(i, k));
  const out = new Float64Array(y.length * levels);
  const row = new Float64Array(levels);
  y.forEach((k, i) => out.set(model.predictLeavingOut(i, k, row), i * levels));
  return out;
}

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
