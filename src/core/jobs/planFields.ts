/**
 * The start every job's plan check shares: the plan is a JSON object, holds only the job's fields, and its `job`
 * field, when given, names this job.
 */
import { failFor, isObject, rejectUnknownFields, type Fail } from '../config';

/**
 * Checks the shape every plan of `job` has and returns its fields with the failer of `source`, for the job's own checks.
 *
 * @param what - the plan's name in a message (`a judge plan`)
 * @param fields - the plan's fields (`job` included)
 * @param example - a small plan of the job, shown when the value is not an object
 * @throws ConfigError naming the source and the field: `(root)`, an unknown field, or `job`
 */
export function planFields(value: unknown, source: string, job: string, what: string, fields: readonly string[], example: string): { c: Record<string, unknown>; fail: Fail } {
  const fail = failFor(source);
  if (!isObject(value)) fail('(root)', `must be a JSON object like ${example}`);
  const c = value as Record<string, unknown>;
  rejectUnknownFields(c, fields, '', fail);
  if (c.job !== undefined && c.job !== job) fail('job', `must be "${job}" for ${what}`);
  return { c, fail };
}

/**
 * The settings both planners' plans share (`plan-labels`, `estimate`): how a candidate counts as labelled, the
 * sequential design's settings, the seed, who the experts are, and where the plan's record is kept.
 */
export interface PlanRunSettings {
  /** Group labels that make a candidate labelled (default: the most common count in the file, else 3). */
  labelsPerCandidate?: number;
  /** Confidence level (default 0.95), draws per batch (default 5), no stop before this many planned labels (default 20). */
  level?: number;
  batch?: number;
  minLabels?: number;
  /** Seed of a new plan's design (default `1`). */
  seed?: string | number;
  /** Annotator names starting with this are experts (default `Expert`). */
  expertPrefix?: string;
  /** The record: a file (relative to the host's base folder), `false` for none (a plan from the current labels, not kept), default beside the dialogue file. */
  record?: string | false;
  /** Start a new plan even when the record holds one (it is overwritten). */
  restart?: boolean;
}

/** The fields of {@link PlanRunSettings}. */
export const PLAN_RUN_FIELDS = ['labelsPerCandidate', 'level', 'batch', 'minLabels', 'seed', 'expertPrefix', 'record', 'restart'] as const;

/**
 * Checks the {@link PlanRunSettings} fields of a plan.
 *
 * @throws ConfigError (through `fail`) naming the field
 */
export function checkPlanRunFields(c: Record<string, unknown>, fail: Fail): void {
  for (const k of ['labelsPerCandidate', 'batch', 'minLabels']) if (c[k] !== undefined && !(Number.isInteger(c[k]) && (c[k] as number) >= 1)) fail(k, 'must be an integer ≥ 1');
  if (c.level !== undefined && !(typeof c.level === 'number' && c.level > 0 && c.level < 1)) fail('level', 'must be in (0, 1)');
  if (c.seed !== undefined && typeof c.seed !== 'string' && typeof c.seed !== 'number') fail('seed', 'must be a string or a number');
  if (c.expertPrefix !== undefined && typeof c.expertPrefix !== 'string') fail('expertPrefix', 'must be a string');
  if (c.record !== undefined && c.record !== false && !(typeof c.record === 'string' && c.record)) fail('record', 'must be a file or false');
  if (c.restart !== undefined && typeof c.restart !== 'boolean') fail('restart', 'must be true or false');
}

/** A plan's record holds a plan for other settings (and the plan did not ask to restart): either planner's. */
export class PlanMismatchError extends Error {
  constructor(
    readonly recordFile: string,
    /** How the record's plan differs, e.g. `evaluator metric:…` or `human laypeople`. */
    readonly difference: string,
  ) {
    super(`${recordFile} holds a plan for ${difference}; restart the plan to overwrite it, or keep the new plan's record in another file`);
    this.name = 'PlanMismatchError';
  }
}
