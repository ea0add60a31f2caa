import assert from 'node:assert/strict';
import { applyLabelOp, type LabelOp } from '../../../src/core/labels/annotate';
import { labelChanges, mergeLabelsIntoFile, rebaseLabelOperations } from '../../../src/core/labels/rebase';
import { documentItems, parseDocument, serializeItem } from '../../../src/core/format/jsonl';
import { encodeUtf8 } from '../../../src/core/format/bytes';
import type { DialogueItem, Score } from '../../../src/core/dialogue/types';

const T = new Date('2026-11-25T20:00:00Z');
const item = (id: string, annotations: DialogueItem['candidates'][number]['annotations'] = []): DialogueItem => ({
  id,
  context: [{ speaker: 'client', text: `context of ${id}` }],
  candidates: [
    { id: 'ref', text: `reference of ${id}`, origin: { kind: 'human' }, annotations: structuredClone(annotations), scores: {} },
    { id: 'g1', text: `generated for ${id}`, origin: { kind: 'model', model: 'm' }, annotations: [], scores: {} },
  ],
});
const label = (it: DialogueItem, candidateId: string, op: LabelOp, annotator = 'me') => applyLabelOp(it, candidateId, annotator, op, T);
const score = (value: number): Score => ({ value, status: 'ok' });
/** What a score job does to an item: a new evaluator's score on every candidate. */
const scored = (it: DialogueItem, evaluator = 'metric:bleu.bleu4@abc'): DialogueItem => ({
  ...it,
  candidates: it.candidates.map((c, i) => ({ ...c, scores: { ...c.scores, [evaluator]: score(i + 0.5) } })),
});
const ann = (it: DialogueItem, candidateId: string, annotator = 'me') => it.candidates.find((c) => c.id === candidateId)?.annotations.find((a) => a.annotator === annotator);

