/**
 * Partial correlation of x and y controlling for z (first order), on values (Pearson) or on ranks (Spearman).
 */
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import { rankAverage } from './rank';
import { pearsonStatistic } from './correlation';

/** A first-order partial correlation and its two-sided p-value. */
export interface PartialCorrelationResult {
  method: 'spearman' | 'pearson';
  n: number;
  /** r_xy·z in [−1, 1], or null when undefined (fewer than 4 triples, a constant column, or |r_xz| = 1 or |r_yz| = 1). */
  statistic: number | null;
  /** Two-sided p-value from Student's t with n − 3 degrees of freedom, or null. */
  pValue: number | null;
  /** The zero-order correlations it is made of (null when a column is constant). */
  rxy: number | null;
  rxz: number | null;
  ryz: number | null;
  undefinedReason?: 'too-few' | 'constant-input' | 'collinear';
}

/**
 * r_xy·z = (r_xy − r_xz·r_yz) / √((1 − r_xz²)(1 − r_yz²)) (Fisher 1924, Metron 3:329–332), with the zero-order
 * r's Pearson's on the values (`pearson`) or on average ranks (`spearman`, the partial Spearman correlation). The p-value uses t = r·√((n − 3)/(1 − r²)) with n − 3 degrees of freedom
 * (one covariate), as `pingouin.partial_corr` does; it equals correlating the residuals of x and y regressed on z.
 *
 * @throws RangeError when the columns differ in length or hold a non-finite value
 */
export function partialCorrelation(x: readonly number[], y: readonly number[], z: readonly number[], method: 'spearman' | 'pearson' = 'spearman'): PartialCorrelationResult {
  const n = x.length;
  if (y.length !== n || z.length !== n) throw new RangeError(`x, y and z must have the same length (got ${n}, ${y.length}, ${z.length})`);
  for (const [name, col] of [['x', x], ['y', y], ['z', z]] as const) {
    col.forEach((v, i) => {
      if (!Number.isFinite(v)) throw new RangeError(`${name}[${i}] is not a finite number: ${v}`);
    });
  }
  const base = { method, n, rxy: null, rxz: null, ryz: null };
  if (n < 4) return { ...base, statistic: null, pValue: null, undefinedReason: 'too-few' };
  const [a, b, c] = method === 'spearman' ? [rankAverage(x), rankAverage(y), rankAverage(z)] : [x, y, z];
  const rxy = pearsonStatistic(a, b);
  const rxz = pearsonStatistic(a, c);
  const ryz = pearsonStatistic(b, c);
  const rs = { rxy, rxz, ryz };
  if (rxy === null || rxz === null || ryz === null) return { ...base, ...rs, statistic: null, pValue: null, undefinedReason: 'constant-input' };
  const den = Math.sqrt((1 - rxz * rxz) * (1 - ryz * ryz));
  if (den === 0) return { ...base, ...rs, statistic: null, pValue: null, undefinedReason: 'collinear' };
  const r = Math.max(-1, Math.min(1, (rxy - rxz * ryz) / den));
  const df = n - 3;
  const p = Math.abs(r) >= 1 ? 0 : Math.min(1, 2 * tCdf(-Math.abs(r * Math.sqrt(df / (1 - r * r))), df));
  return { ...base, ...rs, statistic: r, pValue: p };
}
