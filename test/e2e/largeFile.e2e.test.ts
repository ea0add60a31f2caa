/**
 * End to end in real VS Code (see harness.ts), issue 19 item 3: a dialogue file over 50 MB, which VS Code opens in no
 * text editor, opens in the ReflectEval editor (it reads the file itself); opened as text, it gets ReflectEval's
 * message with the ways forward instead of VS Code's bare placeholder; the split command it names makes parts of
 * whole lines that join back to the same bytes. A scored study over the limit, compacted (`reflect-eval compact`), opens in the editor, and a
 * label saved from it keeps the file compact.
 *
 * Run: `npm run build && npx mocha --no-config --node-option import=tsx --timeout 600000 test/e2e/largeFile.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import type { DialogueItem, Score } from '../../src/core/dialogue/types';
import { failedAttempt, keysLive, labelsApplied, launchWorkbench, NOTIFICATION, openDialogueFile, out, prerequisitesPresent, root, runCli, runCommand, waitFor, type Workbench } from './harness';

const ANNOTATOR = 'E2E-Large';

/** Item `i` of a scored study: `base`'s context with 26 model candidates, each with 17 scores as the jobs write them. */
function studyItem(base: DialogueItem, i: number): DialogueItem {
  const at = (k: number) => new Date(Date.UTC(2026, 10, 25) + i * 1000 + k).toISOString();
  const candidates = Array.from({ length: 26 }, (_, c) => {
    const scores: Record<string, Score> = {};
    for (const m of ['bleu4.score', 'rougeL.f', 'rougeL.precision', 'rougeL.recall', 'meteor.score']) {
      scores[`metric:${m}@impl:nltk-3.8|tok:whitespace|rv:0.1.0`] = { value: ((i * 31 + c * 7) % 100) / 100, status: 'ok', signature: 'impl:nltk-3.8|tok:whitespace|rv:0.1.0', at: at(c) };
    }
    for (const judge of ['api:gpt-4o-2024-08-06', 'local:bundled:reflect-gpt2-tiny'])
      for (const body of ['instructions', 'instructions-tutorial', 'instructions-error-explanations'])
        for (const request of ['rating', 'scoring']) {
          const value = request === 'rating' ? 1 + ((i + c) % 5) : (i * 3 + c) % 101;
          scores[`judge:${judge}:${body}×${request}@61b35994153b~d334babf`] = { value, status: 'ok', raw: String(value), expected: value - 0.375, signature: `backend:${judge}|body:${body}|request:${request}|tmpl:61b35994153b|rv:0.1.0`, judge, variant: { body, request }, templateHash: '61b35994153b', at: at(100 + c) };
        }
    return { id: `g${c + 1}`, text: `Candidate ${c + 1} of context ${i}: so you are thinking about cutting down.`, origin: { kind: 'model', model: 'bundled:reflect-gpt2-tiny', decoding: { strategy: 'greedy', maxNewTokens: 128 }, createdAt: at(0) }, annotations: [], scores };
  });
  return { ...base, id: `study-${i}`, candidates } as DialogueItem;
}

