/**
 * Fleiss' kappa: chance-corrected agreement of several raters on a nominal scale.
 *
 * Source: Joseph L. Fleiss (1971), "Measuring nominal scale agreement among many raters", Psychological
 * Bulletin 76(5):378–382. The first study (Wu et al., GEM 2022, §5.1) uses it because it does not require the
 * *set* of raters to be the same for every subject; it does require the same *number* of ratings per subject.
 * The arithmetic follows the paper and statsmodels 0.13.5 `statsmodels.stats.inter_rater.fleiss_kappa`
 * (`method="fleiss"`), which the tests compare against.
 */

/** Fleiss' kappa and the quantities it is made of. */
export interface FleissKappaResult {
  /**
   * κ = (P̄ − P̄e) / (1 − P̄e), in [−1/(n−1), 1]; `null` when undefined: no subjects, or P̄e = 1 (every rating in
   * one category, so there is no variation for agreement to be measured on; statsmodels returns NaN).
   */
  kappa: number | null;
  /** Why `kappa` is null. */
  undefinedReason?: 'no subjects' | 'every rating is in one category';
  /** N: number of subjects. */
  subjects: number;
  /** n: ratings per subject. */
  raters: number;
  /** k: number of categories (columns of the count table). */
  categories: number;
  /** P̄: mean over subjects of the proportion of agreeing rater pairs, in [0, 1]. */
  observedAgreement: number;
  /** P̄e = Σ_j p_j²: agreement expected by chance, in [1/k, 1]. */
  expectedAgreement: number;
  /** p_j: share of all ratings in category j (sums to 1). */
  categoryProportions: number[];
  /**
   * κ_j = 1 − Σ_i n_ij (n − n_ij) / (N n (n − 1) p_j q_j), the agreement on category j against all others
   * (Fleiss 1971); `null` for a category with p_j = 0 or 1.
   */
  perCategory: (number | null)[];
}

/**
 * Fleiss' kappa of a subjects × categories count table: `counts[i][j]` is the number of raters who put subject
 * i in category j (Fleiss 1971, Table 1 layout).
 *
 * Every subject must have the same number n ≥ 2 of ratings (Fleiss' model: n ratings per subject, by raters
 * who may differ between subjects). Subjects with a different number of ratings are *not* silently dropped or
 * reweighted: the caller decides (see `agreementTable`, which keeps the subjects with the expected number of
 * ratings and reports the others).
 *
 * @param counts - N rows of k non-negative integers, each row summing to the same n ≥ 2
 * @throws RangeError if rows differ in length or rating count, a count is not a non-negative integer, or n < 2
 */
export function fleissKappa(counts: readonly (readonly number[])[]): FleissKappaResult {
  const N = counts.length;
  const k = N > 0 ? counts[0].length : 0;
  if (N === 0) {
    return { kappa: null, undefinedReason: 'no subjects', subjects: 0, raters: 0, categories: k, observedAgreement: NaN, expectedAgreement: NaN, categoryProportions: [], perCategory: [] };
  }
  let n = -1;
  counts.forEach((row, i) => {
    if (row.length !== k) throw new RangeError(`subject ${i} has ${row.length} categories, subject 0 has ${k}`);
    let sum = 0;
    for (const c of row) {
      if (!Number.isInteger(c) || c < 0) throw new RangeError(`subject ${i}: counts must be non-negative integers, got ${c}`);
      sum += c;
    }
    if (n === -1) n = sum;
    else if (sum !== n) {
      throw new RangeError(`subject ${i} has ${sum} ratings, subject 0 has ${n}: Fleiss' kappa needs the same number of ratings for every subject`);
    }
  });
  if (n < 2) throw new RangeError(`Fleiss' kappa needs at least 2 ratings per subject, got ${n}`);

  const totals = new Array<number>(k).fill(0);
  let sumP = 0;
  for (const row of counts) {
    let sq = 0;
    row.forEach((c, j) => {
      totals[j] += c;
      sq += c * c;
    });
    sumP += (sq - n) / (n * (n - 1));
  }
  const p = totals.map((t) => t / (N * n));
  const Pbar = sumP / N;
  const Pe = p.reduce((s, pj) => s + pj * pj, 0);
  const perCategory = p.map((pj, j) => {
    const q = 1 - pj;
    if (pj === 0 || q === 0) return null;
    let disagree = 0;
    for (const row of counts) disagree += row[j] * (n - row[j]);
    return 1 - disagree / (N * n * (n - 1) * pj * q);
  });
  const base = { subjects: N, raters: n, categories: k, observedAgreement: Pbar, expectedAgreement: Pe, categoryProportions: p, perCategory };
  if (Pe === 1) return { ...base, kappa: null, undefinedReason: 'every rating is in one category' };
  return { ...base, kappa: (Pbar - Pe) / (1 - Pe) };
}

/**
 * Builds the count table of {@link fleissKappa} from each subject's ratings.
 *
 * @param ratings - one array of category values per subject (any order, any raters)
 * @param categories - the categories, in column order; default: every value seen, sorted
 * @returns the table and its column categories
 * @throws RangeError if a rating is not one of `categories`
 */
export function ratingCounts<C extends string | number>(ratings: readonly (readonly C[])[], categories?: readonly C[]): { categories: C[]; counts: number[][] } {
  const cats = categories ? [...categories] : [...new Set(ratings.flat())].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const index = new Map<C, number>(cats.map((c, j) => [c, j]));
  const counts = ratings.map((subject, i) => {
    const row = new Array<number>(cats.length).fill(0);
    for (const r of subject) {
      const j = index.get(r);
      if (j === undefined) throw new RangeError(`subject ${i}: rating ${JSON.stringify(r)} is not one of the categories ${JSON.stringify(cats)}`);
      row[j]++;
    }
    return row;
  });
  return { categories: cats, counts };
}
