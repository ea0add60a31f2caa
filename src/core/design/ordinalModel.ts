/**
 * A parametric working model of the human score given the evaluators' ranks, for the labelling plan (used, as the
 * kernel model of `levelModel.ts`, only to choose sampling probabilities and as control variates: its errors cost
 * efficiency, never validity). The adjacent-category logit model (Agresti 2010, Analysis of Ordinal Categorical
 * Data, §4.1) over the normal scores of the ranks:
 *
 *   P(y = v_k | x_i) ∝ exp(α_k + k·β·z_i),  z_i = (Φ⁻¹(u_i^1), …), u the candidates' ranks on the (0, 1) scale,
 *
 * with α_0 = 0. With one slope per coordinate it has K − 1 + d parameters, so it learns the direction in which the
 * score rises from a few labels, where a kernel smoother still averages over neighbourhoods it has barely seen. (For
 * an evaluator that is the human score plus Gaussian noise this is the exact form of the posterior, in the scores.)
 * Fitted by penalised maximum likelihood: a ridge penalty (ridge/2)·‖β‖² and `prior` pseudo-observations spread
 * evenly over the levels at z = 0, which keep the fit finite with few labels (and with a level no label has yet).
 * The penalised log-likelihood is concave (an exponential family), so Newton's method from the same start reaches
 * the same optimum: the fit is a deterministic function of the labels added, whatever the order of calls.
 */
import { normalUpperQuantile } from '../stats/confidenceSequence';
import { solveSpd } from '../stats/cholesky';

/** Settings of {@link OrdinalLevelModel}. */
export interface OrdinalModelSettings {
  /** Ridge precision on the slopes β (in normal-score units), > 0. */
  ridge: number;
  /** Pseudo-observations at z = 0, spread evenly over the K levels, > 0. */
  prior: number;
}

/** The normal scores Φ⁻¹(u) of positions u in (0, 1). @throws RangeError on a position outside (0, 1) */
export function normalScores(u: ArrayLike<number>): Float64Array {
  return Float64Array.from(u as ArrayLike<number>, (v) => normalUpperQuantile(1 - v));
}

/**
 * The adjacent-category logit working model (see the module comment). O(N·d) per label added (nothing is fitted
 * then); a fit on n labels costs O(n·K·p²) per Newton step (p = K − 1 + d), made when a prediction is asked for after
 * new labels.
 */
export class OrdinalLevelModel {
  /** Normal scores, one array per coordinate. */
  private readonly z: Float64Array[];
  private readonly units: number[] = [];
  private readonly labels: number[] = [];
  /** (α_1 … α_{K−1}, β_1 … β_d), valid when `fitted` equals the number of labels. */
  private theta: Float64Array;
  private fitted = -1;
  private readonly p: number;

  /**
   * @param coords - per coordinate, the N candidates' positions in (0, 1)
   * @param levels - K ≥ 2, the number of levels
   * @throws RangeError on K < 2, bad settings, or a position outside (0, 1)
   */
  constructor(
    coords: readonly Float64Array[],
    private readonly levels: number,
    private readonly settings: OrdinalModelSettings,
  ) {
    if (!(Number.isInteger(levels) && levels >= 2)) throw new RangeError(`ordinal model: at least two levels (got ${levels})`);
    if (!(settings.ridge > 0 && settings.prior > 0)) throw new RangeError(`ordinal model: ridge and prior must be positive (got ${settings.ridge}, ${settings.prior})`);
    this.z = coords.map((c) => normalScores(c));
    this.p = levels - 1 + coords.length;
    this.theta = new Float64Array(this.p);
  }

  /** Adds the label (level index k) of candidate `unit`. */
  add(unit: number, level: number): void {
    this.units.push(unit);
    this.labels.push(level);
  }

  /** Number of labels added. */
  get size(): number {
    return this.units.length;
  }

  /** K, the number of levels. */
  get levelCount(): number {
    return this.levels;
  }

  /** The settings it was built with. */
  get modelSettings(): Readonly<OrdinalModelSettings> {
    return this.settings;
  }

  /** The fitted parameters (α_1 … α_{K−1}, β_1 … β_d), fitting first if labels were added since. */
  get parameters(): Float64Array {
    this.fit();
    return Float64Array.from(this.theta);
  }

  /** Level probabilities at slope-projection s = β·z into `out`, given the parameters. */
  private probs(theta: Float64Array, s: number, out: Float64Array): Float64Array {
    const K = this.levels;
    let max = 0;
    out[0] = 0;
    for (let k = 1; k < K; k++) {
      out[k] = theta[k - 1] + k * s;
      if (out[k] > max) max = out[k];
    }
    let total = 0;
    for (let k = 0; k < K; k++) {
      out[k] = Math.exp(out[k] - max);
      total += out[k];
    }
    for (let k = 0; k < K; k++) out[k] /= total;
    return out;
  }

  private slope(theta: Float64Array, unit: number): number {
    const K = this.levels;
    let s = 0;
    for (let j = 0; j < this.z.length; j++) s += theta[K - 1 + j] * this.z[j][unit];
    return s;
  }

