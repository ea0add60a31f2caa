import assert from 'node:assert/strict';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { forgetPlanReplays, planLabels, startLabelPlan, type LabelPlan, type LabelPlanRecord } from '../../../src/core/planning/planner';
import { spearmanRho } from '../../../src/core/stats/correlation';
import { generatedPool } from './generatedPool';

const EVALUATOR = 'metric:gen0.score@test';

/** A copy of `full` where only the candidates in `labelled` keep their annotations (and `partial` keep their first two). */
function withLabels(full: readonly DialogueItem[], labelled: ReadonlySet<string>, partial: ReadonlySet<string> = new Set()): DialogueItem[] {
  return full.map((it) => ({
    ...it,
    candidates: it.candidates.map((c) => {
      const key = `${it.id}/${c.id}`;
      return { ...c, annotations: labelled.has(key) ? c.annotations : partial.has(key) ? c.annotations.slice(0, 2) : [] };
    }),
  }));
}

describe('planning: a plan replayed from its record and the labels of the file', () => {
  const full = generatedPool({ candidates: 60, signal: [1], seed: 'replay' });
  const record: LabelPlanRecord = startLabelPlan(withLabels(full, new Set()), { evaluator: EVALUATOR, human: 'experts', target: { halfWidth: 0.1 }, seed: 7, minLabels: 10, labelsPerCandidate: 3 });

  /** Labels what the plan says, batch by batch: `steps` states, the last one's drawn batch left unlabelled. */
  function follow(steps: number): { states: LabelPlan[]; labelled: Set<string> } {
    const labelled = new Set<string>();
    const states: LabelPlan[] = [];
    for (let s = 0; s < steps; s++) {
      const plan = planLabels(withLabels(full, labelled), record, { target: { halfWidth: 0.1 } });
      states.push(plan);
      const drawn = plan.order.filter((o) => o.status === 'drawn');
      if (drawn.length === 0 || s === steps - 1) break;
      for (const o of drawn) labelled.add(`${o.itemId}/${o.candidateId}`);
    }
    return { states, labelled };
  }

  it('starts with nothing labelled, 3 labels per candidate as the team asked, and a first batch of 5 drawn candidates with their probabilities', () => {
    assert.equal(record.start.length, 0);
    assert.equal(record.labelsPerCandidate, 3);
    assert.equal(record.pool.candidates, 60);
    const plan = planLabels(withLabels(full, new Set()), record, { target: { halfWidth: 0.1 } });
    const drawn = plan.order.filter((o) => o.status === 'drawn');
    assert.equal(drawn.length, 5);
    for (const o of drawn) assert.ok(o.probability !== undefined && o.probability > 0 && o.probability < 1);
    assert.equal(plan.order.length, 60);
    assert.equal(plan.estimate.value, null);
    assert.equal(plan.counts.planned, 0);
    assert.ok(plan.labelsToGo !== null && plan.labelsToGo > 10 && plan.labelsToGo <= 60);
  });

  it('keeps earlier draws when labels arrive (the plan is a deterministic replay) and counts them in draw order', () => {
    const { states } = follow(4);
    for (let s = 1; s < states.length; s++) {
      assert.equal(states[s].counts.planned, 5 * s);
      assert.equal(states[s].estimate.labels, 5 * s);
    }
    // Re-running on the same labels gives the same plan.
    const again = planLabels(withLabels(full, new Set()), record, { target: { halfWidth: 0.1 } });
    assert.deepEqual(again.order, states[0].order);
  });

  it('waits for a drawn candidate that is partly labelled, and counts labels after it only once it is complete', () => {
    const { states, labelled } = follow(3); // 10 planned labels, the third batch drawn
    const batch = states[2].order.filter((o) => o.status === 'drawn').map((o) => `${o.itemId}/${o.candidateId}`);
    const rest = new Set([...labelled, ...batch.slice(1)]);
    const plan = planLabels(withLabels(full, rest, new Set([batch[0]])), record, { target: { halfWidth: 0.1 } });
    assert.equal(plan.counts.planned, 10);
    assert.equal(plan.order[0].status, 'drawn');
    assert.equal(plan.order[0].groupLabels, 2);
    assert.deepEqual(plan.order.slice(1, 5).map((o) => o.status), ['waiting', 'waiting', 'waiting', 'waiting']);
    assert.equal(plan.counts.partial, 1);
    const complete = planLabels(withLabels(full, new Set([...rest, batch[0]])), record, { target: { halfWidth: 0.1 } });
    assert.equal(complete.counts.planned, 15);
  });

  it('uses a label made outside the plan only when the design draws its candidate', () => {
    const { states, labelled } = follow(5); // 20 planned labels
    const last = states[4];
    const provisional = last.order.filter((o) => o.status === 'provisional');
    const outside = provisional[provisional.length - 1]; // the least likely next
    const plan = planLabels(withLabels(full, new Set([...labelled, `${outside.itemId}/${outside.candidateId}`])), record, { target: { halfWidth: 0.1 } });
    assert.equal(plan.counts.outsidePlan, 1);
    assert.equal(plan.estimate.value, last.estimate.value);
    assert.equal(plan.estimate.halfWidth, last.estimate.halfWidth);
  });

  it('ends with the pool\'s exact Spearman rho when everything is labelled, and stops', () => {
    const { states } = follow(20);
    const end = states[states.length - 1];
    const pool = full.flatMap((it) => it.candidates);
    const rho = spearmanRho(pool.map((c) => c.scores?.[EVALUATOR]?.value as number), pool.map((c) => c.annotations.filter((a) => a.coherent).length)).statistic as number;
    assert.ok(end.stop !== null);
    const last = planLabels(full, record, { target: { halfWidth: 0.1 } });
    assert.equal(last.estimate.exact, true);
    assert.ok(Math.abs((last.estimate.value as number) - rho) < 1e-12);
    assert.equal(last.estimate.halfWidth, 0);
    assert.equal(last.labelsToGo, 0);
  });

  it('counts one label as enough when the group has no labels yet (one annotator labelling alone), else the study\'s own count', () => {
    const fresh = startLabelPlan(withLabels(full, new Set()), { evaluator: EVALUATOR, human: 'experts', target: { halfWidth: 0.1 }, seed: 7 });
    assert.equal(fresh.labelsPerCandidate, 1);
    const some = new Set(full.flatMap((it) => it.candidates.slice(0, 2).map((c) => `${it.id}/${c.id}`)));
    const labelled = startLabelPlan(withLabels(full, some), { evaluator: EVALUATOR, human: 'experts', target: { halfWidth: 0.1 }, seed: 7 });
    assert.equal(labelled.labelsPerCandidate, 3, 'the study\'s experts label each candidate three times');
  });

  it('continues its last replay when the labels it revealed are unchanged, giving what a replay from the start gives', () => {
    // The editor replays after every label; a kept replay must never answer for labels that changed.
    const pair = generatedPool({ candidates: 120, copies: { count: 2, noise: 1 }, seed: 'kept replay' });
    const options = { evaluator: 'metric:copy0.score@test', against: 'metric:copy1.score@test', human: 'experts' as const, target: { halfWidth: 0.05 }, labelsPerCandidate: 3 };
    const rec = startLabelPlan(withLabels(pair, new Set()), options);
    const labelled = new Set<string>();
    const both = (items: DialogueItem[]): LabelPlan => {
      const continued = planLabels(items, rec, { target: options.target });
      forgetPlanReplays();
      const fresh = planLabels(items, rec, { target: options.target });
      assert.deepEqual(continued, fresh, `${labelled.size} labels`);
      return fresh;
    };
    let plan = both(withLabels(pair, labelled));
    for (let k = 0; k < 45; k++) {
      const next = plan.order.find((o) => o.status === 'drawn');
      if (!next) break;
      labelled.add(`${next.itemId}/${next.candidateId}`);
      plan = both(withLabels(pair, labelled));
    }
    assert.ok(plan.counts.planned >= 40 && plan.workingModel.logScore !== null, 'the replay went past the model choice');
    // An earlier label changed (one expert's verdict flipped), then removed: each time the same as from the start.
    const [first] = [...labelled];
    const flipped = withLabels(pair, labelled).map((it) => ({
      ...it,
      candidates: it.candidates.map((c) => (`${it.id}/${c.id}` === first ? { ...c, annotations: c.annotations.map((a, i) => (i === 0 ? { ...a, coherent: !a.coherent } : a)) } : c)),
    }));
    const changed = both(flipped);
    assert.notDeepEqual(changed.estimate, plan.estimate, 'the flipped label counts');
    labelled.delete(first);
    both(withLabels(pair, labelled));
  });

  it('refuses to replay on a changed pool', () => {
    const changed = withLabels(full, new Set());
    (changed[0].candidates[0].scores as Record<string, { value: number }>)[EVALUATOR].value += 1;
    assert.throws(() => planLabels(changed, record, { target: { halfWidth: 0.1 } }), /pool changed since the plan started/);
  });

  it('starts from the labels a file already has: they count exactly and are never drawn', () => {
    const some = new Set(full.slice(0, 2).flatMap((it) => it.candidates.map((c) => `${it.id}/${c.id}`)));
    const items = withLabels(full, some);
    const r = startLabelPlan(items, { evaluator: EVALUATOR, human: 'experts', target: { halfWidth: 0.1 }, minLabels: 10 });
    assert.equal(r.start.length, 20);
    const plan = planLabels(items, r, { target: { halfWidth: 0.1 } });
    assert.equal(plan.counts.start, 20);
    assert.equal(plan.order.length, 40);
    assert.ok(plan.order.every((o) => !some.has(`${o.itemId}/${o.candidateId}`)));
    assert.throws(() => startLabelPlan(items, { evaluator: EVALUATOR, human: 'experts', target: { decide: true } }), /second evaluator/);
  });
});

describe('planning: item order for an item list', () => {
  it('puts items with candidates to label first, by their earliest such candidate, then the rest in file order', async () => {
    const { planItemOrder } = await import('../../../src/core/planning/planner');
    const order = planItemOrder(
      {
        order: [
          { itemId: 'b', candidateId: '1', status: 'drawn', groupLabels: 0, labelled: false },
          { itemId: 'c', candidateId: '1', status: 'waiting', groupLabels: 3, labelled: true },
          { itemId: 'a', candidateId: '2', status: 'provisional', groupLabels: 0, labelled: false },
          { itemId: 'b', candidateId: '3', status: 'provisional', groupLabels: 1, labelled: false },
        ],
      },
      [{ id: 'a' }, { id: 'b' }, { id: 'c' }, { id: 'd' }],
    );
    assert.deepEqual(order, ['b', 'a', 'c', 'd']);
  });
});
