/**
 * Nucleus sampling: properties (torch's generator cannot be reproduced, so there is no token-level reference),
 * checked on the bundled GPT-2 fixture and on its PyTorch-recorded distributions.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decode } from '../../../src/core/decoding/engine';
import { TopPLogitsWarper } from '../../../src/core/decoding/logitsProcess';
import { sampleCategorical, sampleStream } from '../../../src/core/decoding/samplers';
import type { StepScoresEvent } from '../../../src/core/decoding/sequences';
import { OnnxCausalLM } from '../../../src/core/models/causalLM';
import { loadCausalLM } from '../../helpers/models';

const folder = resolve(__dirname, '../../../fixtures/models/reflect-gpt2-tiny');
const parity = JSON.parse(readFileSync(join(folder, 'parity.json'), 'utf8')) as {
  cases: { promptIds: number[]; distributions: { logitsF32: string }[] }[];
};
const prompts = parity.cases.map((c) => c.promptIds);
const recorded = parity.cases.flatMap((c) =>
  c.distributions.map((d) => {
    const buf = Buffer.from(d.logitsF32, 'base64');
    return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
  }),
);

/**
 * The nucleus as HF's TopPLogitsWarper defines it, written independently of the engine: token ids sorted by
 * logit ascending, softmax, cumulative sum; ids whose cumulative probability is ≤ 1 − p are removed, the most
 * probable one always kept.
 */
function referenceNucleus(logits: ArrayLike<number>, p: number): Set<number> {
  const ids = Array.from({ length: logits.length }, (_, i) => i).sort((a, b) => logits[a] - logits[b]);
  const max = Math.max(...Array.from(logits));
  const e = ids.map((i) => Math.exp(logits[i] - max));
  const z = e.reduce((s, x) => s + x, 0);
  const keep = new Set<number>();
  let cum = 0;
  ids.forEach((id, j) => {
    cum += e[j] / z;
    if (cum > 1 - p || j === ids.length - 1) keep.add(id);
  });
  return keep;
}

