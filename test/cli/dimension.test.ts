/**
 * `--dimension` and `--human-score` end to end, and the failures of issue 39 item 6 on a file without experts:
 * `report --human all` aborted ("bootstrap: the number of items must be a positive integer (got 0)"), `correlate
 * --ceiling --human all` computed the experts' ceiling (n = 0), and `alt-test` defaulted to the experts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { scoredRubricStudy } from '../helpers/rubricStudy';

const root = resolve(__dirname, '../..');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('reflect-eval --dimension on a study with its own rubric and no experts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-dimension-'));
  const file = join(dir, 'study.dialogues.jsonl');

  before(() => {
    writeFileSync(file, scoredRubricStudy().map((i) => JSON.stringify(i)).join('\n') + '\n');
    copyFileSync(join(root, 'test/core/agreement/fixtures/rubric-study.rubric.json'), join(dir, 'study.rubric.json'));
  });

  it('correlate: the primary dimension by default, named in the header; CSV and JSON carry the dimension', () => {
    const text = cli('correlate', file, '--by', 'none');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Dimension: Overall \(ordinal; human score: mean\)/);
    assert.doesNotMatch(text.stdout, /coheren|Laypeople/i);
    const csv = cli('correlate', file, '--by', 'none', '--dimension', 'Sensible', '--format', 'csv');
    assert.equal(csv.code, 0, csv.stderr);
    const rows = parse(csv.stdout, { columns: true }) as Record<string, string>[];
    assert.ok(rows.length > 0 && rows.every((r) => r.dimension === 'Sensible' && r.human_score === 'count'));
    assert.match(csv.stdout, /^evaluator_id,/, 'no preamble');
    const json = JSON.parse(cli('correlate', file, '--by', 'none', '--dimension', 'Overall', '--human-score', 'median', '--json').stdout);
    assert.equal(json.dimension.name, 'Overall');
    assert.equal(json.dimension.rule, 'median');
  });

  it('correlate: an unknown dimension or a count on a scale fails before any work, naming the choices', () => {
    const r = cli('correlate', file, '--dimension', 'overall');
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /no dimension "overall"; its binary, ordinal and numeric dimensions: "Sensible", "Overall", "Specificity"/);
    const c = cli('correlate', file, '--human-score', 'count');
    assert.notEqual(c.code, 0);
    assert.match(c.stderr, /needs a binary dimension; Overall is ordinal/);
  });

  it('correlate --ceiling --human all: the ceiling of all annotators, not the experts\' (n = 0)', () => {
    const r = cli('correlate', file, '--by', 'none', '--ceiling', '--human', 'all', '--json');
    assert.equal(r.code, 0, r.stderr);
    const ceiling = JSON.parse(r.stdout).rows[0];
    assert.equal(ceiling.evaluatorId, 'human:ceiling:all');
    assert.ok(ceiling.cells[0].n > 0 && ceiling.cells[0].statistic > 0);
  });

  it('correlate --compare on a dimension', () => {
    const r = cli('correlate', file, '--by', 'none', '--compare', 'judge:local:stub', 'BLEU-4', '--dimension', 'Overall');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /difference/);
    assert.match(r.stdout, /^Dimension: Overall \(mean rating of Overall\)/);
    const csv = cli('correlate', file, '--by', 'none', '--compare', 'judge:local:stub', 'BLEU-4', '--format', 'csv');
    const rows = parse(csv.stdout, { columns: true }) as Record<string, string>[];
    assert.equal(rows[0].dimension, 'Overall');
  });

  it('report --human all on a file without experts writes the report (it aborted in the bootstrap)', () => {
    const out = join(dir, 'study.report.md');
    const r = cli('report', file, '--human', 'all', '--bootstrap', '20', '-o', out);
    assert.equal(r.code, 0, r.stderr);
    const md = readFileSync(out, 'utf8');
    assert.match(md, /120 responses \(119 with labels on Overall\)/);
    assert.doesNotMatch(md, /coherence|Laypeople/);
    const auto = cli('report', file, '--bootstrap', '0', '-o', out, '--dimension', 'Sensible');
    assert.equal(auto.code, 0, auto.stderr);
    assert.match(auto.stdout.replace(/\n/g, ' '), /all annotators' number who said yes to Sensible \(annotators chosen automatically\)/);
  });

  it('alt-test defaults to every annotator on a file without experts and compares ratings on an ordinal dimension', () => {
    const r = cli('alt-test', file, '--evaluator', 'judge:local:stub', '--min-instances', '10', '--scoring', 'negMae', '--no-baselines');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /replace an annotator of the all on Overall\?/);
    assert.match(r.stdout, /scoring = negMae/);
    assert.match(r.stdout, /evaluator ratings: match-distribution/);
    const bad = cli('alt-test', file, '--evaluator', 'judge:local:stub', '--dimension', 'Sensible', '--scoring', 'negRmse');
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /Sensible is binary \(use accuracy\)/);
  });

  it('plan-labels on the mean rating', () => {
    const r = cli('plan-labels', file, '--evaluator', 'judge:local:stub', '--no-record');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /with the all' mean rating of Overall/);
  });
});
