import assert from 'node:assert/strict';
import { addGeneratedCandidates, sameOrigin } from '../../../src/core/generation/candidates';
import { PRESETS, resolveGenerationRun, sequencesPerContext, validateGenerationConfig } from '../../../src/core/generation/runConfig';
import { candidateOrigins, type CandidateOrigin, type DialogueItem } from '../../../src/core/dialogue/types';

const FILE = '/tmp/gen.json';
const local = { backend: 'local' };

function rejects(config: unknown, field: string, message: RegExp): void {
  assert.throws(
    () => validateGenerationConfig(config, FILE),
    (err: Error & { field?: string }) => {
      assert.equal(err.name, 'ConfigError');
      assert.equal(err.field, field);
      assert.ok(err.message.startsWith(`${FILE}: ${field}: `), err.message);
      assert.match(err.message, message);
      return true;
    },
  );
}

describe('generation run config', () => {
  it('the GEM 2022 grid preset is greedy + 5-beam keeping all 5 + nucleus p ∈ {0.4, 0.6, 0.8, 0.95} × 5: 26 sequences per context', () => {
    const specs = PRESETS.gem2022.settings;
    assert.equal(specs.reduce((n, s) => n + sequencesPerContext(s), 0), 26);
    assert.deepEqual(specs.map((s) => s.strategy), ['greedy', 'beamSearch', 'nucleusSampling', 'nucleusSampling', 'nucleusSampling', 'nucleusSampling']);
    assert.deepEqual(specs.filter((s) => s.strategy === 'nucleusSampling').map((s) => s.topP), [0.4, 0.6, 0.8, 0.95]);
    assert.deepEqual(specs[1], { strategy: 'beamSearch', numBeams: 5, numReturnSequences: 5 });
  });

  it('resolves defaults: preset settings first, then custom ones; maxNewTokens per setting; seed 0; 384-token window', () => {
    const run = resolveGenerationRun(
      validateGenerationConfig({ generators: [local], preset: 'greedy', settings: [{ strategy: 'nucleusSampling', topP: 0.9, temperature: 0.7, numReturnSequences: 3, maxNewTokens: 12 }], maxNewTokens: 40 }, FILE),
    );
    assert.deepEqual(run.settings, [
      { strategy: 'greedy', maxNewTokens: 40 },
      { strategy: 'nucleusSampling', topP: 0.9, temperature: 0.7, numReturnSequences: 3, maxNewTokens: 12 },
    ]);
    assert.equal(run.seed, 0);
    assert.equal(run.behaviour, 'reflection');
    assert.equal(run.maxContextTokens, 384);
  });

  it('names the file and field of every mistake', () => {
    rejects([], '(root)', /JSON object/);
    rejects({ preset: 'gem2022' }, 'generators', /non-empty array/);
    rejects({ generators: [local] }, 'settings', /preset/);
    rejects({ generators: [local], preset: 'gem2023' }, 'preset', /"greedy", "gem2022"/);
    rejects({ generators: [local], preset: 'greedy', seeds: 3 }, 'seeds', /unknown field/);
    rejects({ generators: [{ backend: 'onnx' }], preset: 'greedy' }, 'generators[0].backend', /"local"/);
    rejects({ generators: [{ backend: 'openai-chat', model: 'gpt-4o-mini' }], preset: 'greedy' }, 'generators[0].baseURL', /required/);
    rejects({ generators: [{ backend: 'openai-chat', baseURL: 'https://x/v1' }], preset: 'greedy' }, 'generators[0].model', /required/);
    rejects({ generators: [{ backend: 'openai-chat', model: 'm', baseURL: 'https://x/v1', apiKey: 'sk-1' }], preset: 'greedy' }, 'generators[0].apiKey', /apiKeyEnv/);
    rejects({ generators: [{ backend: 'local', baseURL: 'https://x/v1' }], preset: 'greedy' }, 'generators[0].baseURL', /API generators only/);
    rejects({ generators: [local], settings: [{ strategy: 'topP' }] }, 'settings[0].strategy', /nucleusSampling/);
    rejects({ generators: [local], settings: [{ strategy: 'nucleusSampling', top_p: 0.9 }] }, 'settings[0].top_p', /unknown field.*topP/);
    rejects({ generators: [local], settings: [{ strategy: 'nucleusSampling', topP: 0 }] }, 'settings[0].topP', /\(0, 1\]/);
    rejects({ generators: [local], settings: [{ strategy: 'nucleusSampling', topP: 0.5, temperature: 0 }] }, 'settings[0].temperature', /> 0/);
    rejects({ generators: [local], settings: [{ strategy: 'beamSearch', numBeams: 5, numReturnSequences: 6 }] }, 'settings[0].numReturnSequences', /\[1, numBeams = 5\]/);
    rejects({ generators: [local], settings: [{ strategy: 'beamSearch' }] }, 'settings[0].numBeams', /integer/);
    rejects({ generators: [local], settings: [{ strategy: 'greedy', topP: 0.9 }] }, 'settings[0].topP', /nucleusSampling only/);
    rejects({ generators: [local], settings: [{ strategy: 'beamSearch', numBeams: 2, earlyStopping: 'sometimes' }] }, 'settings[0].earlyStopping', /"never"/);
    rejects({ generators: [local], preset: 'greedy', seed: -1 }, 'seed', /integer ≥ 0/);
  });
});

