/**
 * Which metrics to run under which configurations, from what a user wrote (CLI flags, a JSON file, a setting).
 */
import { MetricConfigError } from './metric';
import type { DialogueItem } from '../dialogue/types';
import { getMetric, type AnyMetric } from './registry';

/** One metric under one complete configuration. */
export interface MetricRun {
  metric: AnyMetric;
  config: Record<string, unknown>;
}

/** The metrics of ICMI 2023's reference-based comparison, run when none is named. */
export const DEFAULT_METRICS = ['bleu4', 'rougeL', 'meteor'];

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * The runs for metric `names` under `config`, each configuration completed and validated by its metric.
 *
 * `config` is one of:
 * - undefined: every named metric (default {@link DEFAULT_METRICS}) under its defaults;
 * - an object keyed by metric names, each value a configuration object or an array of them (one run each), e.g.
 *   `{"bleu4": [{"smoothing": "none"}, {"smoothing": "method1"}], "meteor": {"mode": "string"}}`; named metrics
 *   without a key run under their defaults; with no names, the keys say which metrics run;
 * - a configuration object of the single named metric, e.g. `{"smoothing": "method1"}` with `names = ["bleu4"]`.
 *
 * @throws Error naming `source` and the offending field (`bleu4[1].smoothing`), or an unknown metric with the
 *   registered ones
 */
export function metricRuns(names: readonly string[] | undefined, config: unknown, source = 'config'): MetricRun[] {
  if (config !== undefined && !isPlainObject(config)) throw new Error(`${source}: expected a JSON object`);
  let byMetric: Record<string, unknown> = {};
  let selected = names && names.length ? [...names] : undefined;
  if (config) {
    const keys = Object.keys(config);
    const keyed = keys.length > 0 && keys.every((k) => {
      try {
        getMetric(k);
        return true;
      } catch {
        return false;
      }
    });
    if (keyed) {
      byMetric = config;
      selected ??= keys;
      for (const k of keys) if (!selected.includes(k)) throw new Error(`${source}: ${k}: configured but not among the selected metrics (${selected.join(', ')})`);
    } else if (selected && selected.length === 1) {
      byMetric = { [selected[0]]: config };
    } else {
      throw new Error(`${source}: keys must be metric names (${keys.join(', ')} are not all registered metrics), or select exactly one metric to configure it with these fields`);
    }
  }
  const runs: MetricRun[] = [];
  for (const name of selected ?? DEFAULT_METRICS) {
    const metric = getMetric(name);
    const value = byMetric[name];
    const configs = value === undefined ? [{}] : Array.isArray(value) ? value : [value];
    if (configs.length === 0) throw new Error(`${source}: ${name}: an empty list runs nothing`);
    configs.forEach((c, k) => {
      const at = Array.isArray(value) ? `${name}[${k}]` : name;
      if (!isPlainObject(c)) throw new Error(`${source}: ${at}: expected an object of configuration fields`);
      try {
        runs.push({ metric, config: metric.configure(c) as Record<string, unknown> });
      } catch (err) {
        if (err instanceof MetricConfigError) throw new Error(`${source}: ${at}.${err.field}: ${err.message.replace(/^metric [^:]+: [^:]+: /, '')}`);
        throw err;
      }
    });
  }
  return runs;
}

/**
 * How many of `items` have no reference while some of `runs` need one: their candidates stay unscored by those
 * metrics (an annotation table imported without its human responses as references, say). 0 when no run needs one.
 */
export function itemsLackingReference(items: readonly DialogueItem[], runs: readonly MetricRun[]): number {
  return runs.some((r) => r.metric.requiresReference) ? items.filter((it) => !it.reference).length : 0;
}
