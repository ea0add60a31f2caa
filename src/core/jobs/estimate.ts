/**
 * The estimate planner as a job (issue 43; docs/estimation.md): start an estimate plan — an expert-level estimate per
 * group from expert labels on the candidates the plan draws and predictions on all of them — and keep its record
 * beside the dialogue file (`<file>.estimate-plan.json`), or follow the plan whose record is there. The report carries
 * the plan's state on the file's items (estimate, anytime interval, labels to go per group, the order to label in).
 * The CLI's `estimate` (its plan mode) and the editor's *Start an Estimate Plan…* both run it, so both start, check
 * and follow one record. The dialogue file is never written.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { isEstimatePlanRecord, parsePlanRecord, type EstimandSpec, type EstimatePlanRecord } from '../design/planRecord';
import { estimatePlan, estimatePlanRecordPath, startEstimatePlan, type EstimatePlanState } from '../estimation/activePlan';
import { parseEstimand } from '../estimation/estimands';
import type { HumanGroup } from '../labels/groups';
import { loadRubric } from '../rubric/rubricFile';
import type { ItemSink, JobHost, JobReport, JobTarget } from './host';
import { checkPlanRunFields, planFields, PlanMismatchError, PLAN_RUN_FIELDS, type PlanRunSettings } from './planFields';

/** An estimate plan to start or follow: the object an `estimate` plan file holds. */
export interface EstimatePlanJob extends PlanRunSettings {
  job?: 'estimate';
  /**
   * What is estimated, as the CLI's `--estimand` writes it: `coherence-rate` (majority vote), `coherence-rate:mean`,
   * `error-share:<category>`, `rating-mean:<dimension>` (empathy, or an ordinal or numeric dimension of the study's
   * rubric) (default `coherence-rate`).
   */
  estimand?: string;
  /** Whose labels are estimated (default `experts`). */
  human?: HumanGroup;
  /** What predicts them: `human:<group>` (another group's labels) or evaluator ids; none is expert-only. */
  predictors?: string[];
  /** One estimate per group of this key (`strategy`, `origin`, `model`, `source`, `kind`, a field path). */
  by?: string;
  /** Only these groups of `by`. */
  groups?: string[];
  /** The difference between two groups of `by` (first − second). */
  compare?: [string, string];
  /** The interval half-width every group is planned for (default 0.1). */
  halfWidth?: number;
}

const FIELDS = ['job', 'estimand', 'human', 'predictors', 'by', 'groups', 'compare', 'halfWidth', ...PLAN_RUN_FIELDS];

/**
 * Checks an estimate plan.
 *
 * @throws ConfigError naming the source and the field
 */
export function validateEstimatePlan(value: unknown, source: string): EstimatePlanJob {
  const { c, fail } = planFields(value, source, 'estimate', 'an estimate plan', FIELDS, '{"job": "estimate", "estimand": "coherence-rate", "by": "strategy", "predictors": ["human:laypeople"], "halfWidth": 0.1}');
  if (c.estimand !== undefined) {
    if (typeof c.estimand !== 'string') fail('estimand', 'must be a string such as "coherence-rate"');
    // A rating-mean names a dimension of the study's rubric, which the run reads; every other form is checked here.
    if (!/^rating-mean:./.test(c.estimand as string)) {
      try {
        parseEstimand(c.estimand as string);
      } catch (e) {
        fail('estimand', (e as Error).message);
      }
    }
  }
  if (c.human !== undefined && !['experts', 'laypeople', 'all'].includes(c.human as string)) fail('human', 'must be experts, laypeople or all');
  const strings = (k: string) => Array.isArray(c[k]) && (c[k] as unknown[]).every((v) => typeof v === 'string' && v);
  if (c.predictors !== undefined && !strings('predictors')) fail('predictors', 'must be an array of evaluator ids or human:<group>');
  if (c.by !== undefined && (typeof c.by !== 'string' || !c.by)) fail('by', 'must be a grouping key such as "strategy"');
  if (c.groups !== undefined && !strings('groups')) fail('groups', 'must be an array of group names');
  if (c.compare !== undefined && !(strings('compare') && (c.compare as string[]).length === 2)) fail('compare', 'must be two groups of "by" (first − second)');
  if (c.compare !== undefined && c.by === undefined) fail('compare', 'needs "by" (the grouping the two groups belong to)');
  if (c.halfWidth !== undefined && !(typeof c.halfWidth === 'number' && c.halfWidth > 0)) fail('halfWidth', 'must be a positive number');
  checkPlanRunFields(c, fail);
  return c as unknown as EstimatePlanJob;
}

/** The record holds an estimate plan for other settings (and the plan did not ask to restart). */
export class EstimatePlanMismatchError extends PlanMismatchError {
  override name = 'EstimatePlanMismatchError';
}

/**
 * How a record's settings differ from a plan's (its estimand as {@link parseEstimand} read it on the study's rubric),
 * in words (`estimand {...}`, `human laypeople`, `--by strategy`), or null when the plan follows the record. The
 * half-width is compared only when the plan gives one.
 */
