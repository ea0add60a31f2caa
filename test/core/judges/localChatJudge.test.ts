/**
 * Local chat judges (judges/localJudge.ts) on the Llama-family fixtures: the prompt in the model's chat template,
 * answers as reply texts per tokenizer, error categories per category, the rationale only when asked, and every
 * verdict-changing field in the signature. Each verdict is checked against an independent computation: teacher
 * forcing of every answer (and end of turn) on the chat-wrapped prompt.
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { teacherForcing } from '../../../src/core/decoding/teacherForcing';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { judgeEvaluatorId, runJudge } from '../../../src/core/judges/judge';
import { categoryQuestion, localOnnxJudge } from '../../../src/core/judges/localJudge';
import type { OnnxCausalLM } from '../../../src/core/models/causalLM';
import { loadGenerativeModel } from '../../../src/core/models/registry';
import { loadPromptLibrary } from '../../../src/core/templates/judgePrompt';

const root = resolve(__dirname, '../../../fixtures/models');
const locator = { bundledDir: root, baseDir: root };
const prompt = 'Task\nDialogue\nClient: I have been drinking too much.\nTherapist: What does your wife say?\nClient: She is worried.\nResponse Candidate\nTherapist: So she is worried about you.';

/** log P(reply = answer text) by teacher forcing every answer + end id on the wrapped prompt, independently of the judge. */
async function replyLogProbs(model: OnnxCausalLM, text: string, answers: string[], withEnd: boolean): Promise<number[]> {
  const wrapped = model.tokenizer.chatTemplate!.render([{ role: 'user', content: text }], { kwargs: { enable_thinking: false } });
  const promptIds = model.tokenizer.encode(wrapped);
  const ends = model.specialTokens.eosTokenIds;
  const out: number[] = [];
  for (const a of answers) {
    const ids = model.tokenizer.encode(wrapped + a).slice(promptIds.length);
    if (!withEnd) {
      out.push((await teacherForcing(model, [{ promptIds, continuationIds: ids }]))[0].sumLogProb);
      continue;
    }
    const each = await teacherForcing(model, ends.map((e) => ({ promptIds, continuationIds: [...ids, e] })));
    out.push(Math.log(each.reduce((s, r) => s + Math.exp(r.sumLogProb), 0)));
  }
  return out;
}

function verdictOf(values: number[], lps: number[]): { value: number; expected: number } {
  let best = 0;
  lps.forEach((lp, i) => (lp > lps[best] ? (best = i) : undefined));
  const w = lps.map((lp) => Math.exp(lp - lps[best]));
  return { value: values[best], expected: w.reduce((s, x, i) => s + x * values[i], 0) / w.reduce((s, x) => s + x, 0) };
}

