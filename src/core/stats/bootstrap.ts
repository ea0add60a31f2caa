/**
 * Seeded nonparametric bootstrap over items (Efron & Tibshirani 1993, ch. 6 and 13): resample the m dialogue
 * items with replacement, keep each item's candidates together, recompute the statistic; percentile intervals.
 */
import seedrandom from 'seedrandom';

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
