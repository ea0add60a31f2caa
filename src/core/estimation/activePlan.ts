/**
 * The estimate planner (issue 43 item 3; docs/estimation.md §3): which candidates the experts should label next so
 * that the interval on a coherence rate, an error category's share or a mean rating — per group, or as a difference
 * between two groups — narrows fastest, with the whole-pool estimate and its anytime-valid interval after every label,
 * the labels to go, and the stop.
 *
 * Each stratum (a group of `--by`, the whole pool, or the two groups of a difference) is planned by the sequential
 * design of the Spearman planner (`design/sequentialPlan.ts`: draws with known probabilities q ∝ the working model's
 * predicted standard deviation of a candidate's influence value, mixed with 5 % uniform; the model-assisted Des Raj
 * estimator; the normal-mixture confidence sequence), on the stratum's {@link EstimandTotals}. Its working model
 * predicts the planned group's outcome from the predictors (another group's labels, evaluators' scores): the
 * calibration of the predictors to the label scale, refitted between batches on the labels known — a function of the
 * labels revealed before each draw, so no cross-fitting is needed for validity (docs/estimation.md §3.2) — and the
 * model-assisted estimator is the sequential form of active prediction-powered inference (Zrnic & Candès 2024).
 *
 * Between strata, the next batch goes to the stratum whose interval is widest (not yet at the target, with candidates
 * left): a deterministic function of the labels revealed, so the plan replays from its record
 * ({@link EstimatePlanRecord}) and the labels in the file. Every stratum's interval is valid on its own at any stop
 * (1 − α each, not simultaneous over strata).
 */
import { siblingFile } from '../dialogue/siblingFile';
import type { DialogueItem } from '../dialogue/types';
import { permanentClocks, predictLabelsToGo } from '../design/labelsToGo';
import type { PlanEntry } from '../design/planOrder';
import { PLAN_RECORD_FORMAT, type EstimatePlanRecord, type EstimandSpec, type PlanStratum } from '../design/planRecord';
import { checkSettings, PLAN_DEFAULTS, planSettings, workingModelSettings, type ModelSelection, type PlanSettings } from '../design/planSettings';
import { SequentialPlan, type DesignKind, type DesignSettings, type PlanEstimate } from '../design/sequentialPlan';
import type { WorkingModelSpec } from '../design/workingModel';
import type { GroupRules } from '../labels/groups';
import { normalMixtureM, normalUpperQuantile } from '../stats/confidenceSequence';
import { levelIndex, type EstimandScale } from './estimands';
import { EstimandTotals, predictorCoordinates } from './estimandTotals';
import { estimationFingerprint, estimationPool, type EstimationPool, type EstimationPoolOptions } from './pool';

/**
 * The estimate planner's working-model choice: the Spearman planner's (kernels of the grid and the adjacent-category
 * logit model, from the 10th label on) with the level shares alone tried first, so that a predictor that carries no
 * information (noise) costs no labels against expert-only (docs/estimation.md, "How the defaults were chosen").
 */
export const ESTIMATE_MODEL_SELECTION: Readonly<ModelSelection> = { ...(PLAN_DEFAULTS.modelSelection as ModelSelection), marginal: true };

/**
 * Outcome levels above which the default choice leaves the adjacent-category logit model out: it has K − 1 + d
 * parameters and is refitted (with a leave-one-out step per label) before every batch, which for a mean rating (18
 * levels: the 17 means of up to three 1–5 ratings, and "no rating") costs minutes per plan; the kernel smoothers cost O(K)
 * per candidate and stay.
 */
export const ORDINAL_MAX_LEVELS = 8;

/**
 * The settings of a new estimate plan, simulation or bound: those given, the planner's defaults for the rest, with
 * {@link ESTIMATE_MODEL_SELECTION} (without its logit model when the estimand has more than {@link ORDINAL_MAX_LEVELS}
 * levels).
 */
