import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import { decodeUtf8Lossy, decodeUtf8Strict, splitByteLines, utf8Errors } from '../../../src/core/format/bytes';
import { documentItems, itemEdit, applyLineEdits, parseDocument, replaceItemsById } from '../../../src/core/format/jsonl';
import { lineReports, problemLines, withDiskProblems, problemLinesChangedBySave, vsCodeLineEndingChanges, vsCodeText } from '../../../src/core/format/lineReport';
import { setCoherence } from '../../../src/core/labels/annotate';

const item = (id: string) =>
  JSON.stringify({ id, context: [{ speaker: 'client', text: `hello ${id}` }], candidates: [{ id: 'c1', text: 'So you feel…', origin: { kind: 'model', model: 'm' } }] });
const bytes = (...parts: (string | number[] | Uint8Array)[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));
const latin1 = () => bytes('{"id":"l","context":[{"speaker":"client","text":"caf', Array(65).fill([0xe9, 0xff]).flat(), '"}],"candidates":[]}');

describe('utf8Errors', () => {
  it('finds the runs a replacing decoder turns into U+FFFD, exactly as TextDecoder does (20,000 random strings)', () => {
    const rng = seedrandom('utf8');
    const pick = [0x00, 0x41, 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xe1, 0xed, 0xee, 0xef, 0xf0, 0xf1, 0xf4, 0xf5, 0xff];
    for (let n = 0; n < 20000; n++) {
      const len = Math.floor(rng() * 12);
      const b = Uint8Array.from({ length: len }, () => (rng() < 0.7 ? pick[Math.floor(rng() * pick.length)] : Math.floor(rng() * 256)));
      const errors = utf8Errors(b);
      assert.equal(errors.length === 0, decodeUtf8Strict(b) !== undefined, `strictness of ${Buffer.from(b).toString('hex')}`);
      // Rebuild the lossy decoding from the runs: good stretches decoded, each run one U+FFFD.
      let text = '';
      let at = 0;
      for (const e of errors) {
        text += decodeUtf8Strict(b.subarray(at, e.offset)) + '\uFFFD';
        at = e.offset + e.length;
      }
      text += decodeUtf8Strict(b.subarray(at));
      assert.equal(text, decodeUtf8Lossy(b), Buffer.from(b).toString('hex'));
    }
  });

  it('a surrogate encoded as bytes (WTF-8 ED A0 80) is three errors', () => {
    assert.deepEqual(utf8Errors(Uint8Array.from([0x61, 0xed, 0xa0, 0x80])), [{ offset: 1, length: 1 }, { offset: 2, length: 1 }, { offset: 3, length: 1 }]);
    assert.deepEqual(utf8Errors(Uint8Array.from([0xe2, 0x82])), [{ offset: 0, length: 2 }]);
  });
});

describe('line splitting on bytes', () => {
  it('ends lines at LF and CRLF only; a lone CR, CR CR LF and a final line without LF are as documented', () => {
    const b = bytes('a\rb\nc\r\n\r\nd\r\r\ne\r');
    assert.deepEqual(splitByteLines(b).map((l) => [b.subarray(l.start, l.end).toString(), l.eol]), [
      ['a\rb', '\n'],
      ['c', '\r\n'],
      ['', '\r\n'],
      ['d\r', '\r\n'],
      ['e\r', ''],
    ]);
  });
});

