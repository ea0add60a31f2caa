/**
 * API generation through OpenAI's Batch API (`generate --batch`, plan field `batch: true`): every request an API
 * generator still owes for a run — each context × decoding setting the endpoint can run, minus the response
 * cache — goes into batch input files whose `custom_id` is the request's cache key ({@link ApiGenerator.cacheKey}).
 * Replies are read by the same code as online ones ({@link ApiGenerator.replyFrom}) and stored in the same
 * response cache, so the run that follows answers every context from the cache (and a later online run finds them
 * there too). The batch id is recorded in the state file before any polling (remote/openaiBatch.ts): a rerun after
 * a restart or a `kill -9` collects that batch instead of creating a new one. Requests a batch did not answer are
 * reported and not cached, so the next run batches only those.
 */
import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import type { DialogueItem } from '../dialogue/types';
import { runBatchRequests, type BatchRunControls, type BatchRunSummary } from '../remote/openaiBatch';
import { apiSamplingParams, type ApiGenerator, type ApiRequestBody } from './apiGenerator';
import type { RunSettings } from './run';
import type { DecodingSpec } from './runConfig';

/** What one API generator's batches need. */
export interface GenerationBatchOptions extends BatchRunControls {
  /** The generator (its cache is where the replies go; the run after the batches reads them there). */
  api: ApiGenerator;
  items: readonly DialogueItem[];
  /** The run's decoding settings, each with `maxNewTokens`; those the endpoint cannot run are left out. */
  settings: readonly (DecodingSpec & { maxNewTokens: number })[];
  run: Pick<RunSettings, 'seed' | 'behaviour'>;
}

/** What an API generator's batches gave. */
export interface GenerationBatchRun {
  /** Requests owed when the run started (not in the cache). */
  owed: number;
  batches: BatchRunSummary[];
  /** Why each request that a batch did not answer failed, by cache key. */
  failures: Map<string, string>;
  /** Requests still running in a batch when the run was cancelled (a rerun collects them). */
  stillRunning: number;
}

/** The digest a generator's batch state entries carry: SHA-256 (16 hex digits) of its backend description. */
export function generatorBatchOwner(api: ApiGenerator): string {
  return createHash('sha256').update(JSON.stringify({ purpose: 'generation', ...api.description })).digest('hex').slice(0, 16);
}

/**
 * Runs one API generator's outstanding requests through the Batch API and stores the replies in its cache.
 *
 * @throws the `openai` package's APIError when the endpoint refuses an upload, a batch or a poll; Error when the
 *   generator has no cache (the replies would have nowhere to go)
 */
export async function runGenerationBatches(o: GenerationBatchOptions): Promise<GenerationBatchRun> {
  const { api } = o;
  const cache = api.options.cache;
  if (!cache) throw new Error(`batch mode needs the reply cache (the plan has "cache": false): the batch's replies are read from it`);
  const wanted = new Map<string, ApiRequestBody>();
  for (const spec of o.settings) {
    const params = apiSamplingParams(spec, o.run.seed);
    if ('unsupported' in params) continue; // the run reports it as skipped
    for (const item of o.items) {
      const body = api.requestBody(item.context, params, o.run.behaviour);
      const key = api.cacheKey(body);
      if (!wanted.has(key) && !cache.get(key)) wanted.set(key, body);
    }
  }
  const failures = new Map<string, string>();
  const { protocol, baseURL, model, headers } = api.options;
  const client = new OpenAI({ baseURL, apiKey: api.options.apiKey, defaultHeaders: headers, maxRetries: 5, timeout: 300_000 });
  const { batches, stillRunning } = await runBatchRequests({
    client,
    endpoint: protocol === 'chat' ? '/v1/chat/completions' : '/v1/completions',
    owner: generatorBatchOwner(api),
    label: `${model} @ ${baseURL} (generation)`,
    state: o.state,
    wanted: [...wanted.keys()],
    body: (key) => wanted.get(key)!,
    store: (key, outcome) => {
      const body = wanted.get(key);
      if (!body) return undefined; // answered meanwhile (in the cache), or not asked by this plan
      if (!outcome.ok) {
        failures.set(key, outcome.message);
        return 'failed';
      }
      try {
        cache.set(key, api.replyFrom(body, outcome.body));
        return 'answered';
      } catch (err) {
        failures.set(key, (err as Error).message);
        return 'failed';
      }
    },
    pollMs: o.pollMs,
    metadata: { generator: model },
    signal: o.signal,
    log: o.log,
    progress: o.progress,
    maxRequestsPerBatch: o.maxRequestsPerBatch,
  });
  return { owed: wanted.size, batches, failures, stillRunning };
}
