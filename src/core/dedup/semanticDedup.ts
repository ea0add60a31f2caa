/**
 * Semantic deduplication of an item's candidates (first study §4.2.1): embed every generated candidate
 * (all-mpnet-base-v2 by default), cluster the embeddings agglomeratively with a linkage distance threshold (0.7;
 * Ward linkage, Euclidean metric: scikit-learn's defaults), choose the member with the most tokens as each
 * cluster's representative, and draw a seeded sample of k clusters (9) per context whose representatives are
 * annotated. Each clustered candidate gets `cluster: { id, representative, size, sampled, signature }`.
 *
 * Choices the paper leaves open, fixed here:
 * - candidates: those not written by a person (`origin.kind` `model` or `api`), unless `include: 'all'`; the others
 *   lose any previous `cluster` so that a file holds one clustering;
 * - "most tokens": tokens of the embedding model's tokenizer, without special tokens, before truncation; ties go to
 *   the candidate that comes first in the item;
 * - cluster ids `c0`, `c1`, … in the order of each cluster's first candidate;
 * - the sample: clusters in id order, shuffled by Fisher–Yates with seedrandom (ARC4) seeded `"<seed>:<item id>"`
 *   (so an item's sample does not depend on the other items), the first k kept; every cluster when there are ≤ k.
 */
import seedrandom from 'seedrandom';
import { shuffled } from '../stats/shuffle';
import type { Candidate, ClusterInfo, DialogueItem } from '../dialogue/types';
import type { SentenceEmbedder } from '../models/sentenceEmbedding';
import { buildSignature, type Signature } from '../evaluators/signature';
import { ML_HCLUST_VERSION, wardClusters } from './agglomerative';

/** Settings of a semantic deduplication run. */
export interface SemanticDedupConfig {
  /** Sentence-embedding model to load: hub id or local folder (default `sentence-transformers/all-mpnet-base-v2`). */
  model: string;
  /** Linkage distance threshold σ: merges at a Ward distance < σ are made (default 0.7, §4.2.1). */
  threshold: number;
  /** Clusters sampled per context for annotation (default 9, §4.2.1); 0 samples none. */
  sample: number;
  /** Seed of the sample. */
  seed: number;
  /** Which candidates to cluster: `generated` (not `origin.kind: 'human'`) or `all`. */
  include: 'generated' | 'all';
}

export const SEMANTIC_DEDUP_DEFAULTS: Readonly<SemanticDedupConfig> = {
  model: 'sentence-transformers/all-mpnet-base-v2',
  threshold: 0.7,
  sample: 9,
  seed: 0,
  include: 'generated',
};

/**
 * Validated settings, defaults filled in.
 *
 * @throws RangeError naming the field
 */
export function semanticDedupConfig(partial: Partial<SemanticDedupConfig> = {}): SemanticDedupConfig {
  const c = { ...SEMANTIC_DEDUP_DEFAULTS, ...partial };
  if (typeof c.model !== 'string' || c.model.trim() === '') throw new RangeError('model: a hub id or a local folder is required');
  if (!(c.threshold >= 0) || !Number.isFinite(c.threshold)) throw new RangeError(`threshold: must be a finite number ≥ 0, got ${c.threshold}`);
  if (!Number.isInteger(c.sample) || c.sample < 0) throw new RangeError(`sample: must be an integer ≥ 0, got ${c.sample}`);
  if (!Number.isInteger(c.seed)) throw new RangeError(`seed: must be an integer, got ${c.seed}`);
  if (c.include !== 'generated' && c.include !== 'all') throw new RangeError(`include: must be "generated" or "all", got ${String(c.include)}`);
  return c;
}

/**
 * The clustering's signature, stored on every clustered candidate: embedding model (as loaded: `embedder.ref`) and how it pools, linkage,
 * metric, threshold, representative rule, sample size and seed, library and ReflectEval versions.
 */
export function semanticDedupSignature(c: SemanticDedupConfig, embedder: Pick<SentenceEmbedder, 'spec' | 'ref'>): Signature {
  const s = embedder.spec;
  return buildSignature([
    ['emb', embedder.ref],
    ['pool', s.pooling],
    ['norm', s.normalize ? 'l2' : 'none'],
    ['maxlen', s.maxSeqLength],
    ['link', 'ward'],
    ['metric', 'euclidean'],
    ['t', c.threshold],
    ['rep', 'most-tokens'],
    ['k', c.sample],
    ['seed', c.seed],
    ['include', c.include],
    ['impl', `ml-hclust-${ML_HCLUST_VERSION}`],
  ]);
}

/** One item's outcome. */
export interface ItemClustering {
  itemId: string;
  /** Candidates clustered. */
  candidates: number;
  clusters: number;
  /** Clusters drawn in the sample. */
  sampled: number;
  /** Sizes of the sampled clusters. */
  sampledSizes: number[];
}

