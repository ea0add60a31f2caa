/**
 * Logits processors and warpers: small classes with one job each, in the shape of transformers.js
 * (`generation/logits_process.js`) and reproducing Hugging Face transformers' classes of the same names
 * (`src/transformers/generation/logits_process.py`, v4.50–4.5x; the HF class each one follows is named in its
 * TSDoc).
 *
 * Differences from the batched Python classes, all deliberate:
 * - A processor works on ONE row: `apply(inputIds, scores, step)` modifies `scores` (length = vocabulary)
 *   in place. `inputIds` is the row's sequence as HF's `input_ids` holds it — decoder-only: the prompt and the
 *   generated tokens; encoder-decoder: the decoder start token and the generated tokens — but WITHOUT the left
 *   padding of a batch, so a prompt decoded in a batch is processed exactly as when decoded alone.
 * - Arithmetic is float64 where HF's is float32 (cumulative sums of top-p, log-softmax in beam search); a
 *   result can differ only when a value falls within float32 rounding of a threshold. (Sampling's own softmax runs
 *   in onnxruntime in float32, as torch's: `nucleusSampling.ts`.)
 * - Ties: where torch's sort order among equal values is unspecified, ties at the top-p and top-k boundary
 *   are all kept.
 */
import { fdlibmExp } from './fdlibm';
import { NucleusSelector } from './topP';

/** One row of scores: raw logits (greedy, sampling) or log-probabilities (beam search). */
export type Scores = Float32Array | Float64Array;

/** A processor of one row of next-token scores. */
export interface LogitsProcessor {
  /**
   * Modifies `scores` in place.
   *
   * @param inputIds - the row's tokens so far (see the module comment)
   * @param scores - next-token scores, length = vocabulary size
   * @param step - tokens generated so far in this row (0 at the first new token)
   */
  apply(inputIds: readonly number[], scores: Scores, step: number): void;
  /**
   * Optional: true when `apply` would change nothing for a row of `inputLength` tokens at `step` (lets beam
   * search use its batch kernel on such steps).
   */
  inactive?(inputLength: number, step: number): boolean;
}

/**
 * HF `RepetitionPenaltyLogitsProcessor` (CTRL, Keskar et al. 2019): for every distinct token already in
 * `inputIds`, a negative score is multiplied by `penalty` and a positive one divided by it.
 */
export class RepetitionPenaltyLogitsProcessor implements LogitsProcessor {
  private seen = new Uint32Array(0);
  private stamp = 0;

  /** @param penalty - > 0; 1 is no penalty, > 1 discourages repetition */
  constructor(readonly penalty: number) {
    if (!(penalty > 0)) throw new RangeError(`repetitionPenalty must be > 0, got ${penalty}`);
  }

  apply(inputIds: readonly number[], scores: Scores, _step?: number): void {
    if (this.seen.length < scores.length) this.seen = new Uint32Array(scores.length);
    if (++this.stamp === 0xffffffff) {
      this.seen.fill(0);
      this.stamp = 1;
    }
    for (const id of inputIds) {
      if (this.seen[id] === this.stamp) continue;
      this.seen[id] = this.stamp;
      const s = scores[id];
      scores[id] = s < 0 ? s * this.penalty : s / this.penalty;
    }
  }
}

/**
 * HF `NoRepeatNGramLogitsProcessor`: bans (score −∞) every token that would complete an n-gram of size `n`
 * already present in `inputIds`.
 */
export class NoRepeatNGramLogitsProcessor implements LogitsProcessor {
  /** @param n - n-gram size ≥ 1 */
  constructor(readonly n: number) {
    if (!Number.isInteger(n) || n < 1) throw new RangeError(`noRepeatNgramSize must be an integer ≥ 1, got ${n}`);
  }

  /** Tokens banned after `inputIds` (those following an earlier occurrence of its last n − 1 tokens). */
  bannedTokens(inputIds: readonly number[]): number[] {
    const n = this.n;
    const len = inputIds.length;
    if (len + 1 < n) return [];
    const banned: number[] = [];
    const start = len - n + 1; // the last n − 1 tokens begin here
    for (let i = 0; i + n - 1 < len; i++) {
      let match = true;
      for (let j = 0; j < n - 1; j++) {
        if (inputIds[i + j] !== inputIds[start + j]) {
          match = false;
          break;
        }
      }
      if (match) banned.push(inputIds[i + n - 1]);
    }
    return banned;
  }

