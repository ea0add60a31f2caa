/**
 * Adaptive concurrency for remote backends that throttle (OpenAI, a self-hosted vLLM or llama.cpp server behind a
 * rate limiter): additive increase, multiplicative decrease (AIMD), the rule TCP congestion control uses (Jacobson,
 * "Congestion Avoidance and Control", SIGCOMM 1988; RFC 5681 §3.1).
 *
 * - Every task runs in a slot; at most `floor(limit)` tasks are in flight, `limit` in [min, max].
 * - A task that fails with {@link RateLimitedError} (HTTP 429) gives its slot back, halves the limit (once per
 *   congestion event: a 429 of a request sent before the last halving says nothing new), keeps every task from
 *   starting until the server's `Retry-After` has passed, and is tried again (up to `maxRateLimitRetries` times).
 *   Without a `Retry-After` the wait is an exponential backoff with jitter (0.5 s · 2^attempt, at most 30 s).
 * - Every success while the pool is full (or tasks wait) adds 1/limit, so the limit grows by about one per `limit`
 *   successes, back up to `max`; a pool with free slots does not grow (RFC 7661).
 *
 * The limiter is the only place 429s are retried: clients it drives must not retry 429 themselves (the OpenAI
 * judge in a job is built so: `openaiJudge.ts`, `rateLimits: 'caller'`), or one throttled request would back
 * off twice and several retries would storm the server at once.
 */

