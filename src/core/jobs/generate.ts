/**
 * The generate job: generators (local ONNX models, OpenAI-compatible endpoints) × decoding settings over every
 * item (GEM 2022 §3.4; docs/generation.md). Candidates reach the sink at the end of the run, merged into each item
 * as it is then (exact duplicates kept once with all their origins); a cancelled run keeps every finished context.
 */
import { basename, dirname, resolve } from 'node:path';
import { ResponseCache } from '../cache/responseCache';
import { failFor, isObject } from '../config';
import { validateLocalRuntime, type LocalRuntimeOptions } from '../models/ortRuntime';
import { withRuntime } from './runtime';
import type { ApiReply } from '../generation/apiGenerator';
import { addGeneratedCandidates } from '../generation/candidates';
import { runGenerationBatches, generatorBatchOwner } from '../generation/apiBatch';
import { createApiGenerator, DEFAULT_LOCAL_MODEL, generatorHandle, type GeneratorEnvironment } from '../generation/createGenerator';
import { appendGenerationRun, generationManifestFile, generationRunRecord } from '../generation/manifest';
import { BatchStateLog } from '../remote/openaiBatch';
import { runGeneration } from '../generation/run';
import { describeSpec, resolveGenerationRun, validateGenerationConfig, type GenerationRunConfig } from '../generation/runConfig';
import type { GeneratorSpec } from '../generation/runConfig';
import type { ItemSink, JobHost, JobReport, JobTarget, SecretAnswer } from './host';
import { cacheFileBeside } from './judge';
import { DEFAULT_API_KEY_ENV, keyRouteProblems, validateApiKeyOrigins, type KeyedEndpoint } from './apiKeyPolicy';
import { updatesFor } from './memorySink';

/** A generation run: the object a `generate --config gen.json` file holds, plus where API replies are cached. */
export interface GeneratePlan extends GenerationRunConfig {
  job?: 'generate';
  /**
   * API reply cache: `true` (default) for `.reflect-eval-cache/generation-cache.jsonl` beside the dialogue file,
   * `false` for none, or a file (relative to the host's base folder).
   */
  cache?: boolean | string;
  /** The CLI's consent to send one variable's key to several origins (as in a judge plan; docs/security.md). */
  apiKeyOrigins?: Record<string, string[]>;
  /** How local generators run: threads and execution provider (over the host's settings). */
  runtime?: LocalRuntimeOptions;
  /**
   * Send the API generators' requests through OpenAI's Batch API (docs/scale.md): uploaded as one file per 50 000
   * requests, answered within 24 h at half the price, resumed by batch id after a restart (state in
   * `.reflect-eval-cache/batches.jsonl` beside the dialogue file). Local generators run as usual.
   */
  batch?: boolean;
  /** First wait between polls of a batch, in seconds (default 15; each next wait 1.5 × longer, at most 10 min). */
  batchPollSeconds?: number;
  /**
   * Run manifest: `true` (default) appends the run's record to `<file>.generation-manifest.json` beside the dialogue
   * file (`generation/manifest.ts`), `false` writes none, a string names the file (relative to the host's base folder).
   */
  manifest?: boolean | string;
}

/**
 * Checks a generation plan (a run config file's contents).
 *
 * @throws ConfigError naming the source and the field
 */
export function validateGeneratePlan(value: unknown, source: string): GeneratePlan {
  const fail = failFor(source);
  if (!isObject(value)) fail('(root)', 'must be a JSON object like {"generators": [{"backend": "local"}], "preset": "greedy"}');
  const { job, cache, apiKeyOrigins, runtime, batch, batchPollSeconds, manifest, ...config } = value as Record<string, unknown>;
  if (job !== undefined && job !== 'generate') fail('job', 'must be "generate" for a generation plan');
  if (cache !== undefined && typeof cache !== 'boolean' && typeof cache !== 'string') fail('cache', 'must be true, false or a file path');
  if (batch !== undefined && typeof batch !== 'boolean') fail('batch', 'must be true or false');
  if (manifest !== undefined && typeof manifest !== 'boolean' && typeof manifest !== 'string') fail('manifest', 'must be true, false or a file path');
  if (batch && cache === false) fail('batch', 'needs the reply cache: the batch\'s replies are stored there and read by the run (remove "cache": false)');
  if (batchPollSeconds !== undefined && !(typeof batchPollSeconds === 'number' && batchPollSeconds > 0 && batchPollSeconds <= 3600)) fail('batchPollSeconds', 'must be a number of seconds in (0, 3600]');
  const origins = validateApiKeyOrigins(apiKeyOrigins, fail);
  return {
    ...validateGenerationConfig(config, source),
    ...(job !== undefined ? { job: 'generate' as const } : {}),
    ...(cache !== undefined ? { cache: cache as boolean | string } : {}),
    ...(origins ? { apiKeyOrigins: origins } : {}),
    ...(runtime !== undefined ? { runtime: validateLocalRuntime(runtime, 'runtime', fail) } : {}),
    ...(batch !== undefined ? { batch: batch as boolean } : {}),
    ...(batchPollSeconds !== undefined ? { batchPollSeconds: batchPollSeconds as number } : {}),
    ...(manifest !== undefined ? { manifest: manifest as boolean | string } : {}),
  };
}