  apply(inputIds: readonly number[], scores: Scores, _step?: number): void {
    for (const t of this.bannedTokens(inputIds)) scores[t] = -Infinity;
  }
}

/**
 * HF `ForcedBOSTokenLogitsProcessor`: when the sequence holds one token (the decoder start of an
 * encoder-decoder model), every score becomes −∞ except `bosTokenId`'s, which becomes 0.
 */
export class ForcedBOSTokenLogitsProcessor implements LogitsProcessor {
  constructor(readonly bosTokenId: number) {}

  inactive(inputLength: number): boolean {
    return inputLength !== 1;
  }

  apply(inputIds: readonly number[], scores: Scores, _step?: number): void {
    if (inputIds.length !== 1) return;
    scores.fill(-Infinity);
    scores[this.bosTokenId] = 0;
  }
}

/**
 * HF `ForcedEOSTokenLogitsProcessor`: at the last allowed position (HF `cur_len == max_length − 1`, here
 * `step == maxNewTokens − 1`), every score becomes −∞ except the EOS ids', which become 0.
 */
export class ForcedEOSTokenLogitsProcessor implements LogitsProcessor {
  constructor(
    readonly maxNewTokens: number,
    readonly eosTokenIds: readonly number[],
  ) {}

  inactive(_inputLength: number, step: number): boolean {
    return step !== this.maxNewTokens - 1;
  }

  apply(_inputIds: readonly number[], scores: Scores, step: number): void {
    if (step !== this.maxNewTokens - 1) return;
    scores.fill(-Infinity);
    for (const id of this.eosTokenIds) scores[id] = 0;
  }
}

/** HF `TemperatureLogitsWarper`: scores divided by `temperature` (> 0). */
export class TemperatureLogitsWarper implements LogitsProcessor {
  constructor(readonly temperature: number) {
    if (!(temperature > 0)) throw new RangeError(`temperature must be > 0, got ${temperature}`);
  }

  apply(_inputIds: readonly number[], scores: Scores, _step?: number): void {
    const t = this.temperature;
    for (let i = 0; i < scores.length; i++) scores[i] /= t;
  }
}

/**
 * HF `TopKLogitsWarper`: keeps the `max(topK, minTokensToKeep)` highest scores (and any tied with the last of
 * them); the others become −∞.
 */
export class TopKLogitsWarper implements LogitsProcessor {
  private sorted = new Float64Array(0);

  constructor(
    readonly topK: number,
    readonly minTokensToKeep = 1,
  ) {
    if (!Number.isInteger(topK) || topK < 1) throw new RangeError(`topK must be an integer ≥ 1, got ${topK}`);
  }

  apply(_inputIds: readonly number[], scores: Scores, _step?: number): void {
    const k = Math.min(Math.max(this.topK, this.minTokensToKeep), scores.length);
    if (k >= scores.length) return;
    if (this.sorted.length !== scores.length) this.sorted = new Float64Array(scores.length);
    this.sorted.set(scores);
    this.sorted.sort();
    const threshold = this.sorted[scores.length - k];
    for (let i = 0; i < scores.length; i++) if (scores[i] < threshold) scores[i] = -Infinity;
  }
}

/**
 * HF `TopPLogitsWarper` (nucleus sampling, Holtzman et al. 2020): with the scores' softmax sorted ascending
 * and summed cumulatively, tokens whose cumulative probability is ≤ 1 − topP become −∞; the `minTokensToKeep`
 * most probable tokens are always kept. What remains is the smallest set of most probable tokens whose
 * probability reaches topP.
 *
 * The probabilities are exp(score − max) in float64 (`fdlibmExp`) and the selection is {@link NucleusSelector}'s.
 * Sampling applies the same selection to onnxruntime's float32 softmax of the same scores (`nucleusSampling.ts`,
 * as torch's softmax is float32), so both choose the same nucleus unless a cumulative sum falls within float32
 * rounding of the limit.
 */
export class TopPLogitsWarper implements LogitsProcessor {
  /** The selection it applies; sampling's kernel path applies it to onnxruntime's probabilities instead. */
  readonly selector: NucleusSelector;
  private probs = new Float64Array(0);

