import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ResponseCache } from '../../../src/core/cache/responseCache';
import { apiCandidateGenerator, ApiGenerator, type ApiReply } from '../../../src/core/generation/apiGenerator';
import { findChatTemplate, loadChatTemplate } from '../../../src/core/templates/chatTemplate';
import { renderContext } from '../../../src/core/templates/modelInput';
import { applyGenerated, runGeneration, type GeneratorHandle } from '../../../src/core/generation/run';
import { PRESETS, resolveGenerationRun } from '../../../src/core/generation/runConfig';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { chatCompletionChoices, startStubOpenAI, textCompletionChoices, type StubServer } from '../../helpers/stubOpenAI';

const prompts = resolve(__dirname, '../../../prompts');
const KEY = 'sk-test-secret-0123456789';

function items(n: number): DialogueItem[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `i${i}`,
    context: [
      { speaker: 'therapist' as const, text: 'How has the week been?' },
      { speaker: 'client' as const, text: `I had ${i + 2} drinks every night and I feel awful.` },
    ],
    candidates: [{ id: 'ref', text: 'So the drinking leaves you feeling awful.', origin: { kind: 'human' as const }, annotations: [], scores: {} }],
  }));
}

const completionsOf = (stub: StubServer) => stub.requests.filter((r) => r.url.endsWith('/completions'));

