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

/**
 * A tensor whose row i is row `indices[i]` of `t` (float32 or int64), written into `into` (a float32 tensor's rows,
 * exactly that many floats) when given, else into a new buffer.
 */
export function gatherRows(T: TensorCtor, t: ort.Tensor, indices: ArrayLike<number>, into?: Float32Array): ort.Tensor {
  const size = rowSize(t);
  const src = t.data as RowData;
  const out = (into ?? (t.type === 'int64' ? new BigInt64Array(indices.length * size) : new Float32Array(indices.length * size))) as RowData;
  for (let i = 0; i < indices.length; i++) {
    const r = indices[i];
    (out as Float32Array).set((src as Float32Array).subarray(r * size, (r + 1) * size), i * size);
  }
  return make(T, t, out, indices.length);
}

/** Row indices 0, …, 0, 1, …, 1, … with each of `rows` rows `times` times. */
function repeatedIndices(rows: number, times: number): Int32Array {
  const idx = new Int32Array(rows * times);
  for (let r = 0; r < rows; r++) idx.fill(r, r * times, (r + 1) * times);
  return idx;
}

/** A tensor in which every row of `t` is repeated `times` times consecutively (row r → rows r·times … r·times + times − 1). */
export function repeatRows(T: TensorCtor, t: ort.Tensor, times: number): ort.Tensor {
  if (times === 1) return t;
  return gatherRows(T, t, repeatedIndices(t.dims[0], times));
}

/**
 * As {@link repeatRows} for a float32 tensor, written into a buffer taken from `pool` (the tensor is a view of its
 * first floats): a buffer a finished session handed back has its pages already, while a new one pays for each page
 * on first touch. Give it back with {@link giveBack} once nothing reads the tensor.
 *
 * @throws TypeError when `t` is not float32
 */
export function repeatRowsPooled(T: TensorCtor, t: ort.Tensor, times: number, pool: CacheBufferPool): ort.Tensor {
  if (t.type !== 'float32') throw new TypeError(`repeatRowsPooled takes float32 tensors, got ${t.type}`);
  const length = (t.data as Float32Array).length * times;
  return gatherRows(T, t, repeatedIndices(t.dims[0], times), pool.take(length).subarray(0, length));
}

