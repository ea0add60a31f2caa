/**
 * `npm run bench -- editor [--mb 45] [--keys 20] [--keys-after-move 10] [--file study.dialogues.jsonl]`: the dialogue editor at study size in real VS Code (code-server +
 * Chromium, the e2e harness test/e2e/harness.ts; run `npm run build` first — the packaged VSIX is what runs). Issue
 * 19 item 3. Builds, in a temporary folder, a dialogue file of about 45 MB (~5,000 items of ~9 KB: AnnoMI contexts
 * from data/annomi/AnnoMI-sample.csv repeated under new ids, each with its last six turns, the reference and three generated candidates,
 * two other annotators' labels and twelve scores per candidate) and a 1 MB file cut from the same items as the
 * reference, and measures on each:
 *
 * - first paint: from the double click in the Explorer to the webview showing the first item's candidates and rows
 *   of the item list (polled every 50 ms);
 * - label key → ack in the webview: a labelling key (`y`, then an empathy digit, on successive candidates) pressed in
 *   the focused editor, until the webview receives the host's `ack` for that operation — sent after the
 *   edit was applied to the document and the change handlers (re-render) ran. One key at a time (the next after the ack);
 *   times are wall-clock `Date.now()` of this process (key press) and of the webview (ack), on the same machine;
 * - label shown → ack: from the first change to the item's page after the key (the webview shows the label: the
 *   host's `labelled` message, or the operation the webview decided) to the ack;
 * - save: Ctrl+S until the tab's dirty mark is gone;
 * - label key → document changed: from the key press to the extension host seeing the document change (the host's
 *   trace below), without the ack's way back to the webview: the document edit the goal is about;
 * - key right after j: the same for a labelling key pressed at once after `j` (next candidate), as a labeller typing
 *   at full speed does, before the webview has reported where focus went (the host holds such a key for that report,
 *   or hands it to the webview when `j` crossed into the next item; src/extension/editor/keyRoute.ts);
 * - where a label key goes: the extension host writes a timing line at each step of a label
 *   (REFLECT_EVAL_TRACE_LABELS, src/extension/labelTrace.ts; the bench sets it for code-server), and each key is
 *   split into VS Code routing the key to the command, the host deciding the operation (or, when it cannot, the trip
 *   to the webview and back; src/extension/editor/keyRoute.ts), the document applying the
 *   edit (a WorkspaceEdit applied by VS Code before the editor read its own file, 2026-11-27), the editor's change handler, and the ack's way out and into the webview (medians).
 *
 * Prints each figure with the issue's goal and the ratio 45 MB / 1 MB. Speed is never asserted.
 *
 * To see where the time goes: `REFLECT_EVAL_INSPECT_EXTENSIONS=1 [REFLECT_EVAL_PROFILE=open] node
 * --experimental-websocket --import tsx bench/index.ts editor …` runs code-server's Node processes under the
 * inspector and writes CPU profiles of the extension host and of the workbench's renderer (the webview included)
 * during the big file's keys (or its opening) to test-output, with the functions that took the most self time.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { importAnnoMI, parseAnnoMI } from '../src/core/datasets/annomi';
import type { Candidate, DialogueItem, Score } from '../src/core/dialogue/types';
import { formatItems } from '../src/core/format/jsonl';
import { keysLive, launchWorkbench, openDialogueFile, out, prerequisitesPresent, waitFor, type Workbench } from '../test/e2e/harness';

const ANNOTATOR = 'Bench-1';
const AT = '2026-11-25T19:57:13.313Z';

/** Twelve scores shaped as the jobs write them: five metric outputs and seven judge variants. */
function scores(seed: number): Record<string, Score> {
  const out: Record<string, Score> = {};
  const metrics = ['bleu4.score', 'rougeL.f', 'rougeL.precision', 'rougeL.recall', 'meteor.score'];
  metrics.forEach((m, i) => {
    out[`metric:${m}@impl:nltk-3.8|tok:whitespace|rv:0.1.0`] = { value: ((seed * 7 + i * 13) % 100) / 100, status: 'ok', at: AT } as Score;
  });
  for (let j = 0; j < 7; j++) {
    const body = ['instructions', 'instructions-tutorial', 'instructions-error-explanations'][j % 3];
    const request = j % 2 ? 'scoring' : 'rating';
    const value = request === 'rating' ? 1 + ((seed + j) % 5) : (seed * 3 + j) % 101;
    out[`judge:api:gpt-4o-2024-08-06:${body}×${request}#${j}@61b35994153b~d334babf`] = {
      value,
      status: 'ok',
      raw: String(value),
      at: AT,
    } as Score;
  }
  return out;
}

