/**
 * Who owns what an end-to-end run launches, and when it is closed. Everything the harness starts — a workbench
 * (code-server, Chromium, their temporary folders), a stub server — is registered here with {@link own} and belongs
 * to whatever was running when it was launched:
 *
 * - launched inside a test (`it`): that attempt. Mocha's `retries` runs a failed test again, but not its `before`
 *   hooks, so a test that launches its own workbench launches a second one on the retry. When an attempt fails, what
 *   it launched is closed before the retry starts (and before the next test, when it was the last attempt).
 * - launched in a `before` hook: its file. The workbench serves every test of the file and every retry (a retry
 *   continues in the same workbench, so it launches nothing new), and is closed when the file ends.
 *
 * Each file's own `after` hook closes its workbench as before; the harness closes, at the end of each file, anything
 * of it still open (one launched by a `before` hook that then failed is one), and at the end of the run everything
 * else. Then the end-of-run check looks for any process of this run still running — by the run's environment marker
 * and the process groups it created (processes.ts), never by name — kills it, and fails naming it. If the process
 * still does not exit (an open socket, a timer), a watchdog names what holds it and exits it, so a run never outlives
 * its CI time limit because of the suite.
 *
 * The root hooks are installed when this module is first imported by a spec file (every e2e file imports the
 * harness), whichever Mocha config runs it. Outside Mocha (the editor bench) nothing is installed; whatever is still
 * open when the process exits is killed by an `exit` handler.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeProcess, killNow, processesOf, runId, terminate, type ProcessInfo } from './processes';

/** One attempt of a test (Mocha makes a new Test object for each retry). */
interface Attempt {
  title: string;
  /** 1 for the first attempt. */
  n: number;
  ended: boolean;
}

/** Something the run launched and must close: see {@link own}. */
export interface Owned {
  /** Its id in this run (`wb1`, `stub2`, …): its processes carry the marker `<run id>/<id>`. */
  readonly id: string;
  /** What it is, for the log (`workbench wb1`). */
  readonly what: string;
  /** The process groups it created (code-server's, Chromium's): their members are its processes, marked or not. */
  readonly groups: Set<number>;
  /** Whether closing has begun. */
  readonly closing: boolean;
  /** Whether it is closed. */
  readonly closed: boolean;
  /** Its processes still running. */
  processes(): ProcessInfo[];
  /**
   * Closes it, once (later calls wait for the first): its own `stop`, then SIGTERM to every process of it still
   * running (its groups, its marker), SIGKILL to those still there after 5 s, then its `cleanup`. Never throws: a
   * failure is printed, and a process that survives is left to the end-of-run check, which fails the run.
   */
  close(why?: string): Promise<void>;
}

/** How to close a thing registered with {@link own}; processes are ended by the registry in between. */
export interface Closer {
  /** The graceful part: close the browser, a server. Given 15 s. */
  stop?: () => Promise<void>;
  /** After every process has ended: copy logs, remove temporary folders. */
  cleanup?: () => void;
}

const registry: (Owned & { attempt?: Attempt })[] = [];
let current: Attempt | undefined;
let counter = 0;
let exitHandlers = false;
let dir: string | undefined;

/** The run's temporary folder (created on first use, removed at the end of the run): workbenches and the VSIX go in it. */
export function runDir(): string {
  dir ??= mkdtempSync(join(tmpdir(), `reflect-eval-e2e-run-${runId.replace('.', '-')}-`));
  return dir;
}

function log(line: string): void {
  console.log(`      e2e harness: ${line}`);
}

function within<T>(ms: number, p: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<undefined>((ok) => (timer = setTimeout(() => ok(undefined), ms)))]).finally(() => clearTimeout(timer));
}

/**
 * Registers something the run launches, owned by the test attempt running now (or, outside a test, by the current
 * file). Call it before starting anything, start processes with `markedEnv(owned.id)` and add the process groups
 * they lead to `owned.groups`. `kind` prefixes the id (`wb` → `wb3`).
 */
