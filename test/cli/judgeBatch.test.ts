/**
 * `reflect-eval judge --batch` (the built CLI, dist/cli.js) killed with SIGKILL while its batch runs: the rerun
 * finds the batch id in `.reflect-eval-cache/batches.jsonl`, polls that batch, stores its results, and creates no
 * new batch. The files and batches endpoints are a loopback stub that counts uploads and batch creations. The CLI is
 * built first when dist/cli.js is missing or older than a source file.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startStubBatchAPI, type StubBatchServer } from '../helpers/stubOpenAIBatch';

const root = resolve(__dirname, '../..');
const cliJs = join(root, 'dist', 'cli.js');

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) t = Math.max(t, statSync(join(e.parentPath, e.name)).mtimeMs);
  return t;
}

function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((ok) => {
    const child = spawn(process.execPath, [cliJs, ...args], { cwd: root, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => ok({ code, stdout, stderr }));
  });
}

describe('reflect-eval judge --batch, killed with SIGKILL mid-batch (the built CLI)', function () {
  this.timeout(300_000);
  let stub: StubBatchServer | undefined;

  before(() => {
    if (!existsSync(cliJs) || statSync(cliJs).mtimeMs < newestMtime(join(root, 'src'))) {
      const b = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, encoding: 'utf8' });
      assert.equal(b.status, 0, `build failed: ${b.stderr}`);
    }
  });
  after(async () => stub?.close());

  it('the rerun resumes the same batch by id: no new batch, no new upload, every candidate scored', async () => {
    let hold = true;
    stub = await startStubBatchAPI({ answer: (line) => ({ reply: String(1 + ((line.body.messages?.[0]?.content.length ?? 0) % 5)) }), hold: () => hold, pollsToFinish: 1 });
    const dir = mkdtempSync(join(tmpdir(), 'judge-batch-kill-'));
    const file = join(dir, 'study.dialogues.jsonl');
    const imp = await runCli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '6', '-o', file]);
    assert.equal(imp.code, 0, imp.stderr);
    const run = {
      judges: [{ backend: 'openai-chat', baseURL: stub.baseURL, model: 'batch-judge', apiKeyEnv: 'K' }],
      bodies: ['instructions', 'instructions-tutorial'],
      requests: ['rating'],
      batchPollSeconds: 0.05,
    };
    writeFileSync(join(dir, 'run.json'), JSON.stringify(run));

    const child = spawn(process.execPath, [cliJs, 'judge', file, '--config', join(dir, 'run.json'), '--batch'], { cwd: root, env: { ...process.env, K: 'k' } });
    let childErr = '';
    child.stderr.on('data', (d) => (childErr += d));
    const state = join(dir, '.reflect-eval-cache', 'batches.jsonl');
    const stateText = () => (existsSync(state) ? readFileSync(state, 'utf8') : '');
    const started = Date.now();
    while (!/"batchId":"batch_/.test(stateText())) {
      assert.ok(Date.now() - started < 120_000, `no batch id in the state file: ${childErr}`);
      await new Promise((r) => setTimeout(r, 25));
    }
    // Let it poll a few times, then kill it without warning.
    const polled = () => stub!.batches[0]?.polls ?? 0;
    while (polled() < 3) await new Promise((r) => setTimeout(r, 25));
    child.kill('SIGKILL');
    await new Promise((r) => child.on('close', r));
    assert.equal(stub.batches.length, 1);
    assert.equal(stub.uploads.length, 1);
    const batchId = stub.batches[0].id;
    const requests = stub.batches[0].lines.length;
    assert.equal(requests, 12, '6 candidates × 2 variants');
    assert.equal(readFileSync(file, 'utf8').includes('"judge:api:batch-judge'), false, 'the killed run wrote no results');

    // The batch finishes while nobody watches; the rerun collects it.
    hold = false;
    const resumed = await runCli(['judge', file, '--config', join(dir, 'run.json'), '--batch'], { K: 'k' });
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.equal(stub.batches.length, 1, 'no new batch');
    assert.equal(stub.uploads.length, 1, 'no new upload');
    assert.match(resumed.stderr, new RegExp(`resuming 1 batch\\(es\\) of openai-chat: batch-judge @ .*: ${batchId}`));
    assert.match(resumed.stderr, new RegExp(`batch ${batchId} \\(openai-chat: batch-judge @ [^)]*, resumed\\): completed, 12 answered, 0 failed of 12 requests`));
    const items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const scores = items.flatMap((it) => it.candidates.flatMap((c: { scores: Record<string, { status: string; value: number }> }) => Object.values(c.scores)));
    assert.equal(scores.length, 12, 'every candidate has its two scores');
    assert.ok(scores.every((s) => s.status === 'ok' && s.value >= 1 && s.value <= 5));
    const last = stateText().trim().split('\n').map((l) => JSON.parse(l)).filter((e) => e.batchId === batchId).at(-1);
    assert.equal(last.status, 'collected');

    // A third run has nothing to ask: no batch, no poll.
    const before = stub.log.length;
    const third = await runCli(['judge', file, '--config', join(dir, 'run.json'), '--batch'], { K: 'k' });
    assert.equal(third.code, 0, third.stderr);
    assert.equal(stub.log.length, before, 'no request at all');
    if (process.env.REFLECT_EVAL_PRINT_FIGURES) console.log(JSON.stringify({ batchesCreated: stub.batches.length, uploads: stub.uploads.length, requests, pollsOfTheBatch: stub.batches[0].polls, scores: scores.length, ok: scores.filter((s) => s.status === 'ok').length }));
  });
});
