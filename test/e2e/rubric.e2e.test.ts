/**
 * End to end in real VS Code (see harness.ts): the dialogue editor on a study with its own rubric (issue 39 item 3)
 * — two Likert dimensions (fluency and relevance, 1–5, answered with digits on the card's active question, in the
 * webview) and one categorical (the error type, with keys A/B/C the rubric declares, applied in the extension host).
 * Labels by keys only, undoes and redoes, saves and reads the file; the current dimension and progress per dimension;
 * blind mode and the comparison view; a team packet cut with `reflect-eval assign` opens labelling as its annotator,
 * blind (issue 44 item 2). Screenshots at 1280×720 in light, dark and high contrast (test-output/e2e/rubric-*.png).
 *
 * Run: `npm run build && npx mocha --config test/e2e/.mocharc.json test/e2e/rubric.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { Annotation, DialogueItem } from '../../src/core/dialogue/types';
import { clickToolbar, failedAttempt, keysLive, labelsApplied, launchWorkbench, openDialogueFile, out, prerequisitesPresent, runCli, waitFor, type Workbench } from './harness';

const ANNOTATOR = 'R-e2e';
const FILE = 'quality.dialogues.jsonl';

/** Two Likert dimensions and one categorical with keys of its own. */
export const QUALITY_RUBRIC = {
  version: 1,
  name: 'response quality',
  primary: 'fluency',
  dimensions: [
    { name: 'fluency', title: 'Fluency', type: 'ordinal', question: 'How natural does the response read?', points: ['very poor', 'poor', 'fair', 'good', 'very good'].map((label, i) => ({ value: i + 1, label })) },
    { name: 'relevance', title: 'Relevance', type: 'ordinal', question: 'How well does it follow from the context?', points: ['off', 'weak', 'partly', 'mostly', 'fully'].map((label, i) => ({ value: i + 1, label })) },
    {
      name: 'error type',
      title: 'Error type',
      type: 'categorical',
      options: [
        { value: 'none', label: 'no error', key: 'a' },
        { value: 'generic', label: 'generic', key: 'b' },
        { value: 'off-topic', label: 'off topic', key: 'c' },
      ],
    },
  ],
};

/** Three contexts with three candidates each; another annotator (`R-other`) rated the first candidate of each. */
function buildStudy(ws: string): void {
  const texts = [
    ['It sounds like the evenings are the hardest part.', 'Okay.', 'Have you tried going to the gym?'],
    ['You are worried what your family will think.', 'I see, I see.', 'The weather has been nice lately.'],
    ['Part of you wants to stop, and part of you is not sure yet.', 'Right.', 'Let us talk about your diet instead.'],
  ];
  const items: DialogueItem[] = texts.map((cands, i) => ({
    id: `q-${i + 1}`,
    context: [
      { speaker: 'client', text: `I have been drinking more since I lost my job (${i + 1}).` },
      { speaker: 'therapist', text: 'Tell me more about that.' },
      { speaker: 'client', text: 'Mostly at night, when everyone is asleep.' },
    ],
    candidates: cands.map((text, j) => ({
      id: `c${j + 1}`,
      text,
      origin: j === 0 ? { kind: 'human', source: 'counsellor' } : { kind: 'model', model: 'gpt2', decoding: { strategy: j === 1 ? 'greedy' : 'nucleusSampling', ...(j === 2 ? { topP: 0.9 } : {}) } },
      annotations: j === 0 ? [{ annotator: 'R-other', fluency: 3, relevance: 5, 'error type': 'none' } as Annotation] : [],
      scores: {},
    })),
  })) as DialogueItem[];
  writeFileSync(join(ws, FILE), items.map((it) => JSON.stringify(it)).join('\n') + '\n');
  writeFileSync(join(ws, 'quality.rubric.json'), `${JSON.stringify(QUALITY_RUBRIC, null, 2)}\n`);
}

