/**
 * Tests of the difference between two dependent, overlapping correlations r_jk and r_jh measured on the same n
 * cases (one variable j in common, e.g. the expert coherence score j against evaluators k and h), given the
 * correlation r_kh between the two other variables.
 *
 * Sources: Williams (1959), "Regression Analysis", Wiley, ch. 5; Steiger (1980), "Tests for comparing elements
 * of a correlation matrix", Psychological Bulletin 87(2), 245–251. The formulas below are written as in Steiger
 * (1980) and in the documentation of the R package cocor 1.1 (Diedenhofen & Musch 2015, tests `williams1959` and
 * `steiger1980`), which notes the brackets missing around the divisor of Steiger's eq. 10 in print.
 */
import erfc from '@stdlib/math-base-special-erfc';
import tCdf from '@stdlib/stats-base-dists-t-cdf';

/** Result of a dependent-correlation test; `statistic` and `pValue` are null (with a reason) when undefined. */
export interface DependentCorrelationTest {
  test: 'williams1959' | 'steiger1980';
  /** Williams' t, or Steiger's z. */
  statistic: number | null;
  /** Degrees of freedom of Williams' t (n − 3); absent for Steiger's z (standard normal). */
  df?: number;
  /** Two-sided p-value in [0, 1]. */
  pValue: number | null;
  undefinedReason?: 'too-few' | 'perfect-correlation' | 'degenerate';
}

function checkR(name: string, r: number): void {
  if (!Number.isFinite(r) || r < -1 || r > 1) throw new RangeError(`${name} must be a correlation in [-1, 1] (got ${r})`);
}

/** Determinant of the 3 × 3 correlation matrix: |R| = 1 − r_jk² − r_jh² − r_kh² + 2·r_jk·r_jh·r_kh. */
export function correlationDeterminant(rjk: number, rjh: number, rkh: number): number {
  return 1 - rjk * rjk - rjh * rjh - rkh * rkh + 2 * rjk * rjh * rkh;
}

/**
 * Williams' t for H0: ρ_jk = ρ_jh (Williams 1959; Steiger 1980, p. 246, eq. 7 — the "standard Williams' t" of
 * Hittner, May & Silver 2003):
 *
 *   t = (r_jk − r_jh) · sqrt( (n − 1)(1 + r_kh) / ( 2·((n − 1)/(n − 3))·|R| + r̄²·(1 − r_kh)³ ) ),
 *   r̄ = (r_jk + r_jh)/2,  |R| = 1 − r_jk² − r_jh² − r_kh² + 2·r_jk·r_jh·r_kh,
 *
 * referred to Student's t with n − 3 degrees of freedom; two-sided p = 2·T_{n−3}(−|t|).
 *
 * @param rjk - correlation of j (the human score) with k (evaluator A), in [-1, 1]
 * @param rjh - correlation of j with h (evaluator B), in [-1, 1]
 * @param rkh - correlation of k with h, in [-1, 1]
 * @param n - number of cases all three were measured on
 * @returns undefined (null, with a reason) when n ≤ 3 or the denominator is 0 (e.g. r_kh = 1 with r_jk = r_jh)
 * @throws RangeError when a correlation is outside [-1, 1]
 */
export function williamsT(rjk: number, rjh: number, rkh: number, n: number): DependentCorrelationTest {
  checkR('r_jk', rjk);
  checkR('r_jh', rjh);
  checkR('r_kh', rkh);
  if (n <= 3) return { test: 'williams1959', statistic: null, pValue: null, undefinedReason: 'too-few' };
  const df = n - 3;
  const det = Math.max(0, correlationDeterminant(rjk, rjh, rkh));
  const rbar = (rjk + rjh) / 2;
  const denom = 2 * ((n - 1) / (n - 3)) * det + rbar * rbar * (1 - rkh) ** 3;
  if (!(denom > 0)) return { test: 'williams1959', statistic: null, df, pValue: null, undefinedReason: 'degenerate' };
  const t = (rjk - rjh) * Math.sqrt(((n - 1) * (1 + rkh)) / denom);
  return { test: 'williams1959', statistic: t, df, pValue: Math.min(1, 2 * tCdf(-Math.abs(t), df)) };
}

/** Fisher's z = atanh(r) (Fisher 1921). */
function fisherZ(r: number): number {
  return 0.5 * Math.log((1 + r) / (1 - r));
}

/**
 * Steiger's z for H0: ρ_jk = ρ_jh with the pooled correlation (Steiger 1980, p. 247, eq. 14, the covariance
 * term c of eq. 10 evaluated at r̄):
 *
 *   z = (Z_jk − Z_jh) · sqrt(n − 3) / sqrt(2 − 2·c),   Z = atanh(r) (Fisher's z),
 *   c = ( r_kh·(1 − 2r̄²) − ½·r̄²·(1 − 2r̄² − r_kh²) ) / (1 − r̄²)²,   r̄ = (r_jk + r_jh)/2,
 *
 * referred to the standard normal; two-sided p = 2·Φ(−|z|) = erfc(|z|/√2).
 *
 * @returns undefined (null, with a reason) when n ≤ 3, when |r_jk| or |r_jh| is 1 (Fisher's z is infinite), or
 *   when 2 − 2c ≤ 0
 * @throws RangeError when a correlation is outside [-1, 1]
 */
export function steigerZ(rjk: number, rjh: number, rkh: number, n: number): DependentCorrelationTest {
  checkR('r_jk', rjk);
  checkR('r_jh', rjh);
  checkR('r_kh', rkh);
  if (n <= 3) return { test: 'steiger1980', statistic: null, pValue: null, undefinedReason: 'too-few' };
  if (Math.abs(rjk) >= 1 || Math.abs(rjh) >= 1) return { test: 'steiger1980', statistic: null, pValue: null, undefinedReason: 'perfect-correlation' };
  const rbar = (rjk + rjh) / 2;
  const rbar2 = rbar * rbar;
  const c = (rkh * (1 - 2 * rbar2) - 0.5 * rbar2 * (1 - 2 * rbar2 - rkh * rkh)) / ((1 - rbar2) * (1 - rbar2));
  const v = 2 - 2 * c;
  if (!(v > 0)) return { test: 'steiger1980', statistic: null, pValue: null, undefinedReason: 'degenerate' };
  const z = ((fisherZ(rjk) - fisherZ(rjh)) * Math.sqrt(n - 3)) / Math.sqrt(v);
  return { test: 'steiger1980', statistic: z, pValue: Math.min(1, erfc(Math.abs(z) / Math.SQRT2)) };
}
