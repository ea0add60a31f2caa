/**
 * Seeded cluster bootstrap (Davison & Hinkley 1997, §3.8; Field & Welsh 2007): resample the clusters (dialogue
 * items) with replacement and keep every unit (candidate) of a drawn cluster, so units that share a context stay
 * together as they do in {@link bootstrapIndices}' item bootstrap. Percentile intervals as
 * {@link percentileInterval}. Used by every agreement coefficient's interval.
 */
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import { bootstrapIndices, bootstrapInterval, DEFAULT_INTERVAL, type BootstrapInterval, type IntervalMethod } from './bootstrap';
import type { CoverageFamily } from './measuredCoverage';

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
  /** How the bounds are read off the resamples (default {@link DEFAULT_INTERVAL}). */
  interval?: IntervalMethod;
  /** What the interval is of, for the coverage study's verdict at this many clusters (none: no verdict). */
  family?: CoverageFamily;
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

/** The units of each cluster, clusters numbered in order of first appearance (every unit its own cluster without `clusters`). */
export function clusterMembers(units: number, clusters?: readonly (string | number)[]): number[][] {
  if (!clusters) return Array.from({ length: units }, (_, u) => [u]);
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
  return members;
}

/**
 * The statistic with each cluster left out in turn (the leave-one-cluster-out jackknife that BCa's acceleration
 * reads): `statistic` on the unit indices of every other cluster, in their original order.
 */
export function clusterJackknife(members: readonly (readonly number[])[], statistic: (indices: Int32Array) => number | null): (number | null)[] {
  return members.map((_, leave) => {
    const out: number[] = [];
    members.forEach((us, k) => {
      if (k !== leave) for (const u of us) out.push(u);
    });
    return statistic(Int32Array.from(out));
  });
}

/**
 * Bootstrap interval of a statistic of units: `statistic(indices)` is evaluated on every resample's unit index list
 * (units may repeat) and may return null where undefined (counted, left out). The bounds follow `settings.interval`
 * ({@link bootstrapInterval}); BCa also evaluates the statistic on all units and with each cluster left out.
 */
export function bootstrapStatistic(units: number, statistic: (indices: Int32Array) => number | null, settings: CoefficientBootstrap): BootstrapInterval {
  const stats = clusterResamples(units, settings).map(statistic);
  const method = settings.interval ?? DEFAULT_INTERVAL;
  const members = clusterMembers(units, settings.clusters);
  const bca = method === 'bca' || method === 'expanded-bca';
  return bootstrapInterval(stats, {
    level: settings.level ?? 0.95,
    method,
    clusters: members.length,
    ...(settings.family ? { family: settings.family } : {}),
    ...(bca ? { estimate: statistic(Int32Array.from({ length: units }, (_, u) => u)), jackknife: clusterJackknife(members, statistic) } : {}),
  });
}

/** The rows of `rows` at `indices` (a resample). */
export function pick<T>(rows: readonly T[], indices: ArrayLike<number>): T[] {
  const out = new Array<T>(indices.length);
  for (let i = 0; i < indices.length; i++) out[i] = rows[indices[i]];
  return out;
}

/** A cluster-jackknife t-test of θ = θ₀. */
export interface JackknifeTest {
  estimate: number;
  /** Jackknife standard error √((m − 1)/m · Σ (θ₍ᵢ₎ − θ̄₍.₎)²) over the m clusters with a defined leave-one-out value. */
  standardError: number;
  /** t = (θ̂ − θ₀)/SE, Student's t with m − 1 degrees of freedom; null when SE = 0. */
  statistic: number | null;
  df: number;
  /** Two-sided p = 2·T_{m−1}(−|t|); null when undefined. */
  pValue: number | null;
}

/**
 * The cluster-jackknife t-test (Tukey 1958; the CV₃ jackknife variance with t(G − 1) critical values recommended for
 * few clusters by MacKinnon, Nielsen & Webb 2023, "Cluster-robust inference: a guide to empirical practice",
 * J. Econometrics 232(2), §3.3–4): from the estimate and its leave-one-cluster-out values, t = (θ̂ − θ₀)/SE_jack
 * referred to Student's t with m − 1 degrees of freedom. It needs no bootstrap and respects the clusters (dialogue
 * contexts) that the independent-pairs tests (scipy's, Williams', Steiger's) ignore.
 *
 * @returns null when the estimate is undefined or fewer than 2 leave-one-out values are defined
 */
export function jackknifeTest(estimate: number | null, jackknife: readonly (number | null)[], nullValue = 0): JackknifeTest | null {
  const jk = jackknife.filter((v): v is number => v !== null && Number.isFinite(v));
  if (estimate === null || jk.length < 2) return null;
  const m = jk.length;
  const mean = jk.reduce((s, v) => s + v, 0) / m;
  const se = Math.sqrt(((m - 1) / m) * jk.reduce((s, v) => s + (v - mean) ** 2, 0));
  const df = m - 1;
  if (!(se > 0)) return { estimate, standardError: se, statistic: null, df, pValue: null };
  const t = (estimate - nullValue) / se;
  return { estimate, standardError: se, statistic: t, df, pValue: Math.min(1, 2 * tCdf(-Math.abs(t), df)) };
}