/** Items of about 9 KB each until `bytes` is reached: AnnoMI contexts repeated under new ids, with candidates, labels and scores. */
export function buildItems(bytes: number): DialogueItem[] {
  const csv = join(__dirname, '..', 'data', 'annomi', 'AnnoMI-sample.csv');
  const base = importAnnoMI(parseAnnoMI(readFileSync(csv, 'utf8'), csv), { behaviour: 'reflection', quality: 'all' });
  const items: DialogueItem[] = [];
  let size = 0;
  for (let n = 0; size < bytes; n++) {
    const src = base[n % base.length];
    const ref = src.candidates[0];
    const generated: Candidate[] = Array.from({ length: 3 }, (_, g): Candidate => ({
      id: `g${g + 1}`,
      text: `${ref?.text ?? 'So you feel that drinking makes it harder to think straight.'} (${n}.${g})`,
      origin: { kind: 'model', model: 'bundled:reflect-gpt2-tiny', decoding: { strategy: 'nucleus', topP: 0.8, temperature: 1, sampleIndex: g, seed: 2166136261 + g }, createdAt: AT },
      annotations: [],
      scores: {},
    }) as unknown as Candidate);
    // The last six turns: AnnoMI contexts run to ~6.6 KB, a study's items hold ~9 KB in all.
    const item: DialogueItem = { ...src, id: `${src.id}~${n}`, context: src.context.slice(-6), candidates: [...src.candidates.map((c) => ({ ...c, annotations: [], scores: {} })), ...generated] };
    item.candidates.forEach((c, j) => {
      c.annotations = ['Expert-1', 'Lay-1'].map((annotator, k) => ((n + j + k) % 3 ? { annotator, coherent: true, empathy: (((n + j) % 5) + 1) as 1, updatedAt: AT } : { annotator, coherent: false, errors: ['parroting'], updatedAt: AT }));
      c.scores = scores(n * 7 + j);
    });
    items.push(item);
    size += Buffer.byteLength(JSON.stringify(item)) + 1;
  }
  return items;
}

interface Figures {
  mb: number;
  items: number;
  firstPaintMs: number;
  paint: Paint;
  keyMs: number[];
  /** From the label shown in the webview (the operation posted) to its ack. */
  hostMs: number[];
  /** Messages the webview received during the keys, by type. */
  kinds: Record<string, number>;
  /** Their size as JSON, by type (bytes). */
  bytes: Record<string, number>;
  saveMs: number;
  /** Each key's path through VS Code and the extension host (see {@link keyPath}). */
  path: KeyPath;
  /** The same for a key pressed right after `j`, without waiting for focus to move. */
  pathAfterMove: KeyPath;
}

const TRACE = join(out, 'bench-editor-label-trace.jsonl');

/** Steps of a label key, in ms per key: the keys of {@link KeyPath} with their printed names. */
const PATH_STEPS = [
  ['routing', 'key → command in the host (VS Code routes the key)'],
  ['decide', 'command → edit (the host decides, after the report of a move on its way; or host → webview → host)'],
  ['vscodeEdit', 'edit → document changed'],
  ['handler', 'change handler (ours)'],
  ['ackOut', 'handler → ack sent'],
  ['ackIn', 'ack → webview'],
] as const;
/** Per key, ms: the steps of {@link PATH_STEPS}, and `toDocument`: key press → the host sees the document changed. */
type KeyPath = Record<(typeof PATH_STEPS)[number][0] | 'toDocument', number[]> & { keys: number; viaWebview: number; held: number };

