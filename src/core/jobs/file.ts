/**
 * Running plans on a dialogue file on disk (the CLI's way, and the demo's): read the file, run the job on its
 * items in memory, write back only the lines of items that changed (every other line kept as it was).
 */
import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { writeTextAtomic } from '../format/files';
import { formatItems } from '../format/jsonl';
import { readStudy, studyProblemMessages, writeStudyBack } from '../format/studyFiles';
import type { JobHost, JobReport } from './host';
import { runImportPlan } from './importData';
import { runPlan, type FileJobPlan, type Pipeline } from './plans';
import { MemorySink } from './memorySink';

/**
 * Runs a plan on a dialogue file and writes the result back (or to `options.out`).
 *
 * @param options.out - write here instead of updating the file in place (written even when nothing changed)
 * @param options.baseDir - folder the plan's own relative paths are read against (default the host's)
 * @returns the job's report, with `itemsChanged` and the file written in `files`
 */
export async function runPlanOnFile(plan: FileJobPlan, file: string, host: JobHost, options: { out?: string; baseDir?: string } = {}): Promise<JobReport> {
  const path = resolve(host.baseDir, file);
  const study = readStudy(path);
  for (const m of studyProblemMessages(study)) host.log(m);
  const items = study.items;
  const sink = new MemorySink([...items]);
  const report = await runPlan(plan, { file: path, items }, host, sink, options);
  const out = options.out ? resolve(host.baseDir, options.out) : path;
  // The prompt search reports on the file and never changes it (its leaderboard is its own file).
  if (plan.job === 'search-prompts') return report;
  if (plan.job !== 'perplexity' && plan.job !== 'report' && (sink.changed.size > 0 || out !== path)) {
    const written = writeStudyBack(study, sink.items, out);
    report.itemsChanged = written.itemsChanged;
    report.files = [out, ...written.sidecarsWritten, ...(report.files ?? [])];
  } else if (plan.job !== 'report') report.itemsChanged = 0; // a report reads the file; it only writes its own
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
    let report: JobReport;
    if (step.job === 'import') {
      const imported = runImportPlan(step, host);
      report = imported.report;
      if (!report.nothingDone) {
        mkdirSync(dirname(file), { recursive: true });
        writeTextAtomic(file, formatItems(imported.items));
        report.files = [file];
        report.itemsChanged = imported.items.length;
      }
    } else report = await runPlanOnFile(step, file, host);
    reports.push(report);
    onReport(i, report);
    if (report.nothingDone || report.cancelled) break;
  }
  return reports;
}
