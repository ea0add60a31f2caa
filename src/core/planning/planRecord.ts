/**
 * A labelling plan's record on disk (`<file>.label-plan.json` beside the dialogue file, `labelPlanRecordPath`):
 * read and checked, compared with the settings a user asks for, and written — the one way the CLI's
 * `plan-labels`, the editor's Plan Labels… and its item list handle it, so both programs follow one plan.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { HumanGroup } from '../labels/groups';
import type { LabelPlanRecord } from './planner';

/** The `format` of every record {@link readLabelPlanRecord} accepts. */
export const LABEL_PLAN_FORMAT = 'reflect-eval.label-plan/1';

/**
 * Reads a plan record.
 *
 * @throws Error naming the file when it cannot be read, is not JSON, or is not a plan record (its `format`)
 */
export function readLabelPlanRecord(path: string): LabelPlanRecord {
  let record: LabelPlanRecord;
  try {
    record = JSON.parse(readFileSync(path, 'utf8')) as LabelPlanRecord;
  } catch (err) {
    throw new Error(`${path}: not a plan record (${(err as Error).message})`);
  }
  if (record?.format !== LABEL_PLAN_FORMAT) throw new Error(`${path}: not a plan record (format ${String(record?.format)})`);
  return record;
}

/** Writes a plan record as indented JSON with a final newline (replacing the file). */
export function writeLabelPlanRecord(path: string, record: LabelPlanRecord): void {
  writeFileSync(path, JSON.stringify(record, null, 2) + '\n');
}

/** What a plan is for: the settings a record must share to be followed rather than started anew. */
export interface PlanIdentity {
  evaluator: string;
  against?: string;
  /** `auto` accepts the record's group. */
  human: HumanGroup | 'auto';
  column?: { groupBy: string; value: string };
  /** The rubric dimension and rule (absent: the MI preset's coherence count). */
  dimension?: string;
  humanScore?: string;
}

/**
 * How a record differs from the plan asked for, said the way a message names it (`evaluator metric:…`, `against …`,
 * `no --against`, `human experts`, `column source = GPT-2`, `the whole file`), or null when it is the same plan.
 */
export function planRecordDifference(record: LabelPlanRecord, wanted: PlanIdentity): string | null {
  if (record.evaluator !== wanted.evaluator) return `evaluator ${record.evaluator}`;
  if ((record.against ?? null) !== (wanted.against ?? null)) return record.against ? `against ${record.against}` : 'no --against';
  if (wanted.human !== 'auto' && record.human !== wanted.human) return `human ${record.human}`;
  if (JSON.stringify(record.column ?? null) !== JSON.stringify(wanted.column ?? null)) return record.column ? `column ${record.column.groupBy} = ${record.column.value}` : 'the whole file';
  if ((record.dimension ?? null) !== (wanted.dimension ?? null) || (record.humanScore ?? null) !== (wanted.humanScore ?? null)) return record.dimension ? `dimension ${record.dimension} (${record.humanScore})` : 'the coherence count';
  return null;
}
