/**
 * Shared harness of the end-to-end tests: the packaged VSIX installed into real VS Code (code-server), driven by
 * Debian Chromium through playwright-core. Each `*.e2e.test.ts` file launches its own workbench on its own
 * workspace with {@link launchWorkbench}; the VSIX is packaged once per test process. Every file's `afterEach` hands
 * a failed attempt ({@link failedAttempt}) to `Workbench.failed`, which prints what the CI log needs to find the cause.
 *
 * The harness owns the lifetime of what it launches (lifetime.ts): a workbench launched inside a test is closed when
 * that attempt fails, before Mocha's retry runs; one launched in a `before` hook serves every attempt of its file and
 * is closed at the file's end at the latest; and the run ends with a check that none of its processes is left.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { chromium, type Browser, type Frame, type Page } from 'playwright-core';
import { startStubOpenAI, type StubServer } from '../helpers/stubOpenAI';
import { failedAttempt, own, runDir } from './lifetime';
import { markedEnv, terminate, type ProcessInfo } from './processes';

export { failedAttempt };
export type { StubServer };

export const root = resolve(__dirname, '../..');
/** Screenshots and logs land here. */
export const out = join(root, 'test-output', 'e2e');
export const codeServer = join(root, 'test/e2e/node_modules/code-server/out/node/entry.js');
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** The CLI, built by `npm run build`. */
export const cli = join(root, 'dist/cli.js');
/** The workbench's quick input (command palette, quick picks, the simple file dialog): its text box. */
export const QUICK_INPUT = '.quick-input-widget input';
/** A modal dialog of the workbench (`showInformationMessage(…, { modal: true })`, "save changes?"). */
export const MODAL_DIALOG = '.monaco-dialog-box';
/** The text of a notification, toast or in the notification centre. */
export const NOTIFICATION = '.notification-list-item-message';

/** A free TCP port on loopback. */
export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once('error', fail);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => ok(port));
    });
  });
}

