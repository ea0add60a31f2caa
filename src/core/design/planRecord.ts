/**
 * The record of a labelling plan: ONE typed format for both planners (issue 43 item 3). A record holds what a plan
 * needs to replay on a dialogue file — its seed, its settings, the candidates already labelled when it started and a
 * fingerprint of its pool — and says what it estimates:
 *
 * - no `estimand` field: the Spearman planner's record (`planning/`, docs/labelling-plan.md): an evaluator's
 *   Spearman rho with the human coherence score, or rho_A − rho_B. Every record written before the estimate planner
 *   existed is of this kind and replays unchanged;
 * - an `estimand` field: the estimate planner's record (`estimation/`, docs/estimation.md): a coherence rate, an
 *   error category's share or a mean rating, per group or as a difference between two groups, with predictors.
 *
 * The file is JSON (the CLI keeps it in `<file>.label-plan.json` beside the dialogue file, and the editor follows the
 * same file); {@link parsePlanRecord} reads either kind and says which it is.
 */
import type { HumanGroup } from '../labels/groups';
import type { ModelSelection, PlanSettings } from './planSettings';
import type { DesignKind } from './sequentialPlan';
import type { HumanScoreRule } from '../rubric/labelValues';

/** The format tag of every plan record. */
export const PLAN_RECORD_FORMAT = 'reflect-eval.label-plan/1';

/** What every plan record holds, whatever it estimates. */
export interface PlanRecordCommon extends Omit<PlanSettings, 'modelSelection'> {
  format: typeof PLAN_RECORD_FORMAT;
  /** Absent (records written before the choice existed) or null: `bandwidth` and `prior` throughout. */
  modelSelection?: ModelSelection | null;
  seed: string;
  /** Whose labels are planned. */
  human: HumanGroup;
  /** Group labels that make a candidate labelled. */
  labelsPerCandidate: number;
  design: DesignKind;
  /** Candidates fully labelled when the plan started: counted exactly, never drawn. */
  start: [itemId: string, candidateId: string][];
  pool: { candidates: number; fingerprint: string };
  created?: string;
}

/** The Spearman planner's record (docs/labelling-plan.md): rho of an evaluator with the human coherence score. */
export interface LabelPlanRecord extends PlanRecordCommon {
  /** Never set on this kind: its absence is what makes a record a Spearman plan's. */
  estimand?: undefined;
  evaluator: string;
  against?: string;
  /** The pool is one column of the correlation table (absent: every candidate). */
  column?: { groupBy: string; value: string };
  /** Assisting signals of the working model (other evaluators, `human:<group>`). */
  assist?: string[];
  /** The human-score levels 0..max (max ≥ labelsPerCandidate); for another rule, the most labels a candidate had. */
  maxScore: number;
  /** The rubric dimension of the human score, when it is not the MI preset's coherence count. */
  dimension?: string;
  /** Its rule (with `dimension`). */
  humanScore?: HumanScoreRule;
  /** Labels at which the interval is made tightest (the normal mixture's t_opt), fixed when the plan starts. */
  anticipatedLabels: number;
}

/**
 * What an estimate plan estimates, as plain data (`estimation/estimands.ts` reads it):
 * - `coherence-rate`: the share of the pool the group calls coherent — `majority`: by each candidate's majority vote
 *   (GEM 2022 §5.2, a tie counts half), `mean`: by the share of its labels that say coherent;
 * - `error-share`: among the candidates the group's majority calls incoherent, the share whose majority-voted
 *   consensus-adjusted most evident error (merged categories) is `category` (GEM 2022 §5.3, Figure 4);
 * - `rating-mean`: the mean over candidates of the mean rating of an ordinal or numeric dimension (`empathy`, 1–5,
 *   asked when coherent: the mean over candidates that have a rating). Rubric dimensions plug in here by id.
 */
export type EstimandSpec =
  | { kind: 'coherence-rate'; aggregate: 'majority' | 'mean' }
  | { kind: 'error-share'; category: string }
  | { kind: 'rating-mean'; dimension: string; values?: number[] };

/** One stratum of an estimate plan: a group (or the whole pool), planned on its own with its own interval. */
export interface PlanStratum {
  /** The group's key under `by` (`all` without `by`; `A − B` for a difference). */
  key: string;
  /** Candidates in the stratum's pool. */
  candidates: number;
  /** Labels at which the stratum's interval is made tightest (the normal mixture's t_opt), fixed at the start. */
  anticipatedLabels: number;
}

/** The estimate planner's record (docs/estimation.md). */
export interface EstimatePlanRecord extends PlanRecordCommon {
  estimand: EstimandSpec;
  /** What predicts the planned group's label: `human:<group>` (another group's labels) or evaluator ids. */
  predictors: string[];
  /** Grouping of the candidates (`strategy`, `origin`, any `--by` key); absent: the whole pool. */
  by?: string;
  /** The most planned-group labels a candidate may carry (≥ labelsPerCandidate): the outcomes the working model predicts are enumerated from it. */
  maxLabels: number;
  /** A difference between two groups of `by` (first − second), instead of one estimate per group. */
  compare?: [string, string];
  /** The strata planned, in order. */
  strata: PlanStratum[];
  /**
   * The half-width every stratum is planned for, fixed at the start: it decides which stratum draws the next batch
   * (one whose interval is still wider) and when each stops, so a plan replays only with it.
   */
  halfWidth: number;
}

/** Either kind of record. */
export type PlanRecord = LabelPlanRecord | EstimatePlanRecord;

/** Whether a record is the estimate planner's. */
export function isEstimatePlanRecord(record: PlanRecord): record is EstimatePlanRecord {
  return record.estimand !== undefined && record.estimand !== null;
}

/**
 * Reads a plan record from its JSON text.
 *
 * @param source - where the text came from, for errors (a file path)
 * @throws Error naming `source` on text that is not JSON, or not a plan record of this format
 */
export function parsePlanRecord(text: string, source: string): PlanRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not a plan record (${(err as Error).message})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${source}: not a plan record (not a JSON object)`);
  const r = value as Record<string, unknown>;
  if (r.format !== PLAN_RECORD_FORMAT) throw new Error(`${source}: not a plan record (format ${String(r.format)})`);
  if (typeof r.seed !== 'string') throw new Error(`${source}: field "seed" must be a string`);
  if (!Array.isArray(r.start)) throw new Error(`${source}: field "start" must be a list of [item id, candidate id]`);
  if (!r.pool || typeof r.pool !== 'object') throw new Error(`${source}: field "pool" is missing`);
  if (r.estimand !== undefined && r.estimand !== null) {
    const e = r.estimand as Record<string, unknown>;
    if (typeof e !== 'object' || !['coherence-rate', 'error-share', 'rating-mean'].includes(String(e.kind))) throw new Error(`${source}: field "estimand.kind" must be coherence-rate, error-share or rating-mean (got ${String(e?.kind)})`);
    if (!Array.isArray(r.strata) || r.strata.length === 0) throw new Error(`${source}: field "strata" must list the groups planned`);
    if (!Array.isArray(r.predictors)) throw new Error(`${source}: field "predictors" must be a list`);
    if (!(typeof r.halfWidth === 'number' && r.halfWidth > 0)) throw new Error(`${source}: field "halfWidth" must be a positive number`);
  } else if (typeof r.evaluator !== 'string') throw new Error(`${source}: field "evaluator" must be a string`);
  return value as PlanRecord;
}