/**
 * Splits each key's time by the extension host's trace (src/extension/labelTrace.ts): the events between the key
 * press and the ack the webview saw. Times across processes (key press, ack seen) use Date.now() on the same
 * machine (1 ms resolution); times inside the host use its performance.now().
 */
function keyPath(presses: { start: number; ack: number; moveAt?: number }[]): KeyPath {
  const events = readFileSync(TRACE, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { event: string; at: number; ms: number });
  const path: KeyPath = { routing: [], decide: [], vscodeEdit: [], handler: [], ackOut: [], ackIn: [], toDocument: [], keys: 0, viaWebview: 0, held: 0 };
  for (const { start, ack, moveAt } of presses) {
    // After a `j` pressed at `moveAt`, the key's command is the second one from then (the host runs them in order).
    const inKey = events.filter((e) => e.at >= (moveAt ?? start) - 1 && e.at <= ack + 1);
    const find = (event: string, after = -Infinity) => inKey.find((e) => e.event === event && e.ms >= after);
    const command = inKey.filter((e) => e.event === 'command')[moveAt === undefined ? 0 : 1];
    // `received`: the key went to the webview and came back as an operation (src/extension/editor/keyRoute.ts).
    const received = command && find('received', command.ms);
    const edit = command && find('edit', (received ?? command).ms);
    const changed = edit && find('changed', edit.ms);
    const handled = changed && find('handled', changed.ms);
    const acked = handled && find('ack', handled.ms);
    if (!command || !edit || !changed || !handled || !acked) continue;
    path.keys++;
    if (received) path.viaWebview++;
    // `held`: the key waited in the host for the webview's report of where a move took focus.
    else if (inKey.some((e) => e.event === 'held' && e.ms >= command.ms && e.ms <= edit.ms)) path.held++;
    path.routing.push(command.at - start);
    path.decide.push(edit.ms - command.ms);
    path.vscodeEdit.push(changed.ms - edit.ms);
    path.handler.push(handled.ms - changed.ms);
    path.ackOut.push(acked.ms - handled.ms);
    path.ackIn.push(ack - acked.at);
    path.toDocument.push(changed.at - start);
  }
  return path;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s[(s.length - 1) >> 1] + s[s.length >> 1]) / 2 : NaN;
};
const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.9))];

const frameOf = (page: Page) => waitFor('the editor frame', async () => {
  for (const f of page.frames()) if (await f.$('#item-list').catch(() => null)) return f;
  return undefined;
});

/** Milestones of a first paint, in ms from the double click. */
interface Paint {
  /** The webview's document exists (VS Code loaded the file, synced it to the extension host, and resolved the editor). */
  webview: number;
  /** Rows of the item list shown (the host's `index` arrived and was rendered). */
  list: number;
  /** The first item's candidates shown (the `select` → `item` round trip after the index). */
  item: number;
  /**
   * Inside the webview, ms from its page's start (`webview`): the page's HTML, stylesheet and script received, the
   * script running and posting `ready`, the host's `index` arriving and its list drawn, the first item drawn (the
   * `reflect-eval:*` marks of webview/editor/main.ts); NaN where not seen.
   */
  inPage: { html: number; css: number; js: number; script: number; ready: number; index: number; list: number; item: number };
}

