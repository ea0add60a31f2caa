/**
 * A persistent judge response cache: one JSON line per judgement, appended as soon as the reply arrives, so a
 * re-run makes no call that already succeeded and a killed run resumes where it stopped.
 *
 * Keys are SHA-256 over the backend description (kind, model, endpoint, decoding parameters) and the full
 * prompt text. Only replies are cached (`ok` and `unparsable`); failed calls (`error`) are not, so they are
 * retried on the next run. A torn last line (a run killed mid-write) is ignored on load.
 */
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Judge, JudgeRequest, JudgeResult } from './judge';

/** The cache key of one judgement. `backend` must not contain secrets (no API keys). */
export function judgeCacheKey(backend: Record<string, unknown>, prompt: string): string {
  return createHash('sha256').update(JSON.stringify(backend)).update('\u0000').update(prompt).digest('hex');
}

/** An append-only cache file (`*.jsonl`), loaded into memory once. */
export class JudgeCache {
  private readonly entries = new Map<string, JudgeResult>();

  /**
   * @param file - cache file; created with its folder on the first write
   */
  constructor(readonly file: string) {
    if (!existsSync(file)) return;
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const { key, result } = JSON.parse(line) as { key: string; result: JudgeResult };
        if (typeof key === 'string' && result) this.entries.set(key, result);
      } catch {
        // A line cut short by a killed run: that judgement is simply asked again.
      }
    }
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): JudgeResult | undefined {
    return this.entries.get(key);
  }

  /** Stores a result (replies only; `error` results are not cached). */
  set(key: string, result: JudgeResult): void {
    if (result.status === 'error') return;
    this.entries.set(key, result);
    mkdirSync(dirname(this.file), { recursive: true });
    appendFileSync(this.file, JSON.stringify({ key, result, at: new Date().toISOString() }) + '\n');
  }
}

/** Counts of a cached judge's traffic. */
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
