/**
 * End to end in real VS Code (see harness.ts): the labelling loop of one annotator (issue 41 items 2 and 3).
 *
 * 1. A copy of the demo file (test/fixtures/correlation/evalreflections-synthetic) without its expert labels, a plan
 *    started with `reflect-eval plan-labels … --human experts --labels-per-candidate 1` beside it: `Expert-RS` follows
 *    the plan in the editor for 10 labels — `U` goes to the plan's drawn candidate (marked "drawn by the plan"), a
 *    key labels it — and the plan line's estimate is logged after each label (the recorded run the issue asks for).
 * 2. Filters and search act on candidates: with an origin filter and a search, the candidates that do not match are
 *    dimmed, the search words are highlighted, F3 / Shift+F3 and Enter in the search field reach the matching
 *    candidates across items, `U` skips the ones filtered out, and the button and the status bar count what is to
 *    go by the same rule. Screenshots at 1280×720 in light, dark and high contrast: test-output/e2e/candfilter-*.png.
 *
 * Run: `bash scripts/e2e/run.sh test/e2e/candidateFilter.e2e.test.ts` (after `npm run build`).
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { DialogueItem } from '../../src/core/dialogue/types';
import { candidatePasses, candidateSequence, isLabelledBy, nextInSequence, nextToLabel, type ItemFilter, type ListPosition } from '../../src/core/navigation/itemNavigation';
import { planLabels, type LabelPlanRecord } from '../../src/core/planning/planner';
import { editorFrame, failedAttempt, launchWorkbench, openDialogueFile, out, prerequisitesPresent, root, runCli, waitFor, type Workbench } from './harness';

const ANNOTATOR = 'Expert-RS';
const FILE = 'demo.dialogues.jsonl';
const JUDGE = 'judge:api:gpt-3.5-turbo:instructions×rating@a1b2c3d4e5f6';
const TARGET = { halfWidth: 0.1 };

/** The demo file without its expert labels (as the probe made it). */
function demoWithoutExperts(): DialogueItem[] {
  const lines = readFileSync(join(root, 'test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl'), 'utf8').trim().split('\n');
  return lines.map((l) => {
    const it = JSON.parse(l) as DialogueItem;
    for (const c of it.candidates) c.annotations = c.annotations.filter((a) => !a.annotator.startsWith('Expert-'));
    return it;
  });
}

/** The laypeople's majority on a candidate (what the annotator answers here: a plausible expert, not a constant). */
function layMajority(c: DialogueItem['candidates'][number]): boolean {
  const answers = c.annotations.filter((a) => typeof a.coherent === 'boolean');
  return answers.filter((a) => a.coherent).length * 2 > answers.length;
}

/** Switches the colour theme through the workspace settings (VS Code applies them live) and waits for it. */
async function setTheme(wb: Workbench, theme: string, bodyClass: string): Promise<void> {
  mkdirSync(join(wb.workspace, '.vscode'), { recursive: true });
  writeFileSync(join(wb.workspace, '.vscode', 'settings.json'), JSON.stringify({ 'workbench.colorTheme': theme }));
  await wb.page.waitForSelector(`.monaco-workbench.${bodyClass}`, { timeout: 60_000 });
  await wb.page.waitForTimeout(1000); // webviews receive the new theme's variables after the workbench
}

