/**
 * Correlation coefficients with two-sided p-values, computed as scipy.stats 1.10 computes them.
 */
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import { rankAverage } from './rank';

/** A correlation and its p-value; `statistic` and `pValue` are null when the correlation is undefined. */
export interface CorrelationResult {
  method: 'spearman' | 'pearson';
  /** Number of (x, y) pairs. */
  n: number;
  /** In [-1, 1], or null when undefined. */
  statistic: number | null;
  /** Two-sided p-value in [0, 1], or null when undefined. */
  pValue: number | null;
  /** Why the correlation is undefined: fewer than 3 pairs, or a column with no variation (scipy returns nan). */
  undefinedReason?: 'too-few' | 'constant-input';
}

function check(x: readonly number[], y: readonly number[]): void {
  if (x.length !== y.length) throw new RangeError(`x and y must have the same length (got ${x.length} and ${y.length})`);
  for (let i = 0; i < x.length; i++) {
    if (!Number.isFinite(x[i])) throw new RangeError(`x[${i}] is not a finite number: ${x[i]}`);
    if (!Number.isFinite(y[i])) throw new RangeError(`y[${i}] is not a finite number: ${y[i]}`);
  }
}

/** Pearson's r of two equal-length columns, or null when either has zero variance; clipped to [-1, 1]. */
function pearsonStatistic(x: readonly number[], y: readonly number[]): number | null {
  const n = x.length;
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i];
    my += y[i];
  }
  mx /= n;
  my /= n;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    const dx = x[i] - mx;
    const dy = y[i] - my;
    sxy += dx * dy;
    sxx += dx * dx;
    syy += dy * dy;
  }
  if (sxx === 0 || syy === 0) return null;
  return Math.max(-1, Math.min(1, sxy / Math.sqrt(sxx * syy)));
}

/**
 * Two-sided p-value of a correlation r over n pairs from Student's t with n − 2 degrees of freedom:
 * t = r·sqrt((n − 2) / ((1 + r)(1 − r))), p = 2·T_{n−2}(−|t|); |r| = 1 gives p = 0.
 * This is scipy 1.10's `spearmanr` (`_ttest_finish` with `special.stdtr`), and equals its `pearsonr`
 * p-value (computed there from a Beta(n/2 − 1, n/2 − 1) distribution on [−1, 1], the same distribution).
 */
export function correlationPValue(r: number, n: number): number {
  const dof = n - 2;
  if (Math.abs(r) >= 1) return 0;
  const t = r * Math.sqrt(Math.max(0, dof / ((r + 1) * (1 - r))));
  return Math.min(1, 2 * tCdf(-Math.abs(t), dof));
}

function result(method: CorrelationResult['method'], x: readonly number[], y: readonly number[]): CorrelationResult {
  check(x, y);
  const n = x.length;
  if (n < 3) return { method, n, statistic: null, pValue: null, undefinedReason: 'too-few' };
  const r = method === 'spearman' ? pearsonStatistic(rankAverage(x), rankAverage(y)) : pearsonStatistic(x, y);
  if (r === null) return { method, n, statistic: null, pValue: null, undefinedReason: 'constant-input' };
  return { method, n, statistic: r, pValue: correlationPValue(r, n) };
}

/**
 * Spearman's rank correlation rho (Spearman 1904): Pearson's r of the average ranks, with the two-sided
 * p-value of scipy.stats.spearmanr (scipy 1.10): Student's t with n − 2 degrees of freedom.
 *
 * @param x - n finite numbers
 * @param y - n finite numbers, paired with x
 * @returns statistic in [-1, 1]; undefined (null, with a reason) when n < 3 or a column is constant
 * @throws RangeError on different lengths or a non-finite value (naming the index)
 */
export function spearmanRho(x: readonly number[], y: readonly number[]): CorrelationResult {
  return result('spearman', x, y);
}

/**
 * Pearson's product-moment correlation r with the two-sided p-value of scipy.stats.pearsonr (scipy 1.10).
 *
 * @param x - n finite numbers
 * @param y - n finite numbers, paired with x
 * @returns statistic in [-1, 1]; undefined (null, with a reason) when n < 3 or a column is constant
 * @throws RangeError on different lengths or a non-finite value (naming the index)
 */
export function pearsonR(x: readonly number[], y: readonly number[]): CorrelationResult {
  return result('pearson', x, y);
}
