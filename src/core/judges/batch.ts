/**
 * A judge matrix through OpenAI's Batch API (`judge --batch`, plan field `batch: true`): every judgement an API
 * judge still owes — over all prompt variants and repeats, minus the response cache — goes into batch input files
 * whose `custom_id` is the judgement's cache key ({@link judgeCacheKey}). Results are read by the same code as
 * online replies ({@link resultFromCompletion} → `parseReply`) and stored in the same response cache, so a later
 * online run (or `runJudge` right after) finds them there.
 *
 * A batch id is recorded in the state file ({@link BatchStateLog}) as soon as the batch exists; a rerun after a
 * restart or a `kill -9` polls the batches its judge left open instead of creating new ones. Requests a batch did not
 * answer (an `expired` or `failed` batch, a request the endpoint refused) come back as `error` results with the
 * batch's message; errors are not cached, so the next run asks only those again.
 */
import { createHash } from 'node:crypto';
import OpenAI from 'openai';
import type { DialogueItem } from '../dialogue/types';
import { BatchStateLog, runBatchRequests, type BatchRunControls, type BatchRunSummary } from '../remote/openaiBatch';
import { judgeCacheKey, type CacheStats, type JudgeCache } from './cache';
import { judgeDescription, judgeLabel } from './createJudge';
import { judgeEvaluatorId, missingRepeats, type Judge, type JudgeRequest, type JudgeResult } from './judge';
import { judgeRequestBody, openAIJudgeSignature, resultFromCompletion, type OpenAIJudgeOptions } from './openaiJudge';
import { assemblePrompt, templateHash, type PromptLibrary, type PromptVariant, type RequestSpec } from '../templates/judgePrompt';
import type { JudgeSpec } from './judgeSpec';

/** What one judge's batches need. */
export interface JudgeBatchOptions extends BatchRunControls {
  /** An API judge (`openai-chat` or `openai-completions`). */
  spec: JudgeSpec;
  apiKey: string;
  items: readonly DialogueItem[];
  lib: PromptLibrary;
  variants: readonly PromptVariant[];
  /** Each prompt asked this many times (each repeat its own request). */
  repeats: number;
  /** The response cache; results are stored here as they are downloaded. Null: kept in memory only. */
  cache: JudgeCache | null;
}

/** One batch as a run saw it. */
export type JudgeBatchSummary = BatchRunSummary;

/** What a judge's batches gave. */
export interface JudgeBatchRun {
  /** A result per cache key for every request a batch of this run answered or failed. */
  results: Map<string, JudgeResult>;
  batches: JudgeBatchSummary[];
  /** Requests still running in a batch when the run was cancelled (a rerun collects them). */
  stillRunning: number;
}

/** The digest a batch's state entries carry for its judge: SHA-256 (16 hex digits) of the judge's description. */
export function batchOwner(spec: JudgeSpec): string {
  return createHash('sha256').update(JSON.stringify(judgeDescription(spec))).digest('hex').slice(0, 16);
}

function openAIOptions(spec: JudgeSpec): Omit<OpenAIJudgeOptions, 'apiKey'> {
  return {
    baseURL: spec.baseURL ?? 'https://api.openai.com/v1',
    model: spec.model ?? '',
    headers: spec.headers,
    endpoint: spec.backend === 'openai-completions' ? 'completions' : 'chat',
    logprobs: spec.logprobs,
    maxTokens: spec.maxTokens,
    temperature: spec.temperature,
  };
}

/** A judgement a batch still has to answer: where its prompt comes from, so it can be assembled again when written. */
interface Wanted {
  variant: number;
  item: number;
  candidate: number;
  repeat: number;
  spec: RequestSpec;
}

/**
 * Runs one API judge's outstanding judgements through the Batch API: resumes the judge's open batches from the
 * state file, then batches what is still unanswered, polls every batch to its end and stores the results.
 *
 * @returns results per cache key, one summary per batch, and how many requests were still running if cancelled
 * @throws the `openai` package's APIError when the endpoint refuses an upload, a batch or a poll
 */
