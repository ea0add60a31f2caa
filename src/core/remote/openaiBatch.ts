/**
 * OpenAI's Batch API (https://platform.openai.com/docs/guides/batch, `openai` npm package 6.x `files` and
 * `batches`): requests written as JSON Lines, uploaded with purpose `batch`, run within a 24 h completion window at
 * half the price of online calls, results downloaded from the batch's output and error files.
 *
 * This module knows nothing of judges: it submits lines, polls with backoff, and reads results back per
 * `custom_id`. It also keeps the state file that makes a batch survive a restart or a `kill -9`: every batch id is
 * appended to it the moment the batch exists, before any polling, so a rerun polls the same batch instead of paying
 * for a new one.
 */
import type OpenAI from 'openai';
import { toFile } from 'openai';
import { AppendLog } from '../cache/appendLog';

/** OpenAI's limits for one batch: 50 000 requests and 200 MB of input file. */
export const BATCH_MAX_REQUESTS = 50_000;
export const BATCH_MAX_BYTES = 190 * 1024 * 1024;

/** One request of a batch input file. `custom_id` maps the result back. */
export interface BatchRequestLine {
  custom_id: string;
  method: 'POST';
  /** `/v1/chat/completions` or `/v1/completions`. */
  url: string;
  body: Record<string, unknown>;
}

/** What became of one request: the response body (HTTP 200), or an error with a message. */
export type BatchOutcome = { ok: true; body: unknown } | { ok: false; message: string };

/** A batch's states (OpenAI's, plus `collected`: ReflectEval has stored its results). */
export type BatchStatus = OpenAI.Batches.Batch['status'] | 'collected';

/** Statuses after which a batch changes no more: its results can be downloaded. */
export const FINAL_BATCH_STATUSES: readonly BatchStatus[] = ['completed', 'failed', 'expired', 'cancelled'];

/** One line of the batch state file: the latest line of a batch id is its state. */
export interface BatchStateEntry {
  batchId: string;
  /** Whose requests the batch holds: a digest of the backend description (no secrets), so a rerun finds its batches. */
  owner: string;
  /** A readable name of the owner (model @ endpoint), for messages. */
  label: string;
  status: BatchStatus;
  requests: number;
  inputFileId?: string;
  at: string;
}

function isBatchStateEntry(v: unknown): v is BatchStateEntry {
  const e = v as Partial<BatchStateEntry> | null;
  return typeof e === 'object' && e !== null && typeof e.batchId === 'string' && typeof e.owner === 'string' && typeof e.status === 'string';
}

/**
 * The batch state file (`.reflect-eval-cache/batches.jsonl` beside the dialogue file): an {@link AppendLog} of
 * {@link BatchStateEntry} lines, so a run killed mid-write loses at most its last line.
 */
export class BatchStateLog {
  private readonly log: AppendLog<BatchStateEntry>;

  constructor(readonly file: string) {
    this.log = new AppendLog(file, isBatchStateEntry);
  }

  /** The latest state of every batch, in the order the batches were first recorded. */
  batches(): BatchStateEntry[] {
    const latest = new Map<string, BatchStateEntry>();
    for (const e of this.log.read().entries) latest.set(e.batchId, { ...latest.get(e.batchId), ...e });
    return [...latest.values()];
  }

  /** Batches of an owner whose results have not been stored yet (to be polled and collected). */
  open(owner: string): BatchStateEntry[] {
    return this.batches().filter((b) => b.owner === owner && b.status !== 'collected');
  }

  record(entry: Omit<BatchStateEntry, 'at'>): void {
    this.log.append({ ...entry, at: new Date().toISOString() });
  }
}

/**
 * Splits request lines into batch input files within OpenAI's limits ({@link BATCH_MAX_REQUESTS},
 * {@link BATCH_MAX_BYTES}).
 *
 * @returns JSONL texts, each ending with a line break
 */
export function batchInputFiles(lines: Iterable<BatchRequestLine>, maxRequests = BATCH_MAX_REQUESTS, maxBytes = BATCH_MAX_BYTES): { jsonl: string; requests: number }[] {
  const files: { jsonl: string; requests: number }[] = [];
  let parts: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    const text = JSON.stringify(line) + '\n';
    const size = Buffer.byteLength(text);
    if (parts.length > 0 && (parts.length >= maxRequests || bytes + size > maxBytes)) {
      files.push({ jsonl: parts.join(''), requests: parts.length });
      parts = [];
      bytes = 0;
    }
    parts.push(text);
    bytes += size;
  }
  if (parts.length > 0) files.push({ jsonl: parts.join(''), requests: parts.length });
  return files;
}

/**
 * Uploads one input file (purpose `batch`) and creates its batch (completion window 24 h). The caller records the
 * returned id at once.
 *
 * @param endpoint - `/v1/chat/completions` or `/v1/completions` (every line's `url`)
 * @throws the `openai` package's APIError when the endpoint refuses the upload or the batch
 */
