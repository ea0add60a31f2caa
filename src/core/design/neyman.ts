/**
 * The Godambe–Joshi bound and the Neyman allocation (docs/labelling-plan.md, "What the design alone can buy"): for any
 * sampling design with first-order inclusion probabilities π_i and any design-unbiased estimator of a total, the
 * variance anticipated under a model in which the units' values are independent with variances σ_i² is at least
 * Σ_i (1/π_i − 1) σ_i² (Godambe & Joshi 1965, Ann. Math. Statist. 36; Särndal, Swensson & Wretman 1992, Model
 * Assisted Survey Sampling); with n labels it is smallest for π_i = min(1, c·σ_i). Both planners' bounds use it.
 */

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
export class NeymanCurve {
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