/** Hands the whole buffer under a tensor made by {@link repeatRowsPooled} back to `pool`. */
export function giveBack(t: ort.Tensor, pool: CacheBufferPool): void {
  pool.give(new Float32Array((t.data as Float32Array).buffer));
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

/**
 * A decoder's key/value cache kept in place between steps (Hugging Face transformers calls this layout a static
 * cache): one buffer per cache name, `[rows, kvHeads, capacity, headDim]`, of which the first `length` positions
 * of every row hold keys or values and the rest are zeros or stale values that the attention mask hides.
 *
 * A step feeds all `capacity` positions with the mask 0 from `length` on, and reads back only the positions it
 * adds (graph outputs exposed by `exposeCacheAppends`, onnxPatch.ts), which {@link append} writes at `length`: the
 * cache is never copied out of onnxruntime. The values computed are those of a compact cache — masked positions
 * have attention weight exactly 0 — up to the order of floating-point sums over the positions.
 */
export class StaticKVCache {
  private bufs: Map<string, Float32Array>;
  /** One spare row, for the cycles of {@link select}. */
  private spareRow = new Float32Array(0);
  /**
   * The prompt each row's first {@link shared} positions come from (row r of {@link from} holds prompt ⌊r/expand⌋):
   * rows of one prompt hold the same values there, so moving a row onto another of the same prompt copies only the
   * positions after them.
   */
  private groups: Int32Array;
  /** Positions every row held when the cache was made (the prompt pass's): never written again. */
  private readonly shared: number;

  private constructor(
    private readonly T: TensorCtor,
    private readonly heads: number,
    private readonly headDim: number,
    bufs: Map<string, Float32Array>,
    /** Rows (batch size). */
    public rows: number,
    /** Positions held per row, including each row's left padding. */
    public length: number,
    /** Positions each row has room for. */
    public capacity: number,
    /** Where buffers come from and go back to (none: new buffers, left to the garbage collector). */
    private readonly pool?: CacheBufferPool,
    expand = 1,
  ) {
    this.bufs = bufs;
    this.shared = length;
    this.groups = Int32Array.from({ length: rows }, (_, r) => Math.floor(r / expand));
  }

  /**
   * A cache of `capacity` positions per row holding `past` (compact `[n, kvHeads, length, headDim]` tensors),
   * each row repeated `expand` times consecutively (row r → rows r·expand … r·expand + expand − 1).
   *
   * @throws RangeError when `capacity` is below the length of `past`
   */
  static from(T: TensorCtor, past: ReadonlyMap<string, ort.Tensor>, expand: number, capacity: number, pool?: CacheBufferPool): StaticKVCache {
    const first = past.values().next().value as ort.Tensor;
    const [n, heads, length, headDim] = first.dims;
    if (capacity < length) throw new RangeError(`capacity ${capacity} is below the ${length} positions held`);
    const bufs = new Map<string, Float32Array>();
    const block = length * headDim;
    for (const [name, t] of past) {
      const src = t.data as Float32Array;
      const buf = pool ? pool.take(n * expand * heads * capacity * headDim) : new Float32Array(n * expand * heads * capacity * headDim);
      for (let b = 0; b < n; b++) {
        for (let h = 0; h < heads; h++) {
          const from = src.subarray((b * heads + h) * block, (b * heads + h + 1) * block);
          for (let e = 0; e < expand; e++) buf.set(from, (((b * expand + e) * heads + h) * capacity) * headDim);
        }
      }
      bufs.set(name, buf);
    }
    return new StaticKVCache(T, heads, headDim, bufs, n * expand, length, capacity, pool, expand);
  }

  /** Gives the buffers back to the pool they came from; the cache holds nothing after (0 rows). */
  release(): void {
    if (this.pool) for (const buf of this.bufs.values()) this.pool.give(buf);
    this.bufs.clear();
    this.rows = 0;
    this.length = 0;
  }

  /** The tensors to feed: `[rows, kvHeads, capacity, headDim]` over the cache's own buffers (no copy). */
  tensors(): Map<string, ort.Tensor> {
    const size = this.rows * this.heads * this.capacity * this.headDim;
    const dims = [this.rows, this.heads, this.capacity, this.headDim];
    return new Map([...this.bufs].map(([name, buf]) => [name, new this.T('float32', buf.subarray(0, size), dims)]));
  }

  /** Makes room for `width` more positions per row, growing the capacity to at least `atLeast` (copies every row once). */
  reserve(width: number, atLeast: number): void {
    if (this.length + width <= this.capacity) return;
    const capacity = Math.max(this.length + width, atLeast);
    const { rows, heads, headDim } = this;
    const block = this.length * headDim;
    for (const [name, buf] of this.bufs) {
      const next = this.pool ? this.pool.take(rows * heads * capacity * headDim) : new Float32Array(rows * heads * capacity * headDim);
      for (let rh = 0; rh < rows * heads; rh++) next.set(buf.subarray(rh * this.capacity * headDim, rh * this.capacity * headDim + block), rh * capacity * headDim);
      this.bufs.set(name, next);
      this.pool?.give(buf);
    }
    this.capacity = capacity;
  }

  /**
   * Writes a step's new positions (`[rows, kvHeads, width, headDim]` per cache name, the outputs named in
   * `appended`) at `length`, and advances `length` by `width`.
   *
   * @throws RangeError when they do not fit (call {@link reserve} before the step)
   */
  append(out: Record<string, ort.Tensor>, appended: ReadonlyMap<string, string>, width: number): void {
    if (this.length + width > this.capacity) throw new RangeError(`${width} positions do not fit: ${this.length} of ${this.capacity} held`);
    const { rows, heads, headDim, capacity } = this;
    const w = width * headDim;
    for (const [name, buf] of this.bufs) {
      const src = out[appended.get(name) as string].data as Float32Array;
      for (let rh = 0; rh < rows * heads; rh++) buf.set(src.subarray(rh * w, rh * w + w), (rh * capacity + this.length) * headDim);
    }
    this.length += width;
  }

  /**
   * Keeps rows `indices` (in that order; repeats allowed): row i becomes row `indices[i]`. In place, when no more
   * rows are kept than the buffers hold: a row is overwritten only after every row that copies it has been written
   * (each cycle of the permutation goes through one spare row), so only rows that change are copied and no new
   * buffer is made — at gpt2-medium's shape a fresh buffer for 5 rows is 377 MB of new pages per step. Of a row,
   * only the positions held are copied, and between rows of one prompt (a beam search's reorders) only those after
   * the prompt pass's: 24 of 408 positions per head after 24 new tokens on a 384-token prompt, where the whole row
   * is 79 MB at gpt2-medium's shape.
   */
  select(indices: ArrayLike<number>): void {
    if (isIdentity(indices, this.rows)) return;
    const { heads, headDim, length } = this;
    const stride = this.capacity * headDim;
    const row = heads * stride;
    const moves = rowMoves(indices, this.rows);
    // The first position each move copies: the rows' prompts as they stand when it runs (the spare's: that of the
    // row last saved into it, which is saved whole).
    const groups = Int32Array.from(this.groups);
    let spareGroup = -1;
    const starts = moves.map(([from, to]) => {
      const group = from < 0 ? spareGroup : groups[from];
      if (to < 0) {
        spareGroup = group;
        return 0;
      }
      const start = groups[to] === group ? this.shared : 0;
      groups[to] = group;
      return start;
    });
    for (const [name, buf] of this.bufs) {
      if (buf.length < indices.length * row) {
        const out = this.pool ? this.pool.take(indices.length * row) : new Float32Array(indices.length * row);
        for (let i = 0; i < indices.length; i++) out.set(buf.subarray(indices[i] * row, (indices[i] + 1) * row), i * row);
        this.bufs.set(name, out);
        this.pool?.give(buf);
        continue;
      }
      if (this.spareRow.length < row) this.spareRow = new Float32Array(row);
      const at = (r: number) => (r < 0 ? this.spareRow : buf);
      moves.forEach(([from, to], m) => {
        if (starts[m] >= length) return;
        const src = at(from);
        const dst = at(to);
        const fromAt = Math.max(from, 0) * row;
        const toAt = Math.max(to, 0) * row;
        for (let h = 0; h < heads; h++) {
          const off = h * stride;
          dst.set(src.subarray(fromAt + off + starts[m] * headDim, fromAt + off + length * headDim), toAt + off + starts[m] * headDim);
        }
      });
    }
    this.groups = Int32Array.from(indices, (i) => this.groups[i]);
    this.rows = indices.length;
  }
}

/**
 * The row copies that make row i hold old row `indices[i]` in place, as [from, to] pairs in order; −1 is a spare
 * row (the first row of a cycle is saved there, and written last). Rows with `indices[i] = i` are not copied.
 *
 * @param rows - rows held before (every index is below it)
 */
export function rowMoves(indices: ArrayLike<number>, rows: number): [number, number][] {
  const n = indices.length;
  const moves: [number, number][] = [];
  // readers[r]: rows still to be written from row r (a row written from itself is not counted).
  const readers = new Int32Array(Math.max(rows, n));
  const done = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (indices[i] < 0 || indices[i] >= rows) throw new RangeError(`row ${indices[i]} of ${rows}`);
    if (indices[i] === i) done[i] = 1;
    else readers[indices[i]]++;
  }
  // Rows nobody reads any more are written first; writing one may free its source.
  const ready: number[] = [];
  for (let i = 0; i < n; i++) if (!done[i] && readers[i] === 0) ready.push(i);
  while (ready.length > 0) {
    const i = ready.pop() as number;
    const from = indices[i];
    moves.push([from, i]);
    done[i] = 1;
    if (--readers[from] === 0 && from < n && !done[from]) ready.push(from);
  }
  // What is left are cycles: every row in one is read by the next.
  for (let i = 0; i < n; i++) {
    if (done[i]) continue;
    moves.push([i, -1]);
    let j = i;
    while (indices[j] !== i) {
      moves.push([indices[j], j]);
      done[j] = 1;
      j = indices[j];
    }
    moves.push([-1, j]);
    done[j] = 1;
  }
  return moves;
}

