import assert from 'node:assert/strict';
import { applyLineEdits, documentItems, itemEdit, parseDocument } from '../../../src/core/format/jsonl';
import { changedLinesInPlace, itemIndexOfLine, reparseLines, sameEvaluators, sameOrigins, sameTitleInputs } from '../../../src/core/format/lineUpdate';
import { setCoherence } from '../../../src/core/labels/annotate';
import type { DialogueItem } from '../../../src/core/dialogue/types';

const item = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, context: [{ speaker: 'client', text: `hello ${id}` }], candidates: [{ id: 'c1', text: 'So you feel…', origin: { kind: 'model', model: 'm' } }], ...extra });
const at = new Date('2026-01-01T00:00:00Z');

describe('incremental re-parsing of lines edited in place (lineUpdate)', () => {
  const text = [item('a'), '', '{"id": "broken"', item('b'), item('c')].join('\r\n') + '\n';
  const doc = parseDocument(text, 'f.dialogues.jsonl');

  it('re-parses a labelled item line to what a whole parse gives, sharing the other lines, items, itemLines and problems', () => {
    const labelled = setCoherence(documentItems(doc)[1], 'c1', 'Me', true, at);
    const edit = itemEdit(doc, 1, labelled);
    const next = reparseLines(doc, [{ line: edit.line, text: edit.newText }]);
    assert.ok(next);
    const whole = parseDocument(applyLineEdits(doc, [edit]), 'f.dialogues.jsonl');
    assert.deepEqual(next.lines.map((l) => [l.kind, l.raw.text, l.raw.eol]), whole.lines.map((l) => [l.kind, l.raw.text, l.raw.eol]));
    assert.deepEqual(documentItems(next), documentItems(whole));
    assert.equal(next.itemLines, doc.itemLines);
    assert.equal(next.problems, doc.problems);
    assert.equal(next.lines[0], doc.lines[0]);
    assert.equal(documentItems(next)[0], documentItems(doc)[0]);
    assert.equal(next.lines[3].raw.eol, '\r\n', 'the line keeps its ending');
    assert.equal(doc.lines[3].kind === 'item' && doc.lines[3].item.candidates[0].annotations.length, 0, 'the earlier parse is untouched');
  });

  it('returns the same document when no line text changed', () => {
    assert.equal(reparseLines(doc, [{ line: 0, text: doc.lines[0].raw.text }]), doc);
  });

  it('gives up (undefined) on a structural change: an id changed, an item made invalid, a line that was not an item, a line out of range, a parse of bytes', () => {
    assert.equal(reparseLines(doc, [{ line: 0, text: item('z') }]), undefined);
    assert.equal(reparseLines(doc, [{ line: 0, text: item('b') }]), undefined, 'would duplicate b');
    assert.equal(reparseLines(doc, [{ line: 0, text: '{"id": "a"' }]), undefined);
    assert.equal(reparseLines(doc, [{ line: 2, text: item('x') }]), undefined, 'was invalid');
    assert.equal(reparseLines(doc, [{ line: 1, text: item('x') }]), undefined, 'was blank');
    assert.equal(reparseLines(doc, [{ line: 99, text: item('a') }]), undefined);
    const fromBytes = parseDocument(new TextEncoder().encode(text), 'f.dialogues.jsonl');
    assert.equal(reparseLines(fromBytes, [{ line: 0, text: item('a', { note: 1 }) }]), undefined);
  });

  it('changedLinesInPlace: lines of changes within one line without line breaks; undefined when lines are added, removed or joined', () => {
    const ch = (start: number, end: number, text: string) => ({ range: { start: { line: start }, end: { line: end } }, text });
    assert.deepEqual(changedLinesInPlace([ch(4, 4, '{}'), ch(1, 1, 'x'), ch(4, 4, 'y')]), [1, 4]);
    assert.deepEqual(changedLinesInPlace([]), []);
    assert.equal(changedLinesInPlace([ch(1, 2, '')]), undefined);
    assert.equal(changedLinesInPlace([ch(1, 1, 'a\nb')]), undefined);
    assert.equal(changedLinesInPlace([ch(1, 1, 'a\r')]), undefined);
  });

  it('itemIndexOfLine finds the item of a line, -1 for a line without one', () => {
    assert.deepEqual(doc.itemLines, [0, 3, 4]);
    assert.deepEqual([0, 1, 2, 3, 4, 5].map((l) => itemIndexOfLine(doc.itemLines, l)), [0, -1, -1, 1, 2, -1]);
    assert.equal(itemIndexOfLine([], 0), -1);
  });

  it('tells whether a new version of an item keeps its evaluators, origins and title inputs', () => {
    const a = JSON.parse(item('a')) as DialogueItem;
    a.candidates[0].scores = { 'metric:bleu4.score@x': { value: 0.1, status: 'ok' } };
    a.candidates[0].annotations = [];
    const labelled = setCoherence(a, 'c1', 'Me', false, at);
    assert.ok(sameEvaluators(a, labelled) && sameOrigins(a, labelled) && sameTitleInputs(a, labelled));
    const rescored = { ...a, candidates: [{ ...a.candidates[0], scores: { 'metric:bleu4.score@x': { value: 0.1, status: 'ok', signature: 'other' } } }] } as DialogueItem;
    assert.equal(sameEvaluators(a, rescored), false);
    assert.equal(sameOrigins(a, { ...a, candidates: [{ ...a.candidates[0], origin: { kind: 'human' } }] } as DialogueItem), false);
    assert.equal(sameTitleInputs(a, { ...a, context: [{ speaker: 'client', text: 'other' }] } as DialogueItem), false);
    assert.equal(sameTitleInputs(a, { ...a, provenance: { transcriptId: 't1' } } as DialogueItem), false);
  });
});
