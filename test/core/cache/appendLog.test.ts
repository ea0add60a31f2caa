import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppendLog } from '../../../src/core/cache/appendLog';
import { ResponseCache } from '../../../src/core/cache/responseCache';
import { JudgeCache } from '../../../src/core/judges/cache';

const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-cache-'));

/** Runs tornWriter.ts, waits until it has torn its last line, and SIGKILLs it. */
function killWriterMidLine(file: string, count: number): Promise<NodeJS.Signals | null> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(__dirname, 'tornWriter.ts'), file, String(count)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('ready')) child.kill('SIGKILL');
    });
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('exit', (code, signal) => (signal ? resolve(signal) : reject(new Error(`writer exited with ${code} before it was killed: ${err}`))));
  });
}

describe('caches that heal (issue 14)', () => {
  it('after a writer is SIGKILLed mid-line, the torn line is skipped, the next append starts on a fresh line, and every other entry survives', async function () {
    this.timeout(30000);
    const file = join(dir, 'judge-cache.jsonl');
    const n = 20;
    assert.equal(await killWriterMidLine(file, n), 'SIGKILL');
    assert.notEqual(readFileSync(file).at(-1), 0x0a, 'the killed writer left a torn last line');

    const resumed = new ResponseCache<{ text: string }>(file);
    assert.equal(resumed.size, n);
    resumed.set('after', { text: 'the first reply after the crash' });

    const reread = new ResponseCache<{ text: string }>(file);
    assert.equal(reread.size, n + 1, 'no entry lost: the new entry did not glue onto the fragment');
    for (let i = 0; i < n; i++) assert.equal(reread.get(`k${i}`)?.text, `reply ${i}: So you feel torn — «déjà vu»`);
    assert.equal(reread.get('after')?.text, 'the first reply after the crash');
    assert.equal(reread.get('torn'), undefined);
    const lines = readFileSync(file, 'utf8').split('\n');
    assert.equal(lines.length, n + 3, 'n entries, the fragment on a line of its own, the new entry, and the final empty string');
    assert.ok(lines[n].startsWith('{"key":"torn"') && !lines[n].endsWith('}'));
    assert.ok(lines[n + 1].startsWith('{"key":"after"'));
    assert.equal(lines[n + 2], '');
    assert.equal(resumed.skippedLines, 1, 'the torn line was counted');
  });

  it('the judges\' cache goes through the same healing log', () => {
    const file = join(dir, 'judges.jsonl');
    writeFileSync(file, '{"key":"a","result":{"status":"ok","value":4,"raw":"4"},"at":"x"}\n{"key":"b","result":{"stat');
    const cache = new JudgeCache(file);
    assert.equal(cache.size, 1);
    cache.set('c', { status: 'ok', value: 3, raw: '3' } as never);
    assert.equal(new JudgeCache(file).size, 2);
  });

  it('reads back an entry that an older writer glued onto a torn fragment', () => {
    const file = join(dir, 'glued.jsonl');
    const entry = (key: string) => JSON.stringify({ key, result: { text: `{"nested": "${key}"}`, n: { deep: { x: 1 } } }, at: 't' });
    const a = entry('a');
    const torn = entry('torn').slice(0, 40);
    writeFileSync(file, `${a}\n${torn}${entry('b')}\n${entry('c')}\n`);
    const log = new AppendLog(file);
    const read = log.read();
    assert.deepEqual((read.entries as { key: string }[]).map((e) => e.key), ['a', 'b', 'c']);
    assert.equal(read.skipped, 1);
    assert.equal(read.recovered, 1);
  });

  it('creates the file and its folder on the first append, and skips values the accept check refuses', () => {
    const file = join(dir, 'sub', 'dir', 'log.jsonl');
    const log = new AppendLog<{ n: number }>(file, (v): v is { n: number } => typeof (v as { n?: unknown })?.n === 'number');
    log.append({ n: 1 });
    writeFileSync(file, readFileSync(file, 'utf8') + '{"m": 2}\n[1]\n');
    log.append({ n: 3 });
    assert.deepEqual(log.read(), { entries: [{ n: 1 }, { n: 3 }], skipped: 2, recovered: 0 });
  });
});
