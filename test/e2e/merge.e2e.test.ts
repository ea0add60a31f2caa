/**
 * End to end in real VS Code (see harness.ts), issue 14 item 3 "merge instead of overwrite": with auto-save off,
 * labels are made and left unsaved, `reflect-eval score` rewrites the same file, and Ctrl+S writes both the labels
 * and the job's scores (no "the file is newer" choice). Then a label changed on both sides is shown with both
 * values and the user's pick is what gets saved. Unsaved labels survive a window reload (the editor's own document is
 * backed up for hot exit). Unsaved changes that are not labels are not merged, and the save asks before writing over
 * the file. A malformed line stays as it was throughout.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { cli, editorFrame, failedAttempt, keysLive, labelsApplied, launchWorkbench, MODAL_DIALOG, NOTIFICATION, openDialogueFile, out, prerequisitesPresent, root, runCli, runCommand, waitFor, waitForJobSummary, type Workbench } from './harness';
import type { Candidate, DialogueItem } from '../../src/core/dialogue/types';

const ANNOTATOR = 'e2e-merge';
const FILE = 'merge.dialogues.jsonl';
const BAD_LINE = '{"id": "corrupted", "context": [ this line is broken';

describe('Merging unsaved labels with a job that rewrote the file (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let file = '';

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench((ws) => {
      file = join(ws, FILE);
      // 24 items of 7 candidates (6 generated + the reference), labelled by six other annotators.
      runCli(['import', 'annotations', join(root, 'data/annotations/synthetic-annotations.csv'), '--reference', '-o', file]);
      writeFileSync(file, readFileSync(file, 'utf8') + BAD_LINE + '\n');
    }, { 'reflectEval.annotator': ANNOTATOR, 'files.autoSave': 'off' });
    page = wb.page;
  });

  after(async function () {
    await wb?.close('merge-code-server-logs');
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('merge');
  });

  const lines = () => readFileSync(file, 'utf8').split('\n');
  const onDisk = (): DialogueItem[] => lines().filter((l) => l.startsWith('{"id":"')).map((l) => JSON.parse(l));
  const mine = (c: Candidate) => c.annotations.find((a) => a.annotator === ANNOTATOR);

  it('labels with auto-save off, `reflect-eval score` rewrites the file, Ctrl+S saves both the labels and the scores', async () => {
    const p = page as Page;
    const frame = await openDialogueFile(p, FILE);
    await frame.waitForSelector('#candidates .candidate.focused', { timeout: 60_000 });
    await keysLive(frame);
    const c2 = onDisk()[0].candidates[1].id;
    for (const key of ['y', '4', 'j', 'n', '3']) await p.keyboard.press(key);
    // The last key shown (error 3, parroting), then applied: both labels in the document before the job writes the file.
    await frame.waitForSelector(`.candidate[data-candidate-id="${c2}"][data-coherent="no"] [data-error="parroting"][aria-pressed="true"]`, { timeout: 30_000 });
    await p.waitForSelector('.tab.active.dirty', { timeout: 30_000 });
    await labelsApplied(frame);
    assert.equal(onDisk().some((it) => it.candidates.some((c) => mine(c))), false, 'nothing saved yet');

    const started = Date.now();
    const job = spawnSync(process.execPath, [cli, 'score', file], { encoding: 'utf8' });
    assert.equal(job.status, 0, job.stderr);
    const scoredIds = Object.keys(onDisk()[0].candidates.find((c) => c.id !== 'ref')!.scores).filter((k) => k.startsWith('metric:'));
    assert.ok(scoredIds.length >= 3, `the job wrote its scores to disk: ${scoredIds.join(', ')}`);

    // The editor merges the labels into what the job wrote and says so.
    await waitFor('the merge notice', async () => (await p.locator(NOTIFICATION, { hasText: /changed on disk; your 2 unsaved label\(s\) were merged/ }).count()) > 0, 60_000);
    console.log(`      merged ${Date.now() - started} ms after the job started`);
    await waitFor('the scores in the webview', async () => (await frame.locator(`.candidate[data-candidate-id="${c2}"] .scores tr[data-evaluator]`).count()) >= 3, 30_000);
    await p.waitForSelector('.tab.active.dirty', { timeout: 30_000 });
    await p.screenshot({ path: join(out, 'merge-merged.png') });

    await frame.locator(`.candidate[data-candidate-id="${c2}"]`).press('Control+s');
    await p.waitForSelector('.tab.active:not(.dirty)', { timeout: 30_000 });
    assert.equal(await p.locator(NOTIFICATION, { hasText: /newer/ }).count(), 0, 'no "the file is newer" choice');
    const saved = await waitFor('labels on disk', async () => {
      const item = onDisk()[0];
      return mine(item.candidates[1])?.coherent === false ? item : undefined;
    }, 30_000);
    assert.equal(mine(saved.candidates[0])?.coherent, true);
    assert.equal(mine(saved.candidates[0])?.empathy, 4);
    assert.deepEqual(mine(saved.candidates[1])?.errors, ['parroting']);
    assert.equal(saved.candidates[0].annotations.length, 7, 'the six other annotators and ours');
    for (const item of onDisk()) {
      for (const c of item.candidates.filter((x) => x.id !== 'ref')) {
        for (const id of scoredIds) assert.ok(c.scores[id], `${item.id}/${c.id} keeps the job's score ${id}`);
      }
    }
    assert.ok(lines().includes(BAD_LINE), 'the malformed line is kept verbatim');
    assert.equal(lines().length, 26, '24 items, the malformed line, the final newline');
  });

  it('shows a label changed on both sides with both values, and saves the one the user picks', async () => {
    const p = page as Page;
    const frame = await openDialogueFile(p, FILE);
    await frame.waitForSelector('#candidates .candidate.focused', { timeout: 60_000 });
    const c1 = onDisk()[0].candidates[0].id;
    await frame.locator('.item-row[data-item-index="0"]').click();
    await frame.waitForSelector(`.candidate[data-candidate-id="${c1}"] [data-empathy="4"][aria-checked="true"]`, { timeout: 30_000 });
    // Unsaved: empathy 4 → 5.
    await frame.locator(`.candidate[data-candidate-id="${c1}"] [data-empathy="5"]`).click();
    await p.waitForSelector('.tab.active.dirty', { timeout: 30_000 });
    // Meanwhile another window saves empathy 2 for the same annotator and candidate.
    const text = lines();
    const item = JSON.parse(text[0]) as DialogueItem;
    mine(item.candidates[0])!.empathy = 2;
    text[0] = JSON.stringify(item);
    writeFileSync(file, text.join('\n'));
    const row = frame.locator('#conflicts li[data-kind="conflict"]');
    await row.waitFor({ timeout: 60_000 });
    assert.equal(await row.locator('.mine').textContent(), 'empathy 5');
    assert.equal(await row.locator('.disk').textContent(), 'empathy 2');
    await p.screenshot({ path: join(out, 'merge-conflict.png') });
    await row.locator('[data-choice="disk"]').click();
    await waitFor('the conflict to go', async () => (await frame.locator('#conflicts li').count()) === 0, 30_000);
    await frame.locator(`.candidate[data-candidate-id="${c1}"]`).press('Control+s');
    await waitFor('empathy 2 saved', async () => (mine(onDisk()[0].candidates[0])?.empathy === 2 ? true : undefined), 30_000);
    await p.waitForSelector('.tab.active:not(.dirty)', { timeout: 30_000 });
    assert.ok(lines().includes(BAD_LINE));
  });

  it('keeps unsaved labels over a window reload (hot exit: the editor backs its document up), and saves them after', async () => {
    const p = page as Page;
    let frame = await openDialogueFile(p, FILE);
    await frame.locator('.item-row[data-item-index="2"]').click();
    const c = onDisk()[2].candidates[0].id;
    const card = `.candidate[data-candidate-id="${c}"]`;
    await frame.locator(card).click();
    await keysLive(frame);
    await p.keyboard.press('y');
    await frame.waitForSelector(`${card}[data-coherent="yes"]`, { timeout: 30_000 });
    await labelsApplied(frame);
    await p.waitForSelector('.tab.active.dirty', { timeout: 30_000 });
    assert.equal(mine(onDisk()[2].candidates[0]), undefined, 'not saved');
    // VS Code backs a dirty editor up a moment after each change.
    await p.waitForTimeout(3000);
    await runCommand(p, 'Developer: Reload Window');
    await p.waitForSelector('.monaco-workbench', { timeout: 120_000 });
    frame = await editorFrame(p, 120_000);
    await p.waitForSelector('.tab.active.dirty', { timeout: 60_000 });
    await frame.locator('.item-row[data-item-index="2"]').click();
    await frame.waitForSelector(`${card}[data-coherent="yes"]`, { timeout: 30_000 });
    assert.equal(mine(onDisk()[2].candidates[0]), undefined, 'still not saved');
    await p.screenshot({ path: join(out, 'merge-hot-exit.png') });
    await frame.locator(card).press('Control+s');
    await waitFor('the label saved', async () => mine(onDisk()[2].candidates[0])?.coherent === true, 30_000);
    await p.waitForSelector('.tab.active:not(.dirty)', { timeout: 30_000 });
    assert.ok(lines().includes(BAD_LINE));
  });

  it('unsaved changes that are not only labels are not merged, and the save asks before writing over the file', async () => {
    const p = page as Page;
    const frame = await openDialogueFile(p, FILE);
    await frame.waitForSelector('#candidates .candidate', { timeout: 60_000 });
    // Scores computed in the editor (SacreBLEU, which the CLI run above did not compute): unsaved, not labels.
    const from = wb!.output().length;
    await runCommand(p, 'ReflectEval: Score Candidates');
    await p.waitForSelector('.quick-input-widget .quick-input-title:has-text("Score candidates with")', { timeout: 30_000 });
    const sacre = p.locator('.quick-input-list .monaco-list-row', { hasText: 'sacrebleu' }).first();
    await sacre.click();
    await waitFor('SacreBLEU checked', async () => (await sacre.getAttribute('aria-checked')) === 'true', 30_000);
    await p.keyboard.press('Enter');
    assert.match(await waitForJobSummary(wb!, 'score', from), /sacreBLEU[^;]*: \d+ scored/i);
    await p.waitForSelector('.tab.active.dirty', { timeout: 30_000 });
    const sacreOnDisk = () => onDisk().some((it) => it.candidates.some((c) => Object.keys(c.scores).some((k) => k.startsWith('metric:sacrebleu'))));
    assert.equal(sacreOnDisk(), false);
    // Another window saves a different label meanwhile.
    const text = lines();
    const item = JSON.parse(text[3]) as DialogueItem;
    item.candidates[1].annotations[0].coherent = !item.candidates[1].annotations[0].coherent;
    text[3] = JSON.stringify(item);
    writeFileSync(file, text.join('\n'));
    await waitFor('the warning that it cannot merge', async () => (await p.locator(NOTIFICATION, { hasText: /unsaved changes are not only labels/ }).count()) > 0, 60_000);
    const dialog = p.locator(MODAL_DIALOG);
    // Cancelled: nothing written.
    await frame.locator('.candidate').first().press('Control+s');
    await dialog.waitFor({ timeout: 30_000 });
    assert.match((await dialog.textContent()) ?? '', /changed on disk.*Write the editor's version over the file's\?/);
    await p.screenshot({ path: join(out, 'merge-overwrite-asked.png') });
    await p.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden', timeout: 30_000 });
    assert.equal(lines().join('\n'), text.join('\n'), 'the file as the other window wrote it');
    assert.equal(await p.locator('.tab.active.dirty').count(), 1);
    // Overwrite: the editor's version.
    await frame.locator('.candidate').first().press('Control+s');
    await dialog.locator('a.monaco-button', { hasText: 'Overwrite' }).click();
    await waitFor('the scores on disk', async () => sacreOnDisk(), 30_000);
    await p.waitForSelector('.tab.active:not(.dirty)', { timeout: 30_000 });
    assert.ok(lines().includes(BAD_LINE));
  });
});
