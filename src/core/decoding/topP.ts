/**
 * The top-p nucleus of one row of probabilities (Holtzman et al. 2020), as Hugging Face transformers'
 * `TopPLogitsWarper` (v4.5x) defines it: with the probabilities sorted ascending and summed cumulatively, tokens whose
 * cumulative probability is ≤ 1 − topP are removed, the `minTokensToKeep` most probable always kept. Cumulative
 * sums are float64 here where torch's are float32, and the limit is (1 − topP) × the row's own sum, so rows need not
 * be normalised; ties at the boundary are all kept (torch's sort order among equal values is unspecified).
 *
 * Without sorting the row: a probability's float32 bits, read as an unsigned integer, order non-negative floats as
 * their values do, so shifting them right by {@link BUCKET_SHIFT} buckets the row by value (64 buckets per power
 * of two). One pass sums each bucket's mass; the buckets are walked from the least probable up to the one in
 * which the cumulative sum first exceeds the limit, and only that bucket's tokens are sorted and walked. Buckets
 * below it end with a cumulative sum ≤ the limit (all removed); buckets above it start above it (all kept).
 */

/** A float32's bits >>> this is its bucket: 8 exponent bits and 6 mantissa bits, buckets 2^(1/64) apart. */
const BUCKET_SHIFT = 17;
/** Buckets of non-negative float32 values (sign bit 0). */
const BUCKETS = 1 << (31 - BUCKET_SHIFT);

/** What {@link NucleusSelector.select} returns. */
export interface Nucleus {
  /** The smallest probability kept (> 0): every token whose probability is ≥ it is in the nucleus. */
  threshold: number;
  /** Σ of the kept probabilities (float64). */
  keptSum: number;
}

/** Selects the nucleus of rows of probabilities; holds its scratch buffers, so one instance serves many rows. */
export class NucleusSelector {
  private readonly mass = new Float64Array(BUCKETS);
  private readonly count = new Int32Array(BUCKETS);
  private candidates = new Float64Array(0);
  private keys = new Float32Array(0);

  /**
   * @param topP - in [0, 1]; 0 keeps only the most probable token, 1 every token of non-zero probability
   * @param minTokensToKeep - integer ≥ 1
   * @throws RangeError on a value out of range
   */
  constructor(
    readonly topP: number,
    readonly minTokensToKeep = 1,
  ) {
    if (!(topP >= 0 && topP <= 1)) throw new RangeError(`topP must be in [0, 1], got ${topP}`);
    if (!Number.isInteger(minTokensToKeep) || minTokensToKeep < 1) throw new RangeError(`minTokensToKeep must be an integer ≥ 1, got ${minTokensToKeep}`);
  }

  /**
   * The nucleus of `probs`.
   *
   * @param probs - one row of non-negative probabilities (unnormalised is fine; 0 for excluded tokens): float32, as
   *   the sampling kernel gives them, or float64 (bucketed by their float32 rounding, which keeps their order)
   * @throws RangeError when a probability is NaN or none is positive
   */
  select(probs: Float32Array | Float64Array): Nucleus {
    const V = probs.length;
    let keys: Float32Array;
    if (probs instanceof Float32Array) keys = probs;
    else {
      if (this.keys.length < V) this.keys = new Float32Array(V);
      keys = this.keys.subarray(0, V);
      keys.set(probs);
    }
    const bits = new Uint32Array(keys.buffer, keys.byteOffset, V);
    const mass = this.mass;
    const count = this.count;
    // Counts are needed only to keep minTokensToKeep > 1 tokens: with 1, the crossing bucket always holds one.
    const counting = this.minTokensToKeep > 1;
    let z = 0;
    if (counting) {
      for (let i = 0; i < V; i++) {
        const x = probs[i];
        const b = bits[i] >>> BUCKET_SHIFT;
        z += x;
        mass[b] += x;
        count[b]++;
      }
    } else {
      for (let i = 0; i < V; i++) {
        const x = probs[i];
        z += x;
        mass[bits[i] >>> BUCKET_SHIFT] += x;
      }
    }
    if (!(z > 0 && z < Infinity)) {
      this.clear(0, BUCKETS - 1);
      throw new RangeError(z !== z ? 'a probability is NaN (NaN logits?)' : z > 0 ? 'the probabilities sum to infinity' : 'every token has probability 0');
    }
    const limit = (1 - this.topP) * z;
    const minKeep = Math.min(this.minTokensToKeep, V);
    // Walk up from the least probable bucket to the one where the cumulative sum crosses the limit. Buckets of zero
    // mass (empty, or holding only probabilities 0) are always below it: their tokens are removed.
    let cumBelow = 0;
    let removedBelow = 0;
    let crossing = -1;
    let lowest = BUCKETS;
    let highest = -1;
    for (let b = 0; b < BUCKETS; b++) {
      const m = mass[b];
      if (m === 0 && !(counting && count[b] > 0)) continue;
      if (lowest === BUCKETS) lowest = b;
      highest = b;
      if (crossing < 0) {
        if (cumBelow + m > limit) crossing = b;
        else {
          cumBelow += m;
          if (counting) removedBelow += count[b];
        }
      }
    }
    let keptAboveMass = 0;
    for (let b = crossing + 1; crossing >= 0 && b <= highest; b++) keptAboveMass += mass[b];
    let n = 0;
    let maxRemoved: number;
    if (this.candidates.length < V) this.candidates = new Float64Array(V);
    const cand = this.candidates;
    if (crossing >= 0 && (!counting || V - removedBelow >= minKeep)) {
      for (let i = 0; i < V; i++) if (bits[i] >>> BUCKET_SHIFT === crossing) cand[n++] = probs[i];
      maxRemoved = counting ? Math.min(n - 1, V - removedBelow - minKeep) : n - 1;
    } else {
      // The limit is never exceeded (topP = 0, rounding) or minTokensToKeep reaches below: walk everything.
      cumBelow = 0;
      keptAboveMass = 0;
      for (let i = 0; i < V; i++) cand[n++] = probs[i];
      maxRemoved = V - minKeep;
    }
    this.clear(lowest, highest);
    const sorted = cand.subarray(0, n).sort();
    let cum = cumBelow;
    let removed = 0;
    while (removed < maxRemoved) {
      cum += sorted[removed];
      if (cum > limit) break;
      removed++;
    }
    const t = sorted[removed];
    let first = removed;
    while (first > 0 && sorted[first - 1] === t) first--; // ties with the threshold are kept
    let keptSum = keptAboveMass;
    for (let j = first; j < n; j++) keptSum += sorted[j];
    return { threshold: t > 0 ? t : Number.MIN_VALUE, keptSum };
  }

  private clear(from: number, to: number): void {
    if (to < from) return;
    this.mass.fill(0, from, to + 1);
    this.count.fill(0, from, to + 1);
  }
}
