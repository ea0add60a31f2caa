/**
 * AIMD concurrency: the pool rule on its own, then a judge run against a loopback server that answers 429 above N
 * requests in flight (the way a vLLM or llama.cpp server behind a rate limiter would).
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runPlanOnFile } from '../../../src/core/jobs/file';
import { runJudge } from '../../../src/core/judges/judge';
import { openAIChatJudge } from '../../../src/core/judges/openaiJudge';
import { loadPromptLibrary } from '../../../src/core/templates/judgePrompt';
import { AdaptiveConcurrency, RateLimitedError, retryAfterMs } from '../../../src/core/remote/adaptiveConcurrency';
import { chatCompletion } from '../../helpers/stubOpenAI';

const lib = loadPromptLibrary(resolve(__dirname, '../../../prompts'));
const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('AdaptiveConcurrency (AIMD)', () => {
  it('without 429s is a fixed pool of max, first in first out', async () => {
    const pool = new AdaptiveConcurrency({ max: 3 });
    let running = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        pool.run(async () => {
          order.push(i);
          most = Math.max(most, ++running);
          await tick(5);
          running--;
        }),
      ),
    );
    assert.equal(most, 3);
    assert.deepEqual(order, [...order].sort((a, b) => a - b));
    assert.equal(pool.limit, 3);
  });

  it('halves once per congestion event, waits Retry-After, retries, and grows by about one per window of successes', async () => {
    const limits: number[] = [];
    const pool = new AdaptiveConcurrency({ max: 8, onLimit: (l) => limits.push(l) });
    let refusals = 4;
    const started: number[] = [];
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: 8 }, () =>
        pool.run(async () => {
          started.push(performance.now() - t0);
          await tick(5);
          if (refusals-- > 0) throw new RateLimitedError('429', 60);
        }),
      ),
    );
    // Eight in flight, four refused: one halving (8 → 4), not four; the retries start after the 60 ms wait.
    assert.equal(pool.stats.rateLimited, 4);
    assert.equal(pool.stats.decreases, 1);
    assert.equal(limits[0], 4);
    assert.equal(started.length, 12);
    assert.ok(started.slice(8).every((t) => t >= 60), started.join(', '));
    // 8 successes at limit 4…: 4 + 1/4 + 1/4.25 + … ≈ 5.8.
    assert.ok(pool.limit > 5 && pool.limit < 6, String(pool.limit));
  });

  it('gives up after maxRateLimitRetries and passes other errors through untouched', async () => {
    const pool = new AdaptiveConcurrency({ max: 2, maxRateLimitRetries: 2 });
    let calls = 0;
    await assert.rejects(
      pool.run(async () => {
        calls++;
        throw new RateLimitedError('429 again', 0);
      }),
      /429 again/,
    );
    assert.equal(calls, 3);
    await assert.rejects(pool.run(async () => Promise.reject(new Error('boom'))), /boom/);
    assert.equal(pool.inFlight, 0);
  });

  it('reads retry-after-ms, retry-after seconds and HTTP dates', () => {
    const h = (o: Record<string, string>) => (k: string) => o[k];
    assert.equal(retryAfterMs(h({ 'retry-after-ms': '250' })), 250);
    assert.equal(retryAfterMs(h({ 'retry-after': '2' })), 2000);
    assert.equal(retryAfterMs(h({ 'retry-after': 'Wed, 25 Nov 2026 20:00:10 GMT' }), Date.parse('Wed, 25 Nov 2026 20:00:00 GMT')), 10_000);
    assert.equal(retryAfterMs(h({})), undefined);
  });
});

/** A chat endpoint that answers 429 (retry-after-ms 20) to any request above `allowed` in flight. */
async function throttlingServer(allowed: { n: number }) {
  let inFlight = 0;
  const log: { attempted: number; refused: boolean }[] = [];
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      inFlight++;
      if (inFlight > allowed.n) {
        log.push({ attempted: inFlight, refused: true });
        inFlight--;
        res.writeHead(429, { 'content-type': 'application/json', 'retry-after-ms': '20' });
        res.end(JSON.stringify({ error: { message: 'too many requests in flight' } }));
        return;
      }
      log.push({ attempted: inFlight, refused: false });
      setTimeout(() => {
        inFlight--;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(chatCompletion('3'));
      }, 15);
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    log,
    close: () => new Promise<void>((ok) => (server.closeAllConnections(), server.close(() => ok()))),
  };
}

