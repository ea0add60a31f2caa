/**
 * Choosing a token from one row of processed scores: arg-max (greedy) or a categorical draw (sampling), and
 * the seeded random streams the draws use.
 *
 * Random numbers: `seedrandom`'s Alea generator (Johannes Baagøe's algorithm; seedrandom 3.x). Alea is
 * specified entirely in IEEE-754 double arithmetic that ECMAScript defines exactly, so a seed gives the same
 * stream on every machine, OS and Node version; it passes the usual statistical test batteries, and
 * seedrandom is a long-lived, widely used library already among our dependencies. It is not torch's
 * generator: a seed does not reproduce a Python `torch.manual_seed` run, only our own runs.
 *
 * Each sampled sequence has its own stream, keyed by the run's seed and the sequence's sample index
 * (`"<seed>:<sampleIndex>"`), and draws one number per generated token. A sample therefore does not depend
 * on how many other prompts or samples share its batch.
 *
 * Probabilities: sampling draws from onnxruntime's float32 softmax of the processed scores (`SoftmaxKernel`), as
 * torch's in Hugging Face transformers; `sampleCategorical` (the JavaScript path tests compare it with) from
 * exp(score − max) computed by `fdlibmExp` (fdlibm.ts), whose doubles depend on IEEE-754 arithmetic only.
 */
import seedrandom from 'seedrandom';
import { fdlibmExp } from './fdlibm';
import type { Scores } from './logitsProcess';

/** A stream of uniform numbers in [0, 1) with 53 bits of precision. */
export type UniformStream = () => number;

/** The stream of sample `sampleIndex` of a run seeded with `seed`. */
export function sampleStream(seed: number, sampleIndex: number): UniformStream {
  const rng = seedrandom.alea(`${seed}:${sampleIndex}`);
  return () => rng.double();
}

/** Index of the largest value in `scores[offset, offset + n)` (the first on ties, as `torch.argmax`). */
export function argmax(scores: Scores, offset = 0, n = scores.length - offset): number {
  let best = 0;
  let bestValue = -Infinity;
  for (let i = 0; i < n; i++) {
    const v = scores[offset + i];
    if (v > bestValue) {
      bestValue = v;
      best = i;
    }
  }
  return best;
}

/**
 * Draws a token from softmax(`scores`) by inversion (HF: `torch.multinomial(softmax(scores), 1)`): the first
 * index whose cumulative probability, summed in index order, exceeds `u`. Tokens with score −∞ have
 * probability 0 and are never drawn.
 *
 * @param u - uniform number in [0, 1)
 * @param scratch - optional buffer of at least `scores.length` doubles, to avoid allocating
 * @throws RangeError when every score is −∞
 */
export function sampleCategorical(scores: Scores, u: number, scratch?: Float64Array): number {
  const V = scores.length;
  const e = scratch && scratch.length >= V ? scratch : new Float64Array(V);
  let max = -Infinity;
  for (let i = 0; i < V; i++) if (scores[i] > max) max = scores[i];
  if (max === -Infinity) throw new RangeError('every token has probability 0');
  let z = 0;
  for (let i = 0; i < V; i++) {
    const x = fdlibmExp(scores[i] - max);
    e[i] = x;
    z += x;
  }
  const target = u * z;
  let cum = 0;
  let last = 0;
  for (let i = 0; i < V; i++) {
    if (e[i] === 0) continue;
    cum += e[i];
    last = i;
    if (cum > target) return i;
  }
  return last; // rounding left `target` at the very end: the last token of non-zero probability
}

/**
 * Draws a token by inversion from one row of probabilities, counting only those ≥ `threshold` (a nucleus; see
 * `NucleusSelector`): the first index whose cumulative kept probability, summed in index order, exceeds u·`keptSum`
 * — `torch.multinomial` on the renormalised nucleus, with the inversion in index order. Tokens of probability 0 are
 * never drawn.
 *
 * @param probs - non-negative probabilities, float32 (the sampling kernel's softmax)
 * @param threshold - > 0; `Number.MIN_VALUE` keeps every token of non-zero probability
 * @param keptSum - Σ of the probabilities ≥ `threshold`
 * @param u - uniform number in [0, 1)
 * @throws RangeError when no probability reaches `threshold`
 */
export function sampleFromProbabilities(probs: Float32Array, threshold: number, keptSum: number, u: number): number {
  const V = probs.length;
  const target = u * keptSum;
  let cum = 0;
  let last = -1;
  for (let i = 0; i < V; i++) {
    const p = probs[i];
    if (p < threshold) continue;
    cum += p;
    last = i;
    if (cum > target) return i;
  }
  if (last < 0) throw new RangeError(`no probability reaches ${threshold}`);
  return last; // rounding left `target` at the very end: the last token kept
}

/**
 * Natural-log softmax of `src` into `dst` (float64), as `torch.nn.functional.log_softmax`.
 *
 * @returns `dst`
 */
export function logSoftmax(src: Scores, dst: Float64Array): Float64Array {
  const lse = logSumExp(src);
  for (let i = 0; i < src.length; i++) dst[i] = src[i] - lse;
  return dst;
}

/** {@link logSumExp} of float32 logits (a monomorphic copy for the hot path of beam search). */
export function logSumExpF32(src: Float32Array): number {
  const V = src.length;
  let max = -Infinity;
  for (let i = 0; i < V; i++) if (src[i] > max) max = src[i];
  let z = 0;
  for (let i = 0; i < V; i++) z += fdlibmExp(src[i] - max);
  return max + Math.log(z);
}

/** log Σ exp(`src`), computed as max + log Σ exp(x − max). */
export function logSumExp(src: Scores): number {
  const V = src.length;
  let max = -Infinity;
  for (let i = 0; i < V; i++) if (src[i] > max) max = src[i];
  let z = 0;
  for (let i = 0; i < V; i++) z += fdlibmExp(src[i] - max);
  return max + Math.log(z);
}

/** log softmax(`row`)[index] without materialising the whole distribution. */
export function logSoftmaxAt(row: Scores, index: number): number {
  let max = -Infinity;
  for (let i = 0; i < row.length; i++) if (row[i] > max) max = row[i];
  let z = 0;
  for (let i = 0; i < row.length; i++) z += fdlibmExp(row[i] - max);
  return row[index] - max - Math.log(z);
}
