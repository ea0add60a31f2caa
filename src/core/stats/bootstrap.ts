/**
 * Seeded nonparametric bootstrap over items (Efron & Tibshirani 1993, ch. 6 and 13): resample the m dialogue
 * items with replacement, keep each item's candidates together, recompute the statistic; percentile intervals.
 */
import seedrandom from 'seedrandom';
import erfc from '@stdlib/math-base-special-erfc';
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import { normalUpperQuantile } from './confidenceSequence';
import { coverageShortfall, type CoverageFamily, type CoverageShortfall } from './measuredCoverage';

/**
 * The resample index lists of a seeded item bootstrap: `resamples` lists of `m` item indices in [0, m), each
 * drawn uniformly with replacement as `floor(u·m)` from seedrandom's default generator (ARC4) seeded with
 * `String(seed)`, resample after resample, index after index. The same (m, resamples, seed) always gives the same
 * lists, on every platform; they are exported so independent code (scripts/parity) can recompute on them.
 *
 * @param m - number of items (≥ 1)
 * @param resamples - number of bootstrap resamples B (≥ 1)
 * @param seed - any integer or string
 * @throws RangeError on m < 1 or resamples < 1 (or non-integers)
 */
export function bootstrapIndices(m: number, resamples: number, seed: number | string): Int32Array[] {
  if (!Number.isInteger(m) || m < 1) throw new RangeError(`bootstrap: the number of items must be a positive integer (got ${m})`);
  if (!Number.isInteger(resamples) || resamples < 1) throw new RangeError(`bootstrap: the number of resamples must be a positive integer (got ${resamples})`);
  const rng = seedrandom(String(seed));
  const out: Int32Array[] = [];
  for (let b = 0; b < resamples; b++) {
    const idx = new Int32Array(m);
    for (let i = 0; i < m; i++) idx[i] = Math.floor(rng() * m);
    out.push(idx);
  }
  return out;
}

/**
 * The q-th percentile of ascending-sorted values with linear interpolation between closest ranks — numpy's
 * default `np.percentile(a, q)` (method 'linear', Hyndman & Fan type 7): position h = (n − 1)·q/100,
 * value = s[⌊h⌋] + (h − ⌊h⌋)·(s[⌊h⌋+1] − s[⌊h⌋]).
 *
 * @param sorted - ascending, at least one value
 * @param q - in [0, 100]
 * @throws RangeError on an empty array or q outside [0, 100]
 */
export function percentileSorted(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) throw new RangeError('percentile of an empty sample');
  if (!(q >= 0 && q <= 100)) throw new RangeError(`percentile q must be in [0, 100] (got ${q})`);
  const h = ((sorted.length - 1) * q) / 100;
  const lo = Math.floor(h);
  const hi = Math.min(sorted.length - 1, lo + 1);
  const t = h - lo;
  const a = sorted[lo];
  const b = sorted[hi];
  // numpy's _lerp: a + (b − a)·t, computed from the nearer end for t ≥ 0.5.
  return t >= 0.5 ? b - (b - a) * (1 - t) : a + (b - a) * t;
}

/** A percentile bootstrap interval. Bounds are null when fewer than 2 resamples gave a defined statistic. */
export interface BootstrapInterval {
  lower: number | null;
  upper: number | null;
  /** Confidence level, e.g. 0.95. */
  level: number;
  /** B: resamples drawn. */
  resamples: number;
  /** Resamples on which the statistic was undefined (e.g. a constant column): left out of the percentiles. */
  undefinedResamples: number;
  /** How the bounds were computed ({@link IntervalMethod}); absent in intervals made by {@link percentileInterval}. */
  method?: IntervalMethod;
  /** m: independent units (clusters) resampled, when known. */
  clusters?: number;
  /** BCa could not be computed (no estimate or jackknife, or ẑ₀ infinite): the percentile bounds at the same probabilities. */
  fallback?: 'bca-undefined';
  /**
   * The coverage study found this method too narrow at this few contexts (docs/meta-evaluation.md#coverage): every
   * table marks the interval and says by how much.
   */
  shortfall?: CoverageShortfall;
}

