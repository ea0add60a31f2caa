/**
 * The team's progress in the dialogue editor's status bar (issue 44 item 5) says the numbers `reflect-eval progress`
 * prints: each annotator's labelled / assigned on the primary dimension and Krippendorff's α so far per dimension.
 * Checked against the CLI's own output on a study whose labels are in sidecar files (as the editor reads it: the
 * sidecars laid over), with and without the packets that `assign` wrote.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { readStudy } from '../../../src/core/format/studyFiles';
import { loadRubric } from '../../../src/core/rubric/rubricFile';
import { teamManifests, teamStatus } from '../../../src/extension/editor/teamProgress';
import { cliAsync, repoRoot } from '../../helpers/cli';

const FIXTURE = join(repoRoot, 'test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl');

/** The CLI's table: annotator → [assigned, labelled per dimension…], and dimension → α text (`0.412` or `undefined`). */
function cliNumbers(out: string): { rows: Map<string, number[]>; dims: string[]; alpha: Map<string, string> } {
  const lines = out.split('\n');
  const head = lines.findIndex((l) => l.startsWith('annotator\t'));
  const dims = lines[head].split('\t').slice(2);
  const rows = new Map<string, number[]>();
  for (let i = head + 1; lines[i]; i++) {
    const [who, ...n] = lines[i].split('\t');
    rows.set(who, n.map(Number));
  }
  const alpha = new Map<string, string>();
  for (const l of lines) {
    const m = /^ {2}(\S+) \((\w+)\): (undefined|-?\d\.\d{3})/.exec(l);
    if (m) alpha.set(m[1], m[3]);
  }
  return { rows, dims, alpha };
}

/** The status bar's text as numbers: annotator → [labelled, assigned], and dimension → α text. */
function statusNumbers(text: string, primary: string, dimensions: number): { who: Map<string, [number, number]>; alpha: Map<string, string> } {
  const who = new Map<string, [number, number]>();
  const alpha = new Map<string, string>();
  for (const part of text.replace(/^\$\([^)]*\) /, '').split(' · ')) {
    const a = /^α (.*)$/.exec(part);
    if (a) {
      if (dimensions === 1) alpha.set(primary, a[1]);
      else for (const d of a[1].split(', ')) alpha.set(d.split(' ')[0], d.split(' ')[1]);
      continue;
    }
    const m = /^(.+) (\d+)\/(\d+)$/.exec(part)!;
    who.set(m[1], [Number(m[2]), Number(m[3])]);
  }
  return { who, alpha };
}

function assertSame(cliOut: string, text: string, primary: string): void {
  const cli = cliNumbers(cliOut);
  const status = statusNumbers(text, primary, cli.alpha.size);
  assert.deepEqual([...status.who.keys()], [...cli.rows.keys()], 'the same annotators, in the same order');
  for (const [who, [labelled, assigned]] of status.who) {
    const row = cli.rows.get(who)!;
    assert.equal(assigned, row[0], `${who}: assigned`);
    assert.equal(labelled, row[1 + cli.dims.indexOf(primary)], `${who}: labelled on ${primary}`);
  }
  const defined = [...cli.alpha].filter(([, a]) => a !== 'undefined');
  assert.ok(defined.length > 0, 'the CLI has an α to compare');
  assert.deepEqual([...status.alpha].sort(), defined.sort(), 'the same α per dimension, to three decimals');
}

describe('the team’s progress in the editor’s status bar (the numbers reflect-eval progress prints)', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-team-status-'));
  const study = join(dir, 'study.dialogues.jsonl');
  const packets = join(dir, 'packets');

  before(async () => {
    copyFileSync(FIXTURE, study);
    // The experts' and laypeople's labels go into sidecars, as a team's study in git keeps them.
    const split = await cliAsync(['labels', 'split', study]);
    assert.equal(split.code, 0, split.stderr);
  });

  it('without packets: every annotator out of every candidate, α per dimension', async () => {
    const cli = await cliAsync(['progress', study]);
    assert.equal(cli.code, 0, cli.stderr);
    const opened = readStudy(study);
    assert.ok(opened.labelsFolder, 'the study keeps its labels in sidecars');
    const { rubric } = loadRubric(study);
    const status = teamStatus(opened.items, rubric, [])!;
    assert.ok(status, 'two or more annotators: a team to show');
    assertSame(cli.stdout, status.text, rubric.primary);
  });

  it('with the packets assign wrote, labelled and collected into the sidecars', async () => {
    const assign = await cliAsync(['assign', study, '--annotators', 'T1,T2,T3', '-k', '2', '--seed', '3', '-o', packets]);
    assert.equal(assign.code, 0, assign.stderr);
    // Each annotator labels their packet (coherent on even positions); T3 only half of it.
    for (const who of ['T1', 'T2', 'T3']) {
      const path = join(packets, `study.${who}.dialogues.jsonl`);
      const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
      const out = lines.map((l, li) => {
        const it = JSON.parse(l) as DialogueItem;
        if (who === 'T3' && li % 2 === 1) return l;
        return JSON.stringify({ ...it, candidates: it.candidates.map((c, i) => ({ ...c, annotations: [{ annotator: who, coherent: (i + li + (who === 'T2' ? 1 : 0)) % 3 !== 0 }] })) });
      });
      writeFileSync(path, out.join('\n') + '\n');
    }
    const collect = await cliAsync(['collect', study, ...['T1', 'T2', 'T3'].map((w) => join(packets, `study.${w}.dialogues.jsonl`))]);
    assert.equal(collect.code, 0, collect.stderr);
    const cli = await cliAsync(['progress', study, '--packets', packets]);
    assert.equal(cli.code, 0, cli.stderr);
    const { rubric } = loadRubric(study);
    const found = teamManifests(study, [packets]);
    assert.equal(found.flatMap((f) => f.manifests).length, 3);
    const status = teamStatus(readStudy(study).items, rubric, found)!;
    assertSame(cli.stdout, status.text, rubric.primary);
    assert.match(status.text, /T3 \d+\/\d+/);
    assert.ok(status.lines.some((l) => l.startsWith('  Agreement so far (Krippendorff): ')));
  });
});
