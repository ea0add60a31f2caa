/**
 * The settings every labelling plan shares (docs/labelling-plan.md §2–4): the confidence level, batches, the stop's
 * burn-in, the defensive uniform share and the working model (fixed, or chosen from the labels before every batch),
 * with their defaults; the anticipated number of labels that fixes the normal mixture; and the design settings a
 * {@link SequentialPlan} is built with. The Spearman planner (`planning/`) and the estimate planner (`estimation/`)
 * read them from the same record ({@link PlanRecordCommon}).
 */
import { normalUpperQuantile } from '../stats/confidenceSequence';
import { gridSettings, LEVEL_MODEL_GRID, type LevelModelSettings } from './levelModel';
import type { DesignSettings, SequentialPlan } from './sequentialPlan';

/** What the plan aims at: an interval half-width, or a decision between A and B (needs `against`). */
export type PlanTarget = { halfWidth: number } | { decide: true };

/** Settings with defaults (see {@link PLAN_DEFAULTS}). */
export interface PlanSettings {
  /** Confidence level of the interval, in (0, 1). */
  level: number;
  /** Draws per batch; the working model is refitted between batches. */
  batch: number;
  /** No stop before this many planned labels (the interval is asymptotic). */
  minLabels: number;
  /** Share of the uniform design mixed into the planner's probabilities. */
  defensive: number;
  /**
   * Kernel bandwidth of the working model on the (0, 1) rank scale (one evaluator; × 1.5 for a pair): throughout
   * without `modelSelection`, else until its first choice.
   */
  bandwidth: number;
  /** Prior weight of the working model (as `bandwidth`). */
  prior: number;
  /**
   * How the working model is chosen: null keeps the kernel model of `bandwidth` and `prior` throughout (as every plan
   * did before the choice existed); otherwise, before every batch, the candidate model whose leave-one-out log score
   * on the labels known so far is best (see {@link ModelSelection}).
   */
  modelSelection: ModelSelection | null;
}

/**
 * The working model chosen from the labels (docs/labelling-plan.md, §2; `workingModel.ts`): before every batch, from
 * `minLabels` known labels on, the candidate that predicts the labels known so far best, each from all the others
 * (leave-one-out log score), among the kernel models of the grid (every bandwidth with every prior,
 * {@link gridSettings}) and the adjacent-category logit models (`ordinalModel.ts`). A deterministic function of the
 * labels revealed before the batch, so plans replay; the candidates are kept in the record, so a later change of the
 * defaults changes no existing plan.
 */
export interface ModelSelection {
  /** Kernel bandwidths tried, on the (0, 1) rank scale (every coordinate, one evaluator or a pair), each > 0; empty with `priors` for no kernel. */
  bandwidths: number[];
  /** Kernel prior weights tried, each > 0. */
  priors: number[];
  /** Known labels before the first choice (integer ≥ 2); until then the kernel of `bandwidth` and `prior` predicts. */
  minLabels: number;
  /** Adjacent-category logit models tried after the kernels: ridge precision on the slopes and pseudo-observations, each > 0 (absent: none). */
  ordinal?: { ridge: number; prior: number }[];
  /** Start from the level shares alone and keep them unless a model beats them by more than one standard error (`workingModel.ts`); absent or false: not tried (the estimate planner's default sets it). */
  marginal?: boolean;
}

/**
 * Defaults, fixed before any evaluation on the reported data: level 0.95, batches of 5 (a batch can go to
 * several annotators at once), at least 20 planned labels before a stop, 5 % uniform draws, and the working model
 * chosen before every batch from the 10th known label on among the kernels of {@link LEVEL_MODEL_GRID} and one
 * adjacent-category logit model (ridge 1, 2 pseudo-observations), with the kernel of bandwidth 0.1 and prior 2 before.
 * The share and the model were chosen on generated pools only (`scripts/planning/modelChoice.ts`,
 * docs/labelling-plan.md); plans started before them (20 % uniform, the fixed kernel) keep theirs in their records.
 */
export const PLAN_DEFAULTS: Readonly<PlanSettings> = {
  level: 0.95,
  batch: 5,
  minLabels: 20,
  defensive: 0.05,
  bandwidth: 0.1,
  prior: 2,
  modelSelection: { bandwidths: [...LEVEL_MODEL_GRID.bandwidths], priors: [...LEVEL_MODEL_GRID.priors], minLabels: 10, ordinal: [{ ridge: 1, prior: 2 }] },
};

