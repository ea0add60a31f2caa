import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cliAsync } from '../helpers/cli';
import { startStubOpenAI, type StubServer } from '../helpers/stubOpenAI';

const root = resolve(__dirname, '../..');
const SECRET = 'sk-test-DO-NOT-LEAK-1234567890';

const cli = cliAsync;

describe('reflect-eval judge --config (6 variants × 2 judges)', function () {
  this.timeout(180_000);
  let stub: StubServer | undefined;
  after(async () => stub?.close());

  it('runs the matrix, writes a manifest without the key, and a second run makes zero calls', async () => {
    stub = await startStubOpenAI((req) => ({ reply: String(1 + ((req.body.messages as { content: string }[])[0].content.length % 5)) }));
    const dir = mkdtempSync(join(tmpdir(), 'judge-matrix-'));
    const file = join(dir, 'study.dialogues.jsonl');
    const imp = await cli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '2', '-o', file], {});
    assert.equal(imp.code, 0, imp.stderr);
    const config = {
      judges: [
        { backend: 'openai-chat', baseURL: stub.baseURL, model: 'stub-judge', apiKeyEnv: 'MY_JUDGE_KEY' },
        { backend: 'local' },
      ],
      bodies: ['instructions', 'instructions-error-explanations', 'instructions-tutorial'],
      requests: ['rating', 'scoring'],
      concurrency: 3,
      prices: { 'stub-judge': { inputPerMTok: 1, outputPerMTok: 2 } },
    };
    writeFileSync(join(dir, 'run.json'), JSON.stringify(config));
    const first = await cli(['judge', file, '--config', join(dir, 'run.json')], { MY_JUDGE_KEY: SECRET });
    assert.equal(first.code, 0, first.stderr);
    const candidates = 2; // the sampled items carry only their reference candidate
    assert.equal(stub.requests.length, 6 * candidates);
    assert.ok(stub.requests.every((r) => r.headers.authorization === `Bearer ${SECRET}`));
    const manifest = JSON.parse(readFileSync(join(dir, 'study.judge-manifest.json'), 'utf8'));
    assert.equal(manifest.evaluators.length, 12);
    assert.equal(manifest.totals.judgements, 12 * candidates);
    assert.equal(manifest.totals.calls, 12 * candidates);
    // The stub reports 10 prompt and 1 completion tokens per call: 12 calls cost (120·1 + 12·2) / 1e6.
    assert.equal(manifest.totals.promptTokens, 10 * 6 * candidates);
    assert.ok(Math.abs(manifest.totals.cost - (120 + 24) / 1e6) < 1e-15);
    assert.ok(manifest.evaluators.every((e: { templateHash: string }) => /^[0-9a-f]{12}$/.test(e.templateHash)));
    const items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.ok(items.every((it) => Object.keys(it.candidates[0].scores).length === 12));

    const second = await cli(['judge', file, '--config', join(dir, 'run.json')], { MY_JUDGE_KEY: SECRET });
    assert.equal(second.code, 0, second.stderr);
    assert.equal(stub.requests.length, 6 * candidates, 'no call on the second run');

    // The key appears in no file and no output.
    const files = [...readdirSync(dir).map((f) => join(dir, f)), join(dir, '.reflect-eval-cache', 'judge-cache.jsonl')];
    for (const f of files) {
      if (f.endsWith('run.json') || f.endsWith('.reflect-eval-cache')) continue;
      assert.ok(!readFileSync(f, 'utf8').includes(SECRET), f);
    }
    for (const out of [first, second]) assert.ok(!(out.stdout + out.stderr).includes(SECRET));
  });

  it('rejects a key written into the run config, naming file and field', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'judge-matrix-'));
    writeFileSync(join(dir, 'run.json'), JSON.stringify({ judges: [{ backend: 'openai-chat', baseURL: 'http://127.0.0.1:9', model: 'm', apiKey: 'x' }], bodies: ['instructions'], requests: ['rating'] }));
    writeFileSync(join(dir, 'f.dialogues.jsonl'), JSON.stringify({ id: 'i', context: [], candidates: [] }) + '\n');
    const r = await cli(['judge', join(dir, 'f.dialogues.jsonl'), '--config', join(dir, 'run.json')], {});
    assert.equal(r.code, 1);
    assert.match(r.stderr, /run\.json: judges\[0\]\.apiKey: keys do not belong in a run config/);
  });

  it('resumes a SIGKILLed run: every judgement recorded once, only the calls in flight at the kill repeated', async () => {
    const seen = new Map<string, number>(); // prompt → replies sent
    const slow = await startStubOpenAI((req) => {
      const prompt = (req.body.messages as { content: string }[])[0].content;
      seen.set(prompt, (seen.get(prompt) ?? 0) + 1);
      return { reply: '3', delayMs: 150 };
    });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'judge-kill-'));
      const file = join(dir, 'study.dialogues.jsonl');
      assert.equal((await cli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '12', '-o', file], {})).code, 0);
      const run = { judges: [{ backend: 'openai-chat', baseURL: slow.baseURL, model: 'slow', apiKeyEnv: 'K' }], bodies: ['instructions', 'instructions-tutorial'], requests: ['rating'], concurrency: 2 };
      writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
      // Start a run and kill it once some replies have been cached.
      const child = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), 'judge', file, '--config', join(dir, 'run.json')], { cwd: root, env: { ...process.env, K: 'k' } });
      const cache = join(dir, '.reflect-eval-cache', 'judge-cache.jsonl');
      const lines = () => {
        try {
          return readFileSync(cache, 'utf8').split('\n').filter(Boolean).length;
        } catch {
          return 0;
        }
      };
      while (lines() < 5) await new Promise((r) => setTimeout(r, 50));
      child.kill('SIGKILL');
      await new Promise((r) => child.on('close', r));
      const cachedBeforeResume = lines();
      assert.ok(cachedBeforeResume < 24, 'killed before the end');
      const repliedBeforeKill = new Set([...seen.keys()]);
      assert.equal(readFileSync(file, 'utf8').includes('"judge:api:slow'), false, 'the killed run wrote no results into the file');

      const resumed = await cli(['judge', file, '--config', join(dir, 'run.json')], { K: 'k' });
      assert.equal(resumed.code, 0, resumed.stderr);
      const items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const scores = items.flatMap((it) => it.candidates.flatMap((c: { scores: Record<string, { status: string }> }) => Object.values(c.scores)));
      assert.equal(scores.length, 24, '12 candidates × 2 variants, each recorded once');
      assert.ok(scores.every((s) => s.status === 'ok'));
      // Replies cached before the kill were not asked again; a call in flight at the kill may be asked twice.
      const askedTwice = [...seen.entries()].filter(([, n]) => n > 1).map(([p]) => p);
      assert.ok(askedTwice.length <= run.concurrency, `at most the ${run.concurrency} calls in flight at the kill are repeated (got ${askedTwice.length})`);
      assert.ok(repliedBeforeKill.size >= cachedBeforeResume);
    } finally {
      await slow.close();
    }
  });

  it('two endpoints serving the same model name are two evaluators, each with its own answers', async () => {
    const four = await startStubOpenAI(() => ({ reply: '4' }));
    const two = await startStubOpenAI(() => ({ reply: '2' }));
    try {
      const dir = mkdtempSync(join(tmpdir(), 'judge-two-'));
      const file = join(dir, 'study.dialogues.jsonl');
      assert.equal((await cli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '3', '-o', file], {})).code, 0);
      const run = {
        judges: [
          { backend: 'openai-chat', baseURL: four.baseURL, model: 'same-judge', apiKeyEnv: 'K' },
          { backend: 'openai-chat', baseURL: two.baseURL, model: 'same-judge', apiKeyEnv: 'K' },
        ],
        bodies: ['instructions'],
        requests: ['rating'],
        // One variable's key to two origins: the plan says so (docs/security.md).
        apiKeyOrigins: { K: [four.baseURL, two.baseURL] },
      };
      writeFileSync(join(dir, 'run.json'), JSON.stringify(run));
      const r = await cli(['judge', file, '--config', join(dir, 'run.json')], { K: 'k' });
      assert.equal(r.code, 0, r.stderr);
      assert.equal(four.requests.length, 3);
      assert.equal(two.requests.length, 3, 'the second server is called too');
      const items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      const ids = new Set(items.flatMap((it) => it.candidates.flatMap((c: { scores: object }) => Object.keys(c.scores))));
      assert.equal(ids.size, 2, [...ids].join(', '));
      for (const it of items) {
        const values = Object.values(it.candidates[0].scores as Record<string, { value: number; signature: string }>);
        assert.deepEqual(values.map((s) => s.value).sort(), [2, 4]);
        const byValue = new Map(values.map((s) => [s.value, s.signature]));
        assert.ok(byValue.get(4)!.includes(four.baseURL.replace(/\/+$/, '')), byValue.get(4));
        assert.ok(byValue.get(2)!.includes(two.baseURL.replace(/\/+$/, '')), byValue.get(2));
      }
      const manifest = JSON.parse(readFileSync(join(dir, 'study.judge-manifest.json'), 'utf8'));
      assert.equal(new Set(manifest.evaluators.map((e: { evaluatorId: string }) => e.evaluatorId)).size, 2);
    } finally {
      await four.close();
      await two.close();
    }
  });
});
