/**
 * API generation through the Batch API (`generate --batch`), in process, against loopback stubs of the files and
 * batches endpoints: the requests a run owes go into one batch keyed by their cache keys, the candidates come from
 * the batch's replies with no online call, a rerun creates no batch; a cancelled run leaves the batch in the state
 * file and the rerun collects that batch instead of creating a new one; an expired batch's unanswered requests are
 * reported and a rerun batches only those.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { runPlanOnFile } from '../../../src/core/jobs/file';
import { validateGeneratePlan, type GeneratePlan } from '../../../src/core/jobs/generate';
import type { JobHost } from '../../../src/core/jobs/host';
import { ConfigError } from '../../../src/core/config';
import { testJobHost } from '../../helpers/jobHost';
import { startStubBatchAPI, type BatchLine, type StubBatchOptions, type StubBatchServer } from '../../helpers/stubOpenAIBatch';


function testHost(baseDir: string, signal?: AbortSignal): JobHost {
  return testJobHost(baseDir, { secret: async () => ({ key: 'sk-batch-test' }), ...(signal ? { signal } : {}) });
}

/** Four contexts, no candidates yet. */
function study(dir: string): string {
  const items: DialogueItem[] = [1, 2, 3, 4].map((n) => ({
    id: `item-${n}`,
    context: [{ speaker: 'client', text: `I drink when I feel down (${n}).` }],
    candidates: [],
  }));
  const file = join(dir, 'study.dialogues.jsonl');
  writeFileSync(file, items.map((it) => JSON.stringify(it)).join('\n') + '\n');
  return file;
}

function readItems(file: string): DialogueItem[] {
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
}

/** A reply that names its request: the context's number, the sample index and n. */
function answer(line: BatchLine): { replies: string[] } {
  const n = (line.body.n as number) ?? 1;
  const context = JSON.stringify(line.body.messages).match(/\((\d)\)/)?.[1] ?? '?';
  return { replies: Array.from({ length: n }, (_, i) => `You drink to cope (context ${context}, sample ${i + 1} of ${n}).`) };
}

function plan(baseURL: string): GeneratePlan & { job: 'generate' } {
  return {
    job: 'generate',
    ...validateGeneratePlan(
      {
        generators: [{ backend: 'openai-chat', baseURL, model: 'batch-gen', apiKeyEnv: 'K' }],
        settings: [{ strategy: 'greedy' }, { strategy: 'nucleusSampling', topP: 0.8, numReturnSequences: 3 }, { strategy: 'beamSearch', numBeams: 5 }],
        batch: true,
        batchPollSeconds: 0.02,
      },
      'test plan',
    ),
  };
}

