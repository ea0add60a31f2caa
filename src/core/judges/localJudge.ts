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
import { logSoftmax } from '../decoding/samplers';
import { teacherForcing } from '../decoding/teacherForcing';
import type { GenerativeLM } from '../models/languageModel';
import type { Judge, JudgeRequest, JudgeResult } from './judge';
import type { RequestSpec } from '../templates/judgePrompt';

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

/** A judgement waiting for its batch. */
interface Pending {
  spec: RequestSpec;
  values: number[];
  /** Word answers (e.g. Yes/No) in the order of `values`, when the request has them. */
  words?: string[];
  answers: number[][];
  ids: number[];
  promptIds: number[];
  truncated: boolean;
  resolve: (r: JudgeResult) => void;
  reject: (e: unknown) => void;
}

/** Length of the longest common prefix of two token arrays. */
function commonPrefix(a: readonly number[], b: readonly number[], upTo = Math.min(a.length, b.length)): number {
  let n = 0;
  while (n < upTo && a[n] === b[n]) n++;
  return n;
}

/** The reply, the argmax and the probability-weighted expected score from the answers' log-probabilities. */
function resultOf(p: Pending, lps: number[]): JudgeResult {
  let best = 0;
  for (let i = 1; i < lps.length; i++) if (lps[i] > lps[best]) best = i;
  const maxLp = lps[best];
  const weights = lps.map((lp) => Math.exp(lp - maxLp));
  const z = weights.reduce((s, w) => s + w, 0);
  const expected = weights.reduce((s, w, i) => s + w * p.values[i], 0) / z;
  return {
    raw: p.words ? p.words[best] : String(p.values[best]),
    value: p.values[best],
    status: 'ok',
    expected,
    ...(p.truncated ? { message: `prompt left-truncated from ${p.ids.length} to ${p.promptIds.length} tokens` } : {}),
  };
}

/**
 * Scores a group of decoder-only prompts that share a long token prefix and whose answers are one token each: the
 * prefix is encoded once, each prompt's remaining tokens extend it as one row (right-padded; padding after a token
 * cannot change it under the causal mask), and every answer's log-probability is read from the next-token
 * distribution after the row's last token.
 */
async function scoreSharedPrefix(model: GenerativeLM, group: Pending[], prefix: number): Promise<number[][]> {
  const suffixes = group.map((p) => p.promptIds.slice(prefix));
  const width = Math.max(...suffixes.map((x) => x.length));
  const { session } = await model.startDecoding([group[0].promptIds.slice(0, prefix)], { expand: group.length, maxNewTokens: width });
  const pad = model.specialTokens.padTokenId;
  const tokens = new Array<number>(group.length * width);
  suffixes.forEach((x, row) => {
    for (let t = 0; t < width; t++) tokens[row * width + t] = t < x.length ? x[t] : pad;
  });
  let out: Float32Array;
  try {
    out = await session.extend(tokens, width);
  } finally {
    session.release?.();
  }
  const V = session.vocab;
  return group.map((p, row) => {
    const off = (row * width + suffixes[row].length - 1) * V;
    const lp = logSoftmax(out.subarray(off, off + V), new Float64Array(V));
    return p.answers.map((a) => lp[a[0]]);
  });
}

/**
 * Creates a local judge on a loaded model. Its id is `local:<model reference>`; its signature
 * `backend:local|model:<reference as written>|answers:logprob|fit:oldest-turns-first|rv:…` (the reply is the most
 * probable valid answer, deterministic; prompts longer than the model's positions leave out their oldest turns,
 * through its `budget`, before any left truncation).
 *
 * Judgements asked at once (a run's concurrency) are scored together: prompts of a decoder-only model that share
 * most of their tokens — the candidates of one dialogue context under one prompt variant share everything but the
 * response — encode the shared prefix once ({@link scoreSharedPrefix}); the others go one by one through
 * {@link answerLogProbs}. Both give the same log-probabilities up to float32 rounding.
 */
export function localOnnxJudge(model: GenerativeLM, id = `local:${model.ref}`): Judge {
  let queue: Pending[] = [];
  let scheduled = false;
  let chain: Promise<void> = Promise.resolve();

  const runBatch = async (batch: Pending[]): Promise<void> => {
    // Consecutive judgements with a long common prefix (at least half of the shorter prompt) form a group.
    const groups: { members: Pending[]; prefix: number }[] = [];
    for (const p of batch) {
      const g = groups[groups.length - 1];
      const shared = model.architecture === 'decoder-only' && p.answers.every((a) => a.length === 1);
      if (g && shared && g.members[0].answers.every((a) => a.length === 1) && g.members[0].spec === p.spec) {
        const prefix = commonPrefix(g.members[0].promptIds, p.promptIds, Math.min(g.prefix, p.promptIds.length - 1));
        if (prefix >= Math.min(g.members[0].promptIds.length, p.promptIds.length) / 2) {
          g.members.push(p);
          g.prefix = prefix;
          continue;
        }
      }
      groups.push({ members: [p], prefix: p.promptIds.length - 1 });
    }
    for (const g of groups) {
      try {
        if (g.members.length > 1 && g.prefix > 0) {
          const lps = await scoreSharedPrefix(model, g.members, g.prefix);
          g.members.forEach((p, i) => p.resolve(resultOf(p, lps[i])));
        } else {
          for (const p of g.members) p.resolve(resultOf(p, await answerLogProbs(model, p.promptIds, p.answers)));
        }
      } catch (err) {
        for (const p of g.members) p.reject(err);
      }
    }
  };

  const flush = () => {
    scheduled = false;
    const batch = queue;
    queue = [];
    // One batch at a time on the model's session.
    chain = chain.then(() => runBatch(batch));
  };

  return {
    id,
    signature: buildSignature([
      ['backend', 'local'],
      ['model', model.ref],
      ['answers', 'logprob'],
      ['fit', 'oldest-turns-first'],
    ]),
    // Room for the longest answer of a 0–100 scale after the prompt (decoder-only models share the positions).
    budget: { maxTokens: model.architecture === 'decoder-only' ? model.maxPositions - 2 : model.maxPositions, count: (text: string) => model.tokenizer.encode(text).length },
    judge(req: JudgeRequest): Promise<JudgeResult> {
      if (req.spec.kind === 'errorCategories') return Promise.resolve({ raw: '', value: null, status: 'error', message: 'local judges answer numeric requests only (error-category requests need an API judge)' });
      const words = req.spec.answers ? Object.entries(req.spec.answers) : undefined;
      const values = words ? words.map(([, v]) => v) : validAnswers(req.spec);
      const answers = words ? words.map(([w]) => model.tokenizer.encode(` ${w}`)) : values.map((v) => model.tokenizer.encode(` ${v}`));
      // Decoder-only: prompt and answer share the positions. Encoder-decoder: the prompt has the encoder's.
      const room = model.architecture === 'decoder-only' ? model.maxPositions - Math.max(...answers.map((a) => a.length)) : model.maxPositions;
      const ids = model.tokenizer.encode(req.prompt);
      const promptIds = ids.length > room ? ids.slice(ids.length - room) : ids;
      return new Promise<JudgeResult>((resolve, reject) => {
        queue.push({ spec: req.spec, values, ...(words ? { words: words.map(([w]) => w) } : {}), answers, ids, promptIds, truncated: ids.length > room, resolve, reject });
        if (!scheduled) {
          scheduled = true;
          setImmediate(flush);
        }
      });
    },
  };
}
