/**
 * What the dialogue editor sends its webview (src/extension/editor/updates.ts `decide`): a pure function of the
 * editor's state, the document now and what happened, checked here on documents held in memory.
 */
import assert from 'node:assert/strict';
import { applyLabelOp } from '../../../src/core/labels/annotate';
import { serializeItem } from '../../../src/core/format/jsonl';
import { decide, initialState, type EditorState, type Outgoing } from '../../../src/extension/editor/updates';
import { MemoryDocument, nowOf, studyFile, studyItem } from './memoryEditor';

const types = (ms: Outgoing[]) => ms.map((m) => m.type);
const paramsOf = <K extends Outgoing['type']>(ms: Outgoing[], type: K) => ms.find((m) => m.type === type)?.params as Extract<Outgoing, { type: K }>['params'];

/** A document of five items, the webview told its index, item 1 selected and sent whole as message 10. */
function opened() {
  const document = new MemoryDocument(studyFile(5));
  let state = decide(initialState(), nowOf(document), { kind: 'index' }, 1).state;
  state = decide(state, nowOf(document), { kind: 'select', index: 1 }, 10).state;
  return { document, state };
}

/** Labels candidate `candidateId` of item `i` as Lay-1 (coherence `coherent`; null clears it), as the controller does: one line in place. */
function label(document: MemoryDocument, i: number, candidateId: string, coherent: boolean | null): number[] {
  const item = document.items()[i];
  const next = applyLabelOp(item, candidateId, 'Lay-1', { kind: 'coherence', coherent });
  document.editLines([{ line: i, text: serializeItem(next) }]);
  return [i];
}

