import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { answerLogProbs, localOnnxJudge, validAnswers } from '../../../src/core/judges/localJudge';
import { runJudge } from '../../../src/core/judges/judge';
import { loadPromptLibrary } from '../../../src/core/judges/prompts';
import { OnnxCausalLM } from '../../../src/core/models/causalLM';
import type { DialogueItem } from '../../../src/core/dialogue/types';

const folder = resolve(__dirname, '../../../fixtures/models/reflect-gpt2-tiny');

describe('local ONNX judge (bundled fixture)', () => {
  let model: OnnxCausalLM;
  before(async () => {
    model = await OnnxCausalLM.load(folder);
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

  it('judges a dialogue file end to end under an evaluator id, left-truncating long prompts', async () => {
    const long = Array.from({ length: 300 }, (_, i) => ({ speaker: i % 2 ? ('client' as const) : ('therapist' as const), text: `Turn ${i}: I think it has been hard to keep going lately.` }));
    const items: DialogueItem[] = [{ id: 'i', context: long, candidates: [{ id: 'c', text: 'So it has been hard.', origin: { kind: 'human' }, annotations: [], scores: {} }] }];
    const lib = loadPromptLibrary(resolve(__dirname, '../../../prompts'));
    const res = await runJudge(items, localOnnxJudge(model, 'local:fixture'), lib, { body: 'instructions', request: 'rating' });
    const s = res.items[0].candidates[0].scores[res.evaluatorId];
    assert.match(res.evaluatorId, /^judge:local:fixture:instructions×rating@[0-9a-f]{12}~[0-9a-f]{8}$/);
    assert.equal(s.status, 'ok');
    assert.match(String(s.message), /left-truncated from \d+ to \d+ tokens/);
  });
});