export async function createBatch(client: OpenAI, jsonl: string, endpoint: '/v1/chat/completions' | '/v1/completions', metadata: Record<string, string> = {}): Promise<{ batch: OpenAI.Batches.Batch; inputFileId: string }> {
  const file = await client.files.create({ file: await toFile(Buffer.from(jsonl, 'utf8'), 'reflect-eval-batch.jsonl', { type: 'application/jsonl' }), purpose: 'batch' });
  const batch = await client.batches.create({ input_file_id: file.id, endpoint, completion_window: '24h', metadata });
  return { batch, inputFileId: file.id };
}

/** Options of {@link pollBatch}. */
export interface PollOptions {
  /** First wait between polls in ms; each next wait is 1.5 × longer, up to `maxIntervalMs`. */
  intervalMs: number;
  /** Longest wait between polls in ms (default: 60 × `intervalMs`, at most 10 min). */
  maxIntervalMs?: number;
  signal?: AbortSignal;
  /** Called after every poll. */
  onStatus?: (batch: OpenAI.Batches.Batch) => void;
}

/**
 * Polls a batch until it reaches a final status (`completed`, `failed`, `expired`, `cancelled`), waiting longer
 * between polls as it runs (backoff ×1.5). Returns undefined when the signal aborts first (the batch runs on; a
 * rerun resumes polling it).
 */
export async function pollBatch(client: OpenAI, batchId: string, options: PollOptions): Promise<OpenAI.Batches.Batch | undefined> {
  const cap = options.maxIntervalMs ?? Math.min(600_000, Math.max(options.intervalMs, 60 * options.intervalMs));
  let wait = options.intervalMs;
  for (;;) {
    if (options.signal?.aborted) return undefined;
    const batch = await client.batches.retrieve(batchId, { signal: options.signal });
    options.onStatus?.(batch);
    if (FINAL_BATCH_STATUSES.includes(batch.status)) return batch;
    if (!(await sleep(wait, options.signal))) return undefined;
    wait = Math.min(cap, wait * 1.5);
  }
}

/**
 * Reads a finished batch's results: every line of its output file (HTTP 200 → `ok`, another status → an error
 * with the endpoint's message) and of its error file (per-request errors, e.g. `batch_expired` for requests an
 * expired batch never ran). Requests in neither file get the batch's own errors (a batch that `failed` validation)
 * or say that the batch ended without them.
 *
 * @param customIds - the requests the batch held, when known; each gets an outcome
 * @returns outcome per custom_id
 */
export async function batchResults(client: OpenAI, batch: OpenAI.Batches.Batch, customIds: Iterable<string> = []): Promise<Map<string, BatchOutcome>> {
  const out = new Map<string, BatchOutcome>();
  for (const fileId of [batch.output_file_id, batch.error_file_id]) {
    if (!fileId) continue;
    const text = await (await client.files.content(fileId)).text();
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      let row: { custom_id?: string; response?: { status_code?: number; body?: unknown } | null; error?: { code?: string; message?: string } | null };
      try {
        row = JSON.parse(line);
      } catch {
        continue;
      }
      if (typeof row.custom_id !== 'string') continue;
      out.set(row.custom_id, outcomeOf(row));
    }
  }
  const batchErrors = batch.errors?.data?.map((e) => [e.code, e.message].filter(Boolean).join(': ')).join('; ');
  for (const id of customIds) {
    if (!out.has(id)) out.set(id, { ok: false, message: `batch ${batch.id} ended ${batch.status} without this request${batchErrors ? ` (${batchErrors})` : ''}` });
  }
  return out;
}

/** What one batch of a {@link runBatchRequests} run gave. */
export interface BatchRunSummary {
  batchId: string;
  status: BatchStateEntry['status'];
  requests: number;
  /** Requests answered with a reply the owner stored as usable. */
  answered: number;
  /** Requests that failed (expired, refused by the endpoint, a failed batch, a reply the owner could not use). */
  failed: number;
  /** Whether this run created it (false: resumed from the state file). */
  created: boolean;
}

/**
 * How a run drives its batches (the state file, polling, cancellation, messages, batch size): the part of
 * {@link BatchRequestsOptions} every owner's options carry unchanged.
 */
export type BatchRunControls = Pick<BatchRequestsOptions, 'state' | 'pollMs' | 'signal' | 'log' | 'progress' | 'maxRequestsPerBatch'>;

/** Options of {@link runBatchRequests}. */
export interface BatchRequestsOptions {
  client: OpenAI;
  /** Every request line's `url`. */
  endpoint: '/v1/chat/completions' | '/v1/completions';
  /** Whose batches these are ({@link BatchStateEntry.owner}): a digest of the backend description, no secrets. */
  owner: string;
  /** A readable name of the owner, for messages. */
  label: string;
  state: BatchStateLog;
  /** Custom ids still owed (no reply in the owner's cache), in the order they are to be sent. */
  wanted: readonly string[];
  /** The request body of a custom id of `wanted`. */
  body(customId: string): Record<string, unknown>;
  /**
   * Stores one outcome. Returns `answered` or `failed` as the owner counts it, or undefined for a custom id the
   * owner no longer wants (answered meanwhile, not in this plan).
   */
  store(customId: string, outcome: BatchOutcome): 'answered' | 'failed' | undefined;
  /** First wait between polls, ms (then ×1.5 per poll). */
  pollMs: number;
  /** Extra metadata on created batches (besides `tool: reflect-eval` and the owner). */
  metadata?: Record<string, string>;
  signal?: AbortSignal;
  log?: (message: string) => void;
  /** Requests finished of requests in the owner's batches, as they run. */
  progress?: (done: number, total: number, message: string) => void;
  /** Largest batch in requests (default {@link BATCH_MAX_REQUESTS}). */
  maxRequestsPerBatch?: number;
}

