/**
 * Sampling's softmax of a whole batch in one onnxruntime call instead of JavaScript loops: the probabilities of
 * each row's processed scores, in float32, as torch computes `softmax(next_token_scores)` and TopPLogitsWarper's
 * `sorted_logits.softmax(-1)` in Hugging Face transformers' `_sample` (v4.5x). onnxruntime's CPU `Softmax`
 * (MLAS) subtracts the row's maximum, exponentiates, and scales by the reciprocal of the sum; a score of −∞ gets
 * probability exactly 0 (and so does one more than ~104 below the maximum, where float32 underflows); each row is
 * computed on its own, so a row's probabilities do not depend on the other rows of the batch. At bart-large's
 * vocabulary (50,265) it takes ~0.1 ms a row against ~0.5 ms for the same exponentials in JavaScript
 * (docs/scale.md).
 *
 * The graph is built in memory ({@link buildOnnxModel}); nothing is read from disk.
 */
import type * as ort from 'onnxruntime-common';
import { buildOnnxModel, ELEM, openHelperSession } from '../models/onnxBuilder';
import type { OrtModule } from '../models/onnxGraph';
import type { RunTimer } from '../models/languageModel';

/** A loaded softmax graph. */
export class SoftmaxKernel {
  private constructor(
    private readonly rt: OrtModule,
    private readonly session: ort.InferenceSession,
  ) {}

  private static instance: Promise<SoftmaxKernel> | undefined;

  /** The shared kernel (one small session per process, one thread, as beam search's kernel). */
  static get(): Promise<SoftmaxKernel> {
    SoftmaxKernel.instance ??= openHelperSession(
      buildOnnxModel([{ op: 'Softmax', inputs: ['scores'], outputs: ['probs'], attrs: { axis: 1 } }], [{ name: 'scores', elem: ELEM.float, rank: 2 }], [{ name: 'probs', elem: ELEM.float, rank: 2 }]),
    ).then(({ rt, session }) => new SoftmaxKernel(rt, session));
    return SoftmaxKernel.instance;
  }

  /**
   * @param scores - row-major [rows, vocab] (at least rows × vocab values; the rest is ignored)
   * @param into - a buffer of at least rows × vocab values to write the probabilities into (onnxruntime fills a
   *   pre-allocated output in place: a decoding loop reuses one buffer instead of getting a new one every step);
   *   a new buffer when absent
   * @returns row-major [rows, vocab] float32 probabilities (a view of `into`), each row summing to 1 up to float32
   *   rounding (NaN throughout a row that holds a NaN or only −∞)
   */
  async run(scores: Float32Array, rows: number, vocab: number, into?: Float32Array, timer?: RunTimer): Promise<Float32Array> {
    const t0 = timer ? performance.now() : 0;
    const n = rows * vocab;
    const out = into && into.length >= n ? into.subarray(0, n) : new Float32Array(n);
    const T = this.rt.Tensor;
    await this.session.run({ scores: new T('float32', scores.length === n ? scores : scores.subarray(0, n), [rows, vocab]) }, { probs: new T('float32', out, [rows, vocab]) });
    if (timer) timer.helperMs = (timer.helperMs ?? 0) + performance.now() - t0;
    return out;
  }
}
