/**
 * Running plans on a dialogue file on disk (the CLI's way, the demo's, and the editor's for jobs that create a
 * file): what the runner does with the file is what the job's record says it writes (`JOBS`, plans.ts) — an item
 * job's changed lines are written back (every other line kept as it was), a new file's items are written as the
 * file, and a job that writes only its own files leaves the dialogue file alone.
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { writeImportOutputs } from '../datasets/genericImport';
import { readStudy, studyProblemMessages, writeStudyBack } from '../format/studyFiles';
import type { CreatedStudy, JobHost, JobReport } from './host';
import { jobRecord, type JobPlan, type Pipeline, type RunOptions } from './plans';
import { MemorySink } from './memorySink';

/**
 * Runs a plan on a dialogue file and writes the result as its job's record says: back into the file (or to
 * `options.out`) for a job that changes items; as the file for a job that creates one; not at all for a job that
 * writes only its own files.
 *
 * @param file - the dialogue file (relative to the host's base folder): the one to read, or the one to create
 * @param options.out - an item job writes here instead of updating the file in place (written even when nothing changed)
 * @param options.baseDir - folder the plan's own relative paths are read against (default the host's)
 * @returns the job's report, with `itemsChanged` and the dialogue file written first in `files` when one was written
 */
export async function runPlanOnFile(plan: JobPlan, file: string, host: JobHost, options: { out?: string } & RunOptions = {}): Promise<JobReport> {
  const record = jobRecord(plan.job);
  const path = resolve(host.baseDir, file);
  if (record.writes === 'new-file') return writeCreatedFile(await record.run(plan, host), path);
  const study = readStudy(path);
  for (const m of studyProblemMessages(study)) host.log(m);
  const items = study.items;
  const sink = new MemorySink([...items]);
  const report = await record.run(plan, { file: path, items }, host, sink, options);
  if (record.writes === 'own-files') return report;
  const out = options.out ? resolve(host.baseDir, options.out) : path;
  if (sink.changed.size > 0 || out !== path) {
    const written = writeStudyBack(study, sink.items, out);
    report.itemsChanged = written.itemsChanged;
    report.files = [out, ...written.sidecarsWritten, ...(report.files ?? [])];
  } else report.itemsChanged = 0;
  return report;
}

/**
 * Writes the items a job that creates a dialogue file returned (unless it could do nothing) as the file at `path`,
 * and says so in its report (`files`, `itemsChanged`): what {@link runPlanOnFile} does with them, for a program that
 * looked at the items first (a preview).
 *
 * @returns the job's report
 */
export function writeCreatedFile({ items, rubric, report }: CreatedStudy, path: string): JobReport {
  if (report.nothingDone) return report;
  mkdirSync(dirname(path), { recursive: true });
  // The dialogue file and, for a study that is not the MI preset, its rubric beside it; an MI-preset study is refused
  // beside a stale rubric file (the study would use it).
  const written = writeImportOutputs({ items, rubric: rubric ?? null }, path, true);
  report.files = [...written, ...(report.files ?? [])];
  report.itemsChanged = items.length;
  return report;
}

/**
 * Runs a pipeline: its import step (if any) creates the file, then every other step runs on it in order. A step
 * that could do nothing stops the pipeline (its report says why).
 *
 * @param baseDir - the pipeline file's folder: its `file` and the steps' paths are read against it
 * @param onReport - called after each step (a CLI prints it at once)
 */
export async function runPipeline(pipeline: Pipeline, host: JobHost, onReport: (step: number, report: JobReport) => void = () => {}): Promise<JobReport[]> {
  const file = resolve(host.baseDir, pipeline.file);
  const reports: JobReport[] = [];
  for (const [i, step] of pipeline.steps.entries()) {
    if (host.signal?.aborted) break;
    const report = await runPlanOnFile(step, file, host);
    reports.push(report);
    onReport(i, report);
    if (report.nothingDone || report.cancelled) break;
  }
  return reports;
}
