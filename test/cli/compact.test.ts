import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const JUDGE = 'judge:api:m:instructions×rating@61b35994153b~d334babf';

function line(i: number): string {
  const scores = (c: number) => ({
    [JUDGE]: { value: 1 + ((i + c) % 5), status: 'ok', raw: `Rating: ${1 + ((i + c) % 5)}`, signature: 'backend:openai-chat|model:m|rv:0.1.0', judge: 'api:m', variant: { body: 'instructions', request: 'rating' }, templateHash: '61b35994153b', at: `2026-11-25T10:00:${String(i).padStart(2, '0')}.00${c}Z` },
  });
  return JSON.stringify({ id: `i${i}`, context: [{ speaker: 'client', text: `turn ${i}` }], candidates: [0, 1, 2].map((c) => ({ id: `c${c}`, text: `candidate ${c}`, origin: { kind: 'human' }, annotations: [], scores: scores(c) })) });
}

describe('reflect-eval compact', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-compact-'));
  const file = join(dir, 'study.dialogues.jsonl');
  const original = `${Array.from({ length: 20 }, (_, i) => line(i)).join('\n')}\nnot json\n`;

  it('writes a compact copy with -o, says what it dropped, and --expand gives the long form back', () => {
    writeFileSync(file, original);
    const out = join(dir, 'study.compact.dialogues.jsonl');
    const r = cli('compact', file, '-o', out);
    assert.equal(r.code, 0, r.stderr);
    assert.equal(readFileSync(file, 'utf8'), original, 'the original is left alone');
    assert.match(r.stdout, /1 evaluators in the header; 60 scores compact, 0 in the long form/);
    assert.match(r.stdout, /dropped: 60 raw replies of parsed scores .*, 59 scores' own times/);
    assert.match(r.stdout, /1 problem line\(s\) kept as they are \(the first: line 21: not valid JSON/);
    const compact = readFileSync(out, 'utf8').split('\n');
    assert.equal(JSON.parse(compact[0]).reflectEval.evaluators[0].id, JUDGE);
    assert.equal(compact[21], 'not json');

    const e = cli('compact', out, '--expand');
    assert.equal(e.code, 0, e.stderr);
    assert.match(e.stdout, /long form, 60 scores/);
    const back = readFileSync(out, 'utf8').split('\n');
    assert.equal(back.length, original.split('\n').length);
    const score = JSON.parse(back[3]).candidates[1].scores[JUDGE];
    assert.deepEqual(score, { status: 'ok', signature: 'backend:openai-chat|model:m|rv:0.1.0', judge: 'api:m', variant: { body: 'instructions', request: 'rating' }, templateHash: '61b35994153b', at: '2026-11-25T10:00:19.002Z', value: 5 });
  });

  it('keeps raw replies and times when asked, in place', () => {
    writeFileSync(file, original);
    const r = cli('compact', file, '--keep-raw', '--keep-times');
    assert.equal(r.code, 0, r.stderr);
    assert.doesNotMatch(r.stdout, /dropped/);
    const e = cli('compact', file, '--expand');
    assert.equal(e.code, 0, e.stderr);
    const items = (text: string) => text.split('\n').slice(0, 20).map((l) => JSON.parse(l));
    assert.deepEqual(items(readFileSync(file, 'utf8')), items(original));
  });

  it('splits a compact file into parts that each start with the header, and prints how to join them', () => {
    const sub = mkdtempSync(join(dir, 'split-'));
    const f = join(sub, 'big.dialogues.jsonl');
    writeFileSync(f, Array.from({ length: 3000 }, (_, i) => line(i % 60)).map((l, i) => l.replace(/"id":"i\d+"/, `"id":"x${i}"`)).join('\n') + '\n');
    assert.equal(cli('compact', f).code, 0);
    const r = cli('split', f, '--max-mb', '0.5');
    assert.equal(r.code, 0, r.stderr);
    const parts = readdirSync(sub).filter((n) => n.includes('.part-')).sort();
    assert.ok(parts.length >= 2);
    const header = readFileSync(f, 'utf8').split('\n')[0];
    for (const p of parts) assert.equal(readFileSync(join(sub, p), 'utf8').split('\n')[0], header);
    assert.match(r.stdout, new RegExp(`each starting with the file's header line\\. Join them again in this order: \\(cat "${parts[0]}"; tail -n \\+2 "${parts[1]}"`));
  });
});
