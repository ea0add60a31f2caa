/**
 * The perplexity job: perplexity of local generators on the reference responses of the items (GEM 2022 §3.3,
 * Table 3). It reports; it does not change the file.
 */
import { validateLocalRuntime, type LocalRuntimeOptions } from '../models/ortRuntime';
import { withRuntime } from './runtime';
import type { TherapistBehaviour } from '../dialogue/types';
import { perplexity, perplexityExamples, type PerplexityOptions, type PerplexityResult } from '../generation/perplexity';
import { DEFAULT_GENERATOR, loadGenerativeModel } from '../models/registry';
import type { JobHost, JobReport, JobTarget } from './host';
import { planFields } from './planFields';

/** A perplexity run: models by reference and what shapes the value. */
export interface PerplexityPlan extends PerplexityOptions {
  job?: 'perplexity';
  /** Model references: `bundled:<name>`, a folder, a hub id (default: the bundled generator). */
  models?: string[];
  /** How the models run: threads and execution provider (over the host's settings). */
  runtime?: LocalRuntimeOptions;
}

const BEHAVIOURS = ['reflection', 'question', 'therapist_input', 'other'];

/**
 * Checks a perplexity plan.
 *
 * @throws ConfigError naming the source and the field
 */
export function validatePerplexityPlan(value: unknown, source: string): PerplexityPlan {
  const { c, fail } = planFields(value, source, 'perplexity', 'a perplexity plan', ['job', 'models', 'maxContextTokens', 'maxResponseTokens', 'includeEos', 'behaviour', 'inputSpecialTokens', 'runtime'], '{"models": ["bundled:reflect-gpt2-tiny"]}');
  if (c.models !== undefined && !(Array.isArray(c.models) && c.models.length > 0 && c.models.every((m) => typeof m === 'string' && m.trim()))) fail('models', 'must be a non-empty array of model references');
  for (const k of ['maxContextTokens', 'maxResponseTokens']) if (c[k] !== undefined && !(Number.isInteger(c[k]) && (c[k] as number) >= 1)) fail(k, 'must be an integer ≥ 1');
  for (const k of ['includeEos', 'inputSpecialTokens']) if (c[k] !== undefined && typeof c[k] !== 'boolean') fail(k, 'must be true or false');
  if (c.behaviour !== undefined && !BEHAVIOURS.includes(String(c.behaviour))) fail('behaviour', `must be one of ${BEHAVIOURS.join(', ')}`);
  if (c.runtime !== undefined) validateLocalRuntime(c.runtime, 'runtime', fail);
  return c as PerplexityPlan;
}

/** Computes each model's perplexity on the target's reference responses; `data.results` holds the values. */
export async function runPerplexityPlan(plan: PerplexityPlan, target: JobTarget, host: JobHost): Promise<JobReport> {
  const behaviour = (plan.behaviour ?? 'reflection') as TherapistBehaviour;
  const examples = perplexityExamples(target.items, behaviour);
  const report: JobReport = { job: 'perplexity', lines: [], warnings: [] };
  if (examples.length === 0) {
    report.nothingDone = `no item has a ${behaviour} reference to score`;
    return report;
  }
  host.log(`${examples.length} reference ${behaviour}s`);
  const results: (Omit<PerplexityResult, 'perResponse'> & { seconds: number })[] = [];
  for (const ref of plan.models ?? [DEFAULT_GENERATOR]) {
    if (host.signal?.aborted) break;
    host.log(`loading ${ref}`);
    const model = await loadGenerativeModel(ref, withRuntime(host.models, plan.runtime));
    try {
      const t0 = performance.now();
      const { perResponse: _each, ...r } = await perplexity(model, examples, {
        ...plan,
        behaviour,
        signal: host.signal,
        onProgress: (done, total) => host.progress({ done, total, message: ref }),
      });
      results.push({ ...r, seconds: (performance.now() - t0) / 1000 });
      report.lines.push(`${ref}: perplexity ${r.perplexity.toFixed(3)} (mean NLL ${r.meanNll.toFixed(4)} nats over ${r.tokens} tokens of ${r.responses} responses); ${r.signature}`);
    } catch (err) {
      if (!host.signal?.aborted) throw err;
    } finally {
      await model.dispose();
    }
  }
  report.cancelled = Boolean(host.signal?.aborted);
  report.data = { results };
  return report;
}
