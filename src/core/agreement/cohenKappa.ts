/**
 * Cohen's kappa for two raters, unweighted (Cohen 1960) or weighted (Cohen 1968) with linear (Cicchetti–Allison)
 * or quadratic (Fleiss–Cohen) disagreement weights, with its large-sample standard error (Fleiss, Cohen & Everitt
 * 1969). The arithmetic follows statsmodels 0.13.5 `statsmodels.stats.inter_rater.cohens_kappa(table, wt=…)`, and
 * the quadratic-weighted value equals R psych 2.2.9 `cohen.kappa`'s weighted kappa; both are the parity references
 * (scripts/parity/meta_evaluation_reference.py, scripts/parity/psych_reference.R).
 */
import type { BootstrapInterval } from '../stats/bootstrap';
import { bootstrapStatistic, pick, type CoefficientBootstrap } from '../stats/clusterBootstrap';
import { compareValues, present, valueKey, type RatingValue } from './reliabilityData';

/** Disagreement weights: none (every disagreement counts 1), |i − j|/(k − 1), or (i − j)²/(k − 1)². */
export type KappaWeights = 'none' | 'linear' | 'quadratic';

/** Cohen's kappa and what it is made of. */
export interface CohenKappaResult {
  /**
   * κ = 1 − Σ w_ij p_ij / Σ w_ij p_i· p_·j (unweighted: w_ij = 1 off the diagonal, which is (p_o − p_e)/(1 − p_e)),
   * in [−1, 1]; null when undefined (no units, or the expected disagreement is 0: both raters used one and the same
   * category throughout; statsmodels gives nan).
   */
  kappa: number | null;
  undefinedReason?: 'no units' | 'no expected disagreement';
  weights: KappaWeights;
  /** Units rated by both raters (others are left out). */
  units: number;
  /** Units with only one of the two ratings, left out. */
  leftOut: number;
  /** The ordered categories (rows/columns of `table`); weights use their positions 0 … k − 1. */
  categories: RatingValue[];
  /** k × k counts: rater A's category in rows, rater B's in columns. */
  table: number[][];
  /** Observed agreement p_o = Σ_i p_ii (unweighted). */
  observedAgreement: number;
  /** Chance agreement p_e = Σ_i p_i· p_·i (unweighted). */
  expectedAgreement: number;
  /**
   * Large-sample standard error of κ (Fleiss, Cohen & Everitt 1969), as statsmodels' `std_kappa`; null with κ.
   */
  standardError: number | null;
  /** Standard error under H0: κ = 0, as statsmodels' `std_kappa0`. */
  standardErrorNull: number | null;
  /** Percentile bootstrap interval over the units rated by both (or their clusters), when asked for. */
  ci?: BootstrapInterval;
}

/** Options of {@link cohenKappa}. */
export interface CohenKappaOptions {
  /** Default `none`. */
  weights?: KappaWeights;
  /**
   * The ordered categories (all possible values). Default: the values either rater used, ascending. Weighted kappa
   * depends on k and on the order, so give the whole scale (e.g. [1, 2, 3, 4, 5]) when a category may go unused.
   */
  categories?: readonly RatingValue[];
  /** A percentile bootstrap interval; `clusters` (if any) has one key per input unit, like `a` and `b`. */
  bootstrap?: CoefficientBootstrap;
}

/**
 * Cohen's kappa between two raters' values on the same units (`a[u]`, `b[u]`; null/undefined = not rated; units
 * missing either rating are left out).
 *
 * @throws RangeError when the lengths differ or a value is not among `categories`
 */
export function cohenKappa(a: readonly (RatingValue | null | undefined)[], b: readonly (RatingValue | null | undefined)[], options: CohenKappaOptions = {}): CohenKappaResult {
  if (a.length !== b.length) throw new RangeError(`the two raters' lists differ in length (${a.length} and ${b.length})`);
  const pairs: [RatingValue, RatingValue][] = [];
  const pairClusters: (string | number)[] = [];
  let leftOut = 0;
  if (options.bootstrap?.clusters && options.bootstrap.clusters.length !== a.length) throw new RangeError(`bootstrap clusters has ${options.bootstrap.clusters.length} entries for ${a.length} units`);
  for (let u = 0; u < a.length; u++) {
    const x = a[u];
    const y = b[u];
    if (present(x) && present(y)) {
      pairs.push([x, y]);
      pairClusters.push(options.bootstrap?.clusters ? options.bootstrap.clusters[u] : u);
    } else if (present(x) || present(y)) leftOut++;
  }
  let categories: RatingValue[];
  if (options.categories) categories = [...options.categories];
  else {
    const seen = new Map<string, RatingValue>();
    for (const [x, y] of pairs) {
      seen.set(valueKey(x), x);
      seen.set(valueKey(y), y);
    }
    categories = [...seen.values()].sort(compareValues);
  }
  const index = new Map(categories.map((c, j) => [valueKey(c), j]));
  const k = categories.length;
  const cells = pairs.map(([x, y]) => {
    const i = index.get(valueKey(x));
    const j = index.get(valueKey(y));
    if (i === undefined || j === undefined) throw new RangeError(`value ${JSON.stringify(i === undefined ? x : y)} is not one of the categories ${JSON.stringify(categories)}`);
    return [i, j] as const;
  });
  const tableOf = (cs: readonly (readonly [number, number])[]) => {
    const table = Array.from({ length: k }, () => new Array<number>(k).fill(0));
    for (const [i, j] of cs) table[i][j]++;
    return table;
  };
  const weights = options.weights ?? 'none';
  const result = cohenKappaFromTable(tableOf(cells), weights, categories, leftOut);
  if (options.bootstrap && cells.length > 0) {
    result.ci = bootstrapStatistic(cells.length, (idx) => cohenKappaFromTable(tableOf(pick(cells, idx)), weights, categories).kappa, { family: 'agreement', ...options.bootstrap, clusters: pairClusters });
  }
  return result;
}

