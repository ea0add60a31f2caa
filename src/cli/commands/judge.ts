/**
 * `reflect-eval judge`: one judge from flags, or a judges × bodies × requests matrix from `--config`.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { writeItemsBack } from '../../core/format/files';
import { validateRunConfig, type JudgeSpec, type RunConfig } from '../../core/judges/runConfig';
import { log, openDialogues, positiveInt } from '../common';
import { runJudgeMatrix, writeManifest } from '../judgeRun';
import { bundledPrompts } from '../paths';

export function registerJudge(program: Command): void {
  program
    .command('judge <file>')
    .description('score every candidate with LLM judges under ICMI 2023 prompt variants (one judge from flags, or a matrix from --config)')
    .option('--config <run.json>', 'judges × bodies × requests, concurrency and prices (see docs/judging.md); overrides the single-judge flags')
    .addOption(new Option('--backend <kind>', 'judge backend').choices(['local', 'openai']).default('local'))
    .option('--model <name>', 'local: model folder or hub id (default: bundled); openai: model name')
    .option('--base-url <url>', 'OpenAI-compatible endpoint (openai backend)', 'https://api.openai.com/v1')
    .option('--body <name>', 'task body template', 'instructions')
    .option('--request <name>', 'assessment request template', 'rating')
    .option('--prompts <dir>', 'a prompts folder that overrides the bundled templates')
    .option('--concurrency <n>', 'judgements in flight at once', positiveInt, 4)
    .option('--cache <file>', 'response cache (default: .reflect-eval-cache/judge-cache.jsonl beside the file)')
    .option('--no-cache', 'call the judge even for prompts it has answered before')
    .option('-o, --out <file>', 'write here instead of updating the file in place')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const { doc, items } = openDialogues(file);
      const prompts = [bundledPrompts(), ...(opts.prompts ? [resolve(opts.prompts as string)] : [])];
      let config: RunConfig;
      if (opts.config) {
        const configFile = resolve(opts.config as string);
        let parsed: unknown;
        try {
          parsed = JSON.parse(readFileSync(configFile, 'utf8'));
        } catch (err) {
          throw new Error(`${configFile}: not valid JSON: ${(err as Error).message}`);
        }
        config = validateRunConfig(parsed, configFile);
      } else {
        const spec: JudgeSpec =
          opts.backend === 'openai'
            ? { backend: 'openai-chat', model: opts.model as string, baseURL: opts.baseUrl as string, apiKeyEnv: process.env.REFLECT_EVAL_API_KEY ? 'REFLECT_EVAL_API_KEY' : 'OPENAI_API_KEY' }
            : { backend: 'local', ...(opts.model ? { model: opts.model as string } : {}) };
        if (spec.backend !== 'local' && !spec.model) throw new Error('--model is required with --backend openai');
        config = { judges: [spec], bodies: [opts.body as string], requests: [opts.request as string], concurrency: opts.concurrency as number };
      }
      const cacheFile = opts.cache === false ? null : typeof opts.cache === 'string' ? resolve(opts.cache) : join(dirname(resolve(file)), '.reflect-eval-cache', 'judge-cache.jsonl');
      const { items: updated, records } = await runJudgeMatrix(items, config, prompts, cacheFile, log);
      const out = resolve((opts.out as string | undefined) ?? file);
      const n = writeItemsBack(doc, updated, out);
      for (const r of records) log(`${r.evaluatorId}: ${r.judgements} judgements, ${r.calls} calls, ${r.cacheHits} from cache, ${r.failures} without a usable score`);
      const manifest = out.replace(/(\.dialogues)?\.jsonl$/, '') + '.judge-manifest.json';
      writeManifest(manifest, config, records, { file: basename(out), prompts: prompts, cache: cacheFile });
      log(`updated ${n} items; manifest ${manifest}`);
    });
}
