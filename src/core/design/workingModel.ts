/**
 * The labelling plan's working model chosen from the labels themselves (docs/labelling-plan.md, §2): several
 * candidate models of the human score given the evaluators' ranks — kernel smoothers ({@link KernelLevelModel}) of
 * several bandwidths and prior weights, and adjacent-category logit models ({@link OrdinalLevelModel}) — all fed
 * the same labels; before every batch the one that predicts the labels known so far best, each from all the others
 * (leave-one-out log score), predicts. The model shapes the draw probabilities and the control variates only, so the
 * choice costs no validity; it is a deterministic function of the labels added, in their order, so plans replay.
 */
import { KernelLevelModel, leaveOneOutLogProbabilities, leaveOneOutLogScore, type LevelModelSettings } from './levelModel';
import { OrdinalLevelModel, type OrdinalModelSettings } from './ordinalModel';

/** A candidate working model: the level shares alone, a kernel smoother, or an adjacent-category logit model. */
export type WorkingModelSpec = { kind: 'marginal' } | ({ kind: 'kernel' } & LevelModelSettings) | ({ kind: 'ordinal' } & OrdinalModelSettings);

/** The candidates a {@link SelectedLevelModel} chooses from, and when it starts choosing. */
export interface WorkingModelCandidates {
  /** Kernel smoothers tried (e.g. `gridSettings(LEVEL_MODEL_GRID)` of `levelModel.ts`). */
  kernels: readonly LevelModelSettings[];
  /** Adjacent-category logit models tried (none: kernels only). */
  ordinal?: readonly OrdinalModelSettings[];
  /**
   * Start from the level shares alone (P(level k) = (n_k + ½)/(n + K/2) for every candidate, ignoring the
   * coordinates) and keep them unless the best candidate predicts the labels better by more than one standard error
   * of the difference of their leave-one-out log scores (the one-standard-error rule, Breiman et al. 1984; Hastie,
   * Tibshirani & Friedman 2009, §7.10): a predictor that is noise is then ignored. Absent: not tried (as every
   * Spearman plan).
   */
  marginal?: boolean;
  /** Known labels before the first choice, integer ≥ 2; until then the fallback kernel predicts. */
  minLabels: number;
}

interface Candidate {
  spec: WorkingModelSpec;
  add(unit: number, level: number): void;
  predict(unit: number, out: Float64Array): Float64Array;
  score(units: readonly number[], levels: readonly number[]): number;
  /** Label by label (for the one-standard-error rule). */
  scores(units: readonly number[], levels: readonly number[]): Float64Array;
}

function kernelCandidate(coords: readonly Float64Array[], levels: number, s: LevelModelSettings): Candidate {
  const m = new KernelLevelModel(coords, levels, s);
  return { spec: { kind: 'kernel', bandwidth: s.bandwidth, prior: s.prior }, add: (u, k) => m.add(u, k), predict: (u, out) => m.predict(u, out), score: (units, ys) => leaveOneOutLogScore(m, units, ys), scores: (units, ys) => leaveOneOutLogProbabilities(m, units, ys) };
}

function marginalCandidate(levels: number): Candidate {
  const counts = new Float64Array(levels);
  let n = 0;
  return {
    spec: { kind: 'marginal' },
    add: (_u, k) => {
      counts[k]++;
      n++;
    },
    predict: (_u, out) => {
      for (let k = 0; k < levels; k++) out[k] = (counts[k] + 0.5) / (n + levels / 2);
      return out;
    },
    score: (_units, ys) => (ys.length ? ys.reduce((acc, k) => acc + Math.log((counts[k] - 1 + 0.5) / (n - 1 + levels / 2)), 0) / ys.length : -Infinity),
    scores: (_units, ys) => Float64Array.from(ys, (k) => Math.log((counts[k] - 1 + 0.5) / (n - 1 + levels / 2))),
  };
}

function ordinalCandidate(coords: readonly Float64Array[], levels: number, s: OrdinalModelSettings): Candidate {
  const m = new OrdinalLevelModel(coords, levels, s);
  return { spec: { kind: 'ordinal', ridge: s.ridge, prior: s.prior }, add: (u, k) => m.add(u, k), predict: (u, out) => m.predict(u, out), score: () => m.leaveOneOutLogScore(), scores: () => m.leaveOneOutLogProbabilities() };
}

