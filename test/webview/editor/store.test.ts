/** The dialogue editor webview's state and its rules (webview/editor/store.ts), without a page. */
import assert from 'node:assert/strict';
import { annotatorView, type ItemView } from '../../../src/core/labels/annotatorView';
import { acknowledge, canAct, createStore, displayed, focusStateOf, focusStateToPost, leaveResponses, moveInResponses, openResponses, responsesBanner, savedState, takeItem } from '../../../webview/editor/store';
import type { ResponseList } from '../../../src/core/navigation/responseList';
import { studyItem } from '../../extension/editor/memoryEditor';
import { parseRubric } from '../../../src/core/rubric/rubricFile';

/** A rubric of its own: two Likert dimensions and one categorical. */
const QUALITY = parseRubric(
  JSON.stringify({
    version: 1,
    name: 'quality',
    primary: 'fluency',
    dimensions: [
      { name: 'fluency', type: 'ordinal', points: [1, 2, 3, 4, 5].map((value) => ({ value })) },
      { name: 'relevance', type: 'ordinal', points: [1, 2, 3, 4, 5].map((value) => ({ value })) },
      { name: 'error type', type: 'categorical', options: [{ value: 'none', key: 'a' }, { value: 'generic', key: 'b' }] },
    ],
  }),
  'quality.rubric.json',
);

const view = (): ItemView => annotatorView(studyItem(1), { annotator: 'Lay-1', blind: false, comparison: false });

/** A store showing item 1 (from full item message 7), annotator Lay-1. */
function showing() {
  const s = createStore({ selected: 1, collapsedScores: ['judges'] });
  s.annotator = 'Lay-1';
  assert.equal(takeItem(s, { index: 1, view: view(), scores: { c0: [] } }, 7), 'shown');
  return s;
}

