/**
 * What decoding returns, and the hooks a caller passes in (progress, cancellation, timing, inspection).
 */
import type { RunTimer } from '../models/languageModel';
import type { DecodingSettings } from '../dialogue/types';
import type { Scores } from './logitsProcess';

/** Why a sequence stopped: it emitted an EOS id, reached `maxNewTokens`, or the run was aborted. */
export type FinishReason = 'eos' | 'length' | 'aborted';

/** One decoded continuation of a prompt. */
export interface GeneratedSequence {
  /**
   * New token ids, without the final EOS and without padding; for encoder-decoder models also without the
   * decoder start token and the forced BOS token.
   */
  tokenIds: number[];
  /** True when the sequence ended with an EOS id. */
  endedWithEos: boolean;
  finishReason: FinishReason;
  /**
   * Beam search: the hypothesis score, HF `sequences_scores` — the sum of the processed token log-probabilities
   * divided by generatedLength ** lengthPenalty (generatedLength counts every new token including the EOS and,
   * for encoder-decoder models, the forced BOS). Null for greedy and sampling.
   */
  score: number | null;
  /** Every parameter that made this sequence, as recorded on a candidate (with `sampleIndex` or `beamRank`). */
  settings: DecodingSettings;
}

/** Progress of a decoding run, reported after every step. */
export interface DecodeProgress {
  /** Tokens produced so far over all rows (EOS included). */
  tokensGenerated: number;
  /** Prompts whose sequences are all finished. */
  promptsDone: number;
  promptsTotal: number;
  /** Milliseconds since the run started. */
  elapsedMs: number;
}

/** The scores of one row at one step of greedy or sampling decoding, for tests and inspection. */
export interface StepScoresEvent {
  /** Index of the prompt in the `decode` call. */
  prompt: number;
  /** Sample index (0 for greedy). */
  sequence: number;
  /** Tokens generated before this one. */
  step: number;
  /** Raw next-token logits (a copy). */
  logits: Float32Array;
  /** The same after the logits processors and warpers (−∞ = excluded). */
  scores: Scores;
  /** The token chosen. */
  token: number;
}

/** Hooks of a decoding run. */
export interface DecodeOptions {
  /** Stops between steps; sequences decoded so far are returned with `finishReason: "aborted"`. */
  signal?: AbortSignal;
  /** Accumulates time spent in `session.run`. */
  timer?: RunTimer;
  /** Called after every step. */
  onProgress?: (p: DecodeProgress) => void;
  /** Called for every row at every step of greedy and sampling decoding (copies the logits: slow; tests only). */
  onStepScores?: (e: StepScoresEvent) => void;
  /**
   * Prompts decoded together in one batch (each with its k beams or n samples). Default: as many as keep a
   * batch within 16 rows, at least 1.
   */
  batchSize?: number;
  /**
   * Beam search: do the per-step log-softmax and top-k in JavaScript rather than in the onnxruntime kernel; sampling:
   * the softmax and top-p in JavaScript rather than in onnxruntime (tests compare both).
   */
  noKernel?: boolean;
  /**
   * A single prompt equal to the one the model decoded just before starts from that pass (default true; see
   * `GenerativeLM.startDecoding`). Benchmarks set false to compare strategies at equal work.
   */
  reusePromptPass?: boolean;
}

/** A row's result inside a loop, before it is dressed as a {@link GeneratedSequence}. */
export interface RowResult {
  /** Generated tokens, EOS excluded (forced BOS still included). */
  tokens: number[];
  finishReason: FinishReason;
  score: number | null;
}

/** What a decoding loop needs from its caller besides the model and prompts. */
export interface LoopHooks {
  signal?: AbortSignal;
  timer?: RunTimer;
  /** Called after every step with the tokens produced in it and the prompts (of this batch) finished so far. */
  onStep?: (tokens: number, promptsDone: number) => void;
  onStepScores?: (e: StepScoresEvent) => void;
  noKernel?: boolean;
  reusePromptPass?: boolean;
}
