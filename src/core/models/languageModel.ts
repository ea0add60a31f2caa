/**
 * What the decoding engine needs from a model, whatever its family: a decoder-only causal LM
 * ({@link OnnxCausalLM}) or an encoder-decoder model ({@link OnnxSeq2SeqLM}).
 *
 * The engine never sees ONNX tensors: it starts a {@link DecodingSession} on a batch of prompts, feeds one
 * token per row per step, reads next-token logits, and reorders or drops rows (beam search, finished rows).
 * The session owns the KV cache and gathers its rows instead of recomputing them.
 */
import type { DescribedModel } from './describe';
import type { ModelTokenizer } from './tokenizer';

/** Time spent inside `session.run` (all ONNX sessions of a model), for benchmarks and progress reports. */
export interface RunTimer {
  /** Milliseconds spent in `session.run`. */
  runMs: number;
  /** Number of `session.run` calls. */
  runs: number;
  /**
   * Milliseconds spent in ReflectEval's own helper graphs (beam search's log-softmax + top-k kernel), which
   * are part of decoding, not of the model: kept out of `runMs` and `runs`.
   */
  helperMs?: number;
}

/** Token ids that decoding treats specially, read from the model's `config.json` / `generation_config.json`. */
export interface SpecialTokens {
  /** End-of-sequence ids (a sequence ends when it emits any of them). */
  eosTokenIds: number[];
  /** Padding id (left padding of decoder-only prompts, right padding of encoder inputs). */
  padTokenId: number;
  /** Encoder-decoder only: the first decoder input (HF `decoder_start_token_id`); null for decoder-only models. */
  decoderStartTokenId: number | null;
  /** Token forced at the first generated position (HF `forced_bos_token_id`, BART); null if none. */
  forcedBosTokenId: number | null;
  /** Token forced at the last allowed position (HF `forced_eos_token_id`); null if none. */
  forcedEosTokenId: number | null;
}

/** A decoding session: the KV cache of `rows` sequences being decoded in one batch. */
export interface DecodingSession {
  /** Current number of rows. */
  readonly rows: number;
  /** Vocabulary size (width of a logits row). */
  readonly vocab: number;
  /**
   * Feeds one token per row and runs the decoder once.
   *
   * @param tokens - `rows` token ids, row order
   * @returns next-token logits, row-major [rows, vocab]; the array is the caller's to modify
   */
  step(tokens: ArrayLike<number>): Promise<Float32Array>;
  /**
   * Feeds `width` tokens per row (teacher forcing) and runs the decoder once.
   *
   * @param tokens - row-major [rows, width]
   * @returns logits, row-major [rows, width, vocab]: position t predicts the token after `tokens[row][t]`
   */
  extend(tokens: ArrayLike<number>, width: number): Promise<Float32Array>;
  /**
   * Keeps the rows `indices` (in that order, repetitions allowed): the cache of new row i is a copy of old row
   * `indices[i]`. Beam search reorders beams with it; finished rows are dropped with it.
   */
  select(indices: ArrayLike<number>): void;
  /**
   * Optional: the caller is done with the session; its buffers may serve the model's next session (a cache kept
   * in place). Calling anything after it is an error; not calling it only forgoes the reuse.
   */
  release?(): void;
}

/** A session started on prompts, with the logits after the last prompt token. */
export interface StartedDecoding {
  session: DecodingSession;
  /** Next-token logits after the prompt, row-major [rows, vocab] (rows = prompts × expand). */
  logits: Float32Array;
  /**
   * Per row, the token sequence logits processors see (HF `input_ids`): decoder-only, the prompt (without
   * padding); encoder-decoder, `[decoderStartTokenId]`.
   */
  history: number[][];
}

/** A language model the engine can decode from and score with. */
export interface GenerativeLM {
  /** The model reference as given (folder or hub id) or the `id` passed to `fromDescription`; recorded in candidate origins. */
  readonly ref: string;
  /** Local folder the model was loaded from. */
  readonly folder: string;
  /**
   * Where the model came from, as the model registry described it (folder, ONNX files, dtype, hub commit); pass
   * it to `describedModelFiles` for a string naming the exact files. Absent for models not loaded through it.
   */
  readonly description?: DescribedModel;
  readonly architecture: 'decoder-only' | 'encoder-decoder';
  readonly tokenizer: ModelTokenizer;
  readonly vocabSize: number;
  /**
   * Longest decoder sequence the positions allow: decoder-only, prompt + generated tokens; encoder-decoder,
   * start token + generated tokens (the encoder input has the same limit).
   */
  readonly maxPositions: number;
  readonly specialTokens: SpecialTokens;
  /**
   * Whether prompts of different lengths can share a batch and still decode exactly as alone: true for
   * encoder-decoder models (masked right padding of the encoder input) and for decoder-only graphs with a
   * `position_ids` input (left padding with positions cumsum(mask) − 1); false for decoder-only graphs that
   * number positions themselves from 0 at the left edge, where padding would shift them.
   */
  readonly paddingSafe: boolean;
  /**
   * Encodes `prompts` (non-empty token id lists) once and returns a session of `prompts.length × expand` rows
   * (row r continues prompt ⌊r / expand⌋), the cache tiled rather than recomputed. With `reusePromptPass` (the
   * default), a single prompt equal to the previous call's single prompt starts from the pass already made (its
   * kept logits and cache: the same numbers, one pass fewer), as a run's settings for one context do; `false`
   * neither uses nor keeps it (benchmarks comparing strategies at equal work). `maxNewTokens`, a hint: how many
   * tokens the caller may add after the prompts (a model that keeps its cache in place reserves room for them;
   * more still work).
   *
   * @throws RangeError on an empty prompt or one longer than the model allows
   */
  startDecoding(prompts: number[][], options?: { expand?: number; timer?: RunTimer; reusePromptPass?: boolean; maxNewTokens?: number }): Promise<StartedDecoding>;
  /**
   * Optional: bytes one decoding row holds in its cache for a prompt of `promptLength` tokens and `maxNewTokens`
   * new tokens — keys and values of every layer in float32 (an encoder-decoder's cross-attention cache and encoder
   * states too). An estimate for sizing batches: onnxruntime's own buffers, which also grow with the rows, are not
   * counted.
   */
  cacheBytesPerRow?(promptLength: number, maxNewTokens: number): number;
  /** Releases the ONNX sessions. */
  dispose(): Promise<void>;
}
