/**
 * The labelling planner (issue 16; method and guarantee in docs/labelling-plan.md): which candidate the group
 * should label next so that the interval on Spearman's rho of an evaluator with the human coherence score (or on
 * rho_A − rho_B) narrows fastest, the current design-weighted estimate for the whole pool with its anytime-valid
 * interval, an estimate of the labels to go, and the stopping rule.
 *
 * A plan is a {@link LabelPlanRecord} (settings, seed, the candidates already labelled when it started) plus the
 * labels in the dialogue file: {@link planLabels} replays the design from the record, revealing each drawn
 * candidate's label when the file has it, so the probabilities every label was drawn with are known without
 * storing them. Labels made outside the plan are used only when the design draws their candidate.
 */
import seedrandom from 'seedrandom';
import type { DialogueItem } from '../dialogue/types';
import type { GroupRules, HumanGroup } from '../labels/groups';
import { normalMixtureBoundary, normalMixtureM, normalUpperQuantile } from '../stats/confidenceSequence';
import { gridSettings, LEVEL_MODEL_GRID, type LevelModelSettings } from './levelModel';
import { assistCoordinates, humanScoreLevels, labellingPool, poolFingerprint, type LabellingPool } from './pool';
import { humanScoreSpec, isCoherenceCount, type HumanScoreRule, type HumanScoreSpec } from '../rubric/labelValues';
import { MI_RUBRIC } from '../rubric/presets';
import type { Rubric } from '../rubric/rubric';
import { SequentialPlan, type DesignKind, type DesignSettings, type PlanEstimate } from './sequentialPlan';
import { SpearmanTotals } from './spearmanTotals';
import type { WorkingModelSpec } from './workingModel';

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
  return m ? { bandwidths: [...m.bandwidths], priors: [...m.priors], minLabels: m.minLabels, ...(m.ordinal ? { ordinal: m.ordinal.map((o) => ({ ...o })) } : {}) } : null;
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

/** Everything needed to replay a plan on a dialogue file (JSON-serialisable; the CLI keeps it beside the file). */
export interface LabelPlanRecord extends Omit<PlanSettings, 'modelSelection'> {
  format: 'reflect-eval.label-plan/1';
  /** Absent (records written before the choice existed) or null: `bandwidth` and `prior` throughout. */
  modelSelection?: ModelSelection | null;
  seed: string;
  evaluator: string;
  against?: string;
  human: HumanGroup;
  labelsPerCandidate: number;
  /** The pool is one column of the correlation table (absent: every candidate). */
  column?: { groupBy: string; value: string };
  /** Assisting signals of the working model (other evaluators, `human:<group>`; {@link PoolOptions.assist}). */
  assist?: string[];
  /** The human-score levels 0..max (max ≥ labelsPerCandidate); for another rule, the most labels a candidate had. */
  maxScore: number;
  /** The rubric dimension of the human score, when it is not the MI preset's coherence count. */
  dimension?: string;
  /** Its rule (with `dimension`). */
  humanScore?: HumanScoreRule;
  design: DesignKind;
  /** Labels at which the interval is made tightest (the normal mixture's t_opt), fixed when the plan starts. */
  anticipatedLabels: number;
  /** Candidates fully labelled when the plan started: counted exactly, never drawn. */
  start: [itemId: string, candidateId: string][];
  pool: { candidates: number; fingerprint: string };
  created?: string;
}

