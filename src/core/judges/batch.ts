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
import { batchInputFiles, batchResults, BatchStateLog, createBatch, pollBatch, type BatchOutcome, type BatchRequestLine, type BatchStateEntry } from '../remote/openaiBatch';
import { judgeCacheKey, type CacheStats, type JudgeCache } from './cache';
import { judgeDescription, judgeLabel } from './createJudge';
import { judgeEvaluatorId, missingRepeats, type Judge, type JudgeRequest, type JudgeResult } from './judge';
import { judgeRequestBody, openAIJudgeSignature, resultFromCompletion, type OpenAIJudgeOptions } from './openaiJudge';
import { assemblePrompt, templateHash, type PromptLibrary, type PromptVariant, type RequestSpec } from './prompts';
import type { JudgeSpec } from './runConfig';

/** What one judge's batches need. */
export interface JudgeBatchOptions {
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
  state: BatchStateLog;
  /** First wait between polls, ms (then ×1.5 per poll). */
  pollMs: number;
  signal?: AbortSignal;
  log?: (message: string) => void;
  /** Requests finished of requests in the judge's batches, as they run. */
  progress?: (done: number, total: number, message: string) => void;
  /** Largest batch in requests (default OpenAI's 50 000). */
  maxRequestsPerBatch?: number;
}

/** One batch as a run saw it. */
export interface JudgeBatchSummary {
  batchId: string;
  status: BatchStateEntry['status'];
  requests: number;
  /** Requests answered with a reply (`ok` or `unparsable`). */
  answered: number;
  /** Requests that failed (expired, refused by the endpoint, a failed batch). */
  failed: number;
  /** Whether this run created it (false: resumed from the state file). */
  created: boolean;
}

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
  const summaries: JudgeBatchSummary[] = [];
  let stillRunning = 0;
  const finished = new Map<string, number>();
  let total = 0;
  const report = (message: string) => o.progress?.([...finished.values()].reduce((a, b) => a + b, 0), total, message);

  const store = (key: string, outcome: BatchOutcome) => {
    const w = wanted.get(key);
    if (!w) return false; // answered meanwhile (in the cache), or no longer asked by this plan
    const result: JudgeResult = outcome.ok ? resultFromCompletion(outcome.body, options.endpoint, w.spec) : { raw: '', value: null, status: 'error', message: outcome.message };
    results.set(key, result);
    o.cache?.set(key, result);
    return true;
  };

  /** Polls one batch to its end, stores its results, marks it collected. */
  const follow = async (entry: Omit<BatchStateEntry, 'at'>, customIds: string[] | undefined, created: boolean) => {
    total += entry.requests;
    let lastStatus = entry.status;
    const batch = await pollBatch(client, entry.batchId, {
      intervalMs: o.pollMs,
      signal: o.signal,
      onStatus: (b) => {
        const counts = b.request_counts;
        if (counts) finished.set(b.id, counts.completed + counts.failed);
        report(`batch ${b.id} ${b.status}`);
        if (b.status !== lastStatus) {
          lastStatus = b.status;
          o.state.record({ ...entry, status: b.status });
        }
      },
    });
    if (!batch) {
      stillRunning += entry.requests;
      return;
    }
    // A batch that did not complete may leave requests out of both result files: its input file names them all.
    const ids = customIds ?? (batch.status === 'completed' ? [] : await inputCustomIds(client, batch.input_file_id));
    const outcomes = await batchResults(client, batch, ids);
    let answered = 0;
    let failed = 0;
    for (const [key, outcome] of outcomes) {
      if (!store(key, outcome)) continue;
      if (results.get(key)!.status === 'error') failed++;
      else answered++;
    }
    o.state.record({ ...entry, status: 'collected' });
    summaries.push({ batchId: entry.batchId, status: batch.status, requests: entry.requests, answered, failed, created });
    o.log?.(`batch ${entry.batchId} (${label}): ${batch.status}, ${answered} answered, ${failed} failed of ${entry.requests} requests`);
  };

  // 1. Batches an earlier (killed or restarted) run left open: poll those, create nothing for their requests.
  const open = o.state.open(owner);
  if (open.length > 0) o.log?.(`resuming ${open.length} batch(es) of ${label}: ${open.map((b) => b.batchId).join(', ')}`);
  await Promise.all(open.map((entry) => follow(entry, undefined, false)));
  if (o.signal?.aborted) return { results, batches: summaries, stillRunning };

  // 2. What no batch answered yet (nor failed in this run) goes into new batches.
  const remaining = [...wanted.keys()].filter((key) => !results.has(key));
  if (remaining.length === 0) return { results, batches: summaries, stillRunning };
  const lines = function* (): Generator<BatchRequestLine> {
    for (const key of remaining) {
      const w = wanted.get(key)!;
      const item = o.items[w.item];
      const prompt = assemblePrompt(o.lib, o.variants[w.variant], item.context, item.candidates[w.candidate].text);
      yield { custom_id: key, method: 'POST', url: endpoint, body: judgeRequestBody(options, prompt.text, prompt.spec) };
    }
  };
  const created: Promise<void>[] = [];
  for (const file of batchInputFiles(lines(), o.maxRequestsPerBatch)) {
    if (o.signal?.aborted) break;
    const ids = file.jsonl.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as BatchRequestLine).custom_id);
    const { batch, inputFileId } = await createBatch(client, file.jsonl, endpoint, { tool: 'reflect-eval', judge: owner });
    const entry = { batchId: batch.id, owner, label, status: batch.status, requests: file.requests, inputFileId };
    // Recorded before any polling: from here on a rerun resumes this batch instead of paying for a new one.
    o.state.record(entry);
    o.log?.(`batch ${batch.id} created for ${label}: ${file.requests} requests (state in ${o.state.file})`);
    created.push(follow(entry, ids, true));
  }
  await Promise.all(created);
  return { results, batches: summaries, stillRunning };
}

/** The custom_ids of a batch's input file (for a batch that ended without answering every request). */
async function inputCustomIds(client: OpenAI, inputFileId: string): Promise<string[]> {
  const text = await (await client.files.content(inputFileId)).text();
  const ids: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const id = (JSON.parse(line) as { custom_id?: unknown }).custom_id;
      if (typeof id === 'string') ids.push(id);
    } catch {
      // A line the endpoint stored damaged: its request reads as not answered.
    }
  }
  return ids;
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