/**
 * Percentile interval [P_{α/2}, P_{1−α/2}] (α = 1 − level) of the defined resample statistics (Efron &
 * Tibshirani 1993, §13.3), percentiles as {@link percentileSorted}. Undefined statistics (null) are counted and
 * left out.
 */
export function percentileInterval(stats: readonly (number | null)[], level = 0.95): BootstrapInterval {
  const defined = stats.filter((s): s is number => s !== null).sort((a, b) => a - b);
  const alpha = 1 - level;
  const base = { level, resamples: stats.length, undefinedResamples: stats.length - defined.length };
  if (defined.length < 2) return { lower: null, upper: null, ...base };
  return { lower: percentileSorted(defined, (100 * alpha) / 2), upper: percentileSorted(defined, 100 * (1 - alpha / 2)), ...base };
}

/**
 * Two-sided bootstrap p-value of H0: θ = 0 from resample statistics θ*_b (Davison & Hinkley 1997, eq. 4.11 with
 * the +1 correction, doubled for two sides): p = min(1, 2·(1 + min(#{θ*_b ≤ 0}, #{θ*_b ≥ 0})) / (B' + 1)), where
 * B' counts the defined resamples. Null when none is defined.
 */
export function bootstrapPValue(stats: readonly (number | null)[]): number | null {
  let below = 0;
  let above = 0;
  let defined = 0;
  for (const s of stats) {
    if (s === null) continue;
    defined++;
    if (s <= 0) below++;
    if (s >= 0) above++;
  }
  if (defined === 0) return null;
  return Math.min(1, (2 * (1 + Math.min(below, above))) / (defined + 1));
}

/**
 * How a bootstrap interval's bounds are read off the resample statistics θ*_1 … θ*_B (level 1 − α, m clusters):
 *
 * - `percentile` — [P_{α/2}, P_{1−α/2}] (Efron & Tibshirani 1993, §13.3). Transformation-respecting, but with few
 *   clusters too narrow: the bootstrap variance carries the plug-in factor (m − 1)/m and the interval uses normal
 *   rather than t quantiles (Hesterberg 2015, §4.5).
 * - `bca` — bias-corrected and accelerated (Efron 1987; Efron & Tibshirani 1993, §14.3, eq. 14.10 and 14.15):
 *   percentiles at Φ(ẑ₀ + (ẑ₀ + z)/(1 − â(ẑ₀ + z))) for z = z_{α/2}, z_{1−α/2}, with ẑ₀ = Φ⁻¹(share of θ* below θ̂,
 *   ties counted half) and â from the leave-one-cluster-out jackknife, â = Σ U³ / (6 (Σ U²)^{3/2}),
 *   U_i = θ̄₍.₎ − θ̂₍ᵢ₎ — as scipy.stats.bootstrap's `BCa` (scipy 1.10 `_bca_interval`) applied to clusters.
 * - `expanded-percentile` — the percentile interval at expanded probabilities (Hesterberg 2015, §4.5; R package
 *   resample 0.6 `ExpandProbs`): z′ = √(m/(m − 1))·t_{m−1}(p) for each tail probability p, then Φ(z′), so that for a
 *   mean the interval matches the t interval with the m − 1 divisor. The small-sample correction over clusters.
 * - `expanded-bca` — BCa at the expanded probabilities (z replaced by z′; resample's `CI.bca(expand = TRUE)`).
 */
export type IntervalMethod = 'percentile' | 'bca' | 'expanded-percentile' | 'expanded-bca';
export const INTERVAL_METHODS: readonly IntervalMethod[] = ['percentile', 'bca', 'expanded-percentile', 'expanded-bca'];

