import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import {
  buildLogitsProcessors,
  ForcedBOSTokenLogitsProcessor,
  ForcedEOSTokenLogitsProcessor,
  NoRepeatNGramLogitsProcessor,
  RepetitionPenaltyLogitsProcessor,
  TemperatureLogitsWarper,
  TopKLogitsWarper,
  TopPLogitsWarper,
} from '../../../src/core/decoding/logitsProcess';
import { argmax, logSoftmax, sampleCategorical } from '../../../src/core/decoding/samplers';
import { resolveGenerationConfig } from '../../../src/core/decoding/generationConfig';

const f32 = (xs: number[]) => Float32Array.from(xs);

/** HF TopPLogitsWarper restated naively: sort ascending, softmax, cumsum, remove ≤ 1 − p, keep the last minKeep. */
function naiveTopP(scores: ArrayLike<number>, p: number, minKeep = 1): Set<number> {
  const ids = Array.from({ length: scores.length }, (_, i) => i).sort((a, b) => scores[a] - scores[b]);
  const max = Math.max(...Array.from(scores));
  const e = ids.map((i) => Math.exp(scores[i] - max));
  const z = e.reduce((s, x) => s + x, 0);
  const keep = new Set<number>();
  let cum = 0;
  ids.forEach((id, j) => {
    cum += e[j] / z;
    if (cum > 1 - p || j >= ids.length - minKeep) keep.add(id);
  });
  return keep;
}

