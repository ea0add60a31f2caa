/**
 * `reflect-eval demo`: the main job offline on the bundled default (README's first command), run as the pipeline
 * of src/core/jobs/demo.ts.
 */
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { demoPipeline } from '../../core/jobs/demo';
import { runPipeline } from '../../core/jobs/file';
import { validatePipeline } from '../../core/jobs/plans';
import { log, positiveInt } from '../common';
import { cliHost, printReport, withInterrupt } from '../host';
import { bundledData } from '../paths';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('offline demo: import 15 AnnoMI contexts, generate greedy candidates with the bundled model, judge them with the local judge, score them with BLEU-4, ROUGE-L and METEOR')
    .option('-o, --out <file>', 'output file', 'demo/annomi-demo.dialogues.jsonl')
    .option('--sample <n>', 'contexts to import', positiveInt, 15)
    .option('--seed <seed>', 'sampling seed', '0')
    .option('--csv <file>', 'AnnoMI CSV (default: the bundled sample)')
    .option('--print-plan', 'print the pipeline as JSON (runnable with `reflect-eval run`), then exit')
    .action(async (opts: Record<string, unknown>) => {
      const csv = resolve((opts.csv as string | undefined) ?? join(bundledData(), 'annomi', 'AnnoMI-sample.csv'));
      const pipeline = validatePipeline(demoPipeline({ file: resolve(opts.out as string), csv, sample: opts.sample as number, seed: opts.seed as string }), 'demo');
      if (opts.printPlan) {
        const dir = process.cwd();
        const portable = { ...pipeline, file: relative(dir, pipeline.file), steps: pipeline.steps.map((s) => (s.job === 'import' ? { ...s, file: relative(dir, s.file) } : s)) };
        process.stdout.write(JSON.stringify(portable, null, 2) + '\n');
        return;
      }
      const host = cliHost();
      const reports = await withInterrupt((signal) => runPipeline(pipeline, { ...host, signal }, (_, report) => {
        host.close();
        printReport(report);
      }));
      host.close();
      const last = reports[reports.length - 1];
      if (reports.length === pipeline.steps.length && !last.nothingDone) log(`wrote ${pipeline.file}. Open it in VS Code with ReflectEval.`);
    });
}