export function estimateSettings(options: Partial<PlanSettings>, levels = 0): PlanSettings {
  const { ordinal, ...kernels } = ESTIMATE_MODEL_SELECTION;
  const selection: ModelSelection = levels > ORDINAL_MAX_LEVELS ? { ...kernels } : { ...kernels, ...(ordinal ? { ordinal } : {}) };
  return planSettings({ ...options, modelSelection: options.modelSelection === undefined ? selection : options.modelSelection });
}

/** One stratum's candidates: pool indices and, for a difference, each one's slot. */
export interface StratumUnits {
  key: string;
  units: number[];
  slots: number[];
}

/**
 * The strata of a plan or an estimate: one per group of `by` (those in `groups`, default every group), the whole pool
 * without `by`, or the candidates of the two groups of `compare` (slots 0 and 1).
 *
 * @throws Error on a compared or chosen group with no candidate, a candidate in both compared groups, or `compare` without `by`
 */
export function poolStrata(pool: EstimationPool, options: { compare?: [string, string]; groups?: string[] }): StratumUnits[] {
  if (options.compare) {
    if (pool.by === undefined) throw new Error('a difference between two groups needs --by');
    const [a, b] = options.compare;
    if (a === b) throw new Error(`compare: the two groups are the same ("${a}")`);
    const units: number[] = [];
    const slots: number[] = [];
    pool.units.forEach((u, i) => {
      const inA = u.groups.includes(a);
      const inB = u.groups.includes(b);
      if (inA && inB) throw new Error(`candidate "${u.candidateId}" of item "${u.itemId}" is in both "${a}" and "${b}"; a difference needs disjoint groups`);
      if (inA || inB) {
        units.push(i);
        slots.push(inA ? 0 : 1);
      }
    });
    for (const [g, s] of [[a, 0], [b, 1]] as const) if (!slots.includes(s)) throw new Error(`compare: no candidate is in the group "${g}" (groups: ${pool.groups.join(', ')})`);
    return [{ key: `${a} − ${b}`, units, slots }];
  }
  const keys = options.groups?.length ? options.groups : pool.groups;
  return keys.map((key) => {
    const units = pool.units.flatMap((u, i) => (u.groups.includes(key) ? [i] : []));
    if (units.length === 0) throw new Error(`no candidate is in the group "${key}" (groups: ${pool.groups.join(', ')})`);
    return { key, units, slots: units.map(() => 0) };
  });
}

/**
 * The labels at which an interval of half-width h is anticipated for a stratum of N candidates, before any label: the
 * fixed-size normal interval of a mean of values spread over the estimand's range (sd at most half the range), with
 * the finite-pool correction, n = n₀N/(n₀ + N), n₀ = (z·sd/h)²; clipped to [minLabels, N]. It only says where the
 * normal mixture is tightest (docs/labelling-plan.md §4).
 */
export function anticipatedEstimateLabels(halfWidth: number, candidates: number, scale: Pick<EstimandScale, 'bounds'>, level: number, minLabels: number, difference: boolean): number {
  const n = Math.max(1, candidates);
  const z = normalUpperQuantile((1 - level) / 2);
  const sd = ((scale.bounds[1] - scale.bounds[0]) / 2) * (difference ? Math.SQRT2 * 2 : 1);
  const n0 = ((z * sd) / halfWidth) ** 2;
  return Math.max(1, Math.min(n, Math.max(minLabels, Math.round((n0 * n) / (n0 + n)))));
}

/** Options of {@link startEstimatePlan}. */
export interface StartEstimatePlanOptions extends Partial<PlanSettings>, Omit<EstimationPoolOptions, 'estimand'> {
  estimand: EstimandSpec;
  /** The half-width every stratum is planned for. */
  halfWidth: number;
  /** Plan the difference of two groups of `by` (first − second). */
  compare?: [string, string];
  /** Only these groups of `by` (default every group). */
  groups?: string[];
  seed?: string | number;
  /** `planner` (default) or `uniform` (random order, same estimator). */
  design?: DesignKind;
  /** Treat no candidate as labelled at the start (the simulation's start). */
  ignoreExistingLabels?: boolean;
}

