/**
 * Does evaluator A agree with the humans better than evaluator B on the same responses? The difference between
 * two dependent correlations r(A, H) − r(B, H) that share the human score H, with a paired item bootstrap
 * (interval and two-sided p) and, for Pearson and Spearman, Williams' t and Steiger's z.
 */
import type { DialogueItem } from '../dialogue/types';
import { bootstrapIndices, bootstrapPValue, DEFAULT_INTERVAL, expandedBootstrapPValue, type BootstrapInterval } from '../stats/bootstrap';
import { steigerZ, williamsT, type DependentCorrelationTest } from '../stats/dependentCorrelation';
import { jackknifeTest, type JackknifeTest } from '../stats/clusterBootstrap';
import { cellStatisticOfCounts, correlate, correlationData, intervalOfCounts, tableDimension, type CorrelationData, type CorrelationMethod, type CorrelationTableOptions, type TableDimension } from './correlationTable';
import { displayNames } from '../evaluators/evaluatorNames';

/** Triples of one column for two evaluators, per item: candidates with usable scores from both and a label. */
export interface TriplePairs {
  a: number[][];
  b: number[][];
  h: number[][];
  n: number;
}

/** The comparison of A and B on one column. */
export interface EvaluatorComparison {
  column: string;
  /** The human score's dimension, when it is not the MI preset's coherence count. */
  dimension?: TableDimension;
  method: CorrelationMethod;
  evaluatorA: string;
  evaluatorB: string;
  displayA: string;
  displayB: string;
  /** Candidates scored by both and labelled: the common responses. */
  n: number;
  /** r(A, H), r(B, H), r(A, B) on the common responses (null when undefined). */
  rA: number | null;
  rB: number | null;
  rAB: number | null;
  /** rA − rB, or null when either is undefined. */
  difference: number | null;
  /** Williams' t (Pearson; Spearman on ranks); null for Kendall. */
  williams: DependentCorrelationTest | null;
  /** Steiger's z with pooled r (Pearson; Spearman on ranks); null for Kendall. */
  steiger: DependentCorrelationTest | null;
  /**
   * The cluster-jackknife t-test of rA − rB = 0 over the dialogue items (m − 1 df; every method, Kendall included).
   * Williams' and Steiger's tests treat the responses as independent; with responses clustered in contexts they
   * rejected a true null 7–8 % of the time at 5 % in the coverage study, the jackknife 4–6 %. Null when undefined.
   */
  jackknife: JackknifeTest | null;
  /**
   * Paired item bootstrap of the difference: interval (by the bootstrap's interval method) and two-sided p (calibrated
   * like the interval: `expandedBootstrapPValue` for the expanded methods, else `bootstrapPValue`); when asked for.
   */
  bootstrap?: BootstrapInterval & { pValue: number | null };
}

/** The common (A, B, H) triples of a column, per item. */
export function triplePairs(data: CorrelationData, a: string, b: string, column: string): TriplePairs {
  const m = data.itemIds.length;
  const out: TriplePairs = { a: Array.from({ length: m }, () => []), b: Array.from({ length: m }, () => []), h: Array.from({ length: m }, () => []), n: 0 };
  for (const o of data.observations) {
    if (!o.groups.includes(column)) continue;
    const va = o.scores.get(a);
    const vb = o.scores.get(b);
    if (va == null || vb == null || o.human === null) continue;
    out.a[o.item].push(va);
    out.b[o.item].push(vb);
    out.h[o.item].push(o.human);
    out.n++;
  }
  return out;
}

function flatten(t: TriplePairs, indices: ArrayLike<number>): { a: number[]; b: number[]; h: number[] } {
  const a: number[] = [];
  const b: number[] = [];
  const h: number[] = [];
  for (let i = 0; i < indices.length; i++) {
    const k = indices[i];
    for (let j = 0; j < t.a[k].length; j++) {
      a.push(t.a[k][j]);
      b.push(t.b[k][j]);
      h.push(t.h[k][j]);
    }
  }
  return { a, b, h };
}

/**
 * Compares evaluators A and B against the human score on every column of the table `options` describe.
 *
 * On each column's common responses (usable scores from both, a label from the chosen annotators):
 * rA = r(A, H), rB = r(B, H), rAB = r(A, B) by `options.method`; difference = rA − rB; Williams' t and Steiger's
 * z ({@link williamsT}, {@link steigerZ}) with j = H, k = A, h = B — for Spearman on the average ranks (the three
 * Spearman correlations are Pearson correlations of ranks), not computed for Kendall; and, with
 * `options.bootstrap`, the paired item bootstrap: the same resamples as the table's cells, rA* − rB* on each,
 * percentile interval and two-sided p ({@link bootstrapPValue}); resamples where either is undefined are counted
 * and left out.
 *
 * @throws Error when A or B is not an evaluator of the file
 */
