/**
 * Agglomerative clustering with a distance threshold, as scikit-learn's
 * `AgglomerativeClustering(n_clusters=None, distance_threshold=t)` with its default linkage and metric (Ward,
 * Euclidean) — the clustering of the first study §4.2.1.
 *
 * The dendrogram comes from `ml-hclust` (`agnes`, method `ward2`: the Lance–Williams update on squared Euclidean
 * distances, so merge heights are scipy's Ward distances √(2·nᵢnⱼ/(nᵢ+nⱼ))·‖cᵢ − cⱼ‖, which sklearn uses). The cut is
 * sklearn's: it forms `count(heights ≥ t) + 1` clusters, i.e. keeps exactly the merges whose height is < t (a merge
 * at exactly t is not made; ml-hclust's own `cut` would make it). Ward heights are monotone, so that is every
 * maximal subtree whose root height is < t. Partitions equal sklearn 1.2.1's on the committed test vectors
 * (test/core/dedup/fixtures); they can differ only when a merge height lies within rounding (~1e-15 relative) of
 * t, or when tied nearest-neighbour distances make the two libraries merge in a different order with a different
 * outcome.
 */
import { agnes, type Cluster } from 'ml-hclust';

/** The ml-hclust release used, recorded in clustering signatures. */
export const ML_HCLUST_VERSION = '4.0.0';

/** Result of {@link wardClusters}. */
export interface Clustering {
  /** Cluster number of each vector: clusters numbered 0, 1, … in the order of their first member. */
  labels: number[];
  /** Number of clusters. */
  count: number;
  /** Merge heights of the full dendrogram (n − 1 of them), ascending. */
  heights: number[];
}

/**
 * Ward agglomerative clustering of `vectors` (Euclidean), cut at `threshold`.
 *
 * @param vectors - n vectors of equal dimension (n ≥ 0)
 * @param threshold - linkage distance threshold ≥ 0: merges with height < threshold are kept
 * @throws RangeError when vectors differ in dimension or the threshold is negative or not finite
 */
export function wardClusters(vectors: readonly ArrayLike<number>[], threshold: number): Clustering {
  if (!(threshold >= 0) || !Number.isFinite(threshold)) throw new RangeError(`distance threshold must be a finite number ≥ 0, got ${threshold}`);
  const n = vectors.length;
  if (n === 0) return { labels: [], count: 0, heights: [] };
  const dim = vectors[0].length;
  const data = vectors.map((v, i) => {
    if (v.length !== dim) throw new RangeError(`vector ${i} has ${v.length} dimensions, vector 0 has ${dim}`);
    return Array.from(v);
  });
  const root = agnes(data, { method: 'ward2' });
  const heights: number[] = [];
  root.traverse((c) => {
    if (!c.isLeaf) heights.push(c.height);
  });
  heights.sort((a, b) => a - b);

  // Maximal subtrees whose root height is < threshold (a leaf always is one).
  const groups: number[][] = [];
  const stack: Cluster[] = [root];
  while (stack.length > 0) {
    const c = stack.pop()!;
    if (c.isLeaf || c.height < threshold) groups.push(c.indices());
    else stack.push(...c.children);
  }
  const first = groups.map((g) => Math.min(...g));
  const order = groups.map((_, i) => i).sort((a, b) => first[a] - first[b]);
  const labels = new Array<number>(n);
  order.forEach((g, k) => {
    for (const i of groups[g]) labels[i] = k;
  });
  return { labels, count: groups.length, heights };
}
