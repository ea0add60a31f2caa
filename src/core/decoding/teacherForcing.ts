/**
 * Teacher forcing: the log-probability of a given continuation of a prompt, token by token, from the raw
 * logits (no processors): log P(c_j | prompt, c_<j) = log_softmax(logits)[c_j], natural log. Used for
 * perplexity, the local judge's answer scores, and follow-up likelihood.
 *
 * Decoder-only: the prompt is the text the continuation follows. Encoder-decoder: the prompt is the encoder
 * input, and the decoder reads `[decoderStartTokenId, c_0, …, c_{n−2}]`; a continuation that should begin
 * with a BOS (BART's labels `<s> … </s>`) must include it.
 *
 * Requests with the same prompt share one encoding of it (cache tiled over their continuations, which run
 * right-padded in one batch: padding after a token cannot change it under the causal mask). Continuations of one
 * token (a local judge's answers " 1" … " 100" in GPT-2's vocabulary) are all scored from that one encoding's
 * next-token distribution, without a row each.
 */
import type { GenerativeLM, RunTimer } from '../models/languageModel';
import { logSoftmax, logSoftmaxAt } from './samplers';

/** A continuation to score after a prompt. */
export interface TeacherForcingRequest {
  /** Non-empty token ids of the prompt (encoder input for encoder-decoder models). */
  promptIds: number[];
  /** Token ids to score (may be empty). Append the EOS id yourself if its probability should count. */
  continuationIds: number[];
  /**
   * Tokens fed between the prompt and the continuation but not scored (default none): e.g. BART's forced BOS,
   * so that `decoderStartTokenId, forcedBosTokenId` precede the scored response, as in HF's `labels`.
   */
  prefixIds?: number[];
}

/** Log-probabilities of one continuation. */
export interface TeacherForcingResult {
  /** Natural-log probability of each continuation token given everything before it. */
  tokenLogProbs: number[];
  /** Their sum: log P(continuation | prompt). */
  sumLogProb: number;
}

/**
 * Scores every request by teacher forcing.
 *
 * @param options.maxRows - continuations of one prompt run at most this many at a time (default 16)
 * @param options.prefixCache - start each prompt from the longest beginning the model has kept from earlier prompts
 *   (decoder-only models that keep prompt caches: `GenerativeLM.startDecoding`); the log-probabilities equal those
 *   without it up to the order of float sums
 * @returns one result per request, in order
 * @throws RangeError on an empty prompt or a sequence longer than the model's positions
 */
export async function teacherForcing(
  model: GenerativeLM,
  requests: TeacherForcingRequest[],
  options: { timer?: RunTimer; signal?: AbortSignal; maxRows?: number; prefixCache?: boolean } = {},
): Promise<TeacherForcingResult[]> {
  const maxRows = Math.max(1, options.maxRows ?? 16);
  const results: TeacherForcingResult[] = new Array(requests.length);
  const groups = new Map<string, number[]>();
  requests.forEach((r, i) => {
    if (r.promptIds.length === 0) throw new RangeError(`request ${i} has an empty prompt`);
    const n = r.continuationIds.length + (r.prefixIds?.length ?? 0);
    const budget = model.architecture === 'decoder-only' ? r.promptIds.length + n : 1 + n;
    if (budget > model.maxPositions + (model.architecture === 'decoder-only' ? 1 : 0)) {
      throw new RangeError(`request ${i}: ${budget} positions exceed the model's ${model.maxPositions}`);
    }
    const key = r.promptIds.join(',');
    const g = groups.get(key);
    if (g) g.push(i);
    else groups.set(key, [i]);
  });
  for (const all of groups.values()) {
    const single = all.filter((i) => (requests[i].prefixIds?.length ?? 0) === 0 && requests[i].continuationIds.length <= 1);
    if (single.length > 0) {
      options.signal?.throwIfAborted();
      const { session: first, logits } = await model.startDecoding([requests[single[0]].promptIds], { expand: 1, timer: options.timer, prefixCache: options.prefixCache });
      first.release?.();
      const lp = logSoftmax(logits.subarray(0, logits.length), new Float64Array(logits.length));
      for (const i of single) {
        const c = requests[i].continuationIds;
        const tokenLogProbs = c.length ? [lp[c[0]]] : [];
        results[i] = { tokenLogProbs, sumLogProb: tokenLogProbs.reduce((s, x) => s + x, 0) };
      }
    }
    const members = all.filter((i) => !single.includes(i));
    for (let from = 0; from < members.length; from += maxRows) {
      options.signal?.throwIfAborted();
      const chunk = members.slice(from, from + maxRows);
      const conts = chunk.map((i) => [...(requests[i].prefixIds ?? []), ...requests[i].continuationIds]);
      const width = Math.max(0, ...conts.map((c) => c.length - 1));
      const { session, logits } = await model.startDecoding([requests[chunk[0]].promptIds], { expand: chunk.length, timer: options.timer, maxNewTokens: width, prefixCache: options.prefixCache });
      const V = session.vocab;
      const lps = conts.map((c, row) => (c.length > 0 ? [logSoftmaxAt(logits.subarray(row * V, (row + 1) * V), c[0])] : []));
      try {
        if (width > 0) {
          const pad = model.specialTokens.padTokenId;
          const tokens = new Array<number>(chunk.length * width);
          conts.forEach((c, row) => {
            for (let t = 0; t < width; t++) tokens[row * width + t] = t < c.length - 1 ? c[t] : pad;
          });
          const out = await session.extend(tokens, width);
          conts.forEach((c, row) => {
            for (let j = 1; j < c.length; j++) {
              const off = (row * width + j - 1) * V;
              lps[row].push(logSoftmaxAt(out.subarray(off, off + V), c[j]));
            }
          });
        }
      } finally {
        session.release?.();
      }
      chunk.forEach((i, row) => {
        const scored = lps[row].slice(requests[i].prefixIds?.length ?? 0);
        results[i] = { tokenLogProbs: scored, sumLogProb: scored.reduce((s, x) => s + x, 0) };
      });
    }
  }
  return results;
}
