/**
 * What the coverage study measures on one generated study: every interval and test ReflectEval prints, computed by
 * the project's own functions (src/core) exactly as the CLI computes them, against the known truth.
 *
 * Each measure returns, per method id, whether the interval covered the truth (or the test rejected a true null),
 * the interval's width, or null when the interval was undefined on that study.
 */
import type { Candidate, DialogueItem } from '../../src/core/dialogue/types';
import { bootstrapIndices, bootstrapInterval, bootstrapPValue, type IntervalMethod } from '../../src/core/stats/bootstrap';
import { clusterJackknife, clusterMembers, clusterResamples, jackknifeTest, pick } from '../../src/core/stats/clusterBootstrap';
import { cellStatisticOfCounts, correlate, intervalOfCounts, type CellPairs, type CorrelationMethod } from '../../src/core/correlation/correlationTable';
import { steigerZ, williamsT } from '../../src/core/stats/dependentCorrelation';
import { leaveOneOutCeiling } from '../../src/core/correlation/ceiling';
import { fleissKappa } from '../../src/core/agreement/fleiss';
import { alphaOfCounts } from '../../src/core/agreement/krippendorffAlpha';
import { ac1OfCounts } from '../../src/core/agreement/gwetAC1';
import { icc } from '../../src/core/agreement/icc';
import { valueCounts } from '../../src/core/agreement/reliabilityData';
import { twoStageCorrelation } from '../../src/core/metaEvaluation/repeatability';
import { humanScores, reliabilityMatrix, type Study } from './generate';
import seedrandom from 'seedrandom';
import { normalMixtureBoundary, normalMixtureM } from '../../src/core/stats/confidenceSequence';
import { anticipatedLabels, planSettings, workingModelSettings } from '../../src/core/planning/planner';
import { fullyLabelledPool } from '../../src/core/planning/pool';
import { SequentialPlan } from '../../src/core/design/sequentialPlan';
import { altTest } from '../../src/core/metaEvaluation/altTest';

/** One method's outcome on one study: hit (covered / rejected), width, or null (undefined). */
export interface Outcome {
  hit: boolean;
  width?: number;
  /** Tests counted per test rather than per study: `count` of `of` rejected. */
  count?: number;
  of?: number;
}
export type Outcomes = Record<string, Outcome | null>;

export const INTERVALS: readonly IntervalMethod[] = ['percentile', 'bca', 'expanded-percentile', 'expanded-bca'];

/** Settings shared by every measure. */
export interface MeasureSettings {
  /** Bootstrap resamples (the tool's default 1000). */
  resamples: number;
  level: number;
  /** Test level. */
  alpha: number;
  seed: string;
  /** Interval methods to evaluate (default all four). */
  intervals?: readonly IntervalMethod[];
}

function covers(lo: number | null, hi: number | null, truth: number): Outcome | null {
  if (lo === null || hi === null) return null;
  return { hit: lo - 1e-12 <= truth && truth <= hi + 1e-12, width: hi - lo };
}

/** Per-context arrays of a per-candidate vector. */
function byContext(s: Study, v: ArrayLike<number>): number[][] {
  const out: number[][] = Array.from({ length: s.design.contexts }, () => []);
  for (let i = 0; i < s.context.length; i++) out[s.context[i]].push(v[i]);
  return out;
}

/** Every candidate its own "context": the plain (unclustered) bootstrap. */
function byCandidate(v: ArrayLike<number>): number[][] {
  return Array.from(v, (x) => [x]);
}

/** Interval outcomes of a statistic of item draw counts, for every interval method, from one set of resamples. */
function countIntervals(prefix: string, ofCounts: (c: Int32Array) => number | null, items: number, resamples: readonly Int32Array[], truth: number, st: MeasureSettings, out: Outcomes, used?: boolean[]): (number | null)[] {
  const counts = new Int32Array(items);
  const stats = resamples.map((idx) => {
    counts.fill(0);
    for (let i = 0; i < idx.length; i++) counts[idx[i]]++;
    return ofCounts(counts);
  });
  for (const m of st.intervals ?? INTERVALS) {
    const ci = intervalOfCounts(stats, ofCounts, used ?? new Array(items).fill(true), st.level, m);
    out[`${prefix}/${m}`] = covers(ci.lower, ci.upper, truth);
  }
  return stats;
}