/** Polls `fn` until it returns a truthy value, or fails after `timeoutMs` naming `what` and the last error. */
export async function waitFor<T>(what: string, fn: () => Promise<T | undefined | null | false>, timeoutMs = 60_000, everyMs = 250): Promise<T> {
  const end = Date.now() + timeoutMs;
  let lastErr: unknown;
  while (Date.now() < end) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      lastErr = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out waiting for ${what}${lastErr ? `: ${(lastErr as Error).message}` : ''}`);
}

/**
 * Waits until the labelling keys reach the editor in `frame`: its webview has focus and the extension has told it
 * that VS Code routes the keys to it (the `keys` message, `body.keys-live`). A key pressed earlier, in the moment
 * focus entered the webview, can arrive before the keybindings' context key is set and is then not seen.
 */
export async function keysLive(frame: Frame, timeoutMs = 30_000): Promise<void> {
  await waitFor('focus inside the webview', () => frame.evaluate(() => document.hasFocus()), timeoutMs);
  await frame.waitForSelector('body.keys-live', { state: 'attached', timeout: timeoutMs });
}

/**
 * Waits until the dialogue editor has applied every label key it shows (the webview's `data-pending-labels` is 0):
 * the cards show a key at once, the document gets it a moment later, and a save or an undo acts on the document.
 */
export async function labelsApplied(frame: Frame, timeoutMs = 60_000): Promise<void> {
  await waitFor('the label keys applied to the document', async () => (await frame.getAttribute('body', 'data-pending-labels')) === '0', timeoutMs);
}

/** The first frame holding an element matching `selector` (webviews are nested iframes in VS Code). */
export async function frameWith(page: Page, selector: string, what: string, timeoutMs = 60_000): Promise<Frame> {
  return waitFor(
    what,
    async () => {
      for (const f of page.frames()) {
        if (await f.$(selector).catch(() => null)) return f;
      }
      return undefined;
    },
    timeoutMs,
  );
}

/** The frame that holds the dialogue editor's DOM. */
export function editorFrame(page: Page, timeoutMs = 60_000): Promise<Frame> {
  return frameWith(page, '#item-list', 'the ReflectEval webview', timeoutMs);
}

/**
 * Clicks a dialogue editor toolbar button (`#cmd-…`): where it is, or through the overflow menu (⋯) the toolbar moves
 * it into when the editor is narrow (a panel beside it).
 */
export async function clickToolbar(frame: Frame, id: string): Promise<void> {
  if (await frame.locator(`${id}.collapsed`).count()) {
    await frame.click('#toolbar-more');
    await frame.click(`#toolbar-menu [data-for="${id.replace(/^#/, '')}"]`);
  } else await frame.click(id);
}

/** Runs a command from the palette by its title (e.g. `ReflectEval: Show Correlation Table`). */
export async function runCommand(page: Page, title: string): Promise<void> {
  // Pick the row whose label is the command, not whatever row happens to be first: on a cold workbench the list
  // can still be filling (recently used entries, other matches) when the typing ends. The palette lists the
  // commands known when it opens; on a cold start the extension's contributions may not be registered yet, so
  // reopen it until the command is there (up to 60 s).
  //
  // The title is filled into the palette's input, not typed: typed keys go wherever the focus is when each arrives,
  // and a key that lands in an editor (a text editor, or the dialogue editor's labelling keys) leaves it with unsaved
  // changes. A modal dialog already open would take the keys and swallow F1: fail naming it.
  //
  // F1 pressed while a webview holds the focus reaches the workbench only through the webview's forwarding of keys,
  // which once lost it in CI (the palette never opened; focus on `iframe.webview`): the focus is taken back to the
  // workbench first, and F1 is pressed again when the palette has not opened within 10 s.
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  const input = page.locator(QUICK_INPUT);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const dialogs = await page.locator(MODAL_DIALOG).allTextContents();
    if (dialogs.length) throw new Error(`cannot run "${title}": a modal dialog is open: ${dialogs.join('; ')}`);
    await page.evaluate(() => {
      const focused = document.activeElement;
      if (focused instanceof HTMLIFrameElement) focused.blur();
    });
    await page.keyboard.press('F1');
    const opened = await input.waitFor({ timeout: 10_000 }).then(() => true, () => false);
    if (opened) {
      await input.fill(`>${title}`);
      if (await row.waitFor({ timeout: 10_000 }).then(() => true, () => false)) break;
      await page.keyboard.press('Escape');
    }
    if (Date.now() > deadline) throw new Error(opened ? `the command palette never listed "${title}"` : `the command palette did not open (F1) to run "${title}"`);
  }
  await row.click();
}

/**
 * Waits for a notification whose text matches `text` and returns its text. VS Code shows no toast for a notification
 * when more than three arrive within 800 ms (its toasts' spam protection), which commands and quick jobs run back to
 * back can reach; the notification is then only in the notification centre. So when no toast has shown within 5 s,
 * the centre is opened and searched too, and closed again once the notification is found.
 *
 * @throws when neither shows it within `timeoutMs`
 */
export async function waitForNotification(page: Page, text: string | RegExp, timeoutMs = 60_000): Promise<string> {
  const notes = page.locator(NOTIFICATION, { hasText: text });
  const centre = page.locator('.notifications-center.visible');
  const start = Date.now();
  let opened = false;
  const found = await waitFor(
    `a notification ${text}`,
    async () => {
      if ((await notes.count()) > 0) return (await notes.last().textContent()) ?? '';
      if (!opened && Date.now() - start > 5_000) {
        opened = true;
        await runCommand(page, 'Notifications: Show Notifications');
      }
      return undefined;
    },
    timeoutMs,
  );
  if (opened && (await centre.count()) > 0) await runCommand(page, 'Notifications: Hide Notifications');
  return found;
}

/**
 * Waits for the summary a job (`job`: `judge`, `score`, …) writes to the ReflectEval output after offset `from` of
 * it (take `wb.output().length` before starting the job) and returns it: the notification's text, which VS Code may
 * not show as a toast (see {@link waitForNotification}).
 *
 * @throws when none is written within `timeoutMs`
 */
export async function waitForJobSummary(wb: Workbench, job: string, from: number, timeoutMs = 120_000): Promise<string> {
  return waitFor(
    `the ${job} summary in the ReflectEval output`,
    async () => wb.output().slice(from).split('\n').find((line) => line.startsWith(`ReflectEval ${job}:`)),
    timeoutMs,
  );
}

