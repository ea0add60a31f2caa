import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import { labellingPool } from '../../../src/core/planning/pool';
import { SequentialPlan } from '../../../src/core/design/sequentialPlan';
import { SpearmanTotals } from '../../../src/core/planning/spearmanTotals';
import { normalMixtureM } from '../../../src/core/stats/confidenceSequence';
import { spearmanRho } from '../../../src/core/stats/correlation';
import { generatedPool } from './generatedPool';

/**
 * A design that oversamples extreme evaluator scores: the planner with no uniform share (its probabilities grow
 * with |centred rank|). Correlating the labelled subset then overstates rho (range enhancement); the
 * design-weighted estimate must not.
 */
describe('planning: the design-weighted estimate is unbiased for the pool, the labelled subset is not', () => {
  const items = generatedPool({ candidates: 120, signal: [1.2], seed: 'weighting' });
  const pool = labellingPool(items, { evaluator: 'metric:gen0.score@test', human: 'experts' });
  const x = pool.candidates.map((c) => c.scores[0]);
  const y = pool.candidates.map((c) => c.human as number);
  const totals = new SpearmanTotals([x], [0, 1, 2, 3]);
  const exact = totals.totals(y);
  const truth = (totals.evaluate(exact) as { value: number }).value;
  const runs = 300;
  const labels = 30;
  const settings = { design: 'planner' as const, batch: 5, defensive: 0, model: { bandwidth: 0.1, prior: 2 } };

  const outcomes = Array.from({ length: runs }, (_, r) => {
    const rng = seedrandom.alea(`weighting-${r}`);
    const plan = new SequentialPlan(totals, Float64Array.from(y, () => -Math.log(1 - rng())), new Map(), settings);
    const first = plan.drawBatch()[0];
    plan.reveal(totals.levelIndex(y[first.unit]));
    // The first term alone: T_1 = Σ_U f̂ + (f − f̂)/q, unbiased for the pool totals.
    const t1 = Float64Array.from(first.predictedRemaining, (v, d) => v - first.predictedUnit[d] / first.probability);
    totals.addUnit(t1, first.unit, totals.levelIndex(y[first.unit]), 1 / first.probability);
    while (plan.revealed < labels) {
      if (plan.revealed === plan.draws.length) plan.drawBatch();
      plan.reveal(totals.levelIndex(y[plan.draws[plan.revealed].unit]));
    }
    const units = plan.draws.slice(0, labels).map((d) => d.unit);
    const extreme = units.filter((i) => Math.abs(totals.centred[0][i]) > 0.3 * totals.size).length / labels;
    return {
      weighted: plan.estimate(0.05, normalMixtureM(60, 0.05)).value as number,
      subset: spearmanRho(units.map((i) => x[i]), units.map((i) => y[i])).statistic as number,
      t1,
      extreme,
    };
  });
  const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
  const sd = (v: number[]) => Math.sqrt(mean(v.map((a) => (a - mean(v)) ** 2)));

  it('oversamples extreme evaluator scores (the premise)', () => {
    // Uniform sampling would put 40 % of the labels beyond 0.3·N from the middle rank.
    assert.ok(mean(outcomes.map((o) => o.extreme)) > 0.55, `share of extreme candidates ${mean(outcomes.map((o) => o.extreme))}`);
  });

  it('has first terms T_1 whose mean is the pool totals (within 3 standard errors, every component)', () => {
    for (let d = 0; d < totals.dim; d++) {
      const v = outcomes.map((o) => o.t1[d]);
      const se = sd(v) / Math.sqrt(runs);
      assert.ok(Math.abs(mean(v) - exact[d]) < 3 * se + 1e-9, `component ${d}: mean ${mean(v)} vs ${exact[d]} (se ${se})`);
    }
  });

  it(`estimates the pool's rho without bias after ${labels} labels, where the subset's rho is biased upwards`, () => {
    const w = outcomes.map((o) => o.weighted);
    const s = outcomes.map((o) => o.subset);
    const seW = sd(w) / Math.sqrt(runs);
    assert.ok(Math.abs(mean(w) - truth) < Math.max(3 * seW, 0.015), `weighted mean ${mean(w)} vs pool ${truth} (se ${seW})`);
    assert.ok(mean(s) - truth > 0.04, `subset mean ${mean(s)} vs pool ${truth}`);
    assert.ok(Math.abs(mean(s) - truth) > 5 * sd(s) / Math.sqrt(runs));
  });
});