/** Interval outcomes of a statistic of unit indices (the agreement coefficients' bootstrap), for every method. */
function unitIntervals(prefix: string, statistic: (idx: Int32Array) => number | null, units: number, clusters: readonly number[], truth: number, st: MeasureSettings, out: Outcomes): void {
  const resamples = clusterResamples(units, { resamples: st.resamples, seed: `${st.seed}/${prefix}`, clusters });
  const stats = resamples.map(statistic);
  const members = clusterMembers(units, clusters);
  let jackknife: (number | null)[] | undefined;
  let estimate: number | null | undefined;
  for (const m of st.intervals ?? INTERVALS) {
    if ((m === 'bca' || m === 'expanded-bca') && jackknife === undefined) {
      jackknife = clusterJackknife(members, statistic);
      estimate = statistic(Int32Array.from({ length: units }, (_, u) => u));
    }
    const ci = bootstrapInterval(stats, { level: st.level, method: m, clusters: members.length, estimate, jackknife });
    out[`${prefix}/${m}`] = covers(ci.lower, ci.upper, truth);
  }
}

/** Truths of the binary-label measures. */
export interface BinaryTruth {
  spearman: number;
  kendall: number;
  pearson: number;
  fleiss: number;
  alpha: number;
  ac1: number;
  ceiling: number;
}

/**
 * The binary-label measures: the correlation table's cell intervals (ρ, τ, r; cluster bootstrap over contexts, and
 * ρ with the plain bootstrap over responses), the comparison of two equally good evaluators (Williams' t, Steiger's
 * z, the paired bootstrap's p and its interval of the difference), the human ceiling's interval, and Fleiss' kappa,
 * Krippendorff's alpha (nominal) and Gwet's AC1 with their intervals.
 */
export function binaryMeasures(s: Study, truth: BinaryTruth, st: MeasureSettings, parts: { ceiling?: boolean; ceilingOnly?: boolean; plain?: boolean; methods?: readonly CorrelationMethod[] } = {}): Outcomes {
  const out: Outcomes = {};
  const h = humanScores(s);
  const m = s.design.contexts;
  const resamples = bootstrapIndices(m, st.resamples, `${st.seed}/items`);
  const pairsA: CellPairs = { x: byContext(s, s.a), y: byContext(s, h), n: h.length, excluded: 0, missingScore: 0, missingLabel: 0, isReference: 0, warnings: new Map() };
  for (const method of parts.methods ?? (['spearman', 'kendall', 'pearson'] as const)) {
    const key = method === 'spearman' ? 'rho' : method === 'kendall' ? 'tau' : 'r';
    countIntervals(`${key}`, cellStatisticOfCounts(method, pairsA), m, resamples, truth[method], st, out);
  }
  if (parts.plain) {
    const plain = { x: byCandidate(s.a), y: byCandidate(h) };
    const pr = bootstrapIndices(h.length, st.resamples, `${st.seed}/plain`);
    countIntervals('rho-plain', cellStatisticOfCounts('spearman', plain), h.length, pr, truth.spearman, { ...st, intervals: ['percentile', 'expanded-percentile'] }, out);
  }
  if (parts.ceilingOnly) return ceilingMeasures(s, truth, st, out);
  // A vs B (ρ_A = ρ_B): the tests and the paired bootstrap.
  const ra = correlate('spearman', s.a as unknown as number[], h as unknown as number[]).statistic;
  const rb = correlate('spearman', s.b as unknown as number[], h as unknown as number[]).statistic;
  const rab = correlate('spearman', s.a as unknown as number[], s.b as unknown as number[]).statistic;
  if (ra !== null && rb !== null && rab !== null) {
    const w = williamsT(ra, rb, rab, h.length);
    const z = steigerZ(ra, rb, rab, h.length);
    out['williams'] = w.pValue === null ? null : { hit: w.pValue < st.alpha };
    out['steiger'] = z.pValue === null ? null : { hit: z.pValue < st.alpha };
  }
  const fa = cellStatisticOfCounts('spearman', pairsA);
  const fb = cellStatisticOfCounts('spearman', { x: byContext(s, s.b), y: pairsA.y });
  const diff = (c: Int32Array) => {
    const x = fa(c);
    const y = fb(c);
    return x === null || y === null ? null : x - y;
  };
  const diffs = countIntervals('diff', diff, m, resamples, 0, st, out);
  const p = bootstrapPValue(diffs);
  out['diff-bootstrap-p'] = p === null ? null : { hit: p < st.alpha };
  // Agreement coefficients of the binary labels (units = candidates, clusters = contexts).
  const data = reliabilityMatrix(s);
  const clusters = Array.from(s.context);
  const counts = valueCounts(data, [0, 1]);
  unitIntervals('fleiss', (idx) => fleissKappa(pick(counts, idx)).kappa, data.length, clusters, truth.fleiss, st, out);
  // As krippendorffAlpha's and gwetAC1's own bootstrap: the count table's rows resampled.
  unitIntervals('alpha', (idx) => alphaOfCounts(pick(counts, idx), [0, 1], 'nominal').alpha, data.length, clusters, truth.alpha, st, out);
  unitIntervals('ac1', (idx) => ac1OfCounts(pick(counts, idx), 2).ac1, data.length, clusters, truth.ac1, st, out);
  return parts.ceiling ? ceilingMeasures(s, truth, st, out) : out;
}

