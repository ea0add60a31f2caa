import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');
const sample = join(root, 'data', 'annomi', 'AnnoMI-sample.csv');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('reflect-eval CLI', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-cli-'));

  it('imports 15 AnnoMI reflection contexts from 15 dialogues, the same ones for the same seed', () => {
    const a = join(dir, 'a.dialogues.jsonl');
    const b = join(dir, 'b.dialogues.jsonl');
    for (const out of [a, b]) {
      const r = cli('import', 'annomi', sample, '--sample', '15', '--seed', '7', '-o', out);
      assert.equal(r.code, 0, r.stderr);
    }
    const text = readFileSync(a, 'utf8');
    assert.equal(text, readFileSync(b, 'utf8'));
    const items = text.trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(items.length, 15);
    assert.equal(new Set(items.map((i) => i.provenance.transcriptId)).size, 15);
    for (const it of items) {
      assert.equal(it.reference.behaviour, 'reflection');
      assert.equal(it.provenance.miQuality, 'high');
      assert.ok(it.context.length >= 1);
    }
    const other = join(dir, 'c.dialogues.jsonl');
    cli('import', 'annomi', sample, '--sample', '15', '--seed', '8', '-o', other);
    assert.notEqual(readFileSync(other, 'utf8'), text);
  });

  it('refuses to overwrite without --force', () => {
    const out = join(dir, 'exists.dialogues.jsonl');
    writeFileSync(out, 'keep me\n');
    const r = cli('import', 'annomi', sample, '--sample', '2', '-o', out);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /exists; pass --force/);
    assert.equal(readFileSync(out, 'utf8'), 'keep me\n');
  });

  it('names the missing column of a file that is not quite AnnoMI, and rejects a file that is not AnnoMI at all', () => {
    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, 'transcript_id,mi_quality,topic,utterance_id,interlocutor,utterance_text\n0,high,x,0,client,hi\n');
    const r = cli('import', 'annomi', bad, '-o', join(dir, 'x.jsonl'));
    assert.equal(r.code, 1);
    assert.match(r.stderr, /bad\.csv:1: missing AnnoMI column\(s\): main_therapist_behaviour/);
    const other = join(dir, 'other.csv');
    writeFileSync(other, 'name,age\nann,3\n');
    assert.match(cli('import', 'annomi', other, '-o', join(dir, 'y.jsonl')).stderr, /other\.csv:1: this is not an AnnoMI file/);
  });

  it('prints the correlation table of a labelled, scored file', () => {
    const file = join(dir, 'scored.dialogues.jsonl');
    const cands = [0, 1, 2, 3].map((k) => ({
      id: `c${k}`,
      text: `t${k}`,
      origin: { kind: 'model' },
      annotations: [0, 1, 2].map((a) => ({ annotator: `a${a}`, coherent: a < k })),
      scores: { 'judge:x': { value: k + 1, status: 'ok' } },
    }));
    writeFileSync(file, JSON.stringify({ id: 'i', context: [], candidates: cands }) + '\n');
    const r = cli('correlate', file, '--json');
    assert.equal(r.code, 0, r.stderr);
    const table = JSON.parse(r.stdout);
    assert.equal(table.rows[0].evaluatorId, 'judge:x');
    assert.deepEqual(table.columns.map((c: { key: string }) => c.key), ['model', 'all']);
    assert.equal(table.rows[0].cells[1].n, 4);
    assert.equal(table.rows[0].cells[1].statistic, 1);
  });

  it('correlate: prints and writes the same table in every format, compares two evaluators, averages rows', function () {
    // Seven spawned CLIs, each loading tsx: well under 60 s on an idle machine, over 60 s with both cores busy (seen in CI).
    this.timeout(240_000);
    const study = join(root, 'test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl');
    for (const format of ['text', 'md', 'latex', 'csv']) {
      const out = join(dir, `table.${format}`);
      const r = cli('correlate', study, '--format', format, '-o', out, '--method', 'pearson', '--human', 'all');
      assert.equal(r.code, 0, r.stderr);
      assert.equal(readFileSync(out, 'utf8'), r.stdout);
      assert.doesNotMatch(r.stdout, /NaN/);
    }
    // By display name and by unique id prefix.
    const cmp = cli('correlate', study, '--compare', 'instructions × rating · gpt-3.5-turbo', 'judge:api:gpt-3.5-turbo:instructions×scoring', '--json');
    assert.equal(cmp.code, 0, cmp.stderr);
    const cs = JSON.parse(cmp.stdout);
    assert.deepEqual(cs.map((c: { column: string }) => c.column), ['GPT-2', 'GPT-3.5', 'all']);
    assert.ok(cs.every((c: { williams: { df: number }; n: number }) => c.williams.df === c.n - 3));
    const bad = cli('correlate', study, '--compare', 'judge:', 'BLEU-4');
    assert.notEqual(bad.code, 0);
    // an ambiguous name lists the matches, one per line as "name = id"
    assert.match(bad.stderr, /"judge:" is ambiguous: it matches \d+ evaluators; give one of these/);
    assert.match(bad.stderr, /\n {2}instructions × rating · gpt-3\.5-turbo = judge:api:gpt-3\.5-turbo:instructions×rating@/);
    const byName = cli('correlate', study, '--compare', 'roug', 'BLEU-4', '--json');
    assert.equal(byName.code, 0, byName.stderr); // a display-name prefix that names one evaluator
    assert.match(JSON.parse(byName.stdout)[0].evaluatorA, /^metric:rougeL\.f@/);
    const avg = cli('correlate', study, '--json', '--average', 'both follow-ups=metric:followUpLikelihood.You\'re not understanding me!@model:blenderbot-400M-distill|rv:0.1.0+metric:followUpLikelihood.That makes no sense!@model:blenderbot-400M-distill|rv:0.1.0');
    assert.equal(avg.code, 0, avg.stderr);
    const row = JSON.parse(avg.stdout).rows.find((r: { evaluatorId: string }) => r.evaluatorId === 'average:both follow-ups');
    assert.equal(row.cells[2].n, 225);
    const boot = cli('correlate', study, '--bootstrap', '50', '--seed', '4', '--format', 'csv');
    assert.match(boot.stdout.split('\n')[1], /,0\.95,-?0\.\d+,-?0\.\d+,50,0,4,0,,(true|false),[^,]*,,,[a-z-]+,[^,]*,[^,]*$/);
    // --plot writes the forest plot of the same table: one row per evaluator, the table's numbers in its tooltips
    const svgFile = join(dir, 'forest.svg');
    const plotted = cli('correlate', study, '--plot', svgFile, '--json');
    assert.equal(plotted.code, 0, plotted.stderr);
    assert.match(plotted.stderr, /wrote .*forest\.svg \(forest plot\)/);
    const svg = readFileSync(svgFile, 'utf8');
    const plottedTable = JSON.parse(plotted.stdout);
    assert.match(svg, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    assert.equal(svg.match(/<g class="row" /g)?.length, plottedTable.rows.length);
    const ref = plottedTable.reference.cells.filter((c: { statistic: number | null }) => c.statistic !== null);
    assert.equal(svg.match(/<line class="reference" /g)?.length, ref.length);
    assert.ok(svg.includes(`ref. ${ref[0].statistic.toFixed(3)}`));
    const both = cli('correlate', study, '--plot', svgFile, '--compare', 'BLEU-4', 'roug');
    assert.notEqual(both.code, 0);
    assert.match(both.stderr, /--plot .* cannot be combined with --compare/);
    // --by is --group-by
    const by = cli('correlate', study, '--by', 'kind', '--json');
    assert.equal(by.code, 0, by.stderr);
    assert.equal(JSON.parse(by.stdout).groupBy, 'kind');
  });
});
