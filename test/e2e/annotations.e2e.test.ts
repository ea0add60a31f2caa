/**
 * End to end in real VS Code (see harness.ts): "ReflectEval: Import Annotation Table (CSV)…" through VS Code's own
 * file dialogs, the imported file opening in the ReflectEval editor, then "ReflectEval: Export Annotation Table
 * (CSV)…" writing the table back — byte for byte the synthetic table we started from.
 *
 * Run: `npm run build && npx mocha --no-config --node-option import=tsx --timeout 600000 test/e2e/annotations.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { answerFileDialog, editorFrame, failedAttempt, launchWorkbench, out, prerequisitesPresent, root, runCommand, waitFor, type Workbench } from './harness';

describe('annotation tables in real VS Code (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  const table = join(root, 'data', 'annotations', 'synthetic-annotations.csv');

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench((ws) => copyFileSync(table, join(ws, 'annotations.csv')));
  });

  after(async function () {
    await wb?.close('code-server-logs-annotations');
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('annotations');
  });

  it('imports the table through the file dialogs and opens it in the ReflectEval editor', async () => {
    const { page, workspace } = wb!;
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'annotations.csv' }).waitFor({ timeout: 60_000 });
    await runCommand(page, 'ReflectEval: Import Annotation Table (CSV)');
    await answerFileDialog(page, join(workspace, 'annotations.csv'));
    // the human responses: make them the references
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Also make each context' }).click({ timeout: 30_000 });
    const target = join(workspace, 'study.dialogues.jsonl');
    await answerFileDialog(page, target);
    const frame = await editorFrame(page);
    await frame.waitForSelector('#transcript .turn:not([hidden])', { timeout: 60_000 });
    const items = readFileSync(target, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    assert.equal(items.length, 24);
    assert.ok(items.every((i) => i.reference && i.candidates.some((c: { id: string }) => c.id === 'ref')));
    assert.equal(items[0].candidates[0].annotations.length, 6);
    await page.screenshot({ path: join(out, 'annotations-imported.png') });
  });

  it('exports the open dialogue file back to the same table', async () => {
    const { page, workspace } = wb!;
    await runCommand(page, 'ReflectEval: Export Annotation Table (CSV)');
    const target = join(workspace, 'exported.csv');
    await answerFileDialog(page, target);
    await waitFor('the exported table', async () => existsSync(target) && readFileSync(target, 'utf8').length > 0);
    assert.equal(readFileSync(target, 'utf8'), readFileSync(table, 'utf8'));
  });
});
