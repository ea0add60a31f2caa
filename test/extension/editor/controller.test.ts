/**
 * The dialogue editor's controller (src/extension/editor/controller.ts) without VS Code: a document in memory, the
 * host side of the message layer, and the webview played by hand.
 */
import assert from 'node:assert/strict';
import type { FocusState } from '../../../webview/editor/protocol';
import { editorOn, kinds, lastOf, settle, studyFile } from './memoryEditor';

const focus = (move: number, candidateId: string | null = 'c1', settled = true): FocusState => ({ move, index: 1, itemId: 'item-1', candidateId, settled });
const coherentOf = (items: { candidates: { id: string; annotations: { annotator: string; coherent?: boolean | null }[] }[] }[], i: number, c: string, annotator = 'Lay-1') =>
  items[i].candidates.find((x) => x.id === c)?.annotations.find((a) => a.annotator === annotator)?.coherent;

/** An editor whose webview is ready and shows item 1, focus on c1, reported after the index. */
function focusedOn() {
  const e = editorOn(studyFile(4));
  e.webview.notify('ready', {});
  e.webview.notify('select', { index: 1 });
  const index = e.sent.find((m) => m.type === 'index')!;
  e.webview.notify('focusState', focus(index.seq));
  return e;
}

describe('editor controller: the dialogue editor without VS Code', () => {
  it('answers ready with the list, the navigator and the conflicts; the index counts as a move of focus', async () => {
    const e = editorOn(studyFile(3));
    e.webview.notify('ready', {});
    assert.deepEqual(kinds(e.sent), ['index', 'navigator', 'conflicts']);
    assert.equal(e.log.diagnostics, 1);
    // A key before the webview reported where the index left focus waits for that report.
    e.controller.key({ kind: 'coherent' });
    assert.deepEqual(kinds(e.sent, 3), []);
    e.webview.notify('select', { index: 1 });
    e.webview.notify('focusState', focus(e.sent[0].seq));
    await settle();
    assert.deepEqual(kinds(e.sent, 3), ['item', 'labelled', 'entries', 'item', 'ack']);
    assert.equal(coherentOf(e.document.items(), 1, 'c1'), true);
  });

  it('applies the webview’s label requests in the order sent, answers each, and says so in every message after it', async () => {
    const e = focusedOn();
    const before = e.sent.length;
    const first = e.webview.request('label', { itemId: 'item-1', candidateId: 'c1', op: { kind: 'coherence', coherent: true } });
    const second = e.webview.request('label', { itemId: 'item-1', candidateId: 'c1', op: { kind: 'empathy', value: 4 } });
    await settle();
    const after = e.sent.slice(before);
    assert.deepEqual(after.map((m) => m.type), ['entries', 'item', 'ack', 'entries', 'item', 'ack']);
    assert.deepEqual(after.filter((m) => m.type === 'ack').map((m) => (m.params as { re: number }).re), [first, second]);
    assert.equal(after[1].done.webview, first, 'the item after the first edit says the first request is in it');
    assert.equal(after[4].done.webview, second);
    const c1 = e.document.items()[1].candidates[1].annotations.find((a) => a.annotator === 'Lay-1');
    assert.deepEqual([c1?.coherent, c1?.empathy], [true, 4], 'empathy applied after the coherence answer it needs');
  });

  it('answers a label request without an annotator by asking for one, and leaves the document alone', async () => {
    const e = editorOn(studyFile(2), { annotator: null, blind: false });
    e.webview.notify('ready', {});
    const version = e.document.version;
    const seq = e.webview.request('label', { itemId: 'item-0', candidateId: 'c0', op: { kind: 'coherence', coherent: false } });
    await settle();
    assert.deepEqual(e.log.commands, ['setAnnotator']);
    assert.equal(e.document.version, version);
    assert.equal((e.sent.at(-1)?.params as { re: number }).re, seq, 'still answered, so the webview stops showing it');
  });

  it('a label request before the annotator is set asks for one and applies the label under the id given', async () => {
    const e = editorOn(studyFile(2), { annotator: null, blind: false }, undefined, 'Expert-RS');
    e.webview.notify('ready', {});
    const seq = e.webview.request('label', { itemId: 'item-0', candidateId: 'c0', op: { kind: 'coherence', coherent: false } });
    await settle();
    assert.deepEqual(e.log.commands, ['setAnnotator']);
    assert.equal(coherentOf(e.document.items(), 0, 'c0', 'Expert-RS'), false, 'the label the key made is in the file, by the annotator typed');
    assert.equal((e.sent.at(-1)?.params as { re: number }).re, seq);
  });

  it('a host key before the annotator is set asks for one and then labels the focused candidate', async () => {
    const e = editorOn(studyFile(4), { annotator: null, blind: false }, undefined, 'Expert-RS');
    e.webview.notify('ready', {});
    e.webview.notify('select', { index: 1 });
    const index = e.sent.find((m) => m.type === 'index')!;
    e.webview.notify('focusState', focus(index.seq));
    e.controller.key({ kind: 'coherent' });
    await settle();
    assert.deepEqual(e.log.commands, ['setAnnotator']);
    assert.equal(coherentOf(e.document.items(), 1, 'c1', 'Expert-RS'), true);
  });

  it('shows a failed edit and still answers the request', async () => {
    const e = focusedOn();
    e.document.failNext = new Error('line 2 of study.dialogues.jsonl is not where ReflectEval expected it; nothing was changed');
    e.webview.request('label', { itemId: 'item-1', candidateId: 'c1', op: { kind: 'coherence', coherent: true } });
    await settle();
    assert.match(e.log.errors[0] ?? '', /not where ReflectEval expected it/);
    assert.equal(e.sent.at(-1)?.type, 'ack');
  });

  it('labels in the host when the webview reported a settled focus: announced, applied, answered', async () => {
    const e = focusedOn();
    const before = e.sent.length;
    e.controller.key({ kind: 'clear' });
    await settle();
    const after = e.sent.slice(before);
    assert.deepEqual(after.map((m) => m.type), ['labelled', 'entries', 'navigator', 'item', 'ack']);
    const labelled = after[0];
    assert.deepEqual(labelled.params, { itemId: 'item-1', candidateId: 'c1', op: { kind: 'coherence', coherent: null } });
    assert.ok(labelled.done.host < labelled.seq, 'the announcement: not applied yet, the webview shows it');
    assert.ok(after[3].done.host >= labelled.seq, 'the item after it: applied');
    assert.equal(coherentOf(e.document.items(), 1, 'c1'), undefined);
  });

  it('decides a host key from the document after the labels queued before it', async () => {
    const e = focusedOn();
    // The webview's "incoherent" request, then a number key applied in the host: error 2 only makes sense after No.
    e.webview.request('label', { itemId: 'item-1', candidateId: 'c0', op: { kind: 'coherence', coherent: false } });
    e.webview.request('label', { itemId: 'item-1', candidateId: 'c1', op: { kind: 'coherence', coherent: false } });
    e.controller.key({ kind: 'option', n: 2 });
    await settle();
    const c1 = e.document.items()[1].candidates[1].annotations.find((a) => a.annotator === 'Lay-1');
    assert.deepEqual(c1?.errors, ['dialogueContradicting']);
  });

  it('says why a key does nothing (a number before the coherence answer), without touching the document', async () => {
    const e = focusedOn();
    const lines = studyFile(4).split('\n');
    const item = JSON.parse(lines[1]);
    item.candidates[1].annotations = [];
    e.document.editLines([{ line: 1, text: JSON.stringify(item) }]);
    const version = e.document.version;
    e.controller.key({ kind: 'option', n: 3 });
    await settle();
    assert.deepEqual(e.sent.at(-1)?.params, { text: 'Answer first: Y coherent, N incoherent.' });
    assert.equal(e.document.version, version);
  });

  it('sends a key to the webview when focus is not settled, and holds it while a move is on its way', async () => {
    const e = focusedOn();
    e.webview.notify('focusState', focus(e.sent.find((m) => m.type === 'index')!.seq, 'c1', false));
    e.controller.key({ kind: 'coherent' });
    assert.equal(e.sent.at(-1)?.type, 'action', 'unsettled: the webview decides');
    const action = e.sent.at(-1)!;
    e.controller.key({ kind: 'incoherent' });
    const held = e.sent.length;
    assert.equal(e.sent.at(-1), action, 'the action may move focus: the next key waits');
    e.webview.notify('focusState', focus(action.seq, 'c2'));
    await settle();
    assert.deepEqual(kinds(e.sent.slice(held)).slice(0, 1), ['labelled']);
    assert.equal(coherentOf(e.document.items(), 1, 'c2'), false, 'applied where the webview said focus went');
    e.controller.dispose();
  });

  it('answers "next unlabelled" after the labels before it, and holds keys until the webview has shown the answer', async () => {
    const e = focusedOn();
    const seq = e.webview.request('label', { itemId: 'item-2', candidateId: 'c1', op: { kind: 'coherence', coherent: null } });
    e.webview.request('nextUnlabelled', { index: 1, candidateId: 'c1' });
    e.controller.key({ kind: 'coherent' });
    await settle();
    const answer = lastOf(e.sent, (m) => m.type === 'ack' && (m.params as { re: number }).re === seq + 1)!;
    assert.deepEqual((answer.params as { result: unknown }).result, { index: 2, candidateId: 'c1' }, 'the label just cleared counts');
    assert.ok(!e.sent.some((m) => m.type === 'labelled'), 'the key waits for the report after the answer');
    e.webview.notify('focusState', { move: answer.seq, index: 2, itemId: 'item-2', candidateId: 'c1', settled: true });
    await settle();
    assert.equal(coherentOf(e.document.items(), 2, 'c1'), true);
  });

  it('says when every listed candidate is labelled, and asks for an annotator when there is none', async () => {
    const e = focusedOn();
    e.webview.request('nextUnlabelled', { index: 1, candidateId: 'c1' });
    await settle();
    assert.match(String((e.sent.at(-1)?.params as { result: { notice: string } }).result.notice), /You have labelled every candidate of the 4 listed items/);
    const none = editorOn(studyFile(2), { annotator: null, blind: false });
    none.webview.request('nextUnlabelled', { index: 0, candidateId: null });
    await settle();
    assert.deepEqual((none.sent.at(-1)?.params as { result: unknown }).result, { notice: 'Choose who you label as first (Annotator…).' });
    assert.deepEqual(none.log.commands, ['setAnnotator']);
  });

  it('tells the provider the selected item and the focused candidate by its id in the file (blind mode shows others)', () => {
    const e = editorOn(studyFile(3), { annotator: 'Lay-1', blind: true });
    e.webview.notify('ready', {});
    e.webview.notify('select', { index: 2 });
    const item = lastOf(e.sent, (m) => m.type === 'item')!.params as { view: { candidates: { id: string }[] } };
    const shown = item.view.candidates[0].id;
    assert.ok(!['c0', 'c1', 'c2'].includes(shown), 'blind ids are opaque');
    e.webview.notify('focusState', { move: 0, index: 2, itemId: 'item-2', candidateId: shown, settled: true });
    const last = e.log.selections.at(-1)!;
    assert.equal(last.itemIndex, 2);
    assert.ok(['c0', 'c1', 'c2'].includes(last.candidateId ?? ''), 'the selection names the candidate as the file does');
    assert.deepEqual(e.log.selections[0], { itemIndex: 2, candidateId: null });
  });

  it('refreshes with the comparison view and the plan order, and reveals a drill-down as a move of focus', () => {
    const e = focusedOn();
    const before = e.sent.length;
    e.controller.toggleComparison();
    assert.deepEqual(kinds(e.sent.slice(before)), ['index', 'navigator', 'item']);
    assert.equal((e.sent.at(-2)?.params as { state: { order: string } }).state.order, 'file');
    e.controller.showPlan();
    assert.equal((lastOf(e.sent, (m) => m.type === 'navigator')?.params as { state: { order: string } }).state.order, 'plan');
    e.controller.reveal(3, 'c2');
    const reveal = e.sent.at(-1)!;
    assert.deepEqual(reveal.params, { index: 3, candidateId: 'c2' });
    e.controller.key({ kind: 'coherent' });
    assert.equal(e.sent.at(-1), reveal, 'a key waits for the report of where the reveal took focus');
    e.controller.dispose();
  });

  it('opens a response list as a move of focus: a key waits for the report, J/K go to the webview (issue 41 item 4)', async () => {
    const e = focusedOn();
    const list = { title: 'BLEU-4 × coherent, GPT-2', evaluator: 'BLEU-4', start: 1, entries: [
      { index: 3, itemId: 'item-3', candidateId: 'c0', score: 0.9, human: 3 },
      { index: 2, itemId: 'item-2', candidateId: 'c1', score: 0.4, human: 1 },
    ] };
    const before = e.sent.length;
    e.controller.showResponses({ ...list, entries: [] });
    assert.equal(e.sent.length, before, 'an empty list opens nothing');
    e.controller.showResponses(list);
    const opened = e.sent.at(-1)!;
    assert.equal(opened.type, 'responseList');
    assert.deepEqual(opened.params, { list });
    e.controller.key({ kind: 'coherent' });
    assert.equal(e.sent.at(-1), opened, 'a key waits for the report of where the list took focus');
    e.webview.notify('focusState', { move: opened.seq, index: 2, itemId: 'item-2', candidateId: 'c1', settled: true });
    await settle();
    assert.equal(coherentOf(e.document.items(), 2, 'c1'), true, 'then labels the response the list shows');
    e.controller.key({ kind: 'nextCandidate' });
    assert.deepEqual(e.sent.at(-1)?.params, { action: { kind: 'nextCandidate' } }, 'J goes to the webview, which walks the list');
    e.controller.dispose();
  });
});