/** The human ceiling's interval (the leave-one-annotator-out mean correlation), by percentile and expanded BCa. */
function ceilingMeasures(s: Study, truth: BinaryTruth, st: MeasureSettings, out: Outcomes): Outcomes {
  {
    const items = studyItems(s);
    for (const interval of ['percentile', 'expanded-bca'] as const) {
      if (st.intervals && !st.intervals.includes(interval)) continue;
      const t = leaveOneOutCeiling(items, { group: 'all', bootstrap: { resamples: st.resamples, seed: `${st.seed}/ceiling`, level: st.level, interval } });
      const ci = t.rows[0].ci;
      out[`ceiling/${interval}`] = ci ? covers(ci.lower, ci.upper, truth.ceiling) : null;
    }
  }
  return out;
}

/** Type-I error of a cell's p-value and of its interval as a test, for an evaluator that knows nothing (ρ = 0). */
export function nullMeasures(s: Study, st: MeasureSettings): Outcomes {
  const out: Outcomes = {};
  const h = humanScores(s);
  const r = correlate('spearman', s.a as unknown as number[], h as unknown as number[]);
  out['rho-p'] = r.pValue === null ? null : { hit: r.pValue < st.alpha };
  const pairs = { x: byContext(s, s.a), y: byContext(s, h) };
  const resamples = bootstrapIndices(s.design.contexts, st.resamples, `${st.seed}/items`);
  const f = cellStatisticOfCounts('spearman', pairs);
  const tmp: Outcomes = {};
  const stats = countIntervals('rho', f, s.design.contexts, resamples, 0, st, tmp);
  for (const [k, v] of Object.entries(tmp)) out[`${k}-excludes-0`] = v === null ? null : { hit: !v.hit };
  const p = bootstrapPValue(stats);
  out['rho-bootstrap-p'] = p === null ? null : { hit: p < st.alpha };
  return out;
}

/** Truths of the rating measures. */
export interface RatingTruth {
  alphaOrdinal: number;
  ac1: number;
  icc1: number;
  icc1k: number;
}

