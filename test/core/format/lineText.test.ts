import assert from 'node:assert/strict';
import { LineText } from '../../../src/core/format/lineText';
import { vsCodeText } from '../../../src/core/format/lineReport';
import { parseDocument, parseRawLines, splitLines } from '../../../src/core/format/jsonl';

const bytes = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

describe('LineText', () => {
  const cases: [string, Buffer][] = [
    ['LF with a final line break', bytes('{"a":1}\n{"b":2}\n')],
    ['LF without a final line break', bytes('{"a":1}\n{"b":2}')],
    ['CRLF', bytes('{"a":1}\r\n{"b":2}\r\n')],
    ['mixed, mostly LF, with a lone CR', bytes('a\nb\r\nc\rd\ne\n')],
    ['mostly CRLF', bytes('a\r\nb\r\nc\n')],
    ['invalid UTF-8', bytes('caf', [0xe9], '\n', 'ok\n')],
    ['a BOM', bytes([0xef, 0xbb, 0xbf], '{"a":1}\n')],
    ['a BOM and CRLF', bytes([0xef, 0xbb, 0xbf], 'x\r\ny')],
    ['empty', bytes('')],
  ];
  for (const [name, b] of cases)
    it(`holds the text VS Code would hold: ${name}`, () => {
      const t = LineText.fromBytes(b);
      assert.equal(t.getText(), vsCodeText(b));
      const expected = vsCodeText(b).split(/\r\n|\n/);
      assert.equal(t.lineCount, expected.length);
      expected.forEach((line, i) => assert.equal(t.line(i), line));
    });

  for (const [name, b] of cases)
    it(`gives the lines splitLines gives its text, and the same parse: ${name}`, () => {
      const t = LineText.fromBytes(b);
      assert.deepEqual(t.rawLines(), splitLines(t.getText()));
      assert.deepEqual(parseRawLines(t.rawLines(), 'f'), parseDocument(t.getText(), 'f'));
    });

  it('writes back the BOM and the line ending it read', () => {
    const b = bytes([0xef, 0xbb, 0xbf], 'x\r\ny\r\n');
    assert.deepEqual(Buffer.from(LineText.fromBytes(b).toBytes()), b);
    assert.deepEqual(Buffer.from(LineText.fromBytes(bytes('x\ny\n')).toBytes()), bytes('x\ny\n'));
  });

  it('a lone CR becomes the file’s line ending, so a save changes the bytes (the save restores them: keepProblemLines)', () => {
    const t = LineText.fromBytes(bytes('a\rb\nc\n'));
    assert.equal(t.lineCount, 4);
    assert.equal(Buffer.from(t.toBytes()).toString(), 'a\nb\nc\n');
  });

  it('replaces lines and undoes them, a line replaced twice included', () => {
    const t = LineText.fromBytes(bytes('a\nb\nc\n'));
    const before = t.getText();
    const inverse = t.replaceLines([{ line: 1, text: 'B' }, { line: 1, text: 'BB' }, { line: 2, text: 'C' }]);
    assert.equal(t.getText(), 'a\nBB\nC\n');
    t.replaceLines(inverse);
    assert.equal(t.getText(), before);
  });

  it('refuses a line out of range or a line break, changing nothing', () => {
    const t = LineText.fromBytes(bytes('a\nb'));
    assert.throws(() => t.replaceLines([{ line: 0, text: 'x' }, { line: 2, text: 'y' }]), RangeError);
    assert.throws(() => t.replaceLines([{ line: 0, text: 'x\ny' }]), /line break/);
    assert.equal(t.getText(), 'a\nb');
    assert.throws(() => t.line(-1), RangeError);
  });
});