/**
 * Answers VS Code's simple file dialog (a quick input holding a path) with `path`. The dialog fills in its
 * proposed path asynchronously after it opens; typing before that lands in the wrong place, so wait until the
 * proposed value is present and has stopped changing, then replace it.
 */
export async function answerFileDialog(page: Page, path: string): Promise<void> {
  const input = page.locator(QUICK_INPUT);
  await input.waitFor({ timeout: 30_000 });
  let previous = '';
  await waitFor('the file dialog to propose a path', async () => {
    const value = await input.inputValue();
    const settled = value !== '' && value === previous;
    previous = value;
    return settled;
  }, 30_000, 300);
  await input.fill(path);
  await waitFor('the typed path in the file dialog', async () => (await input.inputValue()) === path, 10_000);
  await page.waitForTimeout(300); // the dialog validates the typed path
  await page.keyboard.press('Enter');
  // A dialog still validating ignores the Enter (a CI run once waited 30 s for the pick that follows): while it
  // still shows the path, press it again. The next quick input starts from another value, so this never answers it.
  for (let attempt = 0; attempt < 3; attempt++) {
    const stillOpen = await waitFor(
      'the file dialog to take the path',
      async () => ((await input.isVisible().catch(() => false)) && (await input.inputValue().catch(() => '')) === path ? undefined : true),
      5_000,
      200,
    ).then(
      () => false,
      () => true,
    );
    if (!stillOpen) return;
    await page.keyboard.press('Enter');
  }
}

/**
 * Stores an API key with "ReflectEval: Set Judge API Key" (or the generator's): answers the endpoint input with
 * `origin` (leaving the proposed value when `origin` is undefined) and the password input with `key`. Returns the
 * endpoint the command proposed. (A build from before keys had origins asks only for the key: '' is returned.)
 */
export async function setApiKey(page: Page, command: string, origin: string | undefined, key: string): Promise<string> {
  await runCommand(page, command);
  const first = page.locator(QUICK_INPUT).first();
  await first.waitFor({ timeout: 30_000 });
  let proposed = '';
  if ((await page.locator(`${QUICK_INPUT}[type="password"]`).count()) === 0) {
    proposed = await waitFor('the proposed endpoint', async () => (await first.inputValue()) || undefined, 10_000);
    if (origin !== undefined) await first.fill(origin);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`${QUICK_INPUT}[type="password"]`, { timeout: 30_000 });
  }
  // The quick input is reused from the endpoint question: fill the field and check it before accepting.
  const password = page.locator(`${QUICK_INPUT}[type="password"]`);
  await page.waitForTimeout(300);
  await password.fill(key);
  await waitFor('the typed key', async () => (await password.inputValue()) === key, 10_000);
  await page.keyboard.press('Enter');
  await waitForNotification(page, 'API key stored', 30_000);
  return proposed;
}

/** The modal "Send your … API key to …?" dialog, if it shows within `timeoutMs`: its text. */
export async function keyDialog(page: Page, timeoutMs = 30_000): Promise<string | undefined> {
  const dialog = page.locator(MODAL_DIALOG, { hasText: 'API key to' });
  const shown = await dialog.waitFor({ timeout: timeoutMs }).then(() => true, () => false);
  return shown ? ((await dialog.textContent()) ?? '') : undefined;
}

/** Answers the key dialog with one of its buttons (`Send once`, `Always for this origin`, `Cancel`), or by pressing Enter. */
export async function answerKeyDialog(page: Page, button: 'Send once' | 'Always for this origin' | 'Cancel' | 'Enter'): Promise<void> {
  const dialog = page.locator(MODAL_DIALOG, { hasText: 'API key to' });
  if (button === 'Enter') await page.keyboard.press('Enter');
  else await dialog.locator('a.monaco-button', { hasText: button }).click();
  await dialog.waitFor({ state: 'detached', timeout: 10_000 });
}

/**
 * Opens `fileName` from the Explorer in the ReflectEval editor, as a user would. Until the extension host has
 * registered the editor, VS Code opens the file as text: close and retry.
 */