/**
 * Cohen's kappa of a k × k contingency table (rater A in rows, rater B in columns), as statsmodels 0.13.5
 * `cohens_kappa(table)` (weights `none`) or `cohens_kappa(table, wt='linear'|'quadratic')`, which scores the
 * categories 0 … k − 1.
 *
 * @throws RangeError when the table is not square or holds a negative or non-finite count
 */
export function cohenKappaFromTable(table: readonly (readonly number[])[], weights: KappaWeights = 'none', categories?: readonly RatingValue[], leftOut = 0): CohenKappaResult {
  const k = table.length;
  let nobs = 0;
  table.forEach((row, i) => {
    if (row.length !== k) throw new RangeError(`the contingency table must be square: row ${i} has ${row.length} cells, there are ${k} rows`);
    for (const c of row) {
      if (!Number.isFinite(c) || c < 0) throw new RangeError(`row ${i}: counts must be non-negative numbers, got ${c}`);
      nobs += c;
    }
  });
  const cats = categories ? [...categories] : Array.from({ length: k }, (_, i) => i);
  const base = { weights, units: nobs, leftOut, categories: cats, table: table.map((r) => [...r]) };
  if (nobs === 0) {
    return { ...base, kappa: null, undefinedReason: 'no units', observedAgreement: NaN, expectedAgreement: NaN, standardError: null, standardErrorNull: null };
  }
  const p = table.map((r) => r.map((c) => c / nobs));
  const row = table.map((r) => r.reduce((s, c) => s + c, 0) / nobs);
  const col = Array.from({ length: k }, (_, j) => table.reduce((s, r) => s + r[j], 0) / nobs);
  let po = 0;
  let pe = 0;
  for (let i = 0; i < k; i++) {
    po += p[i][i];
    pe += row[i] * col[i];
  }
  const common = { ...base, observedAgreement: po, expectedAgreement: pe };
  if (weights === 'none') {
    if (pe === 1) return { ...common, kappa: null, undefinedReason: 'no expected disagreement', standardError: null, standardErrorNull: null };
    const kappa = (po - pe) / (1 - pe);
    // Fleiss, Cohen & Everitt (1969), as statsmodels' var_kappa and var_kappa0.
    let a = 0;
    let b = 0;
    let c0 = 0;
    for (let i = 0; i < k; i++) {
      a += p[i][i] * (1 - (row[i] + col[i]) * (1 - kappa)) ** 2;
      for (let j = 0; j < k; j++) if (i !== j) b += p[i][j] * (col[i] + row[j]) ** 2;
      c0 += col[i] * row[i] * (col[i] + row[i]);
    }
    const varKappa = (a + (1 - kappa) ** 2 * b - (kappa - pe * (1 - kappa)) ** 2) / (1 - pe) ** 2 / nobs;
    const varKappa0 = (pe + pe * pe - c0) / ((1 - pe) ** 2 * nobs);
    return { ...common, kappa, standardError: Math.sqrt(varKappa), standardErrorNull: Math.sqrt(varKappa0) };
  }
  // Weighted: w_ij from the category scores 0 … k−1, scaled by the range (statsmodels: /(w[-1] − w[0]) or its square).
  const w = (i: number, j: number) => (weights === 'linear' ? Math.abs(i - j) / (k - 1) : (i - j) ** 2 / (k - 1) ** 2);
  if (k < 2) return { ...common, kappa: null, undefinedReason: 'no expected disagreement', standardError: null, standardErrorNull: null };
  let wObs = 0;
  let wExp = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      wObs += w(i, j) * table[i][j];
      wExp += w(i, j) * col[j] * row[i];
    }
  }
  wObs /= nobs;
  if (wExp === 0) return { ...common, kappa: null, undefinedReason: 'no expected disagreement', standardError: null, standardErrorNull: null };
  const kappa = 1 - wObs / wExp;
  // statsmodels' weighted variance, with agreement weights 1 − w (Fleiss, Cohen & Everitt 1969).
  const ag = (i: number, j: number) => 1 - w(i, j);
  const wRow = Array.from({ length: k }, (_, i) => {
    let s = 0;
    for (let j = 0; j < k; j++) s += col[j] * ag(i, j);
    return s;
  });
  const wCol = Array.from({ length: k }, (_, j) => {
    let s = 0;
    for (let i = 0; i < k; i++) s += row[i] * ag(i, j);
    return s;
  });
  let agreeWExp = 0;
  for (let i = 0; i < k; i++) for (let j = 0; j < k; j++) agreeWExp += ag(i, j) * col[j] * row[i];
  let termA = 0;
  let v0 = 0;
  for (let i = 0; i < k; i++) {
    for (let j = 0; j < k; j++) {
      termA += p[i][j] * (ag(i, j) - (wCol[j] + wRow[i]) * (1 - kappa)) ** 2;
      v0 += col[j] * row[i] * (ag(i, j) - (wCol[j] + wRow[i])) ** 2;
    }
  }
  const fac = 1 / ((1 - agreeWExp) ** 2 * nobs);
  const varKappa = (termA - (kappa - agreeWExp * (1 - kappa)) ** 2) * fac;
  const varKappa0 = (v0 - agreeWExp ** 2) * fac;
  return { ...common, kappa, standardError: varKappa >= 0 ? Math.sqrt(varKappa) : null, standardErrorNull: varKappa0 >= 0 ? Math.sqrt(varKappa0) : null };
}
