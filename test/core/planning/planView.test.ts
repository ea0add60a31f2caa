import assert from 'node:assert/strict';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { planLabels, startLabelPlan } from '../../../src/core/planning/planner';
import { labelPlanRecordPath, planListOrder, planStateView } from '../../../src/core/planning/planView';
import { generatedPool } from './generatedPool';

const EVALUATOR = 'metric:gen0.score@test';

/** `full` with annotations kept only on the candidates in `labelled`. */
function withLabels(full: readonly DialogueItem[], labelled: ReadonlySet<string>): DialogueItem[] {
  return full.map((it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: labelled.has(`${it.id}/${c.id}`) ? c.annotations : [] })) }));
}

describe('planning: the plan as the item list shows it', () => {
  const full = generatedPool({ candidates: 80, signal: [1.5], seed: 'view' });
  const target = { halfWidth: 0.1 };
  const record = startLabelPlan(withLabels(full, new Set()), { evaluator: EVALUATOR, human: 'experts', target, seed: 3, minLabels: 10, labelsPerCandidate: 3 });

  it('keeps the record beside the file where the CLI does', () => {
    assert.equal(labelPlanRecordPath('/w/study.dialogues.jsonl'), '/w/study.label-plan.json');
    assert.equal(labelPlanRecordPath('/w/other.jsonl'), '/w/other.label-plan.json');
  });

  it('lists the items of the drawn candidates first, every item once, and follows the labels as they are made', () => {
    const items = withLabels(full, new Set());
    const plan = planLabels(items, record, { target });
    const order = planListOrder(plan, items);
    assert.deepEqual([...order].sort((a, b) => a - b), items.map((_, i) => i));
    const firstDrawn = plan.order.find((o) => o.status === 'drawn')!;
    assert.equal(items[order[0]].id, firstDrawn.itemId);
    // Label every candidate of the first listed item: it moves behind the items that still need labels.
    const done = new Set(items[order[0]].candidates.map((c) => `${items[order[0]].id}/${c.id}`));
    const after = withLabels(full, done);
    const next = planListOrder(planLabels(after, record, { target }), after);
    assert.notEqual(next[0], order[0]);
    assert.equal(next[next.length - 1], order[0]);
  });

  it('shows the estimate and interval, labels to go, and hides the estimate in blind mode', () => {
    // Follow the plan for 30 labels.
    const labelled = new Set<string>();
    for (let s = 0; s < 6; s++) {
      const p = planLabels(withLabels(full, labelled), record, { target });
      for (const o of p.order.filter((x) => x.status === 'drawn')) labelled.add(`${o.itemId}/${o.candidateId}`);
    }
    const plan = planLabels(withLabels(full, labelled), record, { target });
    assert.ok(plan.estimate.value !== null);
    const seen = planStateView(plan, { blind: false, name: () => 'Gen 0' });
    assert.equal(seen.estimateShown, true);
    assert.match(seen.text, new RegExp(`^rho ${plan.estimate.value!.toFixed(3).replace('-', '−')}, 95 % interval \\[`));
    assert.match(seen.text, /labels to go|you can stop/);
    assert.match(seen.title, /Spearman's rho of Gen 0 with the experts' coherence score/);
    const blind = planStateView(plan, { blind: true, name: () => 'Gen 0' });
    assert.equal(blind.estimateShown, false);
    assert.match(blind.text, /^estimate hidden in blind mode/);
    assert.doesNotMatch(blind.text, new RegExp(plan.estimate.value!.toFixed(3)));
    assert.doesNotMatch(blind.text, /interval/);
    assert.equal(blind.labelsToGo, seen.labelsToGo);
  });

  it('says there is no estimate before the first planned labels', () => {
    const items = withLabels(full, new Set());
    const v = planStateView(planLabels(items, record, { target }), { blind: false });
    assert.match(v.text, /^no estimate yet · about \d+ labels to go \(target half-width 0\.1\)$/);
  });
});
