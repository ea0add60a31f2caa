/**
 * End to end in real VS Code (see harness.ts): the first hour. A fresh profile on an empty folder opens the ReflectEval
 * side bar, opens the Get Started walkthrough from it, and completes every step by doing what the step says — create
 * the demo study (AnnoMI sample) in the workspace folder, generate with the bundled model, label ten candidates with
 * the keyboard and save, score, judge with the local judge, open the correlation table and the agreement panel,
 * edit and save a judge prompt beside its live preview, open the labelled release — each step's check mark set by
 * VS Code from that action. Then the side bar lists a study the CLI creates while it is open, with the demo study's
 * runs under it, and the packets `reflect-eval assign` writes for it in a folder of their own under that study.
 *
 * Screenshots at 1280×720 (test-output/e2e/firsthour-*.png) of the side bar and each walkthrough step, dark then
 * light and high contrast; and the crops the walkthrough itself shows for each step
 * (test-output/e2e/walkthrough-media/<step>-<light|dark>.png, copied into media/walkthrough/ by hand when they change).
 *
 * Run: `npm run build && bash scripts/e2e/run.sh test/e2e/firsthour.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import { answerFileDialog, editorFrame, failedAttempt, frameWith, keysLive, labelsApplied, launchWorkbench, out, prerequisitesPresent, QUICK_INPUT, root, runCli, runCommand, waitFor, waitForJobSummary, type Workbench } from './harness';

const WALKTHROUGH = 'reflect-eval.reflect-eval#reflectEval.firstHour';
const STEPS = ['createStudy', 'generate', 'label', 'score', 'judge', 'correlation', 'agreement', 'prompt', 'release'] as const;
type StepId = (typeof STEPS)[number];
const step = (id: StepId) => `.getting-started-step[data-step-id="${WALKTHROUGH}#${id}"]`;
const media = join(out, 'walkthrough-media');
const THEMES = { dark: 'Dark Modern', light: 'Light Modern', hc: 'Dark High Contrast' } as const;
/** The class VS Code puts on the workbench for each kind of theme. */
const THEME_CLASS = { dark: 'vs-dark', light: 'vs', hc: 'hc-black' } as const;
type Theme = keyof typeof THEMES;

/** Switches the colour theme as a user does: Preferences: Color Theme, then its name. */
async function setTheme(p: Page, theme: Theme): Promise<void> {
  await runCommand(p, 'Preferences: Color Theme');
  const input = p.locator(QUICK_INPUT);
  await input.waitFor({ timeout: 30_000 });
  await input.fill(THEMES[theme]);
  const row = p.locator('.quick-input-list .monaco-list-row', { hasText: THEMES[theme] }).first();
  await row.waitFor({ timeout: 10_000 });
  await row.click();
  await p.locator(`.monaco-workbench.${THEME_CLASS[theme]}`).waitFor({ timeout: 30_000 });
  await p.waitForTimeout(2000); // webviews repaint after the workbench
}

/** The ReflectEval view container in the activity bar, opened. */
async function showSideBar(p: Page): Promise<void> {
  const icon = p.locator('.activitybar .action-label[aria-label^="ReflectEval"]');
  await icon.waitFor({ timeout: 90_000 });
  if ((await p.locator('.sidebar .composite.title', { hasText: 'ReflectEval' }).count()) === 0) await icon.click();
  await p.locator('.sidebar .pane-header', { hasText: 'Studies' }).waitFor({ timeout: 30_000 });
}

/** Brings the walkthrough's tab to the front. */
async function showWalkthrough(p: Page): Promise<void> {
  const tab = p.locator('.tabs-container .tab', { hasText: 'Walkthrough' }).first();
  if (await tab.count()) await tab.click();
  await p.locator(step('createStudy')).waitFor({ timeout: 30_000 });
}

/**
 * Expands a step by its title (its check box would mark it done by hand). The page disables its buttons for a moment
 * while it lays out: wait for that to pass.
 */
async function expand(p: Page, id: StepId): Promise<void> {
  const s = p.locator(step(id));
  await p.locator(`${step(id)}:not([disabled])`).waitFor({ timeout: 30_000 });
  if ((await s.getAttribute('aria-expanded')) !== 'true') await s.locator('h3.step-title').click();
  await p.locator(`${step(id)}[aria-expanded="true"]`).waitFor({ timeout: 10_000 });
}

