/**
 * Assisting signals of the labelling plan's working model (`--assist`): a signal that predicts the human score
 * (here an evaluator that sees the experts' score through a little noise; in a study, cheap lay labels on every
 * candidate) makes the planner need fewer expert labels for the same interval, while the estimand and coverage stay
 * those of the evaluator planned for. A signal that shares annotators with the planned human score is refused.
 */
import assert from 'node:assert/strict';
import { startLabelPlan } from '../../../src/core/planning/planner';
import { labellingPool } from '../../../src/core/planning/pool';
import { simulatePlans } from '../../../src/core/planning/simulate';
import { generatedPool } from './generatedPool';

describe('labelling plan: assisting signals', function () {
  this.timeout(300_000);
  const items = generatedPool({ candidates: 150, signal: [0.5], copies: { count: 1, noise: 0.3 }, seed: 'assist' });
  const evaluator = 'metric:gen0.score@test';

  it('needs fewer labels with a signal that predicts the human score, and still covers the pool value', () => {
    const plain = simulatePlans(items, { evaluator, human: 'experts', halfWidths: [0.15, 0.1], runs: 60, seed: 'a' });
    const assisted = simulatePlans(items, { evaluator, human: 'experts', halfWidths: [0.15, 0.1], runs: 60, seed: 'a', assist: ['metric:copy0.score@test'] });
    assert.equal(assisted.poolValue, plain.poolValue, 'the same estimand');
    assisted.targets.forEach((t, j) => {
      assert.ok(t.planner <= 0.85 * plain.targets[j].planner, `half-width ${t.halfWidth}: ${t.planner} labels assisted vs ${plain.targets[j].planner} without`);
      assert.ok(t.planner <= 0.75 * plain.targets[j].random, `half-width ${t.halfWidth}: ${t.planner} labels assisted vs ${plain.targets[j].random} in random order`);
      assert.ok(t.plannerCoverage >= 0.9, JSON.stringify(t));
    });
  });

  it('records the signals in the plan and in the pool fingerprint; refuses the planned group as its own signal', () => {
    const record = startLabelPlan(items, { evaluator, human: 'experts', target: { halfWidth: 0.1 }, assist: ['metric:copy0.score@test'], ignoreExistingLabels: true });
    assert.deepEqual(record.assist, ['metric:copy0.score@test']);
    const without = startLabelPlan(items, { evaluator, human: 'experts', target: { halfWidth: 0.1 }, ignoreExistingLabels: true });
    assert.notEqual(record.pool.fingerprint, without.pool.fingerprint);
    assert.throws(() => labellingPool(items, { evaluator, human: 'experts', assist: ['human:experts'] }), /shares annotators with the human score being planned/);
    assert.throws(() => labellingPool(items, { evaluator, human: 'experts', assist: ['human:all'] }), /shares annotators/);
  });
});
