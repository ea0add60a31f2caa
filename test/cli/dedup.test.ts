import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PLAN_CLUSTER_TEXTS } from '../helpers/reflections';

const root = resolve(__dirname, '../..');
const model = join(root, 'fixtures', 'models', 'reflect-roberta-tiny');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const TEXTS = [...PLAN_CLUSTER_TEXTS.slice(0, 5), 'Yeah.'];

describe('reflect-eval dedup', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-dedup-'));
  const file = join(dir, 'grid.dialogues.jsonl');
  const line = (id: string) =>
    JSON.stringify({
      id,
      context: [{ speaker: 'client', text: 'I have a plan.' }],
      reference: { text: 'You have a plan.' },
      candidates: TEXTS.map((text, i) => ({ id: `${id}-${i}`, text, origin: { kind: 'model', model: 'm' }, annotations: [], scores: {}, note: 'kept' })),
      extra: { kept: true },
    });
  writeFileSync(file, [line('a'), line('b')].join('\n') + '\n');

  it('clusters, marks representatives and a seeded sample, keeps unknown fields, prints a summary', () => {
    const out = join(dir, 'out.dialogues.jsonl');
    const r = cli('dedup', file, '--model', model, '--threshold', '0.5', '--sample', '2', '--seed', '3', '-o', out);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /^item\s+candidates\s+clusters\s+sampled/m);
    assert.match(r.stdout, /mean size of a sampled cluster: \d\.\d\d/);
    const items = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    for (const it of items) {
      assert.deepEqual(it.extra, { kept: true });
      const cs = it.candidates;
      assert.ok(cs.every((c: { note: string; cluster: unknown }) => c.note === 'kept' && c.cluster));
      assert.equal(cs[1].cluster.representative, true);
      assert.equal(cs[0].cluster.id, cs[1].cluster.id);
      const sampled = new Set(cs.filter((c: { cluster: { sampled: boolean } }) => c.cluster.sampled).map((c: { cluster: { id: string } }) => c.cluster.id));
      assert.equal(sampled.size, 2);
      assert.match(cs[0].cluster.signature, /t:0\.5\|rep:most-tokens\|k:2\|seed:3/);
    }
    assert.equal(readFileSync(file, 'utf8').includes('cluster'), false, 'the input file is untouched with -o');
  });

  it('rejects a bad option and names a missing model folder', () => {
    assert.notEqual(cli('dedup', file, '--threshold', '-1').code, 0);
    const r = cli('dedup', file, '--model', join(dir, 'no-such-model'));
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /no-such-model does not exist/);
  });
});