function manyCandidates(n: number): DialogueItem[] {
  return [
    {
      id: 'i',
      context: [{ speaker: 'client', text: 'I drink when I feel down.' }],
      candidates: Array.from({ length: n }, (_, k) => ({ id: `c${k}`, text: `reflection ${k}`, origin: { kind: 'model' as const, model: 'm' }, annotations: [], scores: {} })),
    },
  ];
}

describe('a judge run against a server that answers 429 above N in flight', function () {
  this.timeout(60_000);

  it('completes, settles near N, and grows again when the server allows more', async () => {
    const allowed = { n: 4 };
    const server = await throttlingServer(allowed);
    try {
      const judge = openAIChatJudge({ baseURL: server.baseURL, model: 'm', apiKey: 'k', rateLimits: 'caller' });
      const limiter = new AdaptiveConcurrency({ max: 16 });
      const first = await runJudge(manyCandidates(240), judge, lib, { body: 'instructions', request: 'rating' }, { concurrency: 16, limiter });
      assert.equal(first.failures, 0, 'every judgement answered despite the 429s');
      const refused = server.log.filter((r) => r.refused).length;
      assert.ok(refused > 0);
      // After the first wave the pool stays within one slot of N: the late half never tries more than N + 1 at once.
      const late = server.log.slice(Math.floor(server.log.length / 2));
      const lateMax = Math.max(...late.map((r) => r.attempted));
      assert.ok(lateMax <= allowed.n + 1, `late max in flight ${lateMax}`);
      assert.ok(late.filter((r) => r.refused).length / late.length < 0.2, 'few refusals once settled');
      assert.ok(limiter.limit >= 2 && limiter.limit < allowed.n + 2, String(limiter.limit));
      const phase1 = { requests: server.log.length, refused, lateMax, limit: limiter.limit };

      // The server now takes 12 at once: the same pool grows back past N.
      allowed.n = 12;
      const from = server.log.length;
      const second = await runJudge(manyCandidates(400), judge, lib, { body: 'instructions-tutorial', request: 'rating' }, { concurrency: 16, limiter });
      assert.equal(second.failures, 0);
      const grown = Math.max(...server.log.slice(from).map((r) => r.attempted));
      assert.ok(grown >= 9, `grew back to ${grown} in flight`);
      if (process.env.REFLECT_EVAL_PRINT_FIGURES) console.log(JSON.stringify({ phase1, phase2: { requests: server.log.length - from, maxInFlight: grown, limit: limiter.limit } }));
    } finally {
      await server.close();
    }
  });
});

describe('the judge job against a throttling OpenAI-compatible server', function () {
  this.timeout(60_000);

  it('retries 429s in its adaptive pool (not in the client), scores every candidate, and says how far concurrency fell', async () => {
    const server = await throttlingServer({ n: 2 });
    try {
      const dir = mkdtempSync(join(tmpdir(), 'judge-429-'));
      const file = join(dir, 'study.dialogues.jsonl');
      writeFileSync(file, JSON.stringify(manyCandidates(40)[0]) + '\n');
      const root = resolve(__dirname, '../../..');
      const host = {
        kind: 'cli' as const,
        baseDir: dir,
        models: { bundledDir: join(root, 'fixtures/models'), baseDir: dir },
        promptRoots: [join(root, 'prompts')],
        dataDir: join(root, 'data'),
        secret: async () => ({ key: 'k' }),
        progress: () => {},
        log: () => {},
      };
      const plan = { job: 'judge' as const, judges: [{ backend: 'openai-chat' as const, baseURL: server.baseURL, model: 'm' }], bodies: ['instructions'], requests: ['rating'], concurrency: 8, cache: false };
      const report = await runPlanOnFile(plan, file, host);
      const scores = JSON.parse(readFileSync(file, 'utf8')).candidates.flatMap((c: { scores: Record<string, { status: string }> }) => Object.values(c.scores));
      assert.equal(scores.length, 40);
      assert.ok(scores.every((s: { status: string }) => s.status === 'ok'));
      const line = report.lines.find((l) => /answered HTTP 429/.test(l));
      if (process.env.REFLECT_EVAL_PRINT_FIGURES) console.log(line, JSON.stringify({ requests: server.log.length, refused: server.log.filter((r) => r.refused).length }));
      assert.match(String(line), /^api:m: (\d+) request\(s\) answered HTTP 429; concurrency halved (\d+) time\(s\), down to [12] at the lowest, \d of 8 at the end$/);
      // Each refusal reached the server once: the client did not retry it on its own (no double backoff).
      assert.equal(Number(/^api:m: (\d+)/.exec(String(line))![1]), server.log.filter((r) => r.refused).length);
    } finally {
      await server.close();
    }
  });
});
