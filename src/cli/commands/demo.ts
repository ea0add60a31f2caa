/**
 * `reflect-eval demo`: the main job offline on the bundled default (README's first command), run as the pipeline
 * of src/core/jobs/demo.ts on the EvalReflections GPT-2 stage; prints the correlation table against the experts.
 */
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { demoPipeline } from '../../core/jobs/demo';
import { siblingFile } from '../../core/dialogue/siblingFile';
import { runPipeline } from '../../core/jobs/file';
import { validatePipeline } from '../../core/jobs/plans';
import { log } from '../common';
import { cliHost, printReport, withInterrupt } from '../host';
import { bundledData } from '../paths';

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('offline demo on real expert labels (EvalReflections GPT-2 stage): score with BLEU-4, ROUGE-L, METEOR and the local judge, generate new candidates, print the correlation table against the experts and write a report')
    .option('-o, --out <file>', 'the dialogue file to write', 'demo/evalreflections.dialogues.jsonl')
    .option('--report <file>', 'the Markdown report (default: beside the dialogue file)')
    .option('--table <csv>', 'an annotation table in the ACL 2023 layout (default: the bundled EvalReflections GPT-2 stage)')
    .option('--print-plan', 'print the pipeline as JSON (runnable with `reflect-eval run`), then exit')
    .action(async (opts: Record<string, unknown>) => {
      const started = performance.now();
      const file = resolve(opts.out as string);
      const report = resolve((opts.report as string | undefined) ?? siblingFile(file, '.report.md'));
      const table = resolve((opts.table as string | undefined) ?? join(bundledData(), 'evalreflections', 'annotations-gpt2-stage.csv'));
      const pipeline = validatePipeline(demoPipeline({ file, table, report }), 'demo');
      if (opts.printPlan) {
        const dir = process.cwd();
        const portable = {
          ...pipeline,
          file: relative(dir, pipeline.file),
          steps: pipeline.steps.map((s) => (s.job === 'import' ? { ...s, file: relative(dir, s.file) } : s.job === 'report' ? { ...s, out: relative(dir, resolve(s.out)) } : s)),
        };
        process.stdout.write(JSON.stringify(portable, null, 2) + '\n');
        return;
      }
      const host = cliHost();
      const reports = await withInterrupt((signal) =>
        runPipeline(pipeline, { ...host, signal }, (_, r) => {
          host.close();
          printReport(r);
        }),
      );
      host.close();
      const last = reports[reports.length - 1];
      if (reports.length !== pipeline.steps.length || last.nothingDone) return;
      process.stdout.write(`${last.data?.text as string}\n`);
      log(`\ndone in ${((performance.now() - started) / 1000).toFixed(1)} s. Open ${relative(process.cwd(), file)} in VS Code (ReflectEval opens it), label the new candidates, and run "ReflectEval: Show Correlation Table"; the report is ${relative(process.cwd(), report)}.`);
    });
}
