/**
 * The prompt search runs its judgements through the judge job's runner: the plan's runtime options reach a local
 * judge's model, the judge job's response cache answers the search's prompts (and the other way round), and the
 * concurrency a judge lowered after HTTP 429s stays lowered for the search's next variant. The 429s come from a
 * loopback server that, like a rate limiter with room for one request, refuses a request while another is open.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlanOnFile } from '../../../src/core/jobs/file';
import { validatePlan } from '../../../src/core/jobs/plans';
import type { SearchResult } from '../../../src/core/judges/searchReport';
import { chatCompletion, startStubOpenAI, type StubServer } from '../../helpers/stubOpenAI';
import { testJobHost } from '../../helpers/jobHost';
import { labelledItems } from '../../helpers/labelledItems';

/** 12 contexts × 5 labelled candidates, as a dialogue file. */
function labelledFile(dir: string): string {
  const file = join(dir, 's.dialogues.jsonl');
  writeFileSync(file, labelledItems({ contexts: 12, candidates: 5, yes: (i, j) => (i * 7 + j * 3) % 4 }).map((it) => JSON.stringify(it)).join('\n') + '\n');
  return file;
}

/** The reply depends on the response only, so every variant has a development correlation. */
const reply = (prompt: string) => String(1 + (Number(/resp-(\d+)-(\d+)(?![\s\S]*resp-)/.exec(prompt)?.[2] ?? 0) % 5));

