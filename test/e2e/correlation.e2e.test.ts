/**
 * End to end in real VS Code (see harness.ts): the correlation panel on an annotated, scored study shows the same
 * numbers as `reflect-eval correlate` — the table, another method, bootstrap intervals, pinned configurations, the
 * comparison of two evaluators — and follows a change to the document without a reload. Screenshots go to
 * test-output/e2e/.
 *
 * Data: test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl (written in the JSONL format by
 * scripts/fixtures/correlation_sample.py: AnnoMI contexts, 3 experts + 3 laypeople per response, metric, follow-up
 * and judge scores), until the annotation-table importer and the metrics CLI are merged.
 *
 * Run alone: `npm run build && npx mocha --no-config --node-option import=tsx --timeout 600000 test/e2e/correlation.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { CorrelationTable } from '../../src/core/analysis/correlationTable';
import type { EvaluatorComparison } from '../../src/core/analysis/compareEvaluators';
import { frameWith, launchWorkbench, openDialogueFile, out, prerequisitesPresent, root, runCli, runCommand, waitFor, type Workbench } from './harness';

const FIXTURE = join(root, 'test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl');
const RATE = 'judge:api:gpt-3.5-turbo:instructions×rating@a1b2c3d4e5f6';
const SCORE = 'judge:api:gpt-3.5-turbo:instructions×scoring@0f1e2d3c4b5a';

interface PanelCell {
  group: string;
  stat: string;
  n: string;
  ci: string;
  best: boolean;
  significant: boolean;
}
interface PanelRow {
  id: string;
  cells: PanelCell[];
}

/** Every row of the panel's table as text, read from the DOM. */
async function readPanel(frame: Frame): Promise<PanelRow[]> {
  return frame.$$eval('#correlations tbody tr', (trs) =>
    trs.map((tr) => ({
      id: (tr as HTMLElement).dataset.evaluator ?? '',
      cells: [...tr.querySelectorAll('td.cell')].map((td) => ({
        group: (td as HTMLElement).dataset.group ?? '',
        stat: td.querySelector('.stat')?.textContent ?? '',
        n: td.querySelector('.n')?.textContent ?? '',
        ci: td.querySelector('.ci')?.textContent ?? '',
        best: td.classList.contains('best'),
        significant: td.classList.contains('significant'),
      })),
    })),
  );
}

/** The CLI's table as the panel would print it. */
function expected(table: CorrelationTable): PanelRow[] {
  const stat = (s: number | null, reason?: string) => (s === null ? `undefined (${reason})` : s.toFixed(3));
  return [table.reference, ...table.rows].map((r) => ({
    id: r.evaluatorId,
    cells: r.cells.map((c) => ({
      group: c.column,
      stat: stat(c.statistic, c.undefinedReason),
      n: `n = ${c.n}`,
      ci: c.ci ? (c.ci.lower === null ? '[undefined]' : `[${c.ci.lower.toFixed(3)}, ${c.ci.upper?.toFixed(3)}]`) : '',
      best: c.best,
      significant: c.significant,
    })),
  }));
}

function cliTable(file: string, ...args: string[]): CorrelationTable {
  return JSON.parse(runCli(['correlate', file, '--json', ...args])) as CorrelationTable;
}

