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
import type { DialogueItem } from '../dialogue/types';
import type { GroupRules, HumanGroup } from '../labels/groups';
import { normalMixtureM } from '../stats/confidenceSequence';
import { permanentClocks, predictLabelsToGo } from '../design/labelsToGo';
import { anticipatedLabels, checkSettings, planSettings, workingModelSettings, type PlanSettings, type PlanTarget } from '../design/planSettings';
import type { PlanEntry, PlanEntryStatus } from '../design/planOrder';
import { PLAN_RECORD_FORMAT, type LabelPlanRecord } from '../design/planRecord';
import { SequentialPlan, type DesignKind, type PlanEstimate } from '../design/sequentialPlan';
import type { WorkingModelSpec } from '../design/workingModel';
import { assistCoordinates, humanScoreLevels, labellingPool, poolFingerprint, type LabellingPool } from './pool';
import { humanScoreSpec, isCoherenceCount, type HumanScoreSpec } from '../rubric/labelValues';
import { MI_RUBRIC } from '../rubric/presets';
import type { Rubric } from '../rubric/rubric';
import { SpearmanTotals } from './spearmanTotals';

export { anticipatedLabels, PLAN_DEFAULTS, planSettings, workingModelSettings } from '../design/planSettings';
export type { ModelSelection, PlanSettings, PlanTarget } from '../design/planSettings';
export type { LabelPlanRecord } from '../design/planRecord';
export { planItemOrder } from '../design/planOrder';
export type { PlanEntry, PlanEntryStatus } from '../design/planOrder';

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

function checkTarget(target: PlanTarget, against: string | undefined): void {
  if ('halfWidth' in target) {
    if (!(target.halfWidth > 0)) throw new RangeError(`target half-width must be positive (got ${target.halfWidth})`);
  } else if (!against) throw new RangeError('a decision target needs a second evaluator (against)');
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
    format: PLAN_RECORD_FORMAT,
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

/** The permanent random numbers of a plan: an Exp(1) clock per candidate from seedrandom's Alea, keyed by seed and ids ({@link permanentClocks}). */
export function planClocks(seed: string, pool: Pick<LabellingPool, 'candidates'>): Float64Array {
  return permanentClocks(seed, pool.candidates);
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
 * @throws Error when the pool (candidates or scores) changed since the plan started, a label exceeds the plan's scale,
 *   or the record is an estimate plan's
 */
export function planLabels(items: readonly DialogueItem[], record: LabelPlanRecord, options: PlanLabelsOptions): LabelPlan {
  if ((record as { estimand?: unknown }).estimand != null) throw new Error('this record is an estimate plan\'s (it names an estimand; docs/estimation.md): replay it with estimatePlan / `reflect-eval estimate`');
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

  const labelsToGo = stop ? 0 : predictLabelsToGo(plan, (i) => pool.candidates[i].human !== null, options.target, estimate, provisional, m, alpha, record.minLabels);
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
