/**
 * Persistent response caches for remote calls: one JSON line per reply, appended as soon as the reply arrives,
 * so a re-run makes no call that already succeeded and a killed run resumes where it stopped. Used by the judges
 * (one line per judgement) and by API generators (one line per completion request, see
 * `src/core/generation/apiGenerator.ts`).
 *
 * Keys are SHA-256 over the backend description (kind, model, endpoint, decoding parameters) and the full
 * request text (a judge's prompt; a generator's JSON request body). Only replies are cached: failed calls are
 * not, so they are retried on the next run. The file is an {@link AppendLog}: a torn last line (a run killed
 * mid-write) is skipped on load and the next entry starts on a fresh line, so only the torn entry is lost.
 */
import { createHash } from 'node:crypto';
import { AppendLog } from './appendLog';

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
  private readonly log: AppendLog<CacheEntry<T>>;
  /** Lines of the file that could not be read when it was loaded (torn by a killed run): those calls are made again. */
  readonly skippedLines: number;

  /**
   * @param file - cache file; created with its folder on the first write
   */
  constructor(readonly file: string) {
    this.log = new AppendLog(file, isCacheEntry<T>);
    const { entries, skipped } = this.log.read();
    for (const { key, result } of entries) this.entries.set(key, result);
    this.skippedLines = skipped;
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
    this.log.append({ key, result, at: new Date().toISOString() });
  }
}

/** One line of a response cache file. */
interface CacheEntry<T> {
  key: string;
  result: T;
  /** When the reply was stored (ISO 8601). */
  at: string;
}

function isCacheEntry<T>(value: unknown): value is CacheEntry<T> {
  const v = value as Partial<CacheEntry<T>> | null;
  return typeof v === 'object' && v !== null && typeof v.key === 'string' && Boolean(v.result);
}

/** Counts of a cached backend's traffic. */
export interface CacheStats {
  hits: number;
  calls: number;
}