describe('rebasing unsaved labels onto the file on disk', () => {
  it('keeps both the unsaved labels and the scores a job wrote meanwhile', () => {
    const base = [item('a'), item('b')];
    const current = [label(label(base[0], 'ref', { kind: 'coherence', coherent: true }), 'ref', { kind: 'empathy', value: 4 }), label(base[1], 'g1', { kind: 'toggleError', error: 'parroting' })];
    const pending = labelChanges(base, current);
    assert.deepEqual(pending.other, []);
    assert.deepEqual(
      pending.changes.map((c) => [c.itemId, c.candidateId, c.field, c.before, c.after]),
      [
        ['a', 'ref', 'coherent', undefined, true],
        ['a', 'ref', 'updatedAt', undefined, T.toISOString()],
        ['a', 'ref', 'empathy', undefined, 4],
        ['b', 'g1', 'coherent', undefined, false],
        ['b', 'g1', 'errors', undefined, ['parroting']],
        ['b', 'g1', 'updatedAt', undefined, T.toISOString()],
      ],
    );
    const disk = base.map((it) => scored(it));
    const merged = rebaseLabelOperations(disk, pending.changes);
    assert.deepEqual(merged.conflicts, []);
    assert.deepEqual(merged.orphans, []);
    assert.deepEqual(merged.changed, ['a', 'b']);
    for (const [i, it] of merged.items.entries()) {
      assert.deepEqual(it.candidates.map((c) => c.scores), disk[i].candidates.map((c) => c.scores), `the job's scores of ${it.id} survive`);
    }
    assert.deepEqual(ann(merged.items[0], 'ref'), { annotator: 'me', coherent: true, empathy: 4, updatedAt: T.toISOString() });
    assert.deepEqual(ann(merged.items[1], 'g1'), { annotator: 'me', coherent: false, errors: ['parroting'], updatedAt: T.toISOString() });
    assert.equal(disk[0].candidates[0].annotations.length, 0, 'the disk items are not modified');
  });

  it('keeps labels another annotator saved to disk, and leaves items without unsaved labels as they are', () => {
    const base = [item('a'), item('b')];
    const current = [label(base[0], 'ref', { kind: 'coherence', coherent: false }), base[1]];
    const disk = [label(base[0], 'ref', { kind: 'coherence', coherent: true }, 'colleague'), scored(base[1])];
    const merged = rebaseLabelOperations(disk, labelChanges(base, current).changes);
    assert.deepEqual(merged.conflicts, []);
    assert.deepEqual(merged.items[0].candidates[0].annotations.map((a) => [a.annotator, a.coherent]), [['colleague', true], ['me', false]]);
    assert.equal(merged.items[1], disk[1], 'an item with no unsaved label is the disk item itself');
    assert.deepEqual(merged.changed, ['a']);
  });

  it('reports a conflict with both values when the same label changed on both sides, and keeps fields changed on one side', () => {
    const base = [item('a', [{ annotator: 'me', coherent: true, empathy: 2 }])];
    const mineItem = label(base[0], 'ref', { kind: 'empathy', value: 5 });
    // Another window saved a different empathy answer, and a colleague's label, meanwhile.
    const disk = [label(label(base[0], 'ref', { kind: 'empathy', value: 1 }, 'me'), 'ref', { kind: 'coherence', coherent: false }, 'colleague')];
    const merged = rebaseLabelOperations(disk, labelChanges(base, [mineItem]).changes);
    assert.equal(merged.conflicts.length, 1);
    const [c] = merged.conflicts;
    assert.deepEqual([c.itemId, c.candidateId, c.annotator, c.fields], ['a', 'ref', 'me', ['empathy']]);
    assert.equal(c.base?.empathy, 2);
    assert.equal(c.mine.empathy, 5);
    assert.equal(c.disk?.empathy, 1);
    assert.equal(ann(merged.items[0], 'ref')?.empathy, 5, 'the merged item holds the unsaved value until the user picks');
    assert.equal(ann(merged.items[0], 'ref', 'colleague')?.coherent, false);
  });

  it('is no conflict when both sides made the same change', () => {
    const base = [item('a')];
    const mine = label(base[0], 'g1', { kind: 'coherence', coherent: true });
    const disk = [label(base[0], 'g1', { kind: 'coherence', coherent: true })];
    const merged = rebaseLabelOperations(disk, labelChanges(base, [mine]).changes);
    assert.deepEqual(merged.conflicts, []);
    assert.deepEqual(merged.changed, []);
    assert.equal(merged.items[0], disk[0]);
  });

  it('reports the unsaved labels of an item deleted on disk, and of a candidate deleted on disk', () => {
    const base = [item('a'), item('b')];
    const current = [label(base[0], 'g1', { kind: 'coherence', coherent: true }), label(base[1], 'g1', { kind: 'coherence', coherent: false })];
    const bWithoutG1 = { ...base[1], candidates: base[1].candidates.filter((c) => c.id !== 'g1') };
    const merged = rebaseLabelOperations([bWithoutG1], labelChanges(base, current).changes);
    assert.deepEqual(merged.items, [bWithoutG1]);
    assert.deepEqual(
      merged.orphans.map((o) => [o.kind, o.itemId, o.candidateId, o.annotator, o.mine?.coherent]),
      [
        ['itemMissing', 'a', 'g1', 'me', true],
        ['candidateMissing', 'b', 'g1', 'me', false],
      ],
    );
  });

  it('undoing a first label removes the annotation on disk only if the disk still had it as before', () => {
    const base = [item('a', [{ annotator: 'me', coherent: true }])];
    const current = [{ ...base[0], candidates: base[0].candidates.map((c) => ({ ...c, annotations: [] })) }];
    const pending = labelChanges(base, current);
    assert.deepEqual(pending.changes.map((c) => [c.field, c.before, c.after]), [['coherent', true, undefined]]);
    const merged = rebaseLabelOperations([scored(base[0])], pending.changes);
    assert.deepEqual(merged.items[0].candidates[0].annotations, []);
    assert.equal(merged.items[0].candidates[0].scores['metric:bleu.bleu4@abc']?.value, 0.5);
  });

  it('lists unsaved changes that are not labels, which it cannot merge', () => {
    const base = [item('a'), item('b')];
    const generated: DialogueItem = { ...base[0], candidates: [...base[0].candidates, { id: 'g2', text: 'new', origin: { kind: 'model' }, annotations: [], scores: {} }] };
    const pending = labelChanges(base, [generated, scored(base[1]), item('c')]);
    assert.deepEqual(pending.other, ['item "a": changes other than labels', 'item "b": changes other than labels', 'item "c" added']);
    assert.deepEqual(labelChanges(base, [base[0]]).other, ['item "b" removed']);
    assert.deepEqual(labelChanges(base, [base[1], base[0]]).other, ['items reordered']);
    assert.deepEqual(labelChanges(base, base, { base: ['x'], current: ['y'] }).other, ['lines that are not items changed']);
  });

  it('merges into the file bytes, keeping malformed, non-UTF-8 and blank lines and CRLF endings byte for byte', () => {
    const base = [item('a'), item('b')];
    const enc = (s: string) => encodeUtf8(s);
    const bad = enc('{"id": "broken", "context": [ truncated');
    const notUtf8 = new Uint8Array([0x7b, 0x22, 0x69, 0xe9, 0xff, 0x22, 0x7d]);
    const lines = (items: DialogueItem[]) => [enc(serializeItem(items[0]) + '\r\n'), bad, enc('\n'), notUtf8, enc('\n\n'), enc(serializeItem(items[1]) + '\n')];
    const concat = (parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
    // The job scored item b only (item a's line is untouched on disk).
    const diskBytes = concat(lines([base[0], scored(base[1])]));
    const current = [base[0], label(base[1], 'ref', { kind: 'coherence', coherent: true })];
    const merged = mergeLabelsIntoFile(diskBytes, labelChanges(base, current).changes, 'x.dialogues.jsonl');
    assert.deepEqual(merged.changed, ['b']);
    const out = parseDocument(merged.bytes, 'x');
    const head = diskBytes.length - lines([base[0], scored(base[1])])[5].length;
    assert.deepEqual([...merged.bytes.subarray(0, head)], [...diskBytes.subarray(0, head)], 'every line before the changed item is byte-identical');
    const b = documentItems(out)[1];
    assert.equal(ann(b, 'ref')?.coherent, true);
    assert.equal(b.candidates[1].scores['metric:bleu.bleu4@abc']?.value, 1.5);
    assert.equal(out.lines.length, 5);
  });
});
