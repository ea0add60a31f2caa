import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { meteor } from '../../src/core/metrics/meteor';
import { nltkSentenceBleu } from '../../src/core/metrics/bleu4';
import { rougeL } from '../../src/core/metrics/rougeL';
import { itemsLackingReference, metricRuns } from '../../src/core/metrics/runSpec';
import type { DialogueItem } from '../../src/core/dialogue/types';
import { getMetric } from '../../src/core/metrics';

const root = resolve(__dirname, '../..');
const sample = join(root, 'data', 'annomi', 'AnnoMI-sample.csv');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('metricRuns: metrics and configurations from user input', () => {
  it('defaults, keyed configurations, lists of configurations and a single metric\'s fields', () => {
    assert.deepEqual(metricRuns(undefined, undefined).map((r) => r.metric.name), ['bleu4', 'rougeL', 'meteor']);
    const runs = metricRuns(undefined, { bleu4: [{ smoothing: 'none' }, { smoothing: 'method1', tokenizer: '13a' }], meteor: { mode: 'string' } });
    assert.deepEqual(runs.map((r) => [r.metric.name, r.config.smoothing ?? r.config.mode]), [['bleu4', 'none'], ['bleu4', 'method1'], ['meteor', 'string']]);
    assert.equal(runs[1].config.epsilon, 0.1);
    assert.deepEqual(metricRuns(['bleu4'], { smoothing: 'method3' }).map((r) => r.config.smoothing), ['method3']);
    assert.deepEqual(metricRuns(['rougeL', 'sacrebleu'], { sacrebleu: { lowercase: true } }).map((r) => r.metric.name), ['rougeL', 'sacrebleu']);
  });

  it('counts the items a reference-based run cannot score, and none when no run needs a reference', () => {
    const items = [{ id: 'a', reference: { text: 'x' } }, { id: 'b' }, { id: 'c' }] as unknown as DialogueItem[];
    assert.equal(itemsLackingReference(items, metricRuns(['rougeL'], undefined)), 2);
    assert.equal(itemsLackingReference(items, metricRuns(['followUpLikelihood'], undefined)), 0);
    assert.equal(itemsLackingReference(items.slice(0, 1), metricRuns(undefined, undefined)), 0);
  });

  it('errors name the source and the field', () => {
    assert.throws(() => metricRuns(undefined, { bleu4: [{}, { smoothing: 'method8' }] }, 'run.json'), /^Error: run\.json: bleu4\[1\]\.smoothing: must be one of none, method1/);
    assert.throws(() => metricRuns(['bleu4', 'meteor'], { smoothing: 'method1' }, '--config'), /--config: keys must be metric names/);
    assert.throws(() => metricRuns(['bleu4'], { meteor: {} }, '--config'), /--config: meteor: configured but not among the selected metrics \(bleu4\)/);
    assert.throws(() => metricRuns(['bleu5'], undefined), /unknown metric "bleu5"; registered: bleu4, sacrebleu, rougeL, meteor/);
    assert.throws(() => metricRuns(undefined, [1, 2], 'x.json'), /x\.json: expected a JSON object/);
  });
});

describe('reflect-eval score', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-score-'));
  const file = join(dir, 'items.dialogues.jsonl');

  before(() => {
    assert.equal(cli('import', 'annomi', sample, '--sample', '4', '--seed', '3', '-o', file).code, 0);
    // A model-like candidate next to the reference candidate, and a malformed line that must survive.
    const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    for (const it of lines) it.candidates.push({ id: 'm', text: 'So you feel like you want to change something.', origin: { kind: 'model' }, annotations: [], scores: {} });
    writeFileSync(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n{not json\n');
  });

  it('stores BLEU-4, ROUGE-L and METEOR under their evaluator ids, equal to the core functions, keeping the malformed line', () => {
    const r = cli('score', file);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /metric:bleu4\.score@impl:nltk-3\.8\|tok:whitespace\|smooth:none\|rv:0\.1\.0: 4 scored/); // the 4 reference candidates are left out
    const text = readFileSync(file, 'utf8');
    assert.ok(text.endsWith('{not json\n'));
    const items = text.trim().split('\n').slice(0, 4).map((l) => JSON.parse(l));
    for (const it of items) {
      const ref = it.reference.text as string;
      const m = it.candidates.find((c: { id: string }) => c.id === 'm');
      const ids = Object.keys(m.scores).sort();
      assert.deepEqual(ids.map((id) => id.split('@')[0]), ['metric:bleu4.score', 'metric:meteor.score', 'metric:rougeL.f', 'metric:rougeL.precision', 'metric:rougeL.recall']);
      const bleu = m.scores[ids[0]];
      assert.equal(bleu.status, 'ok');
      assert.equal(bleu.signature, ids[0].split('@')[1]);
      assert.equal(bleu.value, nltkSentenceBleu(ref.split(/\s+/).filter(Boolean), m.text.split(' '), getMetric('bleu4').configure({})));
      assert.equal(m.scores[ids[1]].value, meteor(ref, m.text, getMetric('meteor').configure({})));
      assert.equal(m.scores[ids[2]].value, rougeL(ref, m.text).f);
      // The reference candidate is identical to the reference: never scored against itself.
      const human = it.candidates.find((c: { origin: { kind: string } }) => c.origin.kind === 'human');
      assert.deepEqual([human.scores[ids[0]].value, human.scores[ids[0]].status, human.scores[ids[0]].reason], [null, 'error', 'is-reference']);
    }
    const again = cli('score', file, '--metric', 'bleu4');
    assert.match(again.stderr, /0 scored, 4 already scored/);
  });

  it('runs several configurations of one metric from --config, writing to -o', () => {
    const out = join(dir, 'out.dialogues.jsonl');
    const r = cli('score', file, '--metric', 'bleu4', '--config', '{"bleu4": [{"smoothing": "method1"}, {"smoothing": "method7", "tokenizer": "13a"}]}', '-o', out);
    assert.equal(r.code, 0, r.stderr);
    const item = JSON.parse(readFileSync(out, 'utf8').split('\n')[0]);
    const ids = Object.keys(item.candidates[0].scores);
    assert.ok(ids.includes('metric:bleu4.score@impl:nltk-3.8|tok:whitespace|smooth:method1[epsilon=0.1]|rv:0.1.0'));
    assert.ok(ids.includes('metric:bleu4.score@impl:nltk-3.8|tok:13a|smooth:method7[k=5]|rv:0.1.0'));
  });

  it('rejects a bad configuration naming the field, and leaves the file alone', () => {
    const before = readFileSync(file, 'utf8');
    const r = cli('score', file, '--metric', 'meteor', '--config', '{"alpha": 7}');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /--config: meteor\.alpha: must be a number in \[0, 1\]/);
    const cfg = join(dir, 'bad.json');
    writeFileSync(cfg, '{"bleu4": {"smoothing": "chen"}}');
    assert.match(cli('score', file, '--config', cfg).stderr, /bad\.json: bleu4\.smoothing: must be one of/);
    assert.equal(readFileSync(file, 'utf8'), before);
  });

  it('lists the registered metrics', () => {
    const r = cli('score', '--list');
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^meteor\tMETEOR \(NLTK\)\tscore\timpl:nltk-3\.8\|mode:tokens/m);
  });
});
