/**
 * The dialogue editor's routing of labels to sidecar files (issue 44 item 1): the view it shows (the study's parse
 * with `<study>.labels/*.jsonl` laid over) and where an edit goes (the study's lines or an annotator's sidecar),
 * with the undo step that carries the sidecars (`LineDocument.edit`'s side state). On bytes in memory; the editor
 * itself is test/e2e/sidecars.e2e.test.ts.
 */
import assert from 'node:assert/strict';
import type { Annotation, Candidate, DialogueItem } from '../../../src/core/dialogue/types';
import { decodeUtf8Strict, encodeUtf8 } from '../../../src/core/format/bytes';
import { documentItems, formatItems, parseDocument } from '../../../src/core/format/jsonl';
import { LabelWriteError, readLabelSidecars, withSidecarWrites, type LabelSidecars } from '../../../src/core/format/labelSidecars';
import { LineDocument } from '../../../src/core/format/lineDocument';
import { LineText } from '../../../src/core/format/lineText';
import { routeItemEdit, sidecarView } from '../../../src/core/format/sidecarEdits';

const STUDY = 'study.dialogues.jsonl';
const cand = (id: string, annotations: Annotation[] = []): Candidate => ({ id, text: `text ${id}`, origin: { kind: 'model' }, annotations, scores: {} });
const item = (id: string, candidates: Candidate[]): DialogueItem => ({ id, context: [{ speaker: 'client', text: `context ${id}` }], candidates });
const ann = (annotator: string, coherent = true): Annotation => ({ annotator, coherent });
const text = (b: Uint8Array | null) => (b ? decodeUtf8Strict(b)! : String(b));

/** A study with inline labels of I, and E1's labels in a sidecar whose first line has extra spaces and a field of its own. */
function fixture(extraE1 = '') {
  const study = encodeUtf8(formatItems([item('i1', [cand('a', [ann('I')]), cand('b')]), item('i2', [cand('c'), cand('d')])]));
  const e1 = `{"item": "i1",  "candidate": "a", "annotation": {"annotator": "E1", "coherent": false}, "note": "kept"}\n${extraE1}`;
  const doc = parseDocument(study, STUDY);
  const sidecars = readLabelSidecars('study.labels', [{ name: 'E1.jsonl', bytes: encodeUtf8(e1) }]);
  return { study, e1, doc, sidecars };
}

/** Sets `who`'s label on candidate `cid` of item `iid` (replacing theirs), as the editor's label operation does. */
const label = (iid: string, cid: string, a: Annotation) => (it: DialogueItem) =>
  it.id !== iid ? undefined : { ...it, candidates: it.candidates.map((c) => (c.id !== cid ? c : { ...c, annotations: [...c.annotations.filter((x) => x.annotator !== a.annotator), a] })) };

