import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import seedrandom from 'seedrandom';
import { cachedJudge, JudgeCache } from '../../../src/core/judges/cache';
import { runJudge } from '../../../src/core/judges/judge';
import { openAIChatJudge } from '../../../src/core/judges/openaiJudge';
import { loadPromptLibrary } from '../../../src/core/templates/judgePrompt';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { chatCompletion, startStubOpenAI, type StubServer } from '../../helpers/stubOpenAI';

const lib = loadPromptLibrary(resolve(__dirname, '../../../prompts'));
const variant = { body: 'instructions', request: 'rating' };

function items(n: number): DialogueItem[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `i${i}`,
    context: [{ speaker: 'client' as const, text: `I had ${i} drinks last night and I feel awful.` }],
    candidates: [
      { id: 'a', text: `So ${i} drinks left you feeling awful.`, origin: { kind: 'model' as const }, annotations: [], scores: {} },
      { id: 'b', text: i % 4 === 0 ? `You love skiing ${i}.` : `It sounds like last night ${i} was hard.`, origin: { kind: 'model' as const }, annotations: [], scores: {} },
    ],
  }));
}

const promptOf = (body: Record<string, unknown>) => (body.messages as { content: string }[])[0].content;

describe('judge cache and concurrency against a faulty stub endpoint', () => {
  let stub: StubServer | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('records every judgement once under 30 % injected faults (429, 500, 503, truncated JSON, timeouts), and a re-run makes no call that already got a reply', async function () {
    this.timeout(60_000);
    const rng = seedrandom('faults');
    const answered = new Set<string>(); // prompts that received a well-formed reply
    stub = await startStubOpenAI((req) => {
      const prompt = promptOf(req.body);
      const r = rng();
      if (r < 0.075) return { status: 429, headers: { 'retry-after': '0' } };
      if (r < 0.15) return { status: 500 };
      if (r < 0.225) return { rawBody: '{"id": "chatcmpl-x", "choi' };
      if (r < 0.26) return { status: 503, headers: { 'retry-after': '0' } };
      if (r < 0.3) return { delayMs: 1_500, reply: '5' }; // the client gives up after 400 ms
      answered.add(prompt);
      return { rawBody: chatCompletion(prompt.includes('skiing') ? 'not coherent' : String(1 + (prompt.length % 5))) };
    });
    const file = join(mkdtempSync(join(tmpdir(), 'judge-cache-')), 'cache.jsonl');
    const backend = { kind: 'openai-chat', baseURL: stub.baseURL, model: 'm', temperature: 0 };
    const make = () => cachedJudge(openAIChatJudge({ baseURL: stub!.baseURL, model: 'm', apiKey: 'k', maxRetries: 2, timeoutMs: 400 }), new JudgeCache(file), backend);

    const first = make();
    const run1 = await runJudge(items(20), first, lib, variant, { concurrency: 4 });
    const scores1 = run1.items.flatMap((it) => it.candidates.map((c) => c.scores[run1.evaluatorId]));
    assert.equal(scores1.length, 40);
    assert.ok(scores1.every((s) => s && ['ok', 'unparsable', 'error'].includes(s.status)));
    assert.ok(scores1.filter((s) => s.status === 'ok').every((s) => typeof s.value === 'number' && s.value >= 1 && s.value <= 5));
    assert.ok(scores1.some((s) => s.status === 'unparsable' && s.raw === 'not coherent'));
    const cachedLines = readFileSync(file, 'utf8').trim().split('\n').length;
    assert.equal(cachedLines, scores1.filter((s) => s.status !== 'error').length, 'one cache line per reply');

    // "Kill" the run mid-write: a torn last line must be ignored.
    appendFileSync(file, '{"key": "torn", "resu');
    const before = stub.requests.length;
    const answeredBefore = new Set(answered);
    const second = make();
    const run2 = await runJudge(run1.items, second, lib, variant, { concurrency: 4 });
    const resent = stub.requests.slice(before).map((r) => promptOf(r.body)).filter((p) => answeredBefore.has(p));
    assert.deepEqual(resent, [], 'no prompt that already got a reply is sent again');
    assert.equal(second.stats.calls, scores1.filter((s) => s.status === 'error').length, 'only failed judgements are asked again (unparsable ones come from the cache)');
    const scores2 = run2.items.flatMap((it) => it.candidates.map((c) => c.scores[run2.evaluatorId]));
    assert.equal(scores2.length, 40);

    // Re-run until every judgement has a reply (faults are random), then once more: zero HTTP calls.
    let state = run2.items;
    for (let k = 0; k < 5 && state.some((it) => it.candidates.some((c) => c.scores[run2.evaluatorId].status === 'error')); k++) {
      state = (await runJudge(state, make(), lib, variant, { concurrency: 4 })).items;
    }
    assert.ok(state.every((it) => it.candidates.every((c) => c.scores[run2.evaluatorId].status !== 'error')));
    const before3 = stub.requests.length;
    const last = make();
    await runJudge(state, last, lib, variant);
    assert.equal(stub.requests.length, before3, 'a settled re-run makes zero calls');
    assert.equal(last.stats.calls, 0);
  });
});