export function own(kind: string, what: string, closer: Closer): Owned {
  const id = `${kind}${++counter}`;
  const attempt = current;
  const groups = new Set<number>();
  let closing: Promise<void> | undefined;
  let closed = false;
  const processes = () => processesOf((o) => o === id, groups);
  const owned: Owned & { attempt?: Attempt } = {
    id,
    what: `${what} ${id}`,
    groups,
    attempt,
    get closing() {
      return closing !== undefined;
    },
    get closed() {
      return closed;
    },
    processes,
    close(why = 'closed by its test') {
      closing ??= (async () => {
        const at = Date.now();
        try {
          if (closer.stop) {
            const stopped = await within(15_000, closer.stop().then(() => true, (err: Error) => (log(`${owned.what}: stopping failed: ${err.message}`), true)));
            if (!stopped) log(`${owned.what}: stopping took over 15 s; killing its processes`);
          }
          const t = await terminate(processes);
          try {
            closer.cleanup?.();
          } catch (err) {
            log(`${owned.what}: cleaning up failed: ${(err as Error).message}`);
          }
          const ended = t.found.length ? `; ended its ${t.found.length} remaining process${t.found.length === 1 ? '' : 'es'} (SIGTERM${t.killed.length ? `, then SIGKILL for ${t.killed.length}` : ''})` : '';
          log(`closed ${owned.what} (${why}) in ${Date.now() - at} ms${ended}`);
          for (const p of t.survivors) log(`  STILL RUNNING after SIGKILL: ${describeProcess(p)}`);
          if (!t.survivors.length) groups.clear(); // ended: a later process reusing a group id is none of ours
        } catch (err) {
          log(`closing ${owned.what} failed (the end-of-run check will find what is left): ${(err as Error).stack ?? err}`);
        } finally {
          closed = true;
        }
      })();
      return closing;
    },
  };
  registry.push(owned);
  if (!exitHandlers) {
    exitHandlers = true;
    // The process exiting early (process.exit, a signal): whatever is still open goes with it. code-server runs in a
    // process group of its own, so a Ctrl-C in the terminal or a SIGTERM from CI's time limit no longer reaches it.
    process.on('exit', () => {
      killNow(processesOf(() => true, registry.flatMap((o) => [...o.groups])));
      if (dir) rmSync(dir, { recursive: true, force: true });
    });
    for (const [sig, n] of [['SIGINT', 2], ['SIGTERM', 15], ['SIGHUP', 1]] as const) {
      process.once(sig, () => {
        log(`${sig}: killing this run's processes and exiting`);
        process.exit(128 + n);
      });
    }
  }
  return owned;
}

/** Whether a test attempt has ended (its resources are then closed by the harness, not by the test). */
export function attemptEnded(owned: Owned): boolean {
  return (owned as { attempt?: Attempt }).attempt?.ended ?? false;
}

/** Everything registered and not yet closed. */
export function openNow(): readonly Owned[] {
  return registry.filter((o) => !o.closed);
}

/**
 * Whether the attempt of `test` that just ran failed, for an `afterEach` hook. A failed attempt that `retries` runs
 * again is not marked `failed` (Mocha leaves its state unset until the last attempt), and its hook must still clean
 * up after it: the retry meets whatever it left open.
 */
export function failedAttempt(test: Mocha.Test | undefined): boolean {
  return test !== undefined && test.state !== 'passed' && test.state !== 'pending';
}

async function closeWhere(match: (o: Owned & { attempt?: Attempt }) => boolean, why: string): Promise<number> {
  const open = registry.filter((o) => !o.closed && match(o));
  for (const o of open) await o.close(why);
  return open.length;
}

/**
 * The processes of this run still running, whatever owns them (closed or not): marked with the run's id, or in a
 * process group the run created and has not seen end.
 */
export function leftoverProcesses(): ProcessInfo[] {
  return processesOf(() => true, registry.flatMap((o) => [...o.groups]));
}

/**
 * The end-of-run check: the processes of this run still running, ended (SIGTERM, then SIGKILL), and an error naming
 * them (pid, group, owner, command) — or undefined when there were none.
 */
