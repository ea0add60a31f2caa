/**
 * The top-p nucleus of a row of probabilities (NucleusSelector), onnxruntime's softmax of a batch (SoftmaxKernel)
 * and the draw from a nucleus (sampleFromProbabilities): each against a definition written out naively here.
 */
import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import { sampleFromProbabilities } from '../../../src/core/decoding/samplers';
import { SoftmaxKernel } from '../../../src/core/decoding/softmaxKernel';
import { NucleusSelector } from '../../../src/core/decoding/topP';

/**
 * HF's TopPLogitsWarper on probabilities, restated naively: sort ascending, sum cumulatively (float64), remove while
 * the sum is ≤ (1 − p) × Σ, keep the last `minKeep`; every token equal to the first kept one is kept too.
 */
function naiveNucleus(p: ArrayLike<number>, topP: number, minKeep = 1): number[] {
  const ids = Array.from({ length: p.length }, (_, i) => i).sort((a, b) => p[a] - p[b]);
  let z = 0;
  for (let i = 0; i < p.length; i++) z += p[i];
  let cum = 0;
  let t = 0;
  for (let j = 0; j < ids.length; j++) {
    cum += p[ids[j]];
    if (cum > (1 - topP) * z || j >= ids.length - minKeep) {
      t = p[ids[j]];
      break;
    }
  }
  return ids.filter((i) => p[i] >= t && p[i] > 0).sort((a, b) => a - b);
}

function kept(p: ArrayLike<number>, threshold: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < p.length; i++) if (p[i] >= threshold) out.push(i);
  return out;
}

/** A row of float32 probabilities: `kind` 0 random, 1 peaked, 2 flat with ties, 3 with zeros. */
function row(rng: () => number, V: number, kind: number): Float32Array {
  const p = new Float32Array(V);
  for (let i = 0; i < V; i++) {
    if (kind === 0) p[i] = rng();
    else if (kind === 1) p[i] = Math.exp(-20 * rng());
    else if (kind === 2) p[i] = 1 + Math.round(rng() * 8) / 64;
    else p[i] = rng() < 0.3 ? 0 : rng() ** 4;
  }
  if (!p.some((x) => x > 0)) p[0] = 1;
  return p;
}

describe('top-p on probabilities (NucleusSelector)', () => {
  it('keeps exactly the naive nucleus on random, peaked, flat-with-ties and zero-holding rows', () => {
    const rng = seedrandom.alea('nucleus selector');
    let cases = 0;
    for (let trial = 0; trial < 400; trial++) {
      const V = [1, 2, 3, 17, 300, 5000][trial % 6];
      const kind = Math.floor(trial / 6) % 4;
      const p = row(rng, V, kind);
      const topP = [0, 0.1, 0.4, 0.6, 0.8, 0.95, 0.999, 1][trial % 8];
      const minKeep = trial % 9 === 0 ? 3 : 1;
      const { threshold, keptSum } = new NucleusSelector(topP, minKeep).select(p);
      const want = naiveNucleus(p, topP, minKeep);
      assert.deepEqual(kept(p, threshold), want, `trial ${trial}: V ${V}, kind ${kind}, p ${topP}, minKeep ${minKeep}`);
      const sum = want.reduce((s, i) => s + p[i], 0);
      assert.ok(Math.abs(keptSum - sum) <= 1e-12 * sum, `trial ${trial}: kept sum ${keptSum} vs ${sum}`);
      cases++;
    }
    assert.equal(cases, 400);
  });

  it('keeps the naive nucleus at a 50,265-token vocabulary, flat as a random-weight model gives it', () => {
    const rng = seedrandom.alea('nucleus selector large');
    const selector = new NucleusSelector(0.95);
    for (let trial = 0; trial < 6; trial++) {
      const p = new Float32Array(50265).map(() => Math.exp((rng() + rng() + rng() - 1.5) * [0.5, 2, 6][trial % 3]));
      assert.deepEqual(kept(p, selector.select(p).threshold), naiveNucleus(p, 0.95), `trial ${trial}`);
    }
  });

  it('does not depend on the row being normalised, nor on float32 or float64 storage of the same values', () => {
    const rng = seedrandom.alea('nucleus scale');
    for (let trial = 0; trial < 40; trial++) {
      const p = row(rng, 200, trial % 4);
      const selector = new NucleusSelector([0.3, 0.9][trial % 2]);
      const a = selector.select(p);
      const b = selector.select(p.map((x) => x * 2 ** -20)); // a power of two: every product exact
      const c = selector.select(Float64Array.from(p));
      assert.equal(b.threshold, a.threshold * 2 ** -20);
      assert.equal(b.keptSum, a.keptSum * 2 ** -20);
      assert.equal(c.threshold, a.threshold);
      assert.equal(c.keptSum, a.keptSum);
    }
  });

  it('reuses its buffers: a row selected after others gives what a fresh selector gives', () => {
    const rng = seedrandom.alea('nucleus reuse');
    const shared = new NucleusSelector(0.8);
    for (let trial = 0; trial < 50; trial++) {
      const p = row(rng, [10, 1000, 4000][trial % 3], trial % 4);
      assert.deepEqual(shared.select(p), new NucleusSelector(0.8).select(p), `trial ${trial}`);
    }
  });

  it('refuses a NaN, a row without a positive probability and settings out of range', () => {
    const s = new NucleusSelector(0.9);
    assert.throws(() => s.select(Float32Array.from([0.5, NaN, 0.2])), /NaN/);
    assert.throws(() => s.select(new Float32Array(4)), /every token has probability 0/);
    const after = Float32Array.from([0.2, 0.7]);
    assert.deepEqual(kept(after, s.select(after).threshold), [0, 1], 'the selector still works after an error');
    assert.throws(() => new NucleusSelector(1.5), /topP must be in \[0, 1\]/);
    assert.throws(() => new NucleusSelector(0.5, 0), /minTokensToKeep/);
  });
});