export function estimateRecordDifference(record: EstimatePlanRecord, plan: EstimatePlanJob, estimand: EstimandSpec): string | null {
  if (JSON.stringify(record.estimand) !== JSON.stringify(estimand)) return `estimand ${JSON.stringify(record.estimand)}`;
  if (record.human !== (plan.human ?? 'experts')) return `human ${record.human}`;
  if (JSON.stringify(record.predictors) !== JSON.stringify(plan.predictors ?? [])) return `predictors ${record.predictors.join(', ') || '(none)'}`;
  if ((record.by ?? null) !== (plan.by ?? null)) return record.by ? `--by ${record.by}` : 'no --by';
  if (JSON.stringify(record.compare ?? null) !== JSON.stringify(plan.compare ?? null)) return record.compare ? `--compare ${record.compare.join(' ')}` : 'no --compare';
  if (plan.halfWidth !== undefined && plan.halfWidth !== record.halfWidth) return `target half-width ${record.halfWidth}`;
  return null;
}

/** Where a plan's record is kept (null for none): the plan's file against `baseDir`, else beside the dialogue file. */
export function estimateRecordFile(plan: Pick<EstimatePlanJob, 'record'>, file: string, baseDir: string): string | null {
  return plan.record === false ? null : typeof plan.record === 'string' ? resolve(baseDir, plan.record) : estimatePlanRecordPath(file);
}

/**
 * Starts an estimate plan or follows the one in its record, and computes its state on the target's items (labels
 * made since included). A new plan's record is written (unless the plan keeps none); a followed one is only read.
 *
 * @returns a report whose `data` is the {@link EstimatePlanState} (JSON), its record file in `files` when one was written
 * @throws EstimatePlanMismatchError when the record holds a plan for other settings; Error naming the record when it
 *   is a labelling plan's; RangeError/Error from the planner (bad estimand, predictor, group or settings)
 */
export async function runEstimatePlan(plan: EstimatePlanJob, target: JobTarget, host: JobHost, _sink?: ItemSink): Promise<JobReport> {
  const groupRules = plan.expertPrefix !== undefined ? { expertPrefix: plan.expertPrefix } : undefined;
  const recordFile = estimateRecordFile(plan, target.file, host.baseDir);
  const estimand = parseEstimand(plan.estimand ?? 'coherence-rate', loadRubric(target.file).rubric);
  const report: JobReport = { job: 'estimate', lines: [], warnings: [], files: [] };
  let record: EstimatePlanRecord | null = null;
  if (recordFile && existsSync(recordFile) && !plan.restart) {
    const read = parsePlanRecord(readFileSync(recordFile, 'utf8'), recordFile);
    if (!isEstimatePlanRecord(read)) throw new Error(`${recordFile} holds a Spearman labelling plan (plan-labels); keep the estimate plan's record in another file, or restart`);
    const difference = estimateRecordDifference(read, plan, estimand);
    if (difference) throw new EstimatePlanMismatchError(recordFile, difference);
    record = read;
    report.lines.push(`following the estimate plan in ${basename(recordFile)} (started ${record.created ?? 'earlier'}, ${record.start.length} candidates labelled at the start)`);
  } else {
    const started = startEstimatePlan(target.items, {
      estimand,
      human: plan.human ?? 'experts',
      predictors: plan.predictors ?? [],
      ...(plan.by !== undefined ? { by: plan.by } : {}),
      ...(plan.compare ? { compare: plan.compare } : {}),
      ...(plan.groups ? { groups: plan.groups } : {}),
      labelsPerCandidate: plan.labelsPerCandidate,
      ...(plan.level !== undefined ? { level: plan.level } : {}),
      ...(plan.batch !== undefined ? { batch: plan.batch } : {}),
      ...(plan.minLabels !== undefined ? { minLabels: plan.minLabels } : {}),
      ...(groupRules ? { groupRules } : {}),
      halfWidth: plan.halfWidth ?? 0.1,
      seed: String(plan.seed ?? 1),
    });
    record = { ...started, created: new Date().toISOString() };
    report.lines.push(`started a plan (${record.start.length} candidates labelled at the start)${recordFile ? '' : '; no record kept'}`);
    if (recordFile) {
      writeFileSync(recordFile, JSON.stringify(record, null, 2) + '\n');
      report.files!.push(recordFile);
    }
  }
  const state: EstimatePlanState = estimatePlan(target.items, record, groupRules ? { groupRules } : {});
  // Counts and labels to go only: the estimate moves with each label, and the editor's blind mode hides it.
  report.lines.push(state.stopped ? 'every group reached the target (or is fully labelled)' : `${state.counts.planned} planned labels counted; labels to go: ${state.labelsToGo === null ? 'not known yet' : `about ${state.labelsToGo}`}`);
  report.data = state as unknown as Record<string, unknown>;
  return report;
}
