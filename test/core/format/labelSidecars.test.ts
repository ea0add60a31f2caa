/**
 * Labels in sidecar files (issue 44 item 4): each annotator's labels in `<study>.labels/<annotator>.jsonl`, laid over
 * the study when read and split back when written. Here on bytes in memory (the files' side is test/cli/labels.test.ts).
 */
import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import type { Annotation, Candidate, DialogueItem } from '../../../src/core/dialogue/types';
import { bytesEqual, decodeUtf8Strict, encodeUtf8 } from '../../../src/core/format/bytes';
import { editsFor } from '../../../src/core/format/files';
import { documentBytes, documentItems, formatItems, parseDocument, type DialogueDocument } from '../../../src/core/format/jsonl';
import {
  labelsFolderOf,
  labelWrites,
  LabelWriteError,
  overlayLabels,
  readLabelSidecars,
  sidecarAnnotator,
  sidecarFileName,
  type LabelOverlay,
  type LabelRouting,
  type LabelWrites,
  withSidecarWrites,
} from '../../../src/core/format/labelSidecars';

const STUDY = 'study.dialogues.jsonl';
const cand = (id: string, annotations: Annotation[] = [], scores: Candidate['scores'] = {}): Candidate => ({ id, text: `text ${id}`, origin: { kind: 'model' }, annotations, scores });
const item = (id: string, candidates: Candidate[]): DialogueItem => ({ id, context: [{ speaker: 'client', text: `context ${id}` }], candidates });
const ann = (annotator: string, coherent = true, extra: Record<string, unknown> = {}): Annotation => ({ annotator, coherent, ...extra });
const line = (it: string, c: string, a: Annotation, index?: number) => JSON.stringify({ item: it, candidate: c, ...(index !== undefined ? { index } : {}), annotation: a });
const text = (b: Uint8Array | null | undefined) => (b ? decodeUtf8Strict(b)! : String(b));

/** A study on a pretend disk: its bytes and its labels folder (undefined: none). */
interface Disk {
  study: Uint8Array;
  labels?: Map<string, Uint8Array>;
}

function open(disk: Disk): { doc: DialogueDocument; overlay: LabelOverlay } {
  const doc = parseDocument(disk.study, STUDY);
  const sidecars = disk.labels ? readLabelSidecars('study.labels', [...disk.labels].map(([name, bytes]) => ({ name, bytes }))) : undefined;
  return { doc, overlay: overlayLabels(doc, sidecars) };
}

/** Applies a write as `writeStudyBack` does, in memory. */
function apply(disk: Disk, doc: DialogueDocument, w: LabelWrites, routing: LabelRouting = {}): Disk {
  const labels = disk.labels || routing.toSidecars ? new Map(disk.labels ?? []) : undefined;
  for (const s of w.sidecars) {
    if (s.bytes === null) labels!.delete(s.name);
    else labels!.set(s.name, s.bytes);
  }
  const edits = editsFor(doc, w.studyItems);
  return { study: edits.length ? documentBytes(doc, edits) : disk.study, labels: routing.inline === 'all' && labels?.size === 0 ? undefined : labels };
}

function write(disk: Disk, items: (overlay: LabelOverlay) => DialogueItem[], routing: LabelRouting = {}): { disk: Disk; w: LabelWrites } {
  const { doc, overlay } = open(disk);
  const w = labelWrites(overlay, items(overlay), routing);
  return { disk: apply(disk, doc, w, routing), w };
}

const withAnnotations = (it: DialogueItem, cid: string, f: (a: Annotation[]) => Annotation[]): DialogueItem => ({ ...it, candidates: it.candidates.map((c) => (c.id === cid ? { ...c, annotations: f(c.annotations) } : c)) });