describe('editor updates: what the dialogue editor sends its webview', () => {
  it('sends the whole list, then the navigator, when the webview is ready; and the problem lines for the diagnostics', () => {
    const document = new MemoryDocument(`${studyFile(3)}not json\n`);
    const now = nowOf(document);
    const d = decide(initialState(), now, { kind: 'index' }, 1);
    assert.deepEqual(types(d.messages), ['index', 'navigator']);
    const index = paramsOf(d.messages, 'index');
    assert.deepEqual(index.entries.map((e) => [e.index, e.id, e.candidates, e.labelled]), [[0, 'item-0', 3, 3], [1, 'item-1', 3, 3], [2, 'item-2', 3, 3]]);
    assert.deepEqual(index.problems.map((p) => [p.line, p.severity]), [[4, 'error']]);
    assert.equal(d.diagnostics?.length, 1, 'the problem line goes to the Problems panel too');
    assert.equal(paramsOf(d.messages, 'navigator').state.progress.mine, 9);
    assert.ok(d.state.sent.index && d.state.sent.navigator);
  });

  it('builds the list ahead while the webview loads, and uses it when the webview is ready', () => {
    const document = new MemoryDocument(studyFile(4));
    const ahead = nowOf(document);
    const prepared = decide(initialState(), ahead, { kind: 'prepare' }, 1);
    assert.deepEqual(prepared.messages, [], 'nothing to send yet');
    assert.equal(ahead.problemCalls, 1);
    const ready = nowOf(document);
    const d = decide(prepared.state, ready, { kind: 'index' }, 1);
    assert.equal(ready.problemCalls, 0, 'the prepared entries and problem lines are reused');
    assert.equal(paramsOf(d.messages, 'index').entries.length, 4);
    assert.equal(d.state.prepared, undefined);
    const relabelled = nowOf(document, { annotator: 'Expert-1', blind: false });
    decide(prepared.state, relabelled, { kind: 'index' }, 1);
    assert.equal(relabelled.problemCalls, 1, 'built again for another annotator');
  });

  it('sends a selected item whole, numbered so that later partial messages can name it', () => {
    const { state } = opened();
    const item = state.sent.item!;
    assert.equal(item.stamp, 10, 'the full message of `select`, sent as number 10');
    const document = new MemoryDocument(studyFile(5));
    const d = decide(state, nowOf(document), { kind: 'select', index: 1 }, 20);
    const msg = paramsOf(d.messages, 'item');
    assert.ok(msg.view && msg.base === undefined, 'a select always sends the whole item');
    assert.deepEqual(msg.view.candidates.map((c) => c.id), ['c0', 'c1', 'c2']);
    assert.equal(msg.view.candidates[0].scores, undefined, 'score lines go in `scores`, not twice');
    assert.deepEqual(Object.keys(msg.scores), ['c0', 'c1']);
    assert.equal(d.state.sent.item!.stamp, 20);
    assert.equal(d.state.selected, 1);
  });

  it('after a label on the selected item: its row, the navigator (progress changed), and only the changed candidate, naming the full item', () => {
    const { document, state } = opened();
    const lines = label(document, 1, 'c1', null);
    const d = decide(state, nowOf(document), { kind: 'changed', lines }, 30);
    assert.deepEqual(types(d.messages), ['entries', 'navigator', 'item']);
    assert.deepEqual(paramsOf(d.messages, 'entries').entries.map((e) => [e.index, e.labelled]), [[1, 2]]);
    assert.equal(paramsOf(d.messages, 'navigator').state.progress.mine, 14);
    const item = paramsOf(d.messages, 'item');
    assert.equal(item.view, undefined);
    assert.equal(item.base, 10);
    assert.deepEqual(item.candidates?.map((c) => [c.id, c.mine?.coherent]), [['c1', undefined]]);
    assert.deepEqual(item.scores, {}, 'a label changes no score line');
    assert.equal(d.state.sent.item!.stamp, 10, 'later partial messages still build on message 10');
  });

  it('leaves the navigator out when it is what the webview has (No changed to Yes: the same progress)', () => {
    const { document, state } = opened();
    const lines = label(document, 1, 'c1', true);
    const d = decide(state, nowOf(document), { kind: 'changed', lines }, 30);
    assert.deepEqual(types(d.messages), ['entries', 'item']);
    assert.deepEqual(paramsOf(d.messages, 'item').candidates?.map((c) => [c.id, c.mine?.coherent]), [['c1', true]]);
    const unchanged = decide(d.state, nowOf(document), { kind: 'changed', lines: [] }, 40);
    assert.deepEqual(types(unchanged.messages), [], 'a change event for no item line: nothing');
  });

  it('after a label on another item: its row and the navigator, no item', () => {
    const { document, state } = opened();
    const lines = label(document, 3, 'c1', null);
    const d = decide(state, nowOf(document), { kind: 'changed', lines }, 30);
    assert.deepEqual(types(d.messages), ['entries', 'navigator']);
    assert.deepEqual(paramsOf(d.messages, 'entries').entries.map((e) => e.index), [3]);
  });

  it('sends the whole list and the selected item when the change is not in place', () => {
    const cases: [string, (document: MemoryDocument) => readonly number[] | undefined][] = [
      ['an item added (a change of structure)', (doc) => (doc.replaceText(studyFile(6)), undefined)],
      ['a problem line edited', (doc) => (doc.editLines([{ line: 2, text: 'not json' }]), [2])],
      [
        'an item whose title changes (its context)',
        (doc) => {
          const it = studyItem(2);
          doc.editLines([{ line: 2, text: serializeItem({ ...it, context: [...it.context, { speaker: 'client', text: 'And more.' }] }) }]);
          return [2];
        },
      ],
    ];
    for (const [what, change] of cases) {
      const { document, state } = opened();
      const lines = change(document);
      const d = decide(state, nowOf(document), { kind: 'changed', lines }, 30);
      assert.deepEqual(types(d.messages), ['index', 'navigator', 'item'], what);
    }
  });

  it('sends the whole list when the annotator changed since it was sent, or the bytes on disk show problem lines', () => {
    const a = opened();
    const lines = label(a.document, 1, 'c1', true);
    const other = decide(a.state, nowOf(a.document, { annotator: 'Expert-1', blind: false }), { kind: 'changed', lines }, 30);
    assert.deepEqual(types(other.messages), ['index', 'navigator', 'item']);
    const b = opened();
    b.document.diskProblemCount = 1;
    const bLines = label(b.document, 1, 'c1', true);
    const disk = decide(b.state, nowOf(b.document), { kind: 'changed', lines: bLines }, 30);
    assert.deepEqual(types(disk.messages), ['index', 'navigator', 'item']);
  });

  it('keeps a structural change not yet sent: a change in place after it still sends the whole list', () => {
    const { document, state } = opened();
    const pending: EditorState = { ...state, changedSinceSent: 'all' };
    const lines = label(document, 1, 'c1', true);
    const d = decide(pending, nowOf(document), { kind: 'changed', lines }, 30);
    assert.deepEqual(types(d.messages), ['index', 'navigator', 'item'], 'the structural change still needs the whole list');
    assert.deepEqual([...(d.state.changedSinceSent as Set<number>)], []);
  });

  it('sends the item whole when the view changes beyond its candidates (comparison), and the navigator for a new filter', () => {
    const { document, state } = opened();
    const compared = decide({ ...state, comparison: true }, nowOf(document), { kind: 'refresh' }, 30);
    assert.deepEqual(types(compared.messages), ['index', 'navigator', 'item']);
    assert.ok(paramsOf(compared.messages, 'item').view?.comparison);
    const filtered = decide(state, nowOf(document), { kind: 'navigate', list: { filter: { text: 'item 3' }, order: 'file' } }, 40);
    // The selected item again too: its candidates that do not match the search are marked (dimmed, issue 41 item 3).
    assert.deepEqual(types(filtered.messages), ['navigator', 'item']);
    const marks = paramsOf(filtered.messages, 'item').marks ?? {};
    assert.ok(Object.keys(marks).length > 0 && Object.values(marks).every((m) => m.unmatched), JSON.stringify(marks));
    assert.deepEqual(paramsOf(filtered.messages, 'navigator').state.shown, [3]);
    assert.deepEqual(filtered.state.listed, [3], 'kept for "next unlabelled"');
  });

  it('shows the plan’s order and state line when the list is in plan order', () => {
    const document = new MemoryDocument(studyFile(3));
    const plan = () => ({ order: [2, 0, 1], view: { text: '3 of 9 labelled', title: 'plan' } });
    const d = decide(initialState(), nowOf(document, undefined, plan), { kind: 'navigate', list: { filter: {}, order: 'plan' } }, 1);
    const nav = paramsOf(d.messages, 'navigator').state;
    assert.deepEqual(nav.shown, [2, 0, 1]);
    assert.deepEqual(nav.plan, { text: '3 of 9 labelled', title: 'plan' });
  });
});
