/**
 * End to end in real VS Code (see harness.ts), issue 41 item 5: a 1280×720 laptop with the Explorer open and the
 * correlation panel beside the dialogue editor, on the demo study (EvalReflections GPT-2 stage, 165 responses,
 * scored with 11 reference-metric rows, so the panel's table has more than 10 rows):
 * - the editor has one header row above the item list and the item (the navigation bar folds behind a toggle);
 * - no element with its own vertical scrollbar sits inside another scroll box (the expanded transcript grows in the
 *   item's scroll, it is not a box of its own), in the editor and in the panel;
 * - the item list keeps a usable width beside the panel;
 * - the forest plot of the panel is on screen without scrolling, all of its rows;
 * - the panel's CSV export equals `reflect-eval correlate --format csv` of the same file (columns and rows);
 * - screenshots in light, dark and high contrast under docs/screenshots/laptop-<tag>-<theme>.png
 *   (`LAPTOP_TAG=before` only measures and takes the pictures, without asserting: for the state before a change).
 *
 * Run alone: `npm run build && bash scripts/e2e/run.sh test/e2e/laptop.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { answerFileDialog, editorFrame, failedAttempt, frameWith, launchWorkbench, openDialogueFile, prerequisitesPresent, root, runCli, runCommand, waitFor, type Workbench } from './harness';

const TAG = process.env.LAPTOP_TAG ?? 'after';
const ASSERT = TAG !== 'before';
const SHOTS = join(root, 'docs', 'screenshots');
const DEMO = 'evalreflections.dialogues.jsonl';

/** Switches the colour theme through the workspace settings (VS Code applies them live) and waits for it. */
async function setTheme(wb: Workbench, theme: string, bodyClass: string): Promise<void> {
  mkdirSync(join(wb.workspace, '.vscode'), { recursive: true });
  writeFileSync(join(wb.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'workbench.colorTheme': theme }));
  await wb.page.waitForSelector(`.monaco-workbench.${bodyClass}`, { timeout: 60_000 });
  await wb.page.waitForTimeout(1500); // webviews receive the new theme's variables after the workbench
}

/**
 * Elements of a webview's document that show their own vertical scrollbar (overflow-y auto/scroll and content
 * taller than the box) inside an ancestor that is itself a vertical scroll box: the nested scroll boxes.
 */
async function nestedScrollBoxes(frame: Frame): Promise<string[]> {
  // A string, not a function: tsx's name helper (`__name`) does not exist in the page.
  return frame.evaluate(`(() => {
    const scrolls = (e) => /auto|scroll/.test(getComputedStyle(e).overflowY);
    const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.classList.length ? '.' + [...e.classList].join('.') : '');
    const found = [];
    const doc = document.scrollingElement;
    const pageScrolls = doc && doc.scrollHeight > doc.clientHeight + 1;
    for (const h of document.querySelectorAll('body *')) {
      if (!scrolls(h) || h.scrollHeight <= h.clientHeight + 1 || h.getClientRects().length === 0) continue;
      let inside = pageScrolls ? 'the scrolling page' : '';
      for (let a = h.parentElement; a && a !== document.body && a !== document.documentElement; a = a.parentElement) {
        if (scrolls(a)) { inside = name(a); break; }
      }
      if (inside) found.push(name(h) + ' (' + h.clientHeight + ' px showing ' + h.scrollHeight + ' px) inside ' + inside);
    }
    return found;
  })()`) as Promise<string[]>;
}

