/**
 * Correlation coefficients with two-sided p-values, computed as scipy.stats 1.10 computes them.
 */
import erfc from '@stdlib/math-base-special-erfc';
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

/**
 * Pearson's r of two equal-length columns (two-pass: means, then centred sums), or null when either has zero
 * variance; clipped to [−1, 1]. The statistic of {@link pearsonR}, of {@link spearmanRho} on ranks, and of the
 * partial correlations' zero-order terms.
 */
export function pearsonStatistic(x: readonly number[], y: readonly number[]): number | null {
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

/** Kendall's tau-b with its two-sided p-value, as scipy.stats.kendalltau (scipy 1.10, variant 'b', method 'auto'). */
export interface KendallResult extends Omit<CorrelationResult, 'method'> {
  method: 'kendall';
  /** How the p-value was computed: `exact` (no ties and n ≤ 33, or at most one discordant/concordant pair) or `asymptotic`. */
  pMethod?: 'exact' | 'asymptotic';
}

/** Tie counts of one ranked column: Σ t(t−1)/2, Σ t(t−1)(t−2), Σ t(t−1)(2t+5) over groups of t equal values. */
function tieStats(values: readonly number[]): [number, number, number] {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let pairs = 0;
  let a = 0;
  let b = 0;
  for (const t of counts.values()) {
    if (t < 2) continue;
    pairs += (t * (t - 1)) / 2;
    a += t * (t - 1) * (t - 2);
    b += t * (t - 1) * (2 * t + 5);
  }
  return [pairs, a, b];
}

/**
 * Exact two-sided p-value of Kendall's tau without ties for n items and c concordant pairs (Kendall, Rank
 * Correlation Methods, 1970), as scipy 1.10's `mstats_basic._kendall_p_exact`.
 */
export function kendallExactP(n: number, concordant: number): number {
  const total = (n * (n - 1)) / 2;
  const c = Math.min(concordant, total - concordant);
  if (n <= 2) return 1;
  if (c === 0) return n < 171 ? Math.min(1, 2 / factorial(n)) : 0;
  if (c === 1) return n < 172 ? Math.min(1, 2 / factorial(n - 1)) : 0;
  if (4 * c === n * (n - 1)) return 1;
  let counts = new Float64Array(c + 1);
  counts[0] = 1;
  counts[1] = 1;
  for (let j = 3; j <= n; j++) {
    const next = new Float64Array(c + 1);
    let run = 0;
    for (let i = 0; i <= c; i++) {
      run += counts[i];
      next[i] = n < 171 ? run : run / j;
    }
    if (j <= c) {
      const prefix = next.slice(0, c + 1 - j);
      for (let i = j; i <= c; i++) next[i] -= prefix[i - j];
    }
    counts = next;
  }
  let sum = 0;
  for (const v of counts) sum += v;
  return Math.min(1, Math.max(0, n < 171 ? (2 * sum) / factorial(n) : sum));
}

function factorial(n: number): number {
  let f = 1;
  for (let i = 2; i <= n; i++) f *= i;
  return f;
}

/**
 * Kendall's tau-b (Kendall 1945) with the two-sided p-value of scipy.stats.kendalltau (scipy 1.10): exact
 * when neither column has ties and n ≤ 33 (or at most one discordant or concordant pair), otherwise the normal
 * approximation with the tie-corrected variance.
 *
 * @returns statistic in [-1, 1]; undefined (null, with a reason) when n < 3 or a column is constant
 * @throws RangeError on different lengths or a non-finite value (naming the index)
 */
export function kendallTauB(x: readonly number[], y: readonly number[]): KendallResult {
  check(x, y);
  const n = x.length;
  if (n < 3) return { method: 'kendall', n, statistic: null, pValue: null, undefinedReason: 'too-few' };
  const total = (n * (n - 1)) / 2;
  // Pair counts in O(n log n) (Knight 1966); all are integers below 2^53, so exactly the O(n²) loop's counts.
  const k = knightCounts(x, y);
  const discordant = k.dis;
  const concordant = total - k.xtie - k.ytie + k.ntie - k.dis;
  const [xTies, x0, x1] = tieStats(x);
  const [yTies, y0, y1] = tieStats(y);
  if (xTies === total || yTies === total) return { method: 'kendall', n, statistic: null, pValue: null, undefinedReason: 'constant-input' };
  const conMinusDis = concordant - discordant;
  const tau = Math.max(-1, Math.min(1, conMinusDis / Math.sqrt(total - xTies) / Math.sqrt(total - yTies)));
  // scipy writes con − dis as tot − xtie − ytie + ntie − 2·dis; the same number.
  if (xTies === 0 && yTies === 0 && (n <= 33 || Math.min(discordant, total - discordant) <= 1)) {
    return { method: 'kendall', n, statistic: tau, pValue: kendallExactP(n, total - discordant), pMethod: 'exact' };
  }
  const m = n * (n - 1);
  const variance = (m * (2 * n + 5) - x1 - y1) / 18 + (2 * xTies * yTies) / m + (x0 * y0) / (9 * m * (n - 2));
  const z = conMinusDis / Math.sqrt(variance);
  return { method: 'kendall', n, statistic: tau, pValue: erfc(Math.abs(z) / Math.SQRT2), pMethod: 'asymptotic' };
}

/**
 * Kendall's tau-b statistic alone in O(n log n) (Knight 1966, "A computer method for calculating Kendall's tau
 * with ungrouped data", JASA 61; the algorithm of scipy 1.10's `kendalltau`): sort by (x, y), count pairs tied in
 * x and in both, count discordant pairs as the inversions of y in that order (merge sort), count ties in y; then
 * tau-b = (tot − xtie − ytie + ntie − 2·dis) / sqrt((tot − xtie)(tot − ytie)). Equal to
 * {@link kendallTauB}'s statistic; used where only the statistic is needed many times (bootstrap).
 *
 * @returns tau-b in [-1, 1], or null when n < 3 or a column is constant
 */
export function kendallTauBStatistic(x: ArrayLike<number>, y: ArrayLike<number>): number | null {
  const n = x.length;
  if (n < 3) return null;
  const { xtie, ytie, ntie, dis } = knightCounts(x, y);
  const tot = (n * (n - 1)) / 2;
  if (xtie === tot || ytie === tot) return null;
  const conMinusDis = tot - xtie - ytie + ntie - 2 * dis;
  return Math.max(-1, Math.min(1, conMinusDis / Math.sqrt(tot - xtie) / Math.sqrt(tot - ytie)));
}

/**
 * Knight's pair counts (Knight 1966): pairs tied in x (`xtie`), in y (`ytie`), in both (`ntie`), and discordant
 * pairs (`dis`) — sort by (x, y), count x and (x, y) ties in runs, count the inversions of y in that order by a
 * bottom-up merge sort, then y ties in the merged order. O(n log n).
 */
function knightCounts(x: ArrayLike<number>, y: ArrayLike<number>): { xtie: number; ytie: number; ntie: number; dis: number } {
  const n = x.length;
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => x[a] - x[b] || y[a] - y[b]);
  let xtie = 0;
  let ntie = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j < n && x[order[j]] === x[order[i]]) j++;
    const t = j - i;
    xtie += (t * (t - 1)) / 2;
    for (let k = i; k < j; ) {
      let l = k;
      while (l < j && y[order[l]] === y[order[k]]) l++;
      ntie += ((l - k) * (l - k - 1)) / 2;
      k = l;
    }
    i = j;
  }
  // Discordant pairs: inversions (strictly greater before smaller) of y in (x, y) order, by merge sort.
  let a = Float64Array.from(order, (i) => y[i]);
  let buf = new Float64Array(n);
  let dis = 0;
  for (let width = 1; width < n; width *= 2) {
    for (let lo = 0; lo < n; lo += 2 * width) {
      const mid = Math.min(lo + width, n);
      const hi = Math.min(lo + 2 * width, n);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        if (a[j] < a[i]) {
          dis += mid - i;
          buf[k++] = a[j++];
        } else buf[k++] = a[i++];
      }
      while (i < mid) buf[k++] = a[i++];
      while (j < hi) buf[k++] = a[j++];
    }
    [a, buf] = [buf, a];
  }
  let ytie = 0;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j < n && a[j] === a[i]) j++;
    ytie += ((j - i) * (j - i - 1)) / 2;
    i = j;
  }
  return { xtie, ytie, ntie, dis };
}