/**
 * Runs a generation plan over the target's items.
 *
 * @param options.baseDir - folder that relative chat templates of the plan are read against (a config file's
 *   folder; default the host's base folder)
 */
export async function runGeneratePlan(plan: GeneratePlan, target: JobTarget, host: JobHost, sink: ItemSink, options: { baseDir?: string } = {}): Promise<JobReport> {
  const run = resolveGenerationRun(plan);
  const cacheFile = plan.cache === false ? null : typeof plan.cache === 'string' ? resolve(host.baseDir, plan.cache) : cacheFileBeside(target.file, 'generation-cache.jsonl');
  // Every key is asked for before anything runs: a declined one stops the job with no request sent.
  const keys = await generatorKeys(run.generators, plan.apiKeyOrigins, host);
  if ('declined' in keys) return { job: 'generate', lines: [], warnings: [], nothingDone: keys.declined };
  const env: GeneratorEnvironment = {
    models: withRuntime(host.models, plan.runtime),
    baseDir: options.baseDir ?? host.baseDir,
    promptRoots: [...host.promptRoots],
    apiKey: async (spec) => {
      const answer = keys.get(spec) ?? { missing: 'no key was asked for this generator' };
      return 'declined' in answer ? { missing: answer.declined } : answer;
    },
    ...(cacheFile ? { cache: new ResponseCache<ApiReply>(cacheFile) } : {}),
  };
  const items = target.items;
  const batchLines: string[] = [];
  const batchWarnings: string[] = [];
  if (plan.batch && run.generators.some((g) => g.backend !== 'local')) {
    await runBatches(plan, run, items, env, host, batchLines, batchWarnings, cacheFileBeside(target.file, 'batches.jsonl'));
    if (host.signal?.aborted) return { job: 'generate', lines: batchLines, warnings: batchWarnings, cancelled: true };
    // The run below answers API generators from the cache the batches filled, never online.
    env.cacheOnly = 'no finished batch answered this request; rerun with --batch to ask it';
  }
  host.log(`${items.length} contexts × ${run.generators.length} generator(s) × ${run.settings.length} decoding setting(s), seed ${run.seed}`);
  const result = await runGeneration(items, run.generators.map((g) => generatorHandle(g, env)), run.settings, run, {
    signal: host.signal,
    onLog: (m) => host.log(m),
    onProgress: (p) => host.progress({ done: p.contextsDone, total: p.contextsTotal, message: `${p.tokensPerSecond.toFixed(1)} tokens/s · ${p.generator}` }),
  });
  const counts = { added: 0, duplicates: 0, unchanged: 0 };
  await sink.apply(
    updatesFor(result.generated.keys(), (id, current) => {
      const generated = result.generated.get(id);
      if (!generated?.length) return undefined;
      const r = addGeneratedCandidates(current, generated);
      counts.added += r.added;
      counts.duplicates += r.duplicates;
      counts.unchanged += r.unchanged;
      return r.item;
    }),
  );
  const generating = result.generatingMs / 1000;
  const report: JobReport = {
    job: 'generate',
    lines: [
      ...batchLines,
      `${result.contextsDone}/${result.contextsTotal} contexts in ${(result.elapsedMs / 1000).toFixed(1)} s (${generating.toFixed(1)} s generating), ${result.tokensGenerated} new tokens (${(result.tokensGenerated / Math.max(generating, 1e-9)).toFixed(1)} tokens/s); ` +
        `${counts.added} new candidates, ${counts.duplicates} duplicates listed as further origins, ${counts.unchanged} already present`,
    ],
    warnings: [
      ...batchWarnings,
      ...result.loadErrors.map((e) => `could not load ${e.generator}: ${e.message}`),
      ...result.skipped,
      ...result.failures.map((f) => `failed: ${f.generator} on ${f.itemId}, ${f.setting}: ${f.message}`),
    ],
    cancelled: result.cancelled,
    data: { ...counts, contextsDone: result.contextsDone, contextsTotal: result.contextsTotal, tokens: result.tokensGenerated, settings: run.settings.map(describeSpec), cache: cacheFile && dirname(cacheFile) },
  };
  if (result.loadErrors.length === run.generators.length && run.generators.length > 0) report.nothingDone = `no generator could be loaded (${result.loadErrors.map((e) => e.message).join('; ')})`;
  else if (result.loadErrors.length) report.failed = `${result.loadErrors.length} generator(s) could not be loaded (the others' candidates were kept)`;
  else if (items.length === 0) report.nothingDone = 'the file has no items to generate for';
  const manifest = plan.manifest === false ? null : typeof plan.manifest === 'string' ? resolve(host.baseDir, plan.manifest) : generationManifestFile(target.file);
  if (manifest && result.contextsDone > 0) {
    const record = generationRunRecord(run, { contextsDone: result.contextsDone, contextsTotal: result.contextsTotal, tokens: result.tokensGenerated, ...counts, loadErrors: result.loadErrors.length, failures: result.failures.length, cancelled: result.cancelled, ...(plan.batch ? { batch: true } : {}) }, DEFAULT_LOCAL_MODEL);
    try {
      appendGenerationRun(manifest, basename(target.file), record);
      report.files = [...(report.files ?? []), manifest];
    } catch (err) {
      report.warnings.push((err as Error).message);
    }
  }
  return report;
}