export async function openDialogueFile(page: Page, fileName: string): Promise<Frame> {
  // By the row's exact name: a text match would also find a save's temporary sibling (`<file>.<pid>.tmp`).
  const row = page.locator(`.explorer-folders-view .monaco-list-row[aria-label=${JSON.stringify(fileName)}]`);
  await row.waitFor({ timeout: 60_000 });
  for (let attempt = 1; attempt <= 6; attempt++) {
    await row.dblclick();
    const frame = await editorFrame(page, 15_000).catch(() => undefined);
    if (frame) return frame;
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+W'); // close all editors
  }
  throw new Error(`${fileName} did not open in the ReflectEval editor`);
}

/**
 * A stub OpenAI-compatible server (test/helpers/stubOpenAI.ts) owned like a workbench: closed when the test attempt
 * that started it fails, or at the end of its file at the latest.
 */
export async function startStub(...args: Parameters<typeof startStubOpenAI>): Promise<StubServer> {
  let stub: StubServer | undefined;
  const owned = own('stub', 'stub OpenAI server', { stop: async () => stub?.close() });
  try {
    stub = await startStubOpenAI(...args);
  } catch (err) {
    await owned.close('it failed to start');
    throw err;
  }
  const started = stub;
  return { ...started, close: () => owned.close() };
}

/** Runs the built CLI and fails the test with its stderr when it exits non-zero. */
export function runCli(args: string[], cwd = root): string {
  const res = spawnSync(process.execPath, [cli, ...args], { cwd, encoding: 'utf8' });
  assert.equal(res.status, 0, `reflect-eval ${args.join(' ')} failed:\n${res.stderr}`);
  return res.stdout;
}

/** True when the prerequisites are present; otherwise throws in CI, or returns false (the caller skips). */
export function prerequisitesPresent(): boolean {
  const missing = [CHROMIUM, codeServer].filter((p) => !existsSync(p));
  if (missing.length === 0) return true;
  if (process.env.CI) throw new Error(`end-to-end prerequisites missing in CI: ${missing.join(', ')} (run scripts/e2e/setup.sh; apt-get install -y chromium libkrb5-dev ripgrep)`);
  console.log(`SKIPPED: end-to-end test (missing ${missing.join(', ')})`);
  return false;
}

let packaged: string | undefined;
/** The VSIX of the current build, packaged once per test process. */
function vsix(): string {
  if (packaged && existsSync(packaged)) return packaged;
  const dir = mkdtempSync(join(runDir(), 'vsix-'));
  const file = join(dir, 'reflect-eval.vsix');
  const pack = spawnSync(process.execPath, [join(root, 'scripts/package.mjs'), '--out', file], { cwd: root, encoding: 'utf8' });
  assert.equal(pack.status, 0, `packaging failed:\n${pack.stdout}\n${pack.stderr}`);
  packaged = file;
  return file;
}

/** A running workbench: code-server on a workspace folder, and a Chromium page showing it. */
export interface Workbench {
  /** Its id in the run (`wb3`): its processes carry it in their environment marker (processes.ts). */
  id: string;
  page: Page;
  browser: Browser;
  server: ChildProcess;
  /** The workspace folder (a fresh temporary folder). */
  workspace: string;
  /** Its processes still running: code-server's and Chromium's process groups, and any process with its marker. */
  processes(): ProcessInfo[];
  /** code-server's stdout and stderr so far. */
  log(): string;
  /** The ReflectEval output channel so far (every job's summary is there, whether or not a toast showed it). */
  output(): string;
  /** Screenshot into test-output/e2e/<name>.png. */
  screenshot(name: string): Promise<void>;
  /**
   * Stops everything (the browser, then code-server and every process of its group: SIGTERM, SIGKILL after 5 s), keeps
   * VS Code's logs under test-output/e2e/<logsName>, removes the temporary folders. Once: a workbench the harness
   * already closed (after a failed attempt) stays closed.
   */
  close(logsName: string): Promise<void>;
  /**
   * For a test that failed: a screenshot (test-output/e2e/<name>-failed-<time>.png), and on stdout what the CI log
   * must show to find the cause — {@link workbenchState}, the tail of the ReflectEval output and of code-server's
   * log. Then it closes a modal dialog left open (its Cancel button, or Escape), which would otherwise block every
   * later test of the file.
   */
  failed(name: string): Promise<void>;
}