/**
 * A working model chosen by leave-one-out log score among candidates (see the module comment): the kernel
 * smoothers' scores are exact ({@link leaveOneOutLogScore}), the logit models' one Newton step from the full fit
 * ({@link OrdinalLevelModel.leaveOneOutLogScore}), the level shares' exact. Ties go to the first candidate in order:
 * the level shares (when tried), kernels, then logit models. O(N·(kernels + 1)) per label added, O(n·K·kernels) plus the logit models' fits per choice over n labels.
 */
export class SelectedLevelModel {
  private readonly candidates: Candidate[];
  private readonly fallback: Candidate;
  private readonly units: number[] = [];
  private readonly labels: number[] = [];
  private current: Candidate;
  private score: number | null = null;
  private readonly minLabels: number;
  private readonly marginal: boolean;

  /**
   * @param coords - per coordinate, the N candidates' positions in (0, 1)
   * @param levels - K, the number of levels
   * @param candidates - the models to choose from and the labels before the first choice
   * @param fallback - the kernel settings that predict before `minLabels` labels
   * @throws RangeError on no candidate, or minLabels not an integer ≥ 2
   */
  constructor(coords: readonly Float64Array[], levels: number, candidates: WorkingModelCandidates, fallback: LevelModelSettings) {
    if (candidates.kernels.length + (candidates.ordinal?.length ?? 0) + (candidates.marginal ? 1 : 0) === 0) throw new RangeError('working model: at least one candidate model is needed');
    if (!(Number.isInteger(candidates.minLabels) && candidates.minLabels >= 2)) throw new RangeError(`working model: minLabels must be an integer ≥ 2 (got ${candidates.minLabels})`);
    this.minLabels = candidates.minLabels;
    this.marginal = Boolean(candidates.marginal);
    this.candidates = [...(candidates.marginal ? [marginalCandidate(levels)] : []), ...candidates.kernels.map((s) => kernelCandidate(coords, levels, s)), ...(candidates.ordinal ?? []).map((s) => ordinalCandidate(coords, levels, s))];
    this.fallback = kernelCandidate(coords, levels, fallback);
    this.current = this.fallback;
  }

  /** Adds the label (level index) of candidate `unit` to every model. */
  add(unit: number, level: number): void {
    for (const m of this.candidates) m.add(unit, level);
    this.fallback.add(unit, level);
    this.units.push(unit);
    this.labels.push(level);
  }

  /** Number of labels added. */
  get size(): number {
    return this.units.length;
  }

  /**
   * Chooses the model that predicts from now on: the fallback before `minLabels` labels, else the candidate with the
   * best leave-one-out log score on the labels added (the first best in order).
   *
   * @returns the model chosen
   */
  select(): Readonly<WorkingModelSpec> {
    if (this.units.length < this.minLabels) {
      this.current = this.fallback;
      this.score = null;
      return this.current.spec;
    }
    let best = -Infinity;
    let chosen = this.candidates[0];
    if (this.marginal) {
      // the one-standard-error rule against the level shares (the first candidate)
      const lp = this.candidates.map((m) => m.scores(this.units, this.labels));
      const mean = (x: Float64Array) => x.reduce((a, b) => a + b, 0) / x.length;
      let top = 0;
      lp.forEach((x, j) => {
        if (mean(x) > mean(lp[top])) top = j;
      });
      const n = this.labels.length;
      const diff = lp[top].map((v, i) => v - lp[0][i]);
      const md = mean(diff);
      const se = Math.sqrt(diff.reduce((a, b) => a + (b - md) ** 2, 0) / Math.max(1, n - 1) / n);
      const pick = md > se ? top : 0;
      chosen = this.candidates[pick];
      best = mean(lp[pick]);
    } else {
      for (const m of this.candidates) {
        const s = m.score(this.units, this.labels);
        if (s > best) {
          best = s;
          chosen = m;
        }
      }
    }
    this.current = chosen;
    this.score = best;
    return chosen.spec;
  }

  /** The model that predicts now. */
  get chosen(): Readonly<WorkingModelSpec> {
    return this.current.spec;
  }

  /** Its leave-one-out log score at the last {@link select}; null while the fallback predicts. */
  get logScore(): number | null {
    return this.score;
  }

  /** The predicted level probabilities of candidate `unit` under the model chosen at the last {@link select}. */
  predict(unit: number, out: Float64Array): Float64Array {
    return this.current.predict(unit, out);
  }
}
