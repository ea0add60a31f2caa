/**
 * End to end in real VS Code (see harness.ts): a study that keeps labels in sidecar files (issue 44 item 1). The
 * annotator's labels live in `study.labels/E-side.jsonl`; the editor opens the study with them shown as if inline
 * (blind mode on, the progress counting them), lists the sidecar line that is not a label with its file and line,
 * shows the team's progress with the agreement so far in the status bar, labels with the keyboard, undoes and
 * redoes, and saves: the label lands in the sidecar, the sidecar's other lines keep their bytes, and the study
 * file's bytes do not change. Screenshots go to test-output/e2e/sidecars-*.png.
 *
 * Run: `npm run build && bash scripts/e2e/run.sh test/e2e/sidecars.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { Annotation, DialogueItem } from '../../src/core/dialogue/types';
import { failedAttempt, keysLive, labelsApplied, launchWorkbench, openDialogueFile, out, prerequisitesPresent, QUICK_INPUT, root, runCli, runCommand, waitFor, type Workbench } from './harness';

const THEMES = { light: ['Light Modern', 'vs'], hc: ['Dark High Contrast', 'hc-black'], dark: ['Dark Modern', 'vs-dark'] } as const;

/** Switches the colour theme as a user does (as firsthour.e2e.test.ts does). */
async function setTheme(p: Page, theme: keyof typeof THEMES): Promise<void> {
  const [name, cls] = THEMES[theme];
  await runCommand(p, 'Preferences: Color Theme');
  const input = p.locator(QUICK_INPUT);
  await input.waitFor({ timeout: 30_000 });
  await input.fill(name);
  await p.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().click();
  await p.locator(`.monaco-workbench.${cls}`).waitFor({ timeout: 30_000 });
  await p.waitForTimeout(2000); // webviews repaint after the workbench
}

const ANNOTATOR = 'E-side';
const FILE = 'study.dialogues.jsonl';

