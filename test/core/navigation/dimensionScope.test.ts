/**
 * "Labelled" on a rubric of the study's own (issue 39 item 3; src/core/navigation/itemNavigation.ts `LabelScope`):
 * progress, the labelled filter, disagreement and "next unlabelled" count the current dimension; a dimension asked
 * only under another answer counts where it is (or still could be) asked; `U` follows the filters and search
 * (issue 41 item 3). And the MI preset's coherence answer reads as before rubrics.
 */
import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import type { Annotation, Candidate, DialogueItem } from '../../../src/core/dialogue/types';
import { COHERENCE_SCOPE, candidatePasses, describeDisagreement, dimensionDisagreement, filterItems, isLabelledBy, labelProgress, labelProgressAfter, nextUnlabelled, type LabelScope } from '../../../src/core/navigation/itemNavigation';
import { parseRubric } from '../../../src/core/rubric/rubricFile';

const RUBRIC = parseRubric(
  JSON.stringify({
    version: 1,
    name: 'quality',
    primary: 'fluency',
    dimensions: [
      { name: 'fluency', title: 'Fluency', type: 'ordinal', points: [1, 2, 3, 4, 5].map((value) => ({ value })) },
      { name: 'safe', type: 'binary' },
      { name: 'why', type: 'categorical', options: [{ value: 'rude' }, { value: 'risky' }], when: { dimension: 'safe', equals: false } },
    ],
  }),
  'quality.rubric.json',
);
const scope = (dimension: string): LabelScope => ({ rubric: RUBRIC, dimension });

const cand = (id: string, source: string, annotations: Annotation[]): Candidate => ({ id, text: `text of ${id}`, origin: { kind: 'model', source }, annotations, scores: {} });
const item = (id: string, candidates: Candidate[]): DialogueItem => ({ id, context: [{ speaker: 'client', text: `context ${id}` }], candidates }) as DialogueItem;

const items: DialogueItem[] = [
  item('a', [cand('c1', 'GPT-2', [{ annotator: 'Me', fluency: 4, safe: true }, { annotator: 'E1', fluency: 2 }]), cand('c2', 'human', [{ annotator: 'Me', safe: false }])]),
  item('b', [cand('c1', 'GPT-2', [{ annotator: 'E1', fluency: 4, safe: false, why: 'rude' }]), cand('c2', 'GPT-2', [{ annotator: 'Me', fluency: 1, safe: false, why: 'risky' }])]),
];