/**
 * Kendall's tau-b of pairs repeated by integer weights, for bootstrap resamples: returns a function of the
 * weights (`weights[i]` copies of pair i, 0 leaves it out) giving exactly {@link kendallTauBStatistic} of the
 * expanded sample — the same integer pair counts, the same formula, so the same double — in O(n log d) per call
 * (d distinct y values) after one O(n log n) sort, instead of building and sorting the resample.
 *
 * Weighted Knight (1966): in (x, y) order, a group of tied values with total weight W holds W(W−1)/2 tied pairs
 * (its copies of one pair included); discordant pairs are, for each pair, its weight times the weight of earlier
 * pairs with a greater y (a Fenwick tree over y's ranks; within one x value y ascends, so only earlier x values
 * count, as in Knight's inversion count).
 *
 * @param x, y equal-length finite columns
 * @returns (weights) => tau-b in [-1, 1], or null when the expanded sample has fewer than 3 pairs or a constant
 *   column; `weights` must have `x.length` non-negative integers
 */
export function kendallTauBWeighted(x: ArrayLike<number>, y: ArrayLike<number>): (weights: ArrayLike<number>) => number | null {
  const n = x.length;
  if (y.length !== n) throw new RangeError(`x and y differ in length (${n} vs ${y.length})`);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => x[a] - x[b] || y[a] - y[b]);
  const yValues = [...new Set(Array.from(y))].sort((a, b) => a - b);
  const yRankOf = new Map(yValues.map((v, r) => [v, r + 1]));
  const d = yValues.length;
  // Per position in (x, y) order: the pair, its y rank (1-based), and whether it starts a new x / (x, y) run.
  const pair = Int32Array.from(order);
  const yRank = Int32Array.from(order, (i) => yRankOf.get(y[i]) as number);
  const newX = new Uint8Array(n);
  const newXY = new Uint8Array(n);
  for (let p = 0; p < n; p++) {
    const i = order[p];
    const prev = p > 0 ? order[p - 1] : -1;
    newX[p] = prev < 0 || x[prev] !== x[i] ? 1 : 0;
    newXY[p] = newX[p] || y[prev] !== y[i] ? 1 : 0;
  }
  const tree = new Float64Array(d + 1);
  const yWeight = new Float64Array(d + 1);
  return (weights) => {
    if (weights.length !== n) throw new RangeError(`expected ${n} weights, got ${weights.length}`);
    tree.fill(0);
    yWeight.fill(0);
    let total = 0;
    let xtie = 0;
    let ntie = 0;
    let dis = 0;
    let wx = 0;
    let wxy = 0;
    for (let p = 0; p < n; p++) {
      if (newX[p]) {
        xtie += (wx * (wx - 1)) / 2;
        wx = 0;
      }
      if (newXY[p]) {
        ntie += (wxy * (wxy - 1)) / 2;
        wxy = 0;
      }
      const w = weights[pair[p]];
      if (w === 0) continue;
      wx += w;
      wxy += w;
      const r = yRank[p];
      yWeight[r] += w;
      let atMost = 0;
      for (let k = r; k > 0; k -= k & -k) atMost += tree[k];
      dis += w * (total - atMost);
      for (let k = r; k <= d; k += k & -k) tree[k] += w;
      total += w;
    }
    xtie += (wx * (wx - 1)) / 2;
    ntie += (wxy * (wxy - 1)) / 2;
    let ytie = 0;
    for (let r = 1; r <= d; r++) ytie += (yWeight[r] * (yWeight[r] - 1)) / 2;
    if (total < 3) return null;
    const tot = (total * (total - 1)) / 2;
    if (xtie === tot || ytie === tot) return null;
    const conMinusDis = tot - xtie - ytie + ntie - 2 * dis;
    return Math.max(-1, Math.min(1, conMinusDis / Math.sqrt(tot - xtie) / Math.sqrt(tot - ytie)));
  };
}
