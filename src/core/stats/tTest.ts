/**
 * Student's one-sample t-test (Student 1908), computed as scipy.stats 1.10 `ttest_1samp(a, popmean, alternative)`.
 */
import tCdf from '@stdlib/stats-base-dists-t-cdf';

/** Which side the alternative hypothesis is on. */
export type Alternative = 'less' | 'greater' | 'two-sided';

/** A one-sample t-test. */
export interface TTestResult {
  /** Number of observations n. */
  n: number;
  /** Sample mean. */
  mean: number;
  /** Sample standard deviation (n − 1 in the denominator). */
  sd: number;
  /**
   * t = (mean − μ0) / (sd / √n). ±Infinity when sd = 0 and mean ≠ μ0 (scipy divides and warns); null when sd = 0
   * and mean = μ0, or n < 2 (scipy gives nan).
   */
  statistic: number | null;
  /** Degrees of freedom n − 1. */
  df: number;
  /** p-value for `alternative`, or null where the statistic is null. */
  pValue: number | null;
  alternative: Alternative;
}

/**
 * One-sample t-test of H0: E[x] = μ0 (with `less`: H1 E[x] < μ0, p = T_{n−1}(t); `greater`: p = 1 − T_{n−1}(t);
 * `two-sided`: p = 2·T_{n−1}(−|t|)), as scipy 1.10: t = ±∞ gives p = 0 or 1.
 *
 * @param x - n finite numbers
 * @param popmean - μ0
 * @throws RangeError on a non-finite value
 */
export function oneSampleTTest(x: readonly number[], popmean: number, alternative: Alternative = 'two-sided'): TTestResult {
  const n = x.length;
  let mean = 0;
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(x[i])) throw new RangeError(`x[${i}] is not a finite number: ${x[i]}`);
    mean += x[i];
  }
  mean /= n || 1;
  let ss = 0;
  for (const v of x) ss += (v - mean) * (v - mean);
  const df = n - 1;
  const sd = n > 1 ? Math.sqrt(ss / df) : NaN;
  const base = { n, mean, sd, df, alternative };
  if (n < 2) return { ...base, statistic: null, pValue: null };
  const diff = mean - popmean;
  let t: number;
  if (sd === 0) {
    if (diff === 0) return { ...base, statistic: null, pValue: null };
    t = diff > 0 ? Infinity : -Infinity;
  } else t = diff / (sd / Math.sqrt(n));
  const cdf = (v: number) => (v === Infinity ? 1 : v === -Infinity ? 0 : tCdf(v, df));
  const p = alternative === 'less' ? cdf(t) : alternative === 'greater' ? 1 - cdf(t) : Math.min(1, 2 * cdf(-Math.abs(t)));
  return { ...base, statistic: t, pValue: p };
}
