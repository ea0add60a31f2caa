/**
 * The judge matrix through the Batch API, in process, against loopback stubs of the files and batches endpoints:
 * a batch that completes (results where online replies would be, cost at half price), a batch that expires with some
 * requests failed (those reported; a rerun asks only them), a batch that fails validation, and the plan checks.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { runPlanOnFile } from '../../../src/core/jobs/file';
import type { JobHost } from '../../../src/core/jobs/host';
import { estimateJudgePlan, validateJudgePlan, type JudgePlan } from '../../../src/core/jobs/judge';
import { startStubBatchAPI, type BatchLine, type BatchLineAnswer, type StubBatchOptions, type StubBatchServer } from '../../helpers/stubOpenAIBatch';
import { testJobHost } from '../../helpers/jobHost';

const root = resolve(__dirname, '../../..');

function testHost(baseDir: string, log: string[] = []): JobHost {
  return testJobHost(baseDir, { secret: async () => ({ key: 'sk-batch-test' }), log: (m) => log.push(m) });
}

/** Three items with two candidates each: six candidates. */
function study(dir: string, name = 'study.dialogues.jsonl'): string {
  const items: DialogueItem[] = [1, 2, 3].map((n) => ({
    id: `item-${n}`,
    context: [{ speaker: 'client', text: `I drink when I feel down (${n}).` }],
    candidates: ['a', 'b'].map((k) => ({ id: `${k}${n}`, text: `Candidate ${k}${n}: so drinking helps you cope.`, origin: { kind: 'model' as const, model: 'm' }, annotations: [], scores: {} })),
  }));
  const file = join(dir, name);
  writeFileSync(file, items.map((it) => JSON.stringify(it)).join('\n') + '\n');
  return file;
}