export function compareEvaluators(items: readonly DialogueItem[], evaluatorA: string, evaluatorB: string, options: CorrelationTableOptions = {}): EvaluatorComparison[] {
  const method = options.method ?? 'spearman';
  const data = correlationData(items, { ...options, evaluators: undefined });
  for (const id of [evaluatorA, evaluatorB]) if (!data.evaluatorIds.includes(id)) throw new Error(`no evaluator "${id}" in this file (evaluators: ${data.evaluatorIds.join(', ') || 'none'})`);
  const names = displayNames(data.evaluatorIds, data.signatures);
  const level = options.bootstrap?.level ?? 0.95;
  const resamples = options.bootstrap && data.itemIds.length > 0 ? bootstrapIndices(data.itemIds.length, options.bootstrap.resamples, options.bootstrap.seed) : null;
  const dimension = tableDimension(data.spec);
  return data.columns.map((col) => {
    const t = triplePairs(data, evaluatorA, evaluatorB, col.key);
    const all = flatten(t, Array.from(t.a.keys()));
    const rA = correlate(method, all.a, all.h).statistic;
    const rB = correlate(method, all.b, all.h).statistic;
    const rAB = correlate(method, all.a, all.b).statistic;
    const diff = rA === null || rB === null ? null : rA - rB;
    let williams: DependentCorrelationTest | null = null;
    let steiger: DependentCorrelationTest | null = null;
    if (method !== 'kendall') {
      if (rA === null || rB === null || rAB === null) {
        williams = { test: 'williams1959', statistic: null, pValue: null, undefinedReason: t.n < 4 ? 'too-few' : 'degenerate' };
        steiger = { test: 'steiger1980', statistic: null, pValue: null, undefinedReason: t.n < 4 ? 'too-few' : 'degenerate' };
      } else {
        williams = williamsT(rA, rB, rAB, t.n);
        steiger = steigerZ(rA, rB, rAB, t.n);
      }
    }
    const fa = cellStatisticOfCounts(method, { x: t.a, y: t.h });
    const fb = cellStatisticOfCounts(method, { x: t.b, y: t.h });
    const ones = Int32Array.from(t.a, (pa) => (pa.length ? 1 : 0));
    const leaveOut: (number | null)[] = [];
    ones.forEach((u, k) => {
      if (!u) return;
      ones[k] = 0;
      const x = fa(ones);
      const y = fb(ones);
      leaveOut.push(x === null || y === null ? null : x - y);
      ones[k] = 1;
    });
    const out: EvaluatorComparison = {
      column: col.key,
      ...(dimension ? { dimension } : {}),
      method,
      evaluatorA,
      evaluatorB,
      displayA: names.get(evaluatorA) as string,
      displayB: names.get(evaluatorB) as string,
      n: t.n,
      rA,
      rB,
      rAB,
      difference: diff,
      williams,
      steiger,
      jackknife: jackknifeTest(diff, leaveOut),
    };
    if (resamples) {
      // Each pair weighted by its item's draws: the same numbers as on the concatenated resample (see cellInterval).
      const ra = cellStatisticOfCounts(method, { x: t.a, y: t.h });
      const rb = cellStatisticOfCounts(method, { x: t.b, y: t.h });
      const difference = (counts: Int32Array) => {
        const x = ra(counts);
        const y = rb(counts);
        return x === null || y === null ? null : x - y;
      };
      const counts = new Int32Array(t.a.length);
      const diffs = resamples.map((idx) => {
        counts.fill(0);
        for (let i = 0; i < idx.length; i++) counts[idx[i]]++;
        return difference(counts);
      });
      const interval = options.bootstrap?.interval ?? DEFAULT_INTERVAL;
      const ci = intervalOfCounts(diffs, difference, t.a.map((pa) => pa.length > 0), level, interval, 'difference');
      // The p-value reads the resamples as the interval does: calibrated by the expansion when the interval is expanded.
      const expanded = interval === 'expanded-percentile' || interval === 'expanded-bca';
      out.bootstrap = { ...ci, pValue: expanded ? expandedBootstrapPValue(diffs, ci.clusters ?? 0) : bootstrapPValue(diffs) };
    }
    return out;
  });
}

