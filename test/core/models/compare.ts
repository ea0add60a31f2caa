/** Helpers shared by the model tests that compare two ways of computing the same thing. */
import assert from 'node:assert/strict';
import { decode } from '../../../src/core/decoding/engine';
import type { GenerativeLM } from '../../../src/core/models/languageModel';

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

/** Asserts that `a` and `b` decode `prompt` to the same tokens under greedy, beam-4 and nucleus × 5 (12 new tokens). */
export async function assertSameTokens(a: GenerativeLM, b: GenerativeLM, prompt: number[]): Promise<void> {
  for (const config of [
    { strategy: 'greedy' as const },
    { strategy: 'beamSearch' as const, numBeams: 4, numReturnSequences: 4 },
    { strategy: 'nucleusSampling' as const, topP: 0.9, numReturnSequences: 5, seed: 3 },
  ]) {
    const x = await decode(a, [prompt], { ...config, maxNewTokens: 12 });
    const y = await decode(b, [prompt], { ...config, maxNewTokens: 12 });
    assert.deepEqual(
      x[0].map((s) => s.tokenIds),
      y[0].map((s) => s.tokenIds),
      config.strategy,
    );
  }
}
