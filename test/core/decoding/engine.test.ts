/**
 * The engine's contract beyond parity: settings recorded per sequence, progress, cancellation, the cache
 * tiled instead of recomputed, and teacher forcing agreeing with a plain full forward pass.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { GenerationConfig } from '../../../src/core/decoding/generationConfig';
import { decode } from '../../../src/core/decoding/engine';
import type { DecodeProgress, GeneratedSequence } from '../../../src/core/decoding/sequences';
import { teacherForcing } from '../../../src/core/decoding/teacherForcing';
import { OnnxCausalLM } from '../../../src/core/models/causalLM';
import type { DecodingSession, GenerativeLM } from '../../../src/core/models/languageModel';
import { loadGenerativeModel } from '../../../src/core/models/registry';
import { fixtureLocator, loadCausalLM } from '../../helpers/models';

const models = resolve(__dirname, '../../../fixtures/models');
const folder = join(models, 'reflect-gpt2-tiny');
const prompts = (JSON.parse(readFileSync(join(folder, 'parity.json'), 'utf8')) as { cases: { promptIds: number[] }[] }).cases.map((c) => c.promptIds);

/**
 * Decodes `prompt` under each config twice over: on `reference`, with another prompt decoded before each config (so no
 * pass is reused), and on `model` in turn as a grid does (one context, every setting). Returns both, with the runs.
 */
async function gridTwice(model: GenerativeLM, reference: GenerativeLM, prompt: number[], other: number[], configs: GenerationConfig[]) {
  const expected: { out: GeneratedSequence[][]; runs: number }[] = [];
  for (const c of configs) {
    await decode(reference, [other], { strategy: 'greedy', maxNewTokens: 1 });
    const timer = { runMs: 0, runs: 0 };
    expected.push({ out: await decode(reference, [prompt], c, { timer }), runs: timer.runs });
  }
  await decode(model, [other], { strategy: 'greedy', maxNewTokens: 1 });
  const got: { out: GeneratedSequence[][]; runs: number }[] = [];
  for (const c of configs) {
    const timer = { runMs: 0, runs: 0 };
    got.push({ out: await decode(model, [prompt], c, { timer }), runs: timer.runs });
  }
  return { expected, got };
}

const GRID: GenerationConfig[] = [
  { strategy: 'greedy', maxNewTokens: 8 },
  { strategy: 'beamSearch', numBeams: 4, maxNewTokens: 6, earlyStopping: 'never' },
  // The same width as the beams: it starts from the cache the beams were tiled to (and must find it unchanged).
  { strategy: 'nucleusSampling', topP: 0.8, numReturnSequences: 4, seed: 3, maxNewTokens: 8 },
  { strategy: 'nucleusSampling', topP: 0.9, numReturnSequences: 3, seed: 7, maxNewTokens: 8 },
  { strategy: 'greedy', maxNewTokens: 8, repetitionPenalty: 1.3 },
];

