/**
 * Gwet's AC1 (Gwet 2008, "Computing inter-rater reliability and its variance in the presence of high agreement",
 * British Journal of Mathematical and Statistical Psychology 61:29–48, the several-raters form; Gwet 2014,
 * Handbook of Inter-Rater Reliability, 4th ed., §4.2 with missing ratings): a chance-corrected agreement whose
 * chance term stays small when one category dominates, where kappa-type coefficients collapse ("the kappa
 * paradoxes", Feinstein & Cicchetti 1990). Parity reference: Gwet's own R package irrCAC (`gwet.ac1.raw`, public
 * repository kgwet/irrCAC), run by scripts/parity/psych_reference.R, and the formula written out independently in
 * scripts/parity/meta_evaluation_reference.py.
 */
import { bootstrapStatistic, pick, type CoefficientBootstrap } from '../stats/clusterBootstrap';
import type { BootstrapInterval } from '../stats/bootstrap';
import { checkRectangular, observedValues, valueCounts, type RatingValue, type ReliabilityData } from './reliabilityData';

/** Gwet's AC1 and what it is made of. */
export interface GwetAC1Result {
  /** AC1 = (p_a − p_e) / (1 − p_e), in [−1, 1]; null when undefined (no unit with two ratings). */
  ac1: number | null;
  undefinedReason?: 'no unit with two ratings' | string;
  /** Units with at least one rating (n, the units π_k averages over). */
  units: number;
  /** Units with at least two ratings (n', the units p_a averages over). */
  pairableUnits: number;
  /** q: number of categories. */
  categories: RatingValue[];
  /** p_a = (1/n') Σ_{i: r_i ≥ 2} Σ_k r_ik (r_ik − 1) / (r_i (r_i − 1)). */
  observedAgreement: number;
  /** p_e = (1/(q − 1)) Σ_k π_k (1 − π_k), π_k = (1/n) Σ_i r_ik / r_i; 0 when q = 1 (AC1 is then p_a). */
  expectedAgreement: number;
  /** π_k per category. */
  classificationProbabilities: number[];
  ci?: BootstrapInterval;
}

/** Options of {@link gwetAC1}. */
export interface GwetAC1Options {
  /**
   * The categories (q). Default: the observed values. AC1 depends on q, so give the scheme's categories (e.g.
   * coherent/incoherent) when one may go unused in a subset.
   */
  categories?: readonly RatingValue[];
  bootstrap?: CoefficientBootstrap;
}

/**
 * Gwet's AC1 of a units × categories count table (`valueCounts` of reliability data) over q categories: what
 * {@link gwetAC1} computes, and what its bootstrap recomputes on every resample of the table's rows.
 */
export function ac1OfCounts(counts: readonly (readonly number[])[], q: number): Omit<GwetAC1Result, 'categories' | 'ci'> {
  let units = 0;
  let pairable = 0;
  let pa = 0;
  const pi = new Array<number>(q).fill(0);
  for (const row of counts) {
    let r = 0;
    for (const c of row) r += c;
    if (r === 0) continue;
    units++;
    for (let k = 0; k < q; k++) pi[k] += row[k] / r;
    if (r < 2) continue;
    pairable++;
    let s = 0;
    for (const c of row) s += c * (c - 1);
    pa += s / (r * (r - 1));
  }
  if (pairable === 0) {
    return { ac1: null, undefinedReason: 'no unit with two ratings', units, pairableUnits: 0, observedAgreement: NaN, expectedAgreement: NaN, classificationProbabilities: pi.map((p) => (units ? p / units : NaN)) };
  }
  pa /= pairable;
  const piK = pi.map((p) => p / units);
  // irrCAC sets p_e = 1e-15 for q = 1 (AC1 ≈ p_a); with q = 1 every rating agrees, so p_a = 1 and AC1 = 1 either way.
  const pe = q >= 2 ? piK.reduce((s, p) => s + p * (1 - p), 0) / (q - 1) : 0;
  return { ac1: (pa - pe) / (1 - pe), units, pairableUnits: pairable, observedAgreement: pa, expectedAgreement: pe, classificationProbabilities: piK };
}

/**
 * Gwet's AC1 of reliability data (units × raters, null for a missing rating), unweighted. A unit with one rating
 * counts towards the category shares π_k but not towards p_a, as in Gwet (2014) and irrCAC.
 *
 * @throws RangeError when rows differ in length or a value is outside `categories`
 */
export function gwetAC1<T extends RatingValue>(data: ReliabilityData<T>, options: GwetAC1Options = {}): GwetAC1Result {
  checkRectangular(data);
  const categories = options.categories ? [...options.categories] : observedValues(data);
  const counts = valueCounts(data, categories as T[]);
  const result: GwetAC1Result = { categories, ...ac1OfCounts(counts, categories.length) };
  if (options.bootstrap) result.ci = bootstrapStatistic(data.length, (idx) => ac1OfCounts(pick(counts, idx), categories.length).ac1, { family: 'agreement', ...options.bootstrap });
  return result;
}
