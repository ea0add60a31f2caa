/**
 * Several sampling settings of one prompt decoded as one batch (decodeSettings, nucleusSamplingGroup): every
 * setting's sequences must be the ones it gives alone, on both bundled model families, and a run must record the
 * same candidates whether or not its generator decodes the settings together.
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import type { GenerationConfig } from '../../../src/core/decoding/generationConfig';
import { decode, decodeSettings, MAX_SAMPLING_GROUP_ROWS, SAMPLING_GROUP_CACHE_BYTES } from '../../../src/core/decoding/engine';
import { generationConfigOf, localCandidateGenerator } from '../../../src/core/generation/localGenerator';
import { runGeneration, type CandidateGenerator } from '../../../src/core/generation/run';
import { PRESETS } from '../../../src/core/generation/runConfig';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import type { GenerativeLM } from '../../../src/core/models/languageModel';
import type { OnnxCausalLM } from '../../../src/core/models/causalLM';
import { loadGenerativeModel } from '../../../src/core/models/registry';
import { fixtureLocator } from '../../helpers/models';

const models = resolve(__dirname, '../../../fixtures/models');

/** The model, with every `startDecoding` call's row count per prompt recorded (and, if given, its cache bytes per row replaced). */
function counting(model: GenerativeLM, rowBytes?: number): { model: GenerativeLM; expands: number[] } {
  const expands: number[] = [];
  const proxy = new Proxy(model, {
    get(target, key, receiver) {
      if (key === 'cacheBytesPerRow' && rowBytes !== undefined) return () => rowBytes;
      if (key === 'startDecoding') {
        return (prompts: number[][], options?: { expand?: number }) => {
          expands.push(options?.expand ?? 1);
          return target.startDecoding(prompts, options as never);
        };
      }
      const v = Reflect.get(target, key, receiver) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { model: proxy, expands };
}

/** The grid's settings plus settings that differ in every warper and processor (so a row given another row's processors or stream changes). */
function settings(maxNewTokens: number): GenerationConfig[] {
  return [
    ...PRESETS.gem2022.settings.map((s, i) => generationConfigOf({ ...s, maxNewTokens }, 100 + i)),
    { strategy: 'nucleusSampling', topP: 1, topK: 7, temperature: 1.7, numReturnSequences: 3, maxNewTokens, seed: 5 },
    { strategy: 'nucleusSampling', topP: 0.9, repetitionPenalty: 1.5, noRepeatNgramSize: 2, numReturnSequences: 2, maxNewTokens, seed: 5 },
    { strategy: 'nucleusSampling', topP: 0.9, numReturnSequences: 2, maxNewTokens: maxNewTokens - 3, seed: 6 },
  ];
}

for (const name of ['reflect-gpt2-tiny', 'reflect-bart-tiny']) {
  describe(`sampling settings decoded together (${name})`, () => {
    let model: GenerativeLM;
    before(async () => {
      model = await loadGenerativeModel(resolve(models, name), fixtureLocator);
    });
    after(async () => model?.dispose());

    if (name === 'reflect-gpt2-tiny') {
      it('counts as cache bytes per row what a prompt pass returns as its cache', async () => {
        const gpt2 = model as OnnxCausalLM;
        const n = 9;
        const out = await gpt2.forward(BigInt64Array.from(prompt.slice(0, n), BigInt), new BigInt64Array(n).fill(1n), BigInt64Array.from({ length: n }, (_, i) => BigInt(i)), 1, n, gpt2.emptyCache(1));
        let bytes = 0;
        for (const t of out.present.values()) bytes += (t.data as Float32Array).byteLength;
        assert.equal(gpt2.cacheBytesPerRow(n, 0), bytes);
        assert.equal(gpt2.cacheBytesPerRow(n, 5), (bytes / n) * (n + 5));
      });
    }

    const prompt = [464, 3290, 318, 257, 922, 1110, 290, 314, 588, 340, 13, 921, 910, 326];

    it('gives every setting the sequences it gives alone, in one batch per run of joinable settings', async () => {
      const configs = settings(14);
      const alone = [];
      for (const c of configs) alone.push((await decode(model, [prompt], c))[0]);
      const { model: m, expands } = counting(model);
      const together = await decodeSettings(m, prompt, configs);
      assert.deepEqual(together, alone);
      // greedy, beam, the grid's four p (20 rows: the cap), the next two (3 + 2 rows: the grid's batch is full),
      // then the one with fewer new tokens alone (settings that differ in maxNewTokens do not join).
      assert.deepEqual(expands, [1, 5, 20, 5, 2]);
      // The samples differ between settings (else a row given another setting's processors would go unnoticed).
      const texts = together.slice(2).map((seqs) => seqs.map((s) => s.tokenIds.join(' ')).join('|'));
      assert.equal(new Set(texts).size, texts.length);
    });

    it('decodes each setting alone with maxGroupRows 1, and the grid\'s 20 sampled rows as one batch by default', async () => {
      const grid = settings(10).slice(0, 6);
      const a = counting(model);
      const one = await decodeSettings(a.model, prompt, grid, { maxGroupRows: 1 });
      assert.deepEqual(a.expands, [1, 5, 5, 5, 5, 5]);
      const b = counting(model);
      assert.deepEqual(await decodeSettings(b.model, prompt, grid), one);
      assert.deepEqual(b.expands, [1, 5, 20]);
    });

    it('gives a batch fewer rows when the model says its rows hold more cache than SAMPLING_GROUP_CACHE_BYTES', async () => {
      const grid = settings(6).slice(0, 6);
      const alone = await decodeSettings(model, prompt, grid, { maxGroupRows: 1 });
      for (const [rowBytes, expands] of [
        [Math.floor(SAMPLING_GROUP_CACHE_BYTES / 11), [1, 5, 10, 10]],
        [Math.floor(SAMPLING_GROUP_CACHE_BYTES / 9), [1, 5, 5, 5, 5, 5]],
        [1, [1, 5, 20]],
      ] as const) {
        const c = counting(model, rowBytes);
        assert.deepEqual(await decodeSettings(c.model, prompt, grid), alone);
        assert.deepEqual(c.expands, expands, `${rowBytes} bytes a row`);
      }
      const bytes = model.cacheBytesPerRow?.(prompt.length, 6) ?? 0;
      assert.ok(bytes > 0 && bytes * MAX_SAMPLING_GROUP_ROWS < SAMPLING_GROUP_CACHE_BYTES, 'the fixture keeps the grid\'s 20 rows');
    });

    it('records the same candidates in a run whether the generator decodes the settings together or one at a time', async () => {
      const items: DialogueItem[] = ['a', 'b'].map((id, i) => ({
        id,
        context: [
          { speaker: 'client', text: i ? 'I keep meaning to cut down but the weekends get away from me.' : 'My doctor says my blood pressure is up again.' },
          { speaker: 'therapist', text: 'Tell me more.' },
          { speaker: 'client', text: 'I just do not know where to start.' },
        ],
        candidates: [],
      })) as unknown as DialogueItem[];
      const specs = PRESETS.gem2022.settings.map((s) => ({ ...s, maxNewTokens: 9 }));
      const run = { seed: 3, behaviour: 'reflection' as const, maxContextTokens: 64 };
      const now = () => new Date('2026-11-27T00:00:00Z');
      const together = localCandidateGenerator(model, { keepOpen: true });
      const { generateSettings: _unused, ...alone } = together;
      const failing: CandidateGenerator = { ...together, generateSettings: () => Promise.reject(new Error('boom')) };
      const logs: string[] = [];
      const results = [];
      for (const g of [together, alone as CandidateGenerator, failing]) {
        results.push(await runGeneration(items, [{ label: 'fixture', open: async () => g }], specs, run, { now, onLog: (m) => logs.push(m) }));
      }
      const [a, b, c] = results;
      assert.equal(a.generated.get('a')?.length, 26);
      assert.deepEqual(a.generated, b.generated);
      assert.deepEqual(c.generated, b.generated, 'a failed batch falls back to one setting at a time');
      assert.deepEqual([a.tokensGenerated, c.tokensGenerated], [b.tokensGenerated, b.tokensGenerated]);
      assert.deepEqual([a.failures, c.failures], [[], []]);
      assert.ok(logs.some((l) => /decoded together failed \(boom\); decoding them one at a time/.test(l)), logs.join('\n'));
    });
  });
}
