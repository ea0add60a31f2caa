/**
 * End to end in real VS Code (see harness.ts): the Agreement & Errors panel on a study with its own rubric (issue 39
 * item 4) — a dimension picker instead of the first study's MI analyses, showing the picked dimension's coefficients
 * with the one that fits its type first, the same numbers as `reflect-eval agreement <file> --dimension <name>
 * --json`. Picks an ordinal, a numeric and a binary dimension. Screenshots at 1280×720 in light, dark and high
 * contrast (test-output/e2e/agreement-dimension-*.png).
 *
 * Run: `npm run build && bash scripts/e2e/run.sh test/e2e/agreementDimension.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { failedAttempt, frameWith, launchWorkbench, openDialogueFile, out, prerequisitesPresent, root, runCommand, runCli, waitFor, type Workbench } from './harness';

const FILE = 'study.dialogues.jsonl';

/** Switches the colour theme through the workspace settings (VS Code applies them live) and waits for it. */
async function setTheme(wb: Workbench, theme: string, bodyClass: string): Promise<void> {
  mkdirSync(join(wb.workspace, '.vscode'), { recursive: true });
  writeFileSync(join(wb.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'workbench.colorTheme': theme }));
  await wb.page.waitForSelector(`.monaco-workbench.${bodyClass}`, { timeout: 60_000 });
  await wb.page.waitForTimeout(1000);
}

describe('Agreement panel: a dimension picker on a study with its own rubric (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let file = '';

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench(
      (ws) => {
        file = join(ws, FILE);
        copyFileSync(join(root, 'test/core/agreement/fixtures/rubric-study.dialogues.jsonl'), file);
        copyFileSync(join(root, 'test/core/agreement/fixtures/rubric-study.rubric.json'), join(ws, 'study.rubric.json'));
      },
      { 'reflectEval.annotator': 'R-e2e', 'workbench.colorTheme': 'Default Light Modern' },
    );
    page = wb.page;
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  after(async function () {
    await wb?.close('agreement-dimension-code-server-logs');
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('agreement-dimension');
  });

  /** The panel's headline coefficients per annotator-group table, as `data-headline` holds them (unrounded). */
  const headlines = (panel: Frame) => panel.$$eval('#dimension p.headline span[data-headline]', (els) => els.map((e) => (e as HTMLElement).dataset.headline));

  it('shows the picked dimension\'s coefficients, the command line\'s numbers, in light, dark and high contrast', async () => {
    const p = page as Page;
    await openDialogueFile(p, FILE);
    await runCommand(p, 'ReflectEval: Show Agreement & Error Analyses');
    const panel = await frameWith(p, '#dimension-select', 'the agreement panel\'s dimension picker');
    assert.equal(await panel.isHidden('#kappa-section'), true, 'the first study\'s MI analyses are not shown');
    for (const [dimension, field] of [
      ['Overall', 'alpha'],
      ['Specificity', 'alpha'],
      ['Sensible', 'kappa'],
    ] as const) {
      if (dimension !== 'Overall') await panel.selectOption('#dimension-select', dimension);
      const cli = JSON.parse(runCli(['agreement', file, '--dimension', dimension, '--json']));
      const expected = (cli.coefficients.groups[0].tables as { rows: { alpha: { alpha: number | null }; fleiss: { kappa: number | null } }[] }[]).map((t) => {
        const v = field === 'alpha' ? t.rows[0].alpha.alpha : t.rows[0].fleiss.kappa;
        return v === null ? '' : String(v);
      });
      await waitFor(`the panel on ${dimension}`, async () => JSON.stringify(await headlines(panel)) === JSON.stringify(expected) || undefined, 30_000);
      assert.match((await panel.textContent('#cli')) ?? '', new RegExp(`--dimension ${dimension}`));
    }
    await panel.selectOption('#dimension-select', 'Overall');
    await waitFor('back on Overall', async () => ((await panel.textContent('#dimension')) ?? '').includes("Krippendorff's alpha (ordinal)") || undefined, 30_000);
    const w = wb as Workbench;
    for (const [theme, cls, name] of [
      ['Default Light Modern', 'vs', 'light'],
      ['Default Dark Modern', 'vs-dark', 'dark'],
      ['Default High Contrast', 'hc-black', 'hc'],
    ] as const) {
      await setTheme(w, theme, cls);
      await p.screenshot({ path: join(out, `agreement-dimension-${name}.png`) });
    }
  });
});
