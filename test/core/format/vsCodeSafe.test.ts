import assert from 'node:assert/strict';
import { parseDocument } from '../../../src/core/format/jsonl';
import { problemLines } from '../../../src/core/format/lineReport';
import { bytesVsCodeKeeps } from '../../../src/core/format/vsCodeSafe';

const item = (id: string) => JSON.stringify({ id, context: [{ speaker: 'client', text: `hello ${id} – ünïcode` }], candidates: [] });
const enc = (s: string) => new TextEncoder().encode(s);
const vsCodeEffects = (bytes: Uint8Array) => problemLines(parseDocument(bytes, 'f')).filter((l) => l.inVsCode.length > 0).length;

describe('bytesVsCodeKeeps: a quick check that VS Code would change no line of a file', () => {
  it('is true for UTF-8 with LF line endings, a BOM, blank and invalid JSON lines — and then problemLines agrees', () => {
    for (const text of [`${item('a')}\n${item('b')}\n`, `\uFEFF${item('a')}\n\n{"id": broken\n${item('b')}`, '']) {
      assert.equal(bytesVsCodeKeeps(enc(text)), true, text);
      assert.equal(vsCodeEffects(enc(text)), 0);
    }
  });

  it('is false for bytes that are not UTF-8, a lone CR, CRLF line endings, and a NUL in the first 512 bytes', () => {
    const bad = new Uint8Array([...enc(`${item('a')}\n{"id":"b`), 0xff, ...enc('"}\n')]);
    assert.equal(bytesVsCodeKeeps(bad), false);
    assert.ok(vsCodeEffects(bad) > 0);
    const loneCr = enc(`${item('a')}\n${item('b').replace('hello', 'hel\rlo')}\n`);
    assert.equal(bytesVsCodeKeeps(loneCr), false);
    assert.ok(vsCodeEffects(loneCr) > 0);
    assert.equal(bytesVsCodeKeeps(enc(`${item('a')}\r\n${item('b')}\n${item('c')}\n`)), false);
    assert.equal(bytesVsCodeKeeps(enc(`${item('a').replace('hello', 'hel\u0000lo')}\n`)), false);
    assert.equal(bytesVsCodeKeeps(enc(`${item('a')}\n${'x'.repeat(600)}\u0000\n`)), true, 'a NUL past byte 512 is only a bad line');
    // Strict UTF-8, as the parser reads it: a surrogate encoded as bytes, an overlong form, a truncated sequence.
    for (const seq of [[0xed, 0xa0, 0x80], [0xc0, 0xaf], [0xe2, 0x82]]) {
      const bytes = new Uint8Array([...enc(`${item('a')}\n{"id":"b`), ...seq, ...enc('"}\n')]);
      assert.equal(bytesVsCodeKeeps(bytes), false, seq.join(' '));
      assert.ok(vsCodeEffects(bytes) > 0);
    }
  });
});