  /**
   * Adds one observation's contribution (weight w, level y, normal scores x at the unit, probabilities q) to the
   * gradient g and the information matrix J (the negative Hessian) of the log-likelihood.
   */
  private accumulate(x: ArrayLike<number>, y: number, q: Float64Array, w: number, g: Float64Array, J: Float64Array | null): void {
    const K = this.levels;
    const p = this.p;
    const d = this.z.length;
    let m = 0;
    let m2 = 0;
    for (let k = 1; k < K; k++) {
      m += k * q[k];
      m2 += k * k * q[k];
    }
    const v = m2 - m * m;
    for (let k = 1; k < K; k++) g[k - 1] += w * ((k === y ? 1 : 0) - q[k]);
    for (let j = 0; j < d; j++) g[K - 1 + j] += w * x[j] * (y - m);
    if (!J) return;
    for (let k = 1; k < K; k++) {
      for (let l = 1; l < K; l++) J[(k - 1) * p + (l - 1)] += w * q[k] * ((k === l ? 1 : 0) - q[l]);
      for (let j = 0; j < d; j++) {
        const c = w * x[j] * q[k] * (k - m);
        J[(k - 1) * p + K - 1 + j] += c;
        J[(K - 1 + j) * p + (k - 1)] += c;
      }
    }
    for (let j = 0; j < d; j++) for (let l = 0; l < d; l++) J[(K - 1 + j) * p + K - 1 + l] += w * x[j] * x[l] * v;
  }

  /** The penalised log-likelihood, its gradient and information at θ (the prior's pseudo-observations and the ridge included). */
  private objective(theta: Float64Array, withInformation: boolean): { value: number; g: Float64Array; J: Float64Array | null } {
    const K = this.levels;
    const p = this.p;
    const d = this.z.length;
    const g = new Float64Array(p);
    const J = withInformation ? new Float64Array(p * p) : null;
    const q = new Float64Array(K);
    const x = new Float64Array(d);
    let value = 0;
    for (let i = 0; i < this.units.length; i++) {
      const u = this.units[i];
      for (let j = 0; j < d; j++) x[j] = this.z[j][u];
      this.probs(theta, this.slope(theta, u), q);
      value += Math.log(q[this.labels[i]]);
      this.accumulate(x, this.labels[i], q, 1, g, J);
    }
    // Pseudo-observations: prior/K at every level, at z = 0 (they touch α only).
    this.probs(theta, 0, q);
    const w = this.settings.prior / K;
    x.fill(0);
    for (let k = 0; k < K; k++) {
      value += w * Math.log(q[k]);
      this.accumulate(x, k, q, w, g, J);
    }
    for (let j = 0; j < d; j++) {
      const b = theta[K - 1 + j];
      value -= (this.settings.ridge / 2) * b * b;
      g[K - 1 + j] -= this.settings.ridge * b;
      if (J) J[(K - 1 + j) * p + K - 1 + j] += this.settings.ridge;
    }
    return { value, g, J };
  }

  /** Fits by Newton's method with step halving, from θ = 0, if labels were added since the last fit. */
  private fit(): void {
    if (this.fitted === this.units.length) return;
    let theta = new Float64Array(this.p);
    let cur = this.objective(theta, true);
    for (let it = 0; it < 100; it++) {
      const step = solveSpd(cur.J as Float64Array, cur.g, this.p);
      if (!step) break;
      let t = 1;
      let next = theta;
      let trial = cur;
      for (let h = 0; h < 40; h++) {
        next = Float64Array.from(theta, (v, j) => v + t * step[j]);
        trial = this.objective(next, true);
        if (trial.value >= cur.value - 1e-12) break;
        t /= 2;
      }
      let change = 0;
      for (let j = 0; j < this.p; j++) change = Math.max(change, Math.abs(next[j] - theta[j]));
      theta = next;
      cur = trial;
      if (change < 1e-10) break;
    }
    this.theta = theta;
    this.fitted = this.units.length;
  }

  /** The predicted level probabilities of candidate `unit` into `out` (length K, sums to 1). */
  predict(unit: number, out: Float64Array): Float64Array {
    this.fit();
    return this.probs(this.theta, this.slope(this.theta, unit), out);
  }

  /**
   * The mean leave-one-out log probability of each label's own level, with the fit without label j approximated by
   * one Newton step from the full fit, θ̂_{−j} = θ̂ − (J − J_j)⁻¹ g_j (g_j, J_j label j's gradient and information
   * at θ̂): the usual approximation of leave-one-out for a smooth likelihood, close to exact refits once there are
   * more labels than parameters.
   *
   * @returns −Infinity for no labels
   */
  leaveOneOutLogScore(): number {
    const lp = this.leaveOneOutLogProbabilities();
    if (lp.length === 0) return -Infinity;
    let score = 0;
    for (let i = 0; i < lp.length; i++) score += lp[i];
    return score / lp.length;
  }

  /** Each label's leave-one-out log probability of its own level (as {@link leaveOneOutLogScore}, label by label). */
  leaveOneOutLogProbabilities(): Float64Array {
    const n = this.units.length;
    const out = new Float64Array(n);
    if (n === 0) return out;
    this.fit();
    const K = this.levels;
    const p = this.p;
    const d = this.z.length;
    const full = this.objective(this.theta, true);
    const q = new Float64Array(K);
    const x = new Float64Array(d);
    for (let i = 0; i < n; i++) {
      const u = this.units[i];
      for (let j = 0; j < d; j++) x[j] = this.z[j][u];
      this.probs(this.theta, this.slope(this.theta, u), q);
      const g = new Float64Array(p);
      const Ji = new Float64Array(p * p);
      this.accumulate(x, this.labels[i], q, 1, g, Ji);
      const J = Float64Array.from(full.J as Float64Array, (v, j) => v - Ji[j]);
      const step = solveSpd(J, g, p);
      const loo = step ? Float64Array.from(this.theta, (v, j) => v - step[j]) : this.theta;
      this.probs(loo, this.slope(loo, u), q);
      out[i] = Math.log(q[this.labels[i]]);
    }
    return out;
  }

}
