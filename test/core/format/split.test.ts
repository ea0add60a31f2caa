/**
 * Splitting a dialogue file into parts VS Code can open (issue 19 item 3): whole lines, byte for byte, whatever
 * the lines hold; the parts joined are the file; a line longer than the limit is a part of its own.
 */
import assert from 'node:assert/strict';
import { partFileName, splitLines } from '../../../src/core/format/split';

describe('splitLines', () => {
  const lines = [Buffer.from('{"id":"a"}\n'), Buffer.from([0x7b, 0xff, 0xfe, 0x0d, 0x00, 0x7d, 0x0a]), Buffer.from('{"id":"b","x":"' + 'y'.repeat(40) + '"}\r\n'), Buffer.from('last without line feed')];
  const file = Buffer.concat(lines);

  it('keeps whole lines, byte for byte (invalid UTF-8, CR, NUL, CRLF, no final line feed): the parts joined are the file', () => {
    for (const max of [1, 7, 11, 18, 30, 60, 1000]) {
      const parts = splitLines(file, max);
      assert.ok(Buffer.concat(parts.map((p) => p.bytes)).equals(file), `max ${max}`);
      for (const p of parts) {
        assert.ok(p.bytes.length <= max || p.oversized, `max ${max}: a part over the limit is one long line`);
        if (p.oversized) assert.equal(p.firstLine, p.lastLine);
      }
      assert.equal(parts[0].firstLine, 1);
      assert.equal(parts.at(-1)!.lastLine, 4);
      parts.slice(1).forEach((p, i) => assert.equal(p.firstLine, parts[i].lastLine + 1));
    }
  });

  it('packs as many whole lines as fit', () => {
    const parts = splitLines(file, lines[0].length + lines[1].length);
    assert.deepEqual(parts.map((p) => [p.firstLine, p.lastLine]), [[1, 2], [3, 3], [4, 4]]);
    assert.deepEqual(parts.map((p) => p.oversized), [false, true, true]);
    assert.deepEqual(splitLines(Buffer.alloc(0), 10), []);
    assert.throws(() => splitLines(file, 0), RangeError);
  });

  it('names parts so they sort in order and stay dialogue files', () => {
    assert.equal(partFileName('study.dialogues.jsonl', 3, 12), 'study.part-03-of-12.dialogues.jsonl');
    assert.equal(partFileName('x.jsonl', 1, 150), 'x.part-001-of-150.jsonl');
  });
});
