/**
 * The metric registry and the loop that scores a file's candidates with one metric.
 *
 * Metrics register themselves by name (see `index.ts`, which registers the built-in ones); the CLI and the
 * extension list and look them up here. {@link scoreItems} stores one {@link Score} per metric output on every
 * candidate, under the evaluator id `metric:<name>.<output>@<signature>` ({@link metricEvaluatorId}).
 */
import { IS_REFERENCE_REASON, isReferenceCandidate } from '../dialogue/reference';
import type { Candidate, DialogueItem, Score } from '../dialogue/types';
import type { ModelLocator } from '../models/describe';
import { metricEvaluatorId, valueWarning, type Metric, type MetricInput, type MetricRunOptions, type MetricValues } from './metric';

// The registry holds metrics of every configuration type; `any` here is the type-erased form of `Metric<C>`.
export type AnyMetric = Metric<any>;

const registry = new Map<string, AnyMetric>();

/**
 * Registers a metric under its `name`.
 *
 * @throws Error when another metric already has that name (use `{ replace: true }` to swap it deliberately)
 */
export function registerMetric(metric: AnyMetric, options: { replace?: boolean } = {}): void {
  if (!/^[A-Za-z][A-Za-z0-9_-]*$/.test(metric.name)) throw new Error(`metric name ${JSON.stringify(metric.name)}: use letters, digits, '_' or '-' (it is part of evaluator ids)`);
  if (registry.has(metric.name) && !options.replace) throw new Error(`metric ${metric.name} is already registered`);
  registry.set(metric.name, metric);
}

/** Removes a metric (tests; a plug-in that unloads). Returns whether it was registered. */
export function unregisterMetric(name: string): boolean {
  return registry.delete(name);
}

/**
 * The metric registered under `name`.
 *
 * @throws Error naming the registered metrics when there is none
 */
export function getMetric(name: string): AnyMetric {
  const m = registry.get(name);
  if (!m) throw new Error(`unknown metric ${JSON.stringify(name)}; registered: ${[...registry.keys()].join(', ') || 'none'}`);
  return m;
}

/** Every registered metric, in registration order. */
export function listMetrics(): AnyMetric[] {
  return [...registry.values()];
}

/**
 * Whether an evaluator id names a reference-based metric: a registered metric with `requiresReference`, or a
 * metric this build does not know (a score from another version: assumed to need a reference, so that the reference
 * is never correlated with itself). Judges, averages and reference-free metrics (follow-up likelihood) are not.
 */
export function isReferenceBasedEvaluator(id: string): boolean {
  const m = /^metric:([^.@]+)/.exec(id);
  if (!m) return false;
  return registry.get(m[1])?.requiresReference ?? true;
}

/** Options of {@link scoreItems}. */
export interface ScoreItemsOptions {
  /** Cancels between batches; scores of finished batches are kept in the result. */
  signal?: AbortSignal;
  /** Called after each batch with the number of candidates handled so far (scored, skipped or failed). */
  onProgress?: (done: number, total: number) => void;
  /** Candidates handed to `metric.score` at once (default 64). */
  batchSize?: number;
  /** Score again candidates that already hold an `ok` score under every output's evaluator id (default false). */
  force?: boolean;
  /** Where neural metrics find their models (see {@link MetricRunOptions.models}). */
  models?: ModelLocator;
}

/** What {@link scoreItems} returns. */
export interface ScoreItemsResult {
  /** Updated copies of the items (the inputs are not touched). */
  items: DialogueItem[];
  /** The configuration used (defaults filled in). */
  config: Record<string, unknown>;
  signature: string;
  /** One evaluator id per metric output, in the metric's output order. */
  evaluatorIds: string[];
  /** Candidates the metric scored in this run. */
  scored: number;
  /** Candidates skipped because they already had `ok` scores under these ids. */
  skipped: number;
  /** Candidates stored with status `error` (e.g. no reference), counted once per candidate. */
  failures: number;
  /**
   * Candidates a reference-based metric left out because they are the item's reference ({@link
   * isReferenceCandidate}): stored with status `error`, `reason: "is-reference"` and a message; not failures.
   */
  references: number;
  /** True when the signal stopped the run before every candidate was handled. */
  cancelled: boolean;
}

