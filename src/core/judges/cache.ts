/**
 * Persistent response caches for remote calls: one JSON line per reply, appended as soon as the reply arrives,
 * so a re-run makes no call that already succeeded and a killed run resumes where it stopped. Used by the judges
 * (one line per judgement) and by API generators (one line per completion request, see
 * `src/core/generation/apiGenerator.ts`).
 *
 * Keys are SHA-256 over the backend description (kind, model, endpoint, decoding parameters) and the full
 * request text (a judge's prompt; a generator's JSON request body). Only replies are cached: failed calls are
 * not, so they are retried on the next run. A torn last line (a run killed mid-write) is ignored on load.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Judge, JudgeRequest, JudgeResult } from './judge';

/**
 * The cache key of one call: SHA-256 (hex) over the backend description and the request text. `backend` must
 * not contain secrets (no API keys).
 */
export function responseCacheKey(backend: Record<string, unknown>, request: string): string {
  return createHash('sha256').update(JSON.stringify(backend)).update('\u0000').update(request).digest('hex');
}

/** The cache key of one judgement (see {@link responseCacheKey}). */
export const judgeCacheKey = responseCacheKey;

/**
 * An append-only cache file (`*.jsonl`) of `{key, result, at}` lines, loaded into memory once.
 *
 * @typeParam T - the cached reply (JSON-serialisable)
 */
export class ResponseCache<T> {
  private readonly entries = new Map<string, T>();

  /**
   * @param file - cache file; created with its folder on the first write
   */
  constructor(readonly file: string) {
    if (!existsSync(file)) return;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const { key, result } = JSON.parse(line) as { key: string; result: T };
        if (typeof key === 'string' && result) this.entries.set(key, result);
      } catch {
        // A line cut short by a killed run: that call is simply made again.
      }
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): T | undefined {
    return this.entries.get(key);
  }

  /** Whether a result is worth keeping (all are, by default). */
  protected cacheable(_result: T): boolean {
    return true;
  }

  /** Stores a result in memory and appends it to the file (unless {@link cacheable} says no). */
  set(key: string, result: T): void {
    if (!this.cacheable(result)) return;
    this.entries.set(key, result);
    mkdirSync(dirname(this.file), { recursive: true });
    appendFileSync(this.file, JSON.stringify({ key, result, at: new Date().toISOString() }) + '\n');
  }
}

/** The judges' cache: replies only (`ok` and `unparsable`); `error` results are not cached. */
export class JudgeCache extends ResponseCache<JudgeResult> {
  protected override cacheable(result: JudgeResult): boolean {
    return result.status !== 'error';
  }
}

/** Counts of a cached backend's traffic. */
export interface CacheStats {
  hits: number;
  calls: number;
}

/**
 * Wraps a judge with a cache: a prompt already answered by the same backend is served from the cache
 * without a call.
 *
 * @param backend - what identifies the backend's behaviour (kind, model, endpoint, parameters); never secrets
 */
export function cachedJudge(judge: Judge, cache: JudgeCache, backend: Record<string, unknown>): Judge & { stats: CacheStats } {
  const stats: CacheStats = { hits: 0, calls: 0 };
  return {
    id: judge.id,
    stats,
    async judge(req: JudgeRequest): Promise<JudgeResult> {
      const key = judgeCacheKey({ ...backend, spec: req.spec }, req.prompt);
      const hit = cache.get(key);
      if (hit) {
        stats.hits++;
        // Served from the cache: no tokens were spent on it in this run.
        const { usage: _spentEarlier, ...rest } = hit;
        return rest;
      }
      stats.calls++;
      const result = await judge.judge(req);
      cache.set(key, result);
      return result;
    },
  };
}
