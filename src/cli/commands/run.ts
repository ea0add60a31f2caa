/**
 * `reflect-eval run`: runs a plan file (one job, `{"job": "judge", …}`) on a dialogue file, or a pipeline file
 * (`{"file": …, "steps": [ … ]}`, e.g. the one `reflect-eval demo --print-plan` prints). Plans are the same objects
 * the other commands build from their flags (`--print-plan`) and the editor builds from its quick picks.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { runPipeline, runPlanOnFile } from '../../core/jobs/file';
import { isFileJobPlan, validatePipeline, validatePlan } from '../../core/jobs/plans';
import { assertWritable } from '../../core/format/files';
import { cliHost, printReport, withInterrupt } from '../host';
import { readJsonArg } from '../plans';

export function registerRun(program: Command): void {
  program
    .command('run <plan> [file]')
    .description('run a plan file (one job) on a dialogue file, or a pipeline file (a dialogue file and its steps); relative paths in the plan are read against its folder')
    .option('--prompts <dir>', 'a prompts folder that overrides the bundled templates')
    .option('-o, --out <file>', 'one job: write here instead of updating the file in place; an import plan: the file to create')
    .option('--force', 'an import plan: overwrite the output file')
    .action(async (planArg: string, file: string | undefined, opts: Record<string, unknown>) => {
      const read = readJsonArg(planArg, 'plan');
      const host = cliHost({ baseDir: read.dir, prompts: opts.prompts ? resolve(opts.prompts as string) : undefined });
      const value = read.value as Record<string, unknown>;
      if (value && typeof value === 'object' && 'steps' in value) {
        const pipeline = validatePipeline(value, read.source);
        if (file) pipeline.file = resolve(file);
        await withInterrupt((signal) => runPipeline(pipeline, { ...host, signal }, (_, report) => {
          host.close();
          printReport(report);
        }));
        host.close();
        return;
      }
      const plan = validatePlan(value, read.source);
      if (!isFileJobPlan(plan)) {
        if (!opts.out && !file) throw new Error(`a ${plan.job} plan creates a dialogue file: give the file to create (-o <file>)`);
        const out = resolve((opts.out as string | undefined) ?? (file as string));
        assertWritable(out, Boolean(opts.force));
        const report = await runPlanOnFile(plan, out, host);
        host.close();
        printReport(report);
        return;
      }
      if (!file) throw new Error(`a ${plan.job} plan runs on a dialogue file: reflect-eval run ${planArg} <file>`);
      const report = await withInterrupt((signal) => runPlanOnFile(plan, resolve(file), { ...host, signal }, { out: opts.out ? resolve(opts.out as string) : undefined }));
      host.close();
      printReport(report);
    });
}
