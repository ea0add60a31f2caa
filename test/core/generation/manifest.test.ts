/**
 * The generation manifest (src/core/generation/manifest.ts): every run of the generate job appends its record beside
 * the dialogue file, names API generators without their key or header values, and never overwrites a file that is
 * not a generation manifest.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runPipeline, runPlanOnFile } from '../../../src/core/jobs/file';
import { validatePipeline, validatePlan } from '../../../src/core/jobs/plans';
import { generationManifestFile, type GenerationManifest } from '../../../src/core/generation/manifest';
import { testJobHost } from '../../helpers/jobHost';
import { startStubOpenAI } from '../../helpers/stubOpenAI';

const root = resolve(__dirname, '../../..');
const sample = join(root, 'data/annomi/AnnoMI-sample.csv');

describe('generation manifest', function () {
  this.timeout(120_000);

  it('is named as the judge manifest is, beside the file', () => {
    assert.equal(generationManifestFile('/w/study.dialogues.jsonl'), '/w/study.generation-manifest.json');
    assert.equal(generationManifestFile('/w/study.jsonl'), '/w/study.generation-manifest.json');
    assert.equal(generationManifestFile('/w/a.b.DIALOGUES.JSONL'), '/w/a.b.generation-manifest.json');
  });

  it('gets one record per run of the generate job, appended; manifest: false writes none', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genmanifest-'));
    const pipeline = validatePipeline(
      {
        file: 'study.dialogues.jsonl',
        steps: [
          { job: 'import', format: 'annomi', file: sample, sample: 2, seed: '0' },
          { job: 'generate', generators: [{ backend: 'local' }], preset: 'greedy', maxNewTokens: 4 },
        ],
      },
      'test',
    );
    await runPipeline(pipeline, testJobHost(dir));
    const file = join(dir, 'study.dialogues.jsonl');
    const path = join(dir, 'study.generation-manifest.json');
    const first = JSON.parse(readFileSync(path, 'utf8')) as GenerationManifest;
    assert.equal(first.file, 'study.dialogues.jsonl');
    assert.equal(first.runs.length, 1);
    const run = first.runs[0];
    assert.deepEqual(run.generators, [{ backend: 'local', model: 'bundled:reflect-gpt2-tiny' }]);
    assert.deepEqual(run.settings.map((s) => s.description), ['greedy']);
    assert.equal(run.settings[0].spec.maxNewTokens, 4);
    assert.equal(run.contextsDone, 2);
    assert.equal(run.contextsTotal, 2);
    assert.equal(run.added + run.duplicates + run.unchanged, 2, JSON.stringify(run));
    assert.ok(run.tokens > 0 && run.tokens <= 8);
    assert.equal(run.cancelled, false);
    assert.ok(!Number.isNaN(Date.parse(run.finishedAt)));

    // A second run adds nothing new (same seed, same candidates) but is a run all the same: its record is appended.
    await runPlanOnFile(validatePlan({ job: 'generate', generators: [{ backend: 'local' }], preset: 'greedy', maxNewTokens: 4 }, 'again') as never, file, testJobHost(dir));
    const second = JSON.parse(readFileSync(path, 'utf8')) as GenerationManifest;
    assert.equal(second.runs.length, 2);
    assert.deepEqual(second.runs[0], run);
    assert.equal(second.runs[1].added, 0);
    assert.equal(second.runs[1].unchanged, 2);

    const other = mkdtempSync(join(tmpdir(), 'genmanifest-off-'));
    await runPipeline({ ...pipeline, steps: [pipeline.steps[0], { ...pipeline.steps[1], manifest: false } as never] }, testJobHost(other));
    assert.equal(existsSync(join(other, 'study.generation-manifest.json')), false);
  });

  it('names an API generator by backend, model, endpoint and header names: no key, no key variable, no header value', async () => {
    const stub = await startStubOpenAI(() => ({ reply: 'So you want to cut down.' }));
    try {
      const dir = mkdtempSync(join(tmpdir(), 'genmanifest-api-'));
      const generator = { backend: 'openai-chat', model: 'stub-gen', baseURL: stub.baseURL, apiKeyEnv: 'MY_GEN_KEY', headers: { 'X-Team-Token': 'tok-secret-123' } };
      await runPipeline(
        validatePipeline({ file: 's.dialogues.jsonl', steps: [{ job: 'import', format: 'annomi', file: sample, sample: 1 }, { job: 'generate', generators: [generator], preset: 'greedy' }] }, 'test'),
        testJobHost(dir, { secret: async () => ({ key: 'sk-very-secret' }) }),
      );
      const text = readFileSync(join(dir, 's.generation-manifest.json'), 'utf8');
      assert.deepEqual((JSON.parse(text) as GenerationManifest).runs[0].generators, [{ backend: 'openai-chat', model: 'stub-gen', baseURL: stub.baseURL, headerNames: ['X-Team-Token'] }]);
      for (const secret of ['sk-very-secret', 'tok-secret-123', 'MY_GEN_KEY']) assert.ok(!text.includes(secret), `${secret} in the manifest`);
    } finally {
      await stub.close();
    }
  });

  it('leaves a file that is not a generation manifest as it is, and says so in the report', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'genmanifest-bad-'));
    await runPipeline(validatePipeline({ file: 'study.dialogues.jsonl', steps: [{ job: 'import', format: 'annomi', file: sample, sample: 1 }] }, 'test'), testJobHost(dir));
    const path = join(dir, 'study.generation-manifest.json');
    writeFileSync(path, '{"mine": true}\n');
    const report = await runPlanOnFile(validatePlan({ job: 'generate', generators: [{ backend: 'local' }], preset: 'greedy', maxNewTokens: 2 }, 'p') as never, join(dir, 'study.dialogues.jsonl'), testJobHost(dir));
    assert.equal(readFileSync(path, 'utf8'), '{"mine": true}\n');
    assert.ok(report.warnings.some((w) => w.includes(`${path}: runs: not a generation manifest`)), report.warnings.join('\n'));
    assert.throws(() => validatePlan({ job: 'generate', generators: [{ backend: 'local' }], manifest: 3 }, 'p.json'), /p\.json: manifest: must be true, false or a file path/);
  });
});
