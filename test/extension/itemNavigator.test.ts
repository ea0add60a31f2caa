/**
 * The editor's item list, host side (src/extension/itemNavigator.ts), on the rule for U (issue 41 items 2-3): which
 * candidates are dimmed and which the plan drew, where U and F3 go in blind mode and in plan order, and the to-go
 * count on the navigator state and in the status bar.
 */
import assert from 'node:assert/strict';
import type { Candidate, DialogueItem } from '../../src/core/dialogue/types';
import { annotatorView, blindCandidateId } from '../../src/core/labels/annotatorView';
import { candidateMarks, navigatorState, nextMatchTarget, nextUnlabelledTarget, progressStatusText, type ListPlan } from '../../src/extension/itemNavigator';

const cand = (id: string, text: string, source: string, labelledByMe = false): Candidate => ({ id, text, origin: { kind: 'model', source }, annotations: labelledByMe ? [{ annotator: 'Me', coherent: true }] : [], scores: {} }) as Candidate;
const items: DialogueItem[] = [
  { id: 'a', context: [{ speaker: 'client', text: 'I drink' }], candidates: [cand('1', 'You drink a lot.', 'GPT-2', true), cand('2', 'Bananas.', 'BART'), cand('3', 'You worry.', 'GPT-2')] } as DialogueItem,
  { id: 'b', context: [{ speaker: 'client', text: 'My sister' }], candidates: [cand('1', 'She is far.', 'GPT-2'), cand('2', 'You miss her.', 'BART')] } as DialogueItem,
];
const info = { names: new Map<string, string>(), scales: new Map() };
const plan: ListPlan = [
  { itemId: 'b', candidateId: '2', status: 'drawn' },
  { itemId: 'a', candidateId: '2', status: 'drawn' },
  { itemId: 'a', candidateId: '3', status: 'provisional' },
];

describe('the item list on the rule for U (host side)', () => {
  it('marks the candidates that do not match the filter and search (dimmed), and the ones the plan drew, by the id the view shows', () => {
    const view = annotatorView(items[0], { annotator: 'Me', blind: false, comparison: false });
    const marks = candidateMarks(items[0], view, { blind: false, annotator: 'Me', info, filter: { origin: 'GPT-2' }, planned: plan });
    assert.equal(marks['1'], undefined);
    assert.match(marks['2'].unmatched ?? '', /Does not match/);
    assert.match(marks['2'].drawn ?? '', /^Drawn by the plan: label it \(2 of 2 drawn/);
    assert.equal(marks['3'], undefined, 'a provisional candidate is not marked, and GPT-2 matches');
    // Blind mode: marks by blind id.
    const blind = annotatorView(items[0], { annotator: 'Me', blind: true, comparison: false });
    const bm = candidateMarks(items[0], blind, { blind: true, annotator: 'Me', info, filter: { text: 'bananas' }, planned: plan });
    const shown = blindCandidateId('a', '2', 'Me');
    assert.ok(bm[shown]?.drawn && !bm[shown].unmatched);
    assert.equal(Object.values(bm).filter((m) => m.unmatched).length, 2);
  });

  it('U in plan order goes to the drawn candidates first, across items; F3 walks the matches both ways', () => {
    const listed = [0, 1];
    assert.deepEqual(nextUnlabelledTarget(items, listed, { index: 0, candidateId: '1' }, { annotator: 'Me', blind: false, planned: plan }), { index: 1, candidateId: '2' });
    assert.deepEqual(nextUnlabelledTarget(items, listed, { index: 1, candidateId: '2' }, { annotator: 'Me', blind: false, planned: plan }), { index: 0, candidateId: '2' });
    assert.deepEqual(nextUnlabelledTarget(items, listed, { index: 0, candidateId: '1' }, { annotator: 'Me', blind: false }), { index: 0, candidateId: '2' }, 'file order without a plan');
    assert.deepEqual(nextUnlabelledTarget(items, listed, { index: 0, candidateId: '1' }, { annotator: 'Me', blind: false, filter: { origin: 'BART' }, planned: plan }), { index: 1, candidateId: '2' });
    // F3: matches, labelled or not.
    assert.deepEqual(nextMatchTarget(items, listed, { index: 0, candidateId: '3' }, 1, { annotator: 'Me', blind: false, filter: { origin: 'GPT-2' } }), { index: 1, candidateId: '1' });
    assert.deepEqual(nextMatchTarget(items, listed, { index: 1, candidateId: '1' }, -1, { annotator: 'Me', blind: false, filter: { origin: 'GPT-2' } }), { index: 0, candidateId: '3' });
    assert.deepEqual(nextMatchTarget(items, listed, { index: 0, candidateId: '3' }, 1, { annotator: 'Me', blind: false, filter: { text: 'drink' } }), { index: 0, candidateId: '1' }, 'a search in the context matches each of its candidates');
    assert.match((nextMatchTarget(items, listed, { index: 0, candidateId: '1' }, 1, { annotator: 'Me', blind: false }) as { message: string }).message, /Type a search or set a filter/);
  });

  it('the navigator and the status bar count what is to go by the same rule', () => {
    const plan0 = () => null;
    const all = navigatorState(items, { filter: {}, order: 'file' }, { annotator: 'Me', blind: false, info, plan: plan0 }).state;
    assert.equal(all.toGo, 4);
    assert.equal(all.filtered, false);
    const gpt = navigatorState(items, { filter: { origin: 'GPT-2' }, order: 'file' }, { annotator: 'Me', blind: false, info, plan: plan0 }).state;
    assert.equal(gpt.toGo, 2);
    assert.equal(gpt.filtered, true);
    assert.equal(navigatorState(items, { filter: {}, order: 'file' }, { annotator: null, blind: false, info, plan: plan0 }).state.toGo, null);
    const withPlan = navigatorState(items, { filter: {}, order: 'plan' }, { annotator: 'Me', blind: false, info, plan: () => ({ order: [1, 0], view: { text: 't', title: 'T' }, candidates: [...plan] }) });
    assert.equal(withPlan.state.drawn, 2);
    assert.deepEqual(withPlan.planned, plan);
    const text = progressStatusText(gpt.progress, 'Me', { toGo: { count: gpt.toGo, filtered: gpt.filtered } });
    assert.equal(text.text, '$(checklist) 1/5 labelled · 2 to go (filtered)');
    assert.match(text.tooltip, /To go: 2 candidates you have not labelled that match the filters and search/);
    assert.equal(progressStatusText(all.progress, 'Me', { toGo: { count: all.toGo, filtered: false } }).text, '$(checklist) 1/5 labelled');
  });
});
