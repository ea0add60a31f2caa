/**
 * End to end in real VS Code (see harness.ts), issue 14 item 5: a cloned study folder's `.vscode/settings.json`
 * points `reflectEval.judge.baseURL` at another host, while the user's key is for their own provider (user
 * settings). Before keys had origins, "Judge Candidates" sent the key there without a word. Now: the key command
 * proposes the user-level endpoint (never the workspace's), the workspace endpoint is asked about in a modal
 * dialog, Cancel stops the job with no request, "Always for this origin" is remembered, and "Forget Approved Key
 * Endpoints" undoes it.
 *
 * Run: `npm run build && npx mocha --no-config --node-option import=tsx --timeout 600000 test/e2e/keys.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import type { Page } from 'playwright-core';
import { answerKeyDialog, cli, failedAttempt, keyDialog, launchWorkbench, openDialogueFile, out, prerequisitesPresent, root, runCommand, setApiKey, waitForJobSummary, waitForNotification, type Workbench, startStub, type StubServer } from './harness';

const KEY = 'sk-e2e-user-key-for-my-provider';

describe('API keys and workspace settings (code-server + Chromium)', function () {
  this.timeout(10 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let mine: StubServer | undefined;
  let theirs: StubServer | undefined;
  const origin = (s: StubServer | undefined) => new URL(s!.baseURL).origin;
  const keyed = (s: StubServer | undefined) => s!.requests.filter((r) => r.headers.authorization === `Bearer ${KEY}`).length;

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    mine = await startStub(() => ({ reply: '4' }));
    theirs = await startStub(() => ({ reply: '1' }));
    wb = await launchWorkbench(
      (dir) => {
        const r = spawnSync(process.execPath, [cli, 'import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '2', '--seed', '5', '-o', join(dir, 'study.dialogues.jsonl')], { encoding: 'utf8' });
        assert.equal(r.status, 0, r.stderr);
        // What the cloned study repository brings along.
        mkdirSync(join(dir, '.vscode'));
        writeFileSync(join(dir, '.vscode', 'settings.json'), JSON.stringify({ 'reflectEval.judge.baseURL': theirs!.baseURL }));
      },
      { 'reflectEval.judge.backend': 'openai', 'reflectEval.judge.baseURL': mine!.baseURL, 'reflectEval.judge.model': 'user-model' },
    );
    page = wb.page;
  });

  after(async function () {
    await wb?.close('code-server-logs-keys');
    await mine?.close();
    await theirs?.close();
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('keys');
  });

  /** Runs Judge Candidates; returns the dialog's text when the key dialog showed (undefined when it did not). */
  async function judge(p: Page, answer?: 'Send once' | 'Always for this origin' | 'Cancel' | 'Enter'): Promise<{ dialog?: string; note: string }> {
    // The summary is read from the ReflectEval output: VS Code may show no toast for it (quick jobs back to back
    // trip its toasts' spam protection).
    const from = wb!.output().length;
    await runCommand(p, 'ReflectEval: Judge Candidates');
    const done = waitForJobSummary(wb!, 'judge', from).catch((err: Error) => {
      throw new Error(`${err.message} (requests so far: ${theirs!.requests.length} to the workspace's endpoint, ${mine!.requests.length} to the user's)`);
    });
    const dialog = await Promise.race([keyDialog(p, 60_000), done.then(() => undefined)]);
    if (dialog !== undefined && answer) {
      await p.screenshot({ path: join(out, 'keys-dialog.png') });
      await answerKeyDialog(p, answer);
    }
    return { dialog, note: await done };
  }

  it('the key command proposes the user-level endpoint, not the workspace one', async () => {
    const p = page as Page;
    await openDialogueFile(p, 'study.dialogues.jsonl');
    const proposed = await setApiKey(p, 'ReflectEval: Set Judge API Key', undefined, KEY);
    assert.equal(proposed, origin(mine));
  });

  it('a judge endpoint from workspace settings is asked about; Cancel stops the job and no request carries the key', async () => {
    const p = page as Page;
    const { dialog, note } = await judge(p, 'Cancel');
    assert.equal(keyed(theirs), 0, `the workspace endpoint got the key unasked: ${theirs!.requests.length} request(s)`);
    assert.ok(dialog, 'a dialog asked before sending the key');
    assert.ok(dialog!.includes(`Send your judge API key to ${origin(theirs)}?`), dialog);
    assert.match(dialog!, /workspace's settings \(\.vscode\/settings\.json\)/);
    assert.match(note, /nothing done: .*did not approve sending your judge API key/, note);
    assert.equal(theirs!.requests.length, 0);
  });

  it('Enter on the key dialog sends nothing: its default button is "Don\'t send"', async () => {
    const p = page as Page;
    const { dialog, note } = await judge(p, 'Enter');
    assert.ok(dialog, 'a dialog asked before sending the key');
    assert.equal(keyed(theirs), 0, `Enter sent the key: ${theirs!.requests.length} request(s)`);
    assert.equal(theirs!.requests.length, 0);
    assert.match(note, /nothing done: .*did not approve sending your judge API key/, note);
  });

  let attempts = 0;
  it('"Always for this origin" sends it and is remembered; Forget Approved Key Endpoints asks again', async () => {
    const p = page as Page;
    // A retry starts from what this test's failed attempt left: the origin approved, replies cached, scores in the
    // document (unsaved). Undo all three, or the job has nothing to ask and the key is never needed.
    if (attempts++ > 0) {
      await runCommand(p, 'ReflectEval: Forget Approved Key Endpoints');
      await waitForNotification(p, 'approved key endpoint(s) forgotten', 30_000);
      await runCommand(p, 'Notifications: Clear All Notifications'); // or the wait for the next one would see this one
      rmSync(join(wb!.workspace, '.reflect-eval-cache'), { recursive: true, force: true });
      await runCommand(p, 'File: Revert File');
    }
    const keyedBefore = keyed(theirs);
    const first = await judge(p, 'Always for this origin');
    assert.ok(first.dialog);
    assert.doesNotMatch(first.note, /nothing done/, first.note);
    assert.equal(keyed(theirs) - keyedBefore, 2, `two candidates judged with the key (headers seen: ${theirs!.requests.map((r) => r.headers.authorization?.length).join(', ')}; key length ${KEY.length + 7})`);
    const second = await judge(p);
    assert.equal(second.dialog, undefined, 'not asked again');
    await runCommand(p, 'ReflectEval: Forget Approved Key Endpoints');
    await waitForNotification(p, 'approved key endpoint(s) forgotten', 30_000);
    const third = await judge(p, 'Cancel');
    assert.ok(third.dialog, 'asked again after forgetting');
    assert.equal(mine!.requests.length, 0, 'the user\'s own endpoint was never named by the workspace, so never called');
  });
});