describe('exact duplicates kept once with all their origins', () => {
  const origin = (sampleIndex: number, topP = 0.8, createdAt = '2026-01-01T00:00:00.000Z'): CandidateOrigin => ({
    kind: 'model',
    model: 'bundled:reflect-gpt2-tiny',
    decoding: { strategy: 'nucleusSampling', topP, seed: 0, sampleIndex },
    createdAt,
  });
  const item = (): DialogueItem => ({
    id: 'x',
    context: [{ speaker: 'client', text: 'I feel stuck.' }],
    candidates: [{ id: 'ref', text: 'You feel stuck.', origin: { kind: 'human' }, annotations: [{ annotator: 'A', coherent: true }], scores: {} }],
  });

  it('adds new texts as candidates and lists further origins of a text already present', () => {
    const before = item();
    const r = addGeneratedCandidates(before, [
      { text: 'So you are stuck.', origin: origin(0) },
      { text: 'You feel stuck.', origin: origin(1) },
      { text: 'So you are stuck.', origin: origin(2) },
      { text: 'So you are stuck.', origin: origin(0, 0.95) },
    ]);
    assert.deepEqual([r.added, r.duplicates, r.unchanged], [1, 3, 0]);
    assert.equal(before.candidates.length, 1, 'the input is untouched');
    const [ref, g1] = r.item.candidates;
    assert.equal(g1.id, 'g1');
    assert.deepEqual(candidateOrigins(g1).map((o) => [o.decoding?.topP, o.decoding?.sampleIndex]), [[0.8, 0], [0.8, 2], [0.95, 0]]);
    assert.deepEqual(ref.duplicateOrigins?.map((o) => o.decoding?.sampleIndex), [1]);
    assert.deepEqual(ref.annotations, [{ annotator: 'A', coherent: true }], 'labels stay');
  });

  it('a second run with the same origins (other timestamps) changes nothing', () => {
    const gen = [
      { text: 'So you are stuck.', origin: origin(0) },
      { text: 'So you are stuck.', origin: origin(1) },
    ];
    const once = addGeneratedCandidates(item(), gen).item;
    const again = addGeneratedCandidates(once, gen.map((g) => ({ ...g, origin: { ...g.origin, createdAt: '2027-05-05T00:00:00.000Z' } })));
    assert.equal(again.item, once);
    assert.deepEqual([again.added, again.duplicates, again.unchanged], [0, 0, 2]);
    assert.ok(sameOrigin(origin(0), origin(0, 0.8, 'later')));
    assert.ok(!sameOrigin(origin(0), origin(1)));
  });

  it('gives fresh ids around ids already taken', () => {
    const it = item();
    it.candidates.push({ id: 'g1', text: 'taken', origin: { kind: 'model' }, annotations: [], scores: {} });
    const r = addGeneratedCandidates(it, [{ text: 'new one', origin: origin(0) }]);
    assert.equal(r.item.candidates[2].id, 'g2');
  });
});