/**
 * Starts an estimate plan on `items`: its record (settings, seed, strata, the candidates fully labelled now, which
 * count exactly and are never drawn).
 *
 * @throws RangeError on bad settings or half-width; Error on a bad estimand, predictor or group
 */
export function startEstimatePlan(items: readonly DialogueItem[], options: StartEstimatePlanOptions): EstimatePlanRecord {
  if (!(options.halfWidth > 0)) throw new RangeError(`target half-width must be positive (got ${options.halfWidth})`);
  const pool = estimationPool(items, { ...options });
  const strata = poolStrata(pool, options);
  const scale = pool.estimand.scale(pool.labelsPerCandidate, pool.maxLabels);
  const settings = estimateSettings(options, scale.levels.length);
  checkSettings(settings);
  const start: [string, string][] = options.ignoreExistingLabels ? [] : pool.units.filter((u) => u.outcome !== null).map((u) => [u.itemId, u.candidateId]);
  const startSet = new Set(start.map(([a, b]) => `${a}\u0000${b}`));
  const planStrata: PlanStratum[] = strata.map((s) => {
    const open = s.units.filter((i) => !startSet.has(`${pool.units[i].itemId}\u0000${pool.units[i].candidateId}`)).length;
    return { key: s.key, candidates: s.units.length, anticipatedLabels: anticipatedEstimateLabels(options.halfWidth, open, scale, settings.level, settings.minLabels, Boolean(options.compare)) };
  });
  const inStrata = [...new Set(strata.flatMap((s) => s.units))].sort((a, b) => a - b).map((i) => pool.units[i]);
  return {
    format: PLAN_RECORD_FORMAT,
    seed: String(options.seed ?? 1),
    estimand: options.estimand,
    human: pool.human,
    labelsPerCandidate: pool.labelsPerCandidate,
    maxLabels: pool.maxLabels,
    predictors: pool.predictors,
    ...(pool.by !== undefined ? { by: pool.by } : {}),
    ...(options.compare ? { compare: options.compare } : {}),
    strata: planStrata,
    halfWidth: options.halfWidth,
    design: options.design ?? 'planner',
    ...settings,
    start,
    pool: { candidates: inStrata.length, fingerprint: estimationFingerprint(pool, inStrata) },
  };
}

/** A stratum ready to plan: its candidates, totals and the candidates known at the start (local index → level). */
export interface StratumModel extends StratumUnits {
  totals: EstimandTotals;
  start: Map<number, number>;
  anticipatedLabels: number;
}

/**
 * The strata of `pool` as a plan sees them: totals over the estimand's scale and the predictors' coordinates, and the
 * levels of the candidates in `known` (pool indices; all fully labelled).
 *
 * @throws Error when a known candidate's outcome is not one of the scale's levels (more labels than the plan allows)
 */
export function stratumModels(pool: EstimationPool, strata: readonly StratumUnits[], scale: EstimandScale, known: ReadonlySet<number>, anticipated: readonly number[]): StratumModel[] {
  return strata.map((s, j) => {
    const totals = new EstimandTotals(scale, s.slots, predictorCoordinates(s.units.map((i) => pool.units[i].predictors)));
    const start = new Map<number, number>();
    s.units.forEach((i, local) => {
      if (known.has(i)) start.set(local, unitLevel(pool, scale, i));
    });
    return { ...s, totals, start, anticipatedLabels: anticipated[j] };
  });
}

