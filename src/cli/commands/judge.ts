/**
 * `reflect-eval judge`: one judge from flags, or a judges × bodies × requests matrix from `--config`; both become
 * a judge plan run by the core job (src/core/jobs/judge.ts), as the editor's commands do.
 */
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { validateJudgePlan, type JudgePlan } from '../../core/jobs/judge';
import { JOBS } from '../../core/jobs/plans';
import { runPlanOnFile } from '../../core/jobs/file';
import type { JudgeSpec } from '../../core/judges/judgeSpec';
import { readStudy } from '../../core/format/studyFiles';
import { log, positiveInt, runtimeFromFlags, withRuntimeOptions } from '../common';
import { cliHost, DEFAULT_API_KEY_ENV, printReport, withInterrupt } from '../host';
import { readJsonArg } from '../plans';

export function registerJudge(program: Command): void {
  withRuntimeOptions(program.command('judge <file>'))
    .description('score every candidate with LLM judges under ICMI 2023 prompt variants (one judge from flags, or a matrix from --config)')
    .option('--config <run.json>', 'judges × bodies × requests, concurrency and prices (see docs/judging.md); overrides the single-judge flags')
    .addOption(new Option('--backend <kind>', 'judge backend').choices(['local', 'openai']).default('local'))
    .option('--model <name>', 'local: model folder, hub id or bundled:<name> (default: bundled); openai: model name')
    .option('--base-url <url>', 'OpenAI-compatible endpoint (openai backend)', 'https://api.openai.com/v1')
    .option('--body <name>', 'task body template', 'instructions')
    .option('--request <name>', 'assessment request template (default rating; with --dimension, built from the rubric)')
    .option('--dimension <name>', "the rubric dimension the judge rates, its name exactly: a binary, ordinal or numeric dimension of the study's rubric; its request is written from the rubric's question, scale and anchors (docs/judging.md; overrides the config's)")
    .option('--prompts <dir>', 'a prompts folder that overrides the bundled templates')
    .option('--concurrency <n>', 'judgements in flight at once', positiveInt, 4)
    .option('--repeats <K>', 'ask each prompt K times: every reply kept, plus a "mean of K" evaluator (overrides the config\'s)', positiveInt)
    .option('--batch', "API judges through OpenAI's Batch API: half price, answered within 24 h, resumed by batch id after a restart (docs/scale.md)")
    .option('--cache <file>', 'response cache (default: .reflect-eval-cache/judge-cache.jsonl beside the file)')
    .option('--no-cache', 'call the judge even for prompts it has answered before')
    .option('--dry-run', 'print the number of judgements and the estimated cost, then exit')
    .option('--print-plan', 'print the plan as JSON (a run config for --config), then exit')
    .option('-o, --out <file>', 'write here instead of updating the file in place')
    .action(async (file: string, opts: Record<string, unknown>) => {
      let plan: JudgePlan;
      let baseDir = process.cwd();
      if (opts.config) {
        const read = readJsonArg(opts.config as string);
        plan = validateJudgePlan(read.value, read.source);
        baseDir = read.dir;
        if (opts.concurrency !== 4 && plan.concurrency === undefined) plan.concurrency = opts.concurrency as number;
      } else {
        const spec: JudgeSpec =
          opts.backend === 'openai'
            ? { backend: 'openai-chat', model: opts.model as string, baseURL: opts.baseUrl as string, apiKeyEnv: process.env[DEFAULT_API_KEY_ENV] ? DEFAULT_API_KEY_ENV : 'OPENAI_API_KEY' }
            : { backend: 'local', ...(opts.model ? { model: opts.model as string } : {}) };
        if (spec.backend !== 'local' && !spec.model) throw new Error('--model is required with --backend openai');
        const requests = opts.request !== undefined ? [opts.request] : opts.dimension === undefined ? ['rating'] : undefined;
        plan = validateJudgePlan({ judges: [spec], bodies: [opts.body], ...(requests ? { requests } : {}), ...(opts.dimension !== undefined ? { dimension: opts.dimension } : {}), concurrency: opts.concurrency }, 'flags');
      }
      if (opts.config && opts.dimension !== undefined) plan = validateJudgePlan({ ...plan, dimension: opts.dimension }, '--dimension');
      if (opts.repeats !== undefined) plan = validateJudgePlan({ ...plan, repeats: opts.repeats }, '--repeats');
      if (opts.batch) plan = validateJudgePlan({ ...plan, batch: true }, '--batch');
      if (opts.cache === false) plan.cache = false;
      else if (typeof opts.cache === 'string') plan.cache = resolve(opts.cache);
      const runtime = runtimeFromFlags(opts, plan.runtime);
      if (runtime) plan.runtime = runtime;
      if (opts.printPlan) {
        process.stdout.write(JSON.stringify({ job: 'judge', ...plan }, null, 2) + '\n');
        return;
      }
      const host = cliHost({ baseDir, prompts: opts.prompts ? resolve(opts.prompts as string) : undefined });
      if (opts.dryRun) {
        const path = resolve(file);
        const est = await JOBS.judge.estimate(plan, { file: path, items: readStudy(path).items }, host);
        process.stdout.write(`${est.judgements} judgements: ${est.candidates} candidates × ${plan.judges.length} judge(s) × ${est.variants} variant(s)${plan.repeats && plan.repeats > 1 ? ` × ${plan.repeats} repeats` : ''}; cached replies are not asked again\n`);
        for (const j of est.perJudge) process.stdout.write(`${j.label}: ${j.promptTokens} prompt tokens${j.approximate ? ' (approximate tokenizer)' : ''}${j.cost === null ? ' (no price in the plan)' : `, cost ≤ ${j.cost.toFixed(4)}`}\n`);
        if (est.cost !== null) process.stdout.write(`estimated cost ≤ ${est.cost.toFixed(4)}${plan.batch ? ' (Batch API: half the plan\'s prices)' : ''}\n`);
        return;
      }
      const report = await withInterrupt((signal) =>
        runPlanOnFile({ ...plan, job: 'judge' }, resolve(file), { ...host, signal }, { out: opts.out ? resolve(opts.out as string) : undefined }),
      );
      host.close();
      printReport(report);
      if (!report.lines.length && !report.nothingDone) log('no judgement ran');
    });
}
