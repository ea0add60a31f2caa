import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('reflect-eval score with bertscore and followUpLikelihood', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-neural-'));
  const file = join(dir, 'x.dialogues.jsonl');
  const item = (id: string, ref: string, texts: string[]) =>
    JSON.stringify({
      id,
      context: [{ speaker: 'client', text: 'I drink a bit too much on weekends.' }],
      reference: { text: ref },
      candidates: texts.map((text, i) => ({ id: `${id}-${i}`, text, origin: { kind: 'model' }, annotations: [], scores: {} })),
    });
  writeFileSync(file, [item('a', 'You drink more than you would like.', ['You drink too much.', 'Okay.']), item('b', 'It worries you.', ['You are worried.'])].join('\n') + '\n');

  it('lists both metrics with their default signatures', () => {
    const r = cli('score', '--list');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^bertscore\tBERTScore\tf1,precision,recall\timpl:bert_score-0\.3\.13\|model:roberta-large\|layer:17\|/m);
    assert.match(r.stdout, /^followUpLikelihood\tFollow-up likelihood\tgroup-full-default,/m);
  });

  it('stores BERTScore (idf from the file, rescaled) and follow-up likelihoods under their evaluator ids', () => {
    const model = join(root, 'fixtures', 'models', 'reflect-roberta-tiny');
    const config = JSON.stringify({
      bertscore: { model, layer: 2, idf: true, idfReferencesFile: file, rescaleWithBaseline: true, baselineFile: join(model, 'rescale_baseline.csv') },
      followUpLikelihood: { model: join(root, 'fixtures', 'models', 'layouts', 'bart-split') },
    });
    const out = join(dir, 'out.dialogues.jsonl');
    const r = cli('score', file, '--metric', 'bertscore', 'followUpLikelihood', '--config', config, '-o', out);
    assert.equal(r.code, 0, r.stderr);
    const items = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    const scores = items[0].candidates[0].scores as Record<string, { value: number; status: string }>;
    const f1 = Object.entries(scores).find(([k]) => k.startsWith('metric:bertscore.f1@'))!;
    assert.match(f1[0], /layer:2\|idf:refs3-[0-9a-f]{8}\|rescale:rescale_baseline\.csv-/);
    assert.equal(f1[1].status, 'ok');
    const fu = Object.entries(scores).filter(([k]) => k.startsWith('metric:followUpLikelihood.'));
    assert.equal(fu.length, 74);
    assert.ok(fu.every(([, s]) => s.status === 'ok' && s.value < 0));
  });
});