export async function endOfRunCheck(): Promise<Error | undefined> {
  const left = leftoverProcesses();
  if (!left.length) return undefined;
  const t = await terminate(leftoverProcesses);
  const lines = left.map((p) => `  ${describeProcess(p, 300)}`);
  const after = t.survivors.length ? `; ${t.survivors.length} survived SIGKILL: ${t.survivors.map((p) => p.pid).join(', ')}` : '; killed now';
  return new Error(`${left.length} process${left.length === 1 ? '' : 'es'} of this e2e run (${runId}) still running at its end${after}:\n${lines.join('\n')}`);
}

/** What keeps the event loop alive: Node's open handles, each named as well as Node lets us. */
function openHandles(): string[] {
  const handles = (process as unknown as { _getActiveHandles(): unknown[] })._getActiveHandles();
  return handles
    .filter((h) => !(h as { hasRef?: () => boolean }).hasRef || (h as { hasRef: () => boolean }).hasRef())
    .map((h) => {
      const o = h as Record<string, unknown> & { constructor: { name: string } };
      if (typeof o.pid === 'number') return `child process ${o.pid} (${String(o.spawnfile)})`;
      if (o.constructor.name === 'Socket') return `socket ${String(o.remoteAddress ?? o.localAddress ?? (o._handle as { fd?: number } | undefined)?.fd ?? '')}:${String(o.remotePort ?? o.localPort ?? '')}`;
      if (o.constructor.name === 'Server') return `server ${JSON.stringify((o as unknown as { address(): unknown }).address())}`;
      return o.constructor.name;
    })
    .filter((d) => !/^socket (1|2):?$/.test(d)); // stdout, stderr
}

/** Which attempt of `test` this is: 1 for the first, 2 for the first retry (Mocha's `currentRetry()` + 1). */
export function attemptOf(test: Mocha.Runnable | undefined): number {
  return ((test as unknown as { currentRetry(): number } | undefined)?.currentRetry() ?? 0) + 1;
}

function installRootHooks(): void {
  // Per file: after the file's own `after` hooks, close what it left open.
  before('e2e harness: close what each file launched at its end', function () {
    for (const suite of this.test?.parent?.suites ?? []) {
      suite.afterAll('e2e harness: close what this file launched', async function () {
        this.timeout(120_000);
        await closeWhere(() => true, `still open at the end of "${suite.title}"`);
      });
    }
  });

  beforeEach('e2e harness: note the attempt that starts', function () {
    const test = this.currentTest;
    current = { title: test?.fullTitle() ?? '?', n: attemptOf(test), ended: false };
  });

  // Runs after the file's own afterEach hooks (which print a failed attempt's workbench state).
  afterEach('e2e harness: close what a failed attempt launched', async function () {
    this.timeout(120_000);
    const attempt = current;
    current = undefined;
    if (!attempt) return;
    attempt.ended = true;
    if (!failedAttempt(this.currentTest)) return;
    const test = this.currentTest!;
    const retry = attemptOf(test) <= test.retries();
    const why = `attempt ${attempt.n} of its test failed${retry ? '; closing it before the retry' : ''}`;
    await closeWhere((o) => o.attempt === attempt, why);
  });

  after('e2e harness: end-of-run check', async function () {
    this.timeout(120_000);
    await closeWhere(() => true, 'still open at the end of the run');
    const problem = await endOfRunCheck();
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
    // Mocha (without --exit) waits for the event loop to empty: if a handle keeps it alive, name it and exit.
    setTimeout(() => {
      log(`the run ended 10 s ago, but these keep the process alive: ${openHandles().join('; ') || 'unknown'}; exiting with a failure`);
      process.on('exit', () => {
        if (!process.exitCode) process.exitCode = 1;
      });
      process.exit();
    }, 10_000).unref();
    if (problem) throw problem;
    log(`end-of-run check: no code-server, Chromium or other process of this run (${runId}) is left`);
  });
}

if (typeof before === 'function' && typeof afterEach === 'function') installRootHooks();