describe('a dialogue file over 50 MB in real VS Code (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let big = '';
  let studyFile = '';
  let workspace = '';

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench((ws) => {
      workspace = ws;
      const small = join(ws, 'small.dialogues.jsonl');
      runCli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '2', '--seed', '1', '-o', small]);
      const item = JSON.parse(readFileSync(small, 'utf8').trim().split('\n')[0]);
      const lines: string[] = [];
      let bytes = 0;
      for (let i = 0; bytes < 53 * 1024 * 1024; i++) {
        const line = JSON.stringify({ ...item, id: `big-${i}` });
        lines.push(line);
        bytes += line.length + 1;
      }
      big = join(ws, 'big.dialogues.jsonl');
      writeFileSync(big, lines.join('\n') + '\n');
      // A scored study over the limit: each context with 26 generated candidates, each scored by 5 metric outputs
      // and 12 judge variants, in the long form the jobs write.
      const study: string[] = [];
      bytes = 0;
      for (let i = 0; bytes < 52 * 1024 * 1024; i++) {
        const line = JSON.stringify(studyItem(item, i));
        study.push(line);
        bytes += line.length + 1;
      }
      studyFile = join(ws, 'study.dialogues.jsonl');
      writeFileSync(studyFile, study.join('\n') + '\n');
    }, { 'reflectEval.annotator': ANNOTATOR });
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('large-file');
  });

  after(async function () {
    await wb?.close('code-server-logs-large-file');
  });

  it('a scored study over 50 MB, compacted, opens in the editor; a label saved keeps it compact', async () => {
    const p = (wb as Workbench).page as Page;
    const compactFile = join(workspace, 'study.compact.dialogues.jsonl');
    const longBytes = statSync(studyFile).size;
    assert.ok(longBytes > 50 * 1024 * 1024);
    const said = runCli(['compact', studyFile, '-o', compactFile]);
    const compactBytes = statSync(compactFile).size;
    assert.ok(compactBytes < longBytes / 3, `${compactBytes} vs ${longBytes}: ${said}`);
    const before = readFileSync(compactFile, 'utf8').split('\n');
    const [header, firstItem] = before;
    assert.ok(!firstItem.includes('judge:api:gpt-4o'), 'no evaluator id on an item line');

    const frame = await openDialogueFile(p, 'study.compact.dialogues.jsonl');
    await frame.waitForSelector('#candidates .candidate.focused', { timeout: 120_000 });
    const c1 = await frame.getAttribute('.candidate.focused', 'data-candidate-id');
    assert.equal(c1, 'g1');
    await keysLive(frame);
    await p.keyboard.press('y');
    await frame.waitForSelector('.candidate[data-candidate-id="g1"][data-coherent="yes"]', { timeout: 30_000 });
    await p.screenshot({ path: join(out, 'large-file-compact-labelled.png') });
    await labelsApplied(frame);
    await p.keyboard.press('Control+s');
    // VS Code writes the file in place, not atomically: wait until the whole file is there.
    const lines = await waitFor('the label on disk, in the whole file', async () => {
      const all = readFileSync(compactFile, 'utf8').split('\n');
      if (all.length !== before.length || all[all.length - 1] !== '') return undefined;
      const c = (JSON.parse(all[1]) as DialogueItem).candidates[0];
      return c.annotations.some((a) => a.annotator === ANNOTATOR && a.coherent === true) ? all : undefined;
    }, 60_000);
    const line = lines[1];
    assert.equal(lines[0], header, 'the header is unchanged');
    assert.ok(!line.includes('judge:api:gpt-4o') && line.includes('"#5":[1,0.625]'), 'the labelled item is still compact');
    const changed = lines.flatMap((l, i) => (i >= 2 && l !== before[i] ? [i + 1] : []));
    assert.deepEqual(changed, [], `lines changed by the save besides the labelled item: ${changed.slice(0, 5).join(', ')} (${lines.length} lines, ${before.length} before)${changed.length ? `; line ${changed[0]} was ${before[changed[0] - 1]?.slice(0, 300)} and is ${lines[changed[0] - 1]?.slice(0, 300)}` : ''}`);
  });

  it('opens a file over 50 MB in the editor, which reads the file itself; opened as text, says why VS Code does not show it and names the split command; the split parts join back to the same bytes', async () => {
    const p = (wb as Workbench).page as Page;
    await p.keyboard.press('Control+K');
    await p.keyboard.press('Control+W'); // close all editors
    const frame = await openDialogueFile(p, 'big.dialogues.jsonl');
    // Every item of the 53 MB file is in the list: the editor has the whole file.
    const items = readFileSync(big, 'utf8').trim().split('\n').length;
    await frame.waitForSelector('#candidates .candidate', { timeout: 120_000 });
    await waitFor(`the item list to count ${items} items`, async () => (await frame.locator('#nav-count').textContent()) === `${items} items`, 60_000);
    await p.screenshot({ path: join(out, 'large-file-editor.png') });
    const notes = await p.$$eval(NOTIFICATION, (els) => els.map((e) => e.textContent ?? ''));
    assert.ok(!notes.some((n) => /Assertion Failed|is \d+\.\d MB/.test(n)), `no error or size message in the editor: ${notes.join(' | ')}`);

    // As text, VS Code shows its large-file placeholder; ReflectEval says why and what to do.
    await runCommand(p, 'View: Reopen Editor with Text Editor');
    const message = await waitFor('ReflectEval\'s message about the file size', async () => {
      const shown = await p.$$eval(NOTIFICATION, (els) => els.map((e) => e.textContent ?? ''));
      return shown.find((n) => /big\.dialogues\.jsonl is 5\d\.\d MB\. VS Code opens no file over 50 MB as text; the ReflectEval editor reads the file itself/.test(n));
    }, 120_000);
    assert.match(message, /reflect-eval split "big\.dialogues\.jsonl" --max-mb 45/);
    assert.match(message, /reflect-eval compact "big\.dialogues\.jsonl"/);
    await p.screenshot({ path: join(out, 'large-file-message.png') });

    const dir = mkdtempSync(join(tmpdir(), 'large-file-parts-'));
    runCli(['split', big, '--max-mb', '45', '--out-dir', dir]);
    const parts = readdirSync(dir).filter((f) => f.startsWith('big.part-')).sort();
    assert.deepEqual(parts, ['big.part-01-of-02.dialogues.jsonl', 'big.part-02-of-02.dialogues.jsonl']);
    for (const f of parts) assert.ok(statSync(join(dir, f)).size <= 45 * 1024 * 1024);
    assert.ok(Buffer.concat(parts.map((f) => readFileSync(join(dir, f)))).equals(readFileSync(big)), 'the parts joined are the file');
    rmSync(dir, { recursive: true, force: true });
  });
});
