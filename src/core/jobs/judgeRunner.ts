/**
 * The judge job's runner, for every job that asks judges (the judge job, the prompt search): a judge is opened once
 * for a run — with the key the host gave for its endpoint, or its local model loaded under the plan's runtime
 * options (threads, execution provider) — answers through the judges' response cache beside the dialogue file, and
 * judges every variant of the run in one adaptive concurrency pool, so the concurrency it lowered after an HTTP 429
 * stays lowered for the next variant (AIMD, remote/adaptiveConcurrency.ts).
 */
import type { DialogueItem } from '../dialogue/types';
import { cachedJudge, type CacheStats, type JudgeCache } from '../judges/cache';
import { createJudge, judgeDescription, judgeLabel } from '../judges/createJudge';
import { runJudge, type Judge, type JudgeProgress } from '../judges/judge';
import type { JudgeSpec } from '../judges/judgeSpec';
import type { LocalRuntimeOptions } from '../models/ortRuntime';
import { AdaptiveConcurrency } from '../remote/adaptiveConcurrency';
import type { PromptLibrary, PromptVariant } from '../templates/judgePrompt';
import type { JobHost, SecretAnswer } from './host';
import { withRuntime } from './runtime';

/** What a plan says about how its judges run. */
export interface JudgeRunSettings {
  /** Judgements in flight at once per judge, the pool's most (default 4). */
  concurrency?: number;
  /** How local judges run (over the host's settings). */
  runtime?: LocalRuntimeOptions;
}

/** The default of {@link JudgeRunSettings.concurrency}. */
export const DEFAULT_JUDGE_CONCURRENCY = 4;

/** A judge opened for a run. */
export interface OpenedJudge {
  readonly spec: JudgeSpec;
  /** The judge as created (its id and signature make the evaluator ids). */
  readonly judge: Judge;
  /** What identifies the judge in the response cache (`judgeDescription`: no secrets). */
  readonly backend: Record<string, unknown>;
  /** The judge's one pool for the whole run. */
  readonly limiter: AdaptiveConcurrency;
  /** The judge answering through the run's response cache (a new wrapper counting its own hits and calls), or the judge itself without a cache. */
  cached(): Judge & { stats?: CacheStats };
  /**
   * Judges every candidate of `items` under `variant` in the judge's pool (`runJudge`): by default through
   * {@link cached}; `answering` puts another judge in front (the Batch API's answers, a counting wrapper) that must
   * call through to this one.
   */
  judgeItems(items: readonly DialogueItem[], lib: PromptLibrary, variant: PromptVariant, options?: { repeats?: number; answering?: Judge; onProgress?: (p: JudgeProgress) => void }): ReturnType<typeof runJudge>;
  /** The report's line about HTTP 429s (how often, how far the pool came down), or undefined when there were none. */
  rateLimitLine(): string | undefined;
  dispose(): Promise<void>;
}

/**
 * The key the host gave for judge `index` of a plan (see `judgeKeys`).
 *
 * @throws Error naming the judge's model and endpoint, and why there is no key
 */
export function judgeApiKey(keys: ReadonlyMap<number, SecretAnswer>, spec: JudgeSpec, index: number): string {
  const answer = keys.get(index);
  if (!answer || !('key' in answer)) throw new Error(`no API key for the judge ${spec.model} at ${spec.baseURL}: ${answer && 'missing' in answer ? answer.missing : 'not asked'}`);
  return answer.key;
}

/**
 * Opens a judge for a run: an API judge with its key, a local one loaded with the plan's runtime options over the
 * host's (logged as `loading …`).
 *
 * @param keys - the host's answers for the plan's judges, by judge index (`judgeKeys`)
 * @param index - the judge's index in the plan (for its key)
 * @param cache - the run's response cache, or null for none
 * @throws Error when there is no key, or the model does not load (ModelSourceError naming the folder or file)
 */
export async function openJudge(spec: JudgeSpec, index: number, keys: ReadonlyMap<number, SecretAnswer>, settings: JudgeRunSettings, host: JobHost, cache: JudgeCache | null): Promise<OpenedJudge> {
  let apiKey: string | undefined;
  if (spec.backend !== 'local') apiKey = judgeApiKey(keys, spec, index);
  else host.log(`loading ${judgeLabel(spec)}`);
  const made = await createJudge(spec, { apiKey, models: withRuntime(host.models, settings.runtime) });
  const max = settings.concurrency ?? DEFAULT_JUDGE_CONCURRENCY;
  const backend = judgeDescription(spec);
  const limiter = new AdaptiveConcurrency({ max });
  const cached = () => (cache ? cachedJudge(made.judge, cache, backend) : made.judge);
  return {
    spec,
    judge: made.judge,
    backend,
    limiter,
    cached,
    judgeItems: (items, lib, variant, options = {}) =>
      runJudge(items as DialogueItem[], options.answering ?? cached(), lib, variant, {
        concurrency: max,
        limiter,
        repeats: options.repeats,
        signal: host.signal,
        onProgress: options.onProgress,
      }),
    rateLimitLine: () =>
      limiter.stats.rateLimited > 0
        ? `${made.judge.id}: ${limiter.stats.rateLimited} request(s) answered HTTP 429; concurrency halved ${limiter.stats.decreases} time(s), down to ${Math.floor(limiter.stats.lowestLimit)} at the lowest, ${Math.floor(limiter.limit)} of ${max} at the end`
        : undefined,
    dispose: made.dispose,
  };
}