/** The level index of a fully labelled candidate. @throws Error when it is not labelled or its outcome is not a level */
export function unitLevel(pool: EstimationPool, scale: EstimandScale, i: number): number {
  const u = pool.units[i];
  if (u.outcome === null) throw new Error(`candidate "${u.candidateId}" of item "${u.itemId}" is not fully labelled`);
  const k = levelIndex(scale, u.outcome);
  if (k < 0) throw new Error(`candidate "${u.candidateId}" of item "${u.itemId}" has ${u.groupLabels} ${pool.human} labels (outcome ${u.outcome.join(', ')}), more than the plan was started for; start a new plan`);
  return k;
}

/** When a stratum's rule first held. */
export interface StratumStop {
  /** `half-width`: the interval reached the target; `exhausted`: every candidate of the stratum is labelled (exact value). */
  reason: 'half-width' | 'exhausted';
  /** Planned labels of the stratum then. */
  labels: number;
  estimate: PlanEstimate;
}

/**
 * Several strata planned as one sequence (the estimate planner's engine, shared by replays and simulations): batches
 * are drawn for one stratum at a time, the one whose interval is widest among those not at the target and not
 * exhausted (ties: fewer planned labels, then the strata's order); a batch is labelled before the next is drawn.
 */
export class StrataRun {
  readonly plans: SequentialPlan[];
  /** The first stop of each stratum (null while its rule has not held). */
  readonly stops: (StratumStop | null)[];
  /** Stratum of the current batch, −1 before the first. */
  current = -1;
  /** Batches in draw order: the stratum each went to. */
  readonly batches: number[] = [];
  private readonly ms: number[];
  private readonly alpha: number;

  /**
   * @param strata - the strata, their totals and candidates known at the start
   * @param clocks - per stratum, its candidates' permanent random numbers
   * @param design - design settings of every stratum
   * @param settings - level, target half-width and the burn-in before a stop
   */
  constructor(
    readonly strata: readonly StratumModel[],
    clocks: readonly Float64Array[],
    design: DesignSettings,
    readonly settings: { level: number; halfWidth: number; minLabels: number },
  ) {
    this.alpha = 1 - settings.level;
    this.plans = strata.map((s, j) => new SequentialPlan(s.totals, clocks[j], s.start, design));
    this.ms = strata.map((s) => normalMixtureM(s.anticipatedLabels, this.alpha));
    this.stops = strata.map(() => null);
    this.strata.forEach((_, j) => this.checkStop(j));
  }

  /** The normal mixture's parameter of a stratum. */
  mixture(j: number): number {
    return this.ms[j];
  }

  /** The estimate of stratum j now. */
  estimate(j: number): PlanEstimate {
    return this.plans[j].estimate(this.alpha, this.ms[j]);
  }

  private checkStop(j: number): void {
    if (this.stops[j]) return;
    const est = this.estimate(j);
    if (est.exact) this.stops[j] = { reason: 'exhausted', labels: est.labels, estimate: est };
    else if (est.labels >= this.settings.minLabels && est.value !== null && est.halfWidth !== null && est.halfWidth <= this.settings.halfWidth) this.stops[j] = { reason: 'half-width', labels: est.labels, estimate: est };
  }

  /** The stratum that draws the next batch, or −1 when every stratum is at its target or exhausted. */
  private schedule(): number {
    let best = -1;
    let bestWidth = -Infinity;
    let bestLabels = Infinity;
    this.plans.forEach((plan, j) => {
      if (this.stops[j] || plan.remaining === 0) return;
      const est = this.estimate(j);
      const width = est.labels < this.settings.minLabels || est.halfWidth === null ? Infinity : est.halfWidth;
      if (width > bestWidth || (width === bestWidth && est.labels < bestLabels)) {
        best = j;
        bestWidth = width;
        bestLabels = est.labels;
      }
    });
    return best;
  }

  /** The next draw waiting for its label: its stratum and the stratum's local candidate index, or null. */
  waiting(): { stratum: number; unit: number } | null {
    if (this.current < 0) return null;
    const plan = this.plans[this.current];
    return plan.revealed < plan.draws.length ? { stratum: this.current, unit: plan.draws[plan.revealed].unit } : null;
  }

