import assert from 'node:assert/strict';
import type { DialogueItem, Score } from '../../../src/core/dialogue/types';
import { compactDocument, expandDocument } from '../../../src/core/format/compact';
import { encodeItem, type FileHeader } from '../../../src/core/format/compactScores';
import { editsFor } from '../../../src/core/format/files';
import { documentBytes, documentItems, itemEdit, parseDocument, type DialogueDocument } from '../../../src/core/format/jsonl';
import { splitDialogueFile } from '../../../src/core/format/split';

const SIG = 'backend:openai-chat|url:https://api.openai.com/v1|model:m|temperature:0|maxTokens:16|logprobs:true|body:instructions|request:rating|tmpl:61b35994153b|rv:0.1.0';
const JUDGE = 'judge:api:m:instructions×rating@61b35994153b~d334babf';
const BLEU = 'metric:bleu4.score@impl:nltk-3.8|tok:whitespace|smooth:none|rv:0.1.0';

function judgeScore(value: number | null, at: string, extra: Partial<Score> = {}): Score {
  return { value, status: value === null ? 'error' : 'ok', raw: value === null ? '' : String(value), ...(value === null ? { message: 'HTTP 500' } : { expected: value - 0.25 }), signature: SIG, judge: 'api:m', variant: { body: 'instructions', request: 'rating' }, templateHash: '61b35994153b', at, ...extra };
}

function item(id: string, n: number): DialogueItem {
  return {
    id,
    context: [{ speaker: 'client', text: `context of ${id}` }],
    reference: { text: 'ref' },
    candidates: Array.from({ length: n }, (_, i) => ({
      id: `g${i}`,
      text: `candidate ${i} of ${id}`,
      origin: { kind: 'model', model: 'bundled:reflect-gpt2-tiny', decoding: { strategy: 'greedy' } },
      annotations: i === 0 ? [{ annotator: 'E1', coherent: true }] : [],
      scores: {
        [BLEU]: { value: 0.1 * i, status: 'ok', signature: 'impl:nltk-3.8|tok:whitespace|smooth:none|rv:0.1.0', at: `2026-11-25T10:00:0${i}.000Z` },
        [JUDGE]: judgeScore(i === 2 ? null : 4 - (i % 3), `2026-11-25T11:00:0${i}.000Z`),
      },
      myColumn: `kept ${i}`,
    })),
  } as DialogueItem;
}

const longFile = (items: DialogueItem[], eol = '\n') => items.map((it) => JSON.stringify(it) + eol).join('');
const fromBytes = (text: string | Uint8Array) => parseDocument(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, 'study.dialogues.jsonl');

/** The items as compaction by default stores them: scores without their own time, parsed scores without raw. */
function trimmed(items: DialogueItem[], latest: Record<string, string>): DialogueItem[] {
  return items.map((it) => ({
    ...it,
    candidates: it.candidates.map((c) => ({
      ...c,
      scores: Object.fromEntries(Object.entries(c.scores).map(([id, s]) => {
        const { raw, at: _at, ...rest } = s;
        return [id, { ...rest, ...(s.status !== 'ok' && raw !== undefined ? { raw } : {}), at: latest[id] }];
      })),
    })),
  }));
}