/** Φ(z), the standard normal distribution function. */
export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** Φ⁻¹(p) for p in (0, 1); ±Infinity at 0 and 1 (as scipy's `ndtri`). */
export function normalQuantile(p: number): number {
  if (p <= 0) return -Infinity;
  if (p >= 1) return Infinity;
  return -normalUpperQuantile(p);
}

/**
 * The p-quantile of Student's t with `df` degrees of freedom (df > 0), by bisection on the distribution function
 * to 1e-13 (used for expanding interval probabilities, not for printed p-values).
 *
 * @throws RangeError for p outside (0, 1) or df ≤ 0
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`t quantile: p must be in (0, 1) (got ${p})`);
  if (!(df > 0)) throw new RangeError(`t quantile: df must be positive (got ${df})`);
  if (p === 0.5) return 0;
  let lo = -1;
  let hi = 1;
  while (tCdf(lo, df) > p) lo *= 2;
  while (tCdf(hi, df) < p) hi *= 2;
  for (let i = 0; i < 200 && hi - lo > 1e-13 * Math.max(1, Math.abs(lo)); i++) {
    const mid = (lo + hi) / 2;
    if (tCdf(mid, df) < p) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * Hesterberg's expanded probability of a tail probability p with m independent units (clusters): Φ(√(m/(m − 1))·
 * t_{m−1}(p)) (R package resample 0.6, `ExpandProbs`). Returns p unchanged when m < 2 (no expansion defined).
 */
export function expandedProbability(p: number, m: number): number {
  if (!(m >= 2) || p <= 0 || p >= 1) return p;
  return normalCdf(Math.sqrt(m / (m - 1)) * studentTQuantile(p, m - 1));
}

/** What {@link bootstrapInterval} needs besides the resample statistics. */
export interface IntervalOptions {
  /** Confidence level in (0, 1); default 0.95. */
  level?: number;
  /** Default {@link DEFAULT_INTERVAL}. */
  method?: IntervalMethod;
  /** θ̂ on the original data (BCa's bias correction); null when undefined. */
  estimate?: number | null;
  /** θ̂ with each cluster left out in turn (BCa's acceleration); null where undefined (left out). */
  jackknife?: readonly (number | null)[];
  /** m: the clusters (independent units) resampled, for the expansion. */
  clusters?: number;
  /** What the interval is of, to look up the coverage the study measured at this many clusters ({@link coverageShortfall}). */
  family?: CoverageFamily;
}

/** The BCa constants: bias correction ẑ₀ and acceleration â, or null when they cannot be computed. */
export function bcaConstants(sorted: readonly number[], estimate: number, jackknife: readonly (number | null)[]): { z0: number; acceleration: number } | null {
  let below = 0;
  let atOrBelow = 0;
  for (const s of sorted) {
    if (s < estimate) below++;
    if (s <= estimate) atOrBelow++;
  }
  const z0 = normalQuantile((below + atOrBelow) / (2 * sorted.length));
  if (!Number.isFinite(z0)) return null;
  const jk = jackknife.filter((v): v is number => v !== null && Number.isFinite(v));
  if (jk.length < 2) return null;
  const mean = jk.reduce((s, v) => s + v, 0) / jk.length;
  let num = 0;
  let den = 0;
  for (const v of jk) {
    const u = mean - v;
    num += u * u * u;
    den += u * u;
  }
  return { z0, acceleration: den === 0 ? 0 : num / (6 * den ** 1.5) };
}

/**
 * A bootstrap interval of the defined resample statistics by `method` (see {@link IntervalMethod}); undefined
 * statistics (null) are counted and left out. BCa needs the estimate and a jackknife; when either is missing, or
 * every resample lies on one side of the estimate (ẑ₀ infinite), it falls back to the percentile interval at the same
 * (expanded or plain) probabilities and says so in `fallback`. The expansion needs m ≥ 2 clusters; with fewer the
 * probabilities are not expanded.
 *
 * @throws RangeError on a level outside (0, 1)
 */
export function bootstrapInterval(stats: readonly (number | null)[], options: IntervalOptions = {}): BootstrapInterval {
  const out = readInterval(stats, options);
  const shortfall = options.family && options.clusters !== undefined && out.lower !== null ? coverageShortfall(options.family, out.method ?? 'percentile', options.clusters, out.level) : null;
  return shortfall ? { ...out, shortfall } : out;
}

function readInterval(stats: readonly (number | null)[], options: IntervalOptions): BootstrapInterval {
  const level = options.level ?? 0.95;
  if (!(level > 0 && level < 1)) throw new RangeError(`bootstrap level must be in (0, 1) (got ${level})`);
  const method = options.method ?? DEFAULT_INTERVAL;
  if (method === 'percentile') return { ...percentileInterval(stats, level), method, ...(options.clusters !== undefined ? { clusters: options.clusters } : {}) };
  const defined = stats.filter((s): s is number => s !== null).sort((a, b) => a - b);
  const base: BootstrapInterval = { lower: null, upper: null, level, resamples: stats.length, undefinedResamples: stats.length - defined.length, method, ...(options.clusters !== undefined ? { clusters: options.clusters } : {}) };
  if (defined.length < 2) return base;
  const alpha = 1 - level;
  const expand = method === 'expanded-percentile' || method === 'expanded-bca';
  const m = options.clusters ?? 0;
  let pLo = expand ? expandedProbability(alpha / 2, m) : alpha / 2;
  let pHi = expand ? 1 - expandedProbability(alpha / 2, m) : 1 - alpha / 2;
  if (method === 'bca' || method === 'expanded-bca') {
    const c = options.estimate === null || options.estimate === undefined || !options.jackknife ? null : bcaConstants(defined, options.estimate, options.jackknife);
    if (c === null) base.fallback = 'bca-undefined';
    else {
      const adjust = (p: number) => {
        const z = normalQuantile(p);
        const num = c.z0 + z;
        return normalCdf(c.z0 + num / (1 - c.acceleration * num));
      };
      pLo = adjust(pLo);
      pHi = adjust(pHi);
    }
  }
  return { ...base, lower: percentileSorted(defined, 100 * pLo), upper: percentileSorted(defined, 100 * pHi) };
}

/**
 * The interval every bootstrap of ReflectEval computes unless told otherwise (`--interval` on the CLI): the expanded
 * BCa interval. Chosen by the coverage study (docs/meta-evaluation.md#coverage, `npm run coverage`): with 15 dialogue
 * contexts the percentile interval covered 89–93 % at nominal 95 % (correlations, their differences, kappa, alpha,
 * AC1), BCa no better; the expansion over clusters brought them to 93–96 %, and BCa's skewness correction kept the
 * agreement coefficients of unbalanced labels closest to 95 %. Before issue 40 the default was `percentile`, still
 * available as an option.
 */
export const DEFAULT_INTERVAL: IntervalMethod = 'expanded-bca';

/**
 * The two-sided bootstrap p-value of H0: θ = 0 calibrated like the expanded intervals (Hesterberg 2015): with
 * s = (1 + min(#{θ*_b ≤ 0}, #{θ*_b ≥ 0}))/(B′ + 1) (Davison & Hinkley 1997, eq. 4.11) and m clusters,
 * p = min(1, 2·T_{m−1}(Φ⁻¹(s)·√((m − 1)/m))) — the inverse of {@link expandedProbability}, so p < α exactly when
 * the expanded percentile interval at level 1 − α lies on one side of 0 (up to the +1 correction and the
 * percentiles' interpolation). With fewer than 2 clusters it is {@link bootstrapPValue}. Null when no resample is
 * defined.
 */
export function expandedBootstrapPValue(stats: readonly (number | null)[], clusters: number): number | null {
  if (!(clusters >= 2)) return bootstrapPValue(stats);
  let below = 0;
  let above = 0;
  let defined = 0;
  for (const s of stats) {
    if (s === null) continue;
    defined++;
    if (s <= 0) below++;
    if (s >= 0) above++;
  }
  if (defined === 0) return null;
  const tail = (1 + Math.min(below, above)) / (defined + 1);
  if (tail >= 0.5) return 1;
  return Math.min(1, 2 * tCdf(normalQuantile(tail) * Math.sqrt((clusters - 1) / clusters), clusters - 1));
}