/** Expands a step and clicks its button `label`. */
async function runStep(p: Page, id: StepId, label: string): Promise<void> {
  await showWalkthrough(p);
  const s = p.locator(step(id));
  await expand(p, id);
  const button = s.locator('.button-container a.monaco-button', { hasText: label });
  await button.waitFor({ timeout: 10_000 });
  await button.click();
}

/** Waits until VS Code shows the step done (it completed on its own events; nothing clicks its check box). */
async function stepDone(p: Page, id: StepId, timeoutMs = 180_000): Promise<void> {
  await showWalkthrough(p);
  await p.locator(`${step(id)}[aria-checked="true"]`).waitFor({ state: 'attached', timeout: timeoutMs });
}

/** A crop of the workbench for the walkthrough's own picture of a step. */
async function crop(p: Page, name: string, theme: 'light' | 'dark', clip: { x: number; y: number; width: number; height: number }): Promise<void> {
  mkdirSync(media, { recursive: true });
  await p.screenshot({ path: join(media, `${name}-${theme}.png`), clip });
}

/**
 * A picture of one element (in the workbench or a webview), dark, then light, back to dark. A webview redraws its
 * content on a theme change: the element is looked up again, and the picture retried, until it holds still.
 */
async function elementBoth(p: Page, name: string, element: () => Locator): Promise<void> {
  mkdirSync(media, { recursive: true });
  await clearNotifications(p);
  for (const theme of ['dark', 'light'] as const) {
    if (theme === 'light') await setTheme(p, 'light');
    await waitFor(`a still picture of ${name} (${theme})`, async () => {
      await element().evaluate((e) => e.scrollIntoView({ block: 'start' }));
      await p.waitForTimeout(500);
      await element().screenshot({ path: join(media, `${name}-${theme}.png`), timeout: 10_000 });
      return true;
    }, 60_000, 1000);
  }
  await setTheme(p, 'dark');
}

/** The toasts would cover what a picture shows. */
async function clearNotifications(p: Page): Promise<void> {
  await runCommand(p, 'Notifications: Clear All Notifications');
}

/** The rectangle of the editor groups from the `first`-th (0-based) to the last, below their tabs. */
async function groupsClip(p: Page, first: number): Promise<{ x: number; y: number; width: number; height: number }> {
  const boxes = (await Promise.all((await p.locator('.editor-group-container').all()).map((g) => g.boundingBox()))).filter((b): b is NonNullable<typeof b> => !!b);
  const from = boxes.slice(first);
  const x = Math.min(...from.map((b) => b.x));
  const right = Math.max(...from.map((b) => b.x + b.width));
  const top = Math.min(...from.map((b) => b.y));
  const bottom = Math.max(...from.map((b) => b.y + b.height));
  return { x, y: top, width: right - x, height: Math.min(bottom - top, 560) };
}

/** Dark crop, then the same state in light, back to dark. */
async function cropBoth(p: Page, name: string, clip: { x: number; y: number; width: number; height: number }, settle: () => Promise<void> = async () => p.waitForTimeout(800)): Promise<void> {
  await settle();
  await crop(p, name, 'dark', clip);
  await setTheme(p, 'light');
  await settle();
  await crop(p, name, 'light', clip);
  await setTheme(p, 'dark');
}

