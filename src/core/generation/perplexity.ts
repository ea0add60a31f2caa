/**
 * Perplexity of a generator on reference responses given their contexts (GEM 2022 §3.3, Table 3: 17.36 for
 * gpt2-medium, 13.29 for bart-large, on test-fold reflections under 10-fold CV).
 *
 * PPL = exp( Σ NLL / N ), natural log: the token negative log-likelihoods −log P(y_j | context, y_<j) summed over
 * every scored token of every response, divided by their number N (a corpus-level, token-weighted mean, as a
 * language-modelling evaluation loss is). The probabilities come from teacher forcing on the raw logits
 * ({@link teacherForcing}, no logits processors).
 *
 * What is scored, per response (the model input the generator is trained and run on):
 * - the context in the seeds' format ({@link buildModelInput}), left-truncated to 384 tokens (GEM 2022 §3.2) — the
 *   decoder-only model's prompt, or the encoder-decoder model's encoder input;
 * - the response tokens (` ` + text, right-truncated to 128 tokens, {@link responseIds}) followed by the EOS token.
 *   The EOS is included by default: a response is a whole utterance, and the model's probability of producing
 *   exactly it includes ending there — the label sequences of the seeds' training (and of both fixtures' build
 *   scripts) end with EOS. `includeEos: false` scores the response tokens only.
 * - Encoder-decoder models whose generation forces a BOS first (BART: `forced_bos_token_id` = `<s>`, decoder
 *   started from `</s>`) read `<s>` as the first decoder input after the start token; its own probability is not
 *   counted (it is forced at generation time, and BART's labels `<s> … </s>` put it there).
 */
import { buildSignature, type Signature } from '../evaluators/signature';
import type { GenerativeLM } from '../models/languageModel';
import type { DialogueItem, TherapistBehaviour, Turn } from '../dialogue/types';
import { generatorInputIds, inputWindow } from './localGenerator';
import { MAX_CONTEXT_TOKENS, MAX_RESPONSE_TOKENS, responseIds } from '../templates/modelInput';
import { teacherForcing, type TeacherForcingRequest } from '../decoding/teacherForcing';

/** A reference response and the context it answered. */
export interface PerplexityExample {
  id: string;
  context: readonly Turn[];
  response: string;
}

/**
 * The reference responses of items: every item with a non-empty reference whose behaviour is `behaviour` (or
 * not recorded), as GEM 2022 §3.3 evaluates on reflections only.
 */
export function perplexityExamples(items: readonly DialogueItem[], behaviour: TherapistBehaviour = 'reflection'): PerplexityExample[] {
  return items
    .filter((it) => it.reference?.text?.trim() && (it.reference.behaviour === undefined || it.reference.behaviour === behaviour))
    .map((it) => ({ id: it.id, context: it.context, response: (it.reference as { text: string }).text }));
}

/** What shapes a perplexity value (recorded in its signature). */
export interface PerplexityOptions {
  /** Context window in tokens (default 384, GEM 2022 §3.2). */
  maxContextTokens?: number;
  /** Reference tokens kept (default 128, GEM 2022 §3.2). */
  maxResponseTokens?: number;
  /** Score the EOS after each response (default true). */
  includeEos?: boolean;
  /** Response type whose control code ends the input (default `reflection`: `<listening>`). */
  behaviour?: TherapistBehaviour;
  /** Wrap the input in the tokenizer's special tokens, as the generator does with this option (default false). */
  inputSpecialTokens?: boolean;
}

/** One response's share. */
export interface ResponseNll {
  id: string;
  /** Tokens scored. */
  tokens: number;
  /** Σ −log P over them (nats). */
  nll: number;
}

/** A perplexity with what it was computed on. */
export interface PerplexityResult {
  model: string;
  /** exp(nll / tokens); NaN when no token was scored. */
  perplexity: number;
  /** nll / tokens, nats per token. */
  meanNll: number;
  nll: number;
  tokens: number;
  responses: number;
  perResponse: ResponseNll[];
  /** e.g. `measure:perplexity|model:bundled:reflect-gpt2-tiny|ctx:384|resp:128|eos:yes|input:gem2022-reflection|rv:0.1.0`. */
  signature: Signature;
}

/**
 * Perplexity of `model` on reference responses.
 *
 * @param options.onProgress - called after every batch with responses done / total
 * @throws RangeError from teacher forcing when a context + response does not fit the model's positions
 */
export async function perplexity(
  model: GenerativeLM,
  examples: readonly PerplexityExample[],
  options: PerplexityOptions & { signal?: AbortSignal; onProgress?: (done: number, total: number) => void; batch?: number } = {},
): Promise<PerplexityResult> {
  const maxResponseTokens = options.maxResponseTokens ?? MAX_RESPONSE_TOKENS;
  const includeEos = options.includeEos ?? true;
  const behaviour = options.behaviour ?? 'reflection';
  const eos = model.specialTokens.eosTokenIds[0];
  if (includeEos && eos === undefined) throw new RangeError(`model ${model.ref} has no EOS token id; score without it (includeEos: false)`);
  const forcedBos = model.architecture === 'encoder-decoder' ? model.specialTokens.forcedBosTokenId : null;
  // Decoder-only: the prompt and the response share the positions; keep the response whole.
  const window = inputWindow(model, options.maxContextTokens ?? MAX_CONTEXT_TOKENS, model.architecture === 'decoder-only' ? maxResponseTokens + 1 : 0);
  const requests: TeacherForcingRequest[] = examples.map((ex) => {
    const promptIds = generatorInputIds(ex.context, model, { behaviour, maxContextTokens: window, inputSpecialTokens: options.inputSpecialTokens });
    const response = responseIds(ex.response, model.tokenizer, maxResponseTokens);
    return { promptIds, ...(forcedBos !== null ? { prefixIds: [forcedBos] } : {}), continuationIds: [...response, ...(includeEos ? [eos] : [])] };
  });
  const perResponse: ResponseNll[] = [];
  const batch = Math.max(1, options.batch ?? 8);
  for (let from = 0; from < requests.length; from += batch) {
    options.signal?.throwIfAborted();
    // Contexts of one dialogue that fit the window extend each other: each starts from the longest beginning kept.
    const results = await teacherForcing(model, requests.slice(from, from + batch), { signal: options.signal, prefixCache: true });
    results.forEach((r, k) => perResponse.push({ id: examples[from + k].id, tokens: r.tokenLogProbs.length, nll: -r.sumLogProb }));
    options.onProgress?.(Math.min(from + batch, requests.length), requests.length);
  }
  const nll = perResponse.reduce((s, r) => s + r.nll, 0);
  const tokens = perResponse.reduce((s, r) => s + r.tokens, 0);
  const meanNll = tokens > 0 ? nll / tokens : NaN;
  return {
    model: model.ref,
    perplexity: Math.exp(meanNll),
    meanNll,
    nll,
    tokens,
    responses: perResponse.length,
    perResponse,
    signature: buildSignature([
      ['measure', 'perplexity'],
      ['model', model.ref],
      ['ctx', window],
      ['resp', maxResponseTokens],
      ['eos', includeEos ? 'yes' : 'no'],
      ['input', `gem2022-${behaviour}${options.inputSpecialTokens ? '+special' : ''}`],
    ]),
  };
}