describe('compact scores', () => {
  const items = [item('a', 3), item('b', 4)];

  it('reads a compact file back as the same items, times and parsed raw replies aside, and is much smaller', () => {
    const before = longFile(items);
    const result = compactDocument(fromBytes(before));
    const doc = fromBytes(result.bytes);
    assert.equal(doc.problems.length, 0);
    assert.ok(doc.header);
    assert.deepEqual(doc.header.evaluators.map((e) => e.id), [BLEU, JUDGE]);
    assert.deepEqual(documentItems(doc), trimmed(items, { [BLEU]: '2026-11-25T10:00:03.000Z', [JUDGE]: '2026-11-25T11:00:03.000Z' }));
    assert.equal(result.rawDropped, 5, 'the 5 parsed judge replies (the 2 failed ones keep their empty raw)');
    assert.equal(result.timesDropped, 12, 'every score but the latest of each evaluator');
    assert.equal(result.longScores, 0);
    assert.equal(result.compactScores, 14);
    // The shared fields are said once, in the header: no signature is left on an item line.
    const lines = Buffer.from(result.bytes).toString('utf8').split('\n');
    assert.ok(lines.slice(1).every((l) => !l.includes('signature') && !l.includes(JUDGE)));
    assert.ok(result.bytes.length * 2 < Buffer.byteLength(before), `${result.bytes.length} vs ${Buffer.byteLength(before)}`);
  });

  it('keeps everything with --keep-raw --keep-times, and --expand gives the long form back', () => {
    const compact = compactDocument(fromBytes(longFile(items)), { keepRaw: true, keepTimes: true });
    assert.equal(compact.rawDropped + compact.timesDropped, 0);
    const doc = fromBytes(compact.bytes);
    assert.deepEqual(documentItems(doc), items);
    const expanded = expandDocument(doc);
    const back = fromBytes(expanded.bytes);
    assert.equal(back.header, undefined);
    assert.equal(back.lines.length, items.length);
    assert.deepEqual(documentItems(back), items);
    assert.ok(Buffer.from(expanded.bytes).toString('utf8').includes(`"${JUDGE}"`));
  });

  it('writes the value alone, [value, expected], or an object for what differs from the evaluator', () => {
    const line = Buffer.from(compactDocument(fromBytes(longFile(items))).bytes).toString('utf8').split('\n')[1];
    const c = JSON.parse(line).candidates as { scores: Record<string, unknown> }[];
    assert.deepEqual(c[0].scores, { '#0': 0, '#1': [4, 3.75] });
    assert.deepEqual(c[2].scores['#1'], { value: null, status: 'error', raw: '', message: 'HTTP 500' });
  });

  it('keeps a score whose configuration differs from its evaluator\'s in the long form', () => {
    const odd = item('c', 2);
    odd.candidates[1].scores[JUDGE] = judgeScore(3, '2026-11-25T12:00:00.000Z', { signature: `${SIG}|other` });
    const result = compactDocument(fromBytes(longFile([...items, odd])), { keepRaw: true, keepTimes: true });
    const doc = fromBytes(result.bytes);
    assert.deepEqual(documentItems(doc)[2], odd);
    // The signature is no longer shared by every score of the evaluator, so each judge score keeps its own.
    assert.ok(doc.header!.evaluators[1].fields.signature === undefined);
  });

  it('keeps problem lines, blank lines and CRLF byte for byte, and moves a byte order mark to the header', () => {
    const text = `\uFEFF${JSON.stringify(items[0])}\r\nnot json {\r\n\r\n${JSON.stringify(items[1])}\r\n`;
    const bytes = Buffer.concat([Buffer.from(text, 'utf8').subarray(0, -2), Buffer.from([0xe9]), Buffer.from('\r\n')]);
    const result = compactDocument(fromBytes(bytes));
    const out = Buffer.from(result.bytes);
    assert.deepEqual([...out.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    const doc = fromBytes(out);
    assert.equal(doc.lines[0].kind, 'header');
    assert.equal(doc.lines[1].raw.text.startsWith('\uFEFF'), false);
    assert.deepEqual(doc.lines.map((l) => l.kind), ['header', 'item', 'invalid', 'blank', 'invalid']);
    assert.ok(out.includes(Buffer.from('\r\nnot json {\r\n\r\n')));
    assert.equal(out.subarray(-3).toString('latin1'), '\xe9\r\n', 'the line that is not UTF-8 keeps its bytes');
    const back = Buffer.from(expandDocument(doc).bytes);
    assert.deepEqual([...back.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
    assert.deepEqual(fromBytes(back).lines.map((l) => l.kind), ['item', 'invalid', 'blank', 'invalid']);
  });

  it('keeps the bytes of a first line that is not an item, a byte order mark aside', () => {
    const bad = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"id":"x","note":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n')]);
    const bytes = Buffer.concat([bad, Buffer.from(`${JSON.stringify(items[0])}\n`)]);
    const out = Buffer.from(compactDocument(fromBytes(bytes)).bytes);
    const lines = out.toString('latin1').split('\n');
    assert.ok(lines[0].startsWith('\xef\xbb\xbf{"reflectEval"'));
    assert.ok(Buffer.from(lines[1], 'latin1').equals(bad.subarray(3, -1)), 'the line that is not UTF-8 keeps its bytes');
    assert.deepEqual(fromBytes(out).lines.map((l) => l.kind), ['header', 'invalid', 'item']);
  });

  it('writes a labelled item compactly again, so a label never expands a line', () => {
    const doc = fromBytes(compactDocument(fromBytes(longFile(items))).bytes);
    const labelled = structuredClone(documentItems(doc)[1]);
    labelled.candidates[3].annotations.push({ annotator: 'E2', coherent: false, errors: ['offTopic'] });
    const edit = itemEdit(doc, 1, labelled);
    assert.ok(!edit.newText.includes(JUDGE) && edit.newText.includes('"#1"'));
    const after = fromBytes(documentBytes(doc, [edit]));
    assert.deepEqual(documentItems(after)[1], labelled);
    assert.equal(Buffer.byteLength(edit.newText) - Buffer.byteLength(edit.oldText), Buffer.byteLength('{"annotator":"E2","coherent":false,"errors":["offTopic"]}'));
  });

  it('adds a job\'s new evaluator to the header, and writes its scores compactly', () => {
    const doc = fromBytes(compactDocument(fromBytes(longFile(items))).bytes);
    const ROUGE = 'metric:rougeL.f@impl:rouge-score-0.1.2|tok:default|stem:none|rv:0.1.0';
    const scored = documentItems(doc).map((it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, scores: { ...c.scores, [ROUGE]: { value: 0.5, status: 'ok' as const, signature: 'impl:rouge-score-0.1.2', at: '2026-11-26T00:00:00.000Z' } } })) }));
    const edits = editsFor(doc, scored);
    assert.deepEqual(edits.map((e) => e.line), [0, 1, 2]);
    const after = fromBytes(documentBytes(doc, edits));
    assert.deepEqual(after.header!.evaluators.map((e) => e.id), [BLEU, JUDGE, ROUGE]);
    assert.deepEqual(after.header!.evaluators[2].fields, { status: 'ok', signature: 'impl:rouge-score-0.1.2' });
    assert.deepEqual(documentItems(after), scored);
    const line = after.lines[1].raw.text;
    assert.ok(!line.includes('rougeL') && line.includes('"#2":{"value":0.5,"at":"2026-11-26T00:00:00.000Z"}'), line);
  });

  it('reports a bad header, a header not on the first line, and an alias the header lacks, with line and field', () => {
    const compact = Buffer.from(compactDocument(fromBytes(longFile(items))).bytes).toString('utf8');
    const [head, first, second] = compact.split('\n');
    const unknown = first.replaceAll('"#1":', '"#9":');
    let doc: DialogueDocument = fromBytes(`${head}\n${unknown}\n${second}\n${head}\n`);
    assert.deepEqual(doc.problems.map((p) => [p.line, p.code, p.field]), [
      [2, 'compactScore', 'candidates[0].scores.#9'],
      [2, 'compactScore', 'candidates[1].scores.#9'],
      [2, 'compactScore', 'candidates[2].scores.#9'],
      [4, 'header', 'reflectEval'],
    ]);
    assert.match(doc.problems[0].message, /no evaluator #9 in the header \(line 1 lists 2\)/);
    assert.equal(documentItems(doc).length, 1);
    doc = fromBytes(`${head.replace('"version":1', '"version":7')}\n${second}\n`);
    assert.deepEqual(doc.problems[0], { file: 'study.dialogues.jsonl', line: 1, code: 'header', field: 'reflectEval.version', message: 'must be 1 (this is ReflectEval\'s only compact format; a newer ReflectEval wrote this file?)' });
    assert.ok(doc.problems.length > 1 && doc.problems.slice(1).every((p) => p.line === 2 && p.code === 'schema'));
    assert.equal(doc.header, undefined);
    assert.equal(documentItems(doc).length, 0, 'without a usable header, compact scores are not valid scores');
  });

  it('encodes without a header as JSON.stringify does', () => {
    assert.equal(encodeItem(items[0]), JSON.stringify(items[0]));
    assert.equal(encodeItem(items[0], { format: 'compact-scores', version: 1, evaluators: [] } as FileHeader), JSON.stringify(items[0]));
  });

  it('splits a compact file into parts that each start with the header', () => {
    const many = Array.from({ length: 30 }, (_, i) => item(`i${i}`, 3));
    const bytes = Buffer.from(compactDocument(fromBytes(longFile(many))).bytes);
    const { parts, header } = splitDialogueFile(bytes, 4000);
    assert.ok(header && parts.length > 2);
    for (const p of parts) {
      assert.ok(p.bytes.length <= 4000);
      assert.ok(p.bytes.subarray(0, header.length).equals(header));
      const doc = fromBytes(p.bytes);
      assert.equal(doc.problems.length, 0);
      assert.equal(documentItems(doc).length, p.lastLine - p.firstLine + 1);
    }
    assert.equal(parts[0].firstLine, 2);
    const joined = Buffer.concat([parts[0].bytes, ...parts.slice(1).map((p) => p.bytes.subarray(header.length))]);
    assert.ok(joined.equals(bytes));
  });
});
