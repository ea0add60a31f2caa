/**
 * A generation run: every generator × every context × every decoding setting, one generator loaded at a time,
 * with progress (contexts done / total, tokens per second) and cancellation that keeps every context finished so
 * far. Outputs become candidates through {@link addGeneratedCandidates}, so exact duplicates within a context
 * are kept once with all their origins.
 */
import type { DialogueItem, TherapistBehaviour } from '../dialogue/types';
import { addGeneratedCandidates, type GeneratedCandidate } from './candidates';
import { describeSpec, sequencesPerContext, type DecodingSpec } from './runConfig';

/** Settings shared by every call of a run. */
export interface RunSettings {
  /** Seed of the samplers: every sampling call of the run starts from it (see docs/generation.md). */
  seed: number;
  behaviour: TherapistBehaviour;
  /** Context window of local models in tokens. */
  maxContextTokens: number;
}

/** What one generator produced for one context under one setting. */
export interface ContextOutput {
  /** In order: beam rank, or sample index. */
  candidates: GeneratedCandidate[];
  /** New tokens generated (0 for replies served from a cache). */
  tokens: number;
}

/** A loaded generator. */
export interface CandidateGenerator {
  /** Recorded as `origin.model`. */
  readonly id: string;
  /** Why the generator cannot run `spec` (e.g. beam search on an API endpoint), or undefined when it can. */
  unsupported(spec: DecodingSpec): string | undefined;
  /**
   * Candidates for one context under one setting.
   *
   * @param createdAt - ISO 8601 time recorded in the origins
   */
  generate(item: DialogueItem, spec: DecodingSpec & { maxNewTokens: number }, run: RunSettings, createdAt: string, signal?: AbortSignal): Promise<ContextOutput>;
  /**
   * Optional: candidates for one context under every setting of `specs` at once, per setting what
   * {@link generate} gives for it (a local model decodes the sampling settings as one batch). When it throws
   * (other than by cancellation), the run calls {@link generate} per setting, so a failure is charged to its setting.
   */
  generateSettings?(item: DialogueItem, specs: readonly (DecodingSpec & { maxNewTokens: number })[], run: RunSettings, createdAt: string, signal?: AbortSignal): Promise<ContextOutput[]>;
  /** Releases the generator (e.g. an ONNX session). */
  dispose(): Promise<void>;
}

/** A generator to load when its turn comes. */
export interface GeneratorHandle {
  /** Shown in progress messages. */
  label: string;
  open(): Promise<CandidateGenerator>;
}

/** Progress after each context. */
export interface RunProgress {
  generator: string;
  /** Contexts finished over all generators, and their total (contexts × generators). */
  contextsDone: number;
  contextsTotal: number;
  tokensGenerated: number;
  /** Wall time since the run started (model loading included). */
  elapsedMs: number;
  /** tokensGenerated / seconds spent generating (model loading excluded). */
  tokensPerSecond: number;
}

/** A call that failed (after the API client's retries); the other settings of the context are kept. */
export interface RunFailure {
  generator: string;
  itemId: string;
  setting: string;
  message: string;
}

/** The outcome of a run. */
export interface RunResult {
  /** Generated responses by item id, in generation order. */
  generated: Map<string, GeneratedCandidate[]>;
  contextsDone: number;
  contextsTotal: number;
  tokensGenerated: number;
  /** Wall time of the run, model loading included. */
  elapsedMs: number;
  /** Time spent generating, model loading excluded. */
  generatingMs: number;
  cancelled: boolean;
  /** Settings a generator could not run, with the reason (once per generator × setting). */
  skipped: string[];
  failures: RunFailure[];
  /** Generators that could not be loaded (the run went on with the others), with the reason. */
  loadErrors: { generator: string; message: string }[];
}

function isAbort(err: unknown, signal?: AbortSignal): boolean {
  return Boolean(signal?.aborted) || (err as Error)?.name === 'AbortError' || (err as Error)?.constructor?.name === 'APIUserAbortError';
}

/**
 * Runs every generator over every item under every setting.
 *
 * Cancellation (`signal`) stops at the next opportunity; the context being generated when it fires is dropped
 * (its sequences may be cut short), every context finished before is kept.
 *
 * A generator that cannot be loaded (e.g. a model folder that lacks a file: ModelSourceError) is listed in
 * `loadErrors` and the run goes on with the others.
 *
 * @param settings - decoding settings, each with `maxNewTokens`
 */