  /**
   * Reveals labels in draw order while `levelOf` knows them, drawing each next batch when the current one is
   * labelled; stops at the first draw whose label is unknown (null), or when no stratum needs labels.
   *
   * @param levelOf - the level index of a stratum's local candidate, or null while it is not labelled
   * @param maxLabels - reveal at most this many labels (default: no limit)
   * @returns labels revealed
   */
  advance(levelOf: (stratum: number, unit: number) => number | null, maxLabels = Infinity): number {
    let revealed = 0;
    while (revealed < maxLabels) {
      const w = this.waiting();
      if (w) {
        const level = levelOf(w.stratum, w.unit);
        if (level === null) break;
        this.plans[w.stratum].reveal(level);
        this.checkStop(w.stratum);
        revealed++;
        continue;
      }
      const next = this.schedule();
      if (next < 0) break;
      this.plans[next].drawBatch();
      this.current = next;
      this.batches.push(next);
    }
    return revealed;
  }

  /** Whether every stratum is at its target or exhausted. */
  get done(): boolean {
    return this.stops.every((s) => s !== null);
  }

  /** Planned labels revealed, over all strata. */
  get labels(): number {
    return this.plans.reduce((a, p) => a + p.revealed, 0);
  }
}

/** The design settings of a record's strata. */
export function strataDesign(record: Pick<EstimatePlanRecord, 'design' | 'batch' | 'defensive' | 'bandwidth' | 'prior' | 'modelSelection'>): DesignSettings {
  return { design: record.design, batch: record.batch, defensive: record.defensive, ...workingModelSettings(record, false) };
}

/** One stratum's state in a plan. */
export interface StratumState {
  key: string;
  candidates: number;
  /** Labelled when the plan started (counted exactly). */
  start: number;
  /** Planned labels counted. */
  planned: number;
  /** The whole-stratum estimate and its anytime interval (a difference's `rhos` hold the two groups' values). */
  estimate: PlanEstimate;
  stop: StratumStop | null;
  /** Predicted labels still to make in this stratum (0 once stopped), null when not predictable yet. */
  labelsToGo: number | null;
  /** The working model that draws the stratum's next batch, with its leave-one-out log score (null before the first choice). */
  workingModel: { model: WorkingModelSpec; logScore: number | null };
}

/** An estimate plan's state on a file. */
export interface EstimatePlanState {
  record: EstimatePlanRecord;
  /** The estimand as one would read it. */
  estimand: string;
  strata: StratumState[];
  /** Drawn candidates first (label these), then the provisional order of the rest over all strata. */
  order: PlanEntry[];
  /** Σ of the strata's labels to go (null when one is not predictable yet). */
  labelsToGo: number | null;
  /** Every stratum has stopped. */
  stopped: boolean;
  counts: {
    pool: number;
    items: number;
    start: number;
    planned: number;
    /** Drawn and not yet counted. */
    drawn: number;
    /** Fully labelled candidates the design has not drawn yet (labelled outside the plan). */
    outsidePlan: number;
    /** Candidates with some but not all of the group's labels. */
    partial: number;
  };
}

/** Options of {@link estimatePlan}. */
export interface EstimatePlanOptions {
  groupRules?: GroupRules;
}

interface KeptRun {
  run: StrataRun;
  /** (pool index, level) of every revealed draw, in order. */
  revealed: [number, number][];
  start: string;
}

/** The last few replays (the editor replays after every label). */
const keptRuns = new Map<string, KeptRun>();
const KEPT_RUNS = 4;

/** Forgets the replays {@link estimatePlan} keeps (tests that compare replays from the start). */
export function forgetEstimateReplays(): void {
  keptRuns.clear();
}

