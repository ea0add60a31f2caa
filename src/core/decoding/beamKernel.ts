/**
 * Beam search's per-step arithmetic on the whole batch in one onnxruntime call instead of JavaScript loops:
 * `log_softmax(logits) + running scores`, reshaped to one row per prompt (k × vocabulary), then the top K —
 * exactly HF's `_beam_search` steps b–c when there are no logits processors, in float32 as torch computes
 * them. ONNX `TopK` breaks ties by the lower index (the same rule as the JavaScript path).
 *
 * The graph is built in memory ({@link buildOnnxModel}); nothing is read from disk.
 */
import type * as ort from 'onnxruntime-common';
import { buildOnnxModel, ELEM, openHelperSession } from '../models/onnxBuilder';
import type { OrtModule } from '../models/onnxGraph';
import type { RunTimer } from '../models/languageModel';

/** The top-K continuations of each prompt: values (accumulated log-probs) and flat indices (beam × V + token), row-major [prompts, K]. */
export interface BeamTopK {
  values: Float32Array;
  indices: BigInt64Array;
}

/** A loaded beam-step graph. */
export class BeamKernel {
  private constructor(
    private readonly rt: OrtModule,
    private readonly session: ort.InferenceSession,
  ) {}

  private static instance: Promise<BeamKernel> | undefined;

  /** The shared kernel (one small session per process). */
  static get(): Promise<BeamKernel> {
    BeamKernel.instance ??= openHelperSession(
      buildOnnxModel(
        [
          { op: 'LogSoftmax', inputs: ['logits'], outputs: ['logprobs'], attrs: { axis: 1 } },
          { op: 'Add', inputs: ['logprobs', 'scores'], outputs: ['accumulated'] },
          { op: 'Reshape', inputs: ['accumulated', 'shape'], outputs: ['flat'] },
          { op: 'TopK', inputs: ['flat', 'k'], outputs: ['values', 'indices'], attrs: { axis: -1, largest: 1, sorted: 1 } },
        ],
        [
          { name: 'logits', elem: ELEM.float, rank: 2 },
          { name: 'scores', elem: ELEM.float, rank: 2 },
          { name: 'shape', elem: ELEM.int64, rank: 1 },
          { name: 'k', elem: ELEM.int64, rank: 1 },
        ],
        [
          { name: 'values', elem: ELEM.float, rank: 2 },
          { name: 'indices', elem: ELEM.int64, rank: 2 },
        ],
      ),
    ).then(({ rt, session }) => new BeamKernel(rt, session));
    return BeamKernel.instance;
  }

  /**
   * @param logits - row-major [prompts × beams, vocab]
   * @param scores - running score of each row (float32)
   * @param K - continuations kept per prompt (≤ beams × vocab)
   */
  async run(logits: Float32Array, scores: Float32Array, prompts: number, beams: number, vocab: number, K: number, timer?: RunTimer): Promise<BeamTopK> {
    const T = this.rt.Tensor;
    const rows = prompts * beams;
    const t0 = timer ? performance.now() : 0;
    const out = await this.session.run({
      logits: new T('float32', logits.length === rows * vocab ? logits : logits.subarray(0, rows * vocab), [rows, vocab]),
      scores: new T('float32', scores, [rows, 1]),
      shape: new T('int64', BigInt64Array.from([BigInt(prompts), BigInt(beams * vocab)]), [2]),
      k: new T('int64', BigInt64Array.from([BigInt(K)]), [1]),
    });
    if (timer) timer.helperMs = (timer.helperMs ?? 0) + performance.now() - t0;
    return { values: out.values.data as Float32Array, indices: out.indices.data as BigInt64Array };
  }
}
