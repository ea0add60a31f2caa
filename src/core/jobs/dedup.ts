/**
 * The dedup job: semantic clustering of every item's candidates by sentence embeddings (first study §4.2.1):
 * Ward linkage under a distance threshold, the longest member as each cluster's representative, a seeded sample
 * of k clusters per item for annotation.
 */
import { failFor, isObject, rejectUnknownFields } from '../config';
import { clusterCandidates, mergeClusters, semanticDedupConfig, type SemanticDedupConfig } from '../dedup/semanticDedup';
import { isModelDtype, loadSentenceEmbedder, MODEL_DTYPES, type ModelDtype } from '../models/registry';
import type { ItemSink, JobHost, JobReport, JobTarget } from './host';
import { updatesFor } from './memorySink';

/** A clustering run: {@link SemanticDedupConfig} fields (defaults filled in by the job) and the weights' precision. */
export interface DedupPlan extends Partial<SemanticDedupConfig> {
  job?: 'dedup';
  /** ONNX weights of the embedding model (default fp32; `q8` reads `model_quantized.onnx`, …; see models/modelFiles.ts). */
  dtype?: ModelDtype;
}

/**
 * Checks a dedup plan.
 *
 * @throws ConfigError naming the source and the field
 */
export function validateDedupPlan(value: unknown, source: string): DedupPlan {
  const fail = failFor(source);
  if (!isObject(value)) fail('(root)', 'must be a JSON object like {"threshold": 0.7, "sample": 9}');
  const { job, dtype, ...rest } = value as Record<string, unknown>;
  rejectUnknownFields(rest, ['model', 'threshold', 'sample', 'seed', 'include'], '', fail);
  if (job !== undefined && job !== 'dedup') fail('job', 'must be "dedup" for a dedup plan');
  if (dtype !== undefined && !isModelDtype(dtype)) fail('dtype', `must be one of ${Object.keys(MODEL_DTYPES).join(', ')}`);
  try {
    semanticDedupConfig(rest as Partial<SemanticDedupConfig>);
  } catch (err) {
    const m = /^(\w+): (.*)$/.exec((err as Error).message);
    fail(m ? m[1] : '(root)', m ? m[2] : (err as Error).message);
  }
  return value as DedupPlan;
}

/** Clusters the target's candidates; each item's clusters reach the sink at the end (finished items on cancel). */
export async function runDedupPlan(plan: DedupPlan, target: JobTarget, host: JobHost, sink: ItemSink): Promise<JobReport> {
  const { job: _job, dtype, ...settings } = plan;
  const config = semanticDedupConfig(settings);
  host.log(`loading sentence-embedding model ${config.model}`);
  const embedder = await loadSentenceEmbedder(config.model, host.models, { dtype });
  try {
    const res = await clusterCandidates(target.items, embedder, config, {
      signal: host.signal,
      onProgress: (done, total) => host.progress({ done, total, message: 'items clustered' }),
    });
    const computed = new Map(res.items.map((it) => [it.id, it]));
    await sink.apply(updatesFor(res.perItem.map((p) => p.itemId), (id, current) => mergeClusters(current, computed.get(id)!)));
    const clusters = res.perItem.reduce((s, p) => s + p.clusters, 0);
    const m = res.meanSampledClusterSize;
    return {
      job: 'dedup',
      lines: [`${clusters} clusters in ${res.perItem.length} item(s); mean size of a sampled cluster ${Number.isNaN(m) ? '—' : m.toFixed(2)}; signature ${res.signature}`],
      warnings: [],
      cancelled: res.cancelled,
      ...(target.items.length === 0 ? { nothingDone: 'the file has no items to cluster' } : {}),
      data: { signature: res.signature, meanSampledClusterSize: Number.isNaN(m) ? null : m, items: res.perItem },
    };
  } finally {
    await embedder.dispose();
  }
}