function readItems(file: string): DialogueItem[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

function promptOf(line: BatchLine): string {
  return line.body.messages?.[0]?.content ?? '';
}

function plan(baseURL: string, extra: Partial<JudgePlan> = {}): JudgePlan & { job: 'judge' } {
  return {
    job: 'judge',
    judges: [{ backend: 'openai-chat', baseURL, model: 'batch-judge', apiKeyEnv: 'K' }],
    bodies: ['instructions', 'instructions-tutorial'],
    requests: ['rating'],
    prices: { 'batch-judge': { inputPerMTok: 2, outputPerMTok: 4 } },
    batch: true,
    batchPollSeconds: 0.02,
    ...extra,
  };
}

describe('judge matrix through the Batch API (loopback files and batches endpoints)', function () {
  this.timeout(60_000);
  let stub: StubBatchServer | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('uploads one JSONL of chat requests keyed by cache key, stores every result, and a later online run re-uses them', async () => {
    stub = await startStubBatchAPI({ answer: (line) => ({ reply: promptOf(line).includes('Candidate a') ? '4' : '2' }), pollsToFinish: 3 });
    const dir = mkdtempSync(join(tmpdir(), 'batch-ok-'));
    const file = study(dir);
    const log: string[] = [];
    const report = await runPlanOnFile(plan(stub.baseURL), file, testHost(dir, log));

    assert.equal(stub.uploads.length, 1);
    assert.equal(stub.uploads[0].purpose, 'batch');
    assert.equal(stub.batches.length, 1);
    const b = stub.batches[0];
    assert.equal(b.completion_window, '24h');
    assert.equal(b.endpoint, '/v1/chat/completions');
    assert.equal(b.lines.length, 12, '6 candidates × 2 variants');
    assert.equal(new Set(b.lines.map((l) => l.custom_id)).size, 12);
    assert.ok(b.lines.every((l) => /^[0-9a-f]{64}$/.test(l.custom_id) && l.method === 'POST' && l.url === '/v1/chat/completions'));
    assert.ok(b.lines.every((l) => l.body.model === 'batch-judge' && l.body.temperature === 0 && l.body.max_tokens === 16));
    assert.ok(stub.log.every((r) => r.authorization === 'Bearer sk-batch-test'));

    const items = readItems(file);
    for (const it of items) {
      for (const c of it.candidates) {
        const scores = Object.values(c.scores);
        assert.equal(scores.length, 2);
        assert.ok(scores.every((s) => s.status === 'ok' && s.value === (c.id.startsWith('a') ? 4 : 2)), JSON.stringify(scores));
      }
    }
    assert.ok(report.lines.some((l) => /^batch batch_\d+ \(openai-chat: batch-judge @ .*\): completed, 12 answered, 0 failed of 12 requests$/.test(l)), report.lines.join('\n'));
    // Cost at batch prices: 12 replies × (10 prompt tokens at 2 + 1 completion token at 4) per million, halved.
    const manifest = JSON.parse(readFileSync(join(dir, 'study.judge-manifest.json'), 'utf8'));
    assert.ok(Math.abs(manifest.totals.cost - ((12 * 10 * 2 + 12 * 1 * 4) / 1e6) * 0.5) < 1e-15, String(manifest.totals.cost));
    assert.equal(manifest.totals.calls, 12);
    assert.equal(manifest.batches.length, 1);
    const state = readFileSync(join(dir, '.reflect-eval-cache', 'batches.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(state[0].batchId, b.id, 'the batch id is the first line written');
    assert.equal(state.at(-1).status, 'collected');
    assert.equal(readFileSync(join(dir, '.reflect-eval-cache', 'judge-cache.jsonl'), 'utf8').trim().split('\n').length, 12);

    // The same study run online (no batch) beside the same cache: every judgement from the cache, no request.
    const fresh = study(dir, 'again.dialogues.jsonl');
    const before = stub.log.length;
    const online = await runPlanOnFile(plan(stub.baseURL, { batch: false }), fresh, testHost(dir));
    assert.equal(stub.log.length, before, 'no request at all');
    assert.ok(online.lines.every((l) => !l.startsWith('judge:') || /0 calls, 6 from cache, 0 without a usable score/.test(l)), online.lines.join('\n'));
    assert.deepEqual(
      readItems(fresh).flatMap((it) => it.candidates.flatMap((c) => Object.values(c.scores).map((s) => s.value))),
      items.flatMap((it) => it.candidates.flatMap((c) => Object.values(c.scores).map((s) => s.value))),
    );
  });

  it('an expired batch keeps its answers, reports the failed requests, and a rerun batches only those', async () => {
    let phase: 'first' | 'rerun' = 'first';
    const answer = (line: BatchLine): BatchLineAnswer => {
      if (phase === 'rerun') return { reply: '5' };
      const p = promptOf(line);
      if (p.includes('Candidate b1')) return { status: 400, message: 'stub: this prompt was refused' };
      if (p.includes('Candidate b')) return { error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' } };
      return { reply: '3' };
    };
    const options: StubBatchOptions = { answer, pollsToFinish: 2, finalStatus: 'expired' };
    stub = await startStubBatchAPI(options);
    const dir = mkdtempSync(join(tmpdir(), 'batch-expired-'));
    const file = study(dir);
    const report = await runPlanOnFile(plan(stub.baseURL), file, testHost(dir));
    assert.ok(report.lines.some((l) => /: expired, 6 answered, 6 failed of 12 requests$/.test(l)), report.lines.join('\n'));
    const scores = readItems(file).flatMap((it) => it.candidates.flatMap((c) => Object.values(c.scores).map((s) => ({ c: c.id, ...s }))));
    assert.equal(scores.length, 12);
    for (const s of scores) {
      if (s.c.startsWith('a')) assert.deepEqual([s.status, s.value], ['ok', 3]);
      else if (s.c === 'b1') assert.equal(s.message, 'HTTP 400: stub: this prompt was refused');
      else assert.match(String(s.message), /^batch_expired: This request could not be executed/);
      if (!s.c.startsWith('a')) assert.deepEqual([s.status, s.value], ['error', null]);
    }
    const failedIds = new Set(stub.batches[0].lines.filter((l) => promptOf(l).includes('Candidate b')).map((l) => l.custom_id));
    assert.equal(failedIds.size, 6);

    phase = 'rerun';
    options.finalStatus = 'completed';
    const rerun = await runPlanOnFile(plan(stub.baseURL), file, testHost(dir));
    assert.equal(stub.batches.length, 2);
    assert.deepEqual(new Set(stub.batches[1].lines.map((l) => l.custom_id)), failedIds, 'only the failed requests are asked again');
    assert.ok(rerun.lines.some((l) => /: completed, 6 answered, 0 failed of 6 requests$/.test(l)), rerun.lines.join('\n'));
    const after = readItems(file).flatMap((it) => it.candidates.flatMap((c) => Object.values(c.scores).map((s) => ({ c: c.id, ...s }))));
    assert.ok(after.every((s) => s.status === 'ok' && s.value === (s.c.startsWith('a') ? 3 : 5)));
  });

  it('a batch that fails validation reports every request of it with the batch error', async () => {
    stub = await startStubBatchAPI({ answer: () => ({ reply: '1' }), finalStatus: 'failed', pollsToFinish: 1 });
    const dir = mkdtempSync(join(tmpdir(), 'batch-failed-'));
    const file = study(dir);
    const report = await runPlanOnFile(plan(stub.baseURL, { bodies: ['instructions'] }), file, testHost(dir));
    assert.ok(report.lines.some((l) => /: failed, 0 answered, 6 failed of 6 requests$/.test(l)), report.lines.join('\n'));
    const scores = readItems(file).flatMap((it) => it.candidates.flatMap((c) => Object.values(c.scores)));
    assert.equal(scores.length, 6);
    assert.ok(scores.every((s) => s.status === 'error' && /batch batch_\d+ ended failed without this request \(invalid_request: the stub refused this batch\)/.test(String(s.message))));
  });

  it('refuses batch mode for local judges, naming the field; estimates at half the price', async () => {
    assert.throws(
      () => validateJudgePlan({ judges: [{ backend: 'openai-chat', baseURL: 'http://x/v1', model: 'm' }, { backend: 'local' }], bodies: ['instructions'], requests: ['rating'], batch: true }, 'run.json'),
      /run\.json: batch: judges\[1\] is a local judge, and local judges cannot run through the Batch API/,
    );
    assert.throws(() => validateJudgePlan({ judges: [{ backend: 'local' }], bodies: ['instructions'], requests: ['rating'], batch: 'yes' }, 'run.json'), /run\.json: batch: must be true or false/);
    assert.throws(() => validateJudgePlan({ judges: [{ backend: 'openai-chat', baseURL: 'http://x/v1', model: 'm' }], bodies: ['instructions'], requests: ['rating'], batchPollSeconds: 0 }, 'run.json'), /run\.json: batchPollSeconds: must be a number of seconds/);
    const dir = mkdtempSync(join(tmpdir(), 'batch-est-'));
    const items = readItems(study(dir));
    const online = await estimateJudgePlan(plan('http://127.0.0.1:9/v1', { batch: false }), items, [join(root, 'prompts')]);
    const batch = await estimateJudgePlan(plan('http://127.0.0.1:9/v1'), items, [join(root, 'prompts')]);
    assert.ok(online.cost! > 0);
    assert.ok(Math.abs(batch.cost! - online.cost! / 2) < 1e-15);
  });
});
