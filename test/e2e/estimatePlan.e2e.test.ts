/**
 * End to end in real VS Code (see harness.ts): an estimate plan made with `reflect-eval estimate … --target` beside
 * the study shows in the dialogue editor's item list — its estimate line and labels to go, the items in the plan's
 * order — and a label moves it (issue 43 item 4).
 *
 * Run: `bash scripts/e2e/run.sh test/e2e/estimatePlan.e2e.test.ts` (after `npm run build`).
 */
import assert from 'node:assert/strict';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { editorFrame, failedAttempt, launchWorkbench, openDialogueFile, out, prerequisitesPresent, root, runCli, waitFor, type Workbench } from './harness';

describe('An estimate plan in the dialogue editor (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let cliLine = '';

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench((ws) => {
      const file = join(ws, 'est.dialogues.jsonl');
      copyFileSync(join(root, 'test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl'), file);
      const printed = runCli(['estimate', file, '--estimand', 'coherence-rate', '--predictor', 'human:laypeople', '--target', '0.1']);
      cliLine = printed.split('\n').find((l) => l.startsWith('target:')) ?? '';
    }, { 'reflectEval.annotator': 'Expert-RS' });
    page = wb.page;
  });

  after(async function () {
    await wb?.close('code-server-logs');
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('estimate-plan');
  });

  it('shows the estimate plan with its labels to go, as the CLI says, in plan order', async () => {
    const p = page as Page;
    await openDialogueFile(p, 'est.dialogues.jsonl');
    const frame = await editorFrame(p);
    await frame.selectOption('#nav-order', 'plan');
    const text = await waitFor('the estimate plan line', async () => {
      const t = (await frame.textContent('#nav-plan')) ?? '';
      return /^Plan: .*coherence rate.*labels to go/.test(t) ? t : undefined;
    }, 60_000);
    const toGo = /labels to go: about (\d+)/.exec(cliLine)?.[1];
    assert.ok(toGo, cliLine);
    assert.ok(text.includes(`about ${toGo} labels to go`), `${text} — the CLI said: ${cliLine}`);
    await p.screenshot({ path: join(out, 'estimate-plan.png') });
  });
});
