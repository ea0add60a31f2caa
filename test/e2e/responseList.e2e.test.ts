/**
 * End to end in real VS Code (see harness.ts), issue 41 items 4 and 6: a correlation cell opens the list of its
 * responses in the dialogue editor (a banner says what it is; J/K walk it across items, highest score first; a
 * labelling key labels the response shown; Escape returns to the item and candidate the user was on); a click on
 * strip-plot points drawn on top of one another opens a chooser, reachable by keyboard; and after another tab covered
 * the editor, focus comes back on the candidate it left. Screenshots of the editor in list mode beside the panel in
 * light, dark and high contrast at 1280×720 go to test-output/e2e/response-list-*.png.
 *
 * Data: the committed synthetic annotation table (as correlation.e2e.test.ts), scored with BLEU-4 and ROUGE-L.
 *
 * Run alone: `npm run build && bash scripts/e2e/run.sh test/e2e/responseList.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { CorrelationTable } from '../../src/core/correlation/correlationTable';
import { editorFrame, failedAttempt, frameWith, keysLive, labelsApplied, launchWorkbench, openDialogueFile, out, prerequisitesPresent, root, runCli, runCommand, waitFor, type Workbench } from './harness';

const TABLE = join(root, 'data/annotations/synthetic-annotations.csv');

/** Where the editor is: the item shown, the focused candidate, the banner (null when hidden). */
async function where(editor: Frame): Promise<{ item: string; candidate: string | null; banner: string | null }> {
  return editor.evaluate(() => {
    const banner = document.getElementById('response-list');
    return {
      item: document.querySelector('#item h2')?.textContent ?? '',
      candidate: (document.querySelector('.candidate.focused') as HTMLElement | null)?.dataset.candidateId ?? null,
      banner: banner && !banner.hidden ? (banner.querySelector('#response-list-text')?.textContent ?? '') : null,
    };
  });
}

/** The position and score the banner says (`· 3 of 40: BLEU-4 0.012, human 2`). */
function bannerPosition(banner: string | null): { at: number; of: number; score: number } {
  const m = /· (\d+) of (\d+): .* (-?[\d.e+-]+), human /.exec(banner ?? '');
  assert.ok(m, `a position in the banner: ${banner}`);
  return { at: Number(m[1]), of: Number(m[2]), score: Number(m[3]) };
}

/** Switches the colour theme through the workspace settings (VS Code applies them live) and waits for it. */
async function setTheme(wb: Workbench, theme: string, bodyClass: string): Promise<void> {
  mkdirSync(join(wb.workspace, '.vscode'), { recursive: true });
  writeFileSync(join(wb.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'workbench.colorTheme': theme }));
  await wb.page.waitForSelector(`.monaco-workbench.${bodyClass}`, { timeout: 60_000 });
  await wb.page.waitForTimeout(1000); // webviews receive the new theme's variables after the workbench
}