/** Opens `name` from the Explorer and returns the frame and the milestones of its first paint. */
async function openAndPaint(page: Page, name: string): Promise<{ frame: Frame; paint: Paint }> {
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: new RegExp(`^${name.replace(/\./g, '\\.')}$`) });
  await row.waitFor({ timeout: 60_000 });
  const start = Date.now();
  await row.dblclick();
  const seen: Partial<Paint> = {};
  // Up to 5 minutes: the 45 MB file took ~50 s before issue 19's changes on a busy machine.
  const frame = await waitFor(
    `${name} painted`,
    async () => {
      for (const f of page.frames()) {
        const got = await f.evaluate(() => ({ webview: !!document.querySelector('#item-list'), origin: performance.timeOrigin, list: !!document.querySelector('#item-list-rows .item-row'), item: !!document.querySelector('#candidates .candidate') })).catch(() => undefined);
        if (!got?.webview) continue;
        seen.webview ??= Math.max(0, Math.round(got.origin) - start);
        if (got.list) seen.list ??= Date.now() - start;
        if (got.item) seen.item ??= Date.now() - start;
        if (got.list && got.item) return f;
      }
      return undefined;
    },
    300_000,
    50,
  );
  // A string, not a function: tsx would wrap named helpers inside it in a `__name` the page does not have.
  seen.inPage = (await frame.evaluate(`(() => {
    const resources = performance.getEntriesByType('resource');
    const end = (name) => (resources.find((e) => e.name.split('?')[0].endsWith(name)) || { responseEnd: NaN }).responseEnd;
    const mark = (name) => (performance.getEntriesByName('reflect-eval:' + name)[0] || { startTime: NaN }).startTime;
    const nav = performance.getEntriesByType('navigation')[0];
    return { html: nav ? nav.responseEnd : NaN, css: end('/editor.css'), js: end('/editor.js'), script: mark('script'), ready: mark('ready'), index: mark('index'), list: mark('list'), item: mark('item') };
  })()`)) as Paint['inPage'];
  return { frame, paint: seen as Paint };
}