const AXE_SOURCE = readFileSync(createRequire(__filename).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical violations over a webview frame's document (as layout.e2e.test.ts runs it). */
async function axeSerious(frame: Frame): Promise<string[]> {
  // Evaluated over the DevTools protocol, which the webview's Content-Security-Policy does not govern.
  await frame.evaluate(`${AXE_SOURCE}\n;0`);
  return (await frame.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: { id: string; impact: string; help: string; nodes: { target: unknown }[] }[] }> } }).axe;
    const r = await axe.run(document, { resultTypes: ['violations'] });
    return r.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.impact} ${v.id} — ${v.help}: ${v.nodes.slice(0, 5).map((n) => JSON.stringify(n.target)).join('; ')}`);
  })) as string[];
}

/** Switches the colour theme through the workspace settings (VS Code applies them live) and waits for it. */
async function setTheme(wb: Workbench, theme: string, bodyClass: string): Promise<void> {
  mkdirSync(join(wb.workspace, '.vscode'), { recursive: true });
  writeFileSync(join(wb.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'workbench.colorTheme': theme }));
  await wb.page.waitForSelector(`.monaco-workbench.${bodyClass}`, { timeout: 60_000 });
  await wb.page.waitForTimeout(1000); // webviews receive the new theme's variables after the workbench
}

describe('A study with its own rubric in real VS Code (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let file = '';

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench(
      (ws) => {
        file = join(ws, FILE);
        buildStudy(ws);
        // A packet per annotator in the workspace itself (the Explorer shows them at the top).
        runCli(['assign', file, '--annotators', 'E7,E8', '--seed', '1', '-o', ws]);
      },
      { 'reflectEval.annotator': ANNOTATOR, 'workbench.colorTheme': 'Default Light Modern' },
    );
    page = wb.page;
    await page.setViewportSize({ width: 1280, height: 720 });
  });

  after(async function () {
    await wb?.close('rubric-code-server-logs');
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('rubric');
  });

  const onDisk = (f = file): DialogueItem[] => readFileSync(f, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const mine = (item: DialogueItem, j: number, who = ANNOTATOR) => item.candidates[j].annotations.find((a) => a.annotator === who);
  const card = (frame: Frame, id: string) => frame.locator(`.candidate[data-candidate-id="${id}"]`);
  const chipOn = (frame: Frame, id: string, dimension: string) => card(frame, id).locator(`.dimension[data-dimension="${dimension}"] .chip.on`).getAttribute('data-value');

  it('labels two Likert dimensions and a categorical one by keys, undoes and redoes, and saves them', async () => {
    const p = page as Page;
    const frame = await openDialogueFile(p, FILE);
    await frame.waitForSelector('#candidates .candidate.focused .dimension.active', { timeout: 60_000 });
    // The rubric's questions, not the MI preset's: no Coherent button, a row per dimension; the first is active.
    assert.equal(await frame.locator('[data-action="coherent-yes"]').count(), 0);
    assert.deepEqual(await card(frame, 'c1').locator('.dimension').evaluateAll((xs) => xs.map((x) => (x as HTMLElement).dataset.dimension)), ['fluency', 'relevance', 'error type']);
    assert.equal(await frame.getAttribute('.candidate.focused .dimension.active', 'data-dimension'), 'fluency');
    await keysLive(frame);
    // Digits rate the active question and move on (in the webview, which keeps the question); B and A are the error
    // type's own keys (decided in the extension host once the webview has reported where focus is, else in the
    // webview by the same rule: typed without pauses, either may take B).
    for (const key of ['4', '2', 'b', 'j', '5', '5']) await p.keyboard.press(key);
    // Every one of those keys shown (so none is still on its way), then applied: only then is A's path settled.
    await frame.waitForSelector('.candidate[data-candidate-id="c1"][data-status="complete"]', { timeout: 30_000 });
    await frame.waitForSelector('.candidate[data-candidate-id="c2"] .dimension[data-dimension="relevance"] .chip.on[data-value="5"]', { timeout: 30_000 });
    await labelsApplied(frame);
    const hostLabels = Number((await frame.getAttribute('body', 'data-host-labels')) ?? 0);
    await p.keyboard.press('a');
    await frame.waitForSelector('.candidate[data-candidate-id="c1"][data-status="complete"]', { timeout: 30_000 });
    await frame.waitForSelector('.candidate[data-candidate-id="c2"][data-status="complete"]', { timeout: 30_000 });
    assert.equal(await chipOn(frame, 'c1', 'fluency'), '4');
    assert.equal(await chipOn(frame, 'c1', 'relevance'), '2');
    assert.equal(await chipOn(frame, 'c1', 'error type'), 'generic');
    assert.equal(await chipOn(frame, 'c2', 'fluency'), '5');
    assert.equal(await chipOn(frame, 'c2', 'error type'), 'none');
    // The declared keys took the host's path (the webview counts the operations the host announced).
    // With focus settled, A took the host's path (the webview counts the operations the host announced).
    assert.equal(Number(await frame.getAttribute('body', 'data-host-labels')) - hostLabels, 1, 'A was applied in the extension host');
    assert.equal(await frame.getAttribute('.candidate.focused', 'data-candidate-id'), 'c2');

    // ← moves the active question back; ⌫ clears it; undo brings it back, redo clears it again.
    await labelsApplied(frame);
    await p.keyboard.press('ArrowLeft');
    await waitFor('relevance active', async () => (await frame.getAttribute('.candidate.focused .dimension.active', 'data-dimension')) === 'relevance', 30_000);
    await p.keyboard.press('Backspace');
    await frame.waitForSelector('.candidate[data-candidate-id="c2"][data-status="partial"]', { timeout: 30_000 });
    await labelsApplied(frame);
    await p.keyboard.press('Control+z');
    await frame.waitForSelector('.candidate[data-candidate-id="c2"][data-status="complete"]', { timeout: 30_000 });
    await p.keyboard.press('Control+Shift+z');
    await frame.waitForSelector('.candidate[data-candidate-id="c2"][data-status="partial"]', { timeout: 30_000 });
    await p.keyboard.press('3');
    await frame.waitForSelector('.candidate[data-candidate-id="c2"][data-status="complete"]', { timeout: 30_000 });

    // Progress counts the current dimension (the primary, fluency) and shows every dimension.
    // Fluency's count did not move in the steps above (c1 and c2 kept their fluency), so "you 2/9" says nothing about
    // whether the last key's count has arrived: wait for the per-dimension line itself.
    await waitFor('progress of fluency', async () => /^you 2\/9/.test((await frame.textContent('#nav-progress')) ?? ''), 30_000);
    await waitFor('progress of every dimension', async () => /Fluency 2\/9 · Relevance 2\/9 · Error type 2\/9/.test((await frame.textContent('#nav-dimensions')) ?? ''), 30_000);

    await labelsApplied(frame);
    await p.keyboard.press('Control+s');
    await p.waitForSelector('.tab.active:not(.dirty)', { timeout: 30_000 });
    const [a1, a2] = await waitFor('both labels on disk', async () => {
      const item = onDisk()[0];
      const got = [mine(item, 0), mine(item, 1)];
      return got[0]?.['error type'] && got[1]?.relevance === 3 ? got : undefined;
    }, 30_000);
    const labels = (a: Annotation | undefined) => ({ fluency: a?.fluency, relevance: a?.relevance, 'error type': a?.['error type'] });
    assert.deepEqual(labels(a1), { fluency: 4, relevance: 2, 'error type': 'generic' });
    assert.deepEqual(labels(a2), { fluency: 5, relevance: 3, 'error type': 'none' });
    // Nothing of the MI preset was written, and the other annotator's labels are as they were.
    assert.equal(a1?.coherent, undefined);
    assert.deepEqual(mine(onDisk()[0], 0, 'R-other'), { annotator: 'R-other', fluency: 3, relevance: 5, 'error type': 'none' });
  });

  it('takes screenshots at 1280×720 in light, dark and high contrast, with no serious or critical axe-core violation', async () => {
    const w = wb as Workbench;
    const p = page as Page;
    const serious: string[] = [];
    for (const [theme, cls, name] of [
      ['Default Light Modern', 'vs', 'light'],
      ['Default Dark Modern', 'vs-dark', 'dark'],
      ['Default High Contrast', 'hc-black', 'hc'],
    ] as const) {
      await setTheme(w, theme, cls);
      const frame = await openDialogueFile(p, FILE);
      await frame.waitForSelector('#candidates .candidate.focused .dimension.active', { timeout: 60_000 });
      await p.screenshot({ path: join(out, `rubric-editor-${name}.png`) });
      serious.push(...(await axeSerious(frame)).map((v) => `${name}: ${v}`));
    }
    assert.deepEqual(serious, []);
  });

  it('switches the current dimension, and keeps working in the comparison view and blind mode', async () => {
    const p = page as Page;
    const frame = await openDialogueFile(p, FILE);
    await frame.waitForSelector('#nav-dimension:not([hidden])', { timeout: 60_000 });
    await frame.selectOption('#nav-dimension', 'error type');
    await waitFor('progress of the error type', async () => /^you 2\/9 · R-other 3\/9/.test((await frame.textContent('#nav-progress')) ?? ''), 30_000);
    await frame.selectOption('#nav-dimension', 'fluency');

    await clickToolbar(frame, '#cmd-compare');
    await frame.waitForSelector('.candidate[data-candidate-id="c1"] table.comparison tr[data-annotator="R-other"]', { timeout: 30_000 });
    assert.match((await card(frame, 'c1').locator('tr[data-annotator="R-other"]').textContent()) ?? '', /Fluency 3 \(fair\) · Relevance 5 \(fully\) · Error type no error/);
    assert.match((await card(frame, 'c1').locator('tr[data-annotator="R-e2e"]').textContent()) ?? '', /Fluency 4 \(good\) · Relevance 2 \(weak\) · Error type generic/);
    await p.screenshot({ path: join(out, 'rubric-comparison.png') });
    await clickToolbar(frame, '#cmd-compare');

    await clickToolbar(frame, '#cmd-blind');
    await frame.waitForSelector('#item h3 >> text=/blind/', { timeout: 30_000 });
    assert.equal(await frame.locator('.candidate-origin').count(), 0, 'no origins in blind mode');
    // Labels by key in blind mode: the third candidate of the first item (whichever card it is now).
    await keysLive(frame);
    const unlabelled = await waitFor('an unlabelled card', async () => (await frame.locator('.candidate[data-status="unlabelled"]').first().getAttribute('data-candidate-id')) ?? undefined, 30_000);
    await card(frame, unlabelled).click({ position: { x: 4, y: 4 } });
    await keysLive(frame);
    await p.keyboard.press('1');
    await frame.waitForSelector(`.candidate[data-candidate-id="${unlabelled}"][data-status="partial"]`, { timeout: 30_000 });
    await labelsApplied(frame);
    await p.keyboard.press('Control+s');
    await p.waitForSelector('.tab.active:not(.dirty)', { timeout: 30_000 });
    await waitFor('the blind label on disk', async () => (mine(onDisk()[0], 2)?.fluency === 1 ? true : undefined), 30_000);
    await clickToolbar(frame, '#cmd-blind');
    await frame.waitForSelector('.candidate-origin', { timeout: 30_000 });
  });

  it('opens a team packet labelling as its annotator, blind, with the rubric it was cut with', async () => {
    const w = wb as Workbench;
    const p = page as Page;
    const packet = join(w.workspace, 'quality.E7.dialogues.jsonl');
    const frame = await openDialogueFile(p, 'quality.E7.dialogues.jsonl');
    await frame.waitForSelector('#candidates .candidate.focused .dimension.active', { timeout: 60_000 });
    assert.equal(await frame.textContent('#annotator'), 'as E7 (packet)');
    assert.match((await frame.textContent('#mode')) ?? '', /Blind/);
    assert.equal(await frame.locator('#cmd-blind[disabled]').count(), 1, 'blind mode cannot be turned off in a packet');
    assert.equal(await frame.locator('.candidate-origin').count(), 0);
    await keysLive(frame);
    await p.keyboard.press('4');
    await frame.waitForSelector('.candidate.focused[data-status="partial"]', { timeout: 30_000 });
    await labelsApplied(frame);
    await p.keyboard.press('Control+s');
    await p.waitForSelector('.tab.active:not(.dirty)', { timeout: 30_000 });
    const labelled = await waitFor('the packet label on disk', async () => {
      const all = onDisk(packet).flatMap((it) => it.candidates.flatMap((c) => c.annotations));
      return all.length ? all : undefined;
    }, 30_000);
    assert.deepEqual(labelled.map((a) => [a.annotator, a.fluency]), [['E7', 4]]);
    await p.screenshot({ path: join(out, 'rubric-packet.png') });
  });
});