/** 1–5 ratings: Krippendorff's alpha (ordinal), Gwet's AC1 (5 categories), ICC(1,1) and ICC(1,k) with intervals. */
export function ratingMeasures(s: Study, truth: RatingTruth, st: MeasureSettings): Outcomes {
  const out: Outcomes = {};
  const data = reliabilityMatrix(s);
  const clusters = Array.from(s.context);
  const scale = [1, 2, 3, 4, 5];
  const counts = valueCounts(data, scale);
  unitIntervals('alpha-ordinal', (idx) => alphaOfCounts(pick(counts, idx), scale, 'ordinal').alpha, data.length, clusters, truth.alphaOrdinal, st, out);
  unitIntervals('ac1-5', (idx) => ac1OfCounts(pick(counts, idx), 5).ac1, data.length, clusters, truth.ac1, st, out);
  // ICC one-way: each candidate's 3 ratings (different raters per candidate), as the coefficient table does.
  const p = s.design.perCandidate;
  const rows = Array.from({ length: s.context.length }, (_, i) => Array.from({ length: p }, (_, r) => s.values[i * p + r] as number));
  unitIntervals('icc1', (idx) => icc(pick(rows, idx)).icc.ICC1, rows.length, clusters, truth.icc1, st, out);
  unitIntervals('icc1k', (idx) => icc(pick(rows, idx)).icc.ICC1k, rows.length, clusters, truth.icc1k, st, out);
  return out;
}

/** Judge repeatability: the mean-of-K evaluator's two-stage interval of its Spearman ρ with the human score. */
export function repeatabilityMeasures(s: Study, truth: number, st: MeasureSettings): Outcomes {
  const K = s.design.replies?.count ?? 0;
  const replies = Array.from({ length: s.context.length }, (_, i) => Array.from(s.replies!.subarray(i * K, (i + 1) * K)));
  const h = Array.from(humanScores(s));
  const r = twoStageCorrelation(replies, h, { method: 'spearman', resamples: st.resamples, seed: `${st.seed}/two`, level: st.level, clusters: Array.from(s.context), interval: 'percentile' });
  // The same replicates (same seed) read at the expanded probabilities: the default since issue 40.
  const e = twoStageCorrelation(replies, h, { method: 'spearman', resamples: st.resamples, seed: `${st.seed}/two`, level: st.level, clusters: Array.from(s.context), interval: 'expanded-percentile' });
  return {
    'two-stage-expanded': covers(e.ci.lower, e.ci.upper, truth),
    'two-stage': covers(r.ci.lower, r.ci.upper, truth),
    'two-stage-uncentred': covers(r.uncentredCi.lower, r.uncentredCi.upper, truth),
    'item-only': covers(r.itemOnlyCi.lower, r.itemOnlyCi.upper, truth),
  };
}

/** A generated study as dialogue items (for the functions that read dialogue files): annotators `A1`…`A9`. */
export function studyItems(s: Study, evaluators: { a?: string; b?: string } = { a: 'metric:a', b: 'metric:b' }): DialogueItem[] {
  const p = s.design.perCandidate;
  const k = s.design.candidates;
  const items: DialogueItem[] = [];
  for (let c = 0; c < s.design.contexts; c++) {
    const candidates: Candidate[] = [];
    for (let j = 0; j < k; j++) {
      const i = c * k + j;
      const scores: Candidate['scores'] = {};
      if (evaluators.a) scores[evaluators.a] = { value: s.a[i], status: 'ok' } as Candidate['scores'][string];
      if (evaluators.b) scores[evaluators.b] = { value: s.b[i], status: 'ok' } as Candidate['scores'][string];
      candidates.push({
        id: `c${j}`,
        text: `candidate ${j}`,
        origin: { kind: 'model' },
        annotations: Array.from({ length: p }, (_, r) => ({ annotator: `A${s.annotators[i * p + r] + 1}`, coherent: s.values[i * p + r] === 1 })),
        scores,
      } as unknown as Candidate);
    }
    items.push({ id: `ctx${c}`, context: [], candidates } as unknown as DialogueItem);
  }
  return items;
}