describe('labelled in the current dimension of a rubric', () => {
  it('counts a value of the dimension, and a dimension an answer rules out as nothing missing', () => {
    const [a, b] = items;
    assert.equal(isLabelledBy(a.candidates[0], 'Me', scope('fluency')), true);
    assert.equal(isLabelledBy(a.candidates[1], 'Me', scope('fluency')), false);
    // `why` is asked only when not safe: ruled out by Yes, missing after No, and missing while safety is unanswered.
    assert.equal(isLabelledBy(a.candidates[0], 'Me', scope('why')), true);
    assert.equal(isLabelledBy(a.candidates[1], 'Me', scope('why')), false);
    assert.equal(isLabelledBy(b.candidates[0], 'Me', scope('why')), false);
    assert.equal(isLabelledBy(b.candidates[1], 'Me', scope('why')), true);
    // The MI preset's coherence answer: as before rubrics (these annotations have none).
    assert.equal(isLabelledBy(a.candidates[0], 'Me'), false);
    assert.equal(isLabelledBy({ annotations: [{ annotator: 'Me', coherent: false }] }, 'Me', COHERENCE_SCOPE), true);
  });

  it('counts progress in the dimension per annotator, and the viewing annotator\'s progress on every dimension (labelled / asked)', () => {
    const p = labelProgress(items, 'Me', scope('fluency'));
    assert.equal(p.candidates, 4);
    assert.equal(p.mine, 2);
    assert.deepEqual(p.annotators, [
      { annotator: 'E1', labelled: 2 },
      { annotator: 'Me', labelled: 2 },
    ]);
    assert.equal(p.dimension, 'fluency');
    assert.deepEqual(p.dimensions?.map((d) => [d.dimension, d.labelled, d.asked]), [
      ['fluency', 2, 4],
      ['safe', 3, 4],
      // Asked after No (a/c2, b/c2: one answered), could still be asked where safety is unanswered (b/c1); ruled out by Yes (a/c1).
      ['why', 1, 3],
    ]);
    const coherence = labelProgress(items, 'Me');
    assert.equal(coherence.mine, 0);
    assert.equal(coherence.dimensions, undefined, 'the MI preset reads as one number, as before');
  });

  it('keeps the progress after an edit equal to the progress of the new items, whoever labels what', () => {
    const r = seedrandom('scope-progress');
    const who = ['Me', 'E1', 'E2'];
    const random = (): Annotation[] =>
      who.filter(() => r() < 0.6).map((annotator) => {
        const a: Annotation = { annotator };
        if (r() < 0.6) a.fluency = 1 + Math.floor(r() * 5);
        if (r() < 0.6) a.safe = r() < 0.5;
        if (a.safe === false && r() < 0.6) a.why = r() < 0.5 ? 'rude' : 'risky';
        return a;
      });
    for (let trial = 0; trial < 200; trial++) {
      const before = Array.from({ length: 4 }, (_, i) => item(`i${i}`, [cand('c1', 'm', random()), cand('c2', 'm', random())]));
      const k = Math.floor(r() * 4);
      const changed = item(`i${k}`, [cand('c1', 'm', random()), cand('c2', 'm', random())]);
      const after = before.map((it, i) => (i === k ? changed : it));
      for (const dimension of ['fluency', 'safe', 'why']) {
        const sc = scope(dimension);
        assert.deepEqual(labelProgressAfter(labelProgress(before, 'Me', sc), [before[k]], [changed], 'Me', sc), labelProgress(after, 'Me', sc), `trial ${trial}, ${dimension}`);
      }
    }
  });

  it('filters labelled and disagreeing candidates in the dimension, and says who gave what', () => {
    const ctx = { annotator: 'Me', blind: false, scales: new Map(), scope: scope('fluency') };
    assert.deepEqual(filterItems(items, { mine: 'unlabelled' }, ctx), [0, 1]);
    assert.deepEqual(filterItems(items, { annotatorsDisagree: true }, ctx), [0]);
    assert.deepEqual(dimensionDisagreement(items[0].candidates[0], scope('fluency')), [
      { value: '4', annotators: ['Me'] },
      { value: '2', annotators: ['E1'] },
    ]);
    assert.equal(describeDisagreement(items[0].candidates[0], scope('fluency')), 'Annotators disagree on Fluency: 4 Me · 2 E1');
    assert.equal(dimensionDisagreement(items[0].candidates[0], scope('safe')), null, 'E1 gave no safety answer');
  });

  it('goes to the next candidate unlabelled in the dimension that passes the filters and search, wrapping around', () => {
    const order = [0, 1];
    const byOrigin = (origin: string) => (it: DialogueItem, c: Candidate) => candidatePasses(it, c, { origin }, { annotator: 'Me', blind: false, scales: new Map(), scope: scope('fluency') });
    assert.deepEqual(nextUnlabelled(items, order, { itemIndex: 0, candidateId: 'c1' }, 'Me', undefined, { scope: scope('fluency') }), { itemIndex: 0, candidateId: 'c2' });
    // a/c2 is human: with the GPT-2 filter on, U skips it to b/c1.
    assert.deepEqual(nextUnlabelled(items, order, { itemIndex: 0, candidateId: 'c1' }, 'Me', undefined, { scope: scope('fluency'), passes: byOrigin('GPT-2') }), { itemIndex: 1, candidateId: 'c1' });
    // In `why`, b/c1 (safety unanswered) still needs it; from there the next is a/c2 (No, no reason), around the end.
    assert.deepEqual(nextUnlabelled(items, order, { itemIndex: 1, candidateId: 'c1' }, 'Me', undefined, { scope: scope('why') }), { itemIndex: 0, candidateId: 'c2' });
    // A search that only b's context holds.
    const search = (it: DialogueItem, c: Candidate) => candidatePasses(it, c, { text: 'context b' }, { annotator: 'Me', blind: false, scales: new Map(), scope: scope('safe') });
    assert.deepEqual(nextUnlabelled(items, order, null, 'Me', undefined, { scope: scope('safe'), passes: search }), { itemIndex: 1, candidateId: 'c1' });
  });
});
