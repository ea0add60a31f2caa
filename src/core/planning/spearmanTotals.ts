/**
 * Spearman's rho of a finite pool as a smooth function of pool TOTALS, so that a sampling design can estimate it.
 *
 * The pool has N candidates; every one has the evaluator's score x (known) and a human coherence score y (known
 * only once labelled), an integer count taking one of K levels v_0 < … < v_{K−1}. Spearman's rho with average
 * ranks (as scipy's `spearmanr`, ICMI 2023's statistic) is Pearson's r of the pool midranks:
 *
 * - the midranks of x are known for the whole pool; write a_i = R^x_i − (N+1)/2;
 * - the midrank of level k depends only on the level counts n_j = #{i: y_i = v_j}:
 *   g_k = Σ_{j<k} n_j + (n_k + 1)/2, centred c_k = g_k − (N+1)/2;
 * - S_xy = Σ_k c_k · M_k with M_k = Σ_{i: y_i = v_k} a_i; S_yy = Σ_k n_k c_k²; S_xx = Σ_i a_i² (known);
 * - rho = S_xy / sqrt(S_xx · S_yy).
 *
 * So rho = h(θ) with θ = (n_0..n_{K−1}, M_0..M_{K−1}) the pool totals of f_i = (1{y_i = v_k}, a_i·1{y_i = v_k})_k:
 * exactly scipy's value when θ is the true pool total (no approximation), and a differentiable function of θ, so
 * design-weighted totals give a plug-in estimate and the delta method its linearisation (Woodruff 1971; Binder
 * 1983). For a pair A, B the totals are (n, M^A, M^B) and the estimand rho_A − rho_B.
 */
import type { PoolTotals } from '../design/poolTotals';
import { rankAverage } from '../stats/rank';

/** h(θ) and its gradient ∂h/∂θ; null when S_yy or S_xx is 0 (the correlation is undefined). */
export interface EstimandValue {
  value: number;
  gradient: Float64Array;
  /** rho of each evaluator at θ (one or two values). */
  rhos: number[];
}

export class SpearmanTotals implements PoolTotals {
  /** Pool size N. */
  readonly size: number;
  /** The human-score levels v_0 < … < v_{K−1}. */
  readonly levels: readonly number[];
  /** Evaluators: 1 (rho) or 2 (rho_A − rho_B). */
  readonly evaluators: number;
  /** Length of θ: K · (1 + evaluators). */
  readonly dim: number;
  /** Centred midranks a_i of each evaluator's scores over the pool. */
  readonly centred: Float64Array[];
  /** S_xx of each evaluator. */
  readonly sxx: number[];
  /** Midranks of each evaluator's scores, normalised to (0, 1): (R − 1/2) / N. */
  readonly unitRanks: Float64Array[];
  private readonly levelIndexOf = new Map<number, number>();

  /**
   * @param scores - one array per evaluator (one or two), N finite numbers each, in pool order
   * @param levels - the possible human scores (any order, duplicates ignored; at least two)
   * @throws RangeError on no or more than two evaluators, unequal lengths, N < 3, fewer than two levels, or an
   *   evaluator that gives the whole pool one score (its rho is undefined)
   */
  constructor(scores: readonly (readonly number[])[], levels: readonly number[]) {
    if (scores.length < 1 || scores.length > 2) throw new RangeError(`Spearman totals: one or two evaluators (got ${scores.length})`);
    const n = scores[0].length;
    if (scores.some((s) => s.length !== n)) throw new RangeError('Spearman totals: the evaluators must score the same pool');
    if (n < 3) throw new RangeError(`Spearman totals: the pool needs at least 3 candidates (got ${n})`);
    this.size = n;
    this.levels = [...new Set(levels)].sort((a, b) => a - b);
    if (this.levels.length < 2) throw new RangeError('Spearman totals: the human score needs at least two levels');
    this.levels.forEach((v, k) => this.levelIndexOf.set(v, k));
    this.evaluators = scores.length;
    this.dim = this.levels.length * (1 + this.evaluators);
    const mid = (n + 1) / 2;
    this.centred = [];
    this.unitRanks = [];
    this.sxx = [];
    scores.forEach((s, e) => {
      const ranks = rankAverage(s as number[]);
      const a = Float64Array.from(ranks, (r) => r - mid);
      const sxx = a.reduce((acc, v) => acc + v * v, 0);
      if (!(sxx > 0)) throw new RangeError(`Spearman totals: evaluator ${e + 1} gives every candidate of the pool the same score`);
      this.centred.push(a);
      this.unitRanks.push(Float64Array.from(ranks, (r) => (r - 0.5) / n));
      this.sxx.push(sxx);
    });
  }

  /** The working model's coordinates: the evaluators' normalised midranks ({@link unitRanks}). */
  get coordinates(): readonly Float64Array[] {
    return this.unitRanks;
  }

