/**
 * Krippendorff's alpha (Krippendorff 1970; 2004, §11.3–11.4; 2011, "Computing Krippendorff's alpha-reliability"):
 * chance-corrected agreement of any number of coders, with missing values, for nominal, ordinal, interval and
 * ratio data. Computed from the coincidence matrix as the reference implementation does (the `krippendorff`
 * Python package, public repository pln-fing-udelar/fast-krippendorff, run as the parity reference by
 * scripts/parity/meta_evaluation_reference.py; never a dependency).
 */
import { bootstrapStatistic, pick, type CoefficientBootstrap } from '../stats/clusterBootstrap';
import type { BootstrapInterval } from '../stats/bootstrap';
import { checkRectangular, observedValues, valueCounts, type RatingValue, type ReliabilityData } from './reliabilityData';

/** Stevens' level of measurement, which picks the difference function δ². */
export type MeasurementLevel = 'nominal' | 'ordinal' | 'interval' | 'ratio';

/** Krippendorff's alpha and what it is made of. */
export interface KrippendorffAlphaResult {
  /** α = 1 − D_o / D_e in (−∞, 1] (1: perfect agreement; 0: chance), or null when undefined. */
  alpha: number | null;
  /**
   * Why α is undefined: fewer than two values in the domain; no unit with two or more values (nothing pairable);
   * or no expected disagreement (every pairable value is the same).
   */
  undefinedReason?: 'one value' | 'no pairable unit' | 'no expected disagreement';
  level: MeasurementLevel;
  /** Units with at least two values (the pairable units). */
  pairableUnits: number;
  /** n: pairable values (Σ over pairable units of their number of values). */
  pairableValues: number;
  /** The value domain (ascending unless given). */
  values: RatingValue[];
  /** D_o = Σ_ck o_ck δ²_ck / n. */
  observedDisagreement: number;
  /** D_e = Σ_ck n_c n_k δ²_ck / (n (n − 1)). */
  expectedDisagreement: number;
  /** Percentile bootstrap interval over units (or clusters), when asked for. */
  ci?: BootstrapInterval;
}

/** Options of {@link krippendorffAlpha}. */
export interface KrippendorffAlphaOptions {
  /** Default `nominal`. */
  level?: MeasurementLevel;
  /**
   * The value domain, ordered for ordinal data. Default: the observed values, ascending. For ordinal data an unused
   * value in the domain does not change α (its n_g is 0); strings need a domain unless nominal.
   */
  values?: readonly RatingValue[];
  /** A percentile bootstrap interval over units (or the given clusters of units). */
  bootstrap?: CoefficientBootstrap;
}

/**
 * Krippendorff's alpha of a units × values count table (`valueCounts` of reliability data) with the domain `values`
 * (numbers for interval/ratio): what {@link krippendorffAlpha} computes, and what its bootstrap recomputes on every
 * resample of the table's rows.
 */
export function alphaOfCounts(counts: readonly (readonly number[])[], values: readonly RatingValue[], level: MeasurementLevel): Omit<KrippendorffAlphaResult, 'level' | 'values' | 'ci'> {
  const V = values.length;
  // Coincidences o_ck = Σ_u (n_uc n_uk − [c = k] n_uc) / (m_u − 1), over units with m_u ≥ 2.
  const o = Array.from({ length: V }, () => new Array<number>(V).fill(0));
  let pairableUnits = 0;
  for (const row of counts) {
    let m = 0;
    for (const c of row) m += c;
    if (m < 2) continue;
    pairableUnits++;
    for (let c = 0; c < V; c++) {
      if (row[c] === 0) continue;
      for (let k = 0; k < V; k++) o[c][k] += (row[c] * row[k] - (c === k ? row[c] : 0)) / (m - 1);
    }
  }
  const nv = o.map((r) => r.reduce((s, x) => s + x, 0));
  const n = nv.reduce((s, x) => s + x, 0);
  const none = { pairableUnits, pairableValues: n, observedDisagreement: NaN, expectedDisagreement: NaN };
  if (V < 2) return { ...none, alpha: null, undefinedReason: 'one value' };
  if (pairableUnits === 0) return { ...none, alpha: null, undefinedReason: 'no pairable unit' };
  const num = values.map((v) => Number(v));
  // Cumulative n for the ordinal metric: Σ_{g=c}^{k} n_g.
  const cum = [0];
  for (const x of nv) cum.push(cum[cum.length - 1] + x);
  const delta = (c: number, k: number): number => {
    if (c === k) return 0;
    switch (level) {
      case 'nominal':
        return 1;
      case 'ordinal': {
        const lo = Math.min(c, k);
        const hi = Math.max(c, k);
        return (cum[hi + 1] - cum[lo] - (nv[lo] + nv[hi]) / 2) ** 2;
      }
      case 'interval':
        return (num[c] - num[k]) ** 2;
      case 'ratio': {
        const s = num[c] + num[k];
        return s === 0 ? 0 : ((num[c] - num[k]) / s) ** 2;
      }
    }
  };
  let od = 0;
  let ed = 0;
  for (let c = 0; c < V; c++) {
    for (let k = 0; k < V; k++) {
      const d = delta(c, k);
      if (d === 0) continue;
      od += o[c][k] * d;
      ed += (nv[c] * nv[k] - (c === k ? nv[c] : 0)) * d;
    }
  }
  const observedDisagreement = od / n;
  const expectedDisagreement = ed / (n * (n - 1));
  if (ed === 0) return { pairableUnits, pairableValues: n, observedDisagreement, expectedDisagreement, alpha: null, undefinedReason: 'no expected disagreement' };
  // α = 1 − (n − 1) Σ o δ / Σ n_c n_k δ, the reference's 1 − Σ o·d / Σ e·d with e = (n_c n_k − [c = k] n_c)/(n − 1).
  return { pairableUnits, pairableValues: n, observedDisagreement, expectedDisagreement, alpha: 1 - od / (ed / (n - 1)) };
}

/**
 * Krippendorff's alpha of reliability data (units × coders, null for a missing value). Units with fewer than two
 * values take no part (they are not pairable). Nominal: δ² = [c ≠ k]; ordinal: δ²_ck = (Σ_{g=c}^{k} n_g −
 * (n_c + n_k)/2)²; interval: (c − k)²; ratio: ((c − k)/(c + k))² (Krippendorff 2011, §"Difference functions").
 *
 * @throws RangeError when rows differ in length, a value is outside `values`, or interval/ratio values are not numbers
 */
export function krippendorffAlpha<T extends RatingValue>(data: ReliabilityData<T>, options: KrippendorffAlphaOptions = {}): KrippendorffAlphaResult {
  const level = options.level ?? 'nominal';
  checkRectangular(data);
  const values = options.values ? [...options.values] : observedValues(data);
  if (level !== 'nominal') {
    if (!options.values && values.some((v) => typeof v === 'string')) throw new RangeError(`${level} alpha of text values needs an ordered value domain (options.values)`);
    if ((level === 'interval' || level === 'ratio') && values.some((v) => typeof v !== 'number' && typeof v !== 'boolean')) {
      throw new RangeError(`${level} alpha needs numeric values, got ${JSON.stringify(values.find((v) => typeof v === 'string'))}`);
    }
  }
  const counts = valueCounts(data, values as T[]);
  const result: KrippendorffAlphaResult = { level, values, ...alphaOfCounts(counts, values, level) };
  if (options.bootstrap) {
    result.ci = bootstrapStatistic(data.length, (idx) => alphaOfCounts(pick(counts, idx), values, level).alpha, { family: 'agreement', ...options.bootstrap });
  }
  return result;
}