describe('editor webview store', () => {
  it('a page loaded again focuses the candidate it left, not the first unlabelled one (issue 41 item 6)', () => {
    const before = showing();
    before.focused = 'c2';
    const again = createStore(savedState(before));
    assert.equal(again.selected, 1);
    assert.equal(again.revealCandidate, 'c2');
  });

  it('walks a response list across items with J/K, stops at its ends, and Escape returns to where it opened (issue 41 item 4)', () => {
    const s = showing();
    s.focused = 'c1';
    const list: ResponseList = { title: 'BLEU-4 × coherent, GPT-2', evaluator: 'BLEU-4', start: 0, entries: [
      { index: 3, itemId: 'i3', candidateId: 'a', score: 0.9, human: 3 },
      { index: 1, itemId: 'i1', candidateId: 'c0', score: 0.5, human: 1 },
      { index: 5, itemId: 'i5', candidateId: 'b', score: 0.1, human: 0 },
    ] };
    assert.equal(moveInResponses(s, 1), null, 'no list open: J/K move between candidates');
    assert.deepEqual(openResponses(s, list), list.entries[0]);
    // The first response is on its way (item 3); c1 of item 1 is still on screen: the banner names the one coming.
    s.revealCandidate = 'a';
    s.selected = 3;
    assert.match(responsesBanner(s) ?? '', /· 1 of 3: /);
    s.revealCandidate = null;
    s.selected = 1;
    // Shown: item 1 is still on screen, c1 is not in the list; J goes to the position shown last (the first).
    assert.deepEqual(moveInResponses(s, 1), list.entries[0]);
    s.selected = 3; s.current = { ...s.current!, index: 3 }; s.focused = 'a';
    assert.match(responsesBanner(s) ?? '', /^BLEU-4 × coherent, GPT-2: 3 responses · 1 of 3: BLEU-4 0\.900, human 3 — J\/K move, Esc returns$/);
    assert.deepEqual(moveInResponses(s, -1), 'end');
    assert.deepEqual(moveInResponses(s, 1), list.entries[1]);
    s.selected = 1; s.current = { ...s.current!, index: 1 }; s.focused = 'c0';
    assert.deepEqual(moveInResponses(s, 1), list.entries[2]);
    s.selected = 5; s.current = { ...s.current!, index: 5 }; s.focused = 'b';
    assert.equal(moveInResponses(s, 1), 'end');
    // A second list keeps the place the first one opened from.
    openResponses(s, { ...list, start: 2 });
    assert.equal(s.responses?.last, 2);
    assert.deepEqual(savedState(s).responses?.returnTo, { index: 1, candidateId: 'c1' });
    assert.deepEqual(leaveResponses(s), { index: 1, candidateId: 'c1' });
    assert.equal(s.responses, null);
    assert.equal(responsesBanner(s), null);
    assert.equal(leaveResponses(s), null);
  });

  it('starts from what the page kept, and keeps the selection and collapsed score groups', () => {
    const s = createStore({ selected: 4, collapsedScores: ['metrics'] });
    assert.equal(s.selected, 4);
    assert.ok(s.collapsedGroups.has('metrics'));
    assert.deepEqual(savedState(s), { selected: 4, focused: null, collapsedScores: ['metrics'], responses: null });
  });

  it('shows label operations on top of the item until the host says it applied them, each side by its own count', () => {
    const s = showing();
    s.pending.push({ side: 'webview', seq: 3, itemId: 'item-1', candidateId: 'c1', op: { kind: 'coherence', coherent: true } });
    s.pending.push({ side: 'host', seq: 12, itemId: 'item-1', candidateId: 'c1', op: { kind: 'empathy', value: 5 } });
    s.pending.push({ side: 'webview', seq: 4, itemId: 'item-9', candidateId: 'c1', op: { kind: 'coherence', coherent: false } });
    const shown = displayed(s)!.candidates.find((c) => c.id === 'c1')!.mine!;
    assert.deepEqual([shown.coherent, shown.empathy], [true, 5], 'No, then Yes and 5 on top: in order');
    assert.equal(acknowledge(s, { webview: 3, host: 11 }), true);
    assert.deepEqual(s.pending.map((p) => `${p.side} ${p.seq}`), ['host 12', 'webview 4']);
    assert.equal(acknowledge(s, { webview: 3, host: 11 }), false, 'nothing new');
    assert.equal(acknowledge(s, { webview: 4, host: 12 }), true);
    assert.deepEqual(s.pending, []);
    assert.equal(displayed(s)!.candidates.find((c) => c.id === 'c1')!.mine?.coherent, false, 'back to what the host sent');
  });

  it('merges a partial item into the full one it names, and asks again when the page does not hold that one', () => {
    const s = showing();
    const before = s.current!.view;
    const changed = { ...before.candidates[2], text: 'changed' };
    assert.equal(takeItem(s, { index: 1, candidates: [changed], scores: { c2: [] }, base: 7 }, 9), 'shown');
    assert.deepEqual(s.current!.view.candidates.map((c) => c.text), [before.candidates[0].text, before.candidates[1].text, 'changed'], 'the order and the others kept');
    assert.deepEqual(Object.keys(s.current!.scores).sort(), ['c0', 'c2']);
    assert.equal(s.current!.base, 7, 'still builds on message 7');
    assert.equal(takeItem(s, { index: 1, candidates: [], scores: {}, base: 8 }, 10), 'askAgain', 'a base this page never got');
    assert.equal(takeItem(s, { index: 2, view: view(), scores: {} }, 11), 'ignored', 'another item than the selected one');
    assert.equal(takeItem(s, { index: 1, view: view(), scores: {} }, 12), 'shown');
    assert.equal(s.current!.base, 12);
  });

  it('lets an action run only with the selected item shown and no "next unlabelled" answer on its way', () => {
    const s = showing();
    assert.ok(canAct(s, 0));
    assert.ok(!canAct(s, 1));
    s.selected = 2;
    assert.ok(!canAct(s, 0), 'the selected item is on its way');
  });

  it('tells the host its focus only when it changed, settled only on a shown candidate with nothing held back', () => {
    const s = showing();
    s.focused = 'c1';
    s.lastMove = 5;
    assert.deepEqual(focusStateToPost(s, 0), { move: 5, index: 1, itemId: 'item-1', candidateId: 'c1', settled: true });
    assert.equal(focusStateToPost(s, 0), null, 'the same state is not posted twice');
    s.deferred.push({ kind: 'coherent' });
    assert.equal(focusStateToPost(s, 0)?.settled, false);
    s.deferred = [];
    assert.equal(focusStateOf(s, 1).settled, false, 'an answer to "next unlabelled" is on its way');
    s.focused = 'gone';
    assert.equal(focusStateOf(s, 0).settled, false, 'not a candidate of the item');
  });

  it('shows operations on a rubric of its own under that rubric; one the rubric refuses is not shown (the host reports it)', () => {
    const s = showing();
    s.rubric = QUALITY;
    s.preset = false;
    s.pending.push({ side: 'webview', seq: 3, itemId: 'item-1', candidateId: 'c1', op: { kind: 'set', dimension: 'fluency', value: 4 } });
    s.pending.push({ side: 'host', seq: 12, itemId: 'item-1', candidateId: 'c1', op: { kind: 'set', dimension: 'error type', value: 'generic' } });
    s.pending.push({ side: 'webview', seq: 4, itemId: 'item-1', candidateId: 'c1', op: { kind: 'set', dimension: 'relevance', value: 9 } });
    const shown = displayed(s)!.candidates.find((c) => c.id === 'c1')!.mine!;
    assert.deepEqual([shown.fluency, shown['error type'], shown.relevance], [4, 'generic', undefined]);
  });

  it('tells the host the active question outside the MI preset only (the preset\'s keys are all its own)', () => {
    const s = showing();
    s.focused = 'c1';
    s.question = 'relevance';
    assert.equal(focusStateOf(s, 0).question, undefined, 'the MI preset: as before rubrics');
    s.rubric = QUALITY;
    s.preset = false;
    assert.equal(focusStateOf(s, 0).question, 'relevance');
  });
});
