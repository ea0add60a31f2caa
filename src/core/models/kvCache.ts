/**
 * Row operations on batch-major ONNX tensors ([batch, …]): tiling a prompt's cache for beams or samples, and
 * gathering rows when beam search reorders beams or finished rows leave the batch. Both copy whole rows with
 * `TypedArray.set` of subarrays (one memcpy per row), never element by element.
 */
import type * as ort from 'onnxruntime-common';

type TensorCtor = typeof ort.Tensor;
type RowData = Float32Array | BigInt64Array;

function rowSize(t: ort.Tensor): number {
  return t.dims.length === 0 || t.dims[0] === 0 ? 0 : (t.data as RowData).length / t.dims[0];
}

function make(T: TensorCtor, like: ort.Tensor, data: RowData, rows: number): ort.Tensor {
  const dims = [rows, ...like.dims.slice(1)];
  return like.type === 'int64' ? new T('int64', data as BigInt64Array, dims) : new T('float32', data as Float32Array, dims);
}

/** A tensor whose row i is row `indices[i]` of `t` (float32 or int64). */
export function gatherRows(T: TensorCtor, t: ort.Tensor, indices: ArrayLike<number>): ort.Tensor {
  const size = rowSize(t);
  const src = t.data as RowData;
  const out = (t.type === 'int64' ? new BigInt64Array(indices.length * size) : new Float32Array(indices.length * size)) as RowData;
  for (let i = 0; i < indices.length; i++) {
    const r = indices[i];
    (out as Float32Array).set((src as Float32Array).subarray(r * size, (r + 1) * size), i * size);
  }
  return make(T, t, out, indices.length);
}

/** A tensor in which every row of `t` is repeated `times` times consecutively (row r → rows r·times … r·times + times − 1). */
export function repeatRows(T: TensorCtor, t: ort.Tensor, times: number): ort.Tensor {
  if (times === 1) return t;
  const rows = t.dims[0];
  const idx = new Int32Array(rows * times);
  for (let r = 0; r < rows; r++) idx.fill(r, r * times, (r + 1) * times);
  return gatherRows(T, t, idx);
}

/** True when `indices` is 0, 1, …, n − 1 for n = `rows` (gathering would copy for nothing). */
export function isIdentity(indices: ArrayLike<number>, rows: number): boolean {
  if (indices.length !== rows) return false;
  for (let i = 0; i < rows; i++) if (indices[i] !== i) return false;
  return true;
}

/** Row-major `[rows, width]` logits slice: the last position of each row of `[rows, seq, vocab]` logits, repeated `times`. */
export function lastPositionLogits(logits: Float32Array, rows: number, seq: number, vocab: number, times = 1): Float32Array {
  const out = new Float32Array(rows * times * vocab);
  for (let r = 0; r < rows; r++) {
    const src = logits.subarray((r * seq + seq - 1) * vocab, (r * seq + seq) * vocab);
    for (let k = 0; k < times; k++) out.set(src, (r * times + k) * vocab);
  }
  return out;
}

/**
 * Gathers rows into reused buffers instead of fresh ones: two buffers per cache name, used in turn, so a
 * gather never writes into the buffer it reads from (the previous gather's result) and the cache of a long
 * beam search does not churn the garbage collector. A buffer is reused only after the tensor built on it has
 * been fed to a run and replaced by that run's outputs.
 */
export class GatherPool {
  private readonly pools = new Map<string, [ArrayBuffer, ArrayBuffer]>();

  constructor(private readonly T: TensorCtor) {}

  /** As {@link gatherRows} (float32 tensors), into a pooled buffer for `name`. */
  gather(name: string, t: ort.Tensor, indices: ArrayLike<number>): ort.Tensor {
    if (t.type !== 'float32') return gatherRows(this.T, t, indices);
    const size = rowSize(t);
    const bytes = indices.length * size * 4;
    let pair = this.pools.get(name);
    if (!pair) {
      pair = [new ArrayBuffer(0), new ArrayBuffer(0)];
      this.pools.set(name, pair);
    }
    const src = t.data as Float32Array;
    const slot = src.buffer === pair[0] ? 1 : 0;
    if (pair[slot].byteLength < bytes) pair[slot] = new ArrayBuffer(Math.ceil(bytes * 1.25));
    const out = new Float32Array(pair[slot], 0, indices.length * size);
    for (let i = 0; i < indices.length; i++) {
      const r = indices[i];
      out.set(src.subarray(r * size, (r + 1) * size), i * size);
    }
    return make(this.T, t, out, indices.length);
  }
}
