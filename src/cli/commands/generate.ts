/**
 * `reflect-eval generate`: candidates for every item from generators × decoding settings — a preset (Greedy, the
 * GEM 2022 grid), custom settings from a run config, local models and OpenAI-compatible endpoints. Flags and the
 * config file become a generation plan run by the core job (src/core/jobs/generate.ts).
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { runPlanOnFile } from '../../core/jobs/file';
import { validateGeneratePlan, type GeneratePlan } from '../../core/jobs/generate';
import { PRESETS, type PresetName } from '../../core/generation/runConfig';
import { positiveInt, runtimeFromFlags, withRuntimeOptions } from '../common';
import type { LocalRuntimeOptions } from '../../core/models/ortRuntime';
import { cliHost, printReport, withInterrupt } from '../host';
import { readJsonArg } from '../plans';

function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('must be an integer ≥ 0');
  return n;
}

export function registerGenerate(program: Command): void {
  withRuntimeOptions(program.command('generate <file>'))
    .description('generate candidates for every item: generators (local ONNX models, OpenAI-compatible endpoints) × decoding settings (see docs/generation.md)')
    .option('--config <gen.json>', 'run config: generators, preset, custom settings, seed (see docs/generation.md)')
    .addOption(new Option('--preset <name>', `decoding settings preset (default greedy; overrides the config's)`).choices(Object.keys(PRESETS)))
    .option('--model <folderOrHubId...>', 'local model folder(s) (HF/Optimum ONNX layout), hub id(s) or bundled:<name>; replaces the config\'s generators (default: bundled:reflect-gpt2-tiny)')
    .option('--seed <n>', 'seed of the samplers (default 0; overrides the config\'s)', nonNegativeInt)
    .option('--max-new-tokens <n>', 'tokens per candidate at most (default 128; overrides the config\'s)', positiveInt)
    .option('--prompts <dir>', 'a prompts folder whose generation/chat.mustache overrides the bundled chat template')
    .option('--cache <file>', 'API reply cache (default: .reflect-eval-cache/generation-cache.jsonl beside the file)')
    .option('--no-cache', 'ask API endpoints again even for requests answered before')
    .option('--batch', "API generators through OpenAI's Batch API: half price, answered within 24 h, resumed by batch id after a restart (docs/scale.md)")
    .option('--print-plan', 'print the plan as JSON (a run config for --config), then exit')
    .option('-o, --out <file>', 'write here instead of updating the file in place')
    .action(async (file: string, opts: Record<string, unknown>) => {
      let config: Record<string, unknown> = { generators: [{ backend: 'local' }], preset: 'greedy' };
      let source = 'flags';
      let baseDir = process.cwd();
      if (opts.config) {
        const read = readJsonArg(opts.config as string);
        if (typeof read.value !== 'object' || read.value === null) throw new Error(`${read.source}: must be a JSON object`);
        config = read.value as Record<string, unknown>;
        source = read.source;
        baseDir = read.dir;
      }
      // Flags override the config's fields; the result is checked as one plan.
      if (opts.model) config = { ...config, generators: (opts.model as string[]).map((model) => ({ backend: 'local', model: baseDir === process.cwd() ? model : againstCwd(model) })) };
      if (opts.preset) config = { ...config, preset: opts.preset as PresetName };
      if (opts.seed !== undefined) config = { ...config, seed: opts.seed };
      if (opts.maxNewTokens !== undefined) config = { ...config, maxNewTokens: opts.maxNewTokens };
      if (opts.batch) config = { ...config, batch: true };
      if (opts.cache === false) config = { ...config, cache: false };
      else if (typeof opts.cache === 'string') config = { ...config, cache: resolve(opts.cache) };
      const runtime = runtimeFromFlags(opts, config.runtime as LocalRuntimeOptions | undefined);
      if (runtime) config = { ...config, runtime };
      const plan: GeneratePlan = validateGeneratePlan(config, source);
      if (opts.printPlan) {
        process.stdout.write(JSON.stringify({ job: 'generate', ...plan }, null, 2) + '\n');
        return;
      }
      const host = cliHost({ baseDir, prompts: opts.prompts ? resolve(opts.prompts as string) : undefined });
      const report = await withInterrupt((signal) =>
        runPlanOnFile({ ...plan, job: 'generate' }, resolve(file), { ...host, signal }, { out: opts.out ? resolve(opts.out as string) : undefined }),
      );
      host.close();
      printReport(report);
    });
}

/**
 * A `--model` typed on the command line is read against the working directory, while a config file's models are
 * read against the config's folder: with a config, a relative folder that exists here is made absolute; ids and
 * bundled names are kept as typed.
 */
function againstCwd(model: string): string {
  return existsSync(resolve(model)) ? resolve(model) : model;
}