describe('correlation panel in real VS Code (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let panel: Frame | undefined;
  let file = '';

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench((ws) => {
      file = join(ws, 'study.dialogues.jsonl');
      copyFileSync(FIXTURE, file);
    });
    page = wb.page;
  });

  after(async function () {
    if (page && this.currentTest?.state === 'failed') await page.screenshot({ path: join(out, 'correlation-failure.png') }).catch(() => undefined);
    await wb?.close('correlation-code-server-logs');
  });

  afterEach(async function () {
    if (this.currentTest?.state === 'failed') console.log(`code-server log (tail):\n${wb?.log().slice(-4000)}`);
  });

  it('opens the study and shows the table with the same numbers, n and marks as the CLI', async () => {
    const p = page as Page;
    await openDialogueFile(p, 'study.dialogues.jsonl');
    await runCommand(p, 'ReflectEval: Show Correlation Table');
    panel = await frameWith(p, '#correlations tr[data-evaluator]', 'the correlation table');
    const want = expected(cliTable(file));
    await waitFor('the panel to match the CLI', async () => JSON.stringify(await readPanel(panel as Frame)) === JSON.stringify(want), 30_000).catch(async (err) => {
      assert.deepEqual(await readPanel(panel as Frame), want, (err as Error).message);
    });
    // ICMI 2023 styling: the best judge on GPT-2 is bold and italic; a constant metric is undefined, not NaN.
    const best = panel.locator(`tr[data-evaluator="${RATE}"] td[data-group="GPT-2"]`);
    assert.equal(await best.evaluate((td) => getComputedStyle(td.querySelector('.stat') as Element).fontWeight), '700');
    assert.equal(await best.evaluate((td) => getComputedStyle(td.querySelector('.stat') as Element).fontStyle), 'italic');
    assert.doesNotMatch((await panel.textContent('#correlations')) ?? '', /NaN/);
    assert.match((await panel.textContent('#correlations')) ?? '', /undefined \(constant-input\)/);
    await p.screenshot({ path: join(out, 'correlation-panel.png') });
  });

  it('switches to Kendall and computes bootstrap intervals equal to the CLI’s', async () => {
    const f = panel as Frame;
    await f.selectOption('#method', 'kendall');
    await f.waitForSelector('#correlations[data-method="kendall"]');
    await f.fill('#resamples', '200');
    await f.press('#resamples', 'Enter');
    await f.waitForSelector('#resamples');
    await f.fill('#seed', '3');
    await f.press('#seed', 'Enter');
    await f.check('#intervals');
    await f.waitForSelector('#app[data-state="done"]', { timeout: 120_000 });
    const want = expected(cliTable(file, '--method', 'kendall', '--bootstrap', '200', '--seed', '3'));
    assert.deepEqual(await readPanel(f), want);
    const status = (await f.textContent('#status')) ?? '';
    console.log(`      panel status: ${status}`);
    await (page as Page).screenshot({ path: join(out, 'correlation-intervals.png') });
  });

  it('pins a configuration beside the current one, sorts and filters', async () => {
    const f = panel as Frame;
    await f.uncheck('#intervals');
    await f.waitForSelector('#app[data-state="off"]');
    await f.fill('#pin-label', 'tau');
    await f.click('#pin');
    await f.waitForSelector('.pin');
    await f.selectOption('#method', 'spearman');
    const headers = () => f.$$eval('#correlations thead th', (ths) => ths.map((th) => th.textContent));
    await waitFor('the pinned and the current configuration side by side', async () => (await headers())[2] === 'GPT-2 · current (spearman · auto)', 30_000);
    assert.deepEqual((await headers()).slice(1, 3), ['GPT-2 · tau', 'GPT-2 · current (spearman · auto)']);
    const tau = cliTable(file, '--method', 'kendall');
    const rho = cliTable(file);
    const row = (await readPanel(f)).find((r) => r.id === SCORE) as PanelRow;
    assert.equal(row.cells[0].stat, tau.rows.find((r) => r.evaluatorId === SCORE)?.cells[0].statistic?.toFixed(3));
    assert.equal(row.cells[1].stat, rho.rows.find((r) => r.evaluatorId === SCORE)?.cells[0].statistic?.toFixed(3));
    // Filter to judges, sort by the current configuration's GPT-3.5 column (strongest first).
    await f.fill('#filter', 'judge');
    await f.selectOption('#sort', '1:GPT-3.5');
    const ids = (await readPanel(f)).slice(1).map((r) => r.id);
    assert.ok(ids.length === 3 && ids.every((id) => id.startsWith('judge:')), ids.join(', '));
    const byGpt35 = rho.rows.filter((r) => r.kind === 'judge').sort((a, b) => Math.abs(b.cells[1].statistic ?? 0) - Math.abs(a.cells[1].statistic ?? 0));
    assert.deepEqual(ids, byGpt35.map((r) => r.evaluatorId));
    await (page as Page).screenshot({ path: join(out, 'correlation-pinned.png') });
    await f.fill('#filter', '');
    await f.click('.pin button.unpin');
    await f.waitForSelector('#correlations[data-columns="3"]');
  });

  it('compares two judges: difference, Williams, Steiger as the CLI', async () => {
    const f = panel as Frame;
    await f.selectOption('#compare-a', RATE);
    await f.selectOption('#compare-b', SCORE);
    await f.click('#compare-run');
    await f.waitForSelector('#comparison-table tbody tr');
    const got = await f.$$eval('#comparison-table tbody tr', (trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    const want = JSON.parse(runCli(['correlate', file, '--json', '--compare', RATE, SCORE])) as EvaluatorComparison[];
    assert.equal(got.length, want.length);
    want.forEach((c, i) => {
      assert.equal(got[i][0], c.column);
      assert.equal(got[i][1], String(c.n));
      assert.equal(got[i][5], c.difference?.toFixed(3));
      assert.equal(got[i][8], `${c.williams?.statistic?.toFixed(3)} (${c.williams?.df})`);
      assert.equal(got[i][10], c.steiger?.statistic?.toFixed(3));
    });
    await (page as Page).screenshot({ path: join(out, 'correlation-compare.png') });
  });

  it('follows a change to the document without a reload', async () => {
    const f = panel as Frame;
    const n = async () => (await f.textContent(`tr[data-evaluator="${RATE}"] td[data-group="GPT-2"] .n`)) ?? '';
    const before = await n();
    // An external edit: item 4's first GPT-2 response, unlabelled so far, gets the three experts' labels.
    const lines = readFileSync(file, 'utf8').split('\n');
    const item = JSON.parse(lines[3]);
    const cand = item.candidates.find((c: { id: string }) => c.id === 'g2-0');
    assert.equal(cand.annotations.length, 0);
    cand.annotations = ['Expert-1', 'Expert-2', 'Expert-3'].map((annotator, k) => ({ annotator, coherent: k > 0 }));
    lines[3] = JSON.stringify(item);
    const t0 = Date.now();
    writeFileSync(file, lines.join('\n'));
    await waitFor('the panel to update', async () => (await n()) !== before, 60_000);
    console.log(`      panel updated ${Date.now() - t0} ms after the file was written (includes VS Code's file watcher)`);
    assert.deepEqual(await readPanel(f), expected(cliTable(file)));
    assert.equal(await n(), `n = ${Number(before.slice(4)) + 1}`);
    await (page as Page).screenshot({ path: join(out, 'correlation-updated.png') });
  });
});
