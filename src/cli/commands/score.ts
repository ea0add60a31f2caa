/**
 * `reflect-eval score`: reference metrics (BLEU-4, sacreBLEU, ROUGE-L, METEOR) and model-based metrics on every
 * candidate, one score per metric output under `metric:<name>.<output>@<signature>`. Flags become a score plan run
 * by the core job (src/core/jobs/score.ts).
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { runPlanOnFile } from '../../core/jobs/file';
import { validateScorePlan } from '../../core/jobs/score';
import { listMetrics } from '../../core/metrics';
import { DEFAULT_METRICS } from '../../core/metrics/runSpec';
import { cliHost, printReport, withInterrupt } from '../host';
import { readJsonArg } from '../plans';

export function registerScore(program: Command): void {
  program
    .command('score [file]')
    .description(`score every candidate with reference metrics (default: ${DEFAULT_METRICS.join(', ')}); see docs/metrics.md`)
    .option('--metric <names...>', 'metrics to run (see --list)')
    .option('--config <json|file>', 'configurations: {"bleu4": {"smoothing": "method1"}, "meteor": [{"mode": "tokens"}, {"mode": "string"}]}, or one metric\'s fields when one --metric is given')
    .option('--force', 'score again candidates that already have these scores')
    .option('--list', 'list the registered metrics and their default signatures, then exit')
    .option('--print-plan', 'print the plan as JSON, then exit')
    .option('-o, --out <file>', 'write here instead of updating the file in place')
    .action(async (file: string | undefined, opts: Record<string, unknown>) => {
      if (opts.list) {
        for (const m of listMetrics()) process.stdout.write(`${m.name}\t${m.card.title}\t${m.outputs.map((o) => o.name).join(',')}\t${m.signature(m.configure({}))}\n`);
        return;
      }
      const config = opts.config ? readJsonArg(opts.config as string) : undefined;
      const plan = validateScorePlan(
        { ...(opts.metric ? { metrics: opts.metric } : {}), ...(config ? { config: config.value } : {}), ...(opts.force ? { force: true } : {}) },
        config?.source ?? 'flags',
      );
      if (opts.printPlan) {
        process.stdout.write(JSON.stringify({ job: 'score', ...plan }, null, 2) + '\n');
        return;
      }
      if (!file) throw new Error('score: give a dialogue file (or --list)');
      const host = cliHost({ baseDir: config?.dir });
      const report = await withInterrupt((signal) =>
        runPlanOnFile({ ...plan, job: 'score' }, resolve(file), { ...host, signal }, { out: opts.out ? resolve(opts.out as string) : undefined }),
      );
      host.close();
      printReport(report);
    });
}