describe('API generators on an OpenAI-compatible endpoint (stub server over HTTP)', () => {
  let stub: StubServer | undefined;
  afterEach(async () => {
    await stub?.close();
    stub = undefined;
  });

  it('completions: sends the seeds\' model-input format with n, temperature, top_p, max_tokens, seed and stop, and returns the n texts in choice order', async () => {
    stub = await startStubOpenAI(() => ({ rawBody: textCompletionChoices([' So you feel awful. |<client> yes', ' A', ' B', ' C', ' D'], [3, 0, 4, 1, 2]) }));
    const api = new ApiGenerator({ protocol: 'completions', baseURL: stub.baseURL, model: 'davinci-002', apiKey: KEY });
    const [item] = items(1);
    const reply = await api.complete(item.context, { n: 5, temperature: 1, topP: 0.8, maxTokens: 24, seed: 7 });
    assert.deepEqual(reply.texts, [' So you feel awful. |<client> yes', ' A', ' B', ' C', ' D']);
    assert.equal(reply.cached, false);
    const req = stub.requests[0];
    assert.equal(req.url, '/v1/completions');
    assert.equal(req.headers.authorization, `Bearer ${KEY}`);
    assert.deepEqual(req.body, {
      model: 'davinci-002',
      prompt: renderContext(item.context),
      n: 5,
      temperature: 1,
      top_p: 0.8,
      max_tokens: 24,
      seed: 7,
      stop: [' |<'],
    });
    assert.ok((req.body.prompt as string).endsWith('|<therapist> ~<listening>'));
  });

  it('chat: renders the editable chat template into system and user messages', async () => {
    stub = await startStubOpenAI(() => ({ rawBody: chatCompletionChoices(['It sounds like the drinking is wearing you down.']) }));
    const api = new ApiGenerator({ protocol: 'chat', baseURL: stub.baseURL, model: 'gpt-3.5-turbo', apiKey: KEY, chatTemplate: findChatTemplate(prompts) });
    const [item] = items(1);
    const reply = await api.complete(item.context, { n: 1, temperature: 0, topP: 1, maxTokens: 64 });
    assert.deepEqual(reply.texts, ['It sounds like the drinking is wearing you down.']);
    const req = stub.requests[0];
    assert.equal(req.url, '/v1/chat/completions');
    const messages = req.body.messages as { role: string; content: string }[];
    assert.deepEqual(messages.map((m) => m.role), ['system', 'user']);
    assert.match(messages[1].content, /Therapist: How has the week been\?\nClient: I had 2 drinks every night and I feel awful\./);
    assert.equal(req.body.stop, undefined, 'chat sends no stop sequence by default');
    assert.equal(req.body.seed, undefined, 'no seed unless given');
  });

  it('a chat template with an unknown placeholder fails naming the file and line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'chat-tpl-'));
    const file = join(dir, 'chat.mustache');
    writeFileSync(file, '### system\nBe kind.\n### user\n{{#dialogue}}{{role}}: {{text}}\n{{/dialogue}}{{reponse}}\n');
    assert.throws(() => loadChatTemplate(file), (err: Error) => err.message.startsWith(`${file}:5: unknown placeholder "reponse"`));
  });

  it('caches replies on disk by backend and full request (never by the key): a re-run makes no call, a new seed does', async () => {
    let k = 0;
    stub = await startStubOpenAI(() => ({ rawBody: textCompletionChoices([` reply ${k++}`, ` reply ${k++}`]) }));
    const file = join(mkdtempSync(join(tmpdir(), 'gen-cache-')), 'generation-cache.jsonl');
    const make = () => new ApiGenerator({ protocol: 'completions', baseURL: stub!.baseURL, model: 'm', apiKey: KEY, cache: new ResponseCache<ApiReply>(file) });
    const params = { n: 2, temperature: 1, topP: 0.95, maxTokens: 16, seed: 1 };
    const [item] = items(1);
    const first = await make().complete(item.context, params);
    const again = make();
    const second = await again.complete(item.context, params);
    assert.deepEqual(second.texts, first.texts);
    assert.equal(second.cached, true);
    assert.equal(second.usage, undefined, 'a cached reply spent no tokens in this run');
    assert.deepEqual(again.stats, { hits: 1, calls: 0 });
    assert.equal(completionsOf(stub).length, 1);
    const reseeded = await again.complete(item.context, { ...params, seed: 2 });
    assert.notDeepEqual(reseeded.texts, first.texts);
    assert.equal(completionsOf(stub).length, 2);
    const onDisk = readFileSync(file, 'utf8');
    assert.equal(onDisk.trim().split('\n').length, 2);
    assert.ok(!onDisk.includes(KEY), 'the API key is never written to the cache');
  });

  it('retries 429 and 503 replies honouring Retry-After, like judge calls', async () => {
    stub = await startStubOpenAI([
      { status: 429, headers: { 'retry-after': '0' } },
      { status: 503, headers: { 'retry-after': '0' } },
      { rawBody: textCompletionChoices([' finally']) },
    ]);
    const api = new ApiGenerator({ protocol: 'completions', baseURL: stub.baseURL, model: 'm', apiKey: KEY, maxRetries: 2 });
    const reply = await api.complete(items(1)[0].context, { n: 1, temperature: 0, topP: 1, maxTokens: 8 });
    assert.deepEqual(reply.texts, [' finally']);
    assert.equal(stub.requests.length, 3);
  });

  it('rejects a reply with fewer samples than asked', async () => {
    stub = await startStubOpenAI(() => ({ rawBody: textCompletionChoices([' only one']) }));
    const api = new ApiGenerator({ protocol: 'completions', baseURL: stub.baseURL, model: 'm', apiKey: KEY });
    await assert.rejects(api.complete(items(1)[0].context, { n: 3, temperature: 1, topP: 0.9, maxTokens: 8 }), /asked for 3 samples, the endpoint returned 1/);
  });

  it('runs the GEM 2022 grid on an endpoint: beam search skipped, 21 candidates per context with endpoint-free origins, duplicates merged', async () => {
    stub = await startStubOpenAI((req) => {
      const n = req.body.n as number;
      const p = req.body.top_p as number;
      // Greedy replies with the reference's text; p = 0.4 returns the same text 5 times.
      if (req.body.temperature === 0) return { rawBody: textCompletionChoices([' So the drinking leaves you feeling awful. |<client> Yes.']) };
      return { rawBody: textCompletionChoices(Array.from({ length: n }, (_, i) => (p === 0.4 ? ' You feel awful.' : ` p${p} s${i}`))) };
    });
    const run = resolveGenerationRun({ generators: [{ backend: 'openai-completions', model: 'davinci-002', baseURL: stub.baseURL }], preset: 'gem2022', maxNewTokens: 20, seed: 3 });
    assert.equal(run.settings.length, PRESETS.gem2022.settings.length);
    const api = new ApiGenerator({ protocol: 'completions', baseURL: stub.baseURL, model: 'davinci-002', apiKey: KEY });
    const handle: GeneratorHandle = { label: 'davinci-002', open: async () => apiCandidateGenerator(api) };
    const progress: number[] = [];
    const res = await runGeneration(items(2), [handle], run.settings, run, { onProgress: (p) => progress.push(p.contextsDone) });
    assert.deepEqual(progress, [1, 2]);
    assert.deepEqual(res.skipped, ['davinci-002: beam k=5 ×5 skipped: OpenAI-compatible endpoints offer no beam search']);
    assert.equal(res.failures.length, 0);
    assert.equal(res.generated.get('i0')!.length, 21);
    assert.equal(completionsOf(stub).length, 2 * 5, 'one request per setting per context (n samples in one request)');
    const { items: updated, counts } = applyGenerated(items(2), res.generated);
    assert.deepEqual(counts, { itemsChanged: 2, added: 2 * (1 + 15), duplicates: 2 * (1 + 4), unchanged: 0 });
    const [first] = updated;
    const ref = first.candidates.find((c) => c.id === 'ref')!;
    assert.equal(ref.duplicateOrigins?.length, 1, 'the greedy reply equals the reference: listed as a further origin');
    assert.equal(ref.duplicateOrigins![0].decoding?.strategy, 'greedy');
    const same = first.candidates.filter((c) => c.text === 'You feel awful.');
    assert.equal(same.length, 1);
    assert.deepEqual([same[0].origin, ...(same[0].duplicateOrigins ?? [])].map((o) => o.decoding?.sampleIndex), [0, 1, 2, 3, 4]);
    const sampled = first.candidates.find((c) => c.text === 'p0.8 s3')!;
    assert.equal(sampled.origin.kind, 'api');
    assert.equal(sampled.origin.model, 'davinci-002');
    assert.equal(sampled.origin.backend, 'openai-completions');
    assert.deepEqual(sampled.origin.decoding, { strategy: 'nucleusSampling', maxNewTokens: 20, temperature: 1, topP: 0.8, numReturnSequences: 5, seed: 3, behaviour: 'reflection', stop: [' |<'], sampleIndex: 3 });
    assert.ok(!JSON.stringify(updated).includes('127.0.0.1'), 'origins carry no endpoint URL');
  });

  it('records a failing request after its retries and keeps the context\'s other settings', async () => {
    stub = await startStubOpenAI((req) => (req.body.top_p === 0.6 ? { status: 500 } : { rawBody: textCompletionChoices(Array.from({ length: req.body.n as number }, (_, i) => ` t${req.body.top_p} ${i}`)) }));
    const run = resolveGenerationRun({ generators: [{ backend: 'openai-completions', model: 'm', baseURL: stub.baseURL }], preset: 'gem2022', maxNewTokens: 8 });
    const api = new ApiGenerator({ protocol: 'completions', baseURL: stub.baseURL, model: 'm', apiKey: KEY, maxRetries: 1 });
    const res = await runGeneration(items(1), [{ label: 'm', open: async () => apiCandidateGenerator(api) }], run.settings, run);
    assert.equal(res.failures.length, 1);
    assert.equal(res.failures[0].setting, 'nucleus p=0.6 ×5');
    assert.equal(res.generated.get('i0')!.length, 1 + 5 * 3);
    assert.equal(stub.requests.filter((r) => r.body.top_p === 0.6).length, 2, 'one retry');
  });
});
