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

/**
 * The cache key of one call: SHA-256 (hex) over the backend description and the request text. `backend` must
 * not contain secrets (no API keys).
 */
export function responseCacheKey(backend: Record<string, unknown>, request: string): string {
  return createHash('sha256').update(JSON.stringify(backend)).update('\u0000').update(request).digest('hex');
}

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

/** Counts of a cached backend's traffic. */
export interface CacheStats {
  hits: number;
  calls: number;
}
