/**
 * End to end in real VS Code (see harness.ts): ReflectEval: Show Prompt Search Results before any search says there
 * is no report; Search Judge Prompts… with the bundled local judge (offline) shows its estimate, runs, and its
 * leaderboard panel then shows the rows core computes from the report on disk (the same variants in the same order,
 * the same development rhos; held-out numbers for the chosen variant and the paper's baselines only); clicking a
 * variant opens its assembled prompt in the prompt preview.
 *
 * Data: 6 dialogue contexts × 2 responses with 3 experts' coherence labels, written by the test.
 *
 * Run alone: `npm run build && npx mocha --no-config --node-option import=tsx --timeout 900000 test/e2e/search.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame } from 'playwright-core';
import { leaderboardRows, readSearchReport } from '../../src/core/judges/searchReport';
import { failedAttempt, frameWith, launchWorkbench, MODAL_DIALOG, openDialogueFile, out, prerequisitesPresent, runCommand, waitFor, type Workbench } from './harness';

const RESPONSES = [
  ['It sounds like the move has left you feeling unsettled.', 'Bananas are yellow.'],
  ['You are worried your sister will not call back.', 'The weather was nice in 1999.'],
  ['Work has been wearing you down this month.', 'I like trains.'],
  ['You want to sleep better but nothing has worked so far.', 'Please describe your car.'],
  ['Part of you misses drinking with your friends.', 'Numbers are fun.'],
  ['You feel proud that you kept going to the gym.', 'The sea is wet.'],
];

function items(): string {
  return RESPONSES.map(([good, bad], i) =>
    JSON.stringify({
      id: `ctx${i}`,
      context: [
        { speaker: 'therapist', text: `What would you like to talk about today (${i})?` },
        { speaker: 'client', text: ['We moved house and I cannot settle.', 'My sister has not called me back.', 'Work is exhausting lately.', 'I cannot sleep at all.', 'I miss going out drinking.', 'I went to the gym every day.'][i] },
      ],
      candidates: [good, bad].map((text, j) => ({
        id: `r${j}`,
        text,
        origin: { kind: 'model' },
        annotations: [1, 2, 3].map((e) => ({ annotator: `Expert ${e}`, coherent: j === 0 ? e <= 3 - (i % 2) : e <= i % 2 })),
        scores: {},
      })),
    }),
  ).join('\n') + '\n';
}

interface PanelRow {
  variant: string;
  role: string;
  dev: string;
  heldOut: string;
}

async function readPanel(frame: Frame): Promise<PanelRow[]> {
  return frame.$$eval('#leaderboard tbody tr', (trs) =>
    trs.map((tr) => {
      const td = tr.querySelectorAll('td');
      return { variant: td[0].textContent ?? '', role: td[2].textContent ?? '', dev: td[3].textContent ?? '', heldOut: td[4].textContent ?? '' };
    }),
  );
}

describe('prompt search leaderboard in VS Code (e2e)', function () {
  this.timeout(900_000);
  let wb: Workbench | undefined;

  before(function () {
    if (!prerequisitesPresent()) this.skip();
  });
  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('search');
  });

  after(async () => wb?.close('search-logs'));

  it('runs Search Judge Prompts… with the local judge, shows the report as core reads it, and previews a variant', async () => {
    wb = await launchWorkbench((ws) => writeFileSync(join(ws, 'search.dialogues.jsonl'), items()), { 'reflectEval.judge.backend': 'local' });
    const p = wb.page;
    await openDialogueFile(p, 'search.dialogues.jsonl');

    await runCommand(p, 'ReflectEval: Show Prompt Search Results');
    const empty = await frameWith(p, '#search-status', 'the prompt search panel');
    await waitFor('the panel to say there is no report', async () => /no prompt search report/.test((await empty.textContent('#search-status')) ?? ''));

    await openDialogueFile(p, 'search.dialogues.jsonl');
    await runCommand(p, 'ReflectEval: Search Judge Prompts…');
    for (const title of ['Prompt search: judges', 'Prompt search: assessment requests', 'Prompt search: parts', 'Prompt search: few-shot']) {
      await p.waitForSelector(`.quick-input-widget .quick-input-title:has-text("${title}")`, { timeout: 30_000 });
      await p.keyboard.press('Enter'); // the local judge; rating, scoring, binary; parts A, B, C; no few-shot examples
    }
    const dialog = p.locator(MODAL_DIALOG);
    await dialog.waitFor({ timeout: 60_000 });
    // 3 + 3 contexts (6 + 6 candidates); 8 bodies × 3 requests = 24 variants + the paper's 6.
    const estimate = (await dialog.textContent()) ?? '';
    assert.match(estimate, /split: 3 development items \(6 labelled candidates, 3 contexts\), 3 held-out items \(6 candidates, 3 contexts\)/);
    assert.match(estimate, /222 judgements: \(24 variants \+ 6 baselines\)/);
    await wb.screenshot('search-confirm');
    await dialog.locator('a.monaco-button', { hasText: 'Run' }).click();

    // 222 judgements by the local GPT-2 judge in the extension host, on 2 cores shared with other runs: minutes.
    const report = join(wb.workspace, 'search.prompt-search.json');
    const frame = await frameWith(p, '#leaderboard tbody tr', 'the leaderboard', 600_000);
    await wb.screenshot('search-leaderboard');
    const expected = leaderboardRows(readSearchReport(report));
    const shown = await readPanel(frame);
    assert.equal(shown.length, 30);
    assert.deepEqual(shown.map((r) => r.variant), expected.map((r) => `${r.body} × ${r.request}`));
    const f3 = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toFixed(3));
    shown.forEach((r, i) => assert.ok(r.dev.startsWith(f3(expected[i].dev?.rho)), `${r.variant}: ${r.dev} vs ${f3(expected[i].dev?.rho)}`));
    // Held-out numbers only for the chosen variant and the baselines (6 held-out candidates each).
    shown.forEach((r, i) => {
      const heldOutExpected = expected[i].chosen || expected[i].baseline;
      assert.equal(/n=6/.test(r.heldOut), heldOutExpected, `${r.variant} (${r.role}): ${r.heldOut}`);
    });
    assert.deepEqual(shown.slice(-6).map((r) => r.role), new Array(6).fill('paper baseline'));
    assert.match((await frame.textContent('#facts')) ?? '', /development\/held-out by context, seed 0: 3 \+ 3 contexts/);

    // Click the first search variant: its assembled prompt opens in the prompt preview.
    const first = expected[0];
    await frame.locator('button.variant').first().click();
    const preview = await frameWith(p, '#prompt', 'the prompt preview', 60_000);
    await waitFor('the variant in the preview', async () => ((await preview.textContent('#header')) ?? '').includes(`Variant: ${first.body} × ${first.request}`), 60_000);
    const prompt = (await preview.textContent('#prompt')) ?? '';
    assert.match(prompt, /What would you like to talk about today \(0\)\?/);
    assert.match(prompt, /Bananas are yellow\.|It sounds like the move has left you feeling unsettled\./);
    assert.equal(((await preview.textContent('#warnings')) ?? '').trim(), '', 'the templates are the ones the search judged');
    await p.screenshot({ path: join(out, 'search-preview.png') });
  });
});