describe('problems per line (issue 14)', () => {
  // 6 problem lines with 8 problems: a schema-invalid line has 3.
  const schemaBad = JSON.stringify({ id: 's', context: [{ speaker: '', text: 1 }], candidates: [{ id: 'c', text: 't' }] });
  const file = bytes(
    item('a'), '\n',
    latin1(), '\n',
    '{"id": "cr",\r"oops"', '\n',
    schemaBad, '\n',
    item('a'), '\n',
    [0xef, 0xbb, 0xbf], item('b'), '\n',
    '{"truncated', '\n',
    item('z'), '\n',
  );
  const doc = parseDocument(file, 'p.dialogues.jsonl');

  it('gives one entry per line with all its reasons, while the flat list has one per problem', () => {
    assert.equal(doc.problems.length, 8);
    const reports = lineReports(doc);
    assert.deepEqual(reports.map((r) => r.line), [2, 3, 4, 5, 6, 7]);
    assert.deepEqual(reports.map((r) => r.problems.map((p) => p.code)), [['invalidUtf8'], ['json'], ['schema', 'schema', 'schema'], ['duplicateId'], ['bom'], ['json']]);
    assert.match(reports[2].message, /^context\[0\]\.speaker: must NOT have fewer than 1 characters; context\[0\]\.text: must be string; candidates\[0\]\.origin: missing required field "origin"$/);
  });

  it('gives the editor one problem line per line (6, not the 8 problems the banner used to count), each with all its reasons and VS Code\'s line', () => {
    const lines = problemLines(doc);
    assert.equal(lines.length, 6);
    assert.deepEqual(lines.map((l) => [l.line, l.editorLine, l.editorLineCount, l.severity]), [[2, 2, 1, 'error'], [3, 3, 2, 'error'], [4, 5, 1, 'error'], [5, 6, 1, 'error'], [6, 7, 1, 'error'], [7, 8, 1, 'error']]);
    assert.equal(lines[2].reasons.length, 3, 'three schema errors, one line');
    assert.match(lines[2].message, /^context\[0\]\.speaker: .*; context\[0\]\.text: must be string; candidates\[0\]\.origin: missing required field "origin" \(not an item: the line is kept as it is and left out of every job\)$/);
    assert.deepEqual(lines[0].reasons.length, 2, 'not UTF-8, and what a save from VS Code would do');
    // From the editor's text (VS Code has already split lone CRs and decoded the bytes): lines are VS Code's lines.
    const text = parseDocument(new TextDecoder().decode(file).replace(/\r(?!\n)/g, '\n'), 'p.dialogues.jsonl');
    const fromText = problemLines(text);
    assert.ok(fromText.every((l) => l.line === l.editorLine && l.editorLineCount === 1));
    assert.equal(new Set(fromText.map((l) => l.line)).size, fromText.length, 'one entry per line');
  });

  it('the editor adds what only the bytes show (not UTF-8, a lone CR) to the lines its text shows, where they are now', () => {
    const text = vsCodeText(file).split('\n');
    const disk = new Map(problemLines(doc).filter((l) => l.inVsCode.length > 0).map((l) => [text[l.editorLine - 1], l]));
    assert.equal(disk.size, 2, 'the line that is not UTF-8 and the line with a lone CR');
    const merged = (lines: string[]) => withDiskProblems(problemLines(parseDocument(lines.join('\n'), 'p')), disk, lines.length, (i) => lines[i]);
    const now = merged(text);
    // VS Code's line 2 decodes as a valid item (U+FFFD in a string): only the bytes make it a problem line; the line
    // with a lone CR is two lines in VS Code and one entry covering both.
    assert.deepEqual(now.map((l) => [l.editorLine, l.editorLineCount]), [[2, 1], [3, 2], [5, 1], [6, 1], [7, 1], [8, 1]]);
    assert.match(now[0].message, /a save from VS Code would replace 130 bytes/);
    assert.equal(problemLines(parseDocument(text.join('\n'), 'p')).some((l) => l.editorLine === 2), false, 'the text alone does not see it');
    // An edit above moves them; they are still found by their text.
    const edited = merged([item('new'), ...text]);
    assert.deepEqual(edited.map((l) => l.editorLine), [3, 4, 6, 7, 8, 9]);
    assert.match(edited[1].message, /lone CR/);
    // Once the user rewrites such a line, the bytes' reasons no longer apply to it.
    const fixed = [...text];
    fixed[1] = item('fixed');
    assert.deepEqual(merged(fixed).map((l) => l.editorLine), [3, 5, 6, 7, 8]);
  });

  it('says where the bytes that are not UTF-8 are and what a save from VS Code would do to them', () => {
    const r = lineReports(doc)[0];
    assert.equal(r.byteOffset, Buffer.byteLength(item('a')) + 1);
    const bad = r.problems[0];
    assert.equal(file[bad.byteOffset!], 0xe9);
    assert.equal(bad.byteOffset! - r.byteOffset!, latin1().indexOf(0xe9));
    assert.match(bad.message, /^not valid UTF-8: 130 bytes in 130 places cannot be decoded, the first at byte 52 of the line, file offset \d+ \(E9\)$/);
    assert.deepEqual(r.inVsCode.map((e) => e.message), ['a save from VS Code would replace 130 bytes that are not UTF-8 with 130 U+FFFD (390 bytes)']);
  });

  it('says that VS Code would split a line at a lone CR, and numbers later lines as VS Code does', () => {
    const reports = lineReports(doc);
    assert.deepEqual(reports[1].inVsCode.map((e) => e.code), ['loneCr']);
    assert.match(reports[1].message, /VS Code would split this line at its lone CR \(byte 12 of the line\) into 2 lines and write LF there/);
    assert.deepEqual(reports.map((r) => [r.line, r.editorLine, r.editorLineCount]), [[2, 2, 1], [3, 3, 2], [4, 5, 1], [5, 6, 1], [6, 7, 1], [7, 8, 1]]);
  });

  it('reports an item with a lone CR between tokens (an item for the CLI, two broken lines in VS Code)', () => {
    const d = parseDocument(bytes(item('a').replace(',"candidates"', ',\r"candidates"'), '\n'), 'x');
    assert.equal(documentItems(d).length, 1);
    assert.deepEqual(lineReports(d).map((r) => [r.kind, r.inVsCode.map((e) => e.code)]), [['item', ['loneCr']]]);
  });

  it('names a NUL among the first 512 bytes, and the line ending a VS Code save would rewrite', () => {
    const d = parseDocument(bytes(item('a'), '\r\n', '{"nul": "', [0], '"}\r\n', item('b'), '\n', item('c'), '\n', item('d'), '\n'), 'x');
    const [r] = lineReports(d);
    assert.deepEqual(r.inVsCode.map((e) => e.code), ['eol', 'binary']);
    assert.match(r.message, /end this line with LF instead of CRLF/);
    assert.deepEqual(vsCodeLineEndingChanges(d), { eol: '\n', lines: 2 });
  });
});