  /**
   * @param topP - in [0, 1]; 0 keeps only the most probable token, 1 keeps every token of non-zero probability
   * @throws RangeError on a value out of range
   */
  constructor(
    readonly topP: number,
    readonly minTokensToKeep = 1,
  ) {
    this.selector = new NucleusSelector(topP, minTokensToKeep);
  }

  /** exp(score − max) of `scores` into `this.probs` (unnormalised) and the nucleus of them. */
  private nucleusOf(scores: Scores): { probs: Float64Array; threshold: number } {
    const V = scores.length;
    if (this.probs.length !== V) this.probs = new Float64Array(V);
    const probs = this.probs;
    let max = -Infinity;
    for (let i = 0; i < V; i++) if (scores[i] > max) max = scores[i];
    if (max === -Infinity) throw new RangeError('every token has probability 0');
    for (let i = 0; i < V; i++) probs[i] = fdlibmExp(scores[i] - max);
    return { probs, threshold: this.selector.select(probs).threshold };
  }

  /** @throws RangeError when every score is −∞ or one is NaN */
  apply(_inputIds: readonly number[], scores: Scores, _step?: number): void {
    const { probs, threshold } = this.nucleusOf(scores);
    for (let i = 0; i < scores.length; i++) if (probs[i] < threshold) scores[i] = -Infinity;
  }

  /** Token ids of the nucleus of `scores` (not modified), ascending: for tests and inspection. */
  nucleus(scores: Scores): number[] {
    const { probs, threshold } = this.nucleusOf(scores);
    const out: number[] = [];
    for (let i = 0; i < scores.length; i++) if (probs[i] >= threshold) out.push(i);
    return out;
  }
}

/** Processors applied in order (HF `LogitsProcessorList`). */
export class LogitsProcessorList implements LogitsProcessor {
  constructor(readonly processors: LogitsProcessor[] = []) {}

  get length(): number {
    return this.processors.length;
  }

  apply(inputIds: readonly number[], scores: Scores, step: number): void {
    for (const p of this.processors) p.apply(inputIds, scores, step);
  }

  /** True when every processor is inactive for such a row at `step` (an empty list always is). */
  inactive(inputLength: number, step: number): boolean {
    return this.processors.every((p) => p.inactive?.(inputLength, step) === true);
  }
}

/** The fields of a generation config that choose processors. */
export interface ProcessorSettings {
  repetitionPenalty: number;
  noRepeatNgramSize: number;
  forcedBosTokenId: number | null;
  forcedEosTokenId: number | null;
  eosTokenIds: number[];
  maxNewTokens: number;
  temperature: number;
  topK: number;
  topP: number;
}

/**
 * The processors of a configuration in Hugging Face's order (`GenerationMixin._get_logits_processor`,
 * transformers 4.5x): RepetitionPenalty, NoRepeatNGram, ForcedBOS, ForcedEOS; then, when sampling, the
 * warpers Temperature, TopK, TopP. Processors that would do nothing (penalty 1, size 0, temperature 1, topK 0,
 * topP 1) are left out, as HF leaves them out.
 *
 * @param sampling - true for sampling strategies (adds the warpers, as HF does only when `do_sample`)
 * @param numBeams - > 1 makes TopK keep at least 2 tokens, as HF's beam sampling does
 */
export function buildLogitsProcessors(s: ProcessorSettings, sampling: boolean, numBeams = 1): LogitsProcessorList {
  const list: LogitsProcessor[] = [];
  if (s.repetitionPenalty !== 1) list.push(new RepetitionPenaltyLogitsProcessor(s.repetitionPenalty));
  if (s.noRepeatNgramSize > 0) list.push(new NoRepeatNGramLogitsProcessor(s.noRepeatNgramSize));
  if (s.forcedBosTokenId !== null) list.push(new ForcedBOSTokenLogitsProcessor(s.forcedBosTokenId));
  if (s.forcedEosTokenId !== null) list.push(new ForcedEOSTokenLogitsProcessor(s.maxNewTokens, [s.forcedEosTokenId]));
  if (sampling) {
    if (s.temperature !== 1) list.push(new TemperatureLogitsWarper(s.temperature));
    if (s.topK !== 0) list.push(new TopKLogitsWarper(s.topK, numBeams > 1 ? 2 : 1));
    if (s.topP < 1) list.push(new TopPLogitsWarper(s.topP, numBeams > 1 ? 2 : 1));
  }
  return new LogitsProcessorList(list);
}
