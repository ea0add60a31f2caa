/**
 * End to end in real VS Code (see harness.ts), on a 1280×720 laptop with the correlation panel beside the dialogue
 * editor (its default placement), issue 18 items 2 and 7:
 * - every toolbar control of the editor is on screen and not clipped, or in the overflow menu, and works from there;
 * - the item list hides and shows (button and `L`), resizes by keyboard, and keeps its width in the webview state;
 * - item titles tell items apart; a long transcript collapses to its last turns;
 * - a correlation table cell opens its responses in the editor;
 * - axe-core finds no serious or critical violation in the editor, the correlation panel, the analyses panel and
 *   the prompt preview (the rest is printed);
 * - screenshots in Default Light Modern, Default Dark Modern and Default High Contrast (test-output/e2e/layout-*).
 *
 * Run alone: `npm run build && npx mocha --no-config --node-option import=tsx --timeout 900000 test/e2e/layout.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { editorFrame, failedAttempt, frameWith, launchWorkbench, openDialogueFile, out, QUICK_INPUT, prerequisitesPresent, root, runCli, runCommand, waitFor, type Workbench } from './harness';

const TABLE = join(root, 'data/annotations/synthetic-annotations.csv');
const TOOLBAR = ['#toggle-list', '#cmd-annotator', '#cmd-blind', '#cmd-compare', '#cmd-generate', '#cmd-judge', '#cmd-correlation', '#cmd-agreement'];
const AXE_SOURCE = readFileSync(createRequire(__filename).resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
}

/** axe-core over the whole document of a webview frame: the serious and critical violations (the rest printed). */
async function axeSerious(frame: Frame, name: string): Promise<AxeViolation[]> {
  // Evaluated over the DevTools protocol, which the webview's Content-Security-Policy does not govern.
  await frame.evaluate(`${AXE_SOURCE}\n;0`);
  const violations = (await frame.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  })) as AxeViolation[];
  for (const v of violations) console.log(`      axe ${name}: ${v.impact} ${v.id} — ${v.help} (${v.nodes.length}+ nodes: ${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`);
  if (violations.length === 0) console.log(`      axe ${name}: no violations`);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** The page-coordinates box of an element in a frame, or null when not rendered. */
async function boxOf(frame: Frame, selector: string) {
  return frame.locator(selector).first().boundingBox();
}

/** The strip-plot point of a column with the highest score (first in file order among ties): where its cell's response list starts. */
async function highestStripPoint(frame: Frame, column: string): Promise<{ item?: string; candidate?: string }> {
  const points = await frame.$$eval(`#strip svg circle.pt[data-column="${column}"]`, (cs) =>
    cs.map((c) => ({ item: (c as SVGElement).dataset.item, candidate: (c as SVGElement).dataset.candidate, score: Number(/: score (\S+),/.exec(c.querySelector('title')?.textContent ?? '')?.[1]) })),
  );
  return points.reduce((a, b) => (b.score > a.score ? b : a));
}

/** Switches the colour theme through the workspace settings (VS Code applies them live) and waits for it. */
async function setTheme(wb: Workbench, theme: string, bodyClass: string): Promise<void> {
  mkdirSync(join(wb.workspace, '.vscode'), { recursive: true });
  writeFileSync(join(wb.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'workbench.colorTheme': theme }));
  await wb.page.waitForSelector(`.monaco-workbench.${bodyClass}`, { timeout: 60_000 });
  await wb.page.waitForTimeout(1000); // webviews receive the new theme's variables after the workbench
}

