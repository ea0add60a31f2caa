/**
 * End to end in real VS Code (see harness.ts): "ReflectEval: Cluster Candidates (semantic dedup)" on an open
 * dialogue file, with the model and threshold from the reflectEval.dedup.* settings (the tiny fixture encoder),
 * progress notification, clusters merged into the document — and the saved file holds the same clusters as
 * `reflect-eval dedup` on a copy.
 *
 * Run: `npm run build && npx mocha --config test/e2e/.mocharc.json test/e2e/dedup.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { failedAttempt, launchWorkbench, openDialogueFile, out, prerequisitesPresent, root, runCli, runCommand, waitFor, waitForJobSummary, type Workbench } from './harness';
import { PLAN_CLUSTER_TEXTS } from '../helpers/reflections';

const MODEL = join(root, 'fixtures', 'models', 'reflect-roberta-tiny');
const TEXTS = PLAN_CLUSTER_TEXTS.slice(0, 7);

describe('Cluster Candidates (semantic dedup) in real VS Code (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let file = '';
  let expected: { candidates: { cluster?: unknown }[] }[] = [];

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench(
      (ws) => {
        file = join(ws, 'grid.dialogues.jsonl');
        runCli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '2', '--seed', '5', '-o', file]);
        const items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
        for (const it of items) for (const [i, text] of TEXTS.entries()) it.candidates.push({ id: `m${i}`, text, origin: { kind: 'model' }, annotations: [], scores: {} });
        writeFileSync(file, items.map((i) => JSON.stringify(i)).join('\n') + '\n');
        const copy = join(ws, '..', 'cli-copy.dialogues.jsonl');
        copyFileSync(file, copy);
        runCli(['dedup', copy, '--model', MODEL, '--threshold', '0.5', '--sample', '2', '--seed', '3']);
        expected = readFileSync(copy, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      },
      { 'reflectEval.dedup.model': MODEL, 'reflectEval.dedup.threshold': 0.5, 'reflectEval.dedup.sample': 2, 'reflectEval.dedup.seed': 3 },
    );
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('dedup');
  });

  after(async function () {
    await wb?.close('code-server-logs-dedup');
  });

  it('clusters every generated candidate as the CLI does, with representatives and the seeded sample', async () => {
    const p = (wb as Workbench).page as Page;
    const frame = await openDialogueFile(p, 'grid.dialogues.jsonl');
    const from = (wb as Workbench).output().length;
    await runCommand(p, 'ReflectEval: Cluster Candidates');
    const note = await waitForJobSummary(wb as Workbench, 'dedup', from);
    assert.match(note, /mean size of a sampled cluster/);
    assert.match(note, /clusters in 2 item\(s\).*2 item\(s\) updated/);
    await p.screenshot({ path: join(out, 'dedup-done.png') });
    await p.waitForSelector('.tab.active.dirty', { timeout: 30_000 });
    await frame.locator('.candidate').first().press('Control+s');
    const saved = await waitFor('the clusters on disk', async () => {
      const items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      return items[0].candidates.some((c: { cluster?: unknown }) => c.cluster) ? items : undefined;
    }, 30_000);
    assert.equal(saved.length, expected.length);
    saved.forEach((item: { candidates: { cluster?: { sampled?: boolean; representative: boolean } ; origin: { kind: string } }[] }, i: number) => {
      item.candidates.forEach((c, k) => assert.deepEqual(c.cluster, expected[i].candidates[k].cluster, `item ${i} candidate ${k}`));
      const generated = item.candidates.filter((c) => c.origin.kind !== 'human');
      assert.ok(generated.every((c) => c.cluster));
      assert.equal(new Set(generated.filter((c) => c.cluster!.sampled).map((c) => JSON.stringify(c.cluster))).size > 0, true);
    });
  });
});
