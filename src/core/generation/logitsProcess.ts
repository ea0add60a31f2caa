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
 *   result can differ only when a value falls within float32 rounding of a threshold.
 * - Ties: where torch's sort order among equal values is unspecified, ties at the top-p and top-k boundary
 *   are all kept.
 */
import { fdlibmExp } from './fdlibm';

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
 */
/** Top-p buckets: width 1/4 nat below the maximum logit; the last one holds everything 32 nats or more below. */
const TOP_P_BUCKETS = 128;

/** Sub-buckets of the crossing bucket (see `TopPLogitsWarper.crossing`); fewer candidates than this are sorted whole. */
const TOP_P_SUB_BUCKETS = 256;

export class TopPLogitsWarper implements LogitsProcessor {
  private probs = new Float64Array(0);
  private candidates = new Float64Array(0);
  private ordered = new Float64Array(0);
  private subOf = new Uint16Array(0);
  private subStart = new Int32Array(TOP_P_SUB_BUCKETS + 1);
  private bucketOf = new Uint8Array(0);
  private bucketMass = new Float64Array(TOP_P_BUCKETS + 1);
  private bucketCount = new Int32Array(TOP_P_BUCKETS + 1);
  /** The scores row of the last `apply`, its nucleus threshold and the sum of the kept probabilities (see {@link lastNucleus}). */
  private last: { scores: Scores; threshold: number; keptSum: number } | undefined;

  /** @param topP - in [0, 1]; 0 keeps only the most probable token, 1 keeps every token of non-zero probability */
  constructor(
    readonly topP: number,
    readonly minTokensToKeep = 1,
  ) {
    if (!(topP >= 0 && topP <= 1)) throw new RangeError(`topP must be in [0, 1], got ${topP}`);
    if (!Number.isInteger(minTokensToKeep) || minTokensToKeep < 1) throw new RangeError(`minTokensToKeep must be an integer ≥ 1, got ${minTokensToKeep}`);
  }

  /**
   * The smallest probability kept: every token whose (unnormalised) probability is ≥ this value is in the
   * nucleus. Leaves the unnormalised probabilities exp(score − max) in `this.probs`.
   *
   * Same result as sorting the whole vocabulary, without sorting it: tokens are bucketed by how far their
   * logit lies below the maximum, the bucket masses are summed from the least probable bucket up, and the
   * bucket B in which the cumulative sum first exceeds (1 − topP)·Σ is the only one walked in ascending order
   * ({@link crossing}). Buckets below B end with a cumulative sum ≤ the limit (all removed); buckets above B start
   * above it (all kept).
   */
  private threshold(scores: Scores): number {
    const V = scores.length;
    if (this.probs.length !== V) {
      this.probs = new Float64Array(V);
      this.candidates = new Float64Array(V);
      this.ordered = new Float64Array(V);
      this.subOf = new Uint16Array(V);
      this.bucketOf = new Uint8Array(V);
    }
    const probs = this.probs;
    const bucketOf = this.bucketOf;
    const B = TOP_P_BUCKETS;
    const mass = this.bucketMass.fill(0);
    const count = this.bucketCount.fill(0);
    let max = -Infinity;
    for (let i = 0; i < V; i++) if (scores[i] > max) max = scores[i];
    let z = 0;
    for (let i = 0; i < V; i++) {
      const d = max - scores[i];
      const e = fdlibmExp(-d);
      probs[i] = e;
      z += e;
      const b = d < B / 4 ? (d * 4) | 0 : B;
      bucketOf[i] = b;
      mass[b] += e;
      count[b]++;
    }
    const limit = (1 - this.topP) * z;
    const minKeep = Math.min(this.minTokensToKeep, V);
    // Walk up from the least probable bucket to the one where the cumulative sum crosses the limit.
    let cumBelow = 0;
    let keptAbove = V;
    let bucket = -1;
    for (let b = B; b >= 0; b--) {
      keptAbove -= count[b];
      if (cumBelow + mass[b] > limit) {
        bucket = b;
        break;
      }
      cumBelow += mass[b];
    }
    const cand = this.candidates;
    let n = 0;
    let maxRemoved: number;
    if (bucket >= 0 && keptAbove + count[bucket] >= minKeep) {
      for (let i = 0; i < V; i++) if (bucketOf[i] === bucket) cand[n++] = probs[i];
      maxRemoved = Math.min(n - 1, keptAbove + n - minKeep);
    } else {
      // The limit is never exceeded (topP ≈ 0, rounding) or minTokensToKeep reaches below: walk everything.
      cumBelow = 0;
      for (let i = 0; i < V; i++) cand[n++] = probs[i];
      maxRemoved = V - minKeep;
    }
    return this.crossing(n, cumBelow, limit, maxRemoved);
  }

