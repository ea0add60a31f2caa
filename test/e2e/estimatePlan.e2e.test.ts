/**
 * End to end in real VS Code (see harness.ts): an estimate plan made with `reflect-eval estimate … --target` beside
 * the study shows in the dialogue editor's item list — its estimate line and labels to go, the items in the plan's
 * order — and a label moves it (issue 43 item 4).
 *
 * Run: `bash scripts/e2e/run.sh test/e2e/estimatePlan.e2e.test.ts` (after `npm run build`).
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { DialogueItem } from '../../src/core/dialogue/types';
import { parsePlanRecord, isEstimatePlanRecord } from '../../src/core/design/planRecord';
import { estimatePlanView } from '../../src/core/estimation';
import { editorFrame, failedAttempt, launchWorkbench, openDialogueFile, out, prerequisitesPresent, root, runCli, runCommand, waitFor, type Workbench } from './harness';

describe('An estimate plan in the dialogue editor (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let cliLine = '';
  const cliCopy = join(mkdtempSync(join(tmpdir(), 'estimate-cli-')), 'fresh.dialogues.jsonl');
  let items: DialogueItem[] = [];
  let recordText = '';

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench((ws) => {
      const file = join(ws, 'est.dialogues.jsonl');
      copyFileSync(join(root, 'test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl'), file);
      const printed = runCli(['estimate', file, '--estimand', 'coherence-rate', '--predictor', 'human:laypeople', '--target', '0.1']);
      copyFileSync(join(root, 'test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl'), join(ws, 'fresh.dialogues.jsonl'));
      copyFileSync(join(root, 'test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl'), cliCopy);
      cliLine = printed.split('\n').find((l) => l.startsWith('target:')) ?? '';
      items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as DialogueItem);
      recordText = readFileSync(join(ws, 'est.estimate-plan.json'), 'utf8');
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
    // Each group on the line: its estimate (none before the plan's first 20 labels) and its labels to go.
    assert.match(text, / — all: (no estimate yet|−?\d\.\d{3} \[−?\d\.\d{3}, −?\d\.\d{3}\]) · about \d+ labels to go/);
    await p.screenshot({ path: join(out, 'estimate-plan.png') });
  });

  it('U goes to the estimate plan’s next candidate, marked when drawn (issue 43 item 3: the editor order under the rule for U)', async () => {
    const p = page as Page;
    const frame = await editorFrame(p);
    const record = parsePlanRecord(recordText, 'est.estimate-plan.json');
    assert.ok(isEstimatePlanRecord(record));
    const view = estimatePlanView(items, record, { blind: false, next: Number.MAX_SAFE_INTEGER });
    await frame.click('#item h2');
    // From the focused candidate: the plan's next candidate after it when the plan names it, else the plan's first.
    const hereItem = await frame.textContent('#item h2');
    const hereCandidate = await frame.getAttribute('.candidate.focused', 'data-candidate-id');
    const at = view.next.findIndex((n) => n.itemId === hereItem && n.candidateId === hereCandidate);
    const next = view.next[at + 1];
    assert.ok(next, 'the plan names a candidate to label');
    await p.keyboard.press('u');
    await waitFor(`U to ${next.itemId} ${next.candidateId}`, async () => (await frame.textContent('#item h2')) === next.itemId && (await frame.getAttribute('.candidate.focused', 'data-candidate-id')) === next.candidateId, 30_000);
    assert.equal(await frame.locator('.candidate.focused .mark.drawn-mark').count(), next.status === 'drawn' ? 1 : 0, `status ${next.status}`);
  });

  it('starts an estimate plan from the editor (Start an Estimate Plan…): the same record and labels to go as the CLI', async () => {
    const p = page as Page;
    await openDialogueFile(p, 'fresh.dialogues.jsonl');
    const frame = await editorFrame(p);
    await runCommand(p, 'ReflectEval: Start an Estimate Plan…');
    const choose = async (title: string, row: string | RegExp) => {
      await p.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ timeout: 60_000 });
      await p.locator('.quick-input-list .monaco-list-row', { hasText: row }).first().click();
    };
    await choose('Estimate Plan (1/6)', 'coherence rate');
    await choose('Estimate Plan (2/6)', 'the whole study');
    await choose('Estimate Plan (3/6)', 'experts');
    await choose('Estimate Plan (4/6)', 'the laypeople');
    await choose('Estimate Plan (5/6)', 'the study’s own count');
    await choose('Estimate Plan (6/6)', /± 0\.1(?!5)/);
    const record = join(wb!.workspace, 'fresh.estimate-plan.json');
    await waitFor('the plan record beside the study', async () => existsSync(record), 60_000);
    // The CLI with the same settings on an identical copy: the same plan (everything but the time it was made).
    const printed = runCli(['estimate', cliCopy, '--estimand', 'coherence-rate', '--predictor', 'human:laypeople', '--target', '0.1']);
    const strip = (r: Record<string, unknown>) => ({ ...r, created: undefined });
    assert.deepEqual(strip(JSON.parse(readFileSync(record, 'utf8'))), strip(JSON.parse(readFileSync(cliCopy.replace(/dialogues\.jsonl$/, 'estimate-plan.json'), 'utf8'))));
    const toGo = /labels to go: about (\d+)/.exec(printed)?.[1];
    assert.ok(toGo, printed);
    const text = await waitFor('the estimate plan line', async () => {
      const t = (await frame.textContent('#nav-plan')) ?? '';
      return /coherence rate.*labels to go/.test(t) ? t : undefined;
    }, 60_000);
    assert.ok(text.includes(`about ${toGo} labels to go`), `${text} — the CLI said: ${printed}`);
    await p.screenshot({ path: join(out, 'estimate-plan-started.png') });
  });
});
