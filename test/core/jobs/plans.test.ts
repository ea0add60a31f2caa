/**
 * Job plans: validation names the source and the field; a pipeline runs its steps on one file through a host.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { JobHost, JobReport } from '../../../src/core/jobs/host';
import { runPipeline, runPlanOnFile } from '../../../src/core/jobs/file';
import { validatePipeline, validatePlan } from '../../../src/core/jobs/plans';
import { MemorySink } from '../../../src/core/jobs/memorySink';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { testJobHost } from '../../helpers/jobHost';

const root = resolve(__dirname, '../../..');

/** A host as a program would build one, writing its log into an array. */
function testHost(baseDir: string, log: string[] = []): JobHost {
  return testJobHost(baseDir, { secret: async () => ({ missing: 'no keys in this test' }), log: (m) => log.push(m) });
}

describe('job plans', () => {
  it('validate by their job field and name the source and the field of a mistake', () => {
    assert.throws(() => validatePlan({ job: 'paint' }, 'p.json'), /p\.json: job: must be one of "import", "generate", "judge", "score", "dedup", "perplexity"/);
    assert.throws(() => validatePlan({ job: 'judge', judges: [{ backend: 'local', temperature: 1 }], bodies: ['instructions'], requests: ['rating'] }, 'p.json'), /p\.json: judges\[0\]\.temperature: applies to API judges only/);
    assert.throws(() => validatePlan({ job: 'judge', judges: [{ backend: 'local', modle: 'x' }], bodies: ['instructions'], requests: ['rating'] }, 'p.json'), /p\.json: judges\[0\]\.modle: unknown field/);
    assert.throws(() => validatePlan({ job: 'generate', generators: [{ backend: 'local' }], preset: 'greedy', cache: 3 }, 'p.json'), /p\.json: cache: must be true, false or a file path/);
    assert.throws(() => validatePlan({ job: 'score', metrics: ['bleu4'], config: { bleu4: { smoothing: 'x' } } }, 'p.json'), /p\.json: bleu4\.smoothing: must be one of/);
    assert.throws(() => validatePlan({ job: 'dedup', threshold: -1 }, 'p.json'), /p\.json: threshold: must be a finite number ≥ 0/);
    assert.throws(() => validatePlan({ job: 'import', format: 'annomi' }, 'p.json'), /p\.json: file: must name the file to import/);
  });

  it('are plain JSON: a validated plan serialises and validates again to the same object', () => {
    const plan = validatePlan({ job: 'judge', judges: [{ backend: 'openai-chat', baseURL: 'http://127.0.0.1:1/v1', model: 'm', apiKeyEnv: 'K', temperature: 0.5 }], bodies: ['instructions'], requests: ['rating', 'scoring'], concurrency: 2 }, 'p.json');
    assert.deepEqual(validatePlan(JSON.parse(JSON.stringify(plan)), 'again'), plan);
  });

  it('pipelines name the step of a mistake and allow an import only first', () => {
    assert.throws(() => validatePipeline({ file: 'x.jsonl', steps: [{ job: 'score', force: 'yes' }] }, 'demo.json'), /demo\.json: steps\[0\]\.force: must be true or false/);
    assert.throws(
      () => validatePipeline({ file: 'x.jsonl', steps: [{ job: 'score' }, { job: 'import', format: 'annomi', file: 'a.csv' }] }, 'demo.json'),
      /demo\.json: steps\[1\]\.job: an import step creates the file, so it can only be the first step/,
    );
  });
});