/** A copy of a model choice (records and settings must not share the defaults' arrays). */
function copySelection(m: ModelSelection | null | undefined): ModelSelection | null {
  return m ? { bandwidths: [...m.bandwidths], priors: [...m.priors], minLabels: m.minLabels, ...(m.ordinal ? { ordinal: m.ordinal.map((o) => ({ ...o })) } : {}), ...(m.marginal ? { marginal: true } : {}) } : null;
}

/**
 * The settings of a new plan or a simulation: those given, the defaults for the rest (a model choice of `null` is
 * kept: the fixed kernel).
 */
export function planSettings(options: Partial<PlanSettings>): PlanSettings {
  return {
    level: options.level ?? PLAN_DEFAULTS.level,
    batch: options.batch ?? PLAN_DEFAULTS.batch,
    minLabels: options.minLabels ?? PLAN_DEFAULTS.minLabels,
    defensive: options.defensive ?? PLAN_DEFAULTS.defensive,
    bandwidth: options.bandwidth ?? PLAN_DEFAULTS.bandwidth,
    prior: options.prior ?? PLAN_DEFAULTS.prior,
    modelSelection: copySelection(options.modelSelection === undefined ? PLAN_DEFAULTS.modelSelection : options.modelSelection),
  };
}

/**
 * The anticipated number of labels for a target, before any label: the fixed-size sample whose normal interval
 * on a correlation near 0 (standard error ≈ 1/√n, with the finite-pool correction 1 − n/N) has the target
 * half-width: n = n₀·N/(n₀ + N), n₀ = (z_{1−α/2}/h)²; N/2 for a decision; clipped to [minLabels, N].
 */
export function anticipatedLabels(target: PlanTarget, unlabelled: number, level: number, minLabels: number): number {
  const n = Math.max(1, unlabelled);
  let t: number;
  if ('halfWidth' in target) {
    const z = normalUpperQuantile((1 - level) / 2);
    const n0 = (z / target.halfWidth) ** 2;
    t = (n0 * n) / (n0 + n);
  } else t = n / 2;
  return Math.max(1, Math.min(n, Math.max(minLabels, Math.round(t))));
}

export function checkSettings(s: PlanSettings): void {
  if (!(s.level > 0 && s.level < 1)) throw new RangeError(`level must be in (0, 1) (got ${s.level})`);
  if (!(Number.isInteger(s.batch) && s.batch >= 1)) throw new RangeError(`batch must be a positive integer (got ${s.batch})`);
  if (!(Number.isInteger(s.minLabels) && s.minLabels >= 1)) throw new RangeError(`minLabels must be a positive integer (got ${s.minLabels})`);
  if (!(s.defensive >= 0 && s.defensive <= 1)) throw new RangeError(`defensive share must be in [0, 1] (got ${s.defensive})`);
  if (!(s.bandwidth > 0)) throw new RangeError(`bandwidth must be positive (got ${s.bandwidth})`);
  if (!(s.prior > 0)) throw new RangeError(`prior must be positive (got ${s.prior})`);
  const m = s.modelSelection;
  if (m) {
    if (!(Number.isInteger(m.minLabels) && m.minLabels >= 2)) throw new RangeError(`modelSelection.minLabels must be an integer ≥ 2 (got ${m.minLabels})`);
    if (m.bandwidths.length || m.priors.length || (!m.ordinal?.length && !m.marginal)) gridSettings(m);
    for (const o of m.ordinal ?? []) if (!(o.ridge > 0 && o.prior > 0 && Number.isFinite(o.ridge) && Number.isFinite(o.prior))) throw new RangeError(`modelSelection.ordinal: ridge and prior must be positive (got ${o.ridge}, ${o.prior})`);
  }
}

/**
 * The working-model part of a plan's design settings: the kernel of the record's (or simulation's) bandwidth (× 1.5
 * for a pair) and prior, and, with a {@link ModelSelection}, the candidates it chooses from and when it starts.
 *
 * @param pair - the plan is for rho_A − rho_B (two rank coordinates)
 * @throws RangeError on a kernel grid with bandwidths but no prior (or the reverse), or a value that is not positive
 */
export function workingModelSettings(s: Pick<PlanSettings, 'bandwidth' | 'prior'> & { modelSelection?: ModelSelection | null }, pair: boolean): Pick<DesignSettings, 'model' | 'modelSelection'> {
  const model: LevelModelSettings = { bandwidth: pair ? s.bandwidth * 1.5 : s.bandwidth, prior: s.prior };
  return s.modelSelection ? { model, modelSelection: { kernels: s.modelSelection.bandwidths.length ? gridSettings(s.modelSelection) : [], ...(s.modelSelection.ordinal ? { ordinal: s.modelSelection.ordinal } : {}), ...(s.modelSelection.marginal ? { marginal: true } : {}), minLabels: s.modelSelection.minLabels } } : { model };
}