/**
 * Cache buffers handed back by finished decoding sessions, for the next session of the same model: the pages of a
 * buffer already written cost nothing to write again, while a fresh one pays for every page on first touch (on
 * the 2-core development machine, 1.4 s for 400 MB, against 16 ms to fill it a second time — the cache of 5 rows
 * of a 384-token prompt at gpt2-medium's shape; docs/scale.md).
 */
export class CacheBufferPool {
  private free: Float32Array[] = [];

  /**
   * A buffer of at least `length` floats (its contents are whatever it held): the smallest free one that fits, else
   * a new one — and then every free buffer is dropped (all are too small), so a run whose prompts grow does not
   * keep each smaller size it went through.
   */
  take(length: number): Float32Array {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) if (this.free[i].length >= length && (best < 0 || this.free[i].length < this.free[best].length)) best = i;
    if (best >= 0) return this.free.splice(best, 1)[0];
    this.free = [];
    return new Float32Array(length);
  }

  /** Hands a buffer back. */
  give(buf: Float32Array): void {
    this.free.push(buf);
  }

  /** Floats held by free buffers. */
  get held(): number {
    return this.free.reduce((n, b) => n + b.length, 0);
  }

  /** Drops every free buffer (the garbage collector reclaims them). */
  clear(): void {
    this.free = [];
  }
}
