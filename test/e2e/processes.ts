/**
 * The processes an end-to-end run starts, found again and ended. Every process the harness starts carries the
 * environment variable {@link MARKER} = `<run id>/<owner id>` (children inherit it: code-server's extension host and
 * file watcher, Chromium's main process and its crash handlers), and is started in a process group of its own
 * (code-server with `detached`, Chromium by Playwright). Chromium's zygote and the processes it forks (renderers, GPU,
 * network service) start with an emptied environment and carry no marker: they are found by their process group.
 * Nothing here looks at process names, so another run's code-server or another user's Chromium is never touched.
 *
 * Linux only (reads /proc), like the rest of the e2e suite.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** The environment variable that marks a process as started by this e2e run (and says for which owner). */
export const MARKER = 'REFLECT_EVAL_E2E';

/** This run's id: the test process's pid and start time, unique on the machine. */
export const runId = `${process.pid}.${Date.now().toString(36)}`;

/** A running process as /proc shows it. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** Its process group. */
  pgid: number;
  /** The value of {@link MARKER} in its environment, when it has one (and the environment is readable). */
  marker?: string;
  /** Its command line (arguments joined by spaces). */
  command: string;
  /** Clock ticks after boot at which it started: with `pid`, names the process even when the pid is reused. */
  startTime: number;
}

/** The environment for a process `owner` starts: this process's environment plus the marker `<run id>/<owner>`. */
export function markedEnv(owner: string, env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  return { ...env, [MARKER]: `${runId}/${owner}` };
}

function readProcess(pid: number): ProcessInfo | undefined {
  let stat: string;
  let command: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0+$/, '').replace(/\0/g, ' ');
  } catch {
    return undefined; // gone meanwhile
  }
  // Fields after the command name in parentheses (which may itself hold spaces and parentheses): state ppid pgrp …
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (fields[0] === 'Z' || fields[0] === 'X') return undefined; // dead, not yet reaped: nothing left to end
  let marker: string | undefined;
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .find((e) => e.startsWith(`${MARKER}=`));
    marker = entry?.slice(MARKER.length + 1);
  } catch {
    // another user's process, or one that made itself undumpable: not marked as far as we can tell
  }
  return { pid, ppid: Number(fields[1]), pgid: Number(fields[2]), marker, command: command || `[${stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))}]`, startTime: Number(fields[19]) };
}

/** Every live process on the machine (zombies left out), this one excluded. */
export function listProcesses(): ProcessInfo[] {
  const all: ProcessInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const p = readProcess(Number(name));
    if (p) all.push(p);
  }
  return all;
}

/** This process's own process group: never signalled as a group (it holds Mocha and whatever started it). */
export function ownGroup(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

/**
 * The processes of this run that match: marked with `<run id>/<owner>` for an owner `owners` accepts, or members of
 * one of `groups` (process groups this run created; see the module's comment for why both).
 */
export function processesOf(owners: (owner: string) => boolean, groups: Iterable<number> = []): ProcessInfo[] {
  const inGroups = new Set(groups);
  inGroups.delete(ownGroup());
  const prefix = `${runId}/`;
  return listProcesses().filter((p) => (p.marker?.startsWith(prefix) && owners(p.marker.slice(prefix.length))) || inGroups.has(p.pgid));
}

/** Whether the process `p` names (pid and start time) is still running. */
export function alive(p: Pick<ProcessInfo, 'pid' | 'startTime'>): boolean {
  const now = readProcess(p.pid);
  return now !== undefined && now.startTime === p.startTime;
}

/** `pid 12 (group 10, owner wb1): command`, the command cut to `width` characters. */
export function describeProcess(p: ProcessInfo, width = 160): string {
  const owner = p.marker ? `, ${p.marker.slice(p.marker.indexOf('/') + 1)}` : '';
  return `pid ${p.pid} (group ${p.pgid}${owner}): ${p.command.length > width ? `${p.command.slice(0, width)}…` : p.command}`;
}

function signal(processes: ProcessInfo[], sig: NodeJS.Signals): void {
  const own = ownGroup();
  const groups = new Set(processes.map((p) => p.pgid).filter((g) => g > 1 && g !== own));
  for (const g of groups) {
    try {
      process.kill(-g, sig);
    } catch {
      // the group is gone already
    }
  }
  // Each process too: one that left its group (a crash handler calls setsid) or shares this process's group.
  for (const p of processes) {
    try {
      if (alive(p)) process.kill(p.pid, sig);
    } catch {
      // gone meanwhile
    }
  }
}

async function waitGone(find: () => ProcessInfo[], ms: number): Promise<ProcessInfo[]> {
  const end = Date.now() + ms;
  let left = find();
  while (left.length && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    left = find();
  }
  return left;
}

/** What {@link terminate} did. */
export interface Termination {
  /** The processes found at the start. */
  found: ProcessInfo[];
  /** Those that needed SIGKILL (still there `graceMs` after SIGTERM). */
  killed: ProcessInfo[];
  /** Those still there after SIGKILL too (should never happen; the caller reports them). */
  survivors: ProcessInfo[];
  ms: number;
}

/**
 * Ends the processes `find` returns (called again while waiting, so a process started meanwhile is ended too):
 * SIGTERM to each one's process group and to each one, up to `graceMs` for all of them to be gone, then SIGKILL the
 * same way and up to `killMs` more.
 */
export async function terminate(find: () => ProcessInfo[], graceMs = 5_000, killMs = 3_000): Promise<Termination> {
  const start = Date.now();
  const found = find();
  if (!found.length) return { found, killed: [], survivors: [], ms: 0 };
  signal(found, 'SIGTERM');
  const killed = await waitGone(find, graceMs);
  if (!killed.length) return { found, killed, survivors: [], ms: Date.now() - start };
  signal(killed, 'SIGKILL');
  const survivors = await waitGone(find, killMs);
  return { found, killed, survivors, ms: Date.now() - start };
}

/** SIGKILL to the processes `find` returns, their groups included, without waiting (for a process `exit` handler). */
export function killNow(found: ProcessInfo[]): void {
  signal(found, 'SIGKILL');
}
