/**
 * The editor's view of an estimate plan: a pure function of the items and the record; blind mode shows the order, the
 * counts and the labels to go, never an estimate, an interval or a draw probability; the item order puts the items
 * of the drawn candidates first.
 */
import assert from 'node:assert/strict';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { startEstimatePlan } from '../../../src/core/estimation/activePlan';
import { estimatePlanView } from '../../../src/core/estimation/estimateView';
import { gemGridPool } from '../../../scripts/estimation/generatedPools';

describe('estimate plan view (for the dialogue editor)', function () {
  this.timeout(60_000);
  const full = gemGridPool(4, 'view');
  const open: DialogueItem[] = full.map((it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: c.annotations.filter((a) => a.group !== 'expert') })) }));
  const record = startEstimatePlan(open, { estimand: { kind: 'coherence-rate', aggregate: 'majority' }, predictors: ['human:laypeople'], by: 'model', halfWidth: 0.15, labelsPerCandidate: 3 });

  it('puts the items of the drawn candidates first, and updates after labels', () => {
    const v = estimatePlanView(open, record, { blind: false });
    assert.equal(v.rows.length, 3);
    assert.equal(v.itemOrder.length, 4);
    assert.deepEqual([...v.itemOrder].sort(), [0, 1, 2, 3]);
    const firstDrawn = v.next[0];
    assert.equal(firstDrawn.status, 'drawn');
    assert.equal(open[v.itemOrder[0]].id, firstDrawn.itemId);
    assert.match(v.text, /^experts' coherence rate \(majority vote\) per model · about \d+ labels to go \(± 0\.15 in every group\)$/);
    // label 40 planned candidates: estimates appear
    let items = open;
    for (let i = 0; i < 8; i++) {
      const drawn = estimatePlanView(items, record, { blind: false }).next.filter((n) => n.status === 'drawn');
      const want = new Set(drawn.map((d) => `${d.itemId}\u0000${d.candidateId}`));
      items = items.map((it, a) => ({ ...it, candidates: it.candidates.map((c, b) => (want.has(`${it.id}\u0000${c.id}`) ? full[a].candidates[b] : c)) }));
    }
    const after = estimatePlanView(items, record, { blind: false });
    assert.ok(after.rows.some((r) => r.estimate !== null && r.labelled > 0));
    assert.ok(after.estimateShown);
    const blind = estimatePlanView(items, record, { blind: true });
    assert.equal(blind.estimateShown, false);
    assert.ok(blind.rows.every((r) => r.estimate === null && !/\d\.\d{3}/.test(r.text)), JSON.stringify(blind.rows));
    assert.ok(blind.next.every((n) => !('probability' in n)));
    assert.deepEqual(blind.itemOrder, after.itemOrder, 'blind mode keeps the order');
    assert.match(blind.title, /Blind mode: estimates and intervals are hidden/);
  });
});