/** Options of {@link startLabelPlan}. */
export interface StartPlanOptions extends Partial<PlanSettings> {
  evaluator: string;
  against?: string;
  human: HumanGroup | 'auto';
  target: PlanTarget;
  labelsPerCandidate?: number;
  seed?: string | number;
  /** `planner` (default) or `uniform` (random order, same estimator). */
  design?: DesignKind;
  groupRules?: GroupRules;
  /** Treat no candidate as already labelled (the simulation's start). */
  ignoreExistingLabels?: boolean;
  /** Restrict the pool to one column (e.g. `{ groupBy: 'origin', value: 'GPT-2' }`). */
  column?: { groupBy: string; value: string };
  /** Assisting signals of the working model ({@link PoolOptions.assist}): they change the order, never the estimand. */
  assist?: string[];
  /** The human score's dimension and rule (default: the MI preset's coherence count; {@link PoolOptions.spec}). */
  spec?: HumanScoreSpec;
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

function checkTarget(target: PlanTarget, against: string | undefined): void {
  if ('halfWidth' in target) {
    if (!(target.halfWidth > 0)) throw new RangeError(`target half-width must be positive (got ${target.halfWidth})`);
  } else if (!against) throw new RangeError('a decision target needs a second evaluator (against)');
}

function checkSettings(s: PlanSettings): void {
  if (!(s.level > 0 && s.level < 1)) throw new RangeError(`level must be in (0, 1) (got ${s.level})`);
  if (!(Number.isInteger(s.batch) && s.batch >= 1)) throw new RangeError(`batch must be a positive integer (got ${s.batch})`);
  if (!(Number.isInteger(s.minLabels) && s.minLabels >= 1)) throw new RangeError(`minLabels must be a positive integer (got ${s.minLabels})`);
  if (!(s.defensive >= 0 && s.defensive <= 1)) throw new RangeError(`defensive share must be in [0, 1] (got ${s.defensive})`);
  if (!(s.bandwidth > 0)) throw new RangeError(`bandwidth must be positive (got ${s.bandwidth})`);
  if (!(s.prior > 0)) throw new RangeError(`prior must be positive (got ${s.prior})`);
  const m = s.modelSelection;
  if (m) {
    if (!(Number.isInteger(m.minLabels) && m.minLabels >= 2)) throw new RangeError(`modelSelection.minLabels must be an integer ≥ 2 (got ${m.minLabels})`);
    if (m.bandwidths.length || m.priors.length || !m.ordinal?.length) gridSettings(m);
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
  return s.modelSelection ? { model, modelSelection: { kernels: s.modelSelection.bandwidths.length ? gridSettings(s.modelSelection) : [], ...(s.modelSelection.ordinal ? { ordinal: s.modelSelection.ordinal } : {}), minLabels: s.modelSelection.minLabels } } : { model };
}

/**
 * Starts a plan on `items`: the record of its settings, its seed and the candidates already labelled.
 *
 * @throws RangeError on bad settings or target; Error when an evaluator scores fewer than 3 candidates
 */
export function startLabelPlan(items: readonly DialogueItem[], options: StartPlanOptions): LabelPlanRecord {
  const settings = planSettings(options);
  checkSettings(settings);
  checkTarget(options.target, options.against);
  const pool = labellingPool(items, options);
  if (pool.candidates.length < 3) throw new Error(`the pool has ${pool.candidates.length} candidate(s) scored by ${pool.evaluators.join(' and ')}; a correlation needs at least 3`);
  const start: [string, string][] = options.ignoreExistingLabels ? [] : pool.candidates.filter((c) => c.human !== null).map((c) => [c.itemId, c.candidateId]);
  const maxScore = Math.max(pool.labelsPerCandidate, ...pool.candidates.map((c) => c.groupLabels));
  return {
    format: 'reflect-eval.label-plan/1',
    seed: String(options.seed ?? 1),
    evaluator: options.evaluator,
    ...(options.against ? { against: options.against } : {}),
    human: pool.human,
    labelsPerCandidate: pool.labelsPerCandidate,
    ...(isCoherenceCount(pool.spec) ? {} : { dimension: pool.spec.dimension.name, humanScore: pool.spec.rule }),
    ...(options.column ? { column: options.column } : {}),
    ...(options.assist?.length ? { assist: options.assist } : {}),
    maxScore,
    design: options.design ?? 'planner',
    ...settings,
    anticipatedLabels: anticipatedLabels(options.target, pool.candidates.length - start.length, settings.level, settings.minLabels),
    start,
    pool: { candidates: pool.candidates.length, fingerprint: poolFingerprint(pool) },
  };
}

/** The permanent random numbers of a plan: an Exp(1) clock per candidate from seedrandom's Alea, keyed by seed and ids. */
export function planClocks(seed: string, pool: Pick<LabellingPool, 'candidates'>): Float64Array {
  return Float64Array.from(pool.candidates, (c) => -Math.log(1 - seedrandom.alea(`${seed}\u0000${c.itemId}\u0000${c.candidateId}`)()));
}

/** Where a candidate stands in the plan. */
export type PlanEntryStatus =
  /** Drawn by the design and not yet labelled by the whole group: label it now. */
  | 'drawn'
  /** Drawn and fully labelled, but counted only once the earlier drawn candidates are (labels enter in draw order). */
  | 'waiting'
  /** Not drawn yet: where the design would put it if the labels come in as the model expects (may change). */
  | 'provisional';

/** One unlabelled (or drawn, waiting) candidate in the plan's order. */
export interface PlanEntry {
  itemId: string;
  candidateId: string;
  status: PlanEntryStatus;
  /** Group labels it has (out of labelsPerCandidate). */
  groupLabels: number;
  /** Fully labelled already (outside the plan, or waiting): needs no more labels. */
  labelled: boolean;
  /** For drawn candidates: the probability it was drawn with. */
  probability?: number;
}

/** When the stopping rule held. */
export interface PlanStop {
  /** `half-width`: the interval is as narrow as the target; `decided`: the interval on rho_A − rho_B excludes 0; `exhausted`: every pool candidate is labelled (exact value). */
  reason: 'half-width' | 'decided' | 'exhausted';
  /** Planned labels when it first held. */
  labels: number;
  /** For decisions: the evaluator with the larger rho (`a` = evaluator, `b` = against), null on an exact tie. */
  winner?: 'a' | 'b' | null;
  estimate: PlanEstimate;
}

/** The state of a plan on a file. */
export interface LabelPlan {
  record: LabelPlanRecord;
  target: PlanTarget;
  /** rho of the evaluator, or rho_A − rho_B. */
  estimand: 'rho' | 'difference';
  estimate: PlanEstimate;
  /** The first time the stopping rule held (checked after every planned label), or null. */
  stop: PlanStop | null;
  /** Predicted labels still to make until the rule holds (0 once it has; the remaining unlabelled candidates when only exhausting the pool would do), or null when it cannot be predicted yet. */
  labelsToGo: number | null;
  /** Drawn candidates first (label these), then the provisional order of the rest. */
  order: PlanEntry[];
  /**
   * The working model the provisional order (and the next batch) comes from, and its leave-one-out log score on the
   * labels known (null for a fixed model, or before the first choice).
   */
  workingModel: { model: WorkingModelSpec; logScore: number | null };
  counts: {
    pool: number;
    items: number;
    /** Labelled when the plan started. */
    start: number;
    /** Planned labels counted in the estimate. */
    planned: number;
    /** Drawn candidates not yet counted (not fully labelled, or waiting for an earlier one). */
    drawn: number;
    /** Fully labelled candidates the design has not drawn yet (labelled outside the plan). */
    outsidePlan: number;
    /** Candidates with some but not all group labels. */
    partial: number;
    /** Candidates of the file without a usable score (not in the pool). */
    missingScore: number;
  };
}

/** Options of {@link planLabels}. */
export interface PlanLabelsOptions {
  target: PlanTarget;
  groupRules?: GroupRules;
  /** The study's rubric, for a record on a dimension (default the MI preset). */
  rubric?: Rubric;
}

/** The human-score spec a record was started with. */
export function recordSpec(record: Pick<LabelPlanRecord, 'dimension' | 'humanScore'>, rubric: Rubric = MI_RUBRIC): HumanScoreSpec {
  return humanScoreSpec(rubric, record.dimension, record.humanScore);
}

function stopRule(target: PlanTarget, est: PlanEstimate, minLabels: number): PlanStop | null {
  if (est.exact) {
    const winner = 'decide' in target ? (est.value === null || est.value === 0 ? null : est.value > 0 ? 'a' : 'b') : undefined;
    return { reason: 'exhausted', labels: est.labels, ...(winner !== undefined ? { winner } : {}), estimate: est };
  }
  if (est.labels < minLabels || est.value === null || est.halfWidth === null) return null;
  if ('halfWidth' in target) return est.halfWidth <= target.halfWidth ? { reason: 'half-width', labels: est.labels, estimate: est } : null;
  if (est.lower !== null && est.lower > 0) return { reason: 'decided', labels: est.labels, winner: 'a', estimate: est };
  if (est.upper !== null && est.upper < 0) return { reason: 'decided', labels: est.labels, winner: 'b', estimate: est };
  return null;
}

/** Builds the totals and the start map of a pool under a record. */
export function planModel(pool: LabellingPool, record: LabelPlanRecord): { totals: SpearmanTotals; start: Map<number, number> } {
  const levels = humanScoreLevels(pool.spec, record.labelsPerCandidate, record.maxScore);
  const totals = new SpearmanTotals(record.against ? [pool.candidates.map((c) => c.scores[0]), pool.candidates.map((c) => c.scores[1])] : [pool.candidates.map((c) => c.scores[0])], levels);
  const index = new Map(pool.candidates.map((c, i) => [`${c.itemId}\u0000${c.candidateId}`, i]));
  const start = new Map<number, number>();
  for (const [item, cand] of record.start) {
    const i = index.get(`${item}\u0000${cand}`);
    if (i === undefined) throw new Error(`the plan started with candidate "${cand}" of item "${item}" labelled, but it is no longer in the pool`);
    const c = pool.candidates[i];
    if (c.human === null) throw new Error(`the plan started with candidate "${cand}" of item "${item}" labelled, but it now has ${c.groupLabels} of ${record.labelsPerCandidate} labels`);
    start.set(i, levelOf(totals, c.human, c, record));
  }
  return { totals, start };
}

function levelOf(totals: SpearmanTotals, human: number, c: { itemId: string; candidateId: string; groupLabels: number }, record: LabelPlanRecord): number {
  if ((record.dimension === undefined && human > record.maxScore) || c.groupLabels > record.maxScore) throw new Error(`candidate "${c.candidateId}" of item "${c.itemId}" has ${c.groupLabels} ${record.human} labels, more than the ${record.maxScore} the plan was started with; start a new plan`);
  return totals.levelIndex(human);
}

/** A replay kept for the next call on the same record and target: the plan as it stood, and the stop it had met. */
interface KeptReplay {
  plan: SequentialPlan;
  stop: PlanStop | null;
  start: ReadonlyMap<number, number>;
}

/** The last few replays, by record and target (the editor replays after every label; a few documents at a time). */
const keptReplays = new Map<string, KeptReplay>();
const KEPT_REPLAYS = 4;

function rememberReplay(key: string, replay: KeptReplay): void {
  keptReplays.delete(key);
  keptReplays.set(key, replay);
  if (keptReplays.size > KEPT_REPLAYS) keptReplays.delete(keptReplays.keys().next().value as string);
}

/**
 * The kept replay of `key` when the labels it revealed are still those of the pool (same levels, same labels at
 * the start): the plan is a deterministic function of them, so continuing it gives what a replay from the start
 * gives, at the cost of the new labels only. Undefined otherwise (a label changed or was removed: replay anew).
 */
function resumableReplay(key: string, pool: LabellingPool, totals: SpearmanTotals, start: ReadonlyMap<number, number>, record: LabelPlanRecord): KeptReplay | undefined {
  const kept = keptReplays.get(key);
  if (!kept || kept.start.size !== start.size) return undefined;
  for (const [unit, level] of start) if (kept.start.get(unit) !== level) return undefined;
  for (let s = 0; s < kept.plan.revealed; s++) {
    const d = kept.plan.draws[s];
    const c = pool.candidates[d.unit];
    if (c.human === null || levelOf(totals, c.human, c, record) !== d.level) return undefined;
  }
  return kept;
}

/** Forgets the replays {@link planLabels} keeps (for tests that time or compare replays from the start). */
export function forgetPlanReplays(): void {
  keptReplays.clear();
}

/**
 * Replays the plan of `record` on `items` and reports its state: estimate and interval, the stop (if the rule has
 * held), labels to go, and the order of the candidates to label. A call after one on the same record and target
 * continues that replay when the labels it revealed are unchanged (the editor replays after every label), so it
 * costs what the new labels cost.
 *
 * @throws Error when the pool (candidates or scores) changed since the plan started, or a label exceeds the plan's scale
 */
export function planLabels(items: readonly DialogueItem[], record: LabelPlanRecord, options: PlanLabelsOptions): LabelPlan {
  checkTarget(options.target, record.against);
  const pool = labellingPool(items, { evaluator: record.evaluator, against: record.against, human: record.human, labelsPerCandidate: record.labelsPerCandidate, groupRules: options.groupRules, column: record.column, ...(record.assist ? { assist: record.assist } : {}), spec: recordSpec(record, options.rubric) });
  const fingerprint = poolFingerprint(pool);
  if (pool.candidates.length !== record.pool.candidates || fingerprint !== record.pool.fingerprint) {
    throw new Error(`the pool changed since the plan started (${record.pool.candidates} candidates, fingerprint ${record.pool.fingerprint}; now ${pool.candidates.length}, ${fingerprint}): candidates or ${pool.evaluators.join(' / ')} scores were added, removed or changed. Start a new plan.`);
  }
  const { totals, start } = planModel(pool, record);
  const key = `${JSON.stringify(record)}\u0000${JSON.stringify(options.target)}`;
  const resumed = resumableReplay(key, pool, totals, start, record);
  const plan =
    resumed?.plan ??
    new SequentialPlan(totals, planClocks(record.seed, pool), start, {
      design: record.design,
      batch: record.batch,
      defensive: record.defensive,
      ...workingModelSettings(record, Boolean(record.against)),
      ...(record.assist?.length ? { assistCoords: assistCoordinates(pool) } : {}),
    });
  const alpha = 1 - record.level;
  const m = normalMixtureM(record.anticipatedLabels, alpha);
  let stop: PlanStop | null = resumed?.stop ?? null;
  for (;;) {
    if (plan.revealed < plan.draws.length) {
      const d = plan.draws[plan.revealed];
      const c = pool.candidates[d.unit];
      if (c.human === null) break;
      plan.reveal(levelOf(totals, c.human, c, record));
      if (!stop) stop = stopRule(options.target, plan.estimate(alpha, m), record.minLabels);
    } else if (plan.remaining > 0) plan.drawBatch();
    else break;
  }
  rememberReplay(key, { plan, stop, start });
  const estimate = plan.estimate(alpha, m);
  if (!stop && start.size === pool.candidates.length) stop = stopRule(options.target, estimate, record.minLabels);

  const entry = (i: number, status: PlanEntryStatus, probability?: number): PlanEntry => {
    const c = pool.candidates[i];
    return { itemId: c.itemId, candidateId: c.candidateId, status, groupLabels: c.groupLabels, labelled: c.human !== null, ...(probability !== undefined ? { probability } : {}) };
  };
  const drawnEntries: PlanEntry[] = [];
  let firstWaiting = true;
  for (let s = plan.revealed; s < plan.draws.length; s++) {
    const d = plan.draws[s];
    const labelled = pool.candidates[d.unit].human !== null;
    drawnEntries.push(entry(d.unit, labelled && !firstWaiting ? 'waiting' : 'drawn', d.probability));
    firstWaiting = false;
  }
  const provisional = plan.provisionalOrder();
  const order = [...drawnEntries, ...provisional.map((i) => entry(i, 'provisional'))];

  const labelsToGo = stop ? 0 : predictLabelsToGo(plan, pool, options.target, estimate, provisional, m, alpha, record.minLabels);
  let outsidePlan = 0;
  for (const i of provisional) if (pool.candidates[i].human !== null) outsidePlan++;
  return {
    record,
    target: options.target,
    estimand: record.against ? 'difference' : 'rho',
    estimate,
    stop,
    labelsToGo,
    order,
    workingModel: plan.workingModel,
    counts: {
      pool: pool.candidates.length,
      items: pool.items,
      start: start.size,
      planned: plan.revealed,
      drawn: plan.draws.length - plan.revealed,
      outsidePlan,
      partial: pool.candidates.filter((c) => c.human === null && c.groupLabels > 0).length,
      missingScore: pool.missingScore,
    },
  };
}

/**
 * Labels to go: the interval after k more planned steps is predicted as u(V + r·k)/(Σλ + Σ 1/σ̂_j), with σ̂_j the
 * recorded σ̂ of drawn candidates and the model's prediction along the provisional order for the rest, and r the
 * realised intrinsic time per label so far (1 before `minLabels`); a decision keeps the current estimate. Steps on
 * candidates already labelled cost no label. Exhausting the pool always stops (exact value).
 */
function predictLabelsToGo(plan: SequentialPlan, pool: LabellingPool, target: PlanTarget, est: PlanEstimate, provisional: readonly number[], m: number, alpha: number, minLabels: number): number | null {
  if ('decide' in target && est.value === null) return null;
  const sigmas: { sigma: number; cost: number }[] = [];
  for (let s = plan.revealed; s < plan.draws.length; s++) sigmas.push({ sigma: plan.draws[s].sigma, cost: pool.candidates[plan.draws[s].unit].human === null ? 1 : 0 });
  const predicted = plan.predictedSigmas(provisional);
  provisional.forEach((i, j) => sigmas.push({ sigma: predicted[j], cost: pool.candidates[i].human === null ? 1 : 0 }));
  const labels = est.labels;
  const rate = labels >= minLabels && est.weightSum > 0 ? Math.max(est.intrinsicTime / labels, 1e-6) : 1;
  let weightSum = Number.isFinite(est.weightSum) ? est.weightSum : 0;
  let v = est.intrinsicTime;
  let cost = 0;
  for (let j = 0; j < sigmas.length; j++) {
    cost += sigmas[j].cost;
    if (j === sigmas.length - 1) return cost; // the last step makes the estimate exact
    weightSum += 1 / Math.max(sigmas[j].sigma, 1e-9);
    v += rate;
    if (labels + j + 1 < minLabels) continue;
    const hw = normalMixtureBoundary(v, m, alpha) / weightSum;
    if ('halfWidth' in target ? hw <= target.halfWidth : hw < Math.abs(est.value as number)) return cost;
  }
  return cost;
}

/**
 * Item ids in plan order, for an item list: first the items holding candidates to label (by their earliest
 * candidate in {@link LabelPlan.order} that still needs labels), then the other items in their file order.
 * Carries no score or origin (blind mode can show it as is; see docs/labelling-plan.md on what the order implies).
 */
export function planItemOrder(plan: Pick<LabelPlan, 'order'>, items: readonly Pick<DialogueItem, 'id'>[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const o of plan.order) {
    if (o.labelled || seen.has(o.itemId)) continue;
    seen.add(o.itemId);
    out.push(o.itemId);
  }
  for (const it of items) if (!seen.has(it.id)) out.push(it.id);
  return out;
}
