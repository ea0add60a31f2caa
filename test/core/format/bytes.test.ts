/**
 * Issue 14, CLI side: a file is read and written as bytes. Every line that is not a valid item comes back byte for
 * byte through a CLI job, only changed items are re-encoded, and a job that changes nothing writes nothing.
 */
import assert from 'node:assert/strict';
import { chmodSync, mkdtempSync, readFileSync, readlinkSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readDialogueFile, writeItemsBack } from '../../../src/core/format/files';
import { documentItems } from '../../../src/core/format/jsonl';
import { setCoherence } from '../../../src/core/labels/annotate';
import { buildProgram } from '../../../src/cli/main';

const item = (id: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id,
    context: [{ speaker: 'client', text: `I keep drinking more than I mean to (${id}).` }],
    reference: { text: 'You want to drink less than you do.' },
    candidates: [{ id: 'c1', text: 'You want to drink less.', origin: { kind: 'model', model: 'm' } }],
    ...extra,
  });

const bytes = (...parts: (string | number[] | Uint8Array)[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : Buffer.from(p))));

/** A line holding an item whose text has 130 bytes that are not UTF-8 (Latin-1 é and 0xFF). */
const latin1Line = () => bytes('{"id":"latin1","context":[{"speaker":"client","text":"caf', Array(65).fill([0xe9, 0xff]).flat(), '"}],"candidates":[]}');

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'reflect-eval-bytes-'));
});

async function cli(...args: string[]): Promise<void> {
  const write = process.stderr.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  try {
    await buildProgram().exitOverride().parseAsync(['node', 'reflect-eval', ...args]);
  } finally {
    process.stderr.write = write;
  }
}

describe('bytes kept by CLI jobs (issue 14)', () => {
  it('keeps a line with invalid UTF-8 byte for byte when another item is rewritten', () => {
    const file = join(dir, 'latin1.dialogues.jsonl');
    const original = bytes(item('a'), '\n', latin1Line(), '\n', item('b'), '\n');
    writeFileSync(file, original);
    const doc = readDialogueFile(file);
    const items = documentItems(doc);
    assert.deepEqual(items.map((i) => i.id), ['a', 'b']);
    const edited = [items[0], setCoherence(items[1], 'c1', 'Expert-1', true, new Date(0))];
    assert.equal(writeItemsBack(doc, edited, file), 1);
    const back = readFileSync(file);
    const lines = splitOnLf(back);
    assert.deepEqual(lines[0], Buffer.from(item('a')));
    assert.deepEqual(lines[1], latin1Line(), 'the invalid UTF-8 line is kept byte for byte');
    assert.equal(JSON.parse(lines[2].toString('utf8')).candidates[0].annotations[0].annotator, 'Expert-1');
  });

  it('`score` that updates no item leaves a file with invalid UTF-8 untouched (same bytes, same mtime)', async () => {
    const file = join(dir, 'score-none.dialogues.jsonl');
    // The only item has no candidates, so there is nothing to score.
    const original = bytes(JSON.stringify({ id: 'x', context: [], candidates: [] }), '\n', latin1Line(), '\n');
    writeFileSync(file, original);
    const old = new Date('2020-01-01T00:00:00Z');
    utimesSync(file, old, old);
    await cli('score', file, '--metric', 'rougeL');
    assert.deepEqual(readFileSync(file), original);
    assert.equal(statSync(file).mtimeMs, old.getTime(), 'a job that changes no item does not write the file');
  });

  it('`score` keeps every line that is not a valid item byte for byte', async () => {
    const file = join(dir, 'score-mixed.dialogues.jsonl');
    const keep = [
      latin1Line(),
      bytes('{"id":"cr", "context": [\r"oops"]}'), // lone CR inside an invalid line
      bytes('{"id":"nul","context":[],"candidates":[', [0], ']}'),
      bytes([0xef, 0xbb, 0xbf], item('midbom')), // a BOM in the middle of the file
      bytes('{"id":"trunc","context":[{"speaker":"cli'),
      bytes(JSON.stringify({ id: 'schema', context: [{ speaker: '', text: 'x' }], candidates: [] })),
      bytes(item('a')), // a duplicate id: the second "a" is not an item
      bytes('{"id":"surrogate","context":[{"speaker":"client","text":"', [0xed, 0xa0, 0x80], '"}],"candidates":[]}'),
    ];
    const original = bytes(item('a'), '\r\n', ...keep.flatMap((k) => [k, '\n']), item('b'), '\r\n', 'trailing\rCR');
    writeFileSync(file, original);
    await cli('score', file, '--metric', 'rougeL');
    const back = readFileSync(file);
    const lines = splitOnLf(back);
    assert.equal(lines.length, keep.length + 3);
    keep.forEach((k, i) => assert.deepEqual(lines[i + 1], k, `line ${i + 2} kept`));
    assert.deepEqual(lines.at(-1), Buffer.from('trailing\rCR'));
    for (const i of [0, keep.length + 1]) {
      assert.ok(lines[i].at(-1) === 0x0d, 'CRLF kept on a rewritten item');
      const it = JSON.parse(lines[i].subarray(0, -1).toString('utf8'));
      assert.ok(Object.keys(it.candidates[0].scores).some((k) => k.startsWith('metric:rougeL.f')), 'the item was scored');
    }
  });
});