/**
 * Batch mode: every API generator's outstanding requests through the Batch API, one generator after the other
 * (each resumes its own open batches first); the replies land in the reply cache. Report lines and warnings are
 * appended to `lines` and `warnings`; a generator whose batches fail is reported and its requests fail in the run.
 */
async function runBatches(plan: GeneratePlan, run: ReturnType<typeof resolveGenerationRun>, items: JobTarget['items'], env: GeneratorEnvironment, host: JobHost, lines: string[], warnings: string[], stateFile: string): Promise<void> {
  const state = new BatchStateLog(stateFile);
  for (const spec of run.generators) {
    if (spec.backend === 'local' || host.signal?.aborted) continue;
    const label = `${spec.model} @ ${spec.baseURL}`;
    try {
      const answer = await env.apiKey(spec);
      if ('missing' in answer) continue; // the run reports the generator as not loaded
      const api = createApiGenerator(spec, env, answer.key);
      const res = await runGenerationBatches({
        api,
        items,
        settings: run.settings,
        run,
        state,
        pollMs: (plan.batchPollSeconds ?? 15) * 1000,
        signal: host.signal,
        log: (m) => host.log(m),
        progress: (done, total, message) => host.progress({ done, total, message }),
      });
      for (const b of res.batches) lines.push(`batch ${b.batchId} (${label}${b.created ? '' : ', resumed'}): ${b.status}, ${b.answered} answered, ${b.failed} failed of ${b.requests} requests`);
      if (res.owed === 0 && res.batches.length === 0) lines.push(`${label}: every request already in the reply cache, no batch`);
      const first = [...res.failures.values()][0];
      if (res.failures.size) warnings.push(`${res.failures.size} request(s) of ${label} were not answered by their batch (first: ${first}); rerun with --batch to ask only those`);
      if (res.stillRunning > 0) warnings.push(`${res.stillRunning} request(s) of ${label} are still in a running batch (${state.open(generatorBatchOwner(api)).map((b) => b.batchId).join(', ')}): rerun with --batch to collect them; no new batch is created for them`);
    } catch (err) {
      warnings.push(`the batches of ${label} stopped: ${(err as Error).message}`);
    }
  }
}

/** The API endpoints of a plan's generators, for the key rules. */
export function generatorKeyedEndpoints(generators: readonly GeneratorSpec[]): KeyedEndpoint[] {
  return generators.flatMap((g, i) => (g.backend === 'local' ? [] : [{ at: `generators[${i}]`, baseURL: g.baseURL ?? '', apiKeyEnv: g.apiKeyEnv }]));
}

/** Asks the host for the key of every API generator before any runs; `declined` as soon as one is declined. */
async function generatorKeys(generators: readonly GeneratorSpec[], apiKeyOrigins: GeneratePlan['apiKeyOrigins'], host: JobHost): Promise<Map<GeneratorSpec, SecretAnswer> | { declined: string }> {
  let problems = new Map<string, string>();
  try {
    problems = keyRouteProblems(generatorKeyedEndpoints(generators), apiKeyOrigins);
  } catch {
    // A baseURL that is not a URL: validation refuses it before a run.
  }
  const answers = new Map<GeneratorSpec, SecretAnswer>();
  for (const spec of generators) {
    if (spec.backend === 'local') continue;
    const shared = problems.get(spec.apiKeyEnv ?? DEFAULT_API_KEY_ENV);
    const answer = await host.secret({ purpose: 'generator', endpoint: spec.baseURL ?? '', envVar: spec.apiKeyEnv, model: spec.model, ...(shared ? { sharedKeyProblem: shared } : {}) });
    if ('declined' in answer) return { declined: `generator ${spec.model ?? spec.backend}: ${answer.declined}` };
    answers.set(spec, answer);
  }
  return answers;
}