describe('The first hour in real VS Code (code-server + Chromium)', function () {
  this.timeout(30 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let ws = '';
  const study = () => join(ws, 'annomi-demo.dialogues.jsonl');
  const onDisk = () => readFileSync(study(), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { candidates: { origin: { kind: string }; annotations: { annotator: string; coherent?: boolean }[]; scores: Record<string, unknown> }[] });

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    // A fresh profile: no annotator id, no walkthrough progress; an empty folder.
    wb = await launchWorkbench(
      (folder) => {
        ws = folder;
      },
      { 'workbench.colorTheme': 'Default Dark Modern' },
    );
    page = wb.page;
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('firsthour');
  });

  after(async function () {
    await wb?.close('firsthour-code-server-logs');
  });

  it('opens the walkthrough from the empty side bar', async () => {
    const p = page as Page;
    await showSideBar(p);
    await p.locator('.sidebar .welcome-view-content', { hasText: 'No studies in this workspace yet' }).waitFor({ timeout: 60_000 });
    await p.screenshot({ path: join(out, 'firsthour-sidebar-empty-dark.png') });
    // code-server registers an extension's walkthrough a few seconds after the window opens (it first asks its
    // experiments service, which answers after 5 s here): until then the command opens VS Code's own. Retry.
    await waitFor('the ReflectEval walkthrough', async () => {
      await p.locator('.sidebar a.monaco-button', { hasText: 'Open the Get Started Walkthrough' }).click();
      const ours = await p.locator(step('createStudy')).waitFor({ timeout: 5_000 }).then(() => true, () => false);
      if (!ours) await p.keyboard.press('Control+w').catch(() => undefined);
      return ours;
    }, 90_000, 500);
    for (const id of STEPS) assert.equal(await p.locator(step(id)).getAttribute('aria-checked'), 'false', `${id} starts undone`);
    await p.screenshot({ path: join(out, 'firsthour-walkthrough-start-dark.png') });
  });

  it('step 1: creates the demo study in the workspace folder and lists it in the side bar', async () => {
    const p = page as Page;
    // (A retry after a failure later in this test finds the study made: creating it again would make a second one.)
    if (!existsSync(study())) {
      await runStep(p, 'createStudy', 'Create the demo study');
      await answerFileDialog(p, ws);
    }
    const frame = await editorFrame(p, 120_000);
    await frame.waitForSelector('#candidates .candidate', { timeout: 60_000 });
    assert.equal(onDisk().length, 15);
    assert.ok(existsSync(join(ws, 'annomi-demo.pipeline.json')));
    await p.locator('.sidebar .monaco-list-row', { hasText: 'annomi-demo' }).waitFor({ timeout: 60_000 });
    await cropBoth(p, 'study', { x: 0, y: 30, width: 960, height: 470 });
    await stepDone(p, 'createStudy');
  });

  it('step 2: generates a candidate per context with the bundled model (Greedy), saved into the study', async () => {
    const p = page as Page;
    if (!onDisk().every((it) => it.candidates.some((c) => c.origin.kind === 'model'))) {
      await runStep(p, 'generate', 'Generate candidates');
      await p.locator('.quick-input-widget .quick-input-title', { hasText: 'Generate: decoding settings' }).waitFor({ timeout: 120_000 });
      await p.locator('.quick-input-list .monaco-list-row', { hasText: 'Greedy' }).first().click();
    }
    await stepDone(p, 'generate', 600_000);
    await waitFor('the generated candidates on disk', async () => onDisk().every((it) => it.candidates.some((c) => c.origin.kind === 'model')), 60_000);
    await p.locator('.tabs-container .tab', { hasText: 'annomi-demo' }).first().click();
    const frame = await editorFrame(p);
    await frame.locator('.item-row[data-item-index="0"]').click();
    await frame.waitForSelector('#candidates .candidate:nth-child(2)', { timeout: 30_000 });
    await elementBoth(p, 'generate', () => frame.locator('#candidates .candidate:nth-child(2)'));
  });

  it('step 3: labels ten candidates with the keyboard, asking for the annotator id first, and saves', async () => {
    const p = page as Page;
    const mine = () => onDisk().flatMap((it) => it.candidates).filter((c) => c.annotations.some((a) => a.annotator === 'me' && typeof a.coherent === 'boolean')).length;
    if (mine() < 10) {
      await runStep(p, 'label', 'Open the study to label');
      // A fresh profile has no annotator id: the step asks for it before opening the study.
      const asked = p.locator('.quick-input-widget .quick-input-title', { hasText: 'annotator id' });
      if (await asked.waitFor({ timeout: 60_000 }).then(() => true, () => false)) {
        await p.locator(`${QUICK_INPUT}:visible`).first().fill('me');
        await p.keyboard.press('Enter');
      }
      const frame: Frame = await editorFrame(p);
      await frame.waitForSelector('#candidates .candidate.focused', { timeout: 60_000 });
      await frame.locator('.candidate.focused').click();
      await keysLive(frame);
      // Coherent with an empathy answer, or incoherent with an error, then the next unlabelled candidate.
      const keys = ['y', '4', 'u', 'n', '1', 'u', 'y', '5', 'u', 'y', '3', 'u', 'n', '3', 'u', 'y', '4', 'u', 'n', '2', 'u', 'y', '2', 'u', 'y', '4', 'u', 'n', '1', 'u'];
      for (const k of keys) await p.keyboard.press(k);
      await labelsApplied(frame);
      await p.keyboard.press('Control+s');
      await frame.locator('.item-row[data-item-index="0"]').click();
      await elementBoth(p, 'label', () => frame.locator('#candidates .candidate:nth-child(1)'));
    }
    await waitFor('ten labels on disk', async () => mine() >= 10, 60_000);
    await stepDone(p, 'label');
  });

  it('step 4: scores with BLEU-4, ROUGE-L and METEOR, saved into the study', async () => {
    const p = page as Page;
    const from = wb!.output().length;
    const openPick = async () => {
      await runStep(p, 'score', 'Score candidates');
      await p.locator('.quick-input-widget .quick-input-title', { hasText: 'Score candidates with' }).waitFor({ timeout: 60_000 });
      await waitFor('the preselected metrics checked', async () => (await p.locator('.quick-input-list .monaco-list-row[aria-checked="true"]').count()) >= 3, 30_000);
    };
    // The pick in each theme for the walkthrough's picture (switching the theme closes it: open it again each time).
    mkdirSync(media, { recursive: true });
    for (const theme of ['dark', 'light'] as const) {
      await setTheme(p, theme);
      await openPick();
      await p.waitForTimeout(500);
      await p.locator('.quick-input-widget').screenshot({ path: join(media, `score-${theme}.png`) });
      await p.keyboard.press('Escape');
    }
    await setTheme(p, 'dark');
    await openPick();
    // The pick may not have the keyboard (the editor's webview kept it): accept it with its OK button.
    await p.locator('.quick-input-widget a.monaco-button', { hasText: 'OK' }).click();
    await waitForJobSummary(wb!, 'score', from, 300_000);
    await stepDone(p, 'score');
  });

  it('step 5: judges with the local judge, saved into the study', async () => {
    const p = page as Page;
    const from = wb!.output().length;
    await runStep(p, 'judge', 'Judge candidates');
    await waitForJobSummary(wb!, 'judge', from, 600_000);
    await stepDone(p, 'judge');
    assert.ok(existsSync(join(ws, 'annomi-demo.judge-manifest.json')));
    await p.locator('.tabs-container .tab', { hasText: 'annomi-demo' }).first().click();
    const frame = await editorFrame(p);
    await frame.locator('.item-row[data-item-index="0"]').click();
    await frame.waitForSelector('#candidates .candidate:nth-child(2)', { timeout: 30_000 });
    await elementBoth(p, 'judge', () => frame.locator('#candidates .candidate:nth-child(2)'));
  });

  it('step 6: opens the correlation table on the user\'s own labels', async () => {
    const p = page as Page;
    await runStep(p, 'correlation', 'Show the correlation table');
    const panel = await frameWith(p, '#correlations tr[data-evaluator]', 'the correlation table', 120_000);
    // The user's own labels: one annotator ("me", a layperson by the expert prefix), so the table is against all humans.
    assert.ok((await panel.locator('#correlations tr[data-evaluator]').count()) >= 3);
    await p.waitForTimeout(2000);
    await p.screenshot({ path: join(out, 'firsthour-correlation-dark.png') });
    await elementBoth(p, 'correlation', () => panel.locator('#correlations'));
    await p.screenshot({ path: join(out, 'firsthour-correlation-back-dark.png') });
    await stepDone(p, 'correlation');
  });

  it('step 7: opens the agreement panel', async () => {
    const p = page as Page;
    await runStep(p, 'agreement', 'Show the agreement panel');
    await p.locator('.tabs-container .tab', { hasText: /Agreement/ }).first().waitFor({ timeout: 120_000 });
    const panel = await frameWith(p, '#summary', 'the agreement panel', 120_000);
    await waitFor('the agreement summary', async () => ((await panel.locator('#summary').textContent()) ?? '').trim().length > 0, 60_000);
    await p.screenshot({ path: join(out, 'firsthour-agreement-dark.png') });
    await clearNotifications(p);
    await cropBoth(p, 'agreement', await groupsClip(p, (await p.locator('.editor-group-container').count()) - 1), async () => p.waitForTimeout(1500));
    await stepDone(p, 'agreement');
  });

  it('step 8: copies a judge prompt into the workspace, previews it, and completes when the edit is saved', async () => {
    const p = page as Page;
    await runStep(p, 'prompt', 'Edit the judge prompt');
    const template = join(ws, 'prompts', 'bodies', 'instructions.mustache');
    await waitFor('the template copied into the workspace', async () => existsSync(template), 60_000);
    const tab = p.locator('.tabs-container .tab', { hasText: 'instructions.mustache' }).first();
    await tab.waitFor({ timeout: 60_000 });
    await p.locator('.tabs-container .tab', { hasText: /Prompt/ }).first().waitFor({ timeout: 60_000 });
    // Edit the template at its end and save, as a user would.
    await tab.click();
    await p.locator('.monaco-editor .view-lines').first().click();
    await p.keyboard.press('Control+End');
    await p.keyboard.type(' Be strict about parroting.');
    await p.keyboard.press('Home');
    await p.waitForTimeout(1500);
    await clearNotifications(p);
    await cropBoth(p, 'prompt', await groupsClip(p, 1));
    await tab.click();
    await p.keyboard.press('Control+s');
    await waitFor('the edit saved', async () => readFileSync(template, 'utf8').includes('Be strict about parroting.'), 30_000);
    await stepDone(p, 'prompt');
  });

  it('step 9: says where the labelled release is, and completes when the user opens it', async () => {
    const p = page as Page;
    const popup = p.context().waitForEvent('page', { timeout: 30_000 }).catch(() => undefined);
    await runStep(p, 'release', 'Open the release on GitHub');
    const opened = await popup;
    // code-server asks before opening an external link; either way the command ran.
    const dialog = p.locator('.monaco-dialog-box');
    if (await dialog.waitFor({ timeout: 5_000 }).then(() => true, () => false)) await dialog.locator('a.monaco-button', { hasText: /Open|Cancel/ }).first().click();
    await opened?.close().catch(() => undefined);
    await stepDone(p, 'release');
    await showSideBar(p);
    await elementBoth(p, 'release', () => p.locator('.sidebar .pane', { has: p.locator('.pane-header', { hasText: 'Start' }) }).locator('.monaco-list-rows'));
    for (const id of STEPS) assert.equal(await p.locator(step(id)).getAttribute('aria-checked'), 'true', `${id} done`);
  });

  it('the side bar lists a study the CLI creates while it is open, and the demo study\'s runs under it', async () => {
    const p = page as Page;
    await runCommand(p, 'View: Close All Editor Groups');
    await showSideBar(p);
    // (A retry finds the study made: importing again would be refused.)
    if (!existsSync(join(ws, 'from-cli.dialogues.jsonl'))) runCli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '3', '-o', join(ws, 'from-cli.dialogues.jsonl')]);
    // The study's own row (its packets' rows below it name it too).
    const row = p.locator('.sidebar .monaco-list-row[aria-level="1"]', { hasText: 'from-cli' });
    await row.waitFor({ timeout: 60_000 });
    assert.match((await row.textContent()) ?? '', /0\/3 labelled by you/);
    // A team's packets, written by the CLI into a folder of their own: listed under their study, never as studies.
    runCli(['assign', join(ws, 'from-cli.dialogues.jsonl'), '--annotators', 'E1,E2', '-o', join(ws, 'team')]);
    if ((await row.getAttribute('aria-expanded')) !== 'true') await row.locator('.monaco-tl-twistie').click();
    const packets = p.locator('.sidebar .monaco-list-row', { hasText: 'Team packets (2)' });
    await packets.waitFor({ timeout: 60_000 });
    if ((await packets.getAttribute('aria-expanded')) !== 'true') await packets.click();
    await p.locator('.sidebar .monaco-list-row', { hasText: 'from-cli.E2.dialogues.jsonl' }).waitFor({ timeout: 30_000 });
    const studies = await p.locator('.sidebar .monaco-list-row[aria-level="1"]').allTextContents();
    assert.ok(studies.some((t) => t.includes('from-cli')), studies.join(' | '));
    assert.ok(!studies.some((t) => /from-cli\.E[12]/.test(t)), `a packet is listed as a study: ${studies.join(' | ')}`);
    const demo = p.locator('.sidebar .monaco-list-row[aria-level="1"]', { hasText: 'annomi-demo' }).first();
    assert.match((await demo.textContent()) ?? '', /\d+\/30 labelled by you · 1 annotator/);
    if ((await demo.getAttribute('aria-expanded')) !== 'true') await demo.locator('.monaco-tl-twistie').click();
    for (const group of ['Labels: ', 'Scores:', 'Generation runs (1)', 'Judge runs (1)']) {
      await p.locator('.sidebar .monaco-list-row', { hasText: group }).first().waitFor({ timeout: 30_000 });
    }
    for (const group of ['Generation runs (1)', 'Judge runs (1)']) await p.locator('.sidebar .monaco-list-row', { hasText: group }).first().click();
    await p.locator('.sidebar .monaco-list-row', { hasText: 'greedy' }).first().waitFor({ timeout: 30_000 });
    // The study open beside its list: click its row, as a user does.
    await demo.locator('.label-name').click();
    const frame = await editorFrame(p);
    await frame.locator('.item-row[data-item-index="0"]').click();
    await clearNotifications(p);
    for (const theme of ['dark', 'light', 'hc'] as const) {
      await setTheme(p, theme);
      await p.mouse.move(640, 715); // over the status bar: no hover on a tab or a row
      await p.waitForTimeout(500);
      await p.screenshot({ path: join(out, `firsthour-sidebar-${theme}.png`) });
    }
  });

  it('README screenshots: the editor and the correlation panel, light and dark', async () => {
    const p = page as Page;
    // The editor alone in its group, the study's first item; then the correlation panel beside it.
    await runCommand(p, 'View: Close All Editor Groups');
    await showSideBar(p);
    await p.locator('.sidebar .monaco-list-row', { hasText: 'annomi-demo' }).first().click();
    const frame = await editorFrame(p);
    await frame.locator('.item-row[data-item-index="0"]').click();
    // The generated candidate, with the labels, metric and judge scores it got in the walkthrough.
    const generated = frame.locator('#candidates .candidate:nth-child(2)');
    await generated.waitFor({ timeout: 30_000 });
    await generated.click({ position: { x: 200, y: 12 } });
    await generated.evaluate((e) => e.scrollIntoView({ block: 'end' }));
    await clearNotifications(p);
    mkdirSync(join(out, 'readme'), { recursive: true });
    for (const theme of ['dark', 'light'] as const) {
      await setTheme(p, theme);
      await p.screenshot({ path: join(out, 'readme', `editor-${theme}.png`) });
    }
    await runCommand(p, 'ReflectEval: Show Correlation Table');
    const panel = await frameWith(p, '#correlations tr[data-evaluator]', 'the correlation table', 120_000);
    await clearNotifications(p);
    for (const theme of ['light', 'dark'] as const) {
      await setTheme(p, theme);
      // The table itself at the top of the panel (its controls above it).
      await frameWith(p, '#correlations tr[data-evaluator]', 'the correlation table', 60_000).then((f) => f.locator('#correlations').evaluate((e) => e.scrollIntoView({ block: 'start' })));
      await p.waitForTimeout(500);
      await p.screenshot({ path: join(out, 'readme', `panel-${theme}.png`) });
    }
    assert.ok(await panel.locator('#correlations').count());
  });

  it('shows every step done, in light, dark and high contrast (screenshots)', async () => {
    const p = page as Page;
    await runCommand(p, 'View: Close All Editor Groups');
    await clearNotifications(p);
    // The walkthrough alone: without the side bar it lays out in two columns, a step's picture beside the steps.
    await runCommand(p, 'View: Toggle Primary Side Bar Visibility');
    for (const theme of ['hc', 'light', 'dark'] as const) {
      // The walkthrough page takes the keyboard back from the command palette: change the theme with it closed.
      const tab = p.locator('.tabs-container .tab', { hasText: 'Walkthrough' });
      if (await tab.count()) await tab.first().locator('.codicon-close').click();
      await setTheme(p, theme);
      await runCommand(p, 'ReflectEval: Open the Get Started Walkthrough');
      await showWalkthrough(p);
      for (const id of STEPS) {
        await expand(p, id);
        await p.locator(step(id)).evaluate((e) => e.scrollIntoView({ block: 'center' }));
        await p.waitForTimeout(900);
        await p.screenshot({ path: join(out, `firsthour-step-${id}-${theme}.png`) });
      }
    }
  });
});