describe('writeItemsBack', () => {
  it('keeps a 10 MB line that is not an item byte for byte next to a rewritten item', async () => {
    const file = join(dir, 'huge.dialogues.jsonl');
    const huge = Buffer.alloc(10 * 1024 * 1024, 'a');
    huge.write('{"id":"huge","context":[{"speaker":"client","text":"', 0);
    huge[5_000_000] = 0xe9; // and not UTF-8 either
    const original = bytes(item('a'), '\n', huge, '\n');
    writeFileSync(file, original);
    await cli('score', file, '--metric', 'rougeL');
    const lines = splitOnLf(readFileSync(file));
    assert.equal(lines.length, 2);
    assert.ok(lines[1].equals(huge), 'the 10 MB line is kept');
    assert.notDeepEqual(lines[0], Buffer.from(item('a')), 'the item was scored');
  });

  it('writes the unchanged bytes to another path, keeps permissions, and writes through a symbolic link', () => {
    const file = join(dir, 'perm.dialogues.jsonl');
    const original = bytes(item('a'), '\r\n', latin1Line());
    writeFileSync(file, original);
    chmodSync(file, 0o640);
    const doc = readDialogueFile(file);
    const copy = join(dir, 'perm-copy.dialogues.jsonl');
    assert.equal(writeItemsBack(doc, documentItems(doc), copy), 0);
    assert.deepEqual(readFileSync(copy), original, 'an unchanged document is copied exactly to --out');
    const link = join(dir, 'perm-link.dialogues.jsonl');
    symlinkSync(file, link);
    const viaLink = readDialogueFile(link);
    const edited = [setCoherence(documentItems(viaLink)[0], 'c1', 'Expert-1', false, new Date(0))];
    assert.equal(writeItemsBack(viaLink, edited, link), 1);
    assert.equal(readlinkSync(link), file, 'the link still points at the file');
    assert.equal(statSync(file).mode & 0o777, 0o640, 'the file keeps its permissions');
    assert.ok(readFileSync(file).subarray(-latin1Line().length).equals(latin1Line()));
    assert.match(readFileSync(file, 'latin1').split('\r\n')[0], /"coherent":false/);
  });

  it('writes nothing when items are returned unchanged, even as new objects', () => {
    const file = join(dir, 'same.dialogues.jsonl');
    writeFileSync(file, `${item('a')}\n`);
    const old = new Date('2021-01-01T00:00:00Z');
    utimesSync(file, old, old);
    const doc = readDialogueFile(file);
    assert.equal(writeItemsBack(doc, documentItems(doc).map((it) => structuredClone(it)), file), 0);
    assert.equal(statSync(file).mtimeMs, old.getTime());
  });
});

describe('line endings (issue 14)', () => {
  it('a lone CR is not a line break: a valid item with a CR between tokens stays one item on one line', () => {
    const file = join(dir, 'cr.dialogues.jsonl');
    const withCr = item('cr').replace('"candidates"', '\r"candidates"');
    writeFileSync(file, `${item('a')}\n${withCr}\nnot json\n`);
    const doc = readDialogueFile(file);
    assert.deepEqual(documentItems(doc).map((i) => i.id), ['a', 'cr']);
    assert.deepEqual(doc.problems.map((p) => p.line), [3], 'lines are counted by LF');
  });
});

function splitOnLf(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = buf.indexOf(0x0a); i >= 0; i = buf.indexOf(0x0a, start)) {
    out.push(buf.subarray(start, i));
    start = i + 1;
  }
  if (start < buf.length) out.push(buf.subarray(start));
  return out;
}
