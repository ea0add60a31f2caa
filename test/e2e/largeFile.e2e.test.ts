/**
 * End to end in real VS Code (see harness.ts), issue 19 item 3: a dialogue file over 50 MB, which VS Code hands to no
 * extension, opened from the Explorer gets ReflectEval's message with the way forward (split, or the CLI) instead of
 * VS Code's bare placeholder or "Assertion Failed"; the split command it names makes parts of whole lines that join
 * back to the same bytes.
 *
 * Run: `npm run build && npx mocha --no-config --node-option import=tsx --timeout 600000 test/e2e/largeFile.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { launchWorkbench, out, prerequisitesPresent, root, runCli, waitFor, type Workbench } from './harness';

describe('a dialogue file over 50 MB in real VS Code (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let big = '';

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    wb = await launchWorkbench((ws) => {
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
    });
  });

  after(async function () {
    if (wb && this.currentTest?.state === 'failed') await wb.page.screenshot({ path: join(out, 'large-file-failure.png') }).catch(() => undefined);
    await wb?.close('code-server-logs-large-file');
  });

  it('says why the editor cannot open it and names the split command; the split parts join back to the same bytes', async () => {
    const p = (wb as Workbench).page as Page;
    await p.locator('.explorer-folders-view .monaco-list-row', { hasText: 'big.dialogues.jsonl' }).dblclick();
    const message = await waitFor('ReflectEval\'s message about the file size', async () => {
      const notes = await p.$$eval('.notification-list-item-message', (els) => els.map((e) => e.textContent ?? ''));
      return notes.find((n) => /big\.dialogues\.jsonl is 5\d\.\d MB\. VS Code hands no extension a file over 50 MB/.test(n));
    }, 120_000);
    assert.match(message, /reflect-eval split "big\.dialogues\.jsonl" --max-mb 45/);
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