export async function runGeneration(
  items: readonly DialogueItem[],
  generators: readonly GeneratorHandle[],
  settings: readonly (DecodingSpec & { maxNewTokens: number })[],
  run: RunSettings,
  options: { signal?: AbortSignal; onProgress?: (p: RunProgress) => void; onLog?: (msg: string) => void; now?: () => Date } = {},
): Promise<RunResult> {
  const { signal } = options;
  const result: RunResult = {
    generated: new Map(),
    contextsDone: 0,
    contextsTotal: items.length * generators.length,
    tokensGenerated: 0,
    elapsedMs: 0,
    generatingMs: 0,
    cancelled: false,
    skipped: [],
    failures: [],
    loadErrors: [],
  };
  const start = performance.now();
  for (const handle of generators) {
    if (signal?.aborted) break;
    options.onLog?.(`loading ${handle.label}`);
    let generator: CandidateGenerator;
    try {
      generator = await handle.open();
    } catch (err) {
      result.loadErrors.push({ generator: handle.label, message: (err as Error).message });
      options.onLog?.(`${handle.label} could not be loaded: ${(err as Error).message}`);
      continue;
    }
    try {
      const runnable = settings.filter((s) => {
        const why = generator.unsupported(s);
        if (why) result.skipped.push(`${generator.id}: ${describeSpec(s)} skipped: ${why}`);
        return !why;
      });
      for (const item of items) {
        if (signal?.aborted) break;
        const outputs: GeneratedCandidate[] = [];
        let tokens = 0;
        let aborted = false;
        let together: ContextOutput[] | undefined;
        if (generator.generateSettings && runnable.length > 1) {
          const t0 = performance.now();
          try {
            together = await generator.generateSettings(item, runnable, run, (options.now?.() ?? new Date()).toISOString(), signal);
            if (together.length !== runnable.length || together.some((out, i) => out.candidates.length !== sequencesPerContext(runnable[i]))) throw new Error('the settings did not give one output per setting with its sequences');
          } catch (err) {
            together = undefined;
            if (isAbort(err, signal)) aborted = true;
            else options.onLog?.(`${generator.id} on ${item.id}: the settings decoded together failed (${(err as Error).message}); decoding them one at a time`);
          } finally {
            result.generatingMs += performance.now() - t0;
          }
          if (signal?.aborted || aborted) break;
        }
        if (together) {
          for (const out of together) {
            outputs.push(...out.candidates);
            tokens += out.tokens;
          }
        }
        for (const spec of together ? [] : runnable) {
          if (signal?.aborted) {
            aborted = true;
            break;
          }
          const t0 = performance.now();
          try {
            const out = await generator.generate(item, spec, run, (options.now?.() ?? new Date()).toISOString(), signal);
            if (signal?.aborted) {
              aborted = true;
              break;
            }
            if (out.candidates.length !== sequencesPerContext(spec)) {
              throw new Error(`expected ${sequencesPerContext(spec)} sequence(s), got ${out.candidates.length}`);
            }
            outputs.push(...out.candidates);
            tokens += out.tokens;
          } catch (err) {
            if (isAbort(err, signal)) {
              aborted = true;
              break;
            }
            result.failures.push({ generator: generator.id, itemId: item.id, setting: describeSpec(spec), message: (err as Error).message });
            options.onLog?.(`${generator.id} on ${item.id}, ${describeSpec(spec)}: ${(err as Error).message}`);
          } finally {
            result.generatingMs += performance.now() - t0;
          }
        }
        if (aborted) break;
        result.generated.set(item.id, [...(result.generated.get(item.id) ?? []), ...outputs]);
        result.tokensGenerated += tokens;
        result.contextsDone++;
        const elapsedMs = performance.now() - start;
        options.onProgress?.({
          generator: generator.id,
          contextsDone: result.contextsDone,
          contextsTotal: result.contextsTotal,
          tokensGenerated: result.tokensGenerated,
          elapsedMs,
          tokensPerSecond: result.tokensGenerated / Math.max(result.generatingMs / 1000, 1e-9),
        });
      }
    } finally {
      await generator.dispose();
    }
  }
  result.cancelled = Boolean(signal?.aborted);
  result.elapsedMs = performance.now() - start;
  return result;
}

/** Counts of {@link applyGenerated}. */
export interface ApplyCounts {
  itemsChanged: number;
  added: number;
  duplicates: number;
  unchanged: number;
}

/**
 * Adds a run's responses to items (by id), merging exact duplicates within each item.
 *
 * @returns the updated items (unchanged items are the same objects) and counts
 */
export function applyGenerated(items: readonly DialogueItem[], generated: ReadonlyMap<string, GeneratedCandidate[]>): { items: DialogueItem[]; counts: ApplyCounts } {
  const counts: ApplyCounts = { itemsChanged: 0, added: 0, duplicates: 0, unchanged: 0 };
  const out = items.map((it) => {
    const g = generated.get(it.id);
    if (!g?.length) return it;
    const r = addGeneratedCandidates(it, g);
    counts.added += r.added;
    counts.duplicates += r.duplicates;
    counts.unchanged += r.unchanged;
    if (r.item !== it) counts.itemsChanged++;
    return r.item;
  });
  return { items: out, counts };
}
