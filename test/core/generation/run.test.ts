import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { importAnnoMI, parseAnnoMI } from '../../../src/core/datasets/annomi';
import type { GeneratedCandidate } from '../../../src/core/generation/candidates';
import { generatorHandle, type GeneratorEnvironment } from '../../../src/core/generation/createGenerator';
import { samplingSeed } from '../../../src/core/generation/localGenerator';
import { applyGenerated, runGeneration, type RunProgress } from '../../../src/core/generation/run';
import { resolveGenerationRun } from '../../../src/core/generation/runConfig';
import { candidateOrigins, type DialogueItem } from '../../../src/core/dialogue/types';

const root = resolve(__dirname, '../../..');
const env: GeneratorEnvironment = {
  models: { bundledDir: resolve(root, 'fixtures/models'), baseDir: root },
  baseDir: root,
  promptRoots: [resolve(root, 'prompts')],
  apiKey: async () => ({ missing: 'no key in tests' }),
};
const csv = resolve(root, 'data/annomi/AnnoMI-sample.csv');
const contexts = (n: number): DialogueItem[] => importAnnoMI(parseAnnoMI(readFileSync(csv, 'utf8'), 'AnnoMI-sample.csv'), { sample: n, seed: '11' });
const MODELS = ['bundled:reflect-gpt2-tiny', 'bundled:reflect-bart-tiny'];

describe('generation runs on the bundled fixtures (GEM 2022 grid, engine)', function () {
  this.timeout(300_000);
  const gem = (seed: number, models = MODELS) => resolveGenerationRun({ generators: models.map((model) => ({ backend: 'local' as const, model })), preset: 'gem2022', maxNewTokens: 6, seed });
  const run = async (items: DialogueItem[], seed: number, options: { signal?: AbortSignal; onProgress?: (p: RunProgress) => void } = {}, models = MODELS) => {
    const r = gem(seed, models);
    return runGeneration(items, r.generators.map((g) => generatorHandle(g, env)), r.settings, r, options);
  };

  it('records 26 origins per model per context (strategy, every parameter, seed, beam rank / sample index), duplicates once', async () => {
    const items = contexts(2);
    const progress: RunProgress[] = [];
    const res = await run(items, 3, { onProgress: (p) => progress.push(p) });
    assert.deepEqual(progress.map((p) => [p.contextsDone, p.contextsTotal, p.generator]), [[1, 4, MODELS[0]], [2, 4, MODELS[0]], [3, 4, MODELS[1]], [4, 4, MODELS[1]]]);
    assert.ok(progress.every((p) => p.tokensPerSecond > 0));
    const { items: updated } = applyGenerated(items, res.generated);
    for (const item of updated) {
      const texts = item.candidates.map((c) => c.text);
      assert.equal(new Set(texts).size, texts.length, 'each text once');
      for (const model of MODELS) {
        const origins = item.candidates.flatMap(candidateOrigins).filter((o) => o.model === model);
        assert.equal(origins.length, 26);
        const beams = origins.filter((o) => o.decoding?.strategy === 'beamSearch');
        assert.deepEqual(beams.map((o) => o.decoding?.beamRank).sort(), [0, 1, 2, 3, 4]);
        assert.ok(beams.every((o) => o.decoding?.numBeams === 5 && typeof o.decoding.beamScore === 'number'));
        const seeds = new Set<number | undefined>();
        for (const p of [0.4, 0.6, 0.8, 0.95]) {
          const samples = origins.filter((o) => o.decoding?.topP === p);
          assert.deepEqual(samples.map((o) => o.decoding?.sampleIndex).sort(), [0, 1, 2, 3, 4]);
          // Each (context, p) has its own seed, derived from the run's seed 3: independent draws across p and contexts.
          const spec = gem(3).settings.find((s) => s.topP === p)!;
          const seed = samplingSeed(3, item.id, spec);
          assert.ok(samples.every((o) => o.decoding?.seed === seed && o.decoding.strategy === 'nucleusSampling' && o.decoding.temperature === 1 && o.decoding.topK === 0));
          seeds.add(seed);
        }
        assert.equal(seeds.size, 4, 'one seed per p');
        assert.ok(origins.every((o) => o.kind === 'model' && o.decoding?.maxNewTokens === 6 && o.decoding.maxContextTokens === 384 && o.decoding.behaviour === 'reflection'));
      }
    }
  });

  it('the same seed and settings give identical candidates on a second run (nothing to add); another seed gives other samples', async () => {
    const items = contexts(1);
    const first = applyGenerated(items, (await run(items, 42)).generated).items;
    const second = await run(items, 42);
    const again = applyGenerated(first, second.generated);
    assert.deepEqual([again.counts.added, again.counts.duplicates, again.counts.itemsChanged], [0, 0, 0]);
    assert.equal(again.counts.unchanged, 2 * 26);
    assert.ok(again.items.every((it, i) => it === first[i]), 'items are untouched');
    const sampled = (gen: Map<string, GeneratedCandidate[]>) =>
      [...gen.values()].flat().filter((g) => g.origin.decoding?.strategy === 'nucleusSampling').map((g) => g.text);
    const other = await run(items, 43);
    assert.notDeepEqual(sampled(other.generated), sampled(second.generated), 'a different seed draws different samples');
  });

  it('cancellation keeps the contexts finished before it and drops the one in progress', async () => {
    const items = contexts(3);
    const abort = new AbortController();
    const res = await run(
      items,
      1,
      {
        signal: abort.signal,
        onProgress: (p) => {
          if (p.contextsDone === 1) abort.abort();
        },
      },
      [MODELS[1]],
    );
    assert.deepEqual(res.failures, []);
    assert.equal(res.cancelled, true);
    assert.equal(res.contextsDone, 1);
    assert.deepEqual([...res.generated.keys()], [items[0].id]);
    assert.equal(res.generated.get(items[0].id)!.length, 26);
  });

  it('a model folder that lacks a file is reported and the other generators still run', async () => {
    const items = contexts(1);
    const r = resolveGenerationRun({ generators: [{ backend: 'local', model: 'fixtures' }, { backend: 'local' }], preset: 'greedy', maxNewTokens: 4 });
    const res = await runGeneration(items, r.generators.map((g) => generatorHandle(g, env)), r.settings, r);
    assert.equal(res.loadErrors.length, 1);
    assert.match(res.loadErrors[0].message, /fixtures.*(config\.json|ONNX)/);
    assert.equal(res.generated.get(items[0].id)!.length, 1);
  });
});
