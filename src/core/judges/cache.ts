/**
 * The judges' response cache: replies (`ok` and `unparsable`) cached per backend description and prompt on top of
 * the generic append-only {@link ResponseCache}; failed calls (`error`) are not cached, so they are retried.
 */
import { ResponseCache, responseCacheKey, type CacheStats } from '../cache/responseCache';
import type { Judge, JudgeRequest, JudgeResult } from './judge';

export type { CacheStats } from '../cache/responseCache';

/** The judges' cache: replies only (`ok` and `unparsable`); `error` results are not cached. */
export class JudgeCache extends ResponseCache<JudgeResult> {
  protected override cacheable(result: JudgeResult): boolean {
    return result.status !== 'error';
  }
}

/**
 * The cache key of a judgement: the backend description, the request's spec (and repeat index when > 0) and the
 * prompt. Repeat r > 0 of a prompt is its own entry; repeat 0 keeps the key a single judgement always had.
 */
export function judgeCacheKey(backend: Record<string, unknown>, req: Pick<JudgeRequest, 'prompt' | 'spec' | 'repeat'>): string {
  return responseCacheKey({ ...backend, spec: req.spec, ...(req.repeat ? { repeat: req.repeat } : {}) }, req.prompt);
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
    signature: judge.signature,
    stats,
    async judge(req: JudgeRequest): Promise<JudgeResult> {
      const key = judgeCacheKey(backend, req);
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