describe('decoding engine (bundled GPT-2 fixture)', () => {
  let model: OnnxCausalLM;
  before(async () => {
    model = await loadCausalLM(folder);
  });
  after(async () => model?.dispose());

  it('releases every teacher-forcing session, one whose step fails too, so its buffers go back to the model', async () => {
    let released = 0;
    let failing = false;
    const wrapSession = (session: DecodingSession): DecodingSession =>
      new Proxy(session, {
        get(target, key) {
          if (key === 'extend' && failing) return async () => Promise.reject(new Error('step failed'));
          if (key === 'release') return () => (released++, target.release?.());
          const v = Reflect.get(target, key, target) as unknown;
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
    const wrapped = new Proxy(model, {
      get(target, key) {
        if (key === 'startDecoding') return async (...args: Parameters<OnnxCausalLM['startDecoding']>) => {
          const started = await target.startDecoding(...args);
          return { ...started, session: wrapSession(started.session) };
        };
        const v = Reflect.get(target, key, target) as unknown;
        return typeof v === 'function' ? v.bind(target) : v;
      },
    });
    // One continuation of one token (the prompt pass alone) and one of three (a step after it).
    await teacherForcing(wrapped, [{ promptIds: prompts[0], continuationIds: [5] }, { promptIds: prompts[0], continuationIds: [5, 6, 7] }]);
    assert.equal(released, 2);
    failing = true;
    await assert.rejects(teacherForcing(wrapped, [{ promptIds: prompts[1], continuationIds: [5, 6, 7] }]), /step failed/);
    assert.equal(released, 3, 'released after the failed step');
  });

  it('returns all k beams best first with their settings, or the best n', async () => {
    const [beams] = await decode(model, [prompts[0]], { strategy: 'beamSearch', numBeams: 4, maxNewTokens: 12 });
    assert.equal(beams.length, 4);
    beams.forEach((b, i) => {
      assert.equal(b.settings.beamRank, i);
      assert.equal(b.settings.beamScore, b.score);
      assert.deepEqual({ ...b.settings, beamRank: 0, beamScore: 0 }, { strategy: 'beamSearch', maxNewTokens: 12, numBeams: 4, lengthPenalty: 1, earlyStopping: false, beamRank: 0, beamScore: 0 });
      if (i > 0) assert.ok((b.score as number) <= (beams[i - 1].score as number));
    });
    const [two] = await decode(model, [prompts[0]], { strategy: 'beamSearch', numBeams: 4, numReturnSequences: 2, maxNewTokens: 12 });
    assert.deepEqual(two.map((b) => b.tokenIds), beams.slice(0, 2).map((b) => b.tokenIds));
  });

  it('encodes each prompt once and steps k beams as one batch (session.run count)', async () => {
    const timer = { runMs: 0, runs: 0 };
    const [beams] = await decode(model, [prompts[1]], { strategy: 'beamSearch', numBeams: 5, maxNewTokens: 6, earlyStopping: 'never' }, { timer });
    assert.equal(beams.length, 5);
    assert.equal(timer.runs, 6, 'one prompt pass + one pass per further step, whatever k');
    const t2 = { runMs: 0, runs: 0 };
    await decode(model, [prompts[1]], { strategy: 'nucleusSampling', numReturnSequences: 5, topP: 0.9, maxNewTokens: 6, seed: 1 }, { timer: t2 });
    assert.ok(t2.runs <= 6, `5 samples in ≤ 6 passes, got ${t2.runs}`);
  });

  it('starts each further setting of one prompt from the pass already made: one pass fewer, the same sequences and scores', async () => {
    const reference = await loadCausalLM(folder);
    try {
      const { expected, got } = await gridTwice(model, reference, prompts[2], prompts[0], GRID);
      assert.deepEqual(got.map((g) => g.out), expected.map((e) => e.out));
      assert.equal(got[0].runs, expected[0].runs, 'the first setting makes the prompt pass');
      got.slice(1).forEach((g, i) => assert.equal(g.runs, expected[i + 1].runs - 1, `setting ${i + 1}: no prompt pass`));
      // Asked not to, it makes the pass again.
      const timer = { runMs: 0, runs: 0 };
      const again = await decode(model, [prompts[2]], GRID[1], { timer, reusePromptPass: false });
      assert.deepEqual(again, expected[1].out);
      assert.equal(timer.runs, expected[1].runs);
    } finally {
      await reference.dispose();
    }
  });

  it('reports progress after every step and stops on abort, keeping what was decoded', async () => {
    const seen: DecodeProgress[] = [];
    const out = await decode(model, prompts, { strategy: 'greedy', maxNewTokens: 10 }, { onProgress: (p) => seen.push(p) });
    assert.ok(seen.length >= 1);
    assert.equal(seen.at(-1)!.promptsDone, prompts.length);
    assert.equal(seen.at(-1)!.promptsTotal, prompts.length);
    assert.ok(seen.every((p, i) => i === 0 || p.tokensGenerated >= seen[i - 1].tokensGenerated));
    const produced = out.reduce((s, q) => s + q[0].tokenIds.length + (q[0].endedWithEos ? 1 : 0), 0);
    assert.equal(seen.at(-1)!.tokensGenerated, produced);

    const ctl = new AbortController();
    const partial = await decode(model, [prompts[0]], { strategy: 'nucleusSampling', numReturnSequences: 3, topP: 0.95, maxNewTokens: 40, seed: 9 }, {
      signal: ctl.signal,
      onProgress: (p) => {
        if (p.tokensGenerated >= 6) ctl.abort();
      },
    });
    assert.equal(partial[0].length, 3);
    assert.ok(partial[0].some((s) => s.finishReason === 'aborted'));
    assert.ok(partial[0].every((s) => s.tokenIds.length <= 2));
    const beam = new AbortController();
    const beams = await decode(model, [prompts[0]], { strategy: 'beamSearch', numBeams: 3, maxNewTokens: 40 }, { signal: beam.signal, onProgress: () => beam.abort() });
    assert.ok(beams[0].length >= 1 && beams[0].length <= 3);
  });

  it('rejects prompts that cannot be decoded, naming the problem', async () => {
    await assert.rejects(() => decode(model, [[]], { strategy: 'greedy' }), /prompt 0 is empty/);
    await assert.rejects(() => decode(model, [[1, 99999]], { strategy: 'greedy' }), /outside \[0, 9094\)/);
    await assert.rejects(() => decode(model, [new Array(1000).fill(5)], { strategy: 'greedy', maxNewTokens: 128 }), /exceeds the model's 1024 positions/);
  });

  it('teacher forcing equals a full forward pass without cache, for prompts shared or not', async () => {
    const reqs = [
      { promptIds: prompts[0], continuationIds: [1364, 11, 345] },
      { promptIds: prompts[0], continuationIds: [9093] },
      { promptIds: prompts[1], continuationIds: [314, 588, 13, 9093] },
      { promptIds: prompts[1], continuationIds: [] },
    ];
    const got = await teacherForcing(model, reqs, { maxRows: 1 });
    for (const [i, r] of reqs.entries()) {
      const ids = [...r.promptIds, ...r.continuationIds];
      const out = await model.forward(BigInt64Array.from(ids, BigInt), new BigInt64Array(ids.length).fill(1n), BigInt64Array.from(ids.map((_, t) => BigInt(t))), 1, ids.length, model.emptyCache(1));
      r.continuationIds.forEach((tok, j) => {
        const row = out.logits.subarray((r.promptIds.length + j - 1) * out.vocab, (r.promptIds.length + j) * out.vocab);
        const max = Math.max(...row);
        const lse = max + Math.log(row.reduce((s, x) => s + Math.exp(x - max), 0));
        assert.ok(Math.abs(got[i].tokenLogProbs[j] - (row[tok] - lse)) < 1e-4, `request ${i} token ${j}`);
      });
      assert.equal(got[i].tokenLogProbs.length, r.continuationIds.length);
    }
    assert.equal(got[3].sumLogProb, 0);
  });
});

describe('decoding engine (encoder-decoder layout fixture)', () => {
  it('starts each further setting of one input from the encoder pass and first step already made, with the same results', async () => {
    const dir = join(models, 'layouts', 'bart-split');
    const [bart, reference] = [await loadGenerativeModel(dir, fixtureLocator), await loadGenerativeModel(dir, fixtureLocator)];
    try {
      const enc = (JSON.parse(readFileSync(join(dir, 'parity.json'), 'utf8')) as { cases: { promptIds: number[] }[] }).cases.map((c) => c.promptIds);
      const { expected, got } = await gridTwice(bart, reference, enc[1], enc[0], GRID);
      assert.deepEqual(got.map((g) => g.out), expected.map((e) => e.out));
      // The encoder pass and the first decoder step: two runs fewer from the second setting on.
      got.slice(1).forEach((g, i) => assert.equal(g.runs, expected[i + 1].runs - 2, `setting ${i + 1}`));
    } finally {
      await bart.dispose();
      await reference.dispose();
    }
  });

  it('batches encoder inputs of different lengths (right padding) exactly as one by one, for every strategy', async () => {
    const bart = await loadGenerativeModel(join(models, 'layouts', 'bart-split'), fixtureLocator);
    try {
      const enc = (JSON.parse(readFileSync(join(models, 'layouts', 'bart-split', 'parity.json'), 'utf8')) as { cases: { promptIds: number[] }[] }).cases.map((c) => c.promptIds);
      const inputs = [enc[0], enc[0].slice(0, 7), ...enc.slice(1)];
      for (const config of [
        { strategy: 'greedy' as const, maxNewTokens: 10 },
        { strategy: 'beamSearch' as const, numBeams: 3, maxNewTokens: 10 },
        { strategy: 'nucleusSampling' as const, topP: 0.9, numReturnSequences: 3, seed: 4, maxNewTokens: 10 },
      ]) {
        const together = await decode(bart, inputs, config);
        const alone = await decode(bart, inputs, config, { batchSize: 1 });
        assert.deepEqual(together.map((s) => s.map((q) => q.tokenIds)), alone.map((s) => s.map((q) => q.tokenIds)), config.strategy);
        assert.ok(together.every((s) => s.every((q) => q.tokenIds[0] !== bart.specialTokens.forcedBosTokenId || q.tokenIds.length === 0)), 'forced BOS stripped');
      }
    } finally {
      await bart.dispose();
    }
  });
});