  /** rho lies in [−1, 1]; rho_A − rho_B in [−2, 2]. */
  get bounds(): readonly [number, number] {
    return this.evaluators === 1 ? [-1, 1] : [-2, 2];
  }

  /** K, the number of human-score levels. */
  get levelCount(): number {
    return this.levels.length;
  }

  /** Index k of a human score v_k. @throws RangeError for a score that is not a level */
  levelIndex(y: number): number {
    const k = this.levelIndexOf.get(y);
    if (k === undefined) throw new RangeError(`human score ${y} is not one of the levels ${this.levels.join(', ')}`);
    return k;
  }

  /** out += s · f_i(level k): 1 at component k, a_i^e at component (1+e)·K + k. */
  addUnit(out: Float64Array, unit: number, level: number, s = 1): void {
    const K = this.levels.length;
    out[level] += s;
    for (let e = 0; e < this.evaluators; e++) out[(1 + e) * K + level] += s * this.centred[e][unit];
  }

  /** out += s · Σ_k p_k f_i(k): the expected f_i under level probabilities p (length K). */
  addExpected(out: Float64Array, unit: number, p: ArrayLike<number>, s = 1): void {
    const K = this.levels.length;
    for (let k = 0; k < K; k++) {
      const w = s * p[k];
      out[k] += w;
      for (let e = 0; e < this.evaluators; e++) out[(1 + e) * K + k] += w * this.centred[e][unit];
    }
  }

  /**
   * The linearised contribution of unit i at each level: c_k(i) = γ·f_i(k) = γ_{n,k} + Σ_e a_i^e · γ_{M^e,k}.
   * With φ_i = γ·f_i the unit's influence value, φ_i = c_{y_i}(i).
   */
  coefficients(gradient: ArrayLike<number>, unit: number, out: Float64Array): Float64Array {
    const K = this.levels.length;
    for (let k = 0; k < K; k++) {
      let c = gradient[k];
      for (let e = 0; e < this.evaluators; e++) c += this.centred[e][unit] * gradient[(1 + e) * K + k];
      out[k] = c;
    }
    return out;
  }

  /**
   * h(θ): Spearman's rho (one evaluator) or rho_A − rho_B (two), and its gradient. Level counts below 0 (possible
   * for design-weighted estimates) are taken as 0; rho is clipped to [−1, 1] (its gradient is not).
   *
   * @returns null when S_yy = 0 (fewer than two levels with positive count)
   */
  evaluate(theta: ArrayLike<number>): EstimandValue | null {
    const K = this.levels.length;
    const N = this.size;
    const mid = (N + 1) / 2;
    const n = new Float64Array(K);
    for (let k = 0; k < K; k++) n[k] = Math.max(0, theta[k]);
    const c = new Float64Array(K);
    let before = 0;
    let syy = 0;
    for (let k = 0; k < K; k++) {
      c[k] = before + (n[k] + 1) / 2 - mid;
      before += n[k];
      syy += n[k] * c[k] * c[k];
    }
    if (!(syy > 1e-12)) return null;
    // Σ_{j>k} n_j c_j, needed by ∂S_yy/∂n_k.
    const tailNc = new Float64Array(K + 1);
    for (let k = K - 1; k >= 0; k--) tailNc[k] = tailNc[k + 1] + n[k] * c[k];
    const gradient = new Float64Array(this.dim);
    const rhos: number[] = [];
    let value = 0;
    for (let e = 0; e < this.evaluators; e++) {
      const sign = e === 0 ? 1 : -1;
      const base = (1 + e) * K;
      let sxy = 0;
      for (let k = 0; k < K; k++) sxy += c[k] * theta[base + k];
      const denom = Math.sqrt(this.sxx[e] * syy);
      const rho = sxy / denom;
      rhos.push(Math.max(-1, Math.min(1, rho)));
      value += sign * Math.max(-1, Math.min(1, rho));
      let tailM = 0;
      const tailMs = new Float64Array(K + 1);
      for (let k = K - 1; k >= 0; k--) {
        tailMs[k] = tailM;
        tailM += theta[base + k];
      }
      for (let k = 0; k < K; k++) {
        const dSxy = theta[base + k] / 2 + tailMs[k];
        const dSyy = c[k] * c[k] + n[k] * c[k] + 2 * tailNc[k + 1];
        gradient[k] += sign * (dSxy / denom - (rho / (2 * syy)) * dSyy);
        gradient[base + k] += sign * (c[k] / denom);
      }
    }
    return { value, gradient, rhos };
  }

  /** The exact pool totals θ when every y is known (levels as values, not indices). */
  totals(y: readonly number[]): Float64Array {
    if (y.length !== this.size) throw new RangeError(`Spearman totals: expected ${this.size} human scores (got ${y.length})`);
    const out = new Float64Array(this.dim);
    y.forEach((v, i) => this.addUnit(out, i, this.levelIndex(v)));
    return out;
  }
}
