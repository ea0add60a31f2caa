import assert from 'node:assert/strict';
import { documentItems, parseDocument } from '../../../src/core/format/jsonl';
import { keepProblemLines } from '../../../src/core/format/keepProblemLines';
import { vsCodeText } from '../../../src/core/format/lineReport';
import { setCoherence } from '../../../src/core/labels/annotate';

const item = (id: string) =>
  JSON.stringify({ id, context: [{ speaker: 'client', text: `hello ${id}` }], candidates: [{ id: 'c1', text: 'So you feel…', origin: { kind: 'model', model: 'm' } }] });
const bytes = (...parts: (string | number[] | Uint8Array)[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
const latin1 = () => bytes('{"id":"l","context":[{"speaker":"client","text":"caf', Array(65).fill([0xe9, 0xff]).flat(), '"}],"candidates":[]}');
// What VS Code holds after opening the file and labelling item `id` (as the editor's updateItems writes it).
function labelled(file: Uint8Array, id: string): string {
  const text = vsCodeText(file);
  const doc = parseDocument(text, 'x');
  const line = doc.lines.find((l) => l.kind === 'item' && l.item.id === id)!;
  const it = documentItems(doc).find((i) => i.id === id)!;
  const out = text.replace(line.raw.text, JSON.stringify(setCoherence(it, 'c1', 'Expert-1', false, new Date(0))));
  assert.notEqual(out, text);
  return out;
}

describe('keepProblemLines: the byte-preserving path after a save from VS Code (issue 14)', () => {
  const file = bytes([0xef, 0xbb, 0xbf], item('a'), '\n', latin1(), '\n', 'lone\rCR', '\n', item('b'), '\n', '{"broken": ', '\n');

  it('keeps lines that are not UTF-8 and lone CRs byte for byte and carries the label, re-encoding only that item', () => {
    const saved = labelled(file, 'b');
    const r = keepProblemLines(file, saved, 'f.jsonl');
    assert.equal(r.kind, 'restore');
    if (r.kind !== 'restore') return;
    assert.deepEqual(r.restored.map((l) => l.line), [2, 3]);
    assert.equal(r.itemsChanged, 1);
    const before = Buffer.from(file).toString('latin1').split('\n');
    const after = Buffer.from(r.bytes).toString('latin1').split('\n');
    assert.equal(after.length, before.length);
    for (const i of [0, 1, 2, 4, 5]) assert.equal(after[i], before[i], `line ${i + 1} byte for byte`);
    const b = JSON.parse(Buffer.from(after[3], 'latin1').toString('utf8'));
    assert.equal(b.candidates[0].annotations[0].coherent, false);
    // What VS Code shows of the restored bytes is what it saved: writing them loses no edit.
    assert.equal(vsCodeText(r.bytes), saved);
  });

  it('gives an item with a lone CR inside a string (VS Code splits it in two) its bytes back, unless it was labelled', () => {
    const withCr = bytes(item('a'), '\n', item('b').replace('hello b', 'hello\rb'), '\n', latin1(), '\n');
    const r = keepProblemLines(withCr, labelled(withCr, 'a'));
    assert.equal(r.kind, 'restore');
    if (r.kind === 'restore') {
      assert.deepEqual(r.restored.map((l) => l.line), [2, 3]);
      assert.deepEqual(Buffer.from(r.bytes).toString('latin1').split('\n').slice(1), Buffer.from(withCr).toString('latin1').split('\n').slice(1));
    }
  });

  it('has nothing to do when VS Code keeps every problem line (a UTF-8 file, one line ending)', () => {
    const clean = bytes(item('a'), '\n', '{"broken": ', '\n', item('b'), '\n');
    assert.deepEqual(keepProblemLines(clean, labelled(clean, 'a')), { kind: 'unchanged' });
  });

  it('lets the save stand, and says why, when a problem line was edited, a line removed or an item added', () => {
    const saved = labelled(file, 'a');
    const edited = keepProblemLines(file, saved.replace('lone\nCR', 'lone CR fixed'));
    assert.equal(edited.kind, 'edited');
    if (edited.kind === 'edited') assert.match(edited.reason, /lines|not an item change/);
    const added = keepProblemLines(file, saved + item('new') + '\n');
    assert.equal(added.kind, 'edited');
    if (added.kind === 'edited') {
      assert.match(added.reason, /item that the file did not \(new\)/);
      assert.deepEqual(added.changed.map((l) => l.line), [2, 3]);
    }
    const removed = keepProblemLines(file, saved.replace('{"broken": \n', ''));
    assert.equal(removed.kind, 'edited');
    // The line that is not UTF-8 reads as item "l" in VS Code; edited there, it cannot keep its bytes.
    const l = keepProblemLines(file, vsCodeText(file).replace('"text":"caf', '"text":"cafe'));
    assert.equal(l.kind, 'edited');
    if (l.kind === 'edited') assert.match(l.reason, /\(l\)/);
  });
});
