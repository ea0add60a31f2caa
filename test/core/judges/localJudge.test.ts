import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import { answerLogProbs, localOnnxJudge, validAnswers } from '../../../src/core/judges/localJudge';
import { runJudge } from '../../../src/core/judges/judge';
import { loadPromptLibrary } from '../../../src/core/templates/judgePrompt';
import { OnnxCausalLM } from '../../../src/core/models/causalLM';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { loadCausalLM } from '../../helpers/models';

const folder = resolve(__dirname, '../../../fixtures/models/reflect-gpt2-tiny');

describe('local ONNX judge (bundled fixture)', () => {
  let model: OnnxCausalLM;
  before(async () => {
    model = await loadCausalLM(folder);
  });
  after(async () => model?.dispose());

  it('scores multi-token answers the same as feeding them token by token', async () => {
    const prompt = model.tokenizer.encode('Rating (1-5):');
    const answers = [model.tokenizer.encode(' 3'), model.tokenizer.encode(' fine thanks'), model.tokenizer.encode(' So you')];
    const batched = await answerLogProbs(model, prompt, answers);
    for (let a = 0; a < answers.length; a++) {
      // Independent computation: one full forward pass over prompt + answer, no cache.
      const ids = [...prompt, ...answers[a]];
      const out = await model.forward(BigInt64Array.from(ids, BigInt), new BigInt64Array(ids.length).fill(1n), BigInt64Array.from(ids.map((_, i) => BigInt(i))), 1, ids.length, model.emptyCache(1));
      let lp = 0;
      answers[a].forEach((tok, j) => {
        const off = (prompt.length + j - 1) * out.vocab;
        let max = -Infinity;
        for (let v = 0; v < out.vocab; v++) max = Math.max(max, out.logits[off + v]);
        let z = 0;
        for (let v = 0; v < out.vocab; v++) z += Math.exp(out.logits[off + v] - max);
        lp += out.logits[off + tok] - max - Math.log(z);
      });
      assert.ok(Math.abs(batched[a] - lp) < 1e-4, `answer ${a}: ${batched[a]} vs ${lp}`);
    }
  });

  it('answers with a valid rating, the most probable one, and a probability-weighted expectation', async () => {
    const judge = localOnnxJudge(model);
    const spec = { min: 1, max: 5, integer: true };
    const r = await judge.judge({ prompt: 'Rate it.\nRating (1-5):', spec });
    assert.equal(r.status, 'ok');
    assert.ok(validAnswers(spec).includes(r.value as number));
    assert.ok((r.expected as number) >= 1 && (r.expected as number) <= 5);
    const again = await judge.judge({ prompt: 'Rate it.\nRating (1-5):', spec });
    assert.deepEqual(again, r, 'deterministic');
  });

  it('judges a dialogue file end to end under an evaluator id, leaving out the oldest turns of a long context', async () => {
    const long = Array.from({ length: 300 }, (_, i) => ({ speaker: i % 2 ? ('client' as const) : ('therapist' as const), text: `Turn ${i}: I think it has been hard to keep going lately.` }));
    const items: DialogueItem[] = [{ id: 'i', context: long, candidates: [{ id: 'c', text: 'So it has been hard.', origin: { kind: 'human' }, annotations: [], scores: {} }] }];
    const lib = loadPromptLibrary(resolve(__dirname, '../../../prompts'));
    const res = await runJudge(items, localOnnxJudge(model, 'local:fixture'), lib, { body: 'instructions', request: 'rating' });
    const s = res.items[0].candidates[0].scores[res.evaluatorId];
    assert.match(res.evaluatorId, /^judge:local:fixture:instructions×rating@[0-9a-f]{12}~[0-9a-f]{8}$/);
    assert.equal(s.status, 'ok');
    assert.match(String(s.message), /the \d+ oldest of 300 turns left out to fit \d+ tokens/);
    assert.doesNotMatch(String(s.message), /left-truncated/);
    // One turn longer than the window: the prompt itself is left-truncated, keeping the request at the end.
    const huge: DialogueItem[] = [{ id: 'h', context: [{ speaker: 'client', text: 'It has been hard. '.repeat(400) }], candidates: [{ id: 'c', text: 'So it has been hard.', origin: { kind: 'human' }, annotations: [], scores: {} }] }];
    const h = (await runJudge(huge, localOnnxJudge(model, 'local:fixture'), lib, { body: 'instructions', request: 'rating' })).items[0].candidates[0].scores;
    assert.match(String(Object.values(h)[0].message), /left-truncated from \d+ to \d+ tokens/);
  });
});

describe('local judge: judgements asked together share their prompt prefix', function () {
  this.timeout(120_000);
  it('gives the replies and expected scores of one-by-one judging (to float32 rounding)', async () => {
    const { loadGenerativeModel } = await import('../../../src/core/models/registry');
    const { loadPromptLibrary, assemblePrompt } = await import('../../../src/core/templates/judgePrompt');
    const { localOnnxJudge } = await import('../../../src/core/judges/localJudge');
    const root = resolve(__dirname, '../../..');
    const model = await loadGenerativeModel('bundled:reflect-gpt2-tiny', { bundledDir: join(root, 'fixtures/models'), baseDir: root });
    try {
      const lib = loadPromptLibrary(join(root, 'prompts'));
      const context = [
        { speaker: 'therapist' as const, text: 'How has the drinking been this week?' },
        { speaker: 'client' as const, text: "Honestly, worse. I had a few every night because work's been stressful." },
      ];
      const responses = ['So work stress has you drinking more.', 'You feel it is getting worse.', 'Tell me about your weekend.', 'It sounds like evenings are hard right now, with the stress at work.'];
      for (const request of ['rating', 'scoring']) {
        const prompts = responses.map((r) => assemblePrompt(lib, { body: 'instructions', request }, context, r));
        const judge = localOnnxJudge(model);
        const together = await Promise.all(prompts.map((p) => judge.judge({ prompt: p.text, spec: p.spec })));
        const alone: Awaited<ReturnType<typeof judge.judge>>[] = [];
        for (const p of prompts) alone.push(await judge.judge({ prompt: p.text, spec: p.spec }));
        together.forEach((t, i) => {
          assert.equal(t.value, alone[i].value, `${request} ${i}`);
          assert.ok(Math.abs((t.expected as number) - (alone[i].expected as number)) < 1e-4, `${request} ${i}: ${t.expected} vs ${alone[i].expected}`);
        });
      }
    } finally {
      await model.dispose();
    }
  });
});