describe('One annotator follows the plan; filters and search act on candidates (code-server + Chromium)', function () {
  this.timeout(12 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  const items = demoWithoutExperts();
  let record: LabelPlanRecord | undefined;

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench((ws) => {
      const file = join(ws, FILE);
      writeFileSync(file, items.map((it) => JSON.stringify(it)).join('\n') + '\n');
      runCli(['plan-labels', file, '--evaluator', JUDGE, '--human', 'experts', '--target', String(TARGET.halfWidth), '--labels-per-candidate', '1']);
      record = JSON.parse(readFileSync(join(ws, 'demo.label-plan.json'), 'utf8')) as LabelPlanRecord;
    }, { 'reflectEval.annotator': ANNOTATOR, 'workbench.colorTheme': 'Default Light Modern' });
    page = wb.page;
  });

  after(async function () {
    await wb?.close('candfilter-code-server-logs');
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('candfilter');
  });

  const status = (p: Page) => p.locator('.statusbar-item', { hasText: /\d+\/\d+ labelled/ }).first();
  const focused = async (frame: Frame) => ({ item: (await frame.textContent('#item h2')) ?? '', candidate: (await frame.getAttribute('.candidate.focused', 'data-candidate-id')) ?? '' });
  const label = (itemIndex: number, candidateId: string, coherent: boolean) => items[itemIndex].candidates.find((c) => c.id === candidateId)!.annotations.push({ annotator: ANNOTATOR, coherent });

  it('follows the plan for 10 labels: U goes to the drawn candidate (marked), and the estimate moves after each label (logged)', async () => {
    const p = page as Page;
    const frame = await openDialogueFile(p, FILE);
    await frame.waitForSelector('#candidates .candidate', { timeout: 60_000 });
    await frame.selectOption('#nav-order', 'plan');
    await waitFor('the plan line', async () => /^Plan: (no estimate yet|rho )/.test((await frame.textContent('#nav-plan')) ?? ''), 60_000);
    await frame.click('#item h2');
    const log: string[] = [];
    for (let k = 1; k <= 10; k++) {
      const plan = planLabels(items, record!, { target: TARGET });
      const drawn = plan.order.find((o) => o.status === 'drawn' && !o.labelled);
      assert.ok(drawn, `the plan has a drawn candidate before label ${k}`);
      await p.keyboard.press('u');
      await waitFor(`U to the plan's drawn candidate ${drawn.itemId} ${drawn.candidateId} (label ${k})`, async () => {
        const f = await focused(frame);
        return f.item === drawn.itemId && f.candidate === drawn.candidateId;
      }, 30_000);
      const card = frame.locator('.candidate.focused');
      assert.match((await card.getAttribute('class')) ?? '', /\bdrawn\b/, 'the drawn candidate carries the drawn class');
      assert.equal(await card.locator('.mark.drawn-mark').count(), 1, 'and its mark');
      if (k === 10) {
        // The drawn candidate U went to, before its label, at 1280×720.
        await p.setViewportSize({ width: 1280, height: 720 });
        await card.scrollIntoViewIfNeeded();
        await p.screenshot({ path: join(out, 'candfilter-plan-drawn.png') });
        await p.setViewportSize({ width: 1400, height: 900 });
      }
      const index = items.findIndex((it) => it.id === drawn.itemId);
      const coherent = layMajority(items[index].candidates.find((c) => c.id === drawn.candidateId)!);
      await p.keyboard.press(coherent ? 'y' : 'n');
      await frame.waitForSelector(`.candidate[data-candidate-id="${drawn.candidateId}"][data-coherent="${coherent ? 'yes' : 'no'}"]`, { timeout: 30_000 });
      label(index, drawn.candidateId, coherent);
      const after = planLabels(items, record!, { target: TARGET });
      assert.equal(after.counts.planned, k, `label ${k} is counted by the plan`);
      await waitFor(`the plan line after label ${k}`, async () => new RegExp(`planned labels counted ${k},`).test((await frame.getAttribute('#nav-plan', 'title')) ?? ''), 60_000);
      const line = ((await frame.textContent('#nav-plan')) ?? '').replace(/^Plan: /, '');
      if (after.estimate.value !== null) assert.ok(line.includes(after.estimate.value.toFixed(3).replace('-', '−')), `${line} shows the estimate ${after.estimate.value}`);
      const bar = ((await status(p).textContent()) ?? '').trim();
      const entry = `label ${String(k).padStart(2)}: ${drawn.itemId} ${drawn.candidateId} ${coherent ? 'Y' : 'N'} → ${line} | status bar: ${bar}`;
      log.push(entry);
      console.log(`      ${entry}`);
    }
    writeFileSync(join(out, 'candfilter-plan-run.log'), log.join('\n') + '\n');
  });

  it('dims candidates that do not match the filter and search, highlights the words, and F3, Enter and U follow the matching candidates', async () => {
    const p = page as Page;
    const frame = await editorFrame(p);
    await frame.selectOption('#nav-order', 'file');
    await frame.click('.item-row[data-item-index="0"]');
    await waitFor('the first item', async () => (await frame.textContent('#item h2')) === items[0].id, 30_000);
    const filter: ItemFilter = { origin: 'GPT-2', text: 'unsure' };
    await frame.selectOption('#nav-origin', 'GPT-2');
    await frame.fill('#nav-search', 'unsure');
    const ctx = { annotator: ANNOTATOR, blind: false, scales: new Map() };
    const passes = (it: DialogueItem, c: DialogueItem['candidates'][number]) => candidatePasses(it, c, filter, ctx);
    const matching = items[0].candidates.filter((c) => passes(items[0], c)).map((c) => c.id);
    assert.ok(matching.length > 0 && matching.length < items[0].candidates.length, `some of item 0's candidates match (${matching.length})`);
    await waitFor('the non-matching candidates dimmed', async () => (await frame.locator('#candidates .candidate.unmatched').count()) === items[0].candidates.length - matching.length, 30_000);
    const shownMatching = await frame.locator('#candidates .candidate:not(.unmatched)').evaluateAll((cards) => cards.map((c) => (c as HTMLElement).dataset.candidateId));
    assert.deepEqual(shownMatching, matching);
    for (const id of matching) assert.equal((await frame.textContent(`.candidate[data-candidate-id="${id}"] mark.search-hit`))?.toLowerCase(), 'unsure');
    assert.equal(await frame.locator('.candidate.unmatched .mark.unmatched-mark').count(), items[0].candidates.length - matching.length);

    // The count of what is to go, by the rule for U, on the button and in the status bar.
    const listed = items.map((_, i) => i);
    const seq = candidateSequence(items, listed);
    const toGo = nextToLabel(items, seq, null, { annotator: ANNOTATOR, passes }).toGo;
    const everyUnlabelled = items.reduce((n, it) => n + it.candidates.filter((c) => !isLabelledBy(c, ANNOTATOR)).length, 0);
    assert.ok(toGo > 0 && toGo < everyUnlabelled);
    await waitFor('the button’s count', async () => (await frame.textContent('#nav-next-unlabelled'))?.endsWith(`· ${toGo} to go`), 30_000);
    await waitFor('the status bar’s count', async () => ((await status(p).textContent()) ?? '').includes(`${toGo} to go (filtered)`), 30_000);

    // F3 from the item: the matching candidates in order, labelled or not, then on to the next item; Shift+F3 back.
    await frame.click('#item h2');
    let at: ListPosition = { itemIndex: 0, candidateId: (await focused(frame)).candidate || null };
    const visited: string[] = [];
    for (let k = 0; k < matching.length + 1; k++) {
      const next = nextInSequence(items, seq, at, passes)!;
      await p.keyboard.press('F3');
      await waitFor(`F3 to ${items[next.itemIndex].id} ${next.candidateId}`, async () => {
        const f = await focused(frame);
        return f.item === items[next.itemIndex].id && f.candidate === next.candidateId;
      }, 30_000);
      assert.doesNotMatch((await frame.getAttribute('.candidate.focused', 'class')) ?? '', /unmatched/);
      visited.push(`${items[next.itemIndex].id}/${next.candidateId}`);
      at = next;
    }
    assert.deepEqual(visited.slice(0, matching.length), matching.map((id) => `${items[0].id}/${id}`), 'F3 walks the matching candidates of the item in order');
    assert.notEqual(visited[matching.length].split('/')[0], items[0].id, 'then goes on to the next item');
    await p.keyboard.press('Shift+F3');
    await waitFor('Shift+F3 back to the item’s last match', async () => {
      const f = await focused(frame);
      return f.item === items[0].id && f.candidate === matching[matching.length - 1];
    }, 30_000);
    at = { itemIndex: 0, candidateId: matching[matching.length - 1] };
    // Enter in the search field does what F3 does.
    await frame.click('#nav-search');
    await p.keyboard.press('Enter');
    const byEnter = nextInSequence(items, seq, at, passes)!;
    await waitFor('Enter in the search field to the next match', async () => {
      const f = await focused(frame);
      return f.item === items[byEnter.itemIndex].id && f.candidate === byEnter.candidateId;
    }, 30_000);

    // U skips what the filter and search leave out: it reaches only candidates that match and I have not labelled.
    await frame.click('#item h2');
    at = byEnter;
    for (let k = 0; k < 3; k++) {
      const next = nextToLabel(items, seq, at, { annotator: ANNOTATOR, passes }).next!;
      await p.keyboard.press('u');
      await waitFor(`U to ${items[next.itemIndex].id} ${next.candidateId}`, async () => {
        const f = await focused(frame);
        return f.item === items[next.itemIndex].id && f.candidate === next.candidateId;
      }, 30_000);
      const c = items[next.itemIndex].candidates.find((x) => x.id === next.candidateId)!;
      assert.ok(c.origin?.source === 'GPT-2' && c.text.includes('unsure') && !isLabelledBy(c, ANNOTATOR), `${c.id}: ${c.text}`);
      assert.equal(await frame.getAttribute('.candidate.focused', 'data-status'), 'unlabelled');
      at = next;
    }

    // Screenshots with the filter active at 1280×720: light, dark, high contrast.
    const w = wb as Workbench;
    await p.setViewportSize({ width: 1280, height: 720 });
    for (const [theme, cls, name] of [
      ['Default Light Modern', 'vs', 'light'],
      ['Default Dark Modern', 'vs-dark', 'dark'],
      ['Default High Contrast', 'hc-black', 'hc'],
    ] as const) {
      await setTheme(w, theme, cls);
      // The candidate U reached (matching), between dimmed ones that do not match.
      await frame.locator('.candidate.focused').scrollIntoViewIfNeeded();
      await p.screenshot({ path: join(out, `candfilter-filter-${name}.png`) });
    }
    await setTheme(w, 'Default Light Modern', 'vs');
  });
});
