/**
 * `reflect-eval estimate`: the plan's text and record (one format with plan-labels'), its replay, `--simulate
 * --format json` printing exactly the JSON the issue defines, `--bound`, `--fixed-sample` with its chart, and the
 * errors a user meets.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatItems } from '../../src/core/format/jsonl';
import { startLabelPlan } from '../../src/core/planning/planner';
import { addScores, gemGridPool } from '../../scripts/estimation/generatedPools';

const root = resolve(__dirname, '../..');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('reflect-eval estimate', function () {
  this.timeout(300_000);
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-estimate-'));
  const fullFile = join(dir, 'grid.dialogues.jsonl');
  const openFile = join(dir, 'open.dialogues.jsonl');
  const sampleFile = join(dir, 'sample.dialogues.jsonl');
  const full = addScores(gemGridPool(3, 'cli'), 'cli-scores');
  writeFileSync(fullFile, formatItems(full));
  writeFileSync(openFile, formatItems(full.map((it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: c.annotations.filter((a) => a.group !== 'expert') })) }))));
  // every third candidate keeps its expert labels: a fixed sample
  let k = 0;
  writeFileSync(sampleFile, formatItems(full.map((it) => ({ ...it, candidates: it.candidates.map((c) => (k++ % 3 === 0 ? c : { ...c, annotations: c.annotations.filter((a) => a.group !== 'expert') })) }))));

  it('starts a plan per group, prints estimates, labels to go and the next candidates, and replays its record', () => {
    const r = cli('estimate', openFile, '--estimand', 'coherence-rate', '--by', 'model', '--predictor', 'human:laypeople', '--target', '0.1', '--labels-per-candidate', '3', '--next', '4');
    assert.equal(r.code, 0, r.stderr);
    const recordPath = join(dir, 'open.estimate-plan.json');
    assert.ok(existsSync(recordPath));
    assert.match(r.stderr, /started a plan \(0 candidates labelled at the start\)/);
    assert.match(r.stdout, /^Estimate plan: the experts' coherence rate \(majority vote\) per model, predicted by human:laypeople/);
    assert.match(r.stdout, /pool: 159 candidates in 3 items; labelled at the start 0, planned labels counted 0/);
    assert.match(r.stdout, /GPT-2\s+78\s+0\s+—\s+not yet/);
    assert.match(r.stdout, /target: half-width 0\.1 in every group — not reached; labels to go: about \d+/);
    assert.equal(r.stdout.split('\n').filter((l) => /^\s+\d+\. item gem-\d+\s+candidate \S+\s+(drawn|provisional)$/.test(l)).length, 4);
    const record = JSON.parse(readFileSync(recordPath, 'utf8'));
    assert.equal(record.format, 'reflect-eval.label-plan/1', 'the record format plan-labels writes');
    assert.deepEqual(record.estimand, { kind: 'coherence-rate', aggregate: 'majority' });
    assert.deepEqual(record.predictors, ['human:laypeople']);
    const again = cli('estimate', openFile, '--estimand', 'coherence-rate', '--by', 'model', '--predictor', 'human:laypeople', '--format', 'json');
    assert.equal(again.code, 0, again.stderr);
    const state = JSON.parse(again.stdout);
    assert.deepEqual(state.strata.map((s: { key: string }) => s.key), ['(none)', 'GPT-2', 'BART']);
    assert.equal(state.order.length, 159);
    const other = cli('estimate', openFile, '--estimand', 'coherence-rate:mean', '--by', 'model', '--predictor', 'human:laypeople');
    assert.equal(other.code, 1);
    assert.match(other.stderr, /holds a plan for estimand .*pass --restart/);
    // a Spearman plan's record is the other kind of the same format: refused with what it is
    writeFileSync(join(dir, 'spearman.json'), JSON.stringify(startLabelPlan(full, { evaluator: 'judge:informed', human: 'experts', target: { halfWidth: 0.1 } })));
    const wrong = cli('estimate', openFile, '--predictor', 'human:laypeople', '--record', join(dir, 'spearman.json'));
    assert.equal(wrong.code, 1);
    assert.match(wrong.stderr, /holds a Spearman labelling plan \(plan-labels\)/);
  });

  it('--simulate --format json prints exactly {"targets":[{"halfWidth","estimator","classical"}],"coverage"}', () => {
    const r = cli('estimate', fullFile, '--predictor', 'human:laypeople', '--simulate', '--seeds', '4', '--target', '0.15', '0.1', '--format', 'json');
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(Object.keys(out), ['targets', 'coverage']);
    assert.deepEqual(out.targets.map((t: object) => Object.keys(t)), [
      ['halfWidth', 'estimator', 'classical'],
      ['halfWidth', 'estimator', 'classical'],
    ]);
    assert.deepEqual(out.targets.map((t: { halfWidth: number }) => t.halfWidth), [0.15, 0.1]);
    for (const t of out.targets) assert.ok(t.estimator >= 20 && t.estimator <= 159 && t.classical >= 20 && t.classical <= 159, JSON.stringify(t));
    assert.ok(out.coverage >= 0 && out.coverage <= 1);
    const text = cli('estimate', fullFile, '--predictor', 'human:laypeople', '--simulate', '--seeds', '2', '--target', '0.15');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /2 simulated label orders per estimator on 159 fully labelled candidates/);
    assert.match(text.stdout, /coverage \(estimator, every group, run and half-width\): [01]\.\d{3}/);
  });

  it('--bound: the oracle estimator against expert-only, anytime and fixed-n', () => {
    const r = cli('estimate', fullFile, '--predictor', 'human:laypeople', '--bound', '--target', '0.1');
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /the fewest expert labels for coherence rate \(majority vote\), predicted by human:laypeople, on 159 fully labelled candidates/);
    const row = r.stdout.split('\n').find((l) => /^\s+0\.1\s/.test(l)) as string;
    const [, oracle, expertOnly] = row.trim().split(/\s+/).map(Number);
    assert.ok(oracle < expertOnly, row);
    const json = JSON.parse(cli('estimate', fullFile, '--predictor', 'human:laypeople', '--bound', '--target', '0.1', '--format', 'json').stdout);
    assert.equal(json.targets[0].estimator, oracle);
  });

  it('--fixed-sample: PPI++ beside expert-only per group, a paired difference, and the chart', () => {
    const svg = join(dir, 'chart.svg');
    const r = cli('estimate', sampleFile, '--predictor', 'human:laypeople', '--by', 'model', '--compare', 'GPT-2', 'BART', '--fixed-sample', '--chart', svg);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /PPI\+\+ from the expert labels present \(taken as a uniform random sample\), predicted by human:laypeople \(calibration: none\)/);
    assert.match(r.stdout, /GPT-2\s+78\s+26\s+0\.\d{3} \[0\.\d{3}, 0\.\d{3}\] \(λ 0\.\d\d\)/);
    assert.match(r.stdout, /GPT-2 − BART\s+paired over 3 shared contexts: −?0\.\d{3} \[/);
    const text = readFileSync(svg, 'utf8');
    assert.match(text, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" class="estimate-chart"/);
    assert.equal((text.match(/<g class="row" data-group=/g) ?? []).length, 3);
    const cal = cli('estimate', sampleFile, '--predictor', 'judge:informed', 'human:laypeople', '--fixed-sample', '--format', 'json');
    assert.equal(cal.code, 0, cal.stderr);
    const out = JSON.parse(cal.stdout);
    assert.equal(out.calibration.kind, 'linear');
    assert.equal(out.calibration.folds, 5);
    assert.ok(out.groups[0].estimator.lambda >= 0);
  });

  it('says what is wrong', () => {
    assert.match(cli('estimate', fullFile, '--estimand', 'error-share:rude', '--predictor', 'human:laypeople').stderr, /category must be one of/);
    assert.match(cli('estimate', fullFile, '--predictor', 'human:experts', '--simulate').stderr, /shares annotators with the labels being estimated/);
    assert.match(cli('estimate', fullFile, '--simulate').stderr, /needs a --predictor/);
    assert.match(cli('estimate', fullFile, '--compare', 'a', 'b', '--predictor', 'human:laypeople').stderr, /--compare needs --by/);
    assert.match(cli('estimate', fullFile, '--by', 'model', '--groups', 'GPT-3', '--predictor', 'human:laypeople', '--no-record').stderr, /no candidate is in the group "GPT-3"/);
  });
});
