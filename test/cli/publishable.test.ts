/**
 * The flags of issue 40 end to end: `correlate --adjust --baselines --p-value --interval --best-mark`, `alt-test`'s
 * baselines, `--test` and `--zero-variance`, `agreement --interval`, and the report plan's `adjust`, `baselines` and
 * `interval`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');
const study = join(root, 'test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('reflect-eval: intervals that cover, trivial evaluators unmasked, selection accounted for', function () {
  // Several spawned CLIs, each loading tsx.
  this.timeout(300_000);
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-publishable-'));

  it('correlate --adjust holm --baselines --p-value --interval --best-mark: JSON and text follow the flags', () => {
    const r = cli('correlate', study, '--adjust', 'holm', '--baselines', '--bootstrap', '50', '--interval', 'expanded-percentile', '--json');
    assert.equal(r.code, 0, r.stderr);
    const t = JSON.parse(r.stdout);
    assert.equal(t.adjust, 'holm');
    assert.equal(t.pTest, 'cluster-jackknife');
    assert.equal(t.bestMark, 'separated');
    assert.equal(t.bootstrap.interval, 'expanded-percentile');
    assert.deepEqual(t.rows.slice(-3).map((x: { kind: string }) => x.kind), ['baseline', 'baseline', 'baseline']);
    assert.ok(t.rows.every((x: { cells: { ci: { method: string } }[] }) => x.cells.every((c) => c.ci.method === 'expanded-percentile')));
    assert.ok(t.notes.some((n: { kind: string }) => n.kind === 'selection'));
    const old = cli('correlate', study, '--p-value', 'independent', '--best-mark', 'largest', '--json');
    const o = JSON.parse(old.stdout);
    assert.equal(o.pTest, 'independent');
    assert.ok(o.rows.some((x: { cells: { best: boolean }[] }) => x.cells.some((c) => c.best)), 'the papers\' bold');
    // the same cell: scipy's p there is the pIndependent kept by the default
    assert.equal(o.rows[0].cells[0].pValue, JSON.parse(cli('correlate', study, '--json').stdout).rows[0].cells[0].pIndependent);
    const bad = cli('correlate', study, '--adjust', 'bonferroni');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /must be one of holm, by/);
  });

  it('alt-test: baselines beside the evaluator, the verdict in JSON, --test t and --no-baselines', () => {
    const r = cli('alt-test', study, '--evaluator', 'BLEU-4', '--group', 'experts', '--json', '--min-instances', '10');
    assert.equal(r.code, 0, r.stderr);
    const [res] = JSON.parse(r.stdout);
    assert.deepEqual(res.baselines.map((b: { kind: string }) => b.kind), ['always-majority', 'always-minority', 'random-base-rate']);
    assert.match(res.verdict, /^(PASSES|FAILS): winning rate/);
    assert.ok(res.result.annotators.every((a: { test: string }) => a.test === 'cluster-jackknife'));
    const t = JSON.parse(cli('alt-test', study, '--evaluator', 'BLEU-4', '--json', '--min-instances', '10', '--test', 't', '--no-baselines').stdout)[0];
    assert.ok(t.result.annotators.every((a: { test: string }) => a.test === 't'));
    assert.deepEqual(t.baselines, []);
    const text = cli('alt-test', study, '--evaluator', 'BLEU-4', '--min-instances', '10');
    assert.match(text.stdout, /Alt-test beside trivial baselines/);
    assert.match(text.stdout, /baseline: always (coherent|incoherent) \(\d+\.\d % of the labels\)/);
  });

  it('agreement --interval and the report plan\'s interval, adjust and baselines', () => {
    const a = cli('agreement', study, '--coefficients', '--bootstrap', '30', '--interval', 'percentile', '--json');
    assert.equal(a.code, 0, a.stderr);
    const tables = JSON.parse(a.stdout).coefficients.groups[0].tables;
    assert.equal(tables[0].bootstrap.interval, 'percentile');
    assert.equal(tables[0].rows[0].alpha.ci.method, 'percentile');
    const out = join(dir, 'r.report.md');
    const copy = join(dir, 'r.dialogues.jsonl');
    writeFileSync(copy, readFileSync(study));
    const plan = cli('report', copy, '-o', out, '--bootstrap', '30', '--adjust', 'by', '--baselines', '--interval', 'expanded-percentile', '--print-plan');
    assert.equal(plan.code, 0, plan.stderr);
    assert.deepEqual(JSON.parse(plan.stdout), { job: 'report', out, human: 'auto', groupBy: 'source', method: 'spearman', bootstrap: 30, seed: '1', interval: 'expanded-percentile', adjust: 'by', baselines: true });
    const bad = cli('report', copy, '-o', out, '--adjust', 'none');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /flags: adjust: must be one of holm, by/);
  });
});
