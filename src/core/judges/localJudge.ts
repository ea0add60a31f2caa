/**
 * A local judge: an ONNX causal LM scores each valid answer of the assessment request as a continuation of
 * the prompt, by teacher forcing through the same engine that generates candidates.
 *
 * For every valid answer a (the integers min..max, written with a leading space as they would follow
 * "Rating (1-5):"), log P(a | prompt) is the sum of its tokens' log-probabilities (log-softmax of the
 * logits, natural log). The reply is the most probable answer (constrained greedy choice, first on ties);
 * `expected` is Σ a·P(a) / Σ P(a) over the valid answers. Prompts longer than the model's positions are
 * left-truncated, keeping the request at the end.
 */
import type { OnnxCausalLM } from '../models/causalLM';
import type { Judge, JudgeRequest, JudgeResult } from './judge';
import type { RequestSpec } from './prompts';

function logSoftmaxAt(logits: Float32Array, offset: number, n: number, index: number): number {
  let max = -Infinity;
  for (let i = 0; i < n; i++) max = Math.max(max, logits[offset + i]);
  let sum = 0;
  for (let i = 0; i < n; i++) sum += Math.exp(logits[offset + i] - max);
  return logits[offset + index] - max - Math.log(sum);
}

/** The valid answers of a request as numbers (integers from min to max). */
export function validAnswers(spec: RequestSpec): number[] {
  const out: number[] = [];
  for (let v = Math.ceil(spec.min); v <= Math.floor(spec.max); v++) out.push(v);
  return out;
}

/**
 * Log-probabilities of each answer string as a continuation of `promptIds`.
 *
 * @returns one natural-log probability per answer, in order
 */
export async function answerLogProbs(model: OnnxCausalLM, promptIds: number[], answers: number[][]): Promise<number[]> {
  const L = promptIds.length;
  const first = await model.forward(
    BigInt64Array.from(promptIds, BigInt),
    new BigInt64Array(L).fill(1n),
    BigInt64Array.from(promptIds.map((_, i) => BigInt(i))),
    1,
    L,
    model.emptyCache(1),
  );
  const lastOffset = (L - 1) * first.vocab;
  const scores = answers.map((a) => logSoftmaxAt(first.logits, lastOffset, first.vocab, a[0]));
  const multi = answers.map((a, i) => ({ a, i })).filter(({ a }) => a.length > 1);
  if (multi.length > 0) {
    // Feed tokens 0..n-2 of each multi-token answer after the cached prompt; right padding is harmless
    // because of the causal mask (later pads cannot affect earlier positions).
    const width = Math.max(...multi.map(({ a }) => a.length - 1));
    const batch = multi.length;
    const ids = new BigInt64Array(batch * width);
    const pos = new BigInt64Array(batch * width);
    const mask = new BigInt64Array(batch * (L + width)).fill(1n);
    multi.forEach(({ a }, b) => {
      for (let t = 0; t < width; t++) {
        ids[b * width + t] = BigInt(a[Math.min(t, a.length - 2)]);
        pos[b * width + t] = BigInt(L + t);
      }
    });
    const res = await model.forward(ids, mask, pos, batch, width, model.repeatCache(first.present, batch));
    multi.forEach(({ a, i }, b) => {
      for (let t = 1; t < a.length; t++) scores[i] += logSoftmaxAt(res.logits, (b * width + t - 1) * res.vocab, res.vocab, a[t]);
    });
  }
  return scores;
}

/** Creates a local judge on a loaded model. Its id is `local:<model reference>`. */
export function localOnnxJudge(model: OnnxCausalLM, id = `local:${model.ref}`): Judge {
  return {
    id,
    async judge(req: JudgeRequest): Promise<JudgeResult> {
      const values = validAnswers(req.spec);
      const answers = values.map((v) => model.tokenizer.encode(` ${v}`));
      const room = model.config.maxPositions - Math.max(...answers.map((a) => a.length));
      const ids = model.tokenizer.encode(req.prompt);
      const promptIds = ids.length > room ? ids.slice(ids.length - room) : ids;
      const lps = await answerLogProbs(model, promptIds, answers);
      let best = 0;
      for (let i = 1; i < lps.length; i++) if (lps[i] > lps[best]) best = i;
      const maxLp = lps[best];
      const weights = lps.map((lp) => Math.exp(lp - maxLp));
      const z = weights.reduce((s, w) => s + w, 0);
      const expected = weights.reduce((s, w, i) => s + w * values[i], 0) / z;
      return {
        raw: String(values[best]),
        value: values[best],
        status: 'ok',
        expected,
        ...(ids.length > room ? { message: `prompt left-truncated from ${ids.length} to ${room} tokens` } : {}),
      };
    },
  };
}