/**
 * What the workbench shows that a failed test's error may not say: the text of any open modal dialog (a "save
 * changes?" prompt blocks every click), the editor tabs with unsaved changes, the element holding keyboard focus,
 * the command palette's value and the notifications on screen.
 */
export async function workbenchState(page: Page): Promise<string> {
  const dialogs = await page.locator(MODAL_DIALOG).allTextContents().catch(() => [] as string[]);
  const dirty = await page.locator('.tab.dirty').evaluateAll((tabs) => tabs.map((t) => t.getAttribute('aria-label') ?? t.textContent ?? '')).catch(() => [] as string[]);
  const focus = await page
    .evaluate(() => {
      const a = document.activeElement;
      if (!a) return 'nothing';
      const cls = typeof a.className === 'string' && a.className.trim() ? `.${a.className.trim().split(/\s+/).join('.')}` : '';
      return `${a.tagName.toLowerCase()}${a.id ? `#${a.id}` : ''}${cls}${a.getAttribute('aria-label') ? ` "${a.getAttribute('aria-label')}"` : ''}`;
    })
    .catch((err: Error) => `unknown (${err.message})`);
  const palette = page.locator(QUICK_INPUT);
  const paletteValue = (await palette.isVisible().catch(() => false)) ? JSON.stringify(await palette.inputValue().catch(() => '')) : 'closed';
  const notes = await page.locator(NOTIFICATION).allTextContents().catch(() => [] as string[]);
  return [
    `modal dialogs: ${dialogs.length ? dialogs.map((d) => JSON.stringify(d)).join('; ') : 'none'}`,
    `tabs with unsaved changes: ${dirty.length ? dirty.join('; ') : 'none'}`,
    `keyboard focus: ${focus}`,
    `command palette: ${paletteValue}`,
    `notifications shown: ${notes.length ? notes.map((n) => JSON.stringify(n)).join('; ') : 'none'}`,
  ].join('\n');
}

/**
 * What the extension wrote to its ReflectEval output channel so far: VS Code keeps each output channel in a log file
 * under the user-data folder (`logs/<session>/exthost1/output_logging_<time>/<n>-ReflectEval.log`). Jobs log their
 * start and report there, and failed commands their error. Empty when there is none yet.
 */
function reflectEvalOutput(userData: string): string {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith('-ReflectEval.log')) files.push(join(dir, e.name));
    }
  };
  if (existsSync(join(userData, 'logs'))) walk(join(userData, 'logs'));
  return files.map((f) => readFileSync(f, 'utf8')).join('');
}

/**
 * Launches code-server with the packaged extension on a new workspace and opens it in Chromium.
 *
 * @param populate - fills the workspace folder before VS Code opens it
 * @param settings - user settings (merged over quiet defaults; workspace trust is off)
 */
