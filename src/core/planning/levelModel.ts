/**
 * A working model of the human score given the evaluators' scores, used only to choose sampling probabilities
 * and as control variates (its errors cost efficiency, never validity: the design weights keep the estimate
 * unbiased whatever it predicts). Nadaraya–Watson kernel smoothing of the level indicators over the candidates'
 * normalised evaluator ranks, shrunk towards the labelled marginal distribution.
 */

/** Settings of {@link KernelLevelModel}. */
export interface LevelModelSettings {
  /** Gaussian kernel bandwidth on the (0, 1) rank scale, per coordinate. */
  bandwidth: number;
  /** Weight (pseudo-count) of the marginal distribution added to every prediction. */
  prior: number;
}

/**
 * P̂(y = v_k | x_i) = (Σ_j K(u_i, u_j)·1{y_j = v_k} + prior·π_k) / (Σ_j K(u_i, u_j) + prior), over the labelled
 * candidates j, with u the normalised ranks (one or two coordinates) and π the labelled level shares smoothed by
 * half a count per level (uniform before any label).
 */
export class KernelLevelModel {
  private readonly sums: Float64Array;
  private readonly weights: Float64Array;
  private readonly counts: Float64Array;
  private labelled = 0;

  /**
   * @param coords - per coordinate, the N candidates' positions in (0, 1)
   * @param levels - K, the number of levels
   */
  constructor(
    private readonly coords: readonly Float64Array[],
    private readonly levels: number,
    private readonly settings: LevelModelSettings,
  ) {
    const n = coords[0].length;
    this.sums = new Float64Array(n * levels);
    this.weights = new Float64Array(n);
    this.counts = new Float64Array(levels);
  }

  /**
   * Adds the label (level index k) of candidate `unit`: O(N) per label. A weight of −1 takes an added label out
   * again (up to rounding), as the leave-one-out fits of `designBound.ts` do.
   */
  add(unit: number, level: number, weight = 1): void {
    const n = this.weights.length;
    const inv = 1 / (2 * this.settings.bandwidth * this.settings.bandwidth);
    for (let i = 0; i < n; i++) {
      let d2 = 0;
      for (const c of this.coords) {
        const d = c[i] - c[unit];
        d2 += d * d;
      }
      const w = weight * Math.exp(-d2 * inv);
      this.weights[i] += w;
      this.sums[i * this.levels + level] += w;
    }
    this.counts[level] += weight;
    this.labelled += weight;
  }

  /** Number of labels added. */
  get size(): number {
    return this.labelled;
  }

  /** The predicted level probabilities of candidate `unit` into `out` (length K, sums to 1). */
  predict(unit: number, out: Float64Array): Float64Array {
    const K = this.levels;
    const prior = this.settings.prior;
    const total = this.weights[unit] + prior;
    const marginal = this.labelled + K / 2;
    for (let k = 0; k < K; k++) {
      const pi = (this.counts[k] + 0.5) / marginal;
      out[k] = (this.sums[unit * K + k] + prior * pi) / total;
    }
    return out;
  }
}