describe('1280×720 laptop: the Explorer open, the correlation panel beside the dialogue editor (issue 41 item 5)', function () {
  this.timeout(15 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench(
      (ws) => {
        const file = join(ws, DEMO);
        runCli(['import', 'annotations', join(root, 'data/evalreflections/annotations-gpt2-stage.csv'), '--reference', '-o', file]);
        runCli(['score', file, '--metric', 'bleu4', 'rougeL', 'meteor', 'sacrebleu', 'nmtBleu', 'cocoBleu']);
      },
      { 'workbench.colorTheme': 'Default Light Modern', 'reflectEval.annotator': 'Expert-RS' },
    );
    page = wb.page;
    await page.setViewportSize({ width: 1280, height: 720 });
    mkdirSync(SHOTS, { recursive: true });
  });

  after(async function () {
    await wb?.close('laptop-code-server-logs');
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('laptop');
  });

  it('has one header row, no nested scroll box, a usable item list and the forest plot on screen, in light, dark and high contrast', async () => {
    const p = page as Page;
    const w = wb as Workbench;
    // The Explorer stays open (the workbench's default side bar); the file opens from it.
    await p.locator('.explorer-folders-view').waitFor({ timeout: 60_000 });
    let editor = await openDialogueFile(p, DEMO);
    await editor.waitForSelector('.candidate', { timeout: 60_000 });
    await runCommand(p, 'ReflectEval: Show Correlation Table');
    const panel = await frameWith(p, '#correlations tr[data-evaluator]', 'the correlation table');
    editor = await editorFrame(p);
    await p.waitForTimeout(1500); // the editor's column settles to half the window; the toolbar refits on resize
    assert.ok(await p.locator('.explorer-folders-view').isVisible(), 'the Explorer is open');
    const rows = await panel.locator('#correlations tbody tr[data-evaluator]:not(.reference)').count();
    console.log(`      correlation table: ${rows} evaluator rows`);
    assert.ok(rows >= 10, `a table of at least 10 rows (${rows})`);
    const failures: string[] = [];
    for (const [theme, cls, name] of [
      ['Default Light Modern', 'vs', 'light'],
      ['Default Dark Modern', 'vs-dark', 'dark'],
      ['Default High Contrast', 'hc-black', 'hc'],
    ] as const) {
      await setTheme(w, theme, cls);
      const e = await editorFrame(p);
      const eBox = (await (await e.frameElement()).boundingBox())!;
      const pBox = (await (await panel.frameElement()).boundingBox())!;
      // Header: from the webview's top to the top of the item list / item.
      const layout = (await e.locator('#layout').boundingBox())!;
      const header = Math.round(layout.y - eBox.y);
      const toolbar = (await e.locator('#toolbar').boundingBox())!;
      const list = await e.locator('#item-list').boundingBox();
      const listWidth = (await e.locator('#item-list').isVisible()) && list ? Math.round(list.width) : 0;
      // The whole transcript shown (as the researcher reading a long context would), then the scroll boxes.
      const toggle = e.locator('.transcript-toggle');
      if ((await toggle.count()) && (await toggle.getAttribute('aria-expanded')) === 'false') await toggle.click();
      await p.waitForTimeout(300);
      const transcript = (await e.locator('#transcript').boundingBox())!;
      const nestedEditor = await nestedScrollBoxes(e);
      // The panel scrolled to its top: where the forest plot starts and ends.
      await panel.evaluate(() => window.scrollTo(0, 0));
      await panel.waitForSelector('#plot svg g.row', { timeout: 60_000 });
      const plot = (await panel.locator('#plot svg').boundingBox())!;
      const lastRow = (await panel.locator('#plot svg g.row').last().boundingBox())!;
      const nestedPanel = await nestedScrollBoxes(panel);
      console.log(
        `      ${name}: editor ${Math.round(eBox.width)}×${Math.round(eBox.height)} px, header ${header} px (toolbar ${Math.round(toolbar.height)} px), item list ${listWidth} px wide, ` +
          `transcript ${Math.round(transcript.height)} px; panel ${Math.round(pBox.width)}×${Math.round(pBox.height)} px, forest plot top ${Math.round(plot.y - pBox.y)} px, ` +
          `last row bottom ${Math.round(lastRow.y + lastRow.height - pBox.y)} px, plot bottom ${Math.round(plot.y + plot.height - pBox.y)} px`,
      );
      console.log(`      ${name}: nested scroll boxes: editor ${nestedEditor.join('; ') || 'none'}; panel ${nestedPanel.join('; ') || 'none'}`);
      await p.screenshot({ path: join(SHOTS, `laptop-${TAG}-${name}.png`) });
      if (header > 48) failures.push(`${name}: editor header ${header} px (more than one row)`);
      if (listWidth < 120) failures.push(`${name}: item list ${listWidth} px wide`);
      if (nestedEditor.length) failures.push(`${name}: nested scroll boxes in the editor: ${nestedEditor.join('; ')}`);
      if (nestedPanel.length) failures.push(`${name}: nested scroll boxes in the panel: ${nestedPanel.join('; ')}`);
      if (plot.y < pBox.y || plot.y > pBox.y + pBox.height - 40) failures.push(`${name}: forest plot top at ${Math.round(plot.y - pBox.y)} px of ${Math.round(pBox.height)}`);
      if (lastRow.y + lastRow.height > pBox.y + pBox.height) failures.push(`${name}: the forest plot's last row ends at ${Math.round(lastRow.y + lastRow.height - pBox.y)} px, below the panel's ${Math.round(pBox.height)} px`);
      // Back to the last turns for the next theme.
      if ((await toggle.count()) && (await toggle.getAttribute('aria-expanded')) === 'true') await toggle.click();
    }
    if (ASSERT) assert.deepEqual(failures, []);
    else console.log(`      (${TAG}: not asserted) ${failures.join('\n      ') || 'nothing failed'}`);
  });

  it('keeps the folded controls one click or key away: the navigation bar and the panel settings', async function () {
    if (!ASSERT) this.skip();
    const p = page as Page;
    const e = await editorFrame(p);
    // The navigation bar opens from the header (and `/` focuses its search field).
    await e.locator('.candidate').first().click();
    await p.keyboard.press('/');
    await e.waitForSelector('#navigator:not([hidden])', { timeout: 10_000 });
    await waitFor('the search field focused', async () => (await e.evaluate(() => document.activeElement?.id)) === 'nav-search', 10_000);
    const search = (await e.locator('#nav-search').boundingBox())!;
    assert.ok(search.y + search.height <= 720, 'the search field on screen');
    // A search that narrows the list: folded, the Find button still says so.
    const id = ((await e.textContent('#item h2')) ?? '').trim();
    await e.fill('#nav-search', id);
    await waitFor('the list narrowed', async () => / of \d+ items$/.test(((await e.textContent('#nav-count')) ?? '').trim()), 30_000);
    await p.screenshot({ path: join(SHOTS, `laptop-${TAG}-hc-navigator-open.png`) });
    await e.click('#toggle-nav');
    await e.waitForSelector('#navigator[hidden]', { state: 'attached', timeout: 10_000 });
    assert.equal(await e.getAttribute('#toggle-nav', 'aria-expanded'), 'false');
    const header = (await e.locator('#layout').boundingBox())!.y - (await (await e.frameElement()).boundingBox())!.y;
    assert.ok(header <= 48, `one header row again (${header} px)`);
    await waitFor('the folded Find button to name the narrowed list', async () => /^Find · \d+ of \d+$/.test(((await e.textContent('#toggle-nav')) ?? '').trim()), 10_000);
    console.log(`      folded with a search: "${(await e.textContent('#toggle-nav'))?.trim()}"`);
    await p.screenshot({ path: join(SHOTS, `laptop-${TAG}-hc-navigator-folded-search.png`) });
    await e.click('#toggle-nav');
    await e.fill('#nav-search', '');
    await waitFor('the whole list again', async () => /^\d+ items$/.test(((await e.textContent('#nav-count')) ?? '').trim()), 30_000);
    await e.click('#toggle-nav');
    await waitFor('Find without a count', async () => ((await e.textContent('#toggle-nav')) ?? '').trim() === 'Find', 10_000);
    // The panel's settings fold into a disclosure whose summary names them.
    const panel = await frameWith(p, '#correlations tr[data-evaluator]', 'the correlation table');
    const summary = (await panel.textContent('#settings > summary')) ?? '';
    assert.match(summary, /Spearman/);
    await panel.click('#settings > summary');
    await panel.waitForSelector('#method', { state: 'visible', timeout: 10_000 });
  });

  it('exports the CSV the CLI writes for the same table: the same columns (BART, not 0:BART) and the same rows', async function () {
    if (!ASSERT) this.skip();
    const p = page as Page;
    const w = wb as Workbench;
    const panel = await frameWith(p, '#correlations tr[data-evaluator]', 'the correlation table');
    if (!(await panel.locator('#export-csv').isVisible())) await panel.click('#settings > summary');
    await panel.click('#export-csv');
    const target = join(w.workspace, 'panel.csv');
    await answerFileDialog(p, target);
    const fromPanel = await waitFor('the exported CSV', async () => existsSync(target) && readFileSync(target, 'utf8'), 30_000);
    const fromCli = runCli(['correlate', join(w.workspace, DEMO), '--format', 'csv']);
    const [panelHead, cliHead] = [fromPanel, fromCli].map((t) => t.split('\n')[0]);
    console.log(`      CSV columns: ${cliHead}`);
    assert.equal(panelHead, cliHead, 'the same columns');
    assert.doesNotMatch(fromPanel, /(^|,)0:/m);
    assert.equal(fromPanel.trimEnd(), fromCli.trimEnd(), 'the same rows');
  });
});