describe('nucleus sampling (bundled GPT-2 fixture)', () => {
  let model: OnnxCausalLM;
  before(async () => {
    model = await loadCausalLM(folder);
  });
  after(async () => model?.dispose());

  it('TopPLogitsWarper keeps exactly the HF nucleus of every recorded PyTorch distribution', () => {
    for (const logits of recorded) {
      for (const p of [0, 0.4, 0.6, 0.8, 0.95, 1]) {
        const got = new TopPLogitsWarper(p).nucleus(logits);
        const want = [...referenceNucleus(logits, p)].sort((a, b) => a - b);
        assert.deepEqual(got, want, `p = ${p}`);
      }
    }
  });

  it('draws tokens with their softmax probabilities (inversion on a recorded distribution, 12 000 draws)', () => {
    const logits = recorded[0];
    const warper = new TopPLogitsWarper(0.8);
    const scores = logits.slice();
    warper.apply([], scores);
    const kept = warper.nucleus(logits);
    const max = Math.max(...kept.map((i) => logits[i]));
    const z = kept.reduce((s, i) => s + Math.exp(logits[i] - max), 0);
    const counts = new Map<number, number>();
    const u = sampleStream(7, 0);
    const N = 12000;
    for (let i = 0; i < N; i++) {
      const t = sampleCategorical(scores, u());
      counts.set(t, (counts.get(t) ?? 0) + 1);
    }
    for (const t of counts.keys()) assert.ok(kept.includes(t), `token ${t} outside the nucleus`);
    for (const i of kept) {
      const prob = Math.exp(logits[i] - max) / z;
      const freq = (counts.get(i) ?? 0) / N;
      assert.ok(Math.abs(freq - prob) < 4 * Math.sqrt((prob * (1 - prob)) / N) + 1e-3, `token ${i}: frequency ${freq} vs probability ${prob}`);
    }
  });

  it('draws the same samples with the softmax in onnxruntime as with the whole processor list in JavaScript', async () => {
    // The kernel path: onnxruntime's float32 softmax, NucleusSelector, inversion. The JavaScript path: every processor
    // (TopPLogitsWarper included), then sampleCategorical on float64 exponentials. Their probabilities differ in the
    // 7th digit, so a draw could differ only when its uniform number falls that close to a boundary.
    for (const config of [
      { strategy: 'nucleusSampling' as const, topP: 0.4, numReturnSequences: 5, seed: 8, maxNewTokens: 20 },
      { strategy: 'nucleusSampling' as const, topP: 0.95, numReturnSequences: 5, seed: 9, maxNewTokens: 20 },
      { strategy: 'nucleusSampling' as const, topP: 1, temperature: 1.3, topK: 40, numReturnSequences: 3, seed: 10, maxNewTokens: 20 },
    ]) {
      const kernel = await decode(model, prompts, config);
      const js = await decode(model, prompts, config, { noKernel: true });
      assert.deepEqual(kernel.map((s) => s.map((q) => q.tokenIds)), js.map((s) => s.map((q) => q.tokenIds)), `p = ${config.topP}`);
    }
  });

  it('refuses NaN logits with and without top-p, on both paths, instead of drawing from them', async () => {
    const broken = {
      ...model,
      vocabSize: model.vocabSize,
      startDecoding: async (...args: Parameters<typeof model.startDecoding>) => {
        const started = await model.startDecoding(...args);
        started.logits.fill(NaN);
        return started;
      },
    } as unknown as OnnxCausalLM;
    for (const topP of [0.9, 1]) {
      for (const noKernel of [false, true]) {
        await assert.rejects(decode(broken, [prompts[0]], { strategy: 'nucleusSampling', topP, numReturnSequences: 2, seed: 1, maxNewTokens: 3 }, { noKernel }), /NaN|probability 0/, `p = ${topP}, noKernel ${noKernel}`);
      }
    }
  });

  it('p → 0 gives the greedy sequence for every sample', async () => {
    const greedy = await decode(model, prompts, { strategy: 'greedy', maxNewTokens: 20 });
    for (const topP of [0, 1e-9]) {
      const sampled = await decode(model, prompts, { strategy: 'nucleusSampling', topP, numReturnSequences: 3, seed: 11, maxNewTokens: 20 });
      sampled.forEach((samples, i) => samples.forEach((s) => assert.deepEqual(s.tokenIds, greedy[i][0].tokenIds, `prompt ${i}, p = ${topP}`)));
    }
  });

  it('puts every sampled token inside the top-p set of its step (raw logits seen through the debug hook)', async () => {
    for (const topP of [0.4, 0.95]) {
      const events: StepScoresEvent[] = [];
      await decode(model, prompts, { strategy: 'nucleusSampling', topP, numReturnSequences: 5, seed: 3, maxNewTokens: 16 }, { onStepScores: (e) => events.push(e) });
      assert.ok(events.length > 50);
      for (const e of events) assert.ok(referenceNucleus(e.logits, topP).has(e.token), `p = ${topP}, prompt ${e.prompt} sample ${e.sequence} step ${e.step}: token ${e.token}`);
      if (topP === 0.95) assert.ok(events.some((e) => e.token !== argmaxOf(e.logits)), 'p = 0.95 samples something other than the arg-max');
    }
  });

  it('gives the same samples for the same settings and seed, whatever the batch', async () => {
    const config = { strategy: 'nucleusSampling' as const, topP: 0.95, numReturnSequences: 5, seed: 42, maxNewTokens: 20 };
    const a = await decode(model, prompts, config);
    const b = await decode(model, prompts, config, { batchSize: 1 });
    const alone = await decode(model, [prompts[1]], config);
    assert.deepEqual(b.map((s) => s.map((q) => q.tokenIds)), a.map((s) => s.map((q) => q.tokenIds)));
    assert.deepEqual(alone[0].map((q) => q.tokenIds), a[1].map((q) => q.tokenIds));
    a[0].forEach((s, i) => assert.deepEqual(s.settings, { strategy: 'nucleusSampling', maxNewTokens: 20, topP: 0.95, topK: 0, temperature: 1, seed: 42, sampleIndex: i }));
  });

  it('gives different samples for different seeds, and different samples within a run', async () => {
    const config = { strategy: 'nucleusSampling' as const, topP: 0.95, numReturnSequences: 5, maxNewTokens: 20 };
    const s1 = await decode(model, prompts, { ...config, seed: 1 });
    const s2 = await decode(model, prompts, { ...config, seed: 2 });
    const texts = (r: typeof s1) => r.flatMap((s) => s.map((q) => q.tokenIds.join(' ')));
    assert.notDeepEqual(texts(s1), texts(s2));
    assert.ok(new Set(s1[0].map((q) => q.tokenIds.join(' '))).size > 1, 'the 5 samples of one prompt are not all equal');
  });

  it('composes temperature and top-k: topK = 1 is greedy at any temperature', async () => {
    const greedy = await decode(model, prompts, { strategy: 'greedy', maxNewTokens: 12 });
    const sampled = await decode(model, prompts, { strategy: 'nucleusSampling', topK: 1, temperature: 1.7, topP: 0.9, numReturnSequences: 2, seed: 5, maxNewTokens: 12 });
    sampled.forEach((samples, i) => samples.forEach((s) => assert.deepEqual(s.tokenIds, greedy[i][0].tokenIds)));
  });
});

function argmaxOf(a: Float32Array): number {
  let best = 0;
  for (let i = 1; i < a.length; i++) if (a[i] > a[best]) best = i;
  return best;
}