/** A task was refused by the server with HTTP 429 (too many requests). */
export class RateLimitedError extends Error {
  constructor(
    message: string,
    /** How long the server asked to wait (`Retry-After` / `retry-after-ms`), in ms; undefined when it did not say. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'RateLimitedError';
  }
}

/**
 * Reads a wait from HTTP headers: `retry-after-ms` (OpenAI's, milliseconds), else `retry-after` in seconds or as an
 * HTTP date. Undefined when neither is there or readable.
 *
 * @param get - header lookup (case-insensitive names as in `Headers.get`)
 * @param now - the clock, in ms since the epoch (for HTTP dates)
 */
export function retryAfterMs(get: (name: string) => string | null | undefined, now = Date.now()): number | undefined {
  const ms = Number.parseFloat(get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const raw = get('retry-after');
  if (!raw) return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(raw);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/** Options of {@link AdaptiveConcurrency}. */
export interface AdaptiveConcurrencyOptions {
  /** Most tasks in flight (the plan's `concurrency`); integer ≥ 1. */
  max: number;
  /** Fewest slots the limit falls to (default 1). */
  min?: number;
  /** Starting limit (default `max`: a server that never throttles sees a fixed pool, like `p-limit(max)`). */
  initial?: number;
  /** Retries of one task after 429s before its error is returned (default 8). */
  maxRateLimitRetries?: number;
  /** Cap of the wait when the server gives no `Retry-After`, in ms (default 30 000). */
  maxBackoffMs?: number;
  /** Called when the limit changes (for logs and tests). */
  onLimit?: (limit: number, reason: 'rate-limited' | 'grew') => void;
}

/**
 * A task pool whose size follows the server's 429s (AIMD, see the module comment). FIFO: tasks start in the order
 * they were handed in; a task retried after a 429 waits at the front.
 */
export class AdaptiveConcurrency {
  private current: number;
  private readonly min: number;
  private readonly queue: { run: () => void; front: boolean }[] = [];
  private active = 0;
  private pausedUntil = 0;
  private pauseTimer: ReturnType<typeof setTimeout> | undefined;
  private lastDecrease = -Infinity;
  /** Counts, for reports: tasks that succeeded, 429s seen, halvings of the limit, most tasks ever in flight, lowest limit. */
  readonly stats = { successes: 0, rateLimited: 0, decreases: 0, maxInFlight: 0, lowestLimit: Infinity };

  constructor(private readonly options: AdaptiveConcurrencyOptions) {
    if (!(Number.isInteger(options.max) && options.max >= 1)) throw new RangeError(`max must be an integer ≥ 1 (got ${options.max})`);
    this.min = Math.max(1, Math.min(options.min ?? 1, options.max));
    this.current = Math.min(options.max, Math.max(this.min, options.initial ?? options.max));
    this.stats.lowestLimit = this.current;
  }

  /** The current limit (a real number; `floor` of it tasks may run). */
  get limit(): number {
    return this.current;
  }

  /** Tasks running now. */
  get inFlight(): number {
    return this.active;
  }

  /**
   * Runs `task` in a slot. A {@link RateLimitedError} from it lowers the limit and retries it (the slot is given
   * back while it waits); after `maxRateLimitRetries` retries the error is thrown. Other errors are thrown as they are
   * (and are no signal for the limit).
   */
  async run<T>(task: () => Promise<T>): Promise<T> {
    const retries = this.options.maxRateLimitRetries ?? 8;
    for (let attempt = 0; ; attempt++) {
      await this.acquire(attempt > 0);
      const startedAt = performanceNow();
      let result: T;
      try {
        result = await task();
      } catch (err) {
        this.release();
        if (!(err instanceof RateLimitedError)) throw err;
        this.stats.rateLimited++;
        this.decrease(startedAt);
        if (attempt >= retries) throw err;
        const wait = err.retryAfterMs ?? Math.random() * Math.min(this.options.maxBackoffMs ?? 30_000, 500 * 2 ** attempt);
        this.pause(wait);
        continue;
      }
      // Only a pool that was in use grows (RFC 7661's rule for an application-limited sender): successes of a
      // half-empty pool say nothing about whether the server would take more.
      const saturated = this.active >= Math.floor(this.current) || this.queue.length > 0;
      this.release();
      this.stats.successes++;
      if (saturated) this.increase();
      return result;
    }
  }

  private acquire(front: boolean): Promise<void> {
    return new Promise((ok) => {
      const entry = { run: ok, front };
      if (front) {
        // Behind other retried tasks, before new ones.
        const at = this.queue.findIndex((e) => !e.front);
        this.queue.splice(at < 0 ? this.queue.length : at, 0, entry);
      } else this.queue.push(entry);
      this.drain();
    });
  }

  private release(): void {
    this.active--;
    this.drain();
  }

  private drain(): void {
    const wait = this.pausedUntil - performanceNow();
    if (wait > 0) {
      if (!this.pauseTimer) {
        this.pauseTimer = setTimeout(() => {
          this.pauseTimer = undefined;
          this.drain();
        }, wait);
      }
      return;
    }
    while (this.queue.length > 0 && this.active < Math.max(this.min, Math.floor(this.current))) {
      this.active++;
      this.stats.maxInFlight = Math.max(this.stats.maxInFlight, this.active);
      this.queue.shift()!.run();
    }
  }

  private pause(ms: number): void {
    const until = performanceNow() + ms;
    if (until > this.pausedUntil) {
      this.pausedUntil = until;
      if (this.pauseTimer) {
        clearTimeout(this.pauseTimer);
        this.pauseTimer = undefined;
      }
    }
    this.drain();
  }

  private decrease(startedAt: number): void {
    // A request sent before the last halving was in flight under the old limit: its 429 is the same congestion event.
    if (startedAt < this.lastDecrease) return;
    this.lastDecrease = performanceNow();
    this.current = Math.max(this.min, this.current / 2);
    this.stats.decreases++;
    this.stats.lowestLimit = Math.min(this.stats.lowestLimit, this.current);
    this.options.onLimit?.(this.current, 'rate-limited');
  }

  private increase(): void {
    if (this.current >= this.options.max) return;
    const before = Math.floor(this.current);
    this.current = Math.min(this.options.max, this.current + 1 / this.current);
    if (Math.floor(this.current) > before) {
      this.options.onLimit?.(this.current, 'grew');
      this.drain();
    }
  }
}

function performanceNow(): number {
  return performance.now();
}
