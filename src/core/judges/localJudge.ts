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
import { teacherForcing } from '../generation/teacherForcing';
import type { GenerativeLM } from '../models/languageModel';
import type { Judge, JudgeRequest, JudgeResult } from './judge';
import type { RequestSpec } from './prompts';

/** The valid answers of a request as numbers (integers from min to max). */
export function validAnswers(spec: RequestSpec): number[] {
  const out: number[] = [];
  for (let v = Math.ceil(spec.min); v <= Math.floor(spec.max); v++) out.push(v);
  return out;
}

/**
 * Log-probabilities of each answer string as a continuation of `promptIds`, by teacher forcing
 * ({@link teacherForcing}: the prompt encoded once, the answers scored in one batch on its tiled cache).
 *
 * @returns one natural-log probability per answer, in order
 */
export async function answerLogProbs(model: GenerativeLM, promptIds: number[], answers: number[][]): Promise<number[]> {
  const results = await teacherForcing(model, answers.map((a) => ({ promptIds, continuationIds: a })));
  return results.map((r) => r.sumLogProb);
}

/** Creates a local judge on a loaded model. Its id is `local:<model reference>`. */
export function localOnnxJudge(model: GenerativeLM, id = `local:${model.ref}`): Judge {
  return {
    id,
    async judge(req: JudgeRequest): Promise<JudgeResult> {
      const values = validAnswers(req.spec);
      const answers = values.map((v) => model.tokenizer.encode(` ${v}`));
      const room = model.maxPositions - Math.max(...answers.map((a) => a.length));
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