describe('problemLinesChangedBySave (issue 14)', () => {
  const good = bytes(item('a'), '\n', '{"broken": ', '\n', item('b'), '\n', 'NUL\u0000 and a mid-file BOM \uFEFF', '\n');

  it('is empty when the saved text keeps every problem line, even with labelled items', () => {
    assert.deepEqual(problemLinesChangedBySave(good, good.toString('utf8')), []);
    const doc = parseDocument(good.toString('utf8'), 'x');
    const labelled = setCoherence(documentItems(doc)[1], 'c1', 'Expert-1', true, new Date(0));
    const saved = applyLineEdits(doc, [itemEdit(doc, 1, labelled)]);
    assert.deepEqual(problemLinesChangedBySave(good, saved), []);
    assert.deepEqual(problemLinesChangedBySave(good, vsCodeText(good)), [], 'VS Code keeps a UTF-8 file with LF line endings as it is');
  });

  it('lists the lines VS Code would change: bytes that are not UTF-8, a lone CR, a rewritten line ending; a leading BOM is kept', () => {
    const file = bytes([0xef, 0xbb, 0xbf], item('a'), '\n', latin1(), '\n', 'lone\rCR', '\n', '{"crlf": ', '\r\n', item('b'), '\n', '{"kept": ', '\n');
    const changed = problemLinesChangedBySave(file, vsCodeText(file), 'f.jsonl');
    assert.deepEqual(changed.map((r) => [r.line, r.inVsCode.map((e) => e.code)]), [[2, ['invalidUtf8']], [3, ['loneCr']], [4, ['eol']]]);
    assert.equal(changed[0].file, 'f.jsonl');
  });

  it('lists a problem line the user deleted or edited in the text editor', () => {
    const text = good.toString('utf8').replace('{"broken": \n', '');
    assert.deepEqual(problemLinesChangedBySave(good, text).map((r) => [r.line, r.inVsCode.length]), [[2, 0]]);
  });
});

describe('replaceItemsById: saving the editor\'s items through the byte-preserving path', () => {
  it('writes labelled items into the file\'s bytes, keeping lines VS Code would change, and names items the file lacks', () => {
    const file = bytes(item('a'), '\r\n', latin1(), '\n', 'lone\rCR', '\n', item('b'), '\n');
    // The editor holds VS Code's text: there the Latin-1 line is an item (its bytes decoded as U+FFFD).
    const shown = parseDocument(vsCodeText(file), 'x');
    assert.deepEqual(documentItems(shown).map((i) => i.id), ['a', 'l', 'b']);
    const labelled = documentItems(shown).map((it) => (it.candidates.length ? setCoherence(it, 'c1', 'Expert-1', true, new Date(0)) : { ...it, note: 1 }));
    const { bytes: out, changed, missing } = replaceItemsById(file, labelled);
    assert.equal(changed, 2);
    assert.deepEqual(missing, ['l'], 'the line that is not UTF-8 is no item in the file: its edit is not written');
    const lines = Buffer.from(out).toString('latin1').split('\n');
    assert.match(lines[0], /"coherent":true.*\r$/);
    assert.equal(Buffer.from(lines[1], 'latin1').toString('hex'), latin1().toString('hex'));
    assert.equal(lines[2], 'lone\rCR');
    assert.match(lines[3], /"annotator":"Expert-1"/);
    const same = replaceItemsById(file, documentItems(parseDocument(file, 'x')));
    assert.equal(same.changed, 0);
    assert.equal(same.bytes, file);
  });
});
