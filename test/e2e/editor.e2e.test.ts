/**
 * End to end in real VS Code (see harness.ts): opens an imported AnnoMI file (plus one corrupted line), checks the
 * transcript is rendered inside the webview, marks a candidate coherent through the UI, saves, and checks the
 * file on disk; then the correlation panel, generation, external edits, the prompt preview and the judge matrix.
 * Screenshots go to test-output/e2e/.
 *
 * Run: `npm run test:e2e` (after `npm run build`). Needs `bash scripts/e2e/setup.sh` (done by the npm script).
 */
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { clickToolbar, editorFrame, failedAttempt, launchWorkbench, MODAL_DIALOG, NOTIFICATION, openDialogueFile, out, prerequisitesPresent, root, runCli, runCommand, waitFor, waitForJobSummary, type Workbench } from './harness';

const ANNOTATOR = 'e2e-annotator';
const BAD_LINE = '{"id": "corrupted", "context": [ this line is broken';

describe('ReflectEval in real VS Code (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let file = '';
  let firstTurn = '';

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench((ws) => {
      // The workspace: an AnnoMI import made with the CLI, plus one corrupted line that must survive a save.
      file = join(ws, 'annomi.dialogues.jsonl');
      runCli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '3', '--seed', '1', '-o', file]);
      // Judge the candidates with the bundled local judge, so the correlation panel has an evaluator to show.
      runCli(['judge', file]);
      const imported = readFileSync(file, 'utf8');
      firstTurn = JSON.parse(imported.split('\n')[0]).context[0].text;
      writeFileSync(file, imported + BAD_LINE + '\n');
      // A workspace copy of one judge template, to edit with the live preview open.
      mkdirSync(join(ws, 'prompts', 'bodies'), { recursive: true });
      cpSync(join(root, 'prompts', 'bodies', 'instructions.mustache'), join(ws, 'prompts', 'bodies', 'instructions.mustache'));
    }, { 'reflectEval.annotator': ANNOTATOR });
    page = wb.page;
  });

  after(async function () {
    await wb?.close('code-server-logs');
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('editor');
  });

  it('opens the imported AnnoMI file in the ReflectEval editor and renders the transcript', async () => {
    const p = page as Page;
    // Open from the Explorer, as a user would; *.dialogues.jsonl opens in the ReflectEval editor by default.
    const frame: Frame = await openDialogueFile(p, 'annomi.dialogues.jsonl');
    // The transcript shows its last turns; the earlier ones stay in the page, hidden.
    await frame.waitForSelector('#transcript .turn:not([hidden])', { timeout: 60_000 });
    const text = await frame.textContent('#transcript');
    assert.ok(text?.includes(firstTurn), `transcript should contain the first AnnoMI turn ${JSON.stringify(firstTurn)}`);
    const problems = await frame.textContent('#problems');
    assert.match(problems ?? '', /line 4/, 'the corrupted line is reported with its line number');
    await p.screenshot({ path: join(out, 'editor.png') });
  });

  it('marks a candidate coherent through the UI, saves, and the file on disk has the label and the corrupted line', async () => {
    const p = page as Page;
    const frame = await editorFrame(p);
    const candidate = frame.locator('.candidate').first();
    const candidateId = await candidate.getAttribute('data-candidate-id');
    await candidate.locator('[data-action="coherent-yes"]').click();
    await frame.waitForSelector(`.candidate[data-candidate-id="${candidateId}"][data-coherent="yes"]`, { timeout: 30_000 });
    await p.screenshot({ path: join(out, 'labelled.png') });
    // The edit made the document dirty; Ctrl+S inside the webview is forwarded to the workbench and saves.
    await p.waitForSelector('.tab.active.dirty', { timeout: 30_000 });
    await candidate.press('Control+s');
    await p.waitForSelector('.tab.active:not(.dirty)', { timeout: 30_000 });
    const saved = await waitFor('the label on disk', async () => {
      const lines = readFileSync(file, 'utf8').split('\n');
      const item = JSON.parse(lines[0]);
      const c = item.candidates.find((x: { id: string }) => x.id === candidateId);
      return c?.annotations?.some((a: { annotator: string; coherent?: boolean }) => a.annotator === ANNOTATOR && a.coherent === true) ? lines : undefined;
    }, 30_000);
    assert.equal(saved[3], BAD_LINE, 'the corrupted line is kept verbatim');
    assert.equal(saved.length, 5, 'three items, the corrupted line, and the final newline');
    await p.screenshot({ path: join(out, 'saved.png') });
  });

  it('shows the correlation panel beside the editor, following the labels in the document', async () => {
    const p = page as Page;
    await runCommand(p, 'ReflectEval: Show Correlation Table');
    const panel = await waitFor('the correlation table', async () => {
      for (const f of p.frames()) {
        if (await f.$('#table tr[data-evaluator]').catch(() => null)) return f;
      }
      return undefined;
    });
    const row = panel.locator('#table tr[data-evaluator^="judge:local:bundled:reflect-gpt2-tiny:instructions×rating@"]');
    // One candidate is labelled (by the previous test): n = 1 in the column of all responses, too few for a correlation.
    const all = row.locator('td[data-group="all"]');
    await waitFor('n = 1 in the judge row', async () => (await all.locator('.n').textContent()) === 'n = 1');
    assert.match((await all.locator('.stat').textContent()) ?? '', /too few/);
    await p.screenshot({ path: join(out, 'correlation.png') });
  });

  it('generates greedy candidates from the editor with the packaged ONNX runtime, and they are saved', async () => {
    const p = page as Page;
    const frame = await editorFrame(p);
    const from = wb!.output().length;
    await clickToolbar(frame, '#cmd-generate');
    // The quick pick offers Greedy first (then the GEM 2022 grid, custom settings, a run config file).
    await p.waitForSelector('.quick-input-widget .quick-input-title:has-text("Generate: decoding settings")', { timeout: 30_000 });
    await p.keyboard.press('Enter');
    assert.match(await waitForJobSummary(wb!, 'generate', from), /3 new candidates/);
    await p.waitForSelector('.tab.active.dirty', { timeout: 30_000 });
    await frame.locator('.candidate').first().press('Control+s');
    // Two editor groups are open now (the panel is beside), so watch the file rather than a tab.
    const modelCandidates = (line: string) => JSON.parse(line).candidates.filter((c: { origin: { kind: string } }) => c.origin.kind === 'model');
    const lines = await waitFor('generated candidates on disk', async () => {
      const l = readFileSync(file, 'utf8').split('\n');
      return l.slice(0, 3).every((x) => modelCandidates(x).length > 0) ? l : undefined;
    }, 30_000);
    for (const line of lines.slice(0, 3)) {
      const generated = modelCandidates(line);
      assert.equal(generated.length, 1);
      assert.equal(generated[0].origin.decoding.strategy, 'greedy');
    }
    assert.equal(lines[3], BAD_LINE);
    await p.screenshot({ path: join(out, 'generated.png') });
  });

  it('re-renders when the file is changed outside the editor', async () => {
    const p = page as Page;
    const lines = readFileSync(file, 'utf8').split('\n');
    const first = JSON.parse(lines[0]);
    first.context[0].text = 'Edited outside VS Code: this turn was rewritten on disk.';
    lines[0] = JSON.stringify(first);
    writeFileSync(file, lines.join('\n'));
    const frame = await editorFrame(p);
    await waitFor('the external edit in the webview', async () => (await frame.textContent('#transcript'))?.includes('Edited outside VS Code'), 60_000);
    await p.screenshot({ path: join(out, 'external-change.png') });
  });

  it('previews the judge prompt of the selected candidate live while a template is edited', async () => {
    const p = page as Page;
    const frame = await editorFrame(p);
    const candidateText = (await frame.locator('.candidate .candidate-text').first().textContent()) ?? '';
    await frame.locator('.candidate .candidate-text').first().click();
    // The Explorer shows prompts/bodies as one compact row.
    const templateRow = p.locator('.explorer-folders-view .monaco-list-row', { hasText: 'instructions.mustache' });
    if (!(await templateRow.isVisible())) await p.locator('.explorer-folders-view .monaco-list-row', { hasText: 'prompts' }).first().click();
    await templateRow.dblclick();
    const preview = await waitFor('the prompt preview', async () => {
      for (const f of p.frames()) {
        const el = await f.$('#prompt').catch(() => null);
        if (el && ((await el.textContent()) ?? '').includes('Task overview')) return f;
      }
      return undefined;
    });
    assert.ok(((await preview.textContent('#prompt')) ?? '').includes(`Therapist: ${candidateText}`), 'the prompt ends with the selected candidate');
    assert.match((await preview.textContent('#header')) ?? '', /\d+ tokens for local:bundled:reflect-gpt2-tiny/);
    // Type into the template (unsaved): the preview follows.
    await p.locator('.monaco-editor .view-lines').first().click();
    await p.keyboard.press('Control+Home');
    await p.keyboard.type('EDITED PREAMBLE\n');
    await waitFor('the edit in the preview', async () => ((await preview.textContent('#prompt')) ?? '').startsWith('EDITED PREAMBLE'), 30_000);
    await p.screenshot({ path: join(out, 'prompt-preview.png') });
  });

  it('runs the judge matrix (3 bodies × 2 requests) from the command palette after showing the number of calls', async () => {
    const p = page as Page;
    // Back to the dialogue editor, so the matrix runs on its document.
    await p.locator('.tabs-container .tab', { hasText: 'annomi.dialogues.jsonl' }).first().click();
    await editorFrame(p);
    await runCommand(p, 'ReflectEval: Run Judge Matrix');
    for (const title of ['Judges', 'Task bodies', 'Assessment requests']) {
      await p.waitForSelector(`.quick-input-widget .quick-input-title:has-text("${title}")`, { timeout: 30_000 });
      await p.keyboard.press('Enter'); // every judge and body is preselected, and ICMI 2023's rating and scoring requests
    }
    const dialog = p.locator(MODAL_DIALOG);
    await dialog.waitFor({ timeout: 30_000 });
    // 3 items × 2 candidates (reference + generated) × 1 judge × 6 variants.
    assert.match((await dialog.textContent()) ?? '', /36 judgements: 6 candidates × 1 judge\(s\) × 6 variant\(s\)/);
    await p.screenshot({ path: join(out, 'judge-matrix-confirm.png') });
    await dialog.locator('a.monaco-button', { hasText: 'Run' }).click();
    const summary = await waitFor('the matrix results', async () => {
      const notes = await p.$$eval(NOTIFICATION, (els) => els.map((e) => e.textContent ?? ''));
      return notes.find((n) => /instructions-tutorial × scoring[^:]*: \d+ judged/.test(n));
    }, 120_000);
    // The results are in the document before the summary is shown. Save from the webview (Ctrl+S goes to the
    // workbench) without waiting for the tab's dirty mark, which a busy UI may show late; the disk is the check.
    const frame = await editorFrame(p);
    await frame.locator('.candidate').first().press('Control+s');
    let polls = 0;
    let lastSeen = '';
    const evaluators = await waitFor('six judge variants on disk', async () => {
      if (++polls % 40 === 0) await frame.locator('.candidate').first().press('Control+s'); // every ~10 s: a save that did not reach the workbench
      const item = JSON.parse(readFileSync(file, 'utf8').split('\n')[0]);
      const ids = Object.keys(item.candidates[0].scores).filter((k) => k.startsWith('judge:local:bundled:reflect-gpt2-tiny:'));
      lastSeen = Object.keys(item.candidates[0].scores).join(', ');
      // Variants by name; instructions×rating may appear twice (the CLI's run before, and the run over the edited template).
      const variants = [...new Set(ids.map((e) => e.split(':')[4].split('@')[0]))];
      return variants.length === 6 ? variants : undefined;
    }, 60_000).catch(async (err) => {
      const notes = await p.$$eval(NOTIFICATION, (els) => els.map((e) => e.textContent));
      throw new Error(`${(err as Error).message}; scores on disk: ${lastSeen}; the run's summary: ${summary}; notifications: ${notes.join(' | ')}`);
    });
    assert.deepEqual(evaluators.sort(), [
      'instructions-error-explanations×rating',
      'instructions-error-explanations×scoring',
      'instructions-tutorial×rating',
      'instructions-tutorial×scoring',
      'instructions×rating',
      'instructions×scoring',
    ]);
  });
});