describe('the editor’s labels in sidecar files (core sidecarEdits)', () => {
  it('shows the sidecars’ labels on the study’s items, as if inline; without sidecars the parse itself', () => {
    const { doc, sidecars } = fixture();
    const view = sidecarView(doc, sidecars);
    const items = documentItems(view.doc);
    assert.deepEqual(items[0].candidates[0].annotations.map((a) => [a.annotator, a.coherent]), [['I', true], ['E1', false]]);
    assert.equal(items[1], documentItems(doc)[1], 'an item without sidecar labels is the parse’s own');
    assert.equal(view.doc.lines[doc.itemLines[0]].raw, doc.lines[doc.itemLines[0]].raw, 'the raw line is the study’s');
    assert.deepEqual(documentItems(doc)[0].candidates[0].annotations.map((a) => a.annotator), ['I'], 'the study’s parse is untouched');
    assert.equal(sidecarView(doc, undefined).doc, doc);
  });

  it('a label of an annotator with a sidecar goes to the sidecar: no study line changes, the sidecar’s other lines keep their bytes', () => {
    const { doc, sidecars, e1 } = fixture();
    const { overlay } = sidecarView(doc, sidecars);
    const r = routeItemEdit(doc, overlay, label('i2', 'd', ann('E1', true)));
    assert.deepEqual(r.lines, []);
    assert.deepEqual(r.itemLines, [doc.itemLines[1]]);
    assert.equal(r.sidecars.length, 1);
    assert.equal(r.sidecars[0].name, 'E1.jsonl');
    const after = text(r.sidecars[0].bytes);
    assert.ok(after.startsWith(e1), 'the first line keeps its bytes (spaces, its own field)');
    assert.equal(after.slice(e1.length), '{"item":"i2","candidate":"d","annotation":{"annotator":"E1","coherent":true}}\n');
    // Read back with the write: the study's items show the new label.
    const next = sidecarView(doc, withSidecarWrites(sidecars, r.sidecars));
    assert.deepEqual(documentItems(next.doc)[1].candidates[1].annotations, [ann('E1', true)]);
  });

  it('changing a sidecar label rewrites only its line; an inline annotator’s label changes the study’s line and no sidecar', () => {
    const { doc, sidecars } = fixture('{"item":"i2","candidate":"c","annotation":{"annotator":"E1","coherent":true}}\n');
    const { overlay } = sidecarView(doc, sidecars);
    const changed = routeItemEdit(doc, overlay, label('i2', 'c', ann('E1', false)));
    assert.deepEqual(changed.lines, []);
    assert.equal(changed.sidecars[0].linesChanged, 1);
    assert.match(text(changed.sidecars[0].bytes).split('\n')[1], /"candidate":"c".*"coherent":false/);

    const inline = routeItemEdit(doc, overlay, label('i1', 'b', ann('I', false)));
    assert.deepEqual(inline.sidecars, []);
    assert.equal(inline.lines.length, 1);
    assert.equal(inline.lines[0].line, doc.itemLines[0]);
    const written = JSON.parse(inline.lines[0].text) as DialogueItem;
    assert.deepEqual(written.candidates[0].annotations.map((a) => a.annotator), ['I'], 'E1’s sidecar label is not written inline');
    assert.deepEqual(written.candidates[1].annotations, [ann('I', false)]);
  });

  it('in a study that keeps labels in sidecars, a new annotator gets a sidecar of their own', () => {
    const { doc, sidecars } = fixture();
    const r = routeItemEdit(doc, sidecarView(doc, sidecars).overlay, label('i1', 'b', ann('Expert 2')));
    assert.deepEqual(r.lines, []);
    assert.equal(r.sidecars[0].name, 'Expert%202.jsonl');
    assert.equal(r.sidecars[0].created, true);
  });

  it('a problem line of a sidecar is reported with file and line, and kept byte for byte when the sidecar is written', () => {
    const bad = '{"item":"i1","candidate":"b","annotation":{"annotator":"E2","coherent":true}}\nnot json\n';
    const { doc, sidecars, e1 } = fixture(bad);
    const { overlay } = sidecarView(doc, sidecars);
    assert.deepEqual(
      overlay.problems.map((p) => [p.file, p.line, p.field ?? '', p.code]),
      [
        ['study.labels/E1.jsonl', 2, 'annotation.annotator', 'annotator'],
        ['study.labels/E1.jsonl', 3, '', 'json'],
      ],
    );
    const r = routeItemEdit(doc, overlay, label('i2', 'c', ann('E1')));
    assert.ok(e1.endsWith(bad) && text(r.sidecars[0].bytes).startsWith(e1), 'the lines left out stay in the file as they were');
  });

  it('refuses, changing nothing, a label written over a sidecar line that conflicts with an inline one', () => {
    const study = encodeUtf8(formatItems([item('i1', [cand('a', [ann('E1')])])]));
    const doc = parseDocument(study, STUDY);
    const sidecars: LabelSidecars = readLabelSidecars('study.labels', [{ name: 'E1.jsonl', bytes: encodeUtf8('{"item":"i1","candidate":"a","annotation":{"annotator":"E1","coherent":false}}\n') }]);
    const { overlay } = sidecarView(doc, sidecars);
    assert.equal(overlay.problems[0].code, 'conflict');
    assert.throws(() => routeItemEdit(doc, overlay, label('i1', 'a', ann('E1', false))), (err: unknown) => err instanceof LabelWriteError && /study\.labels\/E1\.jsonl:1/.test(err.message));
  });

  it('an edit that changes only the sidecars is one undo step: dirty, undone and redone with its side state, the items’ lines reported', () => {
    const d = new LineDocument(LineText.fromBytes(Buffer.from('h\ni1\ni2\n')));
    let state = 'saved';
    const e = d.edit([], { redo: () => ((state = 'labelled'), [2]), undo: () => ((state = 'saved'), [2]) })!;
    assert.equal(state, 'labelled');
    assert.equal(d.isDirty, true);
    assert.deepEqual(e.changed, [{ line: 2, text: 'i2' }]);
    assert.equal(d.version, 2);
    assert.deepEqual(e.undo(), [{ line: 2, text: 'i2' }]);
    assert.equal(state, 'saved');
    assert.equal(d.isDirty, false);
    assert.equal(d.version, 3);
    e.redo();
    assert.equal(state, 'labelled');
    assert.equal(d.text.getText(), 'h\ni1\ni2\n');
    // After a reload the text's lines are not undone, the side state is.
    d.reload(LineText.fromBytes(Buffer.from('h\ni1\ni2\n')));
    assert.deepEqual(e.undo(), []);
    assert.equal(state, 'saved');
  });
});
