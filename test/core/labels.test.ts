import assert from 'node:assert/strict';
import { coherenceScore, setCoherence } from '../../src/core/labels/annotate';
import { mergeNewCandidates, mergeScores } from '../../src/core/model/merge';
import type { DialogueItem } from '../../src/core/model/types';

const base = (): DialogueItem => ({
  id: 'i',
  context: [],
  candidates: [{ id: 'c', text: 't', origin: { kind: 'human' }, annotations: [{ annotator: 'other', coherent: false }], scores: {} }],
});

describe('labels', () => {
  it('sets, changes and clears one annotator\'s coherence label without touching others', () => {
    const t = new Date('2026-11-22T10:00:00Z');
    const a = setCoherence(base(), 'c', 'me', true, t);
    assert.deepEqual(a.candidates[0].annotations, [{ annotator: 'other', coherent: false }, { annotator: 'me', coherent: true, updatedAt: t.toISOString() }]);
    const b = setCoherence(a, 'c', 'me', false, t);
    assert.equal(b.candidates[0].annotations[1].coherent, false);
    const c = setCoherence(b, 'c', 'me', undefined, t);
    assert.equal('coherent' in c.candidates[0].annotations[1], false);
    assert.equal(base().candidates[0].annotations.length, 1, 'input not modified');
    assert.throws(() => setCoherence(base(), 'nope', 'me', true), /has no candidate "nope"/);
    assert.throws(() => setCoherence(base(), 'c', ' ', true), /annotator id is required/);
  });

  it('counts annotators who said coherent, and gives null when nobody labelled', () => {
    const item = setCoherence(setCoherence(base(), 'c', 'e1', true), 'c', 'e2', true);
    assert.equal(coherenceScore(item.candidates[0]), 2);
    assert.equal(coherenceScore(item.candidates[0], (a) => a.annotator.startsWith('e')), 2);
    assert.equal(coherenceScore(item.candidates[0], (a) => a.annotator === 'other'), 0);
    assert.equal(coherenceScore({ ...base().candidates[0], annotations: [{ annotator: 'x' }] }), null);
  });
});

describe('merging job results into the current document', () => {
  it('adds only new candidates and keeps labels made meanwhile', () => {
    const snapshot = base();
    const computed = structuredClone(snapshot);
    computed.candidates.push({ id: 'g1', text: 'new', origin: { kind: 'model' }, annotations: [], scores: {} });
    const current = setCoherence(snapshot, 'c', 'me', true);
    current.candidates.push({ id: 'g1', text: 'typed by hand', origin: { kind: 'human' }, annotations: [], scores: {} });
    const merged = mergeNewCandidates(current, snapshot, computed);
    assert.deepEqual(merged.candidates.map((c) => c.id), ['c', 'g1', 'g1-2']);
    assert.equal(merged.candidates[0].annotations.length, 2);
    assert.equal(mergeNewCandidates(current, snapshot, snapshot), current);
  });

  it('copies scores of one evaluator by candidate id', () => {
    const computed = base();
    computed.candidates[0].scores = { j: { value: 3, status: 'ok' }, other: { value: 1, status: 'ok' } };
    const current = base();
    current.candidates[0].scores = { keep: { value: 9, status: 'ok' } };
    const merged = mergeScores(current, computed, 'j');
    assert.deepEqual(merged.candidates[0].scores, { keep: { value: 9, status: 'ok' }, j: { value: 3, status: 'ok' } });
    assert.equal(mergeScores(current, base(), 'j'), current);
  });
});
