/**
 * The working model chosen from the labels (docs/labelling-plan.md, §2): the choice by leave-one-out log score, and
 * that a plan's model at every batch is the one that criterion picks on the labels revealed before it.
 */
import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import { gridSettings, KernelLevelModel, LEVEL_MODEL_GRID } from '../../../src/core/design/levelModel';
import { OrdinalLevelModel } from '../../../src/core/design/ordinalModel';
import { SequentialPlan } from '../../../src/core/design/sequentialPlan';
import { SpearmanTotals } from '../../../src/core/planning/spearmanTotals';
import { SelectedLevelModel, type WorkingModelSpec } from '../../../src/core/design/workingModel';
import { simulatePlans } from '../../../src/core/planning/simulate';
import { gaussian, generatedPool, monotonePool } from './generatedPool';

describe('labelling plan: the working model chosen from the labels', function () {
  this.timeout(120_000);

  it('chooses the candidate with the best leave-one-out log score, and the fallback before minLabels labels', () => {
    const { coords, y } = monotonePool(80, 'select');
    const kernels = [{ bandwidth: 0.05, prior: 0.5 }, { bandwidth: 0.3, prior: 2 }, { bandwidth: 2, prior: 8 }];
    const ordinal = [{ ridge: 1, prior: 2 }];
    const fallback = { bandwidth: 0.15, prior: 2 };
    const chosenAfter = (labels: number): { spec: WorkingModelSpec; score: number | null; model: SelectedLevelModel } => {
      const model = new SelectedLevelModel(coords, 4, { kernels, ordinal, minLabels: 10 }, fallback);
      for (let i = 0; i < labels; i++) model.add(i, y[i]);
      const spec = model.select();
      return { spec, score: model.logScore, model };
    };
    const early = chosenAfter(9);
    assert.deepEqual(early.spec, { kind: 'kernel', ...fallback });
    assert.equal(early.score, null);
    const row = new Float64Array(4);
    const fb = new KernelLevelModel(coords, 4, fallback);
    for (let i = 0; i < 9; i++) fb.add(i, y[i]);
    assert.deepEqual(Array.from(early.model.predict(50, row)), Array.from(fb.predict(50, new Float64Array(4))));
    for (const labels of [10, 25, 80]) {
      const units = Array.from({ length: labels }, (_, i) => i);
      // Each candidate's score computed on its own: kernels by refits, the logit model by its own one-step score.
      const scores = kernels.map((s) => {
        let total = 0;
        for (const i of units) {
          const m = new KernelLevelModel(coords, 4, s);
          for (const j of units) if (j !== i) m.add(j, y[j]);
          total += Math.log(m.predict(i, row)[y[i]]);
        }
        return total / labels;
      });
      const logit = new OrdinalLevelModel(coords, 4, ordinal[0]);
      units.forEach((i) => logit.add(i, y[i]));
      scores.push(logit.leaveOneOutLogScore());
      const best = scores.indexOf(Math.max(...scores));
      const got = chosenAfter(labels);
      const expected: WorkingModelSpec = best < kernels.length ? { kind: 'kernel', ...kernels[best] } : { kind: 'ordinal', ...ordinal[0] };
      assert.deepEqual(got.spec, expected, `${labels} labels: scores ${scores.map((s) => s.toFixed(4)).join(', ')}`);
      assert.ok(Math.abs((got.score as number) - scores[best]) < 1e-9);
    }
    // With 80 labels of a score that rises with the coordinates' sum, the logit model predicts best.
    assert.equal(chosenAfter(80).spec.kind, 'ordinal');
    assert.throws(() => new SelectedLevelModel(coords, 4, { kernels: [], minLabels: 10 }, fallback), /at least one candidate model/);
    assert.throws(() => new SelectedLevelModel(coords, 4, { kernels, minLabels: 1 }, fallback), /minLabels must be an integer ≥ 2/);
  });

  it('a plan draws every batch with the model the criterion picks on the labels revealed before it', () => {
    const rng = seedrandom.alea('plan-choice');
    const n = 90;
    const y = Array.from({ length: n }, () => Math.floor(rng() * 4));
    const scores = [y.map((v) => v + gaussian(rng)), y.map((v) => v + gaussian(rng))];
    const totals = new SpearmanTotals(scores, [0, 1, 2, 3]);
    const clocks = Float64Array.from(y, () => -Math.log(1 - rng()));
    const selection = { kernels: gridSettings(LEVEL_MODEL_GRID), ordinal: [{ ridge: 1, prior: 2 }], minLabels: 10 };
    const fallback = { bandwidth: 0.15, prior: 2 };
    const plan = new SequentialPlan(totals, clocks, new Map(), { design: 'planner', batch: 5, defensive: 0.1, model: fallback, modelSelection: selection });
    const seen = new Set<string>();
    for (let b = 0; b < 8; b++) {
      const batch = plan.drawBatch();
      // The same choice made afresh from the labels revealed so far.
      const fresh = new SelectedLevelModel(totals.unitRanks, 4, selection, fallback);
      for (let s = 0; s < plan.revealed; s++) fresh.add(plan.draws[s].unit, plan.draws[s].level as number);
      const spec = fresh.select();
      assert.deepEqual(plan.workingModel.model, spec, `batch ${b}`);
      seen.add(spec.kind);
      // The batch's control variates are that model's predictions.
      const expected = new Float64Array(totals.dim);
      const row = new Float64Array(4);
      for (let i = 0; i < n; i++) if (plan.isUndrawn(i) || batch.some((d) => d.unit === i)) totals.addExpected(expected, i, fresh.predict(i, row));
      for (let d = 0; d < totals.dim; d++) assert.ok(Math.abs(batch[0].predictedRemaining[d] - expected[d]) < 1e-9, `batch ${b}, component ${d}`);
      for (const _ of batch) plan.reveal(y[plan.draws[plan.revealed].unit]);
    }
    assert.ok(plan.workingModel.logScore !== null);
    assert.ok(seen.has('kernel'), 'the fallback kernel before 10 labels');
  });

  it('on a generated pair of noisy copies, the default design needs fewer labels than the fixed kernel with 20 % uniform draws, saves about a third against random order, and covers', () => {
    // The pool of scripts/planning/boundGap.ts (200 runs there: 52.4 vs 80.3 labels at ±0.15, against 63.1 with the earlier defaults).
    const items = generatedPool({ candidates: 150, signal: [0.3], copies: { count: 2, noise: 1 }, seed: 'bound-gap' });
    const options = { evaluator: 'metric:copy0.score@test', against: 'metric:copy1.score@test', human: 'experts' as const, halfWidths: [0.15, 0.1], runs: 60, seed: 'defaults' };
    const now = simulatePlans(items, options);
    const before = simulatePlans(items, { ...options, defensive: 0.2, modelSelection: null });
    now.targets.forEach((t, j) => {
      assert.ok(t.planner <= 0.9 * before.targets[j].planner, `±${t.halfWidth}: ${t.planner} labels now vs ${before.targets[j].planner} with the earlier defaults`);
      assert.ok(1 - t.planner / t.random >= 0.28, `±${t.halfWidth}: ${t.planner} vs ${t.random} in random order`);
      assert.ok(t.plannerCoverage >= 0.93 && t.randomCoverage >= 0.93, JSON.stringify(t));
    });
    assert.ok(now.coverage >= 0.93);
    assert.ok((now.wrongDecisionRate as number) <= 0.05);
  });
});