describe('layout and accessibility at 1280×720 with the correlation panel beside the editor', function () {
  this.timeout(15 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let editor: Frame | undefined;
  let panel: Frame | undefined;

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench(
      (ws) => {
        const file = join(ws, 'study.dialogues.jsonl');
        runCli(['import', 'annotations', TABLE, '--reference', '-o', file]);
        runCli(['score', file, '--metric', 'bleu4', 'rougeL', 'meteor']);
        // A long context (9 turns), for the collapsed transcript.
        const turns = Array.from({ length: 9 }, (_, i) => ({ speaker: i % 2 ? 'therapist' : 'client', text: `Turn ${i + 1}: ${i % 2 ? 'And how did that feel?' : 'I keep thinking about the drinking, every evening.'}` }));
        writeFileSync(join(ws, 'long.dialogues.jsonl'), `${JSON.stringify({ id: 'long-1', context: turns, candidates: [{ id: 'c1', text: 'You keep coming back to it.', origin: { kind: 'human', source: 'test' }, annotations: [], scores: {} }] })}\n`);
        cpSync(join(root, 'prompts'), join(ws, 'prompts'), { recursive: true });
      },
      { 'workbench.colorTheme': 'Default Light Modern', 'reflectEval.annotator': 'tester' },
    );
    page = wb.page;
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  after(async function () {
    await wb?.close('layout-code-server-logs');
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('layout');
  });

  it('shows every toolbar control on screen or in the overflow menu, with the correlation panel beside', async () => {
    const p = page as Page;
    editor = await openDialogueFile(p, 'study.dialogues.jsonl');
    await editor.waitForSelector('.item-row', { timeout: 60_000 });
    await runCommand(p, 'ReflectEval: Show Correlation Table');
    panel = await frameWith(p, '#correlations tr[data-evaluator]', 'the correlation table');
    editor = await editorFrame(p);
    await p.waitForTimeout(1000); // the editor's column settles to half the window; the toolbar refits on resize
    const frameBox = await (await editor.frameElement()).boundingBox();
    assert.ok(frameBox, 'the editor webview is on screen');
    console.log(`      editor webview ${Math.round(frameBox.width)}×${Math.round(frameBox.height)} px`);
    const toolbar = (await boxOf(editor, '#toolbar'))!;
    const collapsed: string[] = [];
    for (const sel of TOOLBAR) {
      const b = await boxOf(editor, sel);
      if (!b) {
        collapsed.push(sel);
        continue;
      }
      // On screen, inside the webview and inside the toolbar (not clipped by its overflow).
      assert.ok(b.x >= frameBox.x - 0.5 && b.x + b.width <= Math.min(1280, frameBox.x + frameBox.width) + 0.5, `${sel} horizontally visible: ${JSON.stringify(b)}`);
      assert.ok(b.y >= 0 && b.y + b.height <= 720, `${sel} vertically visible`);
      assert.ok(b.x + b.width <= toolbar.x + toolbar.width + 0.5 && b.y + b.height <= toolbar.y + toolbar.height + 0.5, `${sel} not clipped by the toolbar`);
    }
    console.log(`      in the overflow menu at ${Math.round(frameBox.width)} px: ${collapsed.join(' ') || 'none'}`);
    // A toolbar on one line: no wrapping.
    assert.ok(toolbar.height < 48, `toolbar height ${toolbar.height}`);
    if (collapsed.length) {
      const more = (await boxOf(editor, '#toolbar-more'))!;
      assert.ok(more && more.x + more.width <= frameBox.x + frameBox.width + 0.5, 'the overflow button is visible');
      await editor.click('#toolbar-more');
      await editor.waitForSelector('#toolbar-menu:not([hidden])');
      const items = await editor.$$eval('#toolbar-menu [role^="menuitem"]', (bs) => bs.map((b) => `#${(b as HTMLElement).dataset.for}`));
      assert.deepEqual([...items].sort(), [...collapsed].sort(), 'every hidden control is in the menu');
      for (const sel of collapsed) {
        const b = (await boxOf(editor, `#toolbar-menu [data-for="${sel.slice(1)}"]`))!;
        assert.ok(b.x >= frameBox.x - 0.5 && b.x + b.width <= frameBox.x + frameBox.width + 0.5 && b.y + b.height <= 720, `${sel} in the menu is on screen`);
      }
      await p.screenshot({ path: join(out, 'layout-light-menu.png') });
      // Keyboard: Escape closes the menu and returns focus to its button.
      await p.keyboard.press('Escape');
      await editor.waitForSelector('#toolbar-menu[hidden]', { state: 'attached' });
      assert.equal(await editor.evaluate(() => document.activeElement?.id), 'toolbar-more');
    }
    // Usable: Compare (wherever it is) toggles the comparison view.
    const compareIn = collapsed.includes('#cmd-compare');
    const pressCompare = async () => {
      if (compareIn) {
        await editor!.click('#toolbar-more');
        await editor!.click('#toolbar-menu [data-for="cmd-compare"]');
      } else await editor!.click('#cmd-compare');
    };
    await pressCompare();
    await waitFor('the comparison view', async () => (await editor!.getAttribute('#cmd-compare', 'aria-pressed')) === 'true' && (await editor!.locator('table.comparison').count()) > 0, 30_000);
    await pressCompare();
    await waitFor('the comparison view off', async () => (await editor!.getAttribute('#cmd-compare', 'aria-pressed')) === 'false', 30_000);
  });

  it('hides, shows and resizes the item list by keyboard, and keeps its width', async () => {
    const e = editor as Frame;
    const width = async () => (await boxOf(e, '#item-list'))?.width ?? 0;
    // Beside the panel the editor is narrower than 560 px: the list starts hidden, the ☰ button shows it.
    if (await e.locator('#item-list[hidden]').count()) {
      await (page as Page).screenshot({ path: join(out, 'layout-light-list-auto-hidden.png') });
      await e.click('#toggle-list');
      await e.waitForSelector('#item-list:not([hidden])');
    }
    const before = await width();
    assert.ok(before >= 140, `item list width ${before}`);
    // Titles tell items apart: no two rows alike, none with an unknown utterance.
    const titles = await e.$$eval('.item-row .item-label', (ls) => ls.map((l) => l.textContent ?? ''));
    console.log(`      item titles: ${titles.slice(0, 3).join(' | ')} …`);
    assert.equal(new Set(titles).size, titles.length, titles.join('\n'));
    assert.ok(titles.every((t) => !/\/u\?/.test(t)), titles.join('\n'));
    // Resize: the splitter by keyboard (two steps of 16 px).
    await e.focus('#splitter');
    await e.press('#splitter', 'ArrowRight');
    await e.press('#splitter', 'ArrowRight');
    await waitFor('the wider list', async () => Math.abs((await width()) - (before + 32)) < 1.5, 10_000);
    assert.equal(await e.getAttribute('#splitter', 'aria-valuenow'), String(Math.round(before + 32)));
    // Hide with the button, show with L.
    await e.click('#toggle-list');
    await e.waitForSelector('#item-list[hidden]', { state: 'attached' });
    assert.equal(await e.getAttribute('#toggle-list', 'aria-expanded'), 'false');
    await (page as Page).screenshot({ path: join(out, 'layout-light-list-hidden.png') });
    await e.locator('.candidate').first().click();
    await (page as Page).keyboard.press('l');
    await e.waitForSelector('#item-list:not([hidden])');
    await (page as Page).screenshot({ path: join(out, 'layout-light-list-shown.png') });
    // The item list by keyboard: ArrowDown selects the next item.
    const firstItem = await e.textContent('#item h2');
    await e.focus('#item-list');
    await e.press('#item-list', 'ArrowDown');
    await waitFor('the next item by keyboard', async () => (await e.textContent('#item h2')) !== firstItem, 30_000);
    await e.press('#item-list', 'ArrowUp');
    await waitFor('back to the first item', async () => (await e.textContent('#item h2')) === firstItem, 30_000);
    // Remembered: the webview state survives a reload of the webview (the tab hidden and shown again).
    const p = page as Page;
    // Until the old frames are gone, a lookup can still find them (CI once took the old editor frame, which then
    // detached): wait for that, and take only frames that are attached.
    const oldEditor = editor!;
    const oldPanel = panel!;
    await runCommand(p, 'Developer: Reload Webviews');
    await waitFor('the old webviews gone', async () => oldEditor.isDetached() && oldPanel.isDetached(), 60_000).catch(() => undefined);
    editor = await waitFor('the reloaded editor', async () => {
      const f = await editorFrame(p, 5_000).catch(() => undefined);
      return f && !f.isDetached() && (await f.locator('.item-row').count().catch(() => 0)) > 0 ? f : undefined;
    }, 60_000);
    panel = await waitFor('the reloaded correlation table', async () => {
      const f = await frameWith(p, '#correlations tr[data-evaluator]', 'the reloaded correlation table', 5_000).catch(() => undefined);
      return f && !f.isDetached() ? f : undefined;
    }, 60_000);
    await waitFor('the remembered width', async () => {
      if (editor!.isDetached()) editor = await editorFrame(p, 5_000);
      return Math.abs(((await boxOf(editor!, '#item-list'))?.width ?? 0) - (before + 32)) < 1.5;
    }, 30_000);
  });

  it('opens a correlation table cell’s responses in the dialogue editor', async () => {
    const p = page as Page;
    const f = panel as Frame;
    const row = f.locator('#correlations tbody tr:not(.reference)').filter({ has: f.locator('th.evaluator', { hasText: /^METEOR$/ }) });
    const cell = row.locator('td.cell.drill[data-group="GPT-2"]');
    await cell.scrollIntoViewIfNeeded();
    // Start from another item (the last), so the drill-down has somewhere to go.
    const e0 = editor as Frame;
    await e0.focus('#item-list');
    await e0.press('#item-list', 'End');
    await waitFor('the last item', async () => !/gpt-2/i.test((await e0.textContent('#item h2')) ?? ''), 30_000);
    const before = await e0.textContent('#item h2');
    await cell.click();
    // The strip plot shows the cell's responses; the editor opens them as a list, highest score first (issue 41 item 4).
    await f.waitForSelector('#strip svg circle.pt', { timeout: 30_000 });
    const first = await highestStripPoint(f, 'GPT-2');
    const e = await editorFrame(p);
    await waitFor('the editor to show the cell’s first response', async () => (await e.textContent('#item h2')) === first.item && (await e.getAttribute('.candidate.focused', 'data-candidate-id')) === first.candidate, 30_000);
    console.log(`      cell METEOR × GPT-2 → ${first.item} / ${first.candidate} (was ${before})`);
    // By keyboard too: Enter on a focused cell.
    const other = row.locator('td.cell.drill[data-group="GPT-3"]');
    await other.focus();
    await p.keyboard.press('Enter');
    await waitFor('a GPT-3 strip point', async () => (await f.locator('#strip svg circle.pt[data-column="GPT-3"]').count()) > 0, 30_000);
    const gpt3 = await highestStripPoint(f, 'GPT-3');
    await waitFor('the editor to show the GPT-3 cell’s first response', async () => (await e.textContent('#item h2')) === gpt3.item && (await e.getAttribute('.candidate.focused', 'data-candidate-id')) === gpt3.candidate, 30_000);
    await p.screenshot({ path: join(out, 'layout-light-cell-drilldown.png') });
  });

  it('finds items by search, jumps to the next unlabelled candidate, and draws the forest plot, all on screen at 1280×720', async () => {
    const p = page as Page;
    const e = await editorFrame(p);
    const frameBox = (await (await e.frameElement()).boundingBox())!;
    // Beside the panel the navigation bar folds behind the Find button (issue 41 item 5): open it.
    if (await e.locator('#navigator[hidden]').count()) {
      await e.click('#toggle-nav');
      await e.waitForSelector('#navigator:not([hidden])');
    }
    // The navigation bar's controls are on screen inside the editor beside the panel.
    for (const sel of ['#nav-search', '#nav-mine', '#nav-next-unlabelled', '#nav-count']) {
      const b = await boxOf(e, sel);
      assert.ok(b && b.x >= frameBox.x - 0.5 && b.x + b.width <= frameBox.x + frameBox.width + 0.5 && b.y >= 0 && b.y + b.height <= 720, `${sel} on screen: ${JSON.stringify(b)}`);
    }
    const countOf = async () => /^(\d+) of (\d+) items$/.exec(((await e.textContent('#nav-count')) ?? '').trim());
    // Search by the shown item's id: the list narrows to the items that hold it.
    const id = ((await e.textContent('#item h2')) ?? '').trim();
    await e.fill('#nav-search', id);
    const narrowed = await waitFor('the list narrowed by the search', async () => {
      const m = await countOf();
      return m && Number(m[1]) >= 1 && Number(m[1]) < Number(m[2]) ? m : undefined;
    }, 30_000);
    console.log(`      search "${id}" at ${Math.round(frameBox.width)} px: ${narrowed[0]}`);
    await p.screenshot({ path: join(out, 'layout-light-search.png') });
    await e.fill('#nav-search', '');
    await waitFor('the whole list again', async () => !(await countOf()) || Number((await countOf())![1]) === Number(narrowed[2]), 30_000);
    // Next unlabelled: the annotator has labelled nothing, so U goes on to another candidate to label.
    await e.locator('.candidate').first().click();
    const from = `${await e.textContent('#item h2')}/${await e.getAttribute('.candidate.focused', 'data-candidate-id')}`;
    await p.keyboard.press('u');
    const to = await waitFor('the next unlabelled candidate focused', async () => {
      const at = `${await e.textContent('#item h2')}/${await e.getAttribute('.candidate.focused', 'data-candidate-id')}`;
      return at !== from ? at : undefined;
    }, 30_000);
    assert.equal(await e.getAttribute('.candidate.focused', 'data-status'), 'unlabelled');
    console.log(`      next unlabelled: ${from} → ${to}`);
    // The forest plot in the panel beside, no wider than the panel.
    const f = panel as Frame;
    await f.locator('#plot-section').scrollIntoViewIfNeeded();
    await f.waitForSelector('#plot svg g.row', { timeout: 60_000 });
    const panelBox = (await (await f.frameElement()).boundingBox())!;
    // Groups stay at least 120 px wide; below that the plot's box scrolls sideways instead of shrinking the text.
    const plot = (await boxOf(f, '#plot'))!;
    assert.ok(plot.width <= panelBox.width + 0.5 && plot.x >= panelBox.x - 0.5, `the forest plot's box fits the panel: ${JSON.stringify(plot)} in ${JSON.stringify(panelBox)}`);
    const scroll = await f.$eval('#plot', (d) => ({ client: d.clientWidth, scroll: d.scrollWidth, svg: (d.querySelector('svg') as SVGSVGElement).getBoundingClientRect().width }));
    assert.ok(scroll.scroll >= scroll.svg - 0.5, `every group can be scrolled to: ${JSON.stringify(scroll)}`);
    console.log(`      forest plot ${Math.round(scroll.svg)} px wide in a ${scroll.client} px box${scroll.svg > scroll.client ? ' (scrolls sideways)' : ''}`);
    assert.ok((await f.locator('#plot svg line.reference').count()) > 0, 'laypeople–experts drawn as the reference line');
    await p.screenshot({ path: join(out, 'layout-light-forest-plot.png') });
  });

  it('has no serious or critical axe-core violation in the editor and the correlation panel, in light, dark and high contrast', async () => {
    const w = wb as Workbench;
    const p = page as Page;
    const serious: string[] = [];
    for (const [theme, cls, name] of [
      ['Default Light Modern', 'vs', 'light'],
      ['Default Dark Modern', 'vs-dark', 'dark'],
      ['Default High Contrast', 'hc-black', 'hc'],
    ] as const) {
      await setTheme(w, theme, cls);
      const e = await editorFrame(p);
      // A labelled candidate, so the rating chips are on screen.
      await e.locator('.candidate.focused').click({ position: { x: 4, y: 4 } });
      if ((await e.locator('.candidate.focused .question').count()) === 0) await p.keyboard.press('y');
      await e.waitForSelector('.candidate.focused .question', { timeout: 30_000 });
      await p.screenshot({ path: join(out, `layout-${name}.png`) });
      for (const [frame, what] of [[e, 'editor'], [panel as Frame, 'correlation panel']] as const) {
        for (const v of await axeSerious(frame, `${what} (${name})`)) serious.push(`${what} (${name}): ${v.impact} ${v.id} — ${v.help}: ${v.nodes.map((n) => `${JSON.stringify(n.target)} ${n.failureSummary ?? ''}`).join('; ')}`);
      }
    }
    assert.deepEqual(serious, []);
  });

  it('collapses a long transcript to its last turns and shows them all on request', async () => {
    const p = page as Page;
    const e = await openDialogueFile(p, 'long.dialogues.jsonl');
    await e.waitForSelector('#transcript .turn:not([hidden])', { timeout: 60_000 });
    const shown = async () => e.$$eval('#transcript .turn', (ts) => ts.filter((t) => !(t as HTMLElement).hidden).map((t) => t.textContent ?? ''));
    await waitFor('the long item', async () => (await e.textContent('#item h2')) === 'long-1', 30_000);
    assert.equal((await shown()).length, 4);
    assert.match((await shown())[3], /Turn 9/);
    assert.ok(((await e.textContent('#transcript')) ?? '').includes('Turn 1:'), 'the hidden turns stay in the page');
    await e.click('.transcript-toggle');
    await waitFor('all 9 turns', async () => (await shown()).length === 9, 10_000);
    await p.keyboard.press('t');
    await waitFor('the last 4 turns again', async () => (await shown()).length === 4, 10_000);
    await p.screenshot({ path: join(out, 'layout-hc-long-transcript.png') });
  });

  it('has no serious or critical axe-core violation in the analyses panel and the prompt preview', async () => {
    const w = wb as Workbench;
    const p = page as Page;
    const serious: string[] = [];
    await setTheme(w, 'Default Light Modern', 'vs');
    await openDialogueFile(p, 'study.dialogues.jsonl');
    await runCommand(p, 'ReflectEval: Show Agreement & Error Analyses');
    const analyses = await frameWith(p, '#kappa table', 'the analyses panel');
    await p.screenshot({ path: join(out, 'layout-light-analyses.png') });
    for (const v of await axeSerious(analyses, 'analyses panel')) serious.push(`analyses: ${v.impact} ${v.id} — ${v.help}: ${v.nodes.map((n) => JSON.stringify(n.target)).join('; ')}`);
    // The prompt preview opens beside a judge template.
    await p.keyboard.press('Control+P');
    // Filled, not typed: a key that reached the dialogue editor instead would be a label (see runCommand).
    await p.locator(QUICK_INPUT).fill('prompts/bodies/instructions.mustache');
    await p.locator('.quick-input-list .monaco-list-row', { hasText: 'instructions.mustache' }).first().waitFor({ timeout: 30_000 });
    await p.keyboard.press('Enter');
    const preview = await frameWith(p, '#prompt', 'the prompt preview');
    await waitFor('the preview to show a prompt or a reason', async () => ((await preview.textContent('#prompt')) ?? '').length > 0 || !(await preview.locator('#error').isHidden()), 60_000);
    await p.screenshot({ path: join(out, 'layout-light-preview.png') });
    for (const v of await axeSerious(preview, 'prompt preview')) serious.push(`preview: ${v.impact} ${v.id} — ${v.help}: ${v.nodes.map((n) => JSON.stringify(n.target)).join('; ')}`);
    assert.deepEqual(serious, []);
  });
});
