/**
 * A local judge: any local ONNX language model (decoder-only, or encoder-decoder with the prompt as encoder input)
 * scores each valid answer of the assessment request as a continuation of the prompt, by teacher forcing through
 * the same engine that generates candidates.
 *
 * For every valid answer a (the integers min..max, written with a leading space as they would follow
 * "Rating (1-5):"), log P(a | prompt) is the sum of its tokens' log-probabilities (log-softmax of the
 * logits, natural log). The reply is the most probable answer (constrained greedy choice, first on ties);
 * `expected` is Σ a·P(a) / Σ P(a) over the valid answers. Prompts longer than the model's positions are
 * left-truncated, keeping the request at the end. A request with word answers (`answers`, e.g. Yes/No) scores
 * the words the same way (" Yes", " No") and maps the chosen one to its value. Error-category requests are not
 * answerable this way: the result is `error`.
 */
import { buildSignature } from '../evaluators/signature';
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
  // Encoder-decoder models (BART) read the prompt in the encoder; their decoder starts with the forced BOS, as in
  // generation and perplexity, unscored.
  const forcedBos = model.architecture === 'encoder-decoder' ? model.specialTokens.forcedBosTokenId : null;
  const prefix = forcedBos !== null ? { prefixIds: [forcedBos] } : {};
  const results = await teacherForcing(model, answers.map((a) => ({ promptIds, continuationIds: a, ...prefix })));
  return results.map((r) => r.sumLogProb);
}

/**
 * Creates a local judge on a loaded model. Its id is `local:<model reference>`; its signature
 * `backend:local|model:<reference as written>|answers:logprob|rv:…` (the reply is the most probable valid answer,
 * deterministic).
 */
export function localOnnxJudge(model: GenerativeLM, id = `local:${model.ref}`): Judge {
  return {
    id,
    signature: buildSignature([
      ['backend', 'local'],
      ['model', model.ref],
      ['answers', 'logprob'],
    ]),
    async judge(req: JudgeRequest): Promise<JudgeResult> {
      if (req.spec.kind === 'errorCategories') return { raw: '', value: null, status: 'error', message: 'local judges answer numeric requests only (error-category requests need an API judge)' };
      const words = req.spec.answers ? Object.entries(req.spec.answers) : undefined;
      const values = words ? words.map(([, v]) => v) : validAnswers(req.spec);
      const answers = words ? words.map(([w]) => model.tokenizer.encode(` ${w}`)) : values.map((v) => model.tokenizer.encode(` ${v}`));
      // Decoder-only: prompt and answer share the positions. Encoder-decoder: the prompt has the encoder's.
      const room = model.architecture === 'decoder-only' ? model.maxPositions - Math.max(...answers.map((a) => a.length)) : model.maxPositions;
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
        raw: words ? words[best][0] : String(values[best]),
        value: values[best],
        status: 'ok',
        expected,
        ...(ids.length > room ? { message: `prompt left-truncated from ${ids.length} to ${room} tokens` } : {}),
      };
    },
  };
}