async function measure(wb: Workbench, name: string, file: string, keys: number, keysAfterMove: number): Promise<Figures> {
  const page = wb.page;
  // Profiles (by hand, see the top of this file) of the big file's opening or of its keys.
  const profile = process.env.REFLECT_EVAL_INSPECT_EXTENSIONS && name.startsWith('big') ? (process.env.REFLECT_EVAL_PROFILE ?? 'keys') : undefined;
  const openProfile = profile === 'open' ? await startProfiles(wb, 'open') : undefined;
  const { frame, paint } = await openAndPaint(page, name);
  await openProfile?.stop();
  await frame.waitForSelector('#candidates .candidate.focused', { timeout: 120_000 });
  // Acks as the webview receives them, stamped with the wall clock; the kinds of message the host sends meanwhile;
  // and the first change to the page after each key (the webview shows a label as soon as the key's action
  // arrives, then posts the label operation: the start of the host's part).
  await frame.evaluate(() => {
    const w = window as unknown as { bench: { acks: number[]; kinds: Record<string, number>; bytes: Record<string, number>; mark: number; firstChange: number } };
    w.bench = { acks: [], kinds: {}, bytes: {}, mark: Infinity, firstChange: 0 };
    window.addEventListener('message', (e: MessageEvent<{ type: string }>) => {
      if (!e.data?.type) return;
      w.bench.kinds[e.data.type] = (w.bench.kinds[e.data.type] ?? 0) + 1;
      w.bench.bytes[e.data.type] = (w.bench.bytes[e.data.type] ?? 0) + JSON.stringify(e.data).length;
      if (e.data.type === 'ack') w.bench.acks.push(Date.now());
    });
    new MutationObserver(() => {
      if (!w.bench.firstChange && Date.now() >= w.bench.mark) w.bench.firstChange = Date.now();
    }).observe(document.querySelector('#candidates') as Node, { subtree: true, attributes: true, childList: true });
  });
  await keysLive(frame);
  type Bench = { bench: { acks: number[]; kinds: Record<string, number>; bytes: Record<string, number>; mark: number; firstChange: number } };
  const keyMs: number[] = [];
  const hostMs: number[] = [];
  const presses: { start: number; ack: number }[] = [];
  const keysProfile = profile === 'keys' ? await startProfiles(wb, 'keys') : undefined;
  for (let i = 0; i < keys; i++) {
    // Odd keys: an empathy digit on the candidate just marked coherent; then on to the next candidate.
    const key = i % 2 === 0 ? 'y' : String(1 + ((i >> 1) % 5));
    const before = await frame.evaluate(() => {
      const b = (window as unknown as Bench).bench;
      b.firstChange = 0;
      b.mark = Date.now();
      return b.acks.length;
    });
    const start = Date.now();
    await page.keyboard.press(key);
    const got = await waitFor(`the ack of key ${i + 1} (${key})`, async () => {
      const b = await frame.evaluate(() => (window as unknown as Bench).bench);
      return b.acks.length > before ? { ack: b.acks[before], shown: b.firstChange } : undefined;
    }, 300_000, 20);
    keyMs.push(got.ack - start);
    presses.push({ start, ack: got.ack });
    if (got.shown) hostMs.push(got.ack - got.shown);
    if (i % 2 === 1) {
      const focusedBefore = await frame.getAttribute('.candidate.focused', 'data-candidate-id');
      await page.keyboard.press('j');
      await waitFor('the next candidate focused', async () => (await frame.getAttribute('.candidate.focused', 'data-candidate-id')) !== focusedBefore, 60_000, 20);
    }
  }
  await keysProfile?.stop();
  const { kinds, bytes } = await frame.evaluate(() => (window as unknown as Bench).bench);
  // A labeller typing at full speed: `j` and at once a key, before the webview can report where focus went (the key
  // waits in the host for that report, src/extension/editor/keyRoute.ts). `n` and `y` by turns, so each is a change even
  // where `j` stays on the item's last candidate.
  const afterMove: { start: number; ack: number; moveAt: number }[] = [];
  for (let i = 0; i < keysAfterMove; i++) {
    const key = i % 2 === 0 ? 'n' : 'y';
    const before = await frame.evaluate(() => (window as unknown as Bench).bench.acks.length);
    const moveAt = Date.now();
    await page.keyboard.press('j');
    const start = Date.now();
    await page.keyboard.press(key);
    const got = await waitFor(`the ack of key ${key} after j (${i + 1})`, async () => {
      const b = await frame.evaluate(() => (window as unknown as Bench).bench);
      return b.acks.length > before ? b.acks[before] : undefined;
    }, 300_000, 20);
    afterMove.push({ start, ack: got, moveAt });
  }
  await page.waitForSelector('.tab.active.dirty', { timeout: 60_000 });
  const saveStart = Date.now();
  await page.keyboard.press('Control+s');
  await page.waitForSelector('.tab.active:not(.dirty)', { timeout: 300_000 });
  const saveMs = Date.now() - saveStart;
  // The labels are on disk (an honest save).
  const saved = readFileSync(file, 'utf8');
  if (!saved.includes(`"annotator":"${ANNOTATOR}"`)) throw new Error(`${name}: the saved file has no label by ${ANNOTATOR}`);
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+W');
  const items = saved.split('\n').filter((l) => l.trim()).length;
  return { mb: statSync(file).size / 1024 / 1024, items, paint, firstPaintMs: Math.max(paint.list, paint.item), keyMs, hostMs, kinds, bytes, saveMs, path: keyPath(presses), pathAfterMove: keyPath(afterMove) };
}

/** VS Code's text editor on a file (no extension involved): open until its first line shows, and a save of one typed character. */
async function plainText(page: Page, name: string): Promise<{ openMs: number; saveMs: number }> {
  const row = page.locator('.explorer-folders-view .monaco-list-row', { hasText: new RegExp(`^${name.replace(/\./g, '\\.')}$`) });
  await row.waitFor({ timeout: 60_000 });
  const start = Date.now();
  await row.dblclick();
  await page.waitForSelector('.editor-instance .monaco-editor .view-lines .view-line', { timeout: 300_000 });
  const openMs = Date.now() - start;
  await page.click('.editor-instance .monaco-editor .view-lines');
  await page.keyboard.press('Control+End');
  await page.keyboard.type(' ');
  await page.waitForSelector('.tab.active.dirty', { timeout: 60_000 });
  const saveStart = Date.now();
  await page.keyboard.press('Control+s');
  await page.waitForSelector('.tab.active:not(.dirty)', { timeout: 300_000 });
  const saveMs = Date.now() - saveStart;
  await page.keyboard.press('Control+K');
  await page.keyboard.press('Control+W');
  return { openMs, saveMs };
}

