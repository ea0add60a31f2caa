/**
 * Seeded cluster bootstrap (Davison & Hinkley 1997, §3.8; Field & Welsh 2007): resample the clusters (dialogue
 * items) with replacement and keep every unit (candidate) of a drawn cluster, so units that share a context stay
 * together as they do in {@link bootstrapIndices}' item bootstrap. Percentile intervals as
 * {@link percentileInterval}. Used by every agreement coefficient's interval.
 */
import { bootstrapIndices, percentileInterval, type BootstrapInterval } from './bootstrap';

/** Bootstrap settings of a coefficient's interval. */
export interface CoefficientBootstrap {
  /** B ≥ 1 resamples. */
  resamples: number;
  seed: number | string;
  /** Confidence level in (0, 1); default 0.95. */
  level?: number;
  /**
   * Cluster of each unit (any key, e.g. the dialogue item id): whole clusters are resampled. Default: every unit
   * is its own cluster (a plain bootstrap over units).
   */
  clusters?: readonly (string | number)[];
}

/**
 * The unit index lists of a seeded cluster bootstrap over `units` units: clusters are numbered in order of first
 * appearance, {@link bootstrapIndices}(number of clusters, B, seed) draws them, and each drawn cluster contributes
 * its units in their original order. Without clusters this is exactly `bootstrapIndices(units, B, seed)`.
 *
 * @throws RangeError when `clusters` has a length other than `units`, or on the errors of bootstrapIndices
 */
export function clusterResamples(units: number, settings: Pick<CoefficientBootstrap, 'resamples' | 'seed' | 'clusters'>): Int32Array[] {
  const { clusters } = settings;
  if (!clusters) return bootstrapIndices(units, settings.resamples, settings.seed);
  if (clusters.length !== units) throw new RangeError(`clusters has ${clusters.length} entries for ${units} units`);
  const index = new Map<string | number, number>();
  const members: number[][] = [];
  clusters.forEach((c, u) => {
    let k = index.get(c);
    if (k === undefined) {
      k = members.length;
      index.set(c, k);
      members.push([]);
    }
    members[k].push(u);
  });
  return bootstrapIndices(members.length, settings.resamples, settings.seed).map((draw) => {
    const out: number[] = [];
    for (const k of draw) for (const u of members[k]) out.push(u);
    return Int32Array.from(out);
  });
}

/**
 * Percentile bootstrap interval of a statistic of units: `statistic(indices)` is evaluated on every resample's unit
 * index list (units may repeat) and may return null where undefined (counted, left out of the percentiles).
 */
export function bootstrapStatistic(units: number, statistic: (indices: Int32Array) => number | null, settings: CoefficientBootstrap): BootstrapInterval {
  const stats = clusterResamples(units, settings).map(statistic);
  return percentileInterval(stats, settings.level ?? 0.95);
}

/** The rows of `rows` at `indices` (a resample). */
export function pick<T>(rows: readonly T[], indices: ArrayLike<number>): T[] {
  const out = new Array<T>(indices.length);
  for (let i = 0; i < indices.length; i++) out[i] = rows[indices[i]];
  return out;
}