/**
 * Scores every candidate of `items` with `metric` under `config` (partial; defaults filled in by
 * `metric.configure`, which throws {@link MetricConfigError} for a bad field). Each output `o` is stored on the
 * candidate as `scores["metric:<name>.<o>@<signature>"] = { value, status, signature }`:
 * - `status: 'ok'` with the metric's number (and `warning`, a sentence, when the metric flags the value as
 *   degenerate: {@link VALUE_WARNING});
 * - `status: 'error'` with `value: null` and a `message` when the candidate cannot be scored (a reference-based
 *   metric and an item without `reference`) or the metric returns null for that output;
 * - `status: 'error'`, `value: null`, `reason: 'is-reference'` and a message, without scoring, for a reference-based
 *   metric and a candidate that is the item's reference ({@link isReferenceCandidate}): the reference is never
 *   scored against itself. A self-score stored by an earlier version is replaced.
 *
 * Candidates already holding `ok` scores under all the ids are skipped unless `force` (same signature, same
 * value: metrics are deterministic), so a cancelled run resumes where it stopped. Batches run one after another;
 * between batches the loop yields to the event loop and checks `signal`. When cancelled, the result holds every
 * finished batch and `cancelled: true`. An error thrown by `metric.score` (other than by the abort) propagates.
 */
export async function scoreItems(items: readonly DialogueItem[], metric: AnyMetric, config: Record<string, unknown> = {}, options: ScoreItemsOptions = {}): Promise<ScoreItemsResult> {
  const full = metric.configure(config) as Record<string, unknown>;
  const signature = metric.signature(full);
  const ids = metric.outputs.map((o) => metricEvaluatorId(metric.name, o.name, signature));
  const out = items.map((it) => structuredClone(it));
  const total = out.reduce((n, it) => n + it.candidates.length, 0);
  const batchSize = Math.max(1, Math.floor(options.batchSize ?? 64));
  let done = 0;
  let scored = 0;
  let skipped = 0;
  let failures = 0;
  let references = 0;

  const store = (c: Candidate, values: MetricValues | undefined, message?: string): void => {
    let failed = false;
    metric.outputs.forEach((o, k) => {
      const v = values?.[o.name];
      let score: Score;
      const warning = valueWarning(values, o.name);
      if (typeof v === 'number' && !message) score = { value: v, status: 'ok', signature, ...(warning ? { warning } : {}) };
      else {
        failed = true;
        score = { value: null, status: 'error', message: message ?? `${metric.name}.${o.name} is undefined for this input`, signature };
      }
      c.scores = { ...c.scores, [ids[k]]: score };
    });
    if (failed) failures++;
  };

  // Work list: candidates to score, in file order; the others are settled now.
  const pending: { item: DialogueItem; c: Candidate }[] = [];
  for (const item of out) {
    for (const c of item.candidates) {
      if (metric.requiresReference && isReferenceCandidate(item, c)) {
        const message = `candidate ${c.id} is the item's reference: ${metric.name} does not score the reference against itself`;
        for (const id of ids) c.scores = { ...c.scores, [id]: { value: null, status: 'error', reason: IS_REFERENCE_REASON, message, signature } };
        references++;
        done++;
      } else if (!options.force && ids.every((id) => c.scores[id]?.status === 'ok')) {
        skipped++;
        done++;
      } else if (metric.requiresReference && item.reference?.text === undefined) {
        store(c, undefined, `item ${item.id} has no reference; ${metric.name} needs one`);
        done++;
      } else pending.push({ item, c });
    }
  }
  options.onProgress?.(done, total);

  let cancelled = false;
  for (let start = 0; start < pending.length; start += batchSize) {
    if (options.signal?.aborted) {
      cancelled = true;
      break;
    }
    const batch = pending.slice(start, start + batchSize);
    const inputs: MetricInput[] = batch.map(({ item, c }) => ({
      candidate: c.text,
      ...(item.reference?.text !== undefined ? { reference: item.reference.text } : {}),
      context: item.context,
    }));
    let values: MetricValues[];
    try {
      values = await metric.score(inputs, full, { signal: options.signal, models: options.models });
    } catch (err) {
      if (options.signal?.aborted) {
        cancelled = true;
        break;
      }
      throw err;
    }
    if (values.length !== batch.length) throw new Error(`metric ${metric.name} returned ${values.length} results for ${batch.length} inputs`);
    batch.forEach(({ c }, k) => store(c, values[k]));
    scored += batch.length;
    done += batch.length;
    options.onProgress?.(done, total);
    // Let a cancellation (or a UI update) in between batches of synchronous metrics.
    if (start + batchSize < pending.length) await new Promise<void>((r) => setImmediate(r));
  }
  return { items: out, config: full, signature, evaluatorIds: ids, scored, skipped, failures, references, cancelled };
}
