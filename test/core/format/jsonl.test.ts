import assert from 'node:assert/strict';
import { applyLineEdits, appendItems, documentItems, itemEdit, parseDocument, splitLines } from '../../../src/core/format/jsonl';
import { setCoherence } from '../../../src/core/labels/annotate';

const item = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ id, context: [{ speaker: 'client', text: `hello ${id}` }], candidates: [{ id: 'c1', text: 'So you feel…', origin: { kind: 'model', model: 'm' } }], ...extra });

describe('dialogue JSONL format', () => {
  it('round-trips a file byte for byte, including odd spacing, CRLF, blank and malformed lines', () => {
    const text = [
      '{ "id" : "a", "context": [], "candidates": [] }\r\n',
      '\n',
      '{"id": "b", "context": [', // malformed, no newline at end... followed by more lines below
      '\n',
      item('c', { custom: { nested: [1, 2, 3] } }) + '\n',
      '   \n',
      item('d'),
    ].join('');
    const doc = parseDocument(text, 'x.dialogues.jsonl');
    assert.equal(applyLineEdits(doc, []), text);
    assert.deepEqual(documentItems(doc).map((i) => i.id), ['a', 'c', 'd']);
  });

  it('reports a malformed line with its number and keeps it verbatim when another line is edited', () => {
    const bad = '{"id": "broken", "context": [ oops';
    const text = `${item('a')}\n${bad}\n${item('b')}\n`;
    const doc = parseDocument(text, 'f.dialogues.jsonl');
    assert.equal(doc.problems.length, 1);
    assert.equal(doc.problems[0].line, 2);
    assert.equal(doc.problems[0].file, 'f.dialogues.jsonl');
    assert.match(doc.problems[0].message, /not valid JSON/);
    const items = documentItems(doc);
    const edited = setCoherence(items[1], 'c1', 'ann', true, new Date('2026-01-01T00:00:00Z'));
    const out = applyLineEdits(doc, [itemEdit(doc, 1, edited)]);
    const lines = out.split('\n');
    assert.equal(lines[0], item('a'));
    assert.equal(lines[1], bad);
    assert.deepEqual(JSON.parse(lines[2]).candidates[0].annotations, [{ annotator: 'ann', coherent: true, updatedAt: '2026-01-01T00:00:00.000Z' }]);
    assert.equal(out.endsWith('\n'), true);
  });

  it('names the line and field of a schema violation', () => {
    const bad = JSON.stringify({ id: 'x', context: [{ speaker: '', text: 'hi' }], candidates: [{ id: 'c', text: 't' }] });
    const doc = parseDocument(`${item('ok')}\n${bad}\n`, 'g.jsonl');
    const fields = doc.problems.map((p) => `${p.line}:${p.field}`);
    assert.ok(fields.includes('2:context[0].speaker'), fields.join(', '));
    assert.ok(fields.includes('2:candidates[0].origin'), fields.join(', '));
    assert.equal(documentItems(doc).length, 1);
  });

  it('preserves unknown fields at every level through an edit', () => {
    const raw = JSON.stringify({
      id: 'u',
      myField: { a: 1 },
      context: [{ speaker: 'client', text: 'x', mood: 'tired' }],
      candidates: [{ id: 'c1', text: 't', origin: { kind: 'api', model: 'gpt', extra: true }, annotations: [{ annotator: 'z', coherent: false, note: 'n' }], scores: {}, tag: 7 }],
    });
    const doc = parseDocument(raw + '\n', 'u.jsonl');
    const edited = setCoherence(documentItems(doc)[0], 'c1', 'me', true, new Date(0));
    const back = JSON.parse(applyLineEdits(doc, [itemEdit(doc, 0, edited)]));
    assert.deepEqual(back.myField, { a: 1 });
    assert.equal(back.context[0].mood, 'tired');
    assert.equal(back.candidates[0].tag, 7);
    assert.equal(back.candidates[0].origin.extra, true);
    assert.deepEqual(back.candidates[0].annotations[0], { annotator: 'z', coherent: false, note: 'n' });
  });

  it('flags duplicate ids', () => {
    const doc = parseDocument(`${item('a')}\n${item('a')}\n`, 'd.jsonl');
    assert.equal(doc.problems.length, 1);
    assert.equal(doc.problems[0].line, 2);
    assert.match(doc.problems[0].message, /duplicate item id "a" \(first on line 1\)/);
  });

  it('appends items after a last line without newline, using the file line ending', () => {
    const doc = parseDocument(`${item('a')}\r\n${item('b')}`, 'a.jsonl');
    const out = appendItems(doc, [documentItems(doc)[0]]);
    assert.equal(splitLines(out).length, 3);
    assert.ok(out.startsWith(`${item('a')}\r\n${item('b')}\r\n`));
  });

  it('keeps a UTF-8 BOM on the first line', () => {
    const text = `\uFEFF${item('a')}\n`;
    const doc = parseDocument(text, 'bom.jsonl');
    assert.equal(doc.problems.length, 0);
    assert.equal(applyLineEdits(doc, []), text);
  });
});

describe('incremental re-parse', () => {
  it('reuses unchanged item lines and parses edited ones', () => {
    const text = `${item('a')}\n${item('b')}\nnot json\n`;
    const first = parseDocument(text, 'f.jsonl');
    const edited = text.replace(item('b'), item('b', { note: 1 }));
    const second = parseDocument(edited, 'f.jsonl', first);
    assert.equal(documentItems(second)[0], documentItems(first)[0], 'unchanged line reused');
    assert.notEqual(documentItems(second)[1], documentItems(first)[1]);
    assert.equal(documentItems(second)[1].note, 1);
    assert.equal(second.problems.length, 1);
    assert.equal(second.problems[0].line, 3);
    assert.equal(applyLineEdits(second, []), edited);
  });
});

describe('line breaks', () => {
  it('counts a lone CR as a line break, as VS Code does, and writes it back unchanged', () => {
    const text = `${item('a')}\nbroken \r line\r\n${item('b')}`;
    const doc = parseDocument(text, 'cr.jsonl');
    assert.equal(doc.lines.length, 4);
    assert.deepEqual(documentItems(doc).map((i) => i.id), ['a', 'b']);
    assert.deepEqual(doc.problems.map((p) => p.line), [2, 3]);
    const edited = setCoherence(documentItems(doc)[1], 'c1', 'me', true, new Date(0));
    const out = applyLineEdits(doc, [itemEdit(doc, 1, edited)]);
    assert.ok(out.startsWith(`${item('a')}\nbroken \r line\r\n`));
  });
});