describe('running plans on files', function () {
  this.timeout(120_000);

  it('a pipeline imports, scores and judges one file; run again, it changes nothing and leaves the file untouched', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pipeline-'));
    writeFileSync(join(dir, 'run.json'), '{}');
    const pipeline = validatePipeline(
      {
        file: 'study.dialogues.jsonl',
        steps: [
          { job: 'import', format: 'annomi', file: join(root, 'data/annomi/AnnoMI-sample.csv'), sample: 2, seed: '0' },
          { job: 'generate', generators: [{ backend: 'local' }], preset: 'greedy', maxNewTokens: 4 },
          { job: 'score', metrics: ['bleu4', 'rougeL'] },
          { job: 'judge', judges: [{ backend: 'local' }], bodies: ['instructions'], requests: ['rating'] },
        ],
      },
      'test',
    );
    const first = await runPipeline(pipeline, testHost(dir));
    assert.deepEqual(first.map((r) => r.job), ['import', 'generate', 'score', 'judge']);
    assert.ok(first.every((r) => !r.nothingDone), JSON.stringify(first.map((r) => r.nothingDone)));
    const file = join(dir, 'study.dialogues.jsonl');
    const items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as DialogueItem);
    assert.equal(items.length, 2);
    for (const it of items) {
      assert.equal(it.candidates.length, 2, 'the reference and a greedy candidate');
      const ids = Object.keys(it.candidates[1].scores);
      assert.equal(ids.filter((id) => id.startsWith('metric:bleu4.score@')).length, 1);
      assert.equal(ids.filter((id) => id.startsWith('metric:rougeL.')).length, 3);
      assert.equal(ids.filter((id) => /^judge:local:bundled:reflect-gpt2-tiny:instructions×rating@[0-9a-f]{12}~[0-9a-f]{8}$/.test(id)).length, 1);
    }
    const manifest = JSON.parse(readFileSync(join(dir, 'study.judge-manifest.json'), 'utf8'));
    assert.deepEqual(manifest.prompts, ['bundled']);
    assert.equal(manifest.cache, join('.reflect-eval-cache', 'judge-cache.jsonl'));
    assert.match(manifest.evaluators[0].signature, /^backend:local\|model:bundled:reflect-gpt2-tiny\|answers:logprob\|fit:oldest-turns-first\|categories:yes-no@[0-9a-f]{8}\|rv:/);

    const before = readFileSync(file);
    const mtime = statSync(file).mtimeMs;
    const second = await runPipeline({ ...pipeline, steps: pipeline.steps.slice(2) }, testHost(dir));
    assert.deepEqual(second.map((r) => r.itemsChanged), [0, 0]);
    assert.match(second[0].lines[0], /0 scored, 2 already scored, 0 without a score, 2 left out as their item's reference/);
    assert.match(second[1].lines[0], /: 0 judgements, 0 calls, 0 from cache/);
    assert.deepEqual(readFileSync(file), before);
    assert.equal(statSync(file).mtimeMs, mtime, 'nothing changed, nothing written');
  });

  it('says why a job could do nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nothing-'));
    const file = join(dir, 'f.dialogues.jsonl');
    writeFileSync(file, JSON.stringify({ id: 'i', context: [{ speaker: 'client', text: 'hi' }], candidates: [{ id: 'c', text: 'hello', origin: { kind: 'model' }, annotations: [], scores: {} }] }) + '\n');
    const score: JobReport = await runPlanOnFile({ job: 'score', metrics: ['bleu4'] }, file, testHost(dir));
    assert.match(score.nothingDone ?? '', /no item has a reference/);
    const judge = await runPlanOnFile({ job: 'judge', judges: [{ backend: 'openai-chat', baseURL: 'http://127.0.0.1:9/v1', model: 'm' }], bodies: ['instructions'], requests: ['rating'] }, file, testHost(dir));
    assert.match(judge.nothingDone ?? '', /no judge could run \(judge openai-chat: m @ http:\/\/127\.0\.0\.1:9\/v1 did not run: no API key for the judge m at http:\/\/127\.0\.0\.1:9\/v1: no keys in this test\)/);
  });

  it('a memory sink applies updates to the item as it is now, by id, and counts what changed', async () => {
    const items = [{ id: 'a', context: [], candidates: [] }, { id: 'b', context: [], candidates: [] }] as DialogueItem[];
    const sink = new MemorySink([...items]);
    type Update = (it: DialogueItem) => DialogueItem | undefined;
    await sink.apply(new Map<string, Update>([['a', (it) => ({ ...it, note: 1 })], ['b', () => undefined], ['zz', (it) => it]]));
    assert.deepEqual([...sink.changed], ['a']);
    assert.equal((sink.items[0] as DialogueItem & { note: number }).note, 1);
    assert.equal(sink.items[1], items[1]);
  });
});
