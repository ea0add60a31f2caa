import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';

const root = resolve(__dirname, '../..');
const table = join(root, 'data', 'annotations', 'synthetic-annotations.csv');
const python = JSON.parse(readFileSync(join(root, 'test', 'core', 'agreement', 'fixtures', 'python-reference.json'), 'utf8'));

const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-12, `${a} vs ${b}`);

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('reflect-eval import/export annotations, agreement', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-annotations-'));
  const jsonl = join(dir, 'study.dialogues.jsonl');

  it('imports the synthetic table and exports it back unchanged', () => {
    const r = cli('import', 'annotations', table, '-o', jsonl, '--reference');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /read 1080 rows of .*synthetic-annotations\.csv: 24 contexts, 180 responses, 18 annotators \(9 experts, 9 laypeople\)/);
    assert.match(r.stderr, /kept extra column\(s\): batch \(per item\), seconds_spent \(per annotation\)/);
    const items = readFileSync(jsonl, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(items.length, 24);
    assert.ok(items.every((i) => typeof i.reference?.text === 'string' && i.candidates.some((c: { id: string; text: string }) => c.id === 'ref' && c.text === i.reference.text)));
    const csv = join(dir, 'back.csv');
    const e = cli('export', 'annotations', jsonl, '-o', csv);
    assert.equal(e.code, 0, e.stderr);
    assert.equal(readFileSync(csv, 'utf8'), readFileSync(table, 'utf8'));
  });

  it('prints the kappa table, per-group coherence and the per-strategy tables; --json and --csv carry the same numbers', () => {
    const text = cli('agreement', jsonl);
    assert.equal(text.code, 0, text.stderr);
    const k = python.full.agreement;
    const line = text.stdout.split('\n').find((l) => l.trim().startsWith('Coherent & consistent?'))!;
    assert.deepEqual(line.trim().split(/\s{2,}/), ['Coherent & consistent?', k.all.rows.coherence.kappa.toFixed(3), '180', k.laypeople.rows.coherence.kappa.toFixed(3), '180', k.experts.rows.coherence.kappa.toFixed(3), '180']);
    assert.match(text.stdout, /Coherence rate per decoding strategy/);
    assert.match(text.stdout, /GPT-2\s+72\s+64\s+23\s+41\s+8\s+35\.9%/);

    const out = join(dir, 'analysis.csv');
    const json = cli('agreement', jsonl, '--json', '--csv', out);
    assert.equal(json.code, 0, json.stderr);
    const a = JSON.parse(json.stdout);
    assert.equal(a.schema, 'reflect-eval/first-study@1');
    close(a.agreement[2].rows[0].kappa, k.experts.rows.coherence.kappa);
    const rows: Record<string, string>[] = parse(readFileSync(out, 'utf8'), { columns: true });
    const cell = (t: string, g: string, r: string, c: string) => rows.find((x) => x.table === t && x.group === g && x.row === r && x.column === c)?.value;
    close(Number(cell('agreement', 'laypeople', 'Most evident error (M)', 'kappa')), k.laypeople.rows.mostEvidentErrorMerged.kappa);
    close(Number(cell('coherence-rate', 'all', 'GPT-3', 'rate')), python.full.coherenceRates['GPT-3'].rate);
    assert.equal(cell('error-distribution', 'all', 'GPT-2', 'Hallucinatory (count)'), String(python.full.errorDistribution['GPT-2'].counts.hallucinatory));
  });

  it('reads an annotation table directly, and honours --expert-prefix and --majority-group', () => {
    const r = cli('agreement', table, '--json', '--expert-prefix', 'Layperson', '--majority-group', 'experts');
    assert.equal(r.code, 0, r.stderr);
    const a = JSON.parse(r.stdout);
    // with the prefix swapped, the groups swap
    assert.equal(a.agreement[1].group, 'laypeople');
    close(a.agreement[1].rows[0].kappa, python.full.agreement.experts.rows.coherence.kappa);
    assert.equal(a.options.majorityGroup, 'experts');
  });

  it('fails with the file, line and column of each bad row, writing nothing', () => {
    const bad = join(root, 'test', 'core', 'datasets', 'fixtures', 'bad-rows.csv');
    const out = join(dir, 'bad.dialogues.jsonl');
    const r = cli('import', 'annotations', bad, '-o', out);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /7 problems in bad-rows\.csv:\nbad-rows\.csv:2: column "coherent_and_context_consistent": expected Yes or No, got "maybe"/);
    assert.match(r.stderr, /bad-rows\.csv:9: row 8: has 6 field\(s\), the header has 12/);
    assert.throws(() => readFileSync(out));
  });
});
