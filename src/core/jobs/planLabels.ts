/**
 * The labelling planner as a job (docs/labelling-plan.md): start a plan for an evaluator's Spearman correlation with
 * the human coherence score (or for the difference of two evaluators') and keep its record beside the dialogue file,
 * or follow the plan whose record is there; the report carries the plan's state on the file's items (estimate,
 * interval, stop, labels to go, the order to label in). The CLI's `plan-labels` and the editor's Plan Labels… both
 * run it, so both start, check and follow one record. The dialogue file is never written.
 */
import { existsSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { isObject } from '../config';
import type { HumanGroup } from '../labels/groups';
import { planLabels, startLabelPlan, type LabelPlan, type LabelPlanRecord, type PlanTarget } from '../planning/planner';
import { planRecordDifference, readLabelPlanRecord, writeLabelPlanRecord } from '../planning/planRecord';
import { labelPlanRecordPath } from '../planning/planView';
import type { ItemSink, JobHost, JobReport, JobTarget } from './host';
import { checkPlanRunFields, planFields, PlanMismatchError, PLAN_RUN_FIELDS, type PlanRunSettings } from './planFields';
import { HUMAN_SCORE_RULES, humanScoreSpec, isCoherenceCount, type HumanScoreRule } from '../rubric/labelValues';
import { loadRubric } from '../rubric/rubricFile';

/** A labelling plan to start or follow: the object a `plan-labels` plan file holds (with the settings both planners share). */
export interface PlanLabelsPlan extends PlanRunSettings {
  job?: 'plan-labels';
  /** The evaluator whose correlation with the humans is estimated (its id). */
  evaluator: string;
  /** A second evaluator: the plan is for rho(evaluator) − rho(against). */
  against?: string;
  /** Whose coherence labels (default `auto`: the correlation table's choice for the file). */
  human?: HumanGroup | 'auto';
  /** When to stop (default: a decision with `against`, else an interval half-width of 0.1). */
  target?: PlanTarget;
  /** Restrict the pool to one column of the correlation table. */
  column?: { groupBy: string; value: string };
  /** Signals that help choose what to label (other evaluators' ids, `human:<group>`), never what is estimated. */
  assist?: string[];
  /** The rubric dimension of the human score (default: the rubric's primary, `coherent` in the MI preset). */
  dimension?: string;
  /** How the group's labels become one score (default: count for binary, mean for ordinal). */
  humanScore?: HumanScoreRule;
}

const FIELDS = ['job', 'evaluator', 'against', 'human', 'target', 'column', 'assist', ...PLAN_RUN_FIELDS, 'dimension', 'humanScore'];

/**
 * Checks a labelling plan.
 *
 * @throws ConfigError naming the source and the field
 */
export function validatePlanLabelsPlan(value: unknown, source: string): PlanLabelsPlan {
  const { c, fail } = planFields(value, source, 'plan-labels', 'a labelling plan', FIELDS, '{"job": "plan-labels", "evaluator": "metric:…", "target": {"halfWidth": 0.1}}');
  if (typeof c.evaluator !== 'string' || !c.evaluator) fail('evaluator', 'must be an evaluator id');
  if (c.against !== undefined && (typeof c.against !== 'string' || !c.against)) fail('against', 'must be an evaluator id');
  if (c.against === c.evaluator) fail('against', 'names the same evaluator as "evaluator"');
  if (c.human !== undefined && !['experts', 'laypeople', 'all', 'auto'].includes(c.human as string)) fail('human', 'must be experts, laypeople, all or auto');
  if (c.target !== undefined) {
    const t = c.target as Record<string, unknown>;
    const ok = isObject(t) && ((Object.keys(t).length === 1 && t.decide === true) || (Object.keys(t).length === 1 && typeof t.halfWidth === 'number' && t.halfWidth > 0));
    if (!ok) fail('target', 'must be {"halfWidth": h} with h > 0, or {"decide": true}');
    if (t.decide === true && c.against === undefined) fail('target', 'a decision needs a second evaluator ("against")');
  }
  if (c.column !== undefined && !(isObject(c.column) && typeof (c.column as Record<string, unknown>).groupBy === 'string' && typeof (c.column as Record<string, unknown>).value === 'string')) fail('column', 'must be {"groupBy": "origin", "value": "GPT-2"}');
  if (c.assist !== undefined && !(Array.isArray(c.assist) && c.assist.every((a) => typeof a === 'string' && a))) fail('assist', 'must be an array of evaluator ids or human:<group>');
  checkPlanRunFields(c, fail);
  if (c.dimension !== undefined && (typeof c.dimension !== 'string' || !c.dimension)) fail('dimension', "must name a dimension of the study's rubric");
  if (c.humanScore !== undefined && !HUMAN_SCORE_RULES.includes(c.humanScore as HumanScoreRule)) fail('humanScore', `must be one of ${HUMAN_SCORE_RULES.join(', ')}`);
  return c as unknown as PlanLabelsPlan;
}

/** The plan's target: as given, else a decision for a pair, else a half-width of 0.1. */
export function planTargetOf(plan: Pick<PlanLabelsPlan, 'target' | 'against'>): PlanTarget {
  return plan.target ?? (plan.against ? { decide: true } : { halfWidth: 0.1 });
}

/** Where a plan's record is kept (null for none): the plan's file against `baseDir`, else beside the dialogue file. */
export function planRecordFile(plan: Pick<PlanLabelsPlan, 'record'>, file: string, baseDir: string): string | null {
  return plan.record === false ? null : typeof plan.record === 'string' ? resolve(baseDir, plan.record) : labelPlanRecordPath(file);
}

/** The record holds a labelling plan for other settings (and the plan did not ask to restart). */
export class LabelPlanMismatchError extends PlanMismatchError {
  override name = 'LabelPlanMismatchError';
}

/**
 * Starts a plan or follows the one in its record, and computes its state on the target's items (labels made since
 * included). A new plan's record is written (unless the plan keeps none); a followed one is only read.
 *
 * @returns a report whose `data` is the {@link LabelPlan} (JSON), its record file in `files` when one was written
 * @throws LabelPlanMismatchError when the record holds a plan for other settings; Error naming the record when it is
 *   not one; RangeError/Error from the planner (bad settings, fewer than 3 scored candidates, a pool that changed)
 */
export async function runPlanLabelsPlan(plan: PlanLabelsPlan, target: JobTarget, host: JobHost, _sink?: ItemSink): Promise<JobReport> {
  const groupRules = plan.expertPrefix !== undefined ? { expertPrefix: plan.expertPrefix } : undefined;
  const human = plan.human ?? 'auto';
  const goal = planTargetOf(plan);
  const { rubric } = loadRubric(target.file);
  const spec = humanScoreSpec(rubric, plan.dimension, plan.humanScore);
  const named = isCoherenceCount(spec) ? {} : { dimension: spec.dimension.name, humanScore: spec.rule };
  const recordFile = planRecordFile(plan, target.file, host.baseDir);
  const report: JobReport = { job: 'plan-labels', lines: [], warnings: [], files: [] };
  let record: LabelPlanRecord | null = null;
  if (recordFile && existsSync(recordFile) && !plan.restart) {
    record = readLabelPlanRecord(recordFile);
    const difference = planRecordDifference(record, { evaluator: plan.evaluator, against: plan.against, human, column: plan.column, ...named });
    if (difference) throw new LabelPlanMismatchError(recordFile, difference);
  }
  if (record) report.lines.push(`following the plan in ${basename(recordFile!)} (started ${record.created ?? 'earlier'}, ${record.start.length} candidates labelled at the start)`);
  else {
    const started = startLabelPlan(target.items, {
      evaluator: plan.evaluator,
      ...(plan.against ? { against: plan.against } : {}),
      human,
      ...(plan.column ? { column: plan.column } : {}),
      ...(plan.assist?.length ? { assist: plan.assist } : {}),
      labelsPerCandidate: plan.labelsPerCandidate,
      ...(plan.level !== undefined ? { level: plan.level } : {}),
      ...(plan.batch !== undefined ? { batch: plan.batch } : {}),
      ...(plan.minLabels !== undefined ? { minLabels: plan.minLabels } : {}),
      ...(groupRules ? { groupRules } : {}),
      target: goal,
      seed: plan.seed ?? 1,
      spec,
    });
    record = { ...started, created: new Date().toISOString() };
    report.lines.push(`started a plan (${record.start.length} candidates labelled at the start)${recordFile ? '' : '; no record kept'}`);
    if (recordFile) {
      writeLabelPlanRecord(recordFile, record);
      report.files!.push(recordFile);
    }
  }
  const state: LabelPlan = planLabels(target.items, record, { target: goal, ...(groupRules ? { groupRules } : {}), rubric });
  // Counts and labels to go only: the estimate moves with each label, and the editor's blind mode hides it.
  report.lines.push(state.stop ? `the stopping rule holds after ${state.stop.labels} planned labels` : `${state.counts.planned} planned labels counted; labels to go: ${state.labelsToGo === null ? 'not known yet' : `about ${state.labelsToGo}`}`);
  report.data = state as unknown as Record<string, unknown>;
  return report;
}