/**
 * The labelling planner's anytime interval on a generated pool (one evaluator, or a pair): the plan is run to the end
 * of the pool with labels revealed in planned order, as `plan-labels --simulate` does; the interval is checked against
 * the pool's value after every label from `minLabels` on. `planner-stop-0.15` / `-0.10`: covered when the half-width
 * first reaches the target (the stop of `--target`); `planner-decide`: covered at the stop of `--target decide` (pairs);
 * `planner-always`: covered at every look (the anytime guarantee itself).
 */
export function plannerMeasures(s: Study, st: MeasureSettings, pair: boolean): Outcomes {
  const items = studyItems(s);
  const options = { evaluator: 'metric:a', ...(pair ? { against: 'metric:b' } : {}), human: 'all' as const, labelsPerCandidate: s.design.perCandidate };
  const settings = planSettings({});
  const { pool, totals, truth, y } = fullyLabelledPool(items, options, 'the coverage study');
  const alpha = 1 - settings.level;
  const n = pool.candidates.length;
  const targets = [0.15, 0.1];
  const ms = targets.map((h) => normalMixtureM(anticipatedLabels({ halfWidth: h }, n, settings.level, settings.minLabels), alpha));
  const mDecide = normalMixtureM(anticipatedLabels({ decide: true }, n, settings.level, settings.minLabels), alpha);
  const rng = seedrandom.alea(`${st.seed}/plan`);
  const clocks = Float64Array.from(pool.candidates, () => -Math.log(1 - rng()));
  const plan = new SequentialPlan(totals, clocks, new Map(), { design: 'planner', batch: settings.batch, defensive: settings.defensive, ...workingModelSettings(settings, pair), assisted: true });
  const range = pair ? 2 : 1;
  const inside = (v: number, hw: number) => Math.max(-range, v - hw) <= truth.value + 1e-12 && truth.value - 1e-12 <= Math.min(range, v + hw);
  const stops: (boolean | null)[] = targets.map(() => null);
  let decided: boolean | null = pair ? null : true;
  const main = pair ? mDecide : ms[1];
  let always = true;
  let done = false;
  while (!done) {
    const batch = plan.drawBatch();
    if (batch.length === 0) break;
    for (const d of batch) {
      plan.reveal(y[d.unit]);
      const est = plan.estimate(alpha, main);
      if (est.exact) {
        done = true;
        break;
      }
      if (plan.revealed < settings.minLabels || est.value === null || est.halfWidth === null) continue;
      if (!inside(est.value, est.halfWidth)) always = false;
      targets.forEach((h, j) => {
        if (stops[j] !== null) return;
        const hw = normalMixtureBoundary(est.intrinsicTime, ms[j], alpha) / est.weightSum;
        if (hw <= h) stops[j] = inside(est.value as number, hw);
      });
      if (decided === null && (est.value - est.halfWidth > 0 || est.value + est.halfWidth < 0)) decided = inside(est.value, est.halfWidth);
    }
  }
  const out: Outcomes = { 'planner-always': { hit: always } };
  targets.forEach((h, j) => (out[`planner-stop-${h.toFixed(2)}`] = { hit: stops[j] ?? true }));
  if (pair) out['planner-decide'] = { hit: decided ?? true };
  return out;
}

/**
 * The alternative annotator test at the boundary of its null: an evaluator whose advantage over every annotator is
 * exactly ε (calibrated on a large sample), against an exchangeable panel. `alt-annotator`: share of per-annotator
 * one-sided t-tests rejecting at α (type-I error); `alt-any-win`: share of studies where the BY procedure rejects any
 * annotator's null (every null is true, so this is the false discovery rate); `alt-passes`: the verdict passes.
 */
