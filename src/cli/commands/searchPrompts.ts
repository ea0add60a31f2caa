/**
 * `reflect-eval search-prompts <file> --config search.json`: builds a prompt search plan (src/core/jobs/searchPrompts.ts,
 * docs/prompt-search.md) from the config and a few overriding flags; the core job runs it.
 */
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { runPlanOnFile } from '../../core/jobs/file';
import { JOBS } from '../../core/jobs/plans';
import { estimateLines, validateSearchPromptsPlan, type SearchPromptsPlan } from '../../core/jobs/searchPrompts';
import { readStudy } from '../../core/format/studyFiles';
import { dimensionFromFlags, positiveInt, runtimeFromFlags, withDimensionOptions, withRuntimeOptions } from '../common';
import { cliHost, printReport, withInterrupt } from '../host';
import { readJsonArg } from '../plans';

function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`must be a non-negative integer, got ${v}`);
  return n;
}

export function registerSearchPrompts(program: Command): void {
  withDimensionOptions(withRuntimeOptions(program.command('search-prompts <file>')))
    .description('search judge prompt variants (parts A–D, requests, few-shot examples, judges) on development items split by dialogue context; report the chosen variant on held-out items beside the paper\'s variants (docs/prompt-search.md)')
    .requiredOption('--config <search.json>', 'the search: judges, parts, requests, fewShot, split, budget, prices (docs/prompt-search.md)')
    .option('--prompts <dir>', 'a prompts folder that overrides the bundled templates')
    .option('--budget <calls>', 'at most this many calls reach a backend (overrides the config\'s)', nonNegativeInt)
    .option('--seed <seed>', 'seed of the split (overrides the config\'s)')
    .option('--folds <k>', 'k-fold cross-fitting instead of one development/held-out split: each fold held out once, its variant chosen on the other k − 1 (overrides the config\'s split kind)', positiveInt)
    .option('--concurrency <n>', 'judgements in flight at once (overrides the config\'s)', positiveInt)
    .option('--write-winner [dir]', 'write the chosen variant as templates into a prompts folder (default: prompts/ beside the config)')
    .option('--no-cache', 'call the judges even for prompts they answered before')
    .option('--dry-run', 'print the split, the number of judgements, the calls not cached and the cost bound, then exit')
    .option('--print-plan', 'print the plan as JSON, then exit')
    .option('--json', 'print the leaderboard as JSON on stdout')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const read = readJsonArg(opts.config as string);
      let plan: SearchPromptsPlan = validateSearchPromptsPlan(read.value, read.source);
      const overrides: Record<string, unknown> = {};
      if (opts.budget !== undefined) overrides.budget = opts.budget;
      if (opts.concurrency !== undefined) overrides.concurrency = opts.concurrency;
      if (opts.seed !== undefined) overrides.split = { ...(plan.split ?? {}), seed: /^-?\d+$/.test(opts.seed as string) ? Number(opts.seed) : opts.seed };
      if (opts.folds !== undefined) {
        const { devFraction: _holdoutOnly, ...rest } = (overrides.split ?? plan.split ?? {}) as NonNullable<SearchPromptsPlan['split']>;
        overrides.split = { ...rest, kind: 'kfold', k: opts.folds };
      }
      if (opts.writeWinner !== undefined) overrides.writeWinner = opts.writeWinner === true ? true : resolve(opts.writeWinner as string);
      if (opts.cache === false) overrides.cache = false;
      // --dimension / --human-score: the human score the variants are chosen on (checked against the rubric before any work)
      if (opts.dimension !== undefined || opts.humanScore !== undefined) {
        const d = dimensionFromFlags(resolve(file), { dimension: opts.dimension ?? plan.dimension, humanScore: opts.humanScore ?? plan.humanScore });
        overrides.dimension = d.dimension ?? d.rubric.primary;
        if (d.humanScore !== undefined) overrides.humanScore = d.humanScore;
      }
      const runtime = runtimeFromFlags(opts, plan.runtime);
      if (runtime) overrides.runtime = runtime;
      if (Object.keys(overrides).length) plan = validateSearchPromptsPlan({ ...plan, ...overrides }, `${read.source} with flags`);
      if (opts.printPlan) {
        process.stdout.write(JSON.stringify({ job: 'search-prompts', ...plan }, null, 2) + '\n');
        return;
      }
      const host = cliHost({ baseDir: read.dir, prompts: opts.prompts ? resolve(opts.prompts as string) : undefined });
      const path = resolve(file);
      if (opts.dryRun) {
        const est = await JOBS['search-prompts'].estimate(plan, { file: path, items: readStudy(path).items }, host);
        process.stdout.write(estimateLines(est, plan).join('\n') + '\n');
        for (const w of est.warnings) process.stdout.write(`warning: ${w}\n`);
        host.close();
        return;
      }
      const report = await withInterrupt((signal) => runPlanOnFile({ ...plan, job: 'search-prompts' }, path, { ...host, signal }));
      host.close();
      printReport(report);
      if (opts.json) process.stdout.write(JSON.stringify(report.data, null, 2) + '\n');
    });
}
