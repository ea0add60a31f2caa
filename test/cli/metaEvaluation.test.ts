import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { evaluatorAltTest } from '../../src/core/metaEvaluation/altTest';
import { agreementTable } from '../../src/core/agreement/agreementTable';
import { leaveOneOutCeiling } from '../../src/core/correlation/ceiling';
import { itemsBy } from '../../src/core/dialogue/groupBy';
import type { DialogueItem } from '../../src/core/dialogue/types';

const root = resolve(__dirname, '../..');
const table = join(root, 'data', 'annotations', 'synthetic-annotations.csv');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('reflect-eval alt-test and the agreement meta-evaluation flags', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-meta-'));
  const file = join(dir, 'study.dialogues.jsonl');
  const judge = 'judge:local:stub:instructions×rating@000000000000';
  let items: DialogueItem[] = [];

  before(() => {
    const r = cli('import', 'annotations', table, '-o', file, '--reference');
    assert.equal(r.code, 0, r.stderr);
    // A judge that rates 1–5 close to the experts' majority, and a length-like metric.
    items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    for (const it of items) {
      for (const c of it.candidates) {
        const yes = c.annotations.filter((a) => a.group === 'expert' && a.coherent).length;
        c.scores[judge] = { value: Math.min(5, 1 + 2 * yes), status: 'ok' };
        c.scores['metric:bleu4.score@tok:whitespace'] = { value: c.text.split(/\s+/).length / 100, status: 'ok' };
      }
    }
    writeFileSync(file, items.map((i) => JSON.stringify(i)).join('\n') + '\n');
  });

  it('alt-test prints the per-annotator tests, the verdict and ρ, the same as the core; --json carries every number', () => {
    const r = cli('alt-test', file, '--evaluator', judge, '--group', 'experts', '--epsilon', '0.2', '--min-instances', '20');
    assert.equal(r.code, 0, r.stderr);
    const core = evaluatorAltTest(items, judge, { group: 'experts', epsilon: 0.2, minInstancesPerHuman: 20 });
    assert.match(r.stdout, new RegExp(`${core.result.passed ? 'PASSES' : 'FAILS'}: winning rate ω = ${(core.result.winningRate as number).toFixed(3)}`));
    assert.match(r.stdout, /Benjamini–Yekutieli/);
    const j = cli('alt-test', file, '--evaluator', judge, 'BLEU-4', '--json', '--min-instances', '20');
    assert.equal(j.code, 0, j.stderr);
    const out = JSON.parse(j.stdout);
    assert.equal(out.length, 2);
    assert.equal(out[0].result.winningRate, core.result.winningRate);
    assert.deepEqual(out[0].result.annotators.map((a: { pValue: number }) => a.pValue), core.result.annotators.map((a) => a.pValue));
    assert.equal(out[1].evaluatorId, 'metric:bleu4.score@tok:whitespace');
  });

  it('alt-test names a bad option and an unknown evaluator', () => {
    assert.match(cli('alt-test', file, '--evaluator', judge, '--epsilon', '1.5').stderr, /epsilon must be in \[0, 1\)/);
    const r = cli('alt-test', file, '--evaluator', 'no-such-evaluator');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /no evaluator "no-such-evaluator"/);
  });

  it('agreement --by stage --coefficients: per-stage kappas as Table 4 on each stage, as CSV', () => {
    const r = cli('agreement', file, '--by', 'stage', '--coefficients', '--format', 'csv');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /=== stage = GPT-2 stage \(\d+ responses\) ===/);
    assert.match(r.stdout, /=== stage = GPT-3 stage/);
    const csvPart = r.stdout.slice(r.stdout.indexOf('table,label'));
    const rows: string[][] = parse(csvPart, { relax_column_count: true });
    for (const p of itemsBy(items, 'stage')) {
      const expected = agreementTable(p.items, { group: 'experts' }).rows[0].kappa as number;
      const row = rows.find((x) => x[0].startsWith('Agreement coefficients — experts') && x[0].endsWith(`stage = ${p.key}`) && x[1] === 'Coherent & consistent?');
      assert.ok(row, p.key);
      assert.ok(Math.abs(Number(row[3]) - expected) < 1e-12, `${row[3]} vs ${expected}`);
    }
  });

  it('agreement --ceiling, --length-bias and --vs-majority print their tables', () => {
    const r = cli('agreement', file, '--ceiling', '--length-bias', '--vs-majority', '3', '--evaluator', judge, 'BLEU-4', '--bootstrap', '50');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Expert vs rest of experts \(ceiling\)/);
    assert.match(r.stdout, /Length bias against the experts' coherence score \(length in whitespace tokens/);
    assert.match(r.stdout, /against the majority label of the experts \(score ≥ 3 → coherent; positive class: incoherent\)/);
    assert.match(r.stdout, /50 resamples of the dialogue items \(seed 1\)/);
    for (const line of r.stdout.split('\n').filter((l) => !l.startsWith('note') && !/^(Human|Length|instructions|BLEU|stub|.*against the majority)/.test(l))) assert.ok(line.length <= 120, line);
  });

  it('correlate --ceiling puts the ceiling and each evaluator against the same leave-one-out targets first, with the numbers of agreement --ceiling', () => {
    const r = cli('correlate', file, '--ceiling', '--human', 'experts', '--group-by', 'none', '--json');
    assert.equal(r.code, 0, r.stderr);
    const t = JSON.parse(r.stdout) as { rows: { evaluatorId: string; displayName: string; cells: { statistic: number | null }[] }[] };
    assert.equal(t.rows[0].evaluatorId, 'human:ceiling:experts');
    assert.equal(t.rows[0].displayName, 'Ceiling: one expert vs the rest');
    const core = leaveOneOutCeiling(items, { group: 'experts', evaluators: [judge] });
    assert.equal(t.rows[0].cells[0].statistic, core.rows[0].mean);
    const loo = t.rows.find((row) => row.evaluatorId === `loo:experts:${judge}`);
    assert.equal(loo?.cells[0].statistic, core.rows[1].mean);
    assert.ok(t.rows.findIndex((row) => row.evaluatorId === judge) > t.rows.indexOf(loo!), 'the plain rows follow');
    const text = cli('correlate', file, '--ceiling', '--human', 'experts');
    assert.match(text.stdout, /Ceiling: one expert vs the rest \(human reference\)/);
  });
});
