/**
 * Intraclass correlation coefficients for ratings (Shrout & Fleiss 1979, "Intraclass correlations: uses in
 * assessing rater reliability", Psychological Bulletin 86(2):420–428, Table 1; McGraw & Wong 1996, Psychological
 * Methods 1(1):30–46), from the two-way ANOVA mean squares of an n subjects × k raters table. Parity reference:
 * R psych 2.2.9 `ICC(x, lmer = FALSE)` (scripts/parity/psych_reference.R).
 *
 * Names: ICC(1,1)/ICC(1,k) one-way random (McGraw & Wong ICC(1), ICC(k)); ICC(2,1)/ICC(2,k) two-way random,
 * absolute agreement (McGraw & Wong ICC(A,1), ICC(A,k)); ICC(3,1)/ICC(3,k) two-way mixed, consistency
 * (McGraw & Wong ICC(C,1), ICC(C,k)). The `,1` forms are the reliability of one rater, the `,k` forms of the
 * mean of k raters.
 */
import { bootstrapStatistic, pick, type CoefficientBootstrap } from '../stats/clusterBootstrap';
import type { BootstrapInterval } from '../stats/bootstrap';
import { checkRectangular, present, type ReliabilityData } from './reliabilityData';

/** The six coefficients. */
export type IccForm = 'ICC1' | 'ICC2' | 'ICC3' | 'ICC1k' | 'ICC2k' | 'ICC3k';
export const ICC_FORMS: readonly IccForm[] = ['ICC1', 'ICC2', 'ICC3', 'ICC1k', 'ICC2k', 'ICC3k'];

/** ICCs and the mean squares they are made of. */
export interface IccResult {
  /** n: complete subjects used (rows with every rater's rating). */
  subjects: number;
  /** k: raters (columns). */
  raters: number;
  /** Subjects left out because a rating was missing (the ANOVA needs a complete table). */
  leftOut: number;
  /** Between-subjects mean square MS_R = k Σ_i (x̄_i − x̄)² / (n − 1). */
  msRows: number;
  /** Between-raters mean square MS_C = n Σ_j (x̄_j − x̄)² / (k − 1). */
  msColumns: number;
  /** Residual mean square MS_E = SS_E / ((n − 1)(k − 1)). */
  msError: number;
  /** Within-subjects mean square MS_W = (SS_C + SS_E) / (n (k − 1)) (one-way model). */
  msWithin: number;
  /**
   * ICC(1,1) = (MS_R − MS_W)/(MS_R + (k−1) MS_W); ICC(2,1) = (MS_R − MS_E)/(MS_R + (k−1) MS_E + k (MS_C − MS_E)/n);
   * ICC(3,1) = (MS_R − MS_E)/(MS_R + (k−1) MS_E); ICC(1,k) = (MS_R − MS_W)/MS_R;
   * ICC(2,k) = (MS_R − MS_E)/(MS_R + (MS_C − MS_E)/n); ICC(3,k) = (MS_R − MS_E)/MS_R. Null where the denominator is 0.
   */
  icc: Record<IccForm, number | null>;
  /** F statistics: F1 = MS_R/MS_W (df n − 1, n(k − 1)); F2 = F3 = MS_R/MS_E (df n − 1, (n − 1)(k − 1)). */
  f: { oneWay: number | null; twoWay: number | null };
  /** Why every ICC is null (fewer than 2 complete subjects or raters). */
  undefinedReason?: 'too few subjects' | 'too few raters';
  /** Percentile bootstrap intervals over subjects (or clusters), when asked for. */
  ci?: Partial<Record<IccForm, BootstrapInterval>>;
}

/** Options of {@link icc}. */
export interface IccOptions {
  bootstrap?: CoefficientBootstrap;
  /** Forms to bootstrap (default ICC2 and ICC2k). */
  bootstrapForms?: readonly IccForm[];
}