describe('sampleFromProbabilities', () => {
  it('inverts the cumulative kept probability in index order, never drawing a token below the threshold or of probability 0', () => {
    const p = Float32Array.from([0.25, 0, 0.125, 0.5, 0.125]);
    // threshold 0.2: tokens 0 and 3 (0.75 in all)
    assert.equal(sampleFromProbabilities(p, 0.2, 0.75, 0), 0);
    assert.equal(sampleFromProbabilities(p, 0.2, 0.75, 0.3333), 0);
    assert.equal(sampleFromProbabilities(p, 0.2, 0.75, 0.3334), 3);
    assert.equal(sampleFromProbabilities(p, 0.2, 0.75, 0.999999), 3);
    // every token of non-zero probability
    assert.equal(sampleFromProbabilities(p, Number.MIN_VALUE, 1, 0.26), 2);
    assert.equal(sampleFromProbabilities(p, Number.MIN_VALUE, 1, 0.875), 4);
    assert.equal(sampleFromProbabilities(p, Number.MIN_VALUE, 1.5, 0.99), 4, 'a sum too large ends on the last token kept');
    assert.throws(() => sampleFromProbabilities(p, 0.6, 0, 0.5), /no probability reaches/);
  });

  it('draws each token of a nucleus with its renormalised probability (20,000 draws)', () => {
    const p = Float32Array.from([0.05, 0.3, 0.02, 0.4, 0.23]);
    const { threshold, keptSum } = new NucleusSelector(0.9).select(p); // keeps 0.4, 0.3, 0.23
    const u = seedrandom.alea('draws');
    const counts = new Array<number>(p.length).fill(0);
    const N = 20000;
    for (let i = 0; i < N; i++) counts[sampleFromProbabilities(p, threshold, keptSum, u())]++;
    assert.deepEqual([counts[0], counts[2]], [0, 0]);
    for (const i of [1, 3, 4]) {
      const prob = p[i] / keptSum;
      assert.ok(Math.abs(counts[i] / N - prob) < 4 * Math.sqrt((prob * (1 - prob)) / N), `token ${i}: ${counts[i] / N} vs ${prob}`);
    }
  });
});

describe('SoftmaxKernel (onnxruntime, float32)', () => {
  it('gives each row its softmax to float32 precision, 0 for −∞, and the same numbers alone as in a batch', async () => {
    const kernel = await SoftmaxKernel.get();
    const rng = seedrandom.alea('softmax kernel');
    const V = 5000;
    const rows = 5;
    const scores = new Float32Array(rows * V).map(() => (rng() - 0.5) * 20);
    for (let i = 0; i < V; i += 7) scores[2 * V + i] = -Infinity;
    const probs = (await kernel.run(scores.slice(), rows, V)).slice();
    for (let r = 0; r < rows; r++) {
      const s = scores.subarray(r * V, (r + 1) * V);
      let max = -Infinity;
      for (const x of s) max = Math.max(max, x);
      let z = 0;
      for (const x of s) z += Math.exp(x - max);
      for (let i = 0; i < V; i++) {
        const want = Math.exp(s[i] - max) / z;
        const got = probs[r * V + i];
        if (s[i] === -Infinity) assert.equal(got, 0);
        else assert.ok(Math.abs(got - want) <= 2e-6 * want + 1e-30, `row ${r} token ${i}: ${got} vs ${want}`);
      }
      const alone = await kernel.run(scores.slice(r * V, (r + 1) * V), 1, V);
      assert.deepEqual(alone, probs.subarray(r * V, (r + 1) * V), `row ${r} alone`);
    }
  });
});