export async function launchWorkbench(populate: (workspace: string) => void | Promise<void>, settings: Record<string, unknown> = {}): Promise<Workbench> {
  mkdirSync(out, { recursive: true });
  let server: ChildProcess | undefined;
  let browser: Browser | undefined;
  let logsName: string | undefined;
  // Registered before anything starts, so that whatever this launch starts is closed with it — also when the
  // launch itself fails half-way (code-server never listens, the workbench never shows).
  const owned = own('wb', 'workbench', {
    stop: async () => void (await browser?.close()),
    cleanup: () => {
      const logs = join(userData, 'logs');
      if (existsSync(logs)) cpSync(logs, join(out, logsName ?? `code-server-logs-${owned.id}`), { recursive: true });
      rmSync(work, { recursive: true, force: true, maxRetries: 3 });
    },
  });
  const work = join(runDir(), owned.id);
  const userData = join(work, 'user-data');
  // A test attempt that timed out goes on running: if the harness closed this workbench meanwhile, end what the
  // launch started since and stop.
  const abandoned = async () => {
    if (!owned.closing) return;
    await browser?.close().catch(() => undefined);
    await terminate(owned.processes);
    rmSync(work, { recursive: true, force: true });
    throw new Error(`${owned.what} was closed while it launched (its test attempt ended)`);
  };
  try {
    const workspace = join(work, 'workspace');
    mkdirSync(workspace, { recursive: true });
    await populate(workspace);
    mkdirSync(join(userData, 'User'), { recursive: true });
    writeFileSync(
      join(userData, 'User', 'settings.json'),
      JSON.stringify({ 'security.workspace.trust.enabled': false, 'workbench.startupEditor': 'none', 'workbench.tips.enabled': false, ...settings }),
    );
    const extensions = join(work, 'extensions');
    const common = ['--user-data-dir', userData, '--extensions-dir', extensions];
    const inst = spawnSync(process.execPath, [codeServer, ...common, '--install-extension', vsix()], { encoding: 'utf8', env: markedEnv(owned.id) });
    assert.equal(inst.status, 0, `installing the VSIX failed:\n${inst.stdout}\n${inst.stderr}`);
    await abandoned();

    const port = await freePort();
    let log = '';
    server = spawn(process.execPath, [codeServer, ...common, '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust', workspace], {
      // For profiling by hand (e.g. the editor bench): every Node process of code-server, the extension host among
      // them, under the inspector on a port of its own; each says where on stderr ("Debugger listening on ws://…").
      env: markedEnv(owned.id, { ...process.env, VSCODE_PROXY_URI: '', ...(process.env.REFLECT_EVAL_INSPECT_EXTENSIONS ? { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --inspect=127.0.0.1:0`.trim() } : {}) }),
      // A process group of its own, ended as a group (the extension host and file watcher are its children).
      detached: true,
    });
    if (server.pid) owned.groups.add(server.pid);
    server.stdout?.on('data', (d) => (log += d));
    server.stderr?.on('data', (d) => (log += d));
    await waitFor('code-server to listen', async () => (await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null))?.ok, 60_000);
    await abandoned();

    // Playwright starts Chromium in a process group of its own; its zygote and renderers start with an emptied
    // environment, so the group (found from the marked main process, a child of this one) is what names them.
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      env: markedEnv(owned.id),
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    });
    for (const p of owned.processes()) if (p.ppid === process.pid && p.pid === p.pgid) owned.groups.add(p.pgid);
    await abandoned();
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    // A script error in a webview is otherwise invisible: say it in the test's output.
    page.on('pageerror', (err) => console.log(`      [webview/page error] ${err.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/ENOTFOUND|open-vsx|Failed to load resource|net::ERR|Applying inline style violates/.test(m.text())) console.log(`      [console error] ${m.text().slice(0, 500)}`);
    });
    await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
    await page.waitForSelector('.monaco-workbench', { timeout: 90_000 });
    await abandoned();
    const b = browser;
    const s = server;
    return {
      id: owned.id,
      page,
      browser: b,
      server: s,
      workspace,
      processes: owned.processes,
      log: () => log,
      output: () => reflectEvalOutput(userData),
      screenshot: async (name) => void (await page.screenshot({ path: join(out, `${name}.png`) })),
      failed: async (name) => {
        await page.screenshot({ path: join(out, `${name}-failed-${Date.now()}.png`) }).catch(() => undefined);
        console.log(`workbench at the failure:\n${await workbenchState(page)}\nReflectEval output (tail):\n${reflectEvalOutput(userData).slice(-3000) || '(none)'}\ncode-server log (tail):\n${log.slice(-4000)}`);
        const dialog = page.locator(MODAL_DIALOG);
        if (await dialog.count().catch(() => 0)) {
          // Its Cancel button where it has one (a "save changes?" prompt: nothing saved, nothing dropped).
          const cancel = dialog.locator('a.monaco-button', { hasText: /^Cancel$/ });
          if (await cancel.count().catch(() => 0)) await cancel.first().click({ timeout: 10_000 }).catch(() => undefined);
          else await page.keyboard.press('Escape').catch(() => undefined);
          const closed = await dialog.waitFor({ state: 'detached', timeout: 10_000 }).then(() => true, () => false);
          console.log(closed ? 'closed the modal dialog' : 'the modal dialog stayed open');
        }
      },
      close: async (name) => {
        logsName ??= name;
        await owned.close();
      },
    };
  } catch (err) {
    if (!owned.closing) await owned.close(`its launch failed: ${(err as Error).message.split('\n')[0]}`);
    throw err;
  }
}
