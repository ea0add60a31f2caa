/**
 * End to end in real VS Code (see harness.ts): a labelling key pressed before the annotator id is set is not lost
 * (issue 41 item 6). With no `reflectEval.annotator`, Y on a focused candidate asks for the id, and the label is
 * then applied under the id typed; saved, the file has it.
 *
 * Run: `bash scripts/e2e/run.sh test/e2e/annotatorFirst.e2e.test.ts` (after `npm run build`).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { editorFrame, failedAttempt, launchWorkbench, openDialogueFile, out, prerequisitesPresent, QUICK_INPUT, root, runCli, waitFor, type Workbench } from './harness';

const TYPED = 'Expert-RS';

describe('A labelling key before the annotator id is set (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let file = '';

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench((ws) => {
      file = join(ws, 'first.dialogues.jsonl');
      runCli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '2', '--seed', '3', '-o', file]);
    }, {});
    page = wb.page;
  });

  after(async function () {
    await wb?.close('code-server-logs');
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('annotator-first');
  });

  it('asks for the id, then applies the Y under it; the saved file has the label', async () => {
    const p = page as Page;
    await openDialogueFile(p, 'first.dialogues.jsonl');
    const frame = await editorFrame(p);
    const candidate = frame.locator('.candidate').first();
    await candidate.waitFor({ timeout: 60_000 });
    const candidateId = await candidate.getAttribute('data-candidate-id');
    await candidate.focus();
    await p.keyboard.press('y');
    const input = p.locator(QUICK_INPUT).first();
    await input.waitFor({ timeout: 30_000 });
    await p.screenshot({ path: join(out, 'annotator-first-asked.png') });
    await input.fill(TYPED);
    await p.keyboard.press('Enter');
    await frame.waitForSelector(`.candidate[data-candidate-id="${candidateId}"][data-coherent="yes"]`, { timeout: 30_000 });
    await p.waitForSelector('.tab.active.dirty', { timeout: 30_000 });
    await candidate.press('Control+s');
    await p.waitForSelector('.tab.active:not(.dirty)', { timeout: 30_000 });
    await waitFor('the label on disk, by the annotator typed', async () => {
      const item = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]);
      const c = item.candidates.find((x: { id: string }) => x.id === candidateId);
      return c?.annotations?.some((a: { annotator: string; coherent?: boolean }) => a.annotator === TYPED && a.coherent === true) ? true : undefined;
    });
    assert.ok(true);
  });
});
