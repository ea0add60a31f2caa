import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatItems } from '../../src/core/format/jsonl';
import { generatedPool } from '../core/planning/generatedPool';

const root = resolve(__dirname, '../..');

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), ...args], { encoding: 'utf8', cwd: root });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('reflect-eval plan-labels', () => {
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-plan-'));
  const fullFile = join(dir, 'full.dialogues.jsonl');
  const openFile = join(dir, 'open.dialogues.jsonl');
  const full = generatedPool({ candidates: 80, signal: [1, 0.3], copies: { count: 2, noise: 1 }, seed: 'cli' });
  writeFileSync(fullFile, formatItems(full));
  writeFileSync(openFile, formatItems(full.map((it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: [] })) }))));

  it('prints the next candidates and the state, writes the record beside the file, and replays it', () => {
    const r = cli('plan-labels', openFile, '--evaluator', 'metric:gen0', '--human', 'experts', '--target', '0.1', '--next', '3');
    assert.equal(r.code, 0, r.stderr);
    const record = join(dir, 'open.label-plan.json');
    assert.ok(existsSync(record));
    assert.match(r.stderr, /started a plan \(0 candidates labelled at the start\)/);
    assert.match(r.stdout, /pool: 80 candidates in 8 items; labelled at the start 0, planned labels counted 0/);
    assert.match(r.stdout, /estimate: not yet/);
    assert.match(r.stdout, /target: half-width 0\.1 — not reached \(no stop before 20 planned labels\); labels to go: about \d+/);
    const next = r.stdout.split('\n').filter((l) => /^\s+\d+\. item /.test(l));
    assert.equal(next.length, 3);
    // Named as the editor shows it (#position in its item) beside its id in the file.
    assert.match(next[0], /^\s+1\. item item-\d+\s+candidate #\d+ c\d+\s+drawn$/);
    const [, itemId, position, candidateId] = /item (item-\d+)\s+candidate #(\d+) (c\d+)/.exec(next[0])!;
    const opened = readFileSync(openFile, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((it: { id: string }) => it.id === itemId);
    assert.equal(opened.candidates[Number(position) - 1].id, candidateId);
    const again = cli('plan-labels', openFile, '--evaluator', 'metric:gen0', '--human', 'experts', '--target', '0.1', '--next', '3', '--format', 'json');
    assert.equal(again.code, 0, again.stderr);
    const plan = JSON.parse(again.stdout);
    assert.equal(plan.record.seed, '1');
    assert.deepEqual(plan.next.slice(0, 3).map((o: { itemId: string; candidateId: string }) => `item ${o.itemId}`), next.map((l) => /item (item-\d+)/.exec(l)?.[0]));
    assert.equal(plan.order.length, 80);
    const other = cli('plan-labels', openFile, '--evaluator', 'metric:gen1', '--human', 'experts');
    assert.equal(other.code, 1);
    assert.match(other.stderr, /holds a plan for evaluator metric:gen0\.score@test; pass --restart/);
    const written = JSON.parse(readFileSync(record, 'utf8'));
    assert.match(written.format, /label-plan/);
    assert.equal(written.defensive, 0.05);
    assert.equal(written.modelSelection.minLabels, 10);
    assert.deepEqual(written.modelSelection.ordinal, [{ ridge: 1, prior: 2 }]);
    assert.deepEqual(plan.workingModel, { model: { kind: 'kernel', bandwidth: 0.1, prior: 2 }, logScore: null }, 'before 10 labels, the fallback kernel');
  });

  it('simulates plans on a fully labelled file and prints the JSON the issue specifies', () => {
    const r = cli('plan-labels', fullFile, '--evaluator', 'metric:copy0', '--against', 'metric:copy1', '--human', 'experts', '--simulate', '--seeds', '4', '--target', '0.2', '0.15', '--format', 'json');
    assert.equal(r.code, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.deepEqual(out.targets.map((t: { halfWidth: number }) => t.halfWidth), [0.2, 0.15]);
    for (const t of out.targets) {
      assert.ok(t.planner >= 20 && t.planner <= 80 && t.random >= 20 && t.random <= 80, JSON.stringify(t));
    }
    assert.ok(out.coverage >= 0 && out.coverage <= 1);
    assert.ok(out.wrongDecisionRate >= 0 && out.wrongDecisionRate <= 1);
    assert.equal(out.runs, 4);
    assert.equal(out.pool, 80);
    assert.ok(!existsSync(join(dir, 'full.label-plan.json')), 'a simulation writes no record');
  });

  it('--bound: the fewest labels any design-unbiased plan could need per target, against random order, as text and JSON', () => {
    const text = cli('plan-labels', fullFile, '--evaluator', 'metric:gen0', '--human', 'experts', '--bound', '--target', '0.2', '0.15');
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^design-only bound on 80 fully labelled candidates \(pool value -?\d\.\d{3}\)/);
    assert.match(text.stdout, /working model: bandwidth [\d.]+, prior [\d.]+ \(best leave-one-out log score -\d\.\d{3}; the level shares alone -\d\.\d{3}\)/);
    assert.match(text.stdout, /^\s+0\.2\s+\d+\.\d\s+\d+\.\d\s+\d+\.\d %$/m);
    assert.match(text.stdout, /largest saving at any target: \d+\.\d %/);
    const json = cli('plan-labels', fullFile, '--evaluator', 'metric:gen0', '--human', 'experts', '--bound', '--target', '0.2', '0.15', '--format', 'json');
    assert.equal(json.code, 0, json.stderr);
    const out = JSON.parse(json.stdout);
    assert.deepEqual(out.targets.map((t: { halfWidth: number }) => t.halfWidth), [0.2, 0.15]);
    for (const t of out.targets) assert.ok(t.neyman <= t.random && t.random <= 80 && Math.abs(t.saving - (1 - t.neyman / t.random)) < 1e-12, JSON.stringify(t));
    assert.ok(out.targets[1].random > out.targets[0].random, 'a narrower interval needs more labels');
    const both = cli('plan-labels', fullFile, '--evaluator', 'metric:gen0', '--human', 'experts', '--bound', '--simulate');
    assert.equal(both.code, 1);
    assert.match(both.stderr, /--simulate and --bound are two different questions/);
    const decide = cli('plan-labels', fullFile, '--evaluator', 'metric:copy0', '--against', 'metric:copy1', '--human', 'experts', '--bound', '--target', 'decide');
    assert.equal(decide.code, 1);
    assert.match(decide.stderr, /--bound answers for half-widths only/);
    assert.ok(!existsSync(join(dir, 'full.label-plan.json')), 'the bound writes no record');
  });

  it('says when a simulation has nothing fully labelled, and when the second evaluator is the first', () => {
    const r = cli('plan-labels', openFile, '--evaluator', 'metric:gen0', '--human', 'experts', '--simulate', '--seeds', '2');
    assert.equal(r.code, 1);
    assert.match(r.stderr, /only 0 scored candidate\(s\) are fully labelled/);
    const same = cli('plan-labels', openFile, '--evaluator', 'metric:gen0', '--against', 'metric:gen0.score@test', '--no-record');
    assert.equal(same.code, 1);
    assert.match(same.stderr, /same evaluator/);
  });
});
