/**
 * End to end in real VS Code (see harness.ts): "ReflectEval: Score Candidates…" on an open dialogue file — the
 * metric quick pick over the registry (BLEU-4, ROUGE-L and METEOR preselected), configurations from the
 * reflectEval.metrics setting, progress notification, scores merged into the document — and the saved file
 * holds the same scores as `reflect-eval score` on a copy.
 *
 * Run: `npm run build && npx mocha --config test/e2e/.mocharc.json test/e2e/score.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { failedAttempt, launchWorkbench, openDialogueFile, out, prerequisitesPresent, root, runCli, runCommand, waitFor, waitForJobSummary, type Workbench } from './harness';

describe('Score Candidates… in real VS Code (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let file = '';
  let expected: Record<string, unknown>[] = [];

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench(
      (ws) => {
        file = join(ws, 'scored.dialogues.jsonl');
        runCli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '3', '--seed', '5', '-o', file]);
        const items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
        for (const it of items) it.candidates.push({ id: 'm', text: 'So you are thinking about cutting down.', origin: { kind: 'model' }, annotations: [], scores: {} });
        writeFileSync(file, items.map((i) => JSON.stringify(i)).join('\n') + '\n');
        // The same scoring by the CLI on a copy: what the command must store.
        const copy = join(ws, '..', 'cli-copy.dialogues.jsonl');
        copyFileSync(file, copy);
        runCli(['score', copy, '--metric', 'bleu4', 'rougeL', 'meteor', '--config', JSON.stringify({ bleu4: [{ smoothing: 'none' }, { smoothing: 'method1' }] })]);
        expected = readFileSync(copy, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      },
      { 'reflectEval.metrics': { bleu4: [{ smoothing: 'none' }, { smoothing: 'method1' }] } },
    );
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('score');
  });

  after(async function () {
    await wb?.close('code-server-logs-score');
  });

  it('scores every candidate with the picked metrics and the configured variants, as the CLI does', async () => {
    const p = (wb as Workbench).page as Page;
    const frame = await openDialogueFile(p, 'scored.dialogues.jsonl');
    const from = wb!.output().length;
    await runCommand(p, 'ReflectEval: Score Candidates');
    await p.waitForSelector('.quick-input-widget .quick-input-title:has-text("Score candidates with")', { timeout: 30_000 });
    const rows = await p.$$eval('.quick-input-list .monaco-list-row', (els) => els.map((e) => e.textContent ?? ''));
    for (const name of ['bleu4', 'sacrebleu', 'rougeL', 'meteor']) assert.ok(rows.some((r) => r.includes(name)), `${name} offered: ${rows.join(' | ')}`);
    await p.screenshot({ path: join(out, 'score-picker.png') });
    // BLEU-4, ROUGE-L and METEOR are preselected. Accept only once the picker shows them checked: an Enter that came
    // first accepted an empty pick in one CI run (nothing was scored, no summary).
    await waitFor('the preselected metrics checked', async () => (await p.locator('.quick-input-list .monaco-list-row[aria-checked="true"]').count()) >= 3, 30_000);
    await p.keyboard.press('Enter');
    const note = await waitForJobSummary(wb!, 'score', from);
    // 3 items × (reference + one model candidate): the reference is never scored against itself, so 3 each.
    assert.match(note, /BLEU-4 \(no smoothing\): 3 scored.*BLEU-4 \(smoothing method 1[^)]*\): 3 scored.*ROUGE-L[^;]*: 3 scored.*METEOR: 3 scored/);
    await p.screenshot({ path: join(out, 'score-done.png') });
    // The scores are in the document before the summary shows. Save without waiting for the tab's dirty mark (a busy
    // workbench showed it late once in CI: 30 s passed), and again every ~10 s until the file on disk has them.
    await frame.locator('.candidate').first().press('Control+s');
    let polls = 0;
    const saved = await waitFor('the scores on disk', async () => {
      if (++polls % 40 === 0) await frame.locator('.candidate').first().press('Control+s');
      const items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      return Object.keys(items[0].candidates[0].scores).some((k) => k.startsWith('metric:meteor.score@')) ? items : undefined;
    }, 60_000);
    assert.equal(saved.length, expected.length);
    saved.forEach((item, i) => {
      const want = expected[i] as { candidates: { scores: Record<string, unknown> }[] };
      item.candidates.forEach((c: { scores: Record<string, unknown> }, k: number) => {
        const metricScores = Object.fromEntries(Object.entries(c.scores).filter(([id]) => id.startsWith('metric:')));
        // Six metric outputs on every candidate (on the reference: each left out with reason is-reference, as the CLI writes).
        assert.equal(Object.keys(metricScores).length, 6, Object.keys(metricScores).join(', '));
        assert.deepEqual(metricScores, want.candidates[k].scores);
      });
    });
  });
});