/** The pool and strata of a record, checked against it. */
export function recordPool(items: readonly DialogueItem[], record: EstimatePlanRecord, groupRules?: GroupRules): { pool: EstimationPool; strata: StratumUnits[]; scale: EstimandScale } {
  const pool = estimationPool(items, { estimand: record.estimand, human: record.human, predictors: record.predictors, ...(record.by !== undefined ? { by: record.by } : {}), labelsPerCandidate: record.labelsPerCandidate, ...(groupRules ? { groupRules } : {}) });
  const strata = poolStrata(pool, { ...(record.compare ? { compare: record.compare } : {}), groups: record.compare ? undefined : record.strata.map((s) => s.key) });
  const inStrata = [...new Set(strata.flatMap((s) => s.units))].sort((a, b) => a - b).map((i) => pool.units[i]);
  const fingerprint = estimationFingerprint(pool, inStrata);
  if (inStrata.length !== record.pool.candidates || fingerprint !== record.pool.fingerprint || strata.some((s, j) => s.units.length !== record.strata[j].candidates)) {
    throw new Error(`the pool changed since the plan started (${record.pool.candidates} candidates, fingerprint ${record.pool.fingerprint}; now ${inStrata.length}, ${fingerprint}): candidates, their groups or the predictors' values (${record.predictors.join(', ') || 'none'}) were added, removed or changed. Start a new plan.`);
  }
  return { pool, strata, scale: pool.estimand.scale(record.labelsPerCandidate, record.maxLabels) };
}

/**
 * Replays the estimate plan of `record` on `items` and reports its state: per stratum the estimate, its anytime
 * interval, the stop and the labels to go; the order of the candidates to label. A call after one on the same record
 * continues that replay when the labels it revealed are unchanged, so it costs what the new labels cost.
 *
 * @throws Error when the pool changed since the plan started, or a candidate carries more labels than the plan allows
 */
export function estimatePlan(items: readonly DialogueItem[], record: EstimatePlanRecord, options: EstimatePlanOptions = {}): EstimatePlanState {
  const { pool, strata, scale } = recordPool(items, record, options.groupRules);
  const index = new Map(pool.units.map((u, i) => [`${u.itemId}\u0000${u.candidateId}`, i]));
  const known = new Set<number>();
  for (const [item, cand] of record.start) {
    const i = index.get(`${item}\u0000${cand}`);
    if (i === undefined) throw new Error(`the plan started with candidate "${cand}" of item "${item}" labelled, but it is no longer in the file`);
    if (pool.units[i].outcome === null) throw new Error(`the plan started with candidate "${cand}" of item "${item}" labelled, but it now has ${pool.units[i].groupLabels} of ${record.labelsPerCandidate} labels`);
    known.add(i);
  }
  const startKey = [...known].sort((a, b) => a - b).map((i) => `${i}:${unitLevel(pool, scale, i)}`).join(',');
  const key = JSON.stringify(record);
  const kept = keptRuns.get(key);
  let run: StrataRun;
  let revealed: [number, number][];
  const resumable = kept && kept.start === startKey && kept.revealed.every(([i, k]) => pool.units[i].outcome !== null && levelIndex(scale, pool.units[i].outcome as number[]) === k);
  if (kept && resumable) {
    run = kept.run;
    revealed = kept.revealed;
  } else {
    const models = stratumModels(pool, strata, scale, known, record.strata.map((s) => s.anticipatedLabels));
    const clocks = strata.map((s) => permanentClocks(record.seed, s.units.map((i) => pool.units[i])));
    run = new StrataRun(models, clocks, strataDesign(record), { level: record.level, halfWidth: record.halfWidth, minLabels: record.minLabels });
    revealed = [];
  }
  run.advance((s, local) => {
    const i = strata[s].units[local];
    if (pool.units[i].outcome === null) return null;
    const k = unitLevel(pool, scale, i);
    revealed.push([i, k]);
    return k;
  });
  keptRuns.delete(key);
  keptRuns.set(key, { run, revealed, start: startKey });
  if (keptRuns.size > KEPT_RUNS) keptRuns.delete(keptRuns.keys().next().value as string);
  return planState(run, pool, strata, record);
}