describe('API generation through the Batch API (loopback files and batches endpoints)', function () {
  this.timeout(60_000);
  let stub: StubBatchServer | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('batches every request the run owes, adds the candidates from the replies with no online call, and a rerun creates no batch', async () => {
    stub = await startStubBatchAPI({ answer, pollsToFinish: 2 });
    const dir = mkdtempSync(join(tmpdir(), 'gen-batch-'));
    const file = study(dir);
    const report = await runPlanOnFile(plan(stub.baseURL), file, testHost(dir));
    assert.equal(stub.batches.length, 1);
    // 4 contexts × (greedy + nucleus); beam search has no OpenAI parameter and is skipped, not batched.
    assert.equal(stub.batches[0].lines.length, 8);
    assert.ok(stub.batches[0].lines.every((l) => l.url === '/v1/chat/completions' && /^[0-9a-f]{64}$/.test(l.custom_id)), 'custom_ids are cache keys');
    assert.deepEqual(stub.batches[0].lines.map((l) => l.body.n).sort(), [1, 1, 1, 1, 3, 3, 3, 3]);
    assert.equal(stub.log.filter((r) => r.url === '/v1/chat/completions').length, 0, 'no online call');
    assert.ok(report.lines.some((l) => /batch batch_\d+ \(batch-gen @ .*\): completed, 8 answered, 0 failed of 8 requests/.test(l)), report.lines.join('\n'));
    assert.ok(report.warnings.some((w) => /beam/.test(w)), 'the beam setting is reported as skipped');
    const items = readItems(file);
    for (const [i, item] of items.entries()) {
      assert.equal(item.candidates.length, 4, `item ${i}: greedy + 3 nucleus samples`);
      assert.ok(item.candidates.every((c) => c.text.includes(`context ${i + 1},`)), 'each context gets its own replies');
    }
    // The rerun: every request is in the reply cache, no upload, no batch; the candidates are already present.
    const again = await runPlanOnFile(plan(stub.baseURL), file, testHost(dir));
    assert.equal(stub.batches.length, 1);
    assert.equal(stub.uploads.length, 1);
    assert.ok(again.lines.some((l) => /every request already in the reply cache, no batch/.test(l)), again.lines.join('\n'));
    assert.equal(readItems(file)[0].candidates.length, 4);
  });

  it('a run cancelled while its batch runs leaves the batch id in the state file; the rerun collects that batch and creates none', async () => {
    let hold = true;
    stub = await startStubBatchAPI({ answer, hold: () => hold, pollsToFinish: 1 });
    const dir = mkdtempSync(join(tmpdir(), 'gen-batch-resume-'));
    const file = study(dir);
    const abort = new AbortController();
    const running = runPlanOnFile(plan(stub.baseURL), file, testHost(dir, abort.signal));
    while ((stub.batches[0]?.polls ?? 0) < 2) await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    const first = await running;
    assert.equal(first.cancelled, true);
    assert.equal(readItems(file)[0].candidates.length, 0, 'nothing generated yet');
    const state = readFileSync(join(dir, '.reflect-eval-cache', 'batches.jsonl'), 'utf8');
    assert.match(state, new RegExp(`"batchId":"${stub.batches[0].id}"`));
    hold = false;
    const second = await runPlanOnFile(plan(stub.baseURL), file, testHost(dir));
    assert.equal(stub.batches.length, 1, 'no new batch');
    assert.equal(stub.uploads.length, 1, 'no new upload');
    assert.ok(second.lines.some((l) => /, resumed\): completed, 8 answered/.test(l)), second.lines.join('\n'));
    assert.equal(readItems(file).reduce((a, it) => a + it.candidates.length, 0), 16);
  });

  it('an expired batch: the unanswered requests are reported, their contexts get no candidate from them, and a rerun batches only those', async () => {
    const options: StubBatchOptions = {
      // Context 3's requests were never run by the expired batch.
      answer: (line) => (JSON.stringify(line.body.messages).includes('(3)') ? { error: { code: 'batch_expired', message: 'This request could not be executed before the completion window expired.' } } : answer(line)),
      pollsToFinish: 1,
      finalStatus: 'expired',
    };
    stub = await startStubBatchAPI(options);
    const dir = mkdtempSync(join(tmpdir(), 'gen-batch-expired-'));
    const file = study(dir);
    const report = await runPlanOnFile(plan(stub.baseURL), file, testHost(dir));
    assert.ok(report.warnings.some((w) => /2 request\(s\) of batch-gen .* were not answered by their batch \(first: batch_expired/.test(w)), report.warnings.join('\n'));
    assert.deepEqual(readItems(file).map((it) => it.candidates.length), [4, 4, 0, 4]);
    assert.equal(stub.log.filter((r) => r.url === '/v1/chat/completions').length, 0, 'the missing ones are not asked online');
    options.finalStatus = 'completed';
    options.answer = answer;
    await runPlanOnFile(plan(stub.baseURL), file, testHost(dir));
    assert.equal(stub.batches.length, 2);
    assert.equal(stub.batches[1].lines.length, 2, 'only context 3\'s two requests');
    assert.deepEqual(readItems(file).map((it) => it.candidates.length), [4, 4, 4, 4]);
  });

  it('refuses batch mode without the reply cache, naming the field', () => {
    assert.throws(() => validateGeneratePlan({ generators: [{ backend: 'openai-chat', baseURL: 'http://127.0.0.1:1/v1', model: 'm' }], preset: 'greedy', batch: true, cache: false }, 'gen.json'), (err: unknown) => err instanceof ConfigError && /gen\.json.*batch.*reply cache/s.test((err as Error).message));
  });
});
