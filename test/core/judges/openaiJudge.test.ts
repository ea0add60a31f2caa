import assert from 'node:assert/strict';
import { openAIChatJudge } from '../../../src/core/judges/openaiJudge';
import { runJudge } from '../../../src/core/judges/judge';
import { loadPromptLibrary } from '../../../src/core/templates/judgePrompt';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { resolve } from 'node:path';
import { startStubOpenAI, type StubServer } from '../../helpers/stubOpenAI';

const spec = { min: 1, max: 5, integer: true };
const lib = loadPromptLibrary(resolve(__dirname, '../../../prompts'));

function items(): DialogueItem[] {
  return [
    {
      id: 'i1',
      context: [{ speaker: 'client', text: 'I drink when I feel down.' }],
      candidates: [
        { id: 'a', text: 'So drinking helps you cope.', origin: { kind: 'model', model: 'm' }, annotations: [], scores: {} },
        { id: 'b', text: 'You love skiing.', origin: { kind: 'model', model: 'm' }, annotations: [], scores: {} },
      ],
    },
  ];
}

describe('OpenAI-compatible judge (stub server on 127.0.0.1)', () => {
  let stub: StubServer | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('sends the prompt as one user message at temperature 0 with the key as a bearer token', async () => {
    stub = await startStubOpenAI([{ reply: '4' }]);
    const judge = openAIChatJudge({ baseURL: stub.baseURL, model: 'judge-x', apiKey: 'sk-test-123' });
    const r = await judge.judge({ prompt: 'PROMPT TEXT', spec });
    assert.deepEqual(r, { raw: '4', value: 4, status: 'ok', usage: { promptTokens: 10, completionTokens: 1 } });
    assert.equal(judge.id, 'api:judge-x');
    const req = stub.requests[0];
    assert.equal(req.url, '/v1/chat/completions');
    assert.equal(req.headers.authorization, 'Bearer sk-test-123');
    assert.equal(req.body.model, 'judge-x');
    assert.equal(req.body.temperature, 0);
    assert.deepEqual(req.body.messages, [{ role: 'user', content: 'PROMPT TEXT' }]);
  });

  it('records a non-numeric reply as unparsable with the raw text, never a default', async () => {
    stub = await startStubOpenAI([{ reply: 'The response seems fine.' }]);
    const r = await openAIChatJudge({ baseURL: stub.baseURL, model: 'm', apiKey: 'k' }).judge({ prompt: 'p', spec });
    assert.equal(r.status, 'unparsable');
    assert.equal(r.value, null);
    assert.equal(r.raw, 'The response seems fine.');
  });

  it('retries a 429 with Retry-After and a 500, then succeeds', async () => {
    stub = await startStubOpenAI([{ status: 429, headers: { 'retry-after': '0' } }, { status: 500 }, { reply: '2' }]);
    const r = await openAIChatJudge({ baseURL: stub.baseURL, model: 'm', apiKey: 'k', maxRetries: 3 }).judge({ prompt: 'p', spec });
    assert.equal(r.value, 2);
    assert.equal(stub.requests.length, 3);
  });

  it('stores results under an evaluator id with template hash, and a re-run skips finished judgements', async () => {
    stub = await startStubOpenAI((req) => ({ reply: String((req.body.messages as { content: string }[])[0].content).includes('skiing') ? 'one' : '5' }));
    const judge = openAIChatJudge({ baseURL: stub.baseURL, model: 'm', apiKey: 'k' });
    const first = await runJudge(items(), judge, lib, { body: 'instructions', request: 'rating' });
    assert.match(first.evaluatorId, /^judge:api:m:instructions×rating@[0-9a-f]{12}~[0-9a-f]{8}$/);
    const [a, b] = first.items[0].candidates;
    assert.equal(a.scores[first.evaluatorId].value, 5);
    assert.equal(b.scores[first.evaluatorId].status, 'unparsable');
    assert.equal(b.scores[first.evaluatorId].raw, 'one');
    assert.equal(first.calls, 2);
    const second = await runJudge(first.items, judge, lib, { body: 'instructions', request: 'rating' });
    assert.equal(second.calls, 1, 'only the unparsable judgement is asked again');
    assert.equal(stub.requests.length, 3);
  });

  it('records a failed call as an error without a value', async () => {
    stub = await startStubOpenAI([{ status: 400 }]);
    const judge = openAIChatJudge({ baseURL: stub.baseURL, model: 'm', apiKey: 'k', maxRetries: 0 });
    const res = await runJudge(items(), judge, lib, { body: 'instructions', request: 'rating' });
    const s = res.items[0].candidates[0].scores[res.evaluatorId];
    assert.equal(s.status, 'error');
    assert.equal(s.value, null);
    assert.ok(s.message);
  });

  it('computes the probability-weighted expected score from chat top_logprobs', async () => {
    stub = await startStubOpenAI([
      {
        rawBody: JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [
            {
              index: 0,
              finish_reason: 'stop',
              message: { role: 'assistant', content: '4' },
              logprobs: {
                content: [
                  {
                    token: '4',
                    logprob: Math.log(0.6),
                    top_logprobs: [
                      { token: '4', logprob: Math.log(0.6) },
                      { token: '5', logprob: Math.log(0.2) },
                      { token: ' 3', logprob: Math.log(0.1) },
                      { token: 'The', logprob: Math.log(0.05) },
                      { token: '7', logprob: Math.log(0.05) },
                    ],
                  },
                ],
              },
            },
          ],
        }),
      },
    ]);
    const r = await openAIChatJudge({ baseURL: stub.baseURL, model: 'm', apiKey: 'k', logprobs: true }).judge({ prompt: 'p', spec });
    assert.equal(r.value, 4);
    // Valid answers 4, 5, 3 with mass 0.6, 0.2, 0.1: E = (2.4 + 1.0 + 0.3) / 0.9.
    assert.ok(Math.abs((r.expected as number) - 3.7 / 0.9) < 1e-12);
    assert.equal(stub.requests[0].body.logprobs, true);
    assert.equal(stub.requests[0].body.top_logprobs, 20);
  });

  it('speaks the completions endpoint too', async () => {
    stub = await startStubOpenAI([
      {
        rawBody: JSON.stringify({
          id: 'c',
          object: 'text_completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, text: ' 3', finish_reason: 'stop', logprobs: { tokens: [' 3'], token_logprobs: [-0.1], top_logprobs: [{ ' 3': Math.log(0.5), ' 2': Math.log(0.5) }] } }],
          usage: { prompt_tokens: 7, completion_tokens: 1, total_tokens: 8 },
        }),
      },
    ]);
    const r = await openAIChatJudge({ baseURL: stub.baseURL, model: 'm', apiKey: 'k', endpoint: 'completions', logprobs: true }).judge({ prompt: 'PROMPT', spec });
    assert.equal(stub.requests[0].url, '/v1/completions');
    assert.equal(stub.requests[0].body.prompt, 'PROMPT');
    assert.equal(stub.requests[0].body.temperature, 0);
    assert.deepEqual([r.value, r.expected, r.usage], [3, 2.5, { promptTokens: 7, completionTokens: 1 }]);
  });
});