function planState(run: StrataRun, pool: EstimationPool, strata: readonly StratumUnits[], record: EstimatePlanRecord): EstimatePlanState {
  const labelled = (s: number) => (local: number) => pool.units[strata[s].units[local]].outcome !== null;
  const entry = (s: number, local: number, status: PlanEntry['status'], probability?: number): PlanEntry => {
    const u = pool.units[strata[s].units[local]];
    return { itemId: u.itemId, candidateId: u.candidateId, status, groupLabels: u.groupLabels, labelled: u.outcome !== null, ...(probability !== undefined ? { probability } : {}) };
  };
  const alpha = 1 - record.level;
  const states: StratumState[] = [];
  const provisional: { entry: PlanEntry; key: number }[] = [];
  let outsidePlan = 0;
  run.plans.forEach((plan, s) => {
    const est = run.estimate(s);
    const order = plan.provisionalOrder();
    const stop = run.stops[s];
    const toGo = stop ? 0 : predictLabelsToGo(plan, labelled(s), { halfWidth: record.halfWidth }, est, order, run.mixture(s), alpha, record.minLabels);
    states.push({ key: strata[s].key, candidates: strata[s].units.length, start: plan.started, planned: plan.revealed, estimate: est, stop, labelsToGo: toGo, workingModel: plan.workingModel });
    for (const local of order) if (labelled(s)(local)) outsidePlan++;
    if (stop) return;
    // Provisional entries of every open stratum, interleaved in proportion to what each still needs.
    const need = Math.max(1, toGo ?? order.length);
    order.forEach((local, j) => provisional.push({ entry: entry(s, local, 'provisional'), key: (j + 1) / (need + 1) + (j >= need ? 1 : 0) }));
  });
  const drawn: PlanEntry[] = [];
  if (run.current >= 0) {
    const plan = run.plans[run.current];
    let first = true;
    for (let d = plan.revealed; d < plan.draws.length; d++) {
      const draw = plan.draws[d];
      const isLabelled = labelled(run.current)(draw.unit);
      drawn.push(entry(run.current, draw.unit, isLabelled && !first ? 'waiting' : 'drawn', draw.probability));
      first = false;
    }
  }
  const seen = new Set<string>();
  const order: PlanEntry[] = [];
  for (const e of [...drawn, ...provisional.sort((a, b) => a.key - b.key).map((p) => p.entry)]) {
    const k = `${e.itemId}\u0000${e.candidateId}`;
    if (seen.has(k)) continue;
    seen.add(k);
    order.push(e);
  }
  const inStrata = new Set(strata.flatMap((s) => s.units));
  const items = new Set([...inStrata].map((i) => pool.units[i].itemId));
  const toGo = states.map((s) => s.labelsToGo);
  return {
    record,
    estimand: pool.estimand.name,
    strata: states,
    order,
    labelsToGo: toGo.some((v) => v === null) ? null : (toGo as number[]).reduce((a, b) => a + b, 0),
    stopped: run.done,
    counts: {
      pool: inStrata.size,
      items: items.size,
      start: states.reduce((a, s) => a + s.start, 0),
      planned: states.reduce((a, s) => a + s.planned, 0),
      drawn: drawn.length,
      outsidePlan,
      partial: [...inStrata].filter((i) => pool.units[i].outcome === null && pool.units[i].groupLabels > 0).length,
    },
  };
}

/** Where an estimate plan's record is kept beside a dialogue file: `<file without .dialogues.jsonl or .jsonl>.estimate-plan.json`. */
export function estimatePlanRecordPath(file: string): string {
  return siblingFile(file, '.estimate-plan.json');
}