/**
 * CPU profiles of the extension host and of the workbench's renderer (the webview included) from now until `stop`,
 * written to test-output as `bench-editor-<phase>-*.cpuprofile` and summarised as the functions with the most self
 * time. Needs REFLECT_EVAL_INSPECT_EXTENSIONS=1 (test/e2e/harness.ts runs code-server's Node processes under the
 * inspector) and Node's WebSocket (node --experimental-websocket).
 */
async function startProfiles(wb: Workbench, phase: string): Promise<{ stop(): Promise<void> }> {
  const host = await startExtensionHostProfile(wb.log(), phase);
  const cdp = await wb.page.context().newCDPSession(wb.page);
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
  await cdp.send('Profiler.start');
  return {
    async stop() {
      await host.stop();
      summariseProfile(`workbench renderer (${phase})`, (await cdp.send('Profiler.stop')).profile as unknown as CpuProfile, `bench-editor-${phase}-workbench.cpuprofile`);
    },
  };
}

/** A CPU profile of the extension host (found among the inspected processes by its argv) until `stop`. */
async function startExtensionHostProfile(log: string, phase: string): Promise<{ stop(): Promise<void> }> {
  const WS = (globalThis as unknown as { WebSocket: new (url: string) => WebSocket }).WebSocket;
  const connect = async (url: string) => {
    const ws = new WS(url);
    await new Promise((r, j) => (ws.addEventListener('open', r, { once: true }), ws.addEventListener('error', j, { once: true })));
    let id = 0;
    const waiting = new Map<number, (v: unknown) => void>();
    ws.addEventListener('message', (e) => {
      const m = JSON.parse(String(e.data)) as { id?: number; result?: unknown };
      if (m.id !== undefined) waiting.get(m.id)?.(m.result);
    });
    const call = (method: string, params: Record<string, unknown> = {}) =>
      new Promise<unknown>((r) => {
        waiting.set(++id, r);
        ws.send(JSON.stringify({ id, method, params }));
      });
    return { ws, call };
  };
  // The extension host is the inspected process whose argv says so.
  let found: Awaited<ReturnType<typeof connect>> | undefined;
  for (const url of new Set(log.match(/ws:\/\/127\.0\.0\.1:\d+\/[0-9a-f-]+/g) ?? [])) {
    const c = await connect(url).catch(() => undefined);
    if (!c) continue;
    const r = (await c.call('Runtime.evaluate', { expression: 'process.argv.join(" ")', returnByValue: true })) as { result?: { value?: string } };
    if (/--type=extensionHost/.test(r.result?.value ?? '') && !found) found = c;
    else c.ws.close();
  }
  if (!found) throw new Error('no extension host among the inspected processes');
  const { ws, call } = found;
  await call('Profiler.enable');
  await call('Profiler.setSamplingInterval', { interval: 200 });
  await call('Profiler.start');
  return {
    async stop() {
      const { profile } = (await call('Profiler.stop')) as { profile: CpuProfile };
      ws.close();
      summariseProfile(`extension host (${phase})`, profile, `bench-editor-${phase}-extension-host.cpuprofile`);
    },
  };
}

interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number } }[];
  samples: number[];
  timeDeltas: number[];
}