/** What {@link clusterCandidates} returns. */
export interface SemanticDedupResult {
  /** Updated copies of the items (inputs untouched); items not reached after a cancellation are unchanged copies. */
  items: DialogueItem[];
  perItem: ItemClustering[];
  signature: string;
  /** Mean size of the sampled clusters over all items (the first study reports 1.32), NaN when none. */
  meanSampledClusterSize: number;
  cancelled: boolean;
}

/**
 * Representative of a cluster: the member with the most tokens, the earliest member on ties.
 *
 * @param members - candidate indices, ascending
 * @param tokens - token count per candidate index
 */
export function representativeOf(members: readonly number[], tokens: readonly number[]): number {
  let best = members[0];
  for (const m of members) if (tokens[m] > tokens[best]) best = m;
  return best;
}

/** The clusters (ids 0…count−1) drawn for annotation: seeded Fisher–Yates over the ids, the first k. */
export function sampleClusters(count: number, k: number, seed: number, itemId: string): Set<number> {
  const ids = Array.from({ length: count }, (_, i) => i);
  if (count <= k) return new Set(ids);
  return new Set(shuffled(ids, seedrandom(`${seed}:${itemId}`)).slice(0, k));
}

/**
 * Clusters the candidates of every item and stores the result on them.
 *
 * @param options.onProgress - called after each item with items done and total
 * @returns updated copies; with `signal` aborted, the items finished so far are updated and `cancelled` is true
 */
export async function clusterCandidates(
  items: readonly DialogueItem[],
  embedder: SentenceEmbedder,
  config: Partial<SemanticDedupConfig> = {},
  options: { signal?: AbortSignal; onProgress?: (done: number, total: number) => void; batchSize?: number } = {},
): Promise<SemanticDedupResult> {
  const c = semanticDedupConfig(config);
  const signature = semanticDedupSignature(c, embedder);
  const out = items.map((it) => structuredClone(it));
  const perItem: ItemClustering[] = [];
  let cancelled = false;
  for (let n = 0; n < out.length; n++) {
    if (options.signal?.aborted) {
      cancelled = true;
      break;
    }
    const item = out[n];
    const eligible: Candidate[] = [];
    for (const cand of item.candidates) {
      if (c.include === 'all' || cand.origin?.kind !== 'human') eligible.push(cand);
      else delete cand.cluster;
    }
    let vectors: Float64Array[];
    try {
      vectors = await embedder.embed(eligible.map((x) => x.text), { signal: options.signal, batchSize: options.batchSize });
    } catch (err) {
      if (options.signal?.aborted) {
        out[n] = structuredClone(items[n]);
        cancelled = true;
        break;
      }
      throw err;
    }
    const { labels, count } = wardClusters(vectors, c.threshold);
    const tokens = eligible.map((x) => embedder.countTokens(x.text));
    const members: number[][] = Array.from({ length: count }, () => []);
    labels.forEach((l, i) => members[l].push(i));
    const reps = members.map((m) => representativeOf(m, tokens));
    const sampled = sampleClusters(count, c.sample, c.seed, item.id);
    eligible.forEach((cand, i) => {
      const l = labels[i];
      const info: ClusterInfo = { id: `c${l}`, representative: reps[l] === i, size: members[l].length, sampled: sampled.has(l), signature };
      cand.cluster = info;
    });
    perItem.push({ itemId: item.id, candidates: eligible.length, clusters: count, sampled: sampled.size, sampledSizes: [...sampled].sort((a, b) => a - b).map((l) => members[l].length) });
    options.onProgress?.(n + 1, out.length);
  }
  const sizes = perItem.flatMap((p) => p.sampledSizes);
  return { items: out, perItem, signature, meanSampledClusterSize: sizes.length ? sizes.reduce((a, b) => a + b, 0) / sizes.length : Number.NaN, cancelled };
}

/**
 * `current` (the item as it is now) with the `cluster` of each candidate taken from `computed` (the same item after
 * {@link clusterCandidates}), matched by candidate id; candidates added or whose text changed since are left as they
 * are. Returns `current` itself when nothing changes.
 */
export function mergeClusters(current: DialogueItem, computed: DialogueItem): DialogueItem {
  const byId = new Map(computed.candidates.map((c) => [c.id, c]));
  const next = structuredClone(current);
  let changed = false;
  for (const c of next.candidates) {
    const src = byId.get(c.id);
    if (!src || src.text !== c.text) continue;
    if (JSON.stringify(src.cluster) === JSON.stringify(c.cluster)) continue;
    if (src.cluster) c.cluster = structuredClone(src.cluster);
    else delete c.cluster;
    changed = true;
  }
  return changed ? next : current;
}
