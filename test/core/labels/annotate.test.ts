import assert from 'node:assert/strict';
import {
  applyLabelOp,
  applyLabelOpToAnnotation,
  coherenceScore,
  labelStatus,
  mostEvidentErrorOf,
  setCoherence,
  setEmpathy,
  setMostEvidentError,
  setOtherText,
  toggleError,
  type LabelOp,
} from '../../../src/core/labels/annotate';
import { mergeScores } from '../../../src/core/dialogue/merge';
import type { Annotation, DialogueItem } from '../../../src/core/dialogue/types';

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

const T = new Date('2026-11-22T10:00:00Z');
/** The annotation of `me` on candidate c after applying `ops` in order. */
function after(ops: LabelOp[], start: DialogueItem = base()): Annotation | undefined {
  let item = start;
  for (const op of ops) item = applyLabelOp(item, 'c', 'me', op, T);
  return item.candidates[0].annotations.find((a) => a.annotator === 'me');
}
/** The annotation without its timestamp. */
const plain = (a: Annotation | undefined) => {
  if (!a) return a;
  const { updatedAt: _, ...rest } = a;
  return rest;
};

describe('label operations (first study §4.2.3)', () => {
  it('chooses and unchooses errors in the order of §4.1.3, answering No', () => {
    assert.deepEqual(plain(after([{ kind: 'toggleError', error: 'offTopic' }, { kind: 'toggleError', error: 'malformed' }])), {
      annotator: 'me',
      coherent: false,
      errors: ['malformed', 'offTopic'],
    });
    assert.deepEqual(plain(after([{ kind: 'toggleError', error: 'parroting' }, { kind: 'toggleError', error: 'parroting' }])), { annotator: 'me', coherent: false });
    assert.throws(() => after([{ kind: 'toggleError', error: 'nonsense' as never }]), /unknown error category "nonsense"/);
  });

  it('marks the most evident error among the chosen ones, and a single error is its own MEE', () => {
    const one = after([{ kind: 'coherence', coherent: false }, { kind: 'toggleError', error: 'parroting' }]);
    assert.equal(one?.mostEvidentError, undefined, 'nothing stored for a single error');
    assert.equal(mostEvidentErrorOf(one), 'parroting');
    assert.equal(labelStatus(one), 'complete');
    const two = after([{ kind: 'toggleError', error: 'parroting' }, { kind: 'toggleError', error: 'offTopic' }]);
    assert.equal(mostEvidentErrorOf(two), undefined);
    assert.equal(labelStatus(two), 'needsMostEvidentError');
    const marked = after([{ kind: 'toggleError', error: 'parroting' }, { kind: 'toggleError', error: 'offTopic' }, { kind: 'mostEvidentError', error: 'offTopic' }]);
    assert.equal(mostEvidentErrorOf(marked), 'offTopic');
    assert.equal(labelStatus(marked), 'complete');
    // Marking an error not chosen yet chooses it; unchoosing the MEE removes the mark.
    const added = after([{ kind: 'toggleError', error: 'parroting' }, { kind: 'mostEvidentError', error: 'malformed' }]);
    assert.deepEqual(added?.errors, ['malformed', 'parroting']);
    assert.equal(added?.mostEvidentError, 'malformed');
    const unchosen = after([{ kind: 'toggleError', error: 'parroting' }, { kind: 'mostEvidentError', error: 'malformed' }, { kind: 'toggleError', error: 'malformed' }]);
    assert.deepEqual(plain(unchosen), { annotator: 'me', coherent: false, errors: ['parroting'] });
    assert.equal(after([{ kind: 'mostEvidentError', error: 'malformed' }, { kind: 'mostEvidentError', error: null }])?.mostEvidentError, undefined);
  });

  it('takes empathy 1–5 only for coherent responses, answering Yes', () => {
    assert.deepEqual(plain(after([{ kind: 'empathy', value: 4 }])), { annotator: 'me', coherent: true, empathy: 4 });
    assert.equal(labelStatus(after([{ kind: 'coherence', coherent: true }])), 'needsEmpathy');
    assert.equal(labelStatus(after([{ kind: 'empathy', value: 1 }])), 'complete');
    assert.equal(after([{ kind: 'empathy', value: 5 }, { kind: 'empathy', value: null }])?.empathy, undefined);
    for (const bad of [0, 6, 2.5]) assert.throws(() => after([{ kind: 'empathy', value: bad as never }]), /empathy must be an integer 1–5/);
  });

  it('stashes what stops applying when coherence flips, in one change, and restores it when it flips back', () => {
    const incoherent: LabelOp[] = [
      { kind: 'toggleError', error: 'parroting' },
      { kind: 'toggleError', error: 'other' },
      { kind: 'otherText', text: 'says "you" twice' },
      { kind: 'mostEvidentError', error: 'other' },
    ];
    const flipped = after([...incoherent, { kind: 'coherence', coherent: true }, { kind: 'empathy', value: 2 }]);
    assert.deepEqual(plain(flipped), {
      annotator: 'me',
      coherent: true,
      empathy: 2,
      stashed: { errors: ['parroting', 'other'], mostEvidentError: 'other', otherText: 'says "you" twice' },
    });
    const back = after([...incoherent, { kind: 'coherence', coherent: true }, { kind: 'empathy', value: 2 }, { kind: 'coherence', coherent: false }]);
    assert.deepEqual(plain(back), {
      annotator: 'me',
      coherent: false,
      errors: ['parroting', 'other'],
      mostEvidentError: 'other',
      otherText: 'says "you" twice',
      stashed: { empathy: 2 },
    });
    const again = after([...incoherent, { kind: 'coherence', coherent: true }, { kind: 'empathy', value: 2 }, { kind: 'coherence', coherent: false }, { kind: 'coherence', coherent: true }]);
    assert.deepEqual(plain(again), { ...plain(flipped) });
    // Clearing the answer stashes everything; answering again restores what applies.
    const cleared = after([...incoherent, { kind: 'coherence', coherent: null }]);
    assert.deepEqual(plain(cleared), { annotator: 'me', stashed: { errors: ['parroting', 'other'], mostEvidentError: 'other', otherText: 'says "you" twice' } });
    assert.equal(labelStatus(cleared), 'unlabelled');
    assert.deepEqual(after([...incoherent, { kind: 'coherence', coherent: null }, { kind: 'coherence', coherent: false }])?.errors, ['parroting', 'other']);
  });

  it('keeps the free text of Other when Other is unchosen, and brings it back with Other', () => {
    const ops: LabelOp[] = [{ kind: 'otherText', text: 'odd tone' }];
    assert.deepEqual(plain(after(ops)), { annotator: 'me', coherent: false, errors: ['other'], otherText: 'odd tone' });
    const off = after([...ops, { kind: 'toggleError', error: 'other' }]);
    assert.deepEqual(plain(off), { annotator: 'me', coherent: false, stashed: { otherText: 'odd tone' } });
    assert.equal(after([...ops, { kind: 'toggleError', error: 'other' }, { kind: 'toggleError', error: 'other' }])?.otherText, 'odd tone');
    assert.equal(after([...ops, { kind: 'otherText', text: '  ' }])?.otherText, undefined);
  });

  it('is copy-on-write: only the path to the changed annotation is new, and a no-op returns the input', () => {
    const start: DialogueItem = {
      ...base(),
      extra: { kept: true },
      candidates: [...base().candidates, { id: 'd', text: 'u', origin: { kind: 'model' }, annotations: [], scores: {} }],
    };
    const frozen = structuredClone(start);
    const next = toggleError(start, 'c', 'me', 'malformed', T);
    assert.deepEqual(start, frozen, 'input not modified');
    assert.notEqual(next, start);
    assert.notEqual(next.candidates[0], start.candidates[0]);
    assert.equal(next.candidates[1], start.candidates[1], 'untouched candidate shared');
    assert.equal(next.candidates[0].annotations[0], start.candidates[0].annotations[0], "other annotator's label shared");
    assert.equal(next.context, start.context);
    assert.deepEqual(next.extra, { kept: true });
    assert.equal(setCoherence(next, 'c', 'me', false, new Date()), next, 'answering No again changes nothing');
    assert.equal(setCoherence(start, 'c', 'me', undefined), start, 'clearing a label that does not exist adds nothing');
    const twice = setEmpathy(setEmpathy(start, 'd', 'me', 3, T), 'd', 'me', 3, new Date(T.getTime() + 1000));
    assert.equal(twice.candidates[1].annotations[0].updatedAt, T.toISOString(), 'a no-op keeps the timestamp');
  });

  it('keeps unknown fields of the annotation and the other annotators\' labels', () => {
    const start = base();
    start.candidates[0].annotations.push({ annotator: 'me', coherent: false, errors: ['malformed'], note: 'mine', group: 'expert' });
    const next = setMostEvidentError(setOtherText(start, 'c', 'me', 'x', T), 'c', 'me', 'other', T);
    assert.deepEqual(plain(next.candidates[0].annotations[1]), {
      annotator: 'me',
      coherent: false,
      errors: ['malformed', 'other'],
      note: 'mine',
      group: 'expert',
      otherText: 'x',
      mostEvidentError: 'other',
    });
    assert.deepEqual(next.candidates[0].annotations[0], { annotator: 'other', coherent: false });
  });

  it('applies an operation to a missing annotation', () => {
    const a = applyLabelOpToAnnotation(undefined, 'me', { kind: 'coherence', coherent: false }, T);
    assert.deepEqual(a, { annotator: 'me', coherent: false, updatedAt: T.toISOString() });
  });
});

describe('merging job results into the current document', () => {
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
