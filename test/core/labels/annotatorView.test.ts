import assert from 'node:assert/strict';
import { annotatorView, blindCandidateId, blindOrder, candidateIdOfView } from '../../../src/core/labels/annotatorView';
import type { DialogueItem } from '../../../src/core/dialogue/types';

const ids = Array.from({ length: 10 }, (_, i) => `c${i}`);

function item(): DialogueItem {
  return {
    id: 'item-1',
    context: [{ speaker: 'client', text: 'I drink too much.' }],
    reference: { text: 'You feel you drink too much.' },
    provenance: { dataset: 'AnnoMI', topic: 'alcohol' },
    candidates: ids.map((id, i) => ({
      id,
      text: `candidate ${i}`,
      origin: i === 0 ? { kind: 'human', source: 'ground truth' } : { kind: 'model', model: 'gpt2', decoding: { strategy: 'greedy' } },
      cluster: { id: 'k', representative: true, size: 1 },
      annotations: [
        { annotator: 'me', coherent: i % 2 === 0 },
        { annotator: 'Expert-1', coherent: true, empathy: 5 },
      ],
      scores: { 'metric:bleu4': { value: 0.1, status: 'ok' } },
    })),
  };
}

describe('blind mode (first study §4.1.2: annotators are not told where a response came from)', () => {
  it('orders candidates per annotator, deterministically, as a permutation', () => {
    const a = blindOrder('item-1', ids, 'Annotator-A');
    assert.deepEqual(blindOrder('item-1', ids, 'Annotator-A'), a, 'same annotator, same order');
    assert.deepEqual([...a].sort(), [...ids].sort(), 'a permutation');
    assert.notDeepEqual(a, ids, 'shuffled');
    const others = ['Annotator-B', 'Annotator-C', 'Expert-1'].map((n) => blindOrder('item-1', ids, n));
    assert.ok(others.some((o) => o.join() !== a.join()), 'other annotators see other orders');
    assert.notDeepEqual(blindOrder('item-2', ids, 'Annotator-A'), a, 'another item, another order');
    // Pinned: seedrandom 3's ARC4 keys for this seed; a change of generator would silently reorder every study.
    assert.deepEqual(a, PINNED);
  });

  it('keeps the order of candidates already seen when candidates are added', () => {
    const before = blindOrder('item-1', ids.slice(0, 6), 'Annotator-A');
    const after = blindOrder('item-1', ids, 'Annotator-A').filter((id) => before.includes(id));
    assert.deepEqual(after, before);
  });

  it('gives every order of three candidates about equally often across annotators', () => {
    const counts = new Map<string, number>();
    const n = 6000;
    for (let i = 0; i < n; i++) {
      const o = blindOrder('item', ['a', 'b', 'c'], `annotator-${i}`).join('');
      counts.set(o, (counts.get(o) ?? 0) + 1);
    }
    assert.equal(counts.size, 6);
    // Chi-square with 5 df: 20.5 is the 0.999 quantile.
    const chi2 = [...counts.values()].reduce((s, c) => s + (c - n / 6) ** 2 / (n / 6), 0);
    assert.ok(chi2 < 20.5, `chi-square ${chi2.toFixed(2)} over ${JSON.stringify([...counts])}`);
  });

  it('hides origins, clusters, scores and the reference, and shows only the annotator\'s own labels', () => {
    const v = annotatorView(item(), { annotator: 'me', blind: true, comparison: false });
    assert.equal(v.reference, undefined);
    assert.deepEqual(v.provenance, { dataset: 'AnnoMI', topic: 'alcohol' });
    // opaque ids in the annotator's order: a real id (`ref`, `g1`, a source's slug) would tell the origin
    assert.deepEqual(v.candidates.map((c) => c.id), blindOrder('item-1', ids, 'me').map((id) => blindCandidateId('item-1', id, 'me')));
    assert.ok(v.candidates.every((c) => /^blind-[0-9a-f]{12}$/.test(c.id) && !ids.includes(c.id)));
    assert.deepEqual(v.candidates.map((c) => candidateIdOfView(item(), c.id, 'me')), blindOrder('item-1', ids, 'me'), 'the host maps them back');
    assert.equal(candidateIdOfView(item(), ids[0], 'me'), ids[0]);
    assert.equal(candidateIdOfView(item(), 'blind-000000000000', 'me'), undefined);
    assert.deepEqual(v.candidates.map((c) => c.position), ids.map((_, i) => i + 1));
    for (const c of v.candidates) {
      assert.deepEqual(Object.keys(c).sort(), ['id', 'mine', 'position', 'text']);
      assert.equal(c.mine?.annotator, 'me');
    }
    assert.ok(!JSON.stringify(v).includes('ground truth') && !JSON.stringify(v).includes('gpt2') && !JSON.stringify(v).includes('Expert-1'));
  });

  it('shows everything in file order outside blind mode, and every annotator in the comparison view', () => {
    const v = annotatorView(item(), { annotator: 'me', blind: false, comparison: true });
    assert.deepEqual(v.candidates.map((c) => c.id), ids);
    assert.equal(v.reference?.text, 'You feel you drink too much.');
    assert.equal(v.candidates[0].origin?.source, 'ground truth');
    assert.deepEqual(v.candidates[0].others, [{ annotator: 'Expert-1', coherent: true, empathy: 5 }]);
    assert.equal(v.candidates[0].scores?.['metric:bleu4'].value, 0.1);
    const anonymous = annotatorView(item(), { annotator: null, blind: false, comparison: false });
    assert.equal(anonymous.candidates[0].mine, undefined);
    assert.equal(anonymous.candidates[0].others, undefined);
  });
});

const PINNED = ["c3", "c2", "c4", "c5", "c8", "c6", "c7", "c0", "c9", "c1"];