export function altTestMeasures(s: Study, evaluator: Int8Array, st: MeasureSettings & { epsilon: number }): Outcomes {
  const humans: Record<string, Record<string, number>> = {};
  const ev: Record<string, number> = {};
  const p = s.design.perCandidate;
  for (let i = 0; i < s.context.length; i++) {
    for (let r = 0; r < p; r++) (humans[`A${s.annotators[i * p + r] + 1}`] ??= {})[`u${i}`] = s.values[i * p + r];
    ev[`u${i}`] = evaluator[i];
  }
  const sorted = Object.fromEntries(Object.entries(humans).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })));
  const clusters = Object.fromEntries(Array.from(s.context, (c, i) => [`u${i}`, c]));
  const out: Outcomes = {};
  for (const [suffix, options] of [['', { test: 't' as const }], ['-jackknife', { clusters }]] as const) {
    const res = altTest(sorted, ev, { epsilon: st.epsilon, alpha: st.alpha, ...options });
    const tested = res.annotators.filter((a) => a.pValue !== null);
    out[`alt-annotator${suffix}`] = tested.length ? { hit: false, count: tested.filter((a) => (a.pValue as number) < st.alpha).length, of: tested.length } : null;
    out[`alt-any-win${suffix}`] = res.winningRate === null ? null : { hit: res.annotators.some((a) => a.rejected) };
    out[`alt-passes${suffix}`] = res.winningRate === null ? null : { hit: res.passed };
  }
  return out;
}

/** The statistic with each context left out (draw counts: every context once, the one left out zero). */
function leaveOneOut(f: (c: Int32Array) => number | null, m: number): { estimate: number | null; jackknife: (number | null)[] } {
  const counts = new Int32Array(m).fill(1);
  const estimate = f(counts);
  const jackknife = Array.from({ length: m }, (_, i) => {
    counts[i] = 0;
    const v = f(counts);
    counts[i] = 1;
    return v;
  });
  return { estimate, jackknife };
}

/**
 * The tests a table or a comparison prints, without a bootstrap, at a true null: two equally good evaluators (Williams'
 * t, Steiger's z and the cluster-jackknife t of ρ_A − ρ_B = 0) and an evaluator that knows nothing (scipy's p of the
 * cell and the cluster-jackknife t of ρ = 0). `null` is a second study of the same design whose evaluator A has no
 * signal.
 */
export function testMeasures(s: Study, nullStudy: Study, st: MeasureSettings): Outcomes {
  const out: Outcomes = {};
  const h = humanScores(s);
  const m = s.design.contexts;
  const ra = correlate('spearman', s.a as unknown as number[], h as unknown as number[]).statistic;
  const rb = correlate('spearman', s.b as unknown as number[], h as unknown as number[]).statistic;
  const rab = correlate('spearman', s.a as unknown as number[], s.b as unknown as number[]).statistic;
  if (ra !== null && rb !== null && rab !== null) {
    const w = williamsT(ra, rb, rab, h.length);
    const z = steigerZ(ra, rb, rab, h.length);
    out['williams'] = w.pValue === null ? null : { hit: w.pValue < st.alpha };
    out['steiger'] = z.pValue === null ? null : { hit: z.pValue < st.alpha };
  }
  const y = byContext(s, h);
  const fa = cellStatisticOfCounts('spearman', { x: byContext(s, s.a), y });
  const fb = cellStatisticOfCounts('spearman', { x: byContext(s, s.b), y });
  const diff = leaveOneOut((c) => {
    const x = fa(c);
    const v = fb(c);
    return x === null || v === null ? null : x - v;
  }, m);
  const jt = jackknifeTest(diff.estimate, diff.jackknife);
  out['diff-jackknife'] = jt?.pValue == null ? null : { hit: jt.pValue < st.alpha };
  const hn = humanScores(nullStudy);
  const r = correlate('spearman', nullStudy.a as unknown as number[], hn as unknown as number[]);
  out['rho-p'] = r.pValue === null ? null : { hit: r.pValue < st.alpha };
  const rho = leaveOneOut(cellStatisticOfCounts('spearman', { x: byContext(nullStudy, nullStudy.a), y: byContext(nullStudy, hn) }), m);
  const rt = jackknifeTest(rho.estimate, rho.jackknife);
  out['rho-jackknife'] = rt?.pValue == null ? null : { hit: rt.pValue < st.alpha };
  return out;
}