describe('logits processors (HF transformers 4.5x semantics)', () => {
  it('RepetitionPenalty multiplies negative and divides positive scores, once per distinct token', () => {
    const s = f32([2, -2, 1, 4]);
    new RepetitionPenaltyLogitsProcessor(2).apply([0, 1, 0, 0], s, 0);
    assert.deepEqual(Array.from(s), [1, -4, 1, 4]);
  });

  it('NoRepeatNGram bans the tokens that would repeat an n-gram of the sequence', () => {
    const p = new NoRepeatNGramLogitsProcessor(3);
    // Sequence 5 6 7 5 6: the 3-gram "5 6 7" exists, so after "5 6" the token 7 is banned.
    assert.deepEqual(p.bannedTokens([5, 6, 7, 5, 6]), [7]);
    assert.deepEqual(p.bannedTokens([5, 6]), []);
    assert.deepEqual(new NoRepeatNGramLogitsProcessor(1).bannedTokens([3, 4, 3]).sort(), [3, 3, 4].sort());
    const s = f32(new Array(10).fill(0));
    p.apply([5, 6, 7, 5, 6], s, 0);
    assert.equal(s[7], -Infinity);
    assert.equal(s.filter((x) => x === -Infinity).length, 1);
  });

  it('ForcedBOS forces the token after the decoder start only; ForcedEOS at the last allowed step only', () => {
    const s = f32([1, 2, 3]);
    new ForcedBOSTokenLogitsProcessor(0).apply([2, 9], s, 1);
    assert.deepEqual(Array.from(s), [1, 2, 3]);
    new ForcedBOSTokenLogitsProcessor(0).apply([2], s, 0);
    assert.deepEqual(Array.from(s), [0, -Infinity, -Infinity]);
    const t = f32([1, 2, 3]);
    new ForcedEOSTokenLogitsProcessor(5, [1]).apply([], t, 3);
    assert.deepEqual(Array.from(t), [1, 2, 3]);
    new ForcedEOSTokenLogitsProcessor(5, [1]).apply([], t, 4);
    assert.deepEqual(Array.from(t), [-Infinity, 0, -Infinity]);
  });

  it('Temperature divides; TopK keeps the k best and ties with the k-th', () => {
    const s = f32([1, 4, 2, 4, 3]);
    new TemperatureLogitsWarper(2).apply([], s, 0);
    assert.deepEqual(Array.from(s), [0.5, 2, 1, 2, 1.5]);
    const k = f32([1, 4, 2, 4, 3]);
    new TopKLogitsWarper(2).apply([], k, 0);
    assert.deepEqual(Array.from(k), [-Infinity, 4, -Infinity, 4, -Infinity]);
    const k3 = f32([1, 4, 3, 4, 3]);
    new TopKLogitsWarper(3).apply([], k3, 0);
    assert.deepEqual(Array.from(k3), [-Infinity, 4, 3, 4, 3]);
  });

  it('TopP keeps the smallest set reaching p (probabilities 0.5 0.3 0.15 0.03 0.02, p = 0.95 → 3 tokens)', () => {
    const s = f32([0.5, 0.3, 0.15, 0.03, 0.02].map(Math.log));
    assert.deepEqual(new TopPLogitsWarper(0.95).nucleus(s), [0, 1, 2]);
    assert.deepEqual(new TopPLogitsWarper(0.5).nucleus(s), [0]);
    assert.deepEqual(new TopPLogitsWarper(0.51).nucleus(s), [0, 1]);
    assert.deepEqual(new TopPLogitsWarper(0).nucleus(s), [0]);
    assert.deepEqual(new TopPLogitsWarper(1).nucleus(s), [0, 1, 2, 3, 4]);
    assert.deepEqual(new TopPLogitsWarper(0, 2).nucleus(s), [0, 1]);
  });

  it('TopP equals the naive full-sort definition on random, flat, spread-out and −∞-holding distributions', () => {
    const rng = seedrandom.alea('top-p');
    for (let trial = 0; trial < 300; trial++) {
      const V = 1 + Math.floor(rng() * 400);
      const spread = [0.01, 1, 5, 40, 200][trial % 5];
      const s = new Float32Array(V).map(() => (rng() - 0.5) * spread);
      if (trial % 7 === 0) for (let i = 0; i < V; i += 3) s[i] = -Infinity;
      if (trial % 11 === 0) s.fill(0.25);
      if (s.every((x) => x === -Infinity)) s[0] = 0;
      const p = [0, 0.1, 0.4, 0.6, 0.8, 0.95, 0.999, 1][trial % 8];
      const minKeep = trial % 13 === 0 ? 3 : 1;
      const got = new TopPLogitsWarper(p, minKeep).nucleus(s);
      const want = [...naiveTopP(s, p, minKeep)].sort((a, b) => a - b);
      if (trial % 11 === 0) assert.ok(got.length >= want.length, 'ties at the boundary are all kept');
      else assert.deepEqual(got, want, `trial ${trial}: V ${V}, spread ${spread}, p ${p}`);
    }
  });

  it('TopP equals the naive definition on a 50,257-token vocabulary with flat logits', () => {
    // Flat logits (a random-weight model's): most of the vocabulary lies within a few buckets of the crossing.
    const rng = seedrandom.alea('top-p large');
    for (let trial = 0; trial < 12; trial++) {
      const V = 50257;
      const spread = [0.5, 2, 5][trial % 3];
      const s = new Float32Array(V).map(() => (rng() + rng() + rng() - 1.5) * spread);
      if (trial % 4 === 3) for (let i = 0; i < V; i++) s[i] = Math.round(s[i] * 64) / 64; // many ties
      const p = [0.5, 0.9, 0.95, 0.99][trial % 4];
      const minKeep = trial % 5 === 0 ? 2 : 1;
      const got = new TopPLogitsWarper(p, minKeep).nucleus(s);
      const want = [...naiveTopP(s, p, minKeep)].sort((a, b) => a - b);
      if (trial % 4 === 3) assert.ok(got.length >= want.length && want.every((id) => got.includes(id)), 'ties at the boundary are all kept');
      else assert.deepEqual(got, want, `trial ${trial}: spread ${spread}, p ${p}`);
    }
  });

  it('builds processors in HF order, leaving out the ones that would do nothing', () => {
    const special = { eosTokenIds: [9], forcedBosTokenId: 0, forcedEosTokenId: 9 };
    const cfg = resolveGenerationConfig({ strategy: 'nucleusSampling', repetitionPenalty: 1.2, noRepeatNgramSize: 3, temperature: 0.7, topK: 50, topP: 0.9 }, special);
    assert.deepEqual(
      buildLogitsProcessors(cfg, true).processors.map((p) => p.constructor.name),
      ['RepetitionPenaltyLogitsProcessor', 'NoRepeatNGramLogitsProcessor', 'ForcedBOSTokenLogitsProcessor', 'ForcedEOSTokenLogitsProcessor', 'TemperatureLogitsWarper', 'TopKLogitsWarper', 'TopPLogitsWarper'],
    );
    const greedy = resolveGenerationConfig({ strategy: 'greedy', temperature: 0.7, topP: 0.9 }, { eosTokenIds: [9], forcedBosTokenId: null, forcedEosTokenId: null });
    assert.equal(buildLogitsProcessors(greedy, false).length, 0, 'warpers only when sampling');
  });

  it('rejects out-of-range settings, naming the field', () => {
    const special = { eosTokenIds: [9], forcedBosTokenId: null, forcedEosTokenId: null };
    assert.throws(() => resolveGenerationConfig({ strategy: 'nucleusSampling', topP: 1.5 }, special), /topP must be in \[0, 1\]/);
    assert.throws(() => resolveGenerationConfig({ strategy: 'beamSearch', numBeams: 3, numReturnSequences: 4 }, special), /numReturnSequences \(4\) must be ≤ numBeams \(3\)/);
    assert.throws(() => resolveGenerationConfig({ strategy: 'greedy', maxNewTokens: 0 }, special), /maxNewTokens/);
    assert.throws(() => resolveGenerationConfig({ strategy: 'nucleusSampling', temperature: 0 }, special), /temperature must be > 0/);
    assert.throws(() => resolveGenerationConfig({ strategy: 'topA' as 'greedy' }, special), /strategy must be/);
    const d = resolveGenerationConfig({ strategy: 'beamSearch' }, special);
    assert.deepEqual([d.maxNewTokens, d.numBeams, d.numReturnSequences, d.lengthPenalty, d.earlyStopping], [128, 5, 5, 1, false]);
  });
});

describe('samplers', () => {
  it('argmax takes the first of tied maxima, as torch.argmax', () => {
    assert.equal(argmax(f32([1, 3, 3, 2])), 1);
    assert.equal(argmax(f32([-Infinity, -Infinity, 0])), 2);
  });

  it('sampleCategorical inverts the cumulative distribution in index order and never draws −∞', () => {
    const s = f32([Math.log(0.25), -Infinity, Math.log(0.5), Math.log(0.25)]);
    assert.equal(sampleCategorical(s, 0), 0);
    assert.equal(sampleCategorical(s, 0.2499), 0);
    assert.equal(sampleCategorical(s, 0.2501), 2);
    assert.equal(sampleCategorical(s, 0.7501), 3);
    assert.equal(sampleCategorical(s, 0.999999999), 3);
    assert.throws(() => sampleCategorical(f32([-Infinity, -Infinity]), 0.5), /probability 0/);
  });

  it('logSoftmax sums to probability one', () => {
    const out = logSoftmax(f32([1, 2, 3, -5]), new Float64Array(4));
    assert.ok(Math.abs(out.reduce((s, x) => s + Math.exp(x), 0) - 1) < 1e-12);
  });
});
