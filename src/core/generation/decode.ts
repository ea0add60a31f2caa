/**
 * Decoding loops over an {@link OnnxCausalLM} with a KV cache.
 *
 * Greedy decoding follows Hugging Face transformers' `generate(do_sample=False, num_beams=1)` (v4.x,
 * `GenerationMixin._sample` without sampling): at each step the arg-max of the next-token logits (first index
 * on ties, as `torch.argmax`) is appended; a row that emitted an EOS id is finished and padded afterwards;
 * generation stops when every row is finished or `maxNewTokens` tokens were added. Prompts of different
 * lengths in one batch are left-padded, masked in `attention_mask`, and given `position_ids` =
 * cumsum(mask) − 1 (padding positions set to 1), as transformers does for GPT-2.
 */
import type { OnnxCausalLM, RunTimer } from '../models/causalLM';

/** Settings of a greedy run. */
export interface GreedySettings {
  /** Tokens to add at most per sequence (default 128, ≥ 1). */
  maxNewTokens?: number;
  /** Aborts between steps; tokens decoded so far are returned. */
  signal?: AbortSignal;
  /** Accumulates time spent in `session.run`. */
  timer?: RunTimer;
}

/** One decoded continuation. */
export interface DecodedSequence {
  /** New token ids, without the EOS token and padding. */
  tokenIds: number[];
  /** True when the sequence ended with an EOS token, false when `maxNewTokens` or an abort stopped it. */
  endedWithEos: boolean;
}

/** Index of the largest value in `logits[offset, offset + n)` (first on ties). */
export function argmax(logits: Float32Array, offset: number, n: number): number {
  let best = 0;
  let bestValue = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = logits[offset + i];
    if (v > bestValue) {
      bestValue = v;
      best = i;
    }
  }
  return best;
}

/**
 * Greedy decoding of a batch of prompts in one batched run with KV cache.
 *
 * @param prompts - token ids of each prompt (non-empty); prompt length + `maxNewTokens` must fit the model's positions
 * @returns one {@link DecodedSequence} per prompt, in order
 * @throws RangeError on an empty prompt or one too long for the model
 */
export async function greedySearch(model: OnnxCausalLM, prompts: number[][], settings: GreedySettings = {}): Promise<DecodedSequence[]> {
  const maxNew = settings.maxNewTokens ?? 128;
  if (!Number.isInteger(maxNew) || maxNew < 1) throw new RangeError(`maxNewTokens must be an integer ≥ 1, got ${maxNew}`);
  const batch = prompts.length;
  if (batch === 0) return [];
  const longest = Math.max(...prompts.map((p) => p.length));
  prompts.forEach((p, i) => {
    if (p.length === 0) throw new RangeError(`prompt ${i} is empty`);
  });
  if (longest + maxNew > model.config.maxPositions) {
    throw new RangeError(`prompt of ${longest} tokens + ${maxNew} new tokens exceeds the model's ${model.config.maxPositions} positions`);
  }
  const eos = new Set(model.tokenizer.eosTokenIds);
  const pad = model.tokenizer.padTokenId;

  // Left-padded first step.
  const inputIds = new BigInt64Array(batch * longest);
  const positionIds = new BigInt64Array(batch * longest);
  let mask: number[][] = prompts.map((p) => [...new Array(longest - p.length).fill(0), ...new Array(p.length).fill(1)]);
  const nextPosition: number[] = [];
  prompts.forEach((p, b) => {
    const padLen = longest - p.length;
    for (let t = 0; t < longest; t++) {
      inputIds[b * longest + t] = BigInt(t < padLen ? pad : p[t - padLen]);
      positionIds[b * longest + t] = BigInt(t < padLen ? 1 : t - padLen);
    }
    nextPosition.push(p.length);
  });

  const out: DecodedSequence[] = prompts.map(() => ({ tokenIds: [], endedWithEos: false }));
  const done = new Array<boolean>(batch).fill(false);
  let past = model.emptyCache(batch);
  let stepIds = inputIds;
  let stepPos = positionIds;
  let seq = longest;
  for (let step = 0; step < maxNew; step++) {
    if (settings.signal?.aborted) break;
    const flatMask = BigInt64Array.from(mask.flat(), (v) => BigInt(v));
    const res = await model.forward(stepIds, flatMask, stepPos, batch, seq, past, settings.timer);
    past = res.present;
    const next = new BigInt64Array(batch);
    const nextPos = new BigInt64Array(batch);
    for (let b = 0; b < batch; b++) {
      let token = pad;
      if (!done[b]) {
        token = argmax(res.logits, (b * seq + seq - 1) * res.vocab, res.vocab);
        if (eos.has(token)) {
          done[b] = true;
          out[b].endedWithEos = true;
        } else {
          out[b].tokenIds.push(token);
        }
      }
      next[b] = BigInt(token);
      nextPos[b] = BigInt(nextPosition[b]++);
    }
    if (done.every(Boolean)) break;
    mask = mask.map((m) => [...m, 1]);
    stepIds = next;
    stepPos = nextPos;
    seq = 1;
  }
  return out;
}