describe('the prompt search through the judge runner', function () {
  this.timeout(180_000);
  let stub: StubServer | undefined;
  let server: Server | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
    if (server) {
      server.closeAllConnections();
      await new Promise<void>((ok) => server!.close(() => ok()));
      server = undefined;
    }
  });

  it('applies the plan\'s runtime options to a local judge (a provider these binaries lack fails naming the model file), as the judge job does', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'search-runtime-'));
    const file = labelledFile(dir);
    const runtime = { executionProvider: 'cuda' };
    const search = await runPlanOnFile(validatePlan({ job: 'search-prompts', judges: [{ backend: 'local' }], parts: { optional: ['A'] }, requests: ['rating'], baselines: false, runtime }, 'p'), file, testJobHost(dir));
    assert.equal(search.warnings.length, 1, search.warnings.join('\n'));
    assert.match(search.warnings[0], /^judge local: bundled:reflect-gpt2-tiny did not run: model folder .*reflect-gpt2-tiny: onnx\/model\.onnx could not be loaded by onnxruntime \(.*Cuda/i);
    assert.match(search.nothingDone ?? '', /no variant was judged \(the judge did not load\)/);
    const judge = await runPlanOnFile(validatePlan({ job: 'judge', judges: [{ backend: 'local' }], bodies: ['instructions'], requests: ['rating'], runtime }, 'p'), file, testJobHost(dir));
    assert.equal(judge.warnings[0], search.warnings[0], 'the same runner, the same failure');
    assert.throws(() => validatePlan({ job: 'search-prompts', judges: [{ backend: 'local' }], runtime: { threads: -1 } }, 'p.json'), /p\.json: runtime\.threads: must be an integer from 0/);
  });

  it('shares the judge job\'s response cache: a paper variant the judge job asked is not asked again by the search', async () => {
    stub = await startStubOpenAI((req) => ({ reply: reply((req.body.messages as { content: string }[])[0].content) }));
    const dir = mkdtempSync(join(tmpdir(), 'search-cache-'));
    const file = labelledFile(dir);
    const judges = [{ backend: 'openai-chat', baseURL: stub.baseURL, model: 'stub-judge' }];
    // The judge job's scores go to another file: the search finds the judge job's replies in the cache beside its
    // input file, not as scores in the file it searches on.
    const judged = await runPlanOnFile(validatePlan({ job: 'judge', judges, bodies: ['instructions'], requests: ['rating'] }, 'p'), file, testJobHost(dir), { out: join(dir, 'judged.dialogues.jsonl') });
    assert.equal(stub.requests.length, 60, judged.lines.join('\n'));
    const report = await runPlanOnFile(validatePlan({ job: 'search-prompts', judges, parts: { optional: ['A'] }, requests: ['rating'], bootstrap: { resamples: 10 } }, 'p'), file, testJobHost(dir));
    const r = report.data as unknown as SearchResult;
    const paper = r.entries.find((e) => e.baseline && e.body === 'instructions' && e.request === 'rating')!;
    assert.deepEqual([paper.calls, paper.cacheHits], [0, 60], 'development and held-out items answered from the judge job\'s replies');
    const other = r.entries.find((e) => e.baseline && e.body === 'instructions' && e.request === 'scoring')!;
    assert.equal(other.calls, 60, 'a variant the judge job did not ask is asked');
  });

  it('keeps the concurrency a judge lowered after 429s for its next variant', async () => {
    // A server with room for one request: it answers after 40 ms, and refuses (429, retry at once) any request that
    // arrives while another is open. Each variant's first requests are counted until its first answer.
    type Event = { shape: string; event: 'accepted' | 'refused' | 'answered' };
    const events: Event[] = [];
    let open = 0;
    server = createServer((req, res) => {
      let data = '';
      req.on('data', (c) => (data += c));
      req.on('end', () => {
        const prompt = (JSON.parse(data).messages as { content: string }[])[0].content;
        const shape = prompt.includes('Task overview') ? 'AD' : 'D';
        if (open > 0) {
          events.push({ shape, event: 'refused' });
          res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '0' });
          res.end(JSON.stringify({ error: { message: 'rate limited' } }));
          return;
        }
        events.push({ shape, event: 'accepted' });
        open++;
        setTimeout(() => {
          open--;
          events.push({ shape, event: 'answered' });
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(chatCompletion(reply(prompt)));
        }, 40).unref();
      });
    });
    await new Promise<void>((ok) => server!.listen(0, '127.0.0.1', ok));
    const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    const dir = mkdtempSync(join(tmpdir(), 'search-429-'));
    const file = labelledFile(dir);
    const plan = validatePlan({ job: 'search-prompts', judges: [{ backend: 'openai-chat', baseURL, model: 'm' }], parts: { optional: ['A'] }, requests: ['rating'], baselines: false, concurrency: 8, cache: false, bootstrap: { resamples: 10 } }, 'p');
    const report = await runPlanOnFile(plan, file, testJobHost(dir));
    const r = report.data as unknown as SearchResult;
    assert.ok(r.entries.every((e) => e.dev && e.dev.failures === 0), 'every judgement was answered in the end');
    // Runs of one shape in the server's order of events: the development variants (D, then AD) and the winner's
    // held-out run. A run opens with as many requests as its pool has slots: those that arrive before its first answer.
    const runs: Event[][] = [];
    for (const e of events) (runs.length && runs[runs.length - 1][0].shape === e.shape ? runs[runs.length - 1] : (runs.push([]), runs[runs.length - 1])).push(e);
    const opening = (run: Event[]) => run.slice(0, run.findIndex((e) => e.event === 'answered')).length;
    assert.ok(runs.length >= 2, JSON.stringify(runs.map((x) => x.length)));
    const openings = runs.map(opening);
    // The next variant starts with the pool the first one left (1 or 2 slots, and a retry), not a fresh pool of 8
    // (which, its connections open, sends 8 at once: the search before the runner did, on every variant).
    assert.ok(openings[1] <= 3, `the second variant opened with ${openings[1]} requests before its first answer (runs: ${JSON.stringify(openings)})`);
    assert.ok(report.lines.some((l) => /^api:m: \d+ request\(s\) answered HTTP 429; concurrency halved \d+ time\(s\), down to 1 at the lowest, \d of 8 at the end$/.test(l)), report.lines.join('\n'));
  });
});