/**
 * The life of an owner's requests in the Batch API: first the batches an earlier (restarted or killed) run left open
 * in the state file are polled to their end and collected — no new batch is created for their requests; then what
 * is still owed and no batch answered goes into new batches (each recorded in the state file before any polling),
 * which are polled and collected in turn. Used by the judge matrix (`judges/batch.ts`) and API generation
 * (`generation/apiBatch.ts`); what a request is and where its result goes is the owner's.
 *
 * @returns one summary per batch collected, and how many requests were still running when the signal aborted (a
 *   rerun collects them)
 * @throws the `openai` package's APIError when the endpoint refuses an upload, a batch or a poll
 */
export async function runBatchRequests(o: BatchRequestsOptions): Promise<{ batches: BatchRunSummary[]; stillRunning: number }> {
  const summaries: BatchRunSummary[] = [];
  const handled = new Set<string>();
  let stillRunning = 0;
  const finished = new Map<string, number>();
  let total = 0;
  const report = (message: string) => o.progress?.([...finished.values()].reduce((a, b) => a + b, 0), total, message);

  /** Polls one batch to its end, stores its results, marks it collected. */
  const follow = async (entry: Omit<BatchStateEntry, 'at'>, customIds: string[] | undefined, created: boolean) => {
    total += entry.requests;
    let lastStatus = entry.status;
    const batch = await pollBatch(o.client, entry.batchId, {
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
    const ids = customIds ?? (batch.status === 'completed' ? [] : await inputCustomIds(o.client, batch.input_file_id));
    const outcomes = await batchResults(o.client, batch, ids);
    let answered = 0;
    let failed = 0;
    for (const [id, outcome] of outcomes) {
      const counted = o.store(id, outcome);
      if (!counted) continue;
      handled.add(id);
      if (counted === 'failed') failed++;
      else answered++;
    }
    o.state.record({ ...entry, status: 'collected' });
    summaries.push({ batchId: entry.batchId, status: batch.status, requests: entry.requests, answered, failed, created });
    o.log?.(`batch ${entry.batchId} (${o.label}): ${batch.status}, ${answered} answered, ${failed} failed of ${entry.requests} requests`);
  };

  // 1. Batches an earlier (killed or restarted) run left open: poll those, create nothing for their requests.
  const open = o.state.open(o.owner);
  if (open.length > 0) o.log?.(`resuming ${open.length} batch(es) of ${o.label}: ${open.map((b) => b.batchId).join(', ')}`);
  await Promise.all(open.map((entry) => follow(entry, undefined, false)));
  if (o.signal?.aborted) return { batches: summaries, stillRunning };

  // 2. What no batch answered yet (nor failed in this run) goes into new batches.
  const remaining = o.wanted.filter((id) => !handled.has(id));
  if (remaining.length === 0) return { batches: summaries, stillRunning };
  const lines = function* (): Generator<BatchRequestLine> {
    for (const id of remaining) yield { custom_id: id, method: 'POST', url: o.endpoint, body: o.body(id) };
  };
  const created: Promise<void>[] = [];
  for (const file of batchInputFiles(lines(), o.maxRequestsPerBatch)) {
    if (o.signal?.aborted) break;
    const ids = file.jsonl.split('\n').filter(Boolean).map((l) => (JSON.parse(l) as BatchRequestLine).custom_id);
    const { batch, inputFileId } = await createBatch(o.client, file.jsonl, o.endpoint, { tool: 'reflect-eval', owner: o.owner, ...o.metadata });
    const entry = { batchId: batch.id, owner: o.owner, label: o.label, status: batch.status, requests: file.requests, inputFileId };
    // Recorded before any polling: from here on a rerun resumes this batch instead of paying for a new one.
    o.state.record(entry);
    o.log?.(`batch ${batch.id} created for ${o.label}: ${file.requests} requests (state in ${o.state.file})`);
    created.push(follow(entry, ids, true));
  }
  await Promise.all(created);
  return { batches: summaries, stillRunning };
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

function outcomeOf(row: { response?: { status_code?: number; body?: unknown } | null; error?: { code?: string; message?: string } | null }): BatchOutcome {
  if (row.error) return { ok: false, message: [row.error.code, row.error.message].filter(Boolean).join(': ') || 'error' };
  const status = row.response?.status_code;
  if (status === 200) return { ok: true, body: row.response?.body };
  const message = (row.response?.body as { error?: { message?: string } } | undefined)?.error?.message;
  return { ok: false, message: `HTTP ${status ?? '?'}${message ? `: ${message}` : ''}` };
}

function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((ok) => {
    if (signal?.aborted) return ok(false);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      ok(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      ok(false);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
