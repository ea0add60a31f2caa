/**
 * Labels in sidecar files through the CLI (issue 44 item 4): `reflect-eval labels split|join|check`, every job and
 * analysis reading a split study as it read the inline one, a scores-only job leaving the sidecars alone, collect
 * writing into sidecars, and three annotators committing in parallel to one git repository without a conflict.
 * The study is the synthetic EvalReflections fixture (15 contexts, six annotators' labels, judge and metric scores).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DialogueItem } from '../../src/core/dialogue/types';
import { documentItems, formatItems, parseDocument } from '../../src/core/format/jsonl';
import { readStudy } from '../../src/core/format/studyFiles';
import { cliAsync, repoRoot } from '../helpers/cli';

const FIXTURE = join(repoRoot, 'test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl');
/** The fixture as ReflectEval writes a file (compact JSON lines): its spacing is Python's. */
const canonical = formatItems(documentItems(parseDocument(readFileSync(FIXTURE), 'x')));

async function ok(args: string[]): Promise<string> {
  const r = await cliAsync(args);
  assert.equal(r.code, 0, `reflect-eval ${args.join(' ')}\n${r.stderr}`);
  return r.stdout;
}

/** Every file of a folder with its bytes. */
function snapshot(folder: string): Record<string, string> {
  return Object.fromEntries(readdirSync(folder).sort().map((f) => [f, readFileSync(join(folder, f), 'latin1')]));
}

/** Labels every candidate of a packet: coherent for even positions, incoherent with one error for odd ones. */
function labelPacket(path: string, annotator: string): number {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
  let n = 0;
  const out = lines.map((l) => {
    const it = JSON.parse(l) as DialogueItem;
    return JSON.stringify({
      ...it,
      candidates: it.candidates.map((c, i) => {
        n++;
        return { ...c, annotations: [i % 2 === 0 ? { annotator, coherent: true, empathy: 4 } : { annotator, coherent: false, errors: ['parroting'] }] };
      }),
    });
  });
  writeFileSync(path, out.join('\n') + '\n');
  return n;
}