  /**
   * Walks the `n` candidates (`this.candidates`) in ascending order, adding each to `cum` (which starts at the mass
   * below them), and returns the first that takes the sum above `limit`, or the one at index `maxRemoved`: what
   * sorting them all and walking from the smallest returns, with the same sums in the same order.
   *
   * Without sorting them all: the candidates are counted into sub-buckets by value (a monotone map, so every value
   * of a sub-bucket is ≤ every value of the next), and only the sub-buckets the walk reaches are sorted, each on its
   * own (about half the candidates, in pieces of ~n/256).
   */
  private crossing(n: number, cum: number, limit: number, maxRemoved: number): number {
    const cand = this.candidates;
    const sortedWalk = () => {
      const sorted = cand.subarray(0, n).sort();
      let removed = 0;
      while (removed < maxRemoved) {
        cum += sorted[removed];
        if (cum > limit) break;
        removed++;
      }
      return sorted[removed];
    };
    if (n < 2 * TOP_P_SUB_BUCKETS) return sortedWalk();
    let lo = Infinity;
    let hi = -Infinity;
    for (let i = 0; i < n; i++) {
      const x = cand[i];
      if (x !== x) return sortedWalk(); // NaN (from NaN logits): sorted last, as a whole sort puts it
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
    const S = TOP_P_SUB_BUCKETS;
    const scale = hi > lo ? S / (hi - lo) : 0;
    const subOf = this.subOf;
    const start = this.subStart.fill(0);
    for (let i = 0; i < n; i++) {
      const k = Math.min(S - 1, ((cand[i] - lo) * scale) | 0);
      subOf[i] = k;
      start[k + 1]++;
    }
    for (let k = 0; k < S; k++) start[k + 1] += start[k];
    // Scatter into `ordered` by sub-bucket (start[k] then points at the end of sub-bucket k, which starts at start[k - 1]).
    const ordered = this.ordered;
    for (let i = 0; i < n; i++) ordered[start[subOf[i]]++] = cand[i];
    let removed = 0;
    let from = 0;
    for (let k = 0; k < S; k++) {
      const to = start[k];
      if (to === from) continue;
      const piece = ordered.subarray(from, to).sort();
      for (let j = 0; j < piece.length; j++) {
        if (removed >= maxRemoved) return piece[j];
        cum += piece[j];
        if (cum > limit) return piece[j];
        removed++;
      }
      from = to;
    }
    return ordered[n - 1]; // not reached: maxRemoved ≤ n − 1
  }

  apply(_inputIds: readonly number[], scores: Scores, _step?: number): void {
    const t = this.threshold(scores);
    const probs = this.probs;
    // The kept probabilities summed in token order, as a draw from them sums them (sampleFromWeights).
    let keptSum = 0;
    for (let i = 0; i < scores.length; i++) {
      const p = probs[i];
      if (p >= t) keptSum += p;
      else if (p < t) scores[i] = -Infinity;
    }
    this.last = { scores, threshold: t, keptSum };
  }

  /**
   * After `apply(…, scores)`: the unnormalised probabilities exp(score − max) it computed, the smallest one kept and
   * the sum of those kept (in token order), so that a sampler can draw from the nucleus without another pass of
   * exponentials (the values equal what softmax of the processed scores would compute). Undefined when `scores` is
   * not the last row applied.
   */
  lastNucleus(scores: Scores): { probs: Float64Array; threshold: number; keptSum: number } | undefined {
    return this.last && this.last.scores === scores ? { probs: this.probs, threshold: this.last.threshold, keptSum: this.last.keptSum } : undefined;
  }

  /** Token ids of the nucleus of `scores` (not modified), ascending: for tests and inspection. */
  nucleus(scores: Scores): number[] {
    const t = this.threshold(scores);
    this.last = undefined;
    const out: number[] = [];
    for (let i = 0; i < scores.length; i++) if (this.probs[i] >= t) out.push(i);
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