describe('A study with label sidecars in real VS Code (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let file = '';
  let sidecar = '';
  let studyBytes: Buffer | undefined;
  let sidecarBefore = '';
  let items: DialogueItem[] = [];

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench(
      (ws) => {
        file = join(ws, FILE);
        runCli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '3', '--seed', '3', '-o', file]);
        items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as DialogueItem);
        // Give each item three more candidates; an inline annotator labels every candidate.
        items.forEach((it, i) => {
          for (let k = 0; k < 3; k++) it.candidates.push({ id: `g-${k}`, text: `So you feel ${i}.${k} is the point.`, origin: { kind: 'model', model: 'gpt2', decoding: { strategy: 'greedy' } }, annotations: [], scores: {} });
          it.candidates.forEach((c, j) => c.annotations.push((i + j) % 3 === 0 ? { annotator: 'Inline-1', coherent: false, errors: ['offTopic'] } : { annotator: 'Inline-1', coherent: true, empathy: 4 }));
        });
        writeFileSync(file, items.map((it) => JSON.stringify(it)).join('\n') + '\n');
        // E-side's labels are in a sidecar: the first item's first and third candidates, all of the second item, and a
        // line that is not a label.
        mkdirSync(join(ws, 'study.labels'));
        sidecar = join(ws, 'study.labels', `${ANNOTATOR}.jsonl`);
        const lines: string[] = [];
        const label = (it: DialogueItem, j: number) => {
          const c = it.candidates[j];
          const a: Annotation = c.annotations[0].coherent ? { annotator: ANNOTATOR, coherent: true, empathy: 4 } : { annotator: ANNOTATOR, coherent: false, errors: ['offTopic'], mostEvidentError: 'offTopic' };
          lines.push(JSON.stringify({ item: it.id, candidate: c.id, annotation: a }));
        };
        label(items[0], 0);
        lines.push('{"item": "nowhere", this is not json');
        label(items[0], 2);
        items[1].candidates.forEach((_, j) => label(items[1], j));
        sidecarBefore = lines.join('\n') + '\n';
        writeFileSync(sidecar, sidecarBefore);
        studyBytes = readFileSync(file);
      },
      { 'reflectEval.annotator': ANNOTATOR, 'reflectEval.blindMode': true },
    );
    page = wb.page;
  });

  after(async function () {
    await wb?.close('sidecars-code-server-logs');
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('sidecars');
  });

  it('opens with the sidecar’s labels shown as if inline, blind, counted in the progress; a line that is not a label is listed with file and line', async () => {
    const p = page as Page;
    const frame = await openDialogueFile(p, FILE);
    await frame.waitForSelector('#candidates .candidate', { timeout: 60_000 });
    // Blind: the cards are in the annotator's blind order and their ids are blind; the labels are the sidecar's.
    await waitFor('the sidecar labels shown', async () => (await frame.locator('.candidate[data-status="complete"]').count()) === 2, 30_000);
    await waitFor('the banner of sidecar lines left out', async () => /study\.labels\/E-side\.jsonl:2: .*not valid JSON/.test((await frame.textContent('#label-problems').catch(() => '')) ?? ''), 30_000);
    const progress = p.locator('.statusbar-item', { hasText: /\d+\/\d+ /}).first();
    const total = items.reduce((n, it) => n + it.candidates.length, 0);
    const mine = 2 + items[1].candidates.length;
    await waitFor(`the progress counting the sidecar's ${mine} labels`, async () => ((await progress.textContent()) ?? '').includes(`${mine}/${total}`), 30_000);
    // The team: Inline-1 and E-side, with the agreement so far.
    const team = p.locator('.statusbar-item', { hasText: /Inline-1 \d+\/\d+/ }).first();
    const text = await waitFor('the team in the status bar', async () => ((await team.textContent().catch(() => '')) ?? '').match(/Inline-1 \d+\/\d+ · E-side \d+\/\d+ · α .+/)?.[0], 30_000);
    assert.match(text, new RegExp(`Inline-1 ${total}/${total} · E-side ${mine}/${total} · α `));
    await p.screenshot({ path: join(out, 'sidecars-open.png') });
  });

  it('labels, undoes and redoes; the save writes the label to the sidecar and leaves the study’s bytes as they were', async () => {
    const p = page as Page;
    const frame = await openDialogueFile(p, FILE).catch(() => undefined);
    assert.ok(frame);
    await keysLive(frame);
    // The focused card is the first one E-side has not labelled.
    const focused = await frame.getAttribute('.candidate.focused', 'data-candidate-id');
    assert.ok(focused);
    await p.keyboard.press('y');
    await p.keyboard.press('5');
    await frame.waitForSelector(`.candidate[data-candidate-id="${focused}"][data-status="complete"][data-coherent="yes"]`, { timeout: 30_000 });
    await labelsApplied(frame);
    await p.waitForSelector('.tab.active.dirty', { timeout: 30_000 });
    await p.keyboard.press('Control+z');
    await frame.waitForSelector(`.candidate[data-candidate-id="${focused}"][data-status="needsEmpathy"]`, { timeout: 30_000 });
    await p.keyboard.press('Control+Shift+z');
    await frame.waitForSelector(`.candidate[data-candidate-id="${focused}"][data-status="complete"]`, { timeout: 30_000 });
    await labelsApplied(frame);
    await p.keyboard.press('Control+s');
    await p.waitForSelector('.tab.active:not(.dirty)', { timeout: 30_000 });
    const after = await waitFor('the label in the sidecar', async () => {
      const t = readFileSync(sidecar, 'utf8');
      return t.length > sidecarBefore.length ? t : undefined;
    }, 30_000);
    assert.ok(readFileSync(file).equals(studyBytes!), 'the study file keeps its bytes');
    // The sidecar's lines as they were, the line that is not a label included, and one new line: E-side's, empathy 5.
    const before = sidecarBefore.split('\n').filter(Boolean);
    const now = after.split('\n').filter(Boolean);
    assert.equal(now.length, before.length + 1);
    for (const l of before) assert.ok(now.includes(l), `kept: ${l}`);
    const added = now.filter((l) => !before.includes(l)).map((l) => JSON.parse(l) as { item: string; candidate: string; annotation: Annotation });
    assert.equal(added.length, 1);
    assert.equal(added[0].annotation.annotator, ANNOTATOR);
    assert.equal(added[0].annotation.coherent, true);
    assert.equal(added[0].annotation.empathy, 5);
    assert.ok(items.some((it) => it.id === added[0].item && it.candidates.some((c) => c.id === added[0].candidate)));
    await p.screenshot({ path: join(out, 'sidecars-saved.png') });
  });

  it('shows the banner of sidecar lines left out and the team in the status bar in light, high contrast and dark themes', async () => {
    const p = page as Page;
    await p.setViewportSize({ width: 1280, height: 720 });
    for (const theme of ['light', 'hc', 'dark'] as const) {
      await setTheme(p, theme);
      const frame = await openDialogueFile(p, FILE);
      await frame.waitForSelector('#label-problems:not([hidden])', { timeout: 30_000 });
      await p.mouse.move(0, 0);
      await p.screenshot({ path: join(out, `sidecars-${theme}.png`) });
    }
  });
});
