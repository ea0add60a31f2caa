/**
 * End to end in real VS Code (see harness.ts), issue 14 item 2: problem lines of a dialogue file are VS Code
 * diagnostics, one per line with all its reasons (the issue saw "8 line(s)" for 6 lines, no Problems panel entry and
 * no way to jump to a line). Checks the banner's count and its links, the Problems panel, an update when the file
 * changes, and that closing the editor removes them.
 *
 * Run: `npm run build && npx mocha --no-config --node-option import=tsx --timeout 600000 test/e2e/problems.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { editorFrame, failedAttempt, keysLive, launchWorkbench, openDialogueFile, out, prerequisitesPresent, root, runCli, runCommand, waitFor, type Workbench } from './harness';

const BYTES_FILE = 'bytes.dialogues.jsonl';
const ANNOTATOR = 'e2e-bytes';

describe('problem lines as VS Code diagnostics (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let file = '';

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench((ws) => {
      file = join(ws, 'study.dialogues.jsonl');
      runCli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '2', '--seed', '1', '-o', file]);
      const [first, second] = readFileSync(file, 'utf8').trim().split('\n');
      const schemaBad = JSON.stringify({ id: 'bad-schema', context: [{ speaker: '', text: 3 }], candidates: [{ id: 'c', text: 'x', annotations: [], scores: {} }] });
      // Lines 2-5 need attention (4 lines, 6 problems: three of them on line 3); lines 1 and 6 are items.
      writeFileSync(file, [first, '{"id": "torn", "context": [', schemaBad, first, '[1, 2]', second].join('\n') + '\n');
      // For the save test: a line with bytes that are not UTF-8 (E9 FF, 130 of them) and a line with a lone CR.
      const notUtf8 = Buffer.concat([Buffer.from('{"id":"latin1","context":[{"speaker":"client","text":"caf'), Buffer.from(Array(65).fill([0xe9, 0xff]).flat()), Buffer.from('"}],"candidates":[]}')]);
      writeFileSync(join(ws, BYTES_FILE), Buffer.concat([Buffer.from(first + '\n'), notUtf8, Buffer.from('\nlone\rCR is not JSON\n' + second + '\n')]));
    }, { 'reflectEval.annotator': ANNOTATOR, 'files.autoSave': 'off' });
    page = wb.page;
  });

  after(async function () {
    await wb?.close('code-server-logs-problems');
  });

  /** A Problems panel row of one of ReflectEval's diagnostics (not the file's row). */
  const isOurs = (row: string) => row.includes('ReflectEval') && /\[Ln \d+, Col \d+\]/.test(row);

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('problems');
  });

  it('the banner counts lines, not problems, and the Problems panel lists one entry per line with all its reasons', async () => {
    const p = page as Page;
    const frame = await openDialogueFile(p, 'study.dialogues.jsonl');
    await frame.waitForSelector('#problems:not([hidden])', { timeout: 30_000 });
    const banner = (await frame.textContent('#problems')) ?? '';
    assert.match(banner, /^4 lines are not an item: ReflectEval never edits them and leaves them out of every job:/, banner);
    assert.deepEqual(await frame.locator('#problems a.problem-line').allTextContents(), ['line 2', 'line 3', 'line 4', 'line 5']);
    assert.match(banner, /line 3: context\[0\]\.speaker: .*; context\[0\]\.text: must be string; candidates\[0\]\.origin: missing required field "origin"/);
    await runCommand(p, 'View: Focus Problems (Errors, Warnings, Infos)');
    const rows = await waitFor('four problem lines in the Problems panel', async () => {
      const texts = await p.locator('.markers-panel .monaco-list-row').allTextContents();
      const ours = texts.filter(isOurs);
      return ours.length === 4 ? ours : undefined;
    }, 30_000);
    assert.ok(rows.some((t) => /must be string.*missing required field "origin"/.test(t)), rows.join('\n'));
    assert.ok(rows.every((t) => /\[Ln \d+, Col 1\]/.test(t)), rows.join('\n'));
    await p.screenshot({ path: join(out, 'problems-panel.png') });
  });

  it('a banner entry opens the line in a text editor with the line selected', async () => {
    const p = page as Page;
    const frame = await editorFrame(p);
    await frame.locator('#problems a.problem-line', { hasText: 'line 4' }).click();
    const selection = await waitFor('the cursor on line 4', async () => {
      const t = (await p.locator('.statusbar-item[id="status.editor.selection"]').textContent().catch(() => '')) ?? '';
      return /Ln 4, Col \d+/.test(t) ? t : undefined;
    }, 30_000);
    assert.match(selection, /selected/, 'the whole line is selected');
    await p.screenshot({ path: join(out, 'problems-reveal.png') });
  });

  it('follows changes of the file, and closing every editor of it removes its problems', async () => {
    const p = page as Page;
    appendFileSync(file, 'not json at all\n');
    await waitFor('five problem lines', async () => (await p.locator('.markers-panel .monaco-list-row').allTextContents()).filter(isOurs).length === 5, 60_000);
    // A change on disk reloads both editors of the file; neither holds unsaved changes, so closing asks nothing.
    assert.deepEqual(await p.locator('.tab.dirty').allTextContents(), [], 'no editor has unsaved changes');
    await runCommand(p, 'View: Close All Editors');
    await waitFor('no problem line left', async () => (await p.locator('.markers-panel .monaco-list-row').allTextContents()).filter(isOurs).length === 0, 30_000);
  });

  it('a save from the editor keeps a line that is not UTF-8 and a lone CR byte for byte, and writes the label (issue 14 item 1)', async () => {
    const p = page as Page;
    const target = join((wb as Workbench).workspace, BYTES_FILE);
    const before = readFileSync(target);
    const lines = (b: Buffer) => b.toString('latin1').split('\n');
    const frame = await openDialogueFile(p, BYTES_FILE);
    await frame.waitForSelector('#problems:not([hidden])', { timeout: 60_000 });
    const banner = (await frame.textContent('#problems')) ?? '';
    assert.match(banner, /replace 130 bytes that are not UTF-8 with 130 U\+FFFD.*a save from this editor keeps its bytes/, banner);
    await frame.waitForSelector('#candidates .candidate.focused', { timeout: 60_000 });
    await keysLive(frame);
    await p.keyboard.press('y');
    await frame.waitForSelector('#candidates .candidate.focused[data-coherent="yes"]', { timeout: 30_000 });
    // 60 s: the extension host shares two busy cores with other test runs.
    await p.waitForSelector('.tab.active.dirty', { timeout: 60_000 });
    assert.deepEqual(readFileSync(target), before, 'nothing saved yet');
    await frame.locator('#candidates .candidate.focused').press('Control+s');
    await p.waitForSelector('.tab.active:not(.dirty)', { timeout: 60_000 });
    const labelled = (b: Buffer) => (JSON.parse(lines(b)[0]) as { candidates: { annotations: { annotator: string; coherent?: boolean }[] }[] }).candidates.some((c) => c.annotations.some((a) => a.annotator === ANNOTATOR && a.coherent === true));
    const kept = (b: Buffer) => lines(b)[1] === lines(before)[1] && lines(b)[2] === lines(before)[2] && lines(b)[3] === lines(before)[3];
    const saved = await waitFor('the label on disk and the problem lines byte for byte', async () => {
      const b = readFileSync(target);
      return labelled(b) && kept(b) ? b : undefined;
    }, 60_000);
    // VS Code reloads the file it sees changed; nothing rewrites it afterwards.
    await p.waitForTimeout(3000);
    const after = readFileSync(target);
    assert.deepEqual(after, saved);
    assert.equal(lines(after)[1].length, lines(before)[1].length, 'the line that is not UTF-8 keeps its length (VS Code alone would have made it 130 bytes longer)');
    assert.equal(lines(after).slice(1).join('\n'), lines(before).slice(1).join('\n'), 'every line after the labelled item byte for byte');
    assert.equal(await p.locator('.tab.active.dirty').count(), 0, 'the editor holds what is on disk');
    await p.screenshot({ path: join(out, 'problems-save-keeps-bytes.png') });
  });
});
