/**
 * `reflect-eval generate`: candidates for every item from generators × decoding settings — a preset (Greedy, the
 * GEM 2022 grid), custom settings from a run config, local models and OpenAI-compatible endpoints.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { writeItemsBack } from '../../core/format/files';
import { ResponseCache } from '../../core/cache/responseCache';
import type { ApiReply } from '../../core/generation/apiGenerator';
import { generatorHandle, type GeneratorEnvironment } from '../../core/generation/createGenerator';
import { localCandidateGenerator } from '../../core/generation/localGenerator';
import { applyGenerated, runGeneration, type GeneratorHandle, type RunResult } from '../../core/generation/run';
import { PRESETS, resolveGenerationRun, validateGenerationConfig, type GenerationRunConfig, type PresetName, type ResolvedGenerationRun } from '../../core/generation/runConfig';
import type { OnnxCausalLM } from '../../core/models/causalLM';
import type { DialogueItem } from '../../core/dialogue/types';
import { log, openDialogues, positiveInt } from '../common';
import { bundledModels, bundledPrompts } from '../paths';

/** Default environment variable of API keys (as for judges). */
export const API_KEY_ENV = 'REFLECT_EVAL_API_KEY';

function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidArgumentError('must be an integer ≥ 0');
  return n;
}

/** Reads and validates a run config file. */
export function readGenerationConfig(file: string): GenerationRunConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not valid JSON: ${(err as Error).message}`);
  }
  return validateGenerationConfig(parsed, file);
}

/** Runs generators over items with a progress bar on stderr; returns the updated items and the run's outcome. */
export async function generateWithProgress(items: DialogueItem[], handles: GeneratorHandle[], run: ResolvedGenerationRun, signal?: AbortSignal): Promise<{ items: DialogueItem[]; result: RunResult }> {
  const bar = new cliProgress.SingleBar(
    { format: 'generating [{bar}] {value}/{total} contexts · {tps} tokens/s · {generator}', stream: process.stderr, noTTYOutput: true, notTTYSchedule: 5000 },
    cliProgress.Presets.shades_classic,
  );
  bar.start(items.length * handles.length, 0, { tps: '0.0', generator: '' });
  let result: RunResult;
  try {
    result = await runGeneration(items, handles, run.settings, run, {
      signal,
      onProgress: (p) => bar.update(p.contextsDone, { tps: p.tokensPerSecond.toFixed(1), generator: p.generator }),
    });
  } finally {
    bar.stop();
  }
  if (result.cancelled) log('interrupted: keeping the contexts finished so far');
  for (const e of result.loadErrors) log(`could not load ${e.generator}: ${e.message}`);
  for (const s of result.skipped) log(s);
  for (const f of result.failures) log(`failed: ${f.generator} on ${f.itemId}, ${f.setting}: ${f.message}`);
  const { items: updated, counts } = applyGenerated(items, result.generated);
  const generating = result.generatingMs / 1000;
  log(
    `${result.contextsDone}/${result.contextsTotal} contexts in ${(result.elapsedMs / 1000).toFixed(1)} s (${generating.toFixed(1)} s generating), ${result.tokensGenerated} new tokens (${(result.tokensGenerated / Math.max(generating, 1e-9)).toFixed(1)} tokens/s); ` +
      `${counts.added} new candidates, ${counts.duplicates} duplicates listed as further origins, ${counts.unchanged} already present`,
  );
  return { items: updated, result };
}

/** Greedy candidates for every item from an already loaded model (used by `demo`, which reuses the model as judge). */
export async function generateStep(items: DialogueItem[], model: OnnxCausalLM, maxNewTokens: number): Promise<DialogueItem[]> {
  const run = resolveGenerationRun({ generators: [{ backend: 'local' }], preset: 'greedy', maxNewTokens });
  const handle: GeneratorHandle = { label: model.ref, open: async () => localCandidateGenerator(model, { keepOpen: true }) };
  return (await generateWithProgress(items, [handle], run)).items;
}

export function registerGenerate(program: Command): void {
  program
    .command('generate <file>')
    .description('generate candidates for every item: generators (local ONNX models, OpenAI-compatible endpoints) × decoding settings (see docs/generation.md)')
    .option('--config <gen.json>', 'run config: generators, preset, custom settings, seed (see docs/generation.md)')
    .addOption(new Option('--preset <name>', `decoding settings preset (default greedy; overrides the config's)`).choices(Object.keys(PRESETS)))
    .option('--model <folderOrHubId...>', 'local model folder(s) (HF/Optimum ONNX layout), hub id(s) or bundled:<name>; replaces the config\'s generators (default: bundled:reflect-gpt2-tiny)')
    .option('--seed <n>', 'seed of the samplers (default 0; overrides the config\'s)', nonNegativeInt)
    .option('--max-new-tokens <n>', 'tokens per candidate at most (default 128; overrides the config\'s)', positiveInt)
    .option('--prompts <dir>', 'a prompts folder whose generation/chat.mustache overrides the bundled chat template')
    .option('--cache <file>', 'API reply cache (default: .reflect-eval-cache/generation-cache.jsonl beside the file)')
    .option('--no-cache', 'ask API endpoints again even for requests answered before')
    .option('-o, --out <file>', 'write here instead of updating the file in place')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const { doc, items } = openDialogues(file);
      const configFile = opts.config ? resolve(opts.config as string) : undefined;
      const config: GenerationRunConfig = configFile ? readGenerationConfig(configFile) : { generators: [{ backend: 'local' }], preset: 'greedy' };
      if (opts.model) config.generators = (opts.model as string[]).map((model) => ({ backend: 'local', model }));
      if (opts.preset) config.preset = opts.preset as PresetName;
      if (opts.seed !== undefined) config.seed = opts.seed as number;
      if (opts.maxNewTokens !== undefined) config.maxNewTokens = opts.maxNewTokens as number;
      const run = resolveGenerationRun(config);
      const cacheFile = opts.cache === false ? null : typeof opts.cache === 'string' ? resolve(opts.cache) : join(dirname(resolve(file)), '.reflect-eval-cache', 'generation-cache.jsonl');
      const env: GeneratorEnvironment = {
        models: { bundledDir: bundledModels(), baseDir: configFile ? dirname(configFile) : process.cwd() },
        baseDir: configFile ? dirname(configFile) : process.cwd(),
        promptRoots: [bundledPrompts(), ...(opts.prompts ? [resolve(opts.prompts as string)] : [])],
        apiKey: async (spec) => process.env[spec.apiKeyEnv ?? API_KEY_ENV],
        apiKeyHint: (spec) => `set the environment variable ${spec.apiKeyEnv ?? API_KEY_ENV}`,
        ...(cacheFile ? { cache: new ResponseCache<ApiReply>(cacheFile) } : {}),
      };
      const perContext = run.settings.length;
      log(`${items.length} contexts × ${run.generators.length} generator(s) × ${perContext} decoding setting(s), seed ${run.seed}`);
      // Ctrl-C stops the run and still writes every finished context; a second Ctrl-C exits at once.
      const abort = new AbortController();
      const onSigint = () => (abort.signal.aborted ? process.exit(130) : abort.abort());
      process.on('SIGINT', onSigint);
      let updated: DialogueItem[];
      let result: RunResult;
      try {
        ({ items: updated, result } = await generateWithProgress(items, run.generators.map((g) => generatorHandle(g, env)), run, abort.signal));
      } finally {
        process.off('SIGINT', onSigint);
      }
      const n = writeItemsBack(doc, updated, resolve((opts.out as string | undefined) ?? file));
      log(`updated ${n} items`);
      if (result.loadErrors.length) throw new Error(`${result.loadErrors.length} generator(s) could not be loaded (the others' candidates were written)`);
    });
}