/** Writes a CPU profile to test-output and prints the functions with the most self time. */
function summariseProfile(what: string, profile: CpuProfile, file: string): void {
  writeFileSync(join(out, file), JSON.stringify(profile));
  const self = new Map<number, number>();
  profile.samples.forEach((n, i) => self.set(n, (self.get(n) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const byName = new Map<string, number>();
  for (const node of profile.nodes) {
    const f = node.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').slice(-2).join('/')}:${f.lineNumber + 1}`;
    byName.set(key, (byName.get(key) ?? 0) + (self.get(node.id) ?? 0));
  }
  const total = [...byName.values()].reduce((a, b) => a + b, 0);
  console.log(`${what}: ${(total / 1000).toFixed(0)} ms sampled (${join(out, file)}); most self time:`);
  for (const [k, us] of [...byName].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`  ${(us / 1000).toFixed(1).padStart(8)} ms  ${k}`);
}

export async function run(args: string[]): Promise<void> {
  const opt = (name: string, dflt: number) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 ? Number(args[i + 1]) : dflt;
  };
  const mb = opt('mb', 45);
  const keys = opt('keys', 20);
  const keysAfterMove = opt('keys-after-move', 10);
  const given = args.includes('--file') ? args[args.indexOf('--file') + 1] : undefined;
  if (!prerequisitesPresent()) return;
  // --file: a dialogue file of your own (e.g. a compact study from `bench -- studySize --write`) as the big one;
  // the 1 MB reference is its first lines (with its header line, if compact).
  const givenBytes = given ? readFileSync(given) : undefined;
  const all = givenBytes ? [] : buildItems(mb * 1024 * 1024);
  const refCount = Math.max(1, Math.round(all.length / mb));
  const firstMb = (bytes: Buffer) => {
    let end = 0;
    while (end < bytes.length && end < 1024 * 1024) end = (bytes.indexOf(0x0a, end) + 1 || bytes.length);
    return bytes.subarray(0, end);
  };
  // Its first two lines (a compact file's header and first item) warm the editor up.
  const warm = givenBytes?.subarray(0, givenBytes.indexOf(0x0a, givenBytes.indexOf(0x0a) + 1) + 1);
  let wb: Workbench | undefined;
  const files: Record<string, string> = {};
  // The extension host's timing of each label (src/extension/labelTrace.ts); code-server inherits the variable.
  mkdirSync(out, { recursive: true });
  writeFileSync(TRACE, '');
  process.env.REFLECT_EVAL_TRACE_LABELS = TRACE;
  try {
    wb = await launchWorkbench(
      (ws) => {
        mkdirSync(ws, { recursive: true });
        files.ref = join(ws, 'ref.dialogues.jsonl');
        files.big = join(ws, 'big.dialogues.jsonl');
        writeFileSync(join(ws, 'warm.dialogues.jsonl'), warm ?? formatItems(all.slice(0, 1)));
        writeFileSync(files.ref, givenBytes ? firstMb(givenBytes) : formatItems(all.slice(0, refCount)));
        writeFileSync(files.big, givenBytes ?? formatItems(all));
        // The same bytes under a name the dialogue editor does not claim: VS Code's own text editor, for comparison.
        files.text = join(ws, 'big-as-text.jsonl');
        writeFileSync(files.text, givenBytes ?? formatItems(all));
      },
      // The text editor's confirmation before opening a large file (VS Code for the web asks from 10 MB) is off.
      { 'reflectEval.annotator': ANNOTATOR, 'files.autoSave': 'off', 'workbench.editorLargeFileConfirmation': 1024 },
    );
    // A one-item file first: until the extension has registered its editor VS Code opens the file as text
    // (openDialogueFile retries); activation is not part of either figure.
    await openDialogueFile(wb.page, 'warm.dialogues.jsonl');
    await (await frameOf(wb.page)).waitForSelector('#candidates .candidate', { timeout: 120_000 });
    await wb.page.keyboard.press('Control+K');
    await wb.page.keyboard.press('Control+W');
    await wb.page.waitForTimeout(1000);
    const ref = await measure(wb, 'ref.dialogues.jsonl', files.ref, keys, keysAfterMove);
    const big = await measure(wb, 'big.dialogues.jsonl', files.big, keys, keysAfterMove);
    const text = await plainText(wb.page, 'big-as-text.jsonl').catch(async (err: Error) => {
      await wb?.screenshot('bench-editor-text-failure');
      console.error(`VS Code's text editor on the big file: ${err.message.split('\n')[0]}`);
      return { openMs: NaN, saveMs: NaN };
    });
    const row = (what: string, goal: string, r: number, b: number) =>
      console.log(`${what.padEnd(34)} ${goal.padEnd(9)} ${fmt(r).padStart(10)} ${fmt(b).padStart(10)} ${`${(b / r).toFixed(1)}×`.padStart(8)}`);
    const fmt = (ms: number) => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);
    console.log(`dialogue editor in code-server: ${big.items} items / ${big.mb.toFixed(1)} MB vs ${ref.items} items / ${ref.mb.toFixed(1)} MB (${keys} label keys each, one at a time)`);
    console.log(`${'figure'.padEnd(34)} ${'goal'.padEnd(9)} ${`${ref.mb.toFixed(0)} MB`.padStart(10)} ${`${big.mb.toFixed(0)} MB`.padStart(10)} ${'ratio'.padStart(8)}`);
    row('first paint (open → item + list)', '≤ 1.5 s', ref.firstPaintMs, big.firstPaintMs);
    row('  of which: webview created', '', ref.paint.webview, big.paint.webview);
    row('  list rows shown', '', ref.paint.list, big.paint.list);
    row('  first item shown', '', ref.paint.item, big.paint.item);
    const phases: [string, keyof Paint['inPage']][] = [['HTML received', 'html'], ['stylesheet received', 'css'], ['script received', 'js'], ['script runs', 'script'], ['ready posted', 'ready'], ['index arrives (host parses, sends)', 'index'], ['list drawn', 'list'], ['first item drawn', 'item']];
    for (const [what, k] of phases) row(`    in the webview: ${what}`, '', ref.paint.inPage[k], big.paint.inPage[k]);
    row('label key → ack in the webview (median)', '', median(ref.keyMs), median(big.keyMs));
    row('label key → ack in the webview (p90)', '', p90(ref.keyMs), p90(big.keyMs));
    row('  label shown → ack (median)', '', median(ref.hostMs), median(big.hostMs));
    row('label key → document changed (host)', '≤ 50 ms', median(ref.path.toDocument), median(big.path.toDocument));
    row('  key right after j (median)', '≤ 50 ms', median(ref.pathAfterMove.toDocument), median(big.pathAfterMove.toDocument));
    row('save (Ctrl+S → not dirty)', '', ref.saveMs, big.saveMs);
    console.log(`VS Code's own text editor on the same ${big.mb.toFixed(0)} MB (no extension involved): open → first line shown ${fmt(text.openMs)}, a typed character saved (Ctrl+S → not dirty) ${fmt(text.saveMs)}`);
    console.log(`key times 45 MB (ms): ${big.keyMs.join(' ')}`);
    console.log('where a label key goes (medians over the keys, ms; from the extension host\'s trace, REFLECT_EVAL_TRACE_LABELS):');
    for (const [what, r] of [['1 MB', ref.path], ['45 MB', big.path], ['1 MB, key right after j', ref.pathAfterMove], ['45 MB, key right after j', big.pathAfterMove]] as const) {
      console.log(`  ${what}: ${PATH_STEPS.map(([k, label]) => `${label} ${Math.round(median(r[k]))}`).join(' · ')} (${r.keys} keys traced: ${r.viaWebview} through the webview, ${r.held} held in the host for the webview's report of the move)`);
    }
    const kb = (f: Figures) => Object.fromEntries(Object.entries(f.bytes).map(([k, b]) => [k, `${(b / 1024).toFixed(1)} KB`]));
    console.log(`messages to the webview during the keys (count; size as JSON), 1 MB: ${JSON.stringify(ref.kinds)} ${JSON.stringify(kb(ref))}; 45 MB: ${JSON.stringify(big.kinds)} ${JSON.stringify(kb(big))}`);
  } catch (err) {
    await wb?.screenshot('bench-editor-failure');
    console.error(`screenshot: ${join(out, 'bench-editor-failure.png')}`);
    throw err;
  } finally {
    await wb?.close('bench-editor-code-server-logs');
  }
}
