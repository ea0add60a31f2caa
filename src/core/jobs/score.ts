/**
 * The score job: registered metrics (BLEU-4, sacreBLEU, ROUGE-L, METEOR, BERTScore, follow-up likelihood, …)
 * under one or more configurations each, on every candidate; one score per metric output under
 * `metric:<name>.<output>@<signature>` (docs/metrics.md).
 */
import { isObject } from '../config';
import { displayNames } from '../evaluators/evaluatorNames';
import { mergeScores } from '../dialogue/merge';
import { scoreItems } from '../metrics';
import { itemsLackingReference, metricRuns, type MetricRun } from '../metrics/runSpec';
import type { ItemSink, JobHost, JobReport, JobTarget } from './host';
import { planFields } from './planFields';
import { updatesFor } from './memorySink';

/** Metrics whose scores need only the texts (no model, no network): they may run in untrusted workspaces. */
export const TEXT_ONLY_METRICS: ReadonlySet<string> = new Set(['bleu4', 'sacrebleu', 'rougeL', 'meteor', 'cocoBleu', 'cocoRougeL']);

/** A scoring run. */
export interface ScorePlan {
  job?: 'score';
  /** Metric names (default: ICMI 2023's BLEU-4, ROUGE-L, METEOR; or the keys of `config`). */
  metrics?: string[];
  /**
   * Configurations keyed by metric name, each an object or an array of objects (one run each), e.g.
   * `{"bleu4": [{"smoothing": "none"}, {"smoothing": "method1"}]}`; or, with exactly one metric named, that
   * metric's fields. See `metricRuns`.
   */
  config?: Record<string, unknown>;
  /** Score again candidates that already have these scores. */
  force?: boolean;
}

/**
 * Checks a score plan and resolves its runs (every configuration completed and validated by its metric).
 *
 * @throws ConfigError / Error naming the source and the field
 */
export function validateScorePlan(value: unknown, source: string): ScorePlan {
  const { c, fail } = planFields(value, source, 'score', 'a score plan', ['job', 'metrics', 'config', 'force'], '{"metrics": ["bleu4"], "config": {"bleu4": {"smoothing": "method1"}}}');
  if (c.metrics !== undefined && !(Array.isArray(c.metrics) && c.metrics.every((m) => typeof m === 'string' && m))) fail('metrics', 'must be an array of metric names');
  if (c.config !== undefined && !isObject(c.config)) fail('config', 'must be an object of metric configurations');
  if (c.force !== undefined && typeof c.force !== 'boolean') fail('force', 'must be true or false');
  scoreRuns(c as ScorePlan, source);
  return c as unknown as ScorePlan;
}

/** The metric runs of a plan. */
export function scoreRuns(plan: ScorePlan, source = 'plan'): MetricRun[] {
  return metricRuns(plan.metrics, plan.config, source);
}

/** Runs a score plan over the target's candidates; each configuration's scores reach the sink when it finishes. */
export async function runScorePlan(plan: ScorePlan, target: JobTarget, host: JobHost, sink: ItemSink): Promise<JobReport> {
  const runs = scoreRuns(plan);
  const snapshot = target.items;
  const perRun = snapshot.reduce((n, it) => n + it.candidates.length, 0);
  const total = perRun * runs.length;
  const report: JobReport = { job: 'score', lines: [], warnings: [] };
  let done = 0;
  let scored = 0;
  let skipped = 0;
  let references = 0;
  const counts: [string, string][] = [];
  for (const run of runs) {
    if (host.signal?.aborted) break;
    const res = await scoreItems(snapshot, run.metric, run.config, {
      force: Boolean(plan.force),
      signal: host.signal,
      models: host.models,
      onProgress: (d) => host.progress({ done: done + d, total, message: run.metric.name }),
    });
    done += perRun;
    scored += res.scored;
    skipped += res.skipped;
    references = Math.max(references, res.references);
    const computed = new Map(res.items.map((it) => [it.id, it]));
    await sink.apply(
      updatesFor(computed.keys(), (id, current) => {
        let next = current;
        for (const evaluatorId of res.evaluatorIds) next = mergeScores(next, computed.get(id)!, evaluatorId);
        return next === current ? undefined : next;
      }),
    );
    for (const id of res.evaluatorIds) {
      const values = res.items.flatMap((it) => it.candidates.map((c) => c.scores[id])).filter((s) => s?.status === 'ok').map((s) => s.value as number);
      const mean = values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN;
      report.lines.push(`${id}: ${res.scored} scored, ${res.skipped} already scored, ${res.failures} without a score${res.references ? `, ${res.references} left out as their item's reference` : ''}; mean ${values.length ? mean.toPrecision(4) : '-'} over ${values.length}`);
      counts.push([id, `${res.scored} scored, ${res.skipped} already, ${res.failures} without`]);
    }
  }
  const names = displayNames(counts.map(([id]) => id));
  report.summary = counts.map(([id, text]) => `${names.get(id)}: ${text}`);
  report.cancelled = Boolean(host.signal?.aborted);
  const noReference = itemsLackingReference(snapshot, runs);
  if (noReference > 0) {
    report.warnings.push(
      `${noReference} of ${snapshot.length} items have no reference, so reference-based metrics left their candidates unscored; for an annotation table, import it with --reference (the human response becomes the reference)`,
    );
  }
  if (!report.cancelled && scored === 0 && skipped === 0) {
    report.nothingDone =
      perRun === 0
        ? 'the file has no candidates to score'
        : references === perRun
          ? 'every candidate is its item\'s reference, which reference-based metrics do not score against itself (generate or import other candidates first)'
          : noReference === snapshot.length
            ? 'no item has a reference, and every metric asked for needs one'
            : 'no candidate could be scored';
  }
  report.data = { scored, skipped, references, runs: runs.map((r) => `${r.metric.name}@${r.metric.signature(r.config)}`) };
  return report;
}
