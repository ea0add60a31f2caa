/**
 * `npm run bench -- activation [--rounds N (7)]`: how long activating ReflectEval takes — loading the `main` bundle
 * and running its `activate`, as VS Code's extension host does — before and after the split (issue 45): the whole
 * extension as `main` (`dist/extension.js`, as the package was until the split) against the entry (`dist/entry.js`,
 * the `main` now). And what the first use of a command then costs through the entry (the stand-in loading
 * `dist/extension.js` and handing over). Needs `npm run build`.
 *
 * Each activation runs in a new process (`activateOnce.cjs`), with a stand-in for the `vscode` module that answers
 * every call with itself, so what is timed is our code's loading and registration, not VS Code's. The ways alternate
 * within each round, so a change in machine load hits both; the ratio of the medians is the figure to compare.
 */
import { execFileSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { strArg } from './args';

interface Run {
  loadMs: number;
  activateMs: number;
  firstUseMs: number | null;
  commands: number;
  activateError?: string;
  firstUseError?: string;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];
const fmt = (xs: number[]) => `${median(xs).toFixed(1)} ms (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;

export async function run(args: string[]): Promise<void> {
  const rounds = Number(strArg(args, '--rounds') ?? 7);
  const root = resolve(__dirname, '..');
  const once = join(__dirname, 'activateOnce.cjs');
  // A command whose run needs nothing but the full extension: what remains is the hand-over.
  const command = 'reflectEval.showLabellingKeys';
  const ways = [
    { name: 'before: dist/extension.js as main', bundle: join(root, 'dist/extension.js'), args: [] as string[] },
    { name: 'after: dist/entry.js as main', bundle: join(root, 'dist/entry.js'), args: [command] },
  ];
  const runs = new Map<string, Run[]>(ways.map((w) => [w.name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const way of ways) {
      const outText = execFileSync(process.execPath, [once, way.bundle, ...way.args], { encoding: 'utf8' });
      const res = JSON.parse(outText.trim().split('\n').pop() as string) as Run;
      if (res.activateError || res.firstUseError) throw new Error(`${way.name}: ${res.activateError ?? res.firstUseError}`);
      runs.get(way.name)!.push(res);
    }
  }
  console.log(`activation, ${rounds} runs each, each in a new process (median, range):`);
  console.log('| main | bundle size | load (require) | activate() | load + activate | commands registered | first command after activation |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const way of ways) {
    const rs = runs.get(way.name)!;
    const first = rs.map((x) => x.firstUseMs).filter((x): x is number => x !== null);
    console.log(`| ${way.name} | ${(statSync(way.bundle).size / 1e6).toFixed(2)} MB | ${fmt(rs.map((x) => x.loadMs))} | ${fmt(rs.map((x) => x.activateMs))} | ${fmt(rs.map((x) => x.loadMs + x.activateMs))} | ${rs[0].commands} | ${first.length ? `${fmt(first)} (loads dist/extension.js)` : 'registered at activation'} |`);
  }
  const total = (name: string) => median(runs.get(name)!.map((x) => x.loadMs + x.activateMs));
  console.log(`\nafter ÷ before (load + activate, medians): ${(total(ways[1].name) / total(ways[0].name)).toFixed(3)}`);
}
