/**
 * The savings table of docs/estimation.md: pool × estimand × predictor, mean expert labels to reach ± 0.10 and ± 0.05
 * (estimator with active selection, random order with the same predictors, expert-only), coverage, and the oracle
 * bound beside the estimator.
 *
 *   npx tsx scripts/estimation/savings.ts <rows> [runs] > table.md     # rows: a comma-separated list of row ids, or all
 *
 * Each row prints one markdown line as soon as it is done (and its JSON to stderr). Pools: EvalReflections GPT-2
 * stage (real labels; `metric:noise` and `judge:informed` are generated scores added to it), 2,000 candidates
 * resampled from it, and the generated GEM 2022 grid (generatedPools.ts).
 */
import type { EstimandSpec } from '../../src/core/design/planRecord';
import type { DialogueItem } from '../../src/core/dialogue/types';
import { estimateBound } from '../../src/core/estimation/bound';
import { simulateEstimates } from '../../src/core/estimation/simulate';
import { addScores, evalReflections, gemGridPool, resampledPool } from './generatedPools';

const pools: Record<string, () => DialogueItem[]> = {
  evalreflections: () => addScores(evalReflections(), 'scores'),
  resampled2000: () => addScores(resampledPool(2000, 'resampled'), 'scores'),
  gemgrid: () => addScores(gemGridPool(15, 'gem-grid'), 'scores'),
};

interface Row {
  id: string;
  pool: keyof typeof pools;
  estimand: EstimandSpec;
  predictors: string[];
  by?: string;
  runs: number;
  /** Runs of the estimator alone, for its coverage (default `runs`). */
  estimatorRuns?: number;
}

const majority: EstimandSpec = { kind: 'coherence-rate', aggregate: 'majority' };
const share: EstimandSpec = { kind: 'coherence-rate', aggregate: 'mean' };
export const ROWS: Row[] = [
  { id: 'er-maj-lay', pool: 'evalreflections', estimand: majority, predictors: ['human:laypeople'], runs: 200, estimatorRuns: 1000 },
  { id: 'er-mean-lay', pool: 'evalreflections', estimand: share, predictors: ['human:laypeople'], runs: 200, estimatorRuns: 1000 },
  { id: 'er-maj-noise', pool: 'evalreflections', estimand: majority, predictors: ['metric:noise'], runs: 200 },
  { id: 'er-maj-lay-noise', pool: 'evalreflections', estimand: majority, predictors: ['human:laypeople', 'metric:noise'], runs: 200 },
  { id: 'er-maj-judge', pool: 'evalreflections', estimand: majority, predictors: ['judge:informed'], runs: 200 },
  { id: 'er-hall-lay', pool: 'evalreflections', estimand: { kind: 'error-share', category: 'hallucinatory' }, predictors: ['human:laypeople'], runs: 200 },
  { id: 'r2k-maj-lay', pool: 'resampled2000', estimand: majority, predictors: ['human:laypeople'], runs: 60 },
  { id: 'r2k-mean-lay', pool: 'resampled2000', estimand: share, predictors: ['human:laypeople'], runs: 60 },
  { id: 'r2k-maj-noise', pool: 'resampled2000', estimand: majority, predictors: ['metric:noise'], runs: 60 },
  { id: 'r2k-maj-judge', pool: 'resampled2000', estimand: majority, predictors: ['judge:informed'], runs: 60 },
  { id: 'gem-strategy-lay', pool: 'gemgrid', estimand: majority, predictors: ['human:laypeople'], by: 'strategy', runs: 60 },
  { id: 'gem-empathy-lay', pool: 'gemgrid', estimand: { kind: 'rating-mean', dimension: 'empathy' }, predictors: ['human:laypeople'], runs: 100 },
  { id: 'gem-hall-lay', pool: 'gemgrid', estimand: { kind: 'error-share', category: 'hallucinatory' }, predictors: ['human:laypeople'], runs: 100 },
];

const want = (process.argv[2] ?? 'all').split(',');
const scale = Number(process.argv[3] ?? 1);
const cache = new Map<string, DialogueItem[]>();
const f1 = (v: number | undefined) => (v === undefined ? '—' : v.toFixed(1));
const pct = (a: number | undefined, b: number | undefined) => (a === undefined || b === undefined ? '—' : `${Math.round(100 * (1 - a / b))} %`);

console.log('| row | pool | estimand | predictor | h | estimator (active) | random order, same predictor | expert-only | fewer than expert-only | oracle bound | estimator / bound | coverage (estimator) | runs |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const row of ROWS) {
  if (!want.includes('all') && !want.includes(row.id)) continue;
  const items = cache.get(row.pool) ?? pools[row.pool]();
  cache.set(row.pool, items);
  const spec = { estimand: row.estimand, predictors: row.predictors, ...(row.by ? { by: row.by } : {}), labelsPerCandidate: 3, halfWidths: [0.1, 0.05] };
  const t0 = Date.now();
  const runs = Math.max(1, Math.round(row.runs * scale));
  const base = simulateEstimates(items, { ...spec, runs, estimators: ['random', 'classical'] });
  const est = simulateEstimates(items, { ...spec, runs: Math.max(1, Math.round((row.estimatorRuns ?? row.runs) * scale)), estimators: ['estimator'] });
  const bound = estimateBound(items, spec);
  base.targets.forEach((t, j) => {
    const e = est.targets[j].estimator;
    const b = bound.targets[j];
    console.log(`| ${row.id} | ${row.pool} (${base.pool}) | ${base.estimand}${row.by ? ` per ${row.by}` : ''} | ${row.predictors.join(' + ')} | ${t.halfWidth} | ${f1(e?.labels)} ± ${f1(e?.labelsSe)} | ${f1(t.random?.labels)} | ${f1(t.classical?.labels)} | ${pct(e?.labels, t.classical?.labels)} | ${f1(b.estimator)} (expert-only ${f1(b.classical)}) | ${e ? (e.labels / b.estimator).toFixed(3) : '—'} | ${e?.coverage.toFixed(3)} | ${Math.round((row.estimatorRuns ?? row.runs) * scale)} / ${runs} |`);
  });
  console.error(JSON.stringify({ row: row.id, seconds: (Date.now() - t0) / 1000, estimator: est.targets, baselines: base.targets, coverage: est.coverage, bound: bound.targets, strata: base.strata }));
}