describe('reflect-eval labels (labels in sidecar files)', function () {
  this.timeout(300_000);

  it('split moves every label into its annotator\'s sidecar, join moves them back: the same bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-labels-'));
    const study = join(dir, 'study.dialogues.jsonl');
    writeFileSync(study, canonical);
    const out = await ok(['labels', 'split', study]);
    assert.match(out, /^Expert-1: 225 inline, 0 in a sidecar → 0 inline, 225 in a sidecar$/m);
    assert.deepEqual(readdirSync(join(dir, 'study.labels')).sort(), ['Expert-1.jsonl', 'Expert-2.jsonl', 'Expert-3.jsonl', 'Lay-1.jsonl', 'Lay-2.jsonl', 'Lay-3.jsonl', 'README.md']);
    const items = documentItems(parseDocument(readFileSync(study), 'x'));
    assert.equal(items.reduce((n, it) => n + it.candidates.reduce((m, c) => m + c.annotations.length, 0), 0), 0, 'no label left inline');
    // One line per labelled candidate, in the study's order.
    const e1 = readFileSync(join(dir, 'study.labels/Expert-1.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { item: string; candidate: string });
    assert.equal(e1.length, 225);
    const order = items.flatMap((it) => it.candidates.map((c) => `${it.id}/${c.id}`));
    const ranks = e1.map((l) => order.indexOf(`${l.item}/${l.candidate}`));
    assert.deepEqual(ranks, [...ranks].sort((a, b) => a - b));
    assert.ok(ranks.every((r) => r >= 0));
    await ok(['labels', 'join', study]);
    assert.equal(readFileSync(study, 'utf8'), canonical);
    assert.equal(existsSync(join(dir, 'study.labels')), false, 'the folder goes with the last sidecar');
  });

  it('a file spaced by hand comes back compact from its first split; from then on a round trip is exact', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-labels-'));
    const study = join(dir, 'study.dialogues.jsonl');
    copyFileSync(FIXTURE, study);
    await ok(['labels', 'split', study]);
    const once = readFileSync(study);
    await ok(['labels', 'join', study]);
    assert.equal(readFileSync(study, 'utf8'), canonical);
    await ok(['labels', 'split', study]);
    assert.deepEqual(readFileSync(study), once);
  });

  it('every analysis reads a split study as it read the inline one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-labels-'));
    const study = join(dir, 'study.dialogues.jsonl');
    writeFileSync(study, canonical);
    const analyses = [
      ['agreement', study, '--coefficients', '--json'],
      ['correlate', study],
      ['progress', study, '--format', 'json'],
      ['export', 'annotations', study, '-o', join(dir, 'table.csv'), '--force'],
    ];
    const before: string[] = [];
    for (const a of analyses) before.push((await ok(a)) + (a[0] === 'export' ? readFileSync(join(dir, 'table.csv'), 'utf8') : ''));
    await ok(['labels', 'split', study, '--annotators', 'Expert-2,Lay-1,Lay-3']);
    for (const [i, a] of analyses.entries()) assert.equal((await ok(a)) + (a[0] === 'export' ? readFileSync(join(dir, 'table.csv'), 'utf8') : ''), before[i], a.join(' '));
  });

  it('a job that changes only scores writes the study and leaves every sidecar alone; --out takes the sidecars along', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-labels-'));
    const study = join(dir, 'study.dialogues.jsonl');
    writeFileSync(study, canonical);
    await ok(['labels', 'split', study]);
    const labels = join(dir, 'study.labels');
    const before = snapshot(labels);
    const mtimes = readdirSync(labels).map((f) => statSync(join(labels, f)).mtimeMs);
    const studyBefore = readFileSync(study, 'utf8');
    const r = await cliAsync(['score', study, '--metric', 'rougeL', '--force']);
    assert.equal(r.code, 0, r.stderr);
    assert.notEqual(readFileSync(study, 'utf8'), studyBefore);
    assert.deepEqual(snapshot(labels), before);
    assert.deepEqual(readdirSync(labels).map((f) => statSync(join(labels, f)).mtimeMs), mtimes);
    // To another file: a study of its own, its sidecars beside it.
    const out = join(dir, 'copy.dialogues.jsonl');
    await ok(['score', study, '--metric', 'bleu4', '-o', out]);
    assert.deepEqual(snapshot(join(dir, 'copy.labels')), { ...before, 'README.md': snapshot(join(dir, 'copy.labels'))['README.md'] });
    assert.deepEqual(readStudy(out).items.map((it) => it.candidates.map((c) => c.annotations)), readStudy(study).items.map((it) => it.candidates.map((c) => c.annotations)));
  });

  it('labels check names each problem by file, line and field and exits non-zero; jobs go on without the bad lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-labels-'));
    const study = join(dir, 'study.dialogues.jsonl');
    writeFileSync(study, canonical);
    await ok(['labels', 'split', study, '--annotators', 'Lay-1']);
    const lay1 = join(dir, 'study.labels/Lay-1.jsonl');
    const lines = readFileSync(lay1, 'utf8').split('\n');
    lines[2] = lines[2].replace('"annotator":"Lay-1"', '"annotator":"Lay-2"');
    lines[4] = '{"item": broken';
    lines.push('{"item":"evalreflections-synthetic-99","candidate":"g2-0","annotation":{"annotator":"Lay-1","coherent":true}}', '');
    writeFileSync(lay1, lines.join('\n'));
    const r = await cliAsync(['labels', 'check', study]);
    assert.equal(r.code, 1);
    assert.match(r.stdout, /study\.labels\/Lay-1\.jsonl:3: annotation\.annotator: "Lay-2" is not this file's annotator/);
    assert.match(r.stdout, /study\.labels\/Lay-1\.jsonl:5: not valid JSON/);
    assert.match(r.stdout, /study\.labels\/Lay-1\.jsonl:229: item: no item "evalreflections-synthetic-99" in study\.dialogues\.jsonl: this label is kept in its file/);
    // A job reports them and keeps the file's bytes.
    const bytes = readFileSync(lay1);
    const p = await cliAsync(['progress', study, '--format', 'json']);
    assert.equal(p.code, 0);
    assert.match(p.stderr, /Lay-1\.jsonl:5: not valid JSON/);
    assert.equal((JSON.parse(p.stdout) as { annotators: { annotator: string; labelled: number }[] }).annotators.find((a) => a.annotator === 'Lay-1')!.labelled, 225);
    // Joining Lay-1 back would leave these lines behind: refused, nothing written.
    const j = await cliAsync(['labels', 'join', study]);
    assert.equal(j.code, 1);
    assert.match(j.stderr, /cannot all go back inline/);
    assert.deepEqual(readFileSync(lay1), bytes);
  });

  it('three annotators commit in parallel to one git repository and merge without a conflict', async () => {
    const repo = mkdtempSync(join(tmpdir(), 'reflect-eval-team-git-'));
    const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'lead', GIT_AUTHOR_EMAIL: 'lead@example.invalid', GIT_COMMITTER_NAME: 'lead', GIT_COMMITTER_EMAIL: 'lead@example.invalid' };
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, env, encoding: 'utf8' });
    const as = (who: string) => ({ ...env, GIT_AUTHOR_NAME: who, GIT_AUTHOR_EMAIL: `${who}@example.invalid` });
    const study = join(repo, 'study.dialogues.jsonl');
    const packets = mkdtempSync(join(tmpdir(), 'reflect-eval-packets-'));
    git('init', '-q', '-b', 'main');
    writeFileSync(study, canonical);
    git('add', '-A');
    git('commit', '-q', '-m', 'study: 15 contexts, six annotators\' labels inline');
    await ok(['labels', 'split', study]);
    git('add', '-A');
    git('commit', '-q', '-m', 'labels split: each annotator\'s labels in study.labels/<annotator>.jsonl');
    await ok(['assign', study, '--annotators', 'A1,A2,A3', '-k', '2', '--seed', '7', '-o', packets]);
    const labelled: Record<string, number> = {};
    for (const a of ['A1', 'A2', 'A3']) {
      git('checkout', '-q', '-b', `label-${a}`, 'main');
      labelled[a] = labelPacket(join(packets, `study.${a}.dialogues.jsonl`), a);
      const out = await ok(['collect', study, join(packets, `study.${a}.dialogues.jsonl`)]);
      assert.match(out, new RegExp(`0 item line\\(s\\) rewritten, ${labelled[a]} sidecar line\\(s\\) changed in 1 file`));
      git('add', '-A');
      execFileSync('git', ['commit', '-q', '-m', `${a}: ${labelled[a]} candidates labelled`], { cwd: repo, env: as(a) });
      // The annotator's commit touches their sidecar and nothing else.
      assert.equal(git('show', '--name-only', '--format=', 'HEAD').trim(), `study.labels/${a}.jsonl`);
    }
    // Meanwhile the lead scores the study on main: the study's lines change, no sidecar does.
    git('checkout', '-q', 'main');
    await ok(['score', study, '--metric', 'rougeL', '--force']);
    git('add', '-A');
    git('commit', '-q', '-m', 'score: ROUGE-L');
    assert.equal(git('show', '--name-only', '--format=', 'HEAD').trim(), 'study.dialogues.jsonl');
    for (const a of ['A1', 'A2', 'A3']) git('merge', '-q', '--no-ff', '-m', `merge ${a}'s labels`, `label-${a}`);
    assert.equal(git('status', '--porcelain'), '');
    assert.equal(git('ls-files', '-u'), '', 'no conflict');
    const graph = git('log', '--graph', '--oneline', '--format=%s (%an)');
    if (process.env.REFLECT_EVAL_SHOW_GIT_LOG) process.stdout.write(`${git('log', '--graph', '--oneline')}\n${git('log', '--stat', '--format=%h %s (%an)', 'main~3..main')}\n`);
    assert.equal((graph.match(/merge A\d's labels/g) ?? []).length, 3);

    // The merged study: every analysis sees all three annotators, and the lead's scores.
    const progress = JSON.parse(await ok(['progress', study, '--packets', packets, '--format', 'json'])) as { annotators: { annotator: string; assigned: number; labelled: number }[]; agreement: { dimension: string; overlap: number; alpha: number | null }[] };
    for (const a of ['A1', 'A2', 'A3']) {
      const p = progress.annotators.find((x) => x.annotator === a)!;
      assert.deepEqual([p.assigned, p.labelled], [labelled[a], labelled[a]]);
    }
    assert.ok(progress.agreement.find((g) => g.dimension === 'coherent')!.overlap > 0);
    const agreement = JSON.parse(await ok(['agreement', study, '--json'])) as { summary: { annotators: { id: string; annotations: number }[] } };
    assert.deepEqual(
      agreement.summary.annotators.filter((a) => a.id.startsWith('A')).map((a) => [a.id, a.annotations]),
      ['A1', 'A2', 'A3'].map((a) => [a, labelled[a]]),
    );
    assert.equal(agreement.summary.annotators.length, 9);
    const items = readStudy(study).items;
    assert.ok(items.every((it) => it.candidates.every((c) => Object.keys(c.scores).some((id) => id.startsWith('metric:rougeL')))));
  });
});