describe('response list, overlap chooser and focus return in real VS Code (issue 41 items 4 and 6)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let panel: Frame | undefined;
  let BLEU = '';
  /** Where the user was before the list opened. */
  let start: { item: string; candidate: string | null } = { item: '', candidate: null };

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench(
      (ws) => {
        const file = join(ws, 'study.dialogues.jsonl');
        runCli(['import', 'annotations', TABLE, '--reference', '-o', file]);
        runCli(['score', file, '--metric', 'bleu4', 'rougeL']);
        BLEU = (JSON.parse(runCli(['correlate', file, '--json'])) as CorrelationTable).rows.map((r) => r.evaluatorId).find((id) => id.startsWith('metric:bleu4.')) as string;
        assert.ok(BLEU);
        writeFileSync(join(ws, 'NOTES.md'), '# Notes\n\nA file that covers the dialogue editor for a moment.\n');
      },
      { 'workbench.colorTheme': 'Default Light Modern', 'reflectEval.annotator': 'tester' },
    );
    page = wb.page;
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  after(async function () {
    await wb?.close('response-list-code-server-logs');
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('response-list');
  });

  it('a cell opens its responses as a list: banner, J/K across items by score, a label key, Escape returns', async () => {
    const p = page as Page;
    let editor = await openDialogueFile(p, 'study.dialogues.jsonl');
    await editor.waitForSelector('.candidate', { timeout: 60_000 });
    // Be somewhere definite: the third item, its second candidate.
    await editor.locator('.item-row').nth(2).click();
    await waitFor('the third item', async () => (await editor.$$eval('.item-row', (rs) => rs.findIndex((r) => r.classList.contains('selected')))) === 2, 30_000);
    await editor.waitForSelector('.candidate:nth-child(2)', { timeout: 30_000 });
    await editor.locator('#candidates .candidate').nth(1).click();
    start = await where(editor);
    assert.ok(start.candidate, 'a candidate focused');

    await runCommand(p, 'ReflectEval: Show Correlation Table');
    panel = await frameWith(p, `#correlations tr[data-evaluator="${BLEU}"] td.cell.drill`, 'the correlation table');
    // The BLEU-4 cell with the most responses.
    const cells = await panel.$$eval(`#correlations tr[data-evaluator="${BLEU}"] td.cell.drill`, (tds) => tds.map((td) => ({ column: (td as HTMLElement).dataset.column ?? '', n: Number(/n = (\d+)/.exec(td.querySelector('.n')?.textContent ?? '')?.[1] ?? 0) })));
    const cell = cells.reduce((a, b) => (b.n > a.n ? b : a));
    assert.ok(cell.n > 3, `a cell with responses: ${JSON.stringify(cells)}`);
    await panel.locator(`#correlations tr[data-evaluator="${BLEU}"] td.cell.drill[data-column="${cell.column}"]`).click();

    editor = await editorFrame(p);
    const first = await waitFor('the response list open', async () => {
      const w = await where(editor);
      // Shown once focus has left where the user was (that candidate is further down this list).
      return w.banner && / 1 of /.test(w.banner) && (w.item !== start.item || w.candidate !== start.candidate) ? w : undefined;
    }, 30_000);
    console.log(`      banner: ${first.banner}`);
    assert.match(first.banner ?? '', new RegExp(`^BLEU-4 × coherent, .+: ${cell.n} responses · 1 of ${cell.n}: BLEU-4 .+ — J/K move, Esc returns$`));

    // J walks the list (by score, highest first), across items; K goes back.
    await editor.locator('.candidate.focused').click();
    await keysLive(editor);
    const seen = [first];
    for (let k = 2; k <= 4; k++) {
      await p.keyboard.press('j');
      seen.push(await waitFor(`response ${k} of the list`, async () => {
        const w = await where(editor);
        return w.banner && bannerPosition(w.banner).at === k ? w : undefined;
      }, 30_000));
    }
    const scores = seen.map((w) => bannerPosition(w.banner).score);
    console.log(`      J/K walk: ${seen.map((w) => `${w.item}/${w.candidate}`).join(' → ')}; scores ${scores.join(' ≥ ')}`);
    for (let k = 1; k < scores.length; k++) assert.ok(scores[k] <= scores[k - 1], `highest score first: ${scores.join(', ')}`);
    assert.equal(new Set(seen.map((w) => `${w.item}\u0000${w.candidate}`)).size, seen.length, 'each J shows another response');
    await p.keyboard.press('k');
    await waitFor('K back to response 3', async () => {
      const w = await where(editor);
      return w.item === seen[2].item && w.candidate === seen[2].candidate && bannerPosition(w.banner).at === 3;
    }, 30_000);

    // A labelling key labels the response shown.
    await p.keyboard.press('y');
    await editor.waitForSelector(`.candidate.focused[data-candidate-id="${seen[2].candidate}"][data-coherent="yes"]`, { timeout: 30_000 });
    await labelsApplied(editor);
    assert.equal(bannerPosition((await where(editor)).banner).at, 3, 'still in the list after a label');

    await p.screenshot({ path: join(out, 'response-list-light.png') });
    for (const [theme, cls, name] of [['Default Dark Modern', 'vs-dark', 'dark'], ['Default High Contrast', 'hc-black', 'hc']] as const) {
      await setTheme(wb as Workbench, theme, cls);
      await p.screenshot({ path: join(out, `response-list-${name}.png`) });
    }
    await setTheme(wb as Workbench, 'Default Light Modern', 'vs');

    // Escape leaves the list: the item and candidate the user was on.
    await editor.locator('.candidate.focused').click();
    await keysLive(editor);
    await p.keyboard.press('Escape');
    await waitFor('Escape to return', async () => {
      const w = await where(editor);
      return w.banner === null && w.item === start.item && w.candidate === start.candidate;
    }, 30_000);
    // J moves between candidates again.
    await p.keyboard.press('j');
    await waitFor('J on the next candidate of the item', async () => {
      const w = await where(editor);
      return w.banner === null && w.item === start.item && w.candidate !== start.candidate;
    }, 30_000);
  });

  it('points drawn on top of one another open a chooser, by keyboard, which opens the list at the chosen response', async () => {
    const p = page as Page;
    const f = panel as Frame;
    // A forest-plot point: its cell's responses as a list, like the cell.
    const point = f.locator(`#plot svg g.cell[data-evaluator="${BLEU}"]`).first();
    const column = (await point.getAttribute('data-column')) ?? '';
    const n = /n = (\d+)/.exec((await f.textContent(`#correlations tr[data-evaluator="${BLEU}"] td.cell[data-column="${column}"] .n`)) ?? '')?.[1];
    await point.locator('circle').click({ force: true });
    let editor = await editorFrame(p);
    const listed = await waitFor('the forest point\'s list', async () => (await where(editor)).banner?.match(new RegExp(`^BLEU-4 × coherent, .+: ${n} responses · 1 of ${n}`)) ?? undefined, 30_000);
    console.log(`      forest point ${column}: ${listed[0]}`);
    await editor.locator('.candidate.focused').click();
    await keysLive(editor);
    await p.keyboard.press('Escape');
    await waitFor('the list closed', async () => (await where(editor)).banner === null, 30_000);
    await f.locator(`#plot svg g.row[data-evaluator="${BLEU}"] text`).first().click();
    await f.waitForSelector('#strip svg circle.pt', { timeout: 30_000 });
    await f.locator('#strip').scrollIntoViewIfNeeded();
    // Points whose centres lie within a pixel of each other (BLEU-4 is practically 0 for many responses).
    const overlap = await f.evaluate(() => {
      const pts = [...document.querySelectorAll('#strip circle.pt')].map((c) => {
        const r = c.getBoundingClientRect();
        return { x: r.left + r.width / 2, y: r.top + r.height / 2, panel: (c as SVGElement).dataset.column };
      });
      for (let i = 0; i < pts.length; i++) {
        const same = pts.filter((q) => q.panel === pts[i].panel && Math.hypot(q.x - pts[i].x, q.y - pts[i].y) < 0.5);
        if (same.length > 1) return { x: pts[i].x, y: pts[i].y, count: same.length };
      }
      return null;
    });
    assert.ok(overlap, 'the strip plot has points drawn on top of one another');
    // The frame's coordinates on the page: the webview's iframe offset.
    const frameBox = await (await f.frameElement()).boundingBox();
    assert.ok(frameBox);
    await p.mouse.click(frameBox.x + overlap.x, frameBox.y + overlap.y);
    await f.waitForSelector('#point-chooser .choice', { timeout: 10_000 });
    const choices = await f.$$eval('#point-chooser .choice', (bs) => bs.map((b) => ({ item: (b as HTMLElement).dataset.item ?? '', candidate: (b as HTMLElement).dataset.candidate ?? '', text: b.textContent ?? '' })));
    console.log(`      chooser: ${choices.length} responses at one point (${overlap.count} centres within 0.5 px)`);
    assert.ok(choices.length >= 2, `several responses listed: ${JSON.stringify(choices)}`);
    assert.equal(await f.evaluate(() => (document.activeElement as HTMLElement | null)?.classList.contains('choice')), true, 'the chooser has keyboard focus');
    await p.screenshot({ path: join(out, 'response-list-chooser.png') });
    // Escape closes it; a second click opens it again; ↓ Enter opens the second response.
    await p.keyboard.press('Escape');
    await f.waitForSelector('#point-chooser', { state: 'detached', timeout: 10_000 });
    await p.mouse.click(frameBox.x + overlap.x, frameBox.y + overlap.y);
    await f.waitForSelector('#point-chooser .choice', { timeout: 10_000 });
    await p.keyboard.press('ArrowDown');
    await p.keyboard.press('Enter');
    editor = await editorFrame(p);
    const chosen = choices[1];
    await waitFor('the chosen response in the list', async () => {
      const w = await where(editor);
      return w.banner !== null && w.item === chosen.item && w.candidate === chosen.candidate;
    }, 30_000);
    await editor.locator('.candidate.focused').click();
    await keysLive(editor);
    await p.keyboard.press('Escape');
    await waitFor('the list closed', async () => (await where(editor)).banner === null, 30_000);
  });

  it('after another tab covered the editor, focus comes back on the candidate it left (issue 41 item 6)', async () => {
    const p = page as Page;
    let editor = await editorFrame(p);
    // The last candidate of the item: not where a fresh page would put focus (the first unlabelled one).
    const cards = editor.locator('#candidates .candidate');
    const count = await cards.count();
    assert.ok(count > 1);
    await cards.nth(count - 1).click();
    const left = await where(editor);
    // A mark on this page: gone when VS Code drops the page while the editor is covered (what this test is about).
    await editor.evaluate(() => ((window as unknown as { leftHere: boolean }).leftHere = true));
    const firstUnlabelled = await editor.evaluate(() => (document.querySelector('#candidates .candidate:not([data-status="complete"])') as HTMLElement | null)?.dataset.candidateId ?? null);
    assert.notEqual(left.candidate, firstUnlabelled ?? (await cards.first().getAttribute('data-candidate-id')), 'a candidate a fresh page would not focus');
    // Another file opened in the editor's group covers it (its page is dropped), then the editor's tab is clicked.
    await p.locator('.explorer-folders-view .monaco-list-row', { hasText: 'NOTES.md' }).click();
    await p.waitForSelector('.tab.active:has-text("NOTES.md")', { timeout: 30_000 });
    await p.locator('.tab', { hasText: 'study.dialogues.jsonl' }).first().click();
    editor = await editorFrame(p);
    const back = await waitFor('the editor shown again', async () => {
      const w = await where(editor).catch(() => undefined);
      return w?.candidate ? w : undefined;
    }, 30_000);
    const reloaded = await editor.evaluate(() => !(window as unknown as { leftHere?: boolean }).leftHere);
    console.log(`      left ${left.item}/${left.candidate}, back on ${back.item}/${back.candidate} (page ${reloaded ? 'loaded again' : 'kept'})`);
    assert.ok(reloaded, 'the covered editor\'s page was dropped and loaded again');
    assert.equal(back.item, left.item);
    assert.equal(back.candidate, left.candidate);
    // Keys act on it.
    await editor.locator('.candidate.focused').click();
    await keysLive(editor);
    await p.keyboard.press('n');
    await editor.waitForSelector(`.candidate.focused[data-candidate-id="${left.candidate}"][data-coherent="no"]`, { timeout: 30_000 });
    await labelsApplied(editor);
  });
});
