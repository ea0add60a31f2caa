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
