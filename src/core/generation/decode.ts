/**
 * Greedy decoding with the older, narrower signature kept for existing callers; new code calls
 * {@link decode} (`engine.ts`) with a {@link GenerationConfig}.
 */
import type { GenerativeLM, RunTimer } from '../models/languageModel';
import { decode } from './engine';

export { argmax } from './samplers';

/** Settings of a greedy run. */
export interface GreedySettings {
  /** Tokens to add at most per sequence (default 128, ≥ 1). */
  maxNewTokens?: number;
  /** Aborts between steps; tokens decoded so far are returned. */
  signal?: AbortSignal;
  /** Accumulates time spent in `session.run`. */
  timer?: RunTimer;
  /** Prompts per batch (default 16). */
  batchSize?: number;
}

/** One decoded continuation. */
export interface DecodedSequence {
  /** New token ids, without the EOS token and padding. */
  tokenIds: number[];
  /** True when the sequence ended with an EOS token, false when `maxNewTokens` or an abort stopped it. */
  endedWithEos: boolean;
}

/**
 * Greedy decoding of a batch of prompts in one batched run with KV cache (HF `generate(do_sample=False)`).
 *
 * @param prompts - token ids of each prompt (non-empty); prompt length + `maxNewTokens` must fit the model's positions
 * @returns one {@link DecodedSequence} per prompt, in order (empty after an immediate abort)
 * @throws RangeError on an empty prompt or one too long for the model
 */
export async function greedySearch(model: GenerativeLM, prompts: number[][], settings: GreedySettings = {}): Promise<DecodedSequence[]> {
  const out = await decode(model, prompts, { strategy: 'greedy', maxNewTokens: settings.maxNewTokens }, { signal: settings.signal, timer: settings.timer, batchSize: settings.batchSize });
  return out.map((seqs) => (seqs[0] ? { tokenIds: seqs[0].tokenIds, endedWithEos: seqs[0].endedWithEos } : { tokenIds: [], endedWithEos: false }));
}