for (const name of ['reflect-qwen3-tiny', 'reflect-llama-tiny']) {
  describe(`local chat judge (${name})`, function () {
    // Each verdict is checked against teacher forcing of every answer: 101 for the 0–100 scale.
    this.timeout(300_000);
    let model: OnnxCausalLM;
    before(async () => {
      model = (await loadGenerativeModel(`bundled:${name}`, locator)) as OnnxCausalLM;
    });
    after(async () => model?.dispose());

    it('reads a 1–5 rating from the reply texts "1"…"5" after the chat template’s assistant prefix', async () => {
      const judge = localOnnxJudge(model);
      const r = await judge.judge({ prompt: `${prompt}\n\nRating (1-5):`, spec: { min: 1, max: 5, integer: true } });
      const want = verdictOf([1, 2, 3, 4, 5], await replyLogProbs(model, `${prompt}\n\nRating (1-5):`, ['1', '2', '3', '4', '5'], false));
      assert.equal(r.status, 'ok');
      assert.equal(r.value, want.value);
      assert.ok(Math.abs((r.expected as number) - want.expected) < 1e-6, `${r.expected} vs ${want.expected}`);
    });

    it('reads a 0–100 score per tokenizer: the reply must also end where one answer begins another (Qwen3 writes digits apart)', async () => {
      const text = `${prompt}\n\nScore (0-100):`;
      const answers = Array.from({ length: 101 }, (_, v) => String(v));
      const nested = model.config.modelType === 'qwen3';
      // Qwen3's tokenizer writes "37" as "3" "7"; Llama 3's as one token.
      assert.equal(model.tokenizer.encode('37').length, nested ? 2 : 1);
      const r = await localOnnxJudge(model).judge({ prompt: text, spec: { min: 0, max: 100, integer: false } });
      const want = verdictOf(answers.map(Number), await replyLogProbs(model, text, answers, nested));
      assert.equal(r.value, want.value);
      assert.ok(Math.abs((r.expected as number) - want.expected) < 1e-5, `${r.expected} vs ${want.expected}`);
    });

    it('answers a yes/no request from P("Yes") against P("No")', async () => {
      const text = `${prompt}\n\nAnswer (Yes/No):`;
      const r = await localOnnxJudge(model).judge({ prompt: text, spec: { min: 0, max: 1, integer: true, answers: { Yes: 1, No: 0 } } });
      const [yes, no] = await replyLogProbs(model, text, ['Yes', 'No'], false);
      assert.equal(r.raw, yes >= no ? 'Yes' : 'No');
      assert.ok(Math.abs((r.expected as number) - 1 / (1 + Math.exp(no - yes))) < 1e-6);
    });

    it('answers error categories one category at a time from yes/no, and writes a rationale only when asked', async () => {
      const spec = { min: 0, max: 1, integer: true, kind: 'errorCategories' as const };
      const plain = await localOnnxJudge(model).judge({ prompt, spec });
      assert.equal(plain.status, 'ok');
      assert.equal(plain.errorCategories?.rationale, undefined);
      assert.doesNotMatch(plain.raw, /rationale/);
      const pYes = JSON.parse(plain.raw).pYes as Record<string, number>;
      const names = ['Malformed', 'Dialogue-contradicting', 'Parroting', 'Off-topic', 'On-topic but unverifiable', 'Other'];
      for (const n of names.slice(0, 2)) {
        const [yes, no] = await replyLogProbs(model, `${prompt}\n\n${categoryQuestion(n)}`, ['Yes', 'No'], false);
        assert.ok(Math.abs(pYes[n] - 1 / (1 + Math.exp(no - yes))) < 1e-5, `${n}: ${pYes[n]}`);
      }
      const applying = names.filter((n) => pYes[n] > 0.5);
      assert.equal(plain.errorCategories?.categories.length, applying.length);
      assert.equal(plain.value, applying.length === 0 ? 1 : 0);
      const explained = await localOnnxJudge(model, undefined, { rationale: true, rationaleTokens: 8 }).judge({ prompt, spec });
      assert.deepEqual(explained.errorCategories?.categories, plain.errorCategories?.categories, 'the rationale never changes the verdict');
      assert.match(explained.raw, /"rationale": "/);
      assert.equal(typeof explained.errorCategories?.rationale, 'string');
    });

    it('puts every field that changes a verdict in its signature, hence in the evaluator id', () => {
      const variant = { body: 'instructions', request: 'rating' };
      const ids = [
        localOnnxJudge(model),
        localOnnxJudge(model, undefined, { system: 'You are a careful rater.' }),
        localOnnxJudge(model, undefined, { templateArgs: { enable_thinking: true } }),
        localOnnxJudge(model, undefined, { rationale: true }),
        localOnnxJudge(model, undefined, { chat: false }),
      ].map((j) => judgeEvaluatorId(j, variant, 'abc'));
      assert.equal(new Set(ids).size, ids.length, ids.join('\n'));
      const sig = localOnnxJudge(model).signature;
      assert.match(sig, new RegExp(`chat:${model.tokenizer.chatTemplate!.hash}\\|args:\\{"enable_thinking":false\\}\\|system:none\\|answers:logprob-reply\\|categories:yes-no@[0-9a-f]{8}\\|rationale:off`));
      assert.match(localOnnxJudge(model, undefined, { chat: false }).signature, /answers:logprob\|fit/);
    });

    it('judges a file end to end, leaving out the oldest turns to fit the positions with the chat wrapping', async () => {
      const long = Array.from({ length: 400 }, (_, i) => ({ speaker: i % 2 ? ('client' as const) : ('therapist' as const), text: `Turn ${i}: it has been hard to keep going lately.` }));
      const items: DialogueItem[] = [{ id: 'i', context: long, candidates: [{ id: 'c', text: 'So it has been hard.', origin: { kind: 'human' }, annotations: [], scores: {} }] }];
      const lib = loadPromptLibrary(resolve(__dirname, '../../../prompts'));
      const res = await runJudge(items, localOnnxJudge(model), lib, { body: 'instructions', request: 'rating' });
      const s = res.items[0].candidates[0].scores[res.evaluatorId];
      assert.equal(s.status, 'ok');
      assert.match(String(s.message), /oldest of 400 turns left out/);
      assert.doesNotMatch(String(s.message), /left-truncated/);
    });
  });
}

describe('local judge without a chat template', () => {
  it('refuses chat: true on a base model, naming it', async () => {
    const gpt2 = await loadGenerativeModel('bundled:reflect-gpt2-tiny', locator);
    try {
      assert.throws(() => localOnnxJudge(gpt2, undefined, { chat: true }), /has no chat template/);
    } finally {
      await gpt2.dispose();
    }
  });
});
