/**
 * A working model of the human score given the evaluators' scores, used only to choose sampling probabilities
 * and as control variates (its errors cost efficiency, never validity: the design weights keep the estimate
 * unbiased whatever it predicts). Nadaraya–Watson kernel smoothing of the level indicators over the candidates'
 * normalised evaluator ranks, shrunk towards the labelled marginal distribution. Its bandwidth and prior weight
 * can be chosen from the labels themselves, by the leave-one-out log score (`workingModel.ts`).
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
  /** Kernel sums per distinct point (candidates with the same coordinates share one: ties, discrete predictors). */
  private readonly sums: Float64Array;
  private readonly weights: Float64Array;
  private readonly counts: Float64Array;
  private labelled = 0;
  /** The point of each candidate, and each point's coordinates (coordinate-major). */
  private readonly pointOf: Int32Array;
  private readonly points: Float64Array[];

  /**
   * @param coords - per coordinate, the N candidates' positions in (0, 1)
   * @param levels - K, the number of levels
   */
  constructor(
    coords: readonly Float64Array[],
    private readonly levels: number,
    private readonly settings: LevelModelSettings,
  ) {
    const n = coords[0].length;
    this.pointOf = new Int32Array(n);
    const index = new Map<string, number>();
    const first: number[] = [];
    for (let i = 0; i < n; i++) {
      const key = coords.map((c) => c[i]).join(',');
      let p = index.get(key);
      if (p === undefined) {
        p = first.length;
        index.set(key, p);
        first.push(i);
      }
      this.pointOf[i] = p;
    }
    this.points = coords.map((c) => Float64Array.from(first, (i) => c[i]));
    this.sums = new Float64Array(first.length * levels);
    this.weights = new Float64Array(first.length);
    this.counts = new Float64Array(levels);
  }

  /**
   * Adds the label (level index k) of candidate `unit`: O(distinct points) ≤ O(N) per label. A weight of −1 takes an
   * added label out again (up to rounding); {@link predictLeavingOut} gives a labelled candidate's leave-one-out
   * prediction without changing the model.
   */
  add(unit: number, level: number, weight = 1): void {
    const n = this.weights.length;
    const inv = 1 / (2 * this.settings.bandwidth * this.settings.bandwidth);
    const at = this.pointOf[unit];
    for (let i = 0; i < n; i++) {
      let d2 = 0;
      for (const c of this.points) {
        const d = c[i] - c[at];
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

  /** K, the number of levels. */
  get levelCount(): number {
    return this.levels;
  }

  /** The predicted level probabilities of candidate `unit` into `out` (length K, sums to 1). */
  predict(unit: number, out: Float64Array): Float64Array {
    return this.predictFrom(unit, -1, out);
  }

  /**
   * The prediction for a labelled candidate `unit` from every other label: its own label (level index `level`,
   * added once with weight 1) taken out of the kernel sums and the level shares. O(K), the same value as taking the
   * label out with `add(unit, level, -1)` and predicting.
   */
  predictLeavingOut(unit: number, level: number, out: Float64Array): Float64Array {
    return this.predictFrom(unit, level, out);
  }

  private predictFrom(candidate: number, own: number, out: Float64Array): Float64Array {
    const unit = this.pointOf[candidate];
    const K = this.levels;
    const prior = this.settings.prior;
    const self = own >= 0 ? 1 : 0; // the kernel of a candidate with itself is exp(0) = 1
    const total = this.weights[unit] - self + prior;
    const marginal = this.labelled - self + K / 2;
    for (let k = 0; k < K; k++) {
      const mine = k === own ? 1 : 0;
      const pi = (this.counts[k] - mine + 0.5) / marginal;
      out[k] = (this.sums[unit * K + k] - mine + prior * pi) / total;
    }
    return out;
  }

  /** The bandwidth and prior weight it was built with. */
  get modelSettings(): Readonly<LevelModelSettings> {
    return this.settings;
  }
}

/**
 * The mean leave-one-out log probability (natural log) that `model` gives each labelled candidate's own level:
 * (1/n) Σ_j ln P̂_{−j}(y_j | x_j), over the n candidates `units` whose level indices `levels` were added to the
 * model (once each, weight 1). Higher is better; −ln K for a model that knows nothing and K levels.
 *
 * @returns −Infinity for no candidates
 * @throws RangeError when `units` and `levels` differ in length
 */
export function leaveOneOutLogScore(model: KernelLevelModel, units: readonly number[], levels: readonly number[]): number {
  if (units.length !== levels.length) throw new RangeError(`leave-one-out log score: ${units.length} candidates but ${levels.length} levels`);
  if (units.length === 0) return -Infinity;
  const scratch = new Float64Array(model.levelCount);
  let score = 0;
  for (let j = 0; j < units.length; j++) score += Math.log(model.predictLeavingOut(units[j], levels[j], scratch)[levels[j]]);
  return score / units.length;
}

/** Each candidate's leave-one-out log probability of its own level ({@link leaveOneOutLogScore}, label by label). */
export function leaveOneOutLogProbabilities(model: KernelLevelModel, units: readonly number[], levels: readonly number[]): Float64Array {
  if (units.length !== levels.length) throw new RangeError(`leave-one-out log probabilities: ${units.length} candidates but ${levels.length} levels`);
  const scratch = new Float64Array(model.levelCount);
  return Float64Array.from(units, (u, j) => Math.log(model.predictLeavingOut(u, levels[j], scratch)[levels[j]]));
}

/** The settings leave-one-out selection tries: every bandwidth with every prior weight. */
export interface LevelModelGrid {
  /** Gaussian kernel bandwidths on the (0, 1) rank scale (every coordinate), each > 0. */
  bandwidths: readonly number[];
  /** Prior weights (pseudo-counts of the level shares), each > 0. */
  priors: readonly number[];
}

/**
 * The grid the design-only bound chooses its working model from (`designBound.ts`), and that plans choose theirs
 * from between batches (`workingModel.ts`): bandwidths 0.05 … 0.8 × prior weights 0.5, 2, 8.
 */
export const LEVEL_MODEL_GRID: Readonly<LevelModelGrid> = { bandwidths: [0.05, 0.1, 0.2, 0.4, 0.8], priors: [0.5, 2, 8] };

/**
 * The settings of a grid, bandwidth-major (0.05 with every prior, then 0.1, …): the order in which ties are broken
 * (the first best wins).
 *
 * @throws RangeError on an empty grid or a bandwidth or prior that is not a positive finite number
 */
export function gridSettings(grid: LevelModelGrid): LevelModelSettings[] {
  if (grid.bandwidths.length === 0 || grid.priors.length === 0) throw new RangeError('level model grid: at least one bandwidth and one prior are needed');
  for (const v of [...grid.bandwidths, ...grid.priors]) if (!(v > 0 && Number.isFinite(v))) throw new RangeError(`level model grid: bandwidths and priors must be positive finite numbers (got ${v})`);
  return grid.bandwidths.flatMap((bandwidth) => grid.priors.map((prior) => ({ bandwidth, prior })));
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
