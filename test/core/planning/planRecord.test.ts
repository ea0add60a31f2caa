/**
 * Plan records keep replaying exactly when the planner's defaults change: a record written before the working model
 * was chosen from the labels (no `modelSelection` field; 20 % uniform share) replays to the state the planner of
 * that time computed, and a new record carries its model choice so that it replays whatever the defaults become.
 * The fixture `fixtures/old-label-plans.json` was written by the planner at commit 0e055e0 (before `modelSelection`
 * existed): for a single evaluator and a pair on a generated pool, the record, the candidates labelled (six batches
 * followed as planned) and the plan's state on that file.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { PLAN_DEFAULTS, planLabels, startLabelPlan, type LabelPlanRecord, type PlanTarget } from '../../../src/core/planning/planner';
import { generatedPool } from './generatedPool';

interface OldPlan {
  record: LabelPlanRecord;
  target: PlanTarget;
  labelled: string[];
  expected: Record<string, unknown>;
}

const fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures/old-label-plans.json'), 'utf8')) as Record<'single' | 'pair', OldPlan>;
const full = generatedPool({ candidates: 60, signal: [1], copies: { count: 2, noise: 1 }, seed: 'old-record' });
const withLabels = (labelled: ReadonlySet<string>): DialogueItem[] => full.map((it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: labelled.has(`${it.id}/${c.id}`) ? c.annotations : [] })) }));
const state = (items: readonly DialogueItem[], record: LabelPlanRecord, target: PlanTarget) => {
  const plan = planLabels(items, record, { target });
  return JSON.parse(JSON.stringify({ order: plan.order, estimate: plan.estimate, labelsToGo: plan.labelsToGo, stop: plan.stop, counts: plan.counts }));
};

describe('planning: plan records replay across changes of the defaults', () => {
  for (const name of ['single', 'pair'] as const) {
    it(`an old record (${name === 'single' ? 'one evaluator' : 'a pair'}, no modelSelection field) replays to the state the planner of its time computed`, () => {
      const old = fixture[name];
      assert.equal('modelSelection' in old.record, false, 'the fixture is a record from before the field');
      assert.equal(old.record.defensive, 0.2);
      assert.equal((old.expected.counts as { planned: number }).planned, 30);
      assert.deepEqual(state(withLabels(new Set(old.labelled)), old.record, old.target), old.expected);
      // null is the same as absent.
      assert.deepEqual(state(withLabels(new Set(old.labelled)), { ...old.record, modelSelection: null }, old.target), old.expected);
    });
  }

  it('a new record carries the default model choice and share, replays from its JSON, and follows its own choice, not the defaults of the day', () => {
    const target = { halfWidth: 0.2 };
    const open = withLabels(new Set());
    const record = startLabelPlan(open, { evaluator: 'metric:copy0.score@test', against: 'metric:copy1.score@test', human: 'experts', target, seed: 5, minLabels: 10, labelsPerCandidate: 3 });
    assert.ok(record.modelSelection, 'new plans choose their working model from the labels');
    assert.deepEqual(record.modelSelection, PLAN_DEFAULTS.modelSelection);
    assert.notEqual(record.modelSelection, PLAN_DEFAULTS.modelSelection, 'a copy, not the defaults themselves');
    assert.equal(record.defensive, 0.05);
    const labelled = new Set<string>();
    for (let b = 0; b < 8; b++) for (const o of planLabels(withLabels(labelled), record, { target }).order.filter((o) => o.status === 'drawn')) labelled.add(`${o.itemId}/${o.candidateId}`);
    const items = withLabels(labelled);
    const stored = JSON.parse(JSON.stringify(record)) as LabelPlanRecord;
    const now = state(items, stored, target);
    assert.deepEqual(now, state(items, record, target));
    assert.equal(now.counts.planned, 40);
    const plan = planLabels(items, stored, { target });
    assert.equal(plan.workingModel.model.kind, 'ordinal', 'on noisy copies the logit model predicts best after 40 labels');
    assert.ok(plan.workingModel.logScore !== null && plan.workingModel.logScore < 0);
    // The same record with kernels only gives another plan: the record's own field is what replays.
    const kernelsOnly: LabelPlanRecord = { ...stored, modelSelection: { ...(stored.modelSelection as NonNullable<LabelPlanRecord['modelSelection']>), ordinal: undefined } };
    assert.notDeepEqual(state(items, kernelsOnly, target).order, now.order);
    assert.throws(() => startLabelPlan(open, { evaluator: 'metric:gen0.score@test', human: 'experts', target, modelSelection: { bandwidths: [0.1], priors: [2], minLabels: 1 } }), /modelSelection\.minLabels must be an integer ≥ 2/);
    assert.throws(() => startLabelPlan(open, { evaluator: 'metric:gen0.score@test', human: 'experts', target, modelSelection: { bandwidths: [], priors: [], minLabels: 10 } }), /at least one bandwidth and one prior/);
    assert.throws(() => startLabelPlan(open, { evaluator: 'metric:gen0.score@test', human: 'experts', target, modelSelection: { bandwidths: [], priors: [], minLabels: 10, ordinal: [{ ridge: 0, prior: 2 }] } }), /ridge and prior must be positive/);
    assert.equal(startLabelPlan(open, { evaluator: 'metric:gen0.score@test', human: 'experts', target, modelSelection: null }).modelSelection, null);
  });
});