export async function runJudgeBatches(o: JudgeBatchOptions): Promise<JudgeBatchRun> {
  const options = openAIOptions(o.spec);
  const endpoint = options.endpoint === 'completions' ? '/v1/completions' : '/v1/chat/completions';
  const description = judgeDescription(o.spec);
  const owner = batchOwner(o.spec);
  const label = judgeLabel(o.spec);
  const judgeIdentity = { id: `api:${options.model}`, signature: openAIJudgeSignature(options) };
  const client = new OpenAI({ baseURL: options.baseURL, apiKey: o.apiKey, defaultHeaders: options.headers, maxRetries: 5, timeout: 300_000 });

  // Every judgement still owed: no ok reply on the candidate and none in the cache.
  const wanted = new Map<string, Wanted>();
  o.variants.forEach((variant, v) => {
    const evaluatorId = judgeEvaluatorId(judgeIdentity, variant, templateHash(o.lib, variant));
    o.items.forEach((item, i) =>
      item.candidates.forEach((c, k) => {
        const missing = missingRepeats(c.scores[evaluatorId], o.repeats);
        if (missing.length === 0) return;
        const prompt = assemblePrompt(o.lib, variant, item.context, c.text);
        for (const repeat of missing) {
          const key = judgeCacheKey(description, { prompt: prompt.text, spec: prompt.spec, repeat });
          if (!wanted.has(key) && !o.cache?.get(key)) wanted.set(key, { variant: v, item: i, candidate: k, repeat, spec: prompt.spec });
        }
      }),
    );
  });

  const results = new Map<string, JudgeResult>();
  const { batches, stillRunning } = await runBatchRequests({
    client,
    endpoint,
    owner,
    label,
    state: o.state,
    wanted: [...wanted.keys()],
    body: (key) => {
      const w = wanted.get(key)!;
      const item = o.items[w.item];
      const prompt = assemblePrompt(o.lib, o.variants[w.variant], item.context, item.candidates[w.candidate].text);
      return judgeRequestBody(options, prompt.text, prompt.spec);
    },
    store: (key, outcome) => {
      const w = wanted.get(key);
      if (!w) return undefined; // answered meanwhile (in the cache), or no longer asked by this plan
      const result: JudgeResult = outcome.ok ? resultFromCompletion(outcome.body, options.endpoint, w.spec) : { raw: '', value: null, status: 'error', message: outcome.message };
      results.set(key, result);
      o.cache?.set(key, result);
      return result.status === 'error' ? 'failed' : 'answered';
    },
    pollMs: o.pollMs,
    metadata: { judge: owner },
    signal: o.signal,
    log: o.log,
    progress: o.progress,
    maxRequestsPerBatch: o.maxRequestsPerBatch,
  });
  return { results, batches, stillRunning };
}

/**
 * The judge the judge job runs after a judge's batches: it answers from the batch results of this run (counted as
 * calls, with their tokens), else from the response cache (counted as hits), and otherwise reports an error (the
 * judgement was in no batch that finished).
 *
 * @param base - id and signature of the online judge with the same spec (so evaluator ids are the same)
 * @param backend - the judge's description ({@link judgeDescription}), as the cache keys use it
 */
export function batchAnsweredJudge(base: Pick<Judge, 'id' | 'signature'>, run: JudgeBatchRun, cache: JudgeCache | null, backend: Record<string, unknown>): Judge & { stats: CacheStats } {
  const stats: CacheStats = { hits: 0, calls: 0 };
  return {
    id: base.id,
    signature: base.signature,
    stats,
    async judge(req: JudgeRequest): Promise<JudgeResult> {
      const key = judgeCacheKey(backend, req);
      const answered = run.results.get(key);
      if (answered) {
        stats.calls++;
        return answered;
      }
      const hit = cache?.get(key);
      if (hit) {
        stats.hits++;
        const { usage: _spentEarlier, ...rest } = hit;
        return rest;
      }
      return { raw: '', value: null, status: 'error', message: 'no finished batch answered this judgement; rerun with --batch to ask it' };
    },
  };
}