describe('labels in sidecar files', () => {
  describe('file names', () => {
    it('gives each annotator id one name and the name gives the id back', () => {
      assert.equal(sidecarFileName('E1'), 'E1.jsonl');
      assert.equal(sidecarFileName('Expert 1'), 'Expert%201.jsonl');
      assert.equal(sidecarFileName('a/b'), 'a%2Fb.jsonl');
      assert.equal(sidecarFileName('Zoë'), 'Zo%C3%AB.jsonl');
      for (const id of ['E1', 'Expert 1', 'a/b', '..', '.', '100%', 'Zoë', '🙂', 'x.dialogues', 'E_1', 'E 1', "O'Brien (lay)"]) assert.equal(sidecarAnnotator(sidecarFileName(id)), id);
      assert.notEqual(sidecarFileName('E 1'), sidecarFileName('E_1'));
      // Names no id gives are not sidecars: spaces, lower-case hex, a stray %.
      for (const name of ['E 1.jsonl', 'a%2fb.jsonl', '100%.jsonl', '.jsonl', 'E1.json', 'E%31.jsonl']) assert.equal(sidecarAnnotator(name), undefined, name);
      assert.throws(() => sidecarFileName(''), /empty/);
      assert.equal(labelsFolderOf('/x/study.dialogues.jsonl'), '/x/study.labels');
      assert.equal(labelsFolderOf('other.jsonl'), 'other.labels');
    });
  });

  describe('reading', () => {
    const study = formatItems([item('i1', [cand('c1', [ann('L1')]), cand('c2')]), item('i2', [cand('c3')])]);

    it('lays each sidecar over the study: inline labels first, then each file in the order of their names', () => {
      const disk: Disk = {
        study: encodeUtf8(study),
        labels: new Map([
          ['E2.jsonl', encodeUtf8(`${line('i1', 'c1', ann('E2', false))}\n`)],
          ['E1.jsonl', encodeUtf8(`${line('i1', 'c1', ann('E1'))}\n${line('i2', 'c3', ann('E1', false))}\n`)],
        ]),
      };
      const { overlay } = open(disk);
      assert.deepEqual(overlay.problems, []);
      assert.deepEqual(overlay.items[0].candidates[0].annotations.map((a) => a.annotator), ['L1', 'E1', 'E2']);
      assert.deepEqual(overlay.items[0].candidates[1].annotations, []);
      assert.deepEqual(overlay.items[1].candidates[0].annotations, [ann('E1', false)]);
      // The study's items are left as they are; candidates without sidecar labels are the study's own objects.
      assert.deepEqual(documentItems(parseDocument(study, STUDY))[0].candidates[0].annotations, [ann('L1')]);
      assert.equal(overlay.items[0].candidates[1], overlay.inline[0].candidates[1]);
      // Without a labels folder: the study's items, nothing else.
      const plain = open({ study: encodeUtf8(study) }).overlay;
      assert.equal(plain.usesSidecars, false);
      assert.deepEqual(plain.items, plain.inline);
    });

    it('puts a line with an index at that position of the candidate\'s list', () => {
      const disk: Disk = {
        study: encodeUtf8(formatItems([item('i1', [cand('c1', [ann('A'), ann('B')])])])),
        labels: new Map([
          ['X.jsonl', encodeUtf8(`${line('i1', 'c1', ann('X'), 0)}\n`)],
          ['Y.jsonl', encodeUtf8(`${line('i1', 'c1', ann('Y'))}\n`)],
          ['Z.jsonl', encodeUtf8(`${line('i1', 'c1', ann('Z'), 2)}\n`)],
        ]),
      };
      // Inline A, B, then Y (no index); then X at 0 and Z at 2.
      assert.deepEqual(open(disk).overlay.items[0].candidates[0].annotations.map((a) => a.annotator), ['X', 'A', 'Z', 'B', 'Y']);
    });

    it('names every problem by file, line and field, and leaves the line out', () => {
      const lines = [
        line('i1', 'c2', ann('E1')), // 1: fine
        '{"item": "i1", "candidate": ', // 2: not JSON
        '[1, 2]', // 3: not an object
        JSON.stringify({ item: 'i1', annotation: ann('E1') }), // 4: no candidate
        line('i1', 'c1', { annotator: 'E1', coherent: 'yes' } as unknown as Annotation), // 5: schema
        line('i2', 'c3', ann('E2')), // 6: another annotator
        line('i1', 'c2', ann('E1', false)), // 7: a second label on c2
        line('gone', 'c1', ann('E1')), // 8: no such item
        line('i2', 'nope', ann('E1')), // 9: no such candidate
        JSON.stringify({ item: 'i2', candidate: 'c3', index: -1, annotation: ann('E1') }), // 10: bad index
        line('i1', 'c1', ann('L1')).replace('"L1"', '"E1"'), // 11: fine
        '', // 12: blank, not a problem
      ];
      const bytes = encodeUtf8(lines.join('\n') + '\n');
      const withBad = new Uint8Array([...bytes, 0xff, 0x0a]); // 13: not UTF-8
      const disk: Disk = { study: encodeUtf8(study), labels: new Map([['E1.jsonl', withBad], ['E 1.jsonl', encodeUtf8('')]]) };
      const { overlay } = open(disk);
      const got = overlay.problems.map((p) => [p.file, p.line, p.field, p.code]);
      assert.deepEqual(got, [
        ['study.labels/E 1.jsonl', 1, undefined, 'fileName'],
        ['study.labels/E1.jsonl', 2, undefined, 'json'],
        ['study.labels/E1.jsonl', 3, undefined, 'notObject'],
        ['study.labels/E1.jsonl', 4, 'candidate', 'field'],
        ['study.labels/E1.jsonl', 5, 'annotation.coherent', 'field'],
        ['study.labels/E1.jsonl', 6, 'annotation.annotator', 'annotator'],
        ['study.labels/E1.jsonl', 7, 'candidate', 'duplicate'],
        ['study.labels/E1.jsonl', 10, 'index', 'field'],
        ['study.labels/E1.jsonl', 13, undefined, 'invalidUtf8'],
        ['study.labels/E1.jsonl', 8, 'item', 'orphanItem'],
        ['study.labels/E1.jsonl', 9, 'candidate', 'orphanCandidate'],
      ]);
      assert.deepEqual(overlay.items[0].candidates[1].annotations, [ann('E1')]);
      // Line 11 conflicts with nothing: L1's inline label is L1's. (Its annotator was rewritten to E1 and E1 has no inline label on c1.)
      assert.deepEqual(overlay.items[0].candidates[0].annotations, [ann('L1'), ann('E1')]);

      // A label written to the file keeps every problem line as its bytes.
      const { disk: after } = write(disk, (o) => [withAnnotations(o.items[0], 'c2', () => [ann('E1', false)]), o.items[1]]);
      const kept = after.labels!.get('E1.jsonl')!;
      assert.ok(bytesEqual(kept.subarray(kept.indexOf(0x0a) + 1), withBad.subarray(withBad.indexOf(0x0a) + 1)), 'only line 1 changes');
      assert.equal(text(kept.subarray(0, kept.indexOf(0x0a))), line('i1', 'c2', ann('E1', false)));
    });

    it('reports an annotator with labels both in a sidecar and inline, and a label in both places', () => {
      const disk: Disk = {
        study: encodeUtf8(formatItems([item('i1', [cand('c1', [ann('E1')]), cand('c2')]), item('i2', [cand('c3', [ann('E1')])])])),
        labels: new Map([['E1.jsonl', encodeUtf8(`${line('i1', 'c1', ann('E1', false))}\n${line('i1', 'c2', ann('E1'))}\n`)]]),
      };
      const { overlay } = open(disk);
      assert.deepEqual(
        overlay.problems.map((p) => [p.file, p.line, p.field, p.code]),
        [
          ['study.labels/E1.jsonl', 1, 'annotation', 'conflict'],
          [STUDY, 1, 'candidates[0].annotations[0].annotator', 'mixed'],
        ],
      );
      assert.match(overlay.problems[1].message, /on 2 candidates/);
      // Inline wins where both have one; elsewhere both are read.
      assert.deepEqual(overlay.items[0].candidates.map((c) => c.annotations), [[ann('E1')], [ann('E1')]]);
      // Writing over the conflict is refused; writing elsewhere is not.
      assert.throws(() => write(disk, (o) => [withAnnotations(o.items[0], 'c1', () => [ann('E1', false)]), o.items[1]]), (e: LabelWriteError) => e instanceof LabelWriteError && e.problems[0].code === 'conflict');
      const { disk: after } = write(disk, (o) => [o.items[0], withAnnotations(o.items[1], 'c3', () => [ann('E1', false)])]);
      // A changed label of an annotator with a sidecar goes to the sidecar (and leaves the study's line).
      assert.deepEqual(documentItems(parseDocument(after.study, STUDY))[1].candidates[0].annotations, []);
      assert.equal(text(after.labels!.get('E1.jsonl')).split('\n')[2], line('i2', 'c3', ann('E1', false)));
    });
  });

  describe('writing', () => {
    const base = (): Disk => ({
      study: encodeUtf8(formatItems([item('i1', [cand('c1', [ann('L1')]), cand('c2')]), item('i2', [cand('c3'), cand('c4')]), item('i3', [cand('c5')])])),
      labels: new Map([['E1.jsonl', encodeUtf8(`${line('i1', 'c1', ann('E1'))}\r\n${line('i3', 'c5', ann('E1', false))}\r\n`)]]),
    });

    it('keeps a sidecar\'s byte order mark, lone CRs and a last line without a line ending', () => {
      const disk = base();
      const e1 = `\uFEFF${line('i1', 'c1', ann('E1', true, { otherText: 'a\rb' }))}\n${line('i3', 'c5', ann('E1', false))}`;
      disk.labels!.set('E1.jsonl', encodeUtf8(e1));
      assert.deepEqual(open(disk).overlay.problems, []);
      assert.equal(open(disk).overlay.items[0].candidates[0].annotations[1].otherText, 'a\rb');
      const { disk: after } = write(disk, (o) => [o.items[0], withAnnotations(o.items[1], 'c3', () => [ann('E1')]), o.items[2]]);
      assert.equal(text(after.labels!.get('E1.jsonl')), `\uFEFF${line('i1', 'c1', ann('E1', true, { otherText: 'a\rb' }))}\n${line('i2', 'c3', ann('E1'))}\n${line('i3', 'c5', ann('E1', false))}`);
      const { disk: last } = write(disk, (o) => [o.items[0], o.items[1], withAnnotations(o.items[2], 'c5', () => [ann('E1')])]);
      assert.equal(text(last.labels!.get('E1.jsonl')), `\uFEFF${line('i1', 'c1', ann('E1', true, { otherText: 'a\rb' }))}\n${line('i3', 'c5', ann('E1'))}`);
    });

    it('a job that changes only scores leaves every sidecar alone and the study gets no sidecar label', () => {
      const disk = base();
      const { disk: after, w } = write(disk, (o) => o.items.map((it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, scores: { ...c.scores, 'metric:x': { value: 1, status: 'ok' as const } } })) })));
      assert.deepEqual(w.sidecars, []);
      const items = documentItems(parseDocument(after.study, STUDY));
      assert.deepEqual(items[0].candidates[0].annotations, [ann('L1')]);
      assert.deepEqual(items[2].candidates[0].annotations, []);
      assert.ok(items.every((it) => it.candidates.every((c) => c.scores['metric:x'].value === 1)));
      assert.equal(after.labels!.get('E1.jsonl'), disk.labels!.get('E1.jsonl'));
    });

    it('a label of an annotator with a sidecar goes to the sidecar only: the study keeps its bytes', () => {
      const disk = base();
      const { disk: after, w } = write(disk, (o) => [withAnnotations(o.items[0], 'c1', (as) => as.map((a) => (a.annotator === 'E1' ? { ...a, coherent: false } : a))), o.items[1], o.items[2]]);
      assert.equal(after.study, disk.study, 'the study is not written');
      assert.deepEqual(w.studyItems, open(disk).overlay.inline);
      assert.equal(text(after.labels!.get('E1.jsonl')), `${line('i1', 'c1', ann('E1', false))}\r\n${line('i3', 'c5', ann('E1', false))}\r\n`);
      assert.deepEqual(w.sidecars.map((s) => [s.name, s.linesChanged, s.created]), [['E1.jsonl', 1, false]]);
    });

    it('new labels go where the study\'s order puts them; a new annotator gets a new sidecar in the study\'s order', () => {
      const disk = base();
      const { disk: after } = write(disk, (o) => [
        withAnnotations(o.items[0], 'c2', (as) => [...as, ann('E1'), ann('E2')]),
        withAnnotations(o.items[1], 'c4', (as) => [...as, ann('E1', false)]),
        withAnnotations(o.items[2], 'c5', (as) => [...as, ann('E2', false)]),
      ]);
      assert.equal(after.study, disk.study);
      assert.deepEqual(text(after.labels!.get('E1.jsonl')).split('\r\n'), [line('i1', 'c1', ann('E1')), line('i1', 'c2', ann('E1')), line('i2', 'c4', ann('E1', false)), line('i3', 'c5', ann('E1', false)), '']);
      assert.equal(text(after.labels!.get('E2.jsonl')), `${line('i1', 'c2', ann('E2'))}\n${line('i3', 'c5', ann('E2', false))}\n`);
      // Read back: the same lists.
      assert.deepEqual(open(after).overlay.items[0].candidates[1].annotations, [ann('E1'), ann('E2')]);
    });

    it('a new annotator\'s labels stay inline in a study without a labels folder, and so do those of annotators with inline labels', () => {
      const disk: Disk = { study: base().study };
      const { disk: after, w } = write(disk, (o) => [withAnnotations(o.items[0], 'c2', () => [ann('E9')]), o.items[1], o.items[2]]);
      assert.deepEqual(w.sidecars, []);
      assert.equal(after.labels, undefined);
      assert.deepEqual(documentItems(parseDocument(after.study, STUDY))[0].candidates[1].annotations, [ann('E9')]);
      const mixed = base();
      const { disk: after2 } = write(mixed, (o) => [withAnnotations(o.items[0], 'c1', (as) => as.map((a) => (a.annotator === 'L1' ? { ...a, coherent: false } : a))), o.items[1], o.items[2]]);
      assert.deepEqual(documentItems(parseDocument(after2.study, STUDY))[0].candidates[0].annotations, [ann('L1', false)]);
      assert.equal(after2.labels!.get('E1.jsonl'), mixed.labels!.get('E1.jsonl'));
    });

    it('a removed label leaves its sidecar; a label whose candidate left the study stays in its file', () => {
      const disk = base();
      const { disk: after } = write(disk, (o) => [withAnnotations(o.items[0], 'c1', (as) => as.filter((a) => a.annotator !== 'E1')), o.items[1], { ...o.items[2], candidates: [] }]);
      assert.equal(text(after.labels!.get('E1.jsonl')), `${line('i3', 'c5', ann('E1', false))}\r\n`);
      // c5 is gone from the study: its label is kept and reported.
      const reread = open({ ...after, study: documentBytes(parseDocument(after.study, STUDY), editsFor(parseDocument(after.study, STUDY), documentItems(parseDocument(after.study, STUDY)).map((it) => (it.id === 'i3' ? { ...it, candidates: [] } : it)))) });
      assert.deepEqual(reread.overlay.problems.map((p) => p.code), ['orphanCandidate']);
    });

    it('split and join keep the order of a candidate\'s annotations, with an index only where they must; other writes keep each line\'s', () => {
      const disk: Disk = {
        study: encodeUtf8(formatItems([item('i1', [cand('c1', [ann('L1'), ann('E2')])])])),
        labels: new Map([['E1.jsonl', encodeUtf8(`${line('i1', 'c1', ann('E1'))}\n`)]]),
      };
      assert.deepEqual(open(disk).overlay.items[0].candidates[0].annotations.map((a) => a.annotator), ['L1', 'E2', 'E1']);
      // E2 into a sidecar: the plain order (inline, then E1.jsonl, E2.jsonl) would put it last.
      const { disk: split } = write(disk, (o) => o.items, { toSidecars: ['E2'] });
      assert.equal(text(split.labels!.get('E2.jsonl')), `${line('i1', 'c1', ann('E2'), 1)}\n`);
      assert.equal(split.labels!.get('E1.jsonl'), disk.labels!.get('E1.jsonl'), 'E1\'s line needs no index');
      assert.deepEqual(open(split).overlay.items[0].candidates[0].annotations.map((a) => a.annotator), ['L1', 'E2', 'E1']);
      // A label changed by any other write keeps its line's index; a new line gets none (it reads back after the others).
      const { disk: edited } = write(split, (o) => [withAnnotations(o.items[0], 'c1', (as) => [ann('E0'), ...as.map((a) => (a.annotator === 'E2' ? ann('E2', false) : a))])]);
      assert.equal(text(edited.labels!.get('E2.jsonl')), `${line('i1', 'c1', ann('E2', false), 1)}\n`);
      assert.equal(text(edited.labels!.get('E0.jsonl')), `${line('i1', 'c1', ann('E0'))}\n`);
      assert.deepEqual(open(edited).overlay.items[0].candidates[0].annotations.map((a) => a.annotator), ['L1', 'E2', 'E0', 'E1']);
      // A job that only reorders changes no file.
      const { w } = write(edited, (o) => [withAnnotations(o.items[0], 'c1', (as) => [...as].reverse())]);
      assert.deepEqual(w.sidecars, []);
      // Join: back inline in the order read.
      const { disk: joined } = write(edited, (o) => o.items, { inline: 'all' });
      assert.deepEqual(documentItems(parseDocument(joined.study, STUDY))[0].candidates[0].annotations.map((a) => a.annotator), ['L1', 'E2', 'E0', 'E1']);
      // One index on two lines: in the order of the files' names.
      const tie: Disk = { study: disk.study, labels: new Map([['X.jsonl', encodeUtf8(`${line('i1', 'c1', ann('X'), 1)}\n`)], ['Y.jsonl', encodeUtf8(`${line('i1', 'c1', ann('Y'), 1)}\n`)]]) };
      assert.deepEqual(open(tie).overlay.items[0].candidates[0].annotations.map((a) => a.annotator), ['L1', 'X', 'Y', 'E2']);
    });

    it('refuses to put two annotations of one annotator on one candidate into a sidecar, naming the study\'s line', () => {
      const disk: Disk = { study: encodeUtf8(`\n${formatItems([item('i1', [cand('c1', [ann('E1'), ann('E1', false)])])])}`) };
      assert.throws(
        () => write(disk, (o) => o.items, { toSidecars: ['E1'] }),
        (e: LabelWriteError) => e.problems.length === 1 && e.problems[0].file === STUDY && e.problems[0].line === 2 && e.problems[0].field === 'candidates[0].annotations[1]',
      );
    });

    it('refuses a new sidecar whose name differs from another\'s only in case', () => {
      const disk = base();
      assert.throws(() => write(disk, (o) => [withAnnotations(o.items[0], 'c2', () => [ann('e1')]), o.items[1], o.items[2]]), /differs from E1\.jsonl only in case/);
    });
  });

  it('withSidecarWrites gives the folder a write leaves, without reading it again (what the editor lays over after a save)', () => {
    const disk: Disk = { study: encodeUtf8(formatItems([item('i1', [cand('c1', [ann('L1'), ann('E2')]), cand('c2')])])) };
    const { doc, overlay } = open(disk);
    const split = labelWrites(overlay, overlay.items, { toSidecars: 'all' });
    const after = apply(disk, doc, split, { toSidecars: 'all' });
    const folder = withSidecarWrites(undefined, split.sidecars, 'study.labels');
    assert.deepEqual(overlayLabels(parseDocument(after.study, STUDY), folder), open(after).overlay);
    const o2 = open(after).overlay;
    const edit = labelWrites(o2, [withAnnotations(o2.items[0], 'c2', () => [ann('E3')])]);
    const after2 = apply(after, parseDocument(after.study, STUDY), edit);
    assert.deepEqual(overlayLabels(parseDocument(after2.study, STUDY), withSidecarWrites(o2.sidecars, edit.sidecars)), open(after2).overlay);
    assert.throws(() => withSidecarWrites(undefined, []), /name the labels folder/);
  });

  describe('split and join', () => {
    it('split then join gives back the same bytes; join refuses while a sidecar holds a line that is not a label of the study', () => {
      const study = encodeUtf8(
        '\uFEFF' +
          formatItems([
            item('i1', [cand('c1', [ann('L1'), ann('E2', false, { group: 'expert', errors: ['parroting'] }), ann('E1')]), cand('c2', [ann('E1'), ann('L1')])]),
            item('i2', [cand('c3', [ann('E2')]), cand('c4')]),
          ]).replace(/\n/g, '\r\n') +
          'not json\r\n',
      );
      const disk: Disk = { study };
      const { disk: split, w } = write(disk, (o) => o.items, { toSidecars: 'all' });
      assert.deepEqual(w.sidecars.map((s) => s.name), ['E1.jsonl', 'E2.jsonl', 'L1.jsonl']);
      assert.deepEqual(documentItems(parseDocument(split.study, STUDY)).flatMap((it) => it.candidates.flatMap((c) => c.annotations)), []);
      assert.deepEqual(open(split).overlay.items, open(disk).overlay.items);
      assert.ok(text(split.study).endsWith('not json\r\n'));
      const { disk: joined } = write(split, (o) => o.items, { inline: 'all' });
      assert.ok(bytesEqual(joined.study, study));
      assert.equal(joined.labels, undefined);

      const orphan = { ...split, labels: new Map(split.labels!).set('E1.jsonl', new Uint8Array([...split.labels!.get('E1.jsonl')!, ...encodeUtf8(`${line('gone', 'c9', ann('E1'))}\n`)])) };
      assert.throws(() => write(orphan, (o) => o.items, { inline: 'all' }), (e: LabelWriteError) => e.problems.length === 1 && e.problems[0].code === 'orphanItem' && /cannot all go back inline/.test(e.problems[0].message));
      // Other annotators can still go back.
      const { disk: part } = write(orphan, (o) => o.items, { inline: ['E2'] });
      assert.deepEqual([...part.labels!.keys()].sort(), ['E1.jsonl', 'L1.jsonl']);
    });

    it('round trips random studies: any split, then any join, reads the same and joins back to the same bytes', () => {
      const rng = seedrandom('sidecars');
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(rng() * xs.length)];
      const people = ['E1', 'E2', 'Expert 3', 'L1', 'L2'];
      for (let trial = 0; trial < 100; trial++) {
        const items = Array.from({ length: 1 + Math.floor(rng() * 6) }, (_, i) =>
          item(
            `i${i}`,
            Array.from({ length: Math.floor(rng() * 4) }, (_, j) => {
              const who = people.filter(() => rng() < 0.5).sort(() => rng() - 0.5);
              return cand(`c${j}`, who.map((p) => ann(p, rng() < 0.5, rng() < 0.3 ? { empathy: pick([1, 2, 3, 4, 5]) } : {})));
            }),
          ),
        );
        const original: Disk = { study: encodeUtf8(formatItems(items)) };
        let want = open(original).overlay.items;
        let disk = original;
        let edited = false;
        const byAnnotator = (its: DialogueItem[]) => its.map((it) => it.candidates.map((c) => [...c.annotations].sort((a, b) => (a.annotator < b.annotator ? -1 : 1))));
        for (let step = 0; step < 6; step++) {
          if (rng() < 0.3) {
            // A label edit as a job or the editor makes one: change, add or remove one annotator's label on one candidate.
            const it = Math.floor(rng() * want.length);
            const c = want[it].candidates.length ? pick(want[it].candidates) : undefined;
            if (!c) continue;
            const who = pick(people);
            const has = c.annotations.some((a) => a.annotator === who);
            const f = (as: Annotation[]) => (has && rng() < 0.4 ? as.filter((a) => a.annotator !== who) : has ? as.map((a) => (a.annotator === who ? ann(who, !a.coherent) : a)) : [...as, ann(who, rng() < 0.5)]);
            const next = want.map((x, i) => (i === it ? withAnnotations(x, c.id, f) : x));
            disk = write(disk, () => next).disk;
            const read = open(disk).overlay;
            assert.deepEqual(byAnnotator(read.items), byAnnotator(next), `trial ${trial} step ${step}: the labels written are the labels read`);
            want = read.items;
            edited = true;
          } else {
            const some = people.filter(() => rng() < 0.5);
            const routing: LabelRouting = rng() < 0.5 ? { toSidecars: rng() < 0.3 ? 'all' : some } : { inline: rng() < 0.3 ? 'all' : some };
            disk = write(disk, (o) => o.items, routing).disk;
            assert.deepEqual(open(disk).overlay.items, want, `trial ${trial} step ${step}`);
          }
          assert.deepEqual(open(disk).overlay.problems.filter((p) => p.code !== 'mixed'), []);
        }
        const joined = write(disk, (o) => o.items, { inline: 'all' }).disk;
        assert.deepEqual(documentItems(parseDocument(joined.study, STUDY)), want);
        if (!edited) assert.ok(bytesEqual(joined.study, original.study), `trial ${trial}`);
        assert.equal(joined.labels, undefined);
      }
    });
  });
});
