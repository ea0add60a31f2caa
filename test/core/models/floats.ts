/** Float helpers shared by the model tests. */
import assert from 'node:assert/strict';

/** Deterministic values in [−0.5, 0.5) (a linear congruential stream from `seed`). */
export function values(n: number, seed: number): Float32Array {
  const out = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    out[i] = s / 0x7fffffff - 0.5;
  }
  return out;
}

/** The largest absolute difference between two arrays of equal length. */
export function worstDifference(a: Float32Array, b: Float32Array): number {
  assert.equal(a.length, b.length);
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}