function iccOfRows(rows: readonly (readonly number[])[]): Omit<IccResult, 'leftOut' | 'ci'> {
  const n = rows.length;
  const k = n ? rows[0].length : 0;
  const nulls = { ICC1: null, ICC2: null, ICC3: null, ICC1k: null, ICC2k: null, ICC3k: null };
  if (k < 2) return { subjects: n, raters: k, msRows: NaN, msColumns: NaN, msError: NaN, msWithin: NaN, icc: nulls, f: { oneWay: null, twoWay: null }, undefinedReason: 'too few raters' };
  if (n < 2) return { subjects: n, raters: k, msRows: NaN, msColumns: NaN, msError: NaN, msWithin: NaN, icc: nulls, f: { oneWay: null, twoWay: null }, undefinedReason: 'too few subjects' };
  let grand = 0;
  const rowMean = rows.map((r) => r.reduce((s, v) => s + v, 0) / k);
  const colMean = new Array<number>(k).fill(0);
  for (const r of rows) r.forEach((v, j) => (colMean[j] += v / n));
  for (const m of rowMean) grand += m / n;
  let ssR = 0;
  let ssC = 0;
  let ssT = 0;
  for (const m of rowMean) ssR += (m - grand) ** 2;
  ssR *= k;
  for (const m of colMean) ssC += (m - grand) ** 2;
  ssC *= n;
  for (const r of rows) for (const v of r) ssT += (v - grand) ** 2;
  const ssE = ssT - ssR - ssC;
  const msR = ssR / (n - 1);
  const msC = ssC / (k - 1);
  const msE = ssE / ((n - 1) * (k - 1));
  const msW = (ssC + ssE) / (n * (k - 1));
  const ratio = (a: number, b: number) => (b === 0 ? null : a / b);
  const icc: Record<IccForm, number | null> = {
    ICC1: ratio(msR - msW, msR + (k - 1) * msW),
    ICC2: ratio(msR - msE, msR + (k - 1) * msE + (k * (msC - msE)) / n),
    ICC3: ratio(msR - msE, msR + (k - 1) * msE),
    ICC1k: ratio(msR - msW, msR),
    ICC2k: ratio(msR - msE, msR + (msC - msE) / n),
    ICC3k: ratio(msR - msE, msR),
  };
  return { subjects: n, raters: k, msRows: msR, msColumns: msC, msError: msE, msWithin: msW, icc, f: { oneWay: ratio(msR, msW), twoWay: ratio(msR, msE) } };
}

/**
 * The six ICCs of a subjects × raters table of numeric ratings. The two-way forms assume the *same* k raters rated
 * every subject (column j is one rater); when each subject had its own raters (as in the papers' annotation, 3 of
 * 9 per response), only the one-way ICC(1,·) is meaningful. Subjects with a missing rating are left out (counted).
 *
 * @throws RangeError when rows differ in length or a present rating is not a finite number
 */
export function icc(data: ReliabilityData<number>, options: IccOptions = {}): IccResult {
  checkRectangular(data);
  const complete: number[][] = [];
  let leftOut = 0;
  data.forEach((row, i) => {
    if (!row.every(present)) {
      leftOut++;
      return;
    }
    row.forEach((v, j) => {
      if (typeof v !== 'number' || !Number.isFinite(v)) throw new RangeError(`subject ${i}, rater ${j}: a rating must be a finite number, got ${JSON.stringify(v)}`);
    });
    complete.push(row as number[]);
  });
  const result: IccResult = { leftOut, ...iccOfRows(complete) };
  if (options.bootstrap && complete.length > 0) {
    const forms = options.bootstrapForms ?? ['ICC2', 'ICC2k'];
    const completeClusters = options.bootstrap.clusters ? data.map((_, i) => options.bootstrap!.clusters![i]).filter((_, i) => data[i].every(present)) : undefined;
    const settings = { ...options.bootstrap, clusters: completeClusters };
    result.ci = {};
    for (const form of forms) result.ci[form] = bootstrapStatistic(complete.length, (idx) => iccOfRows(pick(complete, idx)).icc[form], { ...settings, family: 'icc' });
  }
  return result;
}
