/**
 * `reflect-eval report <file>`: builds a report plan (src/core/jobs/report.ts) from flags and runs it — the Markdown
 * report a researcher puts beside a paper (correlation table with intervals, notes, legend; agreement per group),
 * and the correlation table as text on stdout. The demo ends with the same job.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { runPlanOnFile } from '../../core/jobs/file';
import { siblingFile } from '../../core/dialogue/siblingFile';
import { validateReportPlan } from '../../core/jobs/report';
import { cliHost, printReport, withInterrupt } from '../host';
import { withDimensionOptions } from '../common';

export function registerReport(program: Command): void {
  withDimensionOptions(
    program
      .command('report <file>')
      .description('write a Markdown report of a study (correlation table against the humans with intervals, notes and legend; agreement per group) and print the table'),
  )
    .option('-o, --out <file.md>', 'the report (default: <file>.report.md beside the dialogue file)')
    .option('--human <who>', 'experts | laypeople | all | auto (experts when the file has expert labels, else all)', 'auto')
    .option('--by <field>', 'columns of the correlation table', 'source')
    .option('--method <m>', 'spearman | pearson | kendall', 'spearman')
    .option('--bootstrap <B>', 'bootstrap resamples for the intervals (0: none)', '1000')
    .option('--seed <s>', 'bootstrap seed', '1')
    .option('--agreement-by <field>', 'agreement per value of this field (default: stage when items have one)')
    .option('--interval <method>', 'how bootstrap bounds are read: percentile | bca | expanded-percentile | expanded-bca (default: docs/meta-evaluation.md#coverage)')
    .option('--adjust <method>', "adjust each column's p-values for its evaluator rows: holm | by")
    .option('--baselines', 'add trivial baseline rows to the correlation table: length, a constant, a random number')
    .option('--print-plan', 'print the plan as JSON (runnable with `reflect-eval run`), then exit')
    .action(async (file: string, opts: Record<string, string | boolean | undefined>) => {
      const path = resolve(file);
      const plan = validateReportPlan(
        {
          job: 'report',
          out: resolve((opts.out as string | undefined) ?? siblingFile(path, '.report.md')),
          human: opts.human,
          groupBy: opts.by,
          method: opts.method,
          bootstrap: Number(opts.bootstrap),
          seed: opts.seed,
          ...(opts.agreementBy ? { agreementBy: opts.agreementBy } : {}),
          ...(opts.interval ? { interval: opts.interval } : {}),
          ...(opts.adjust ? { adjust: opts.adjust } : {}),
          ...(opts.baselines ? { baselines: true } : {}),
          ...(opts.dimension !== undefined ? { dimension: opts.dimension } : {}),
          ...(opts.humanScore !== undefined ? { humanScore: opts.humanScore } : {}),
        },
        'flags',
      );
      if (opts.printPlan) {
        process.stdout.write(JSON.stringify(plan, null, 2) + '\n');
        return;
      }
      const host = cliHost();
      const report = await withInterrupt((signal) => runPlanOnFile({ ...plan, job: 'report' }, path, { ...host, signal }));
      host.close();
      printReport(report);
      if (typeof report.data?.text === 'string') process.stdout.write(`${report.data.text}\n`);
    });
}
