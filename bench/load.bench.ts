/**
 * `npm run bench -- load [--models DIR (.bench-models)] [--rounds N (3)] [--only gpt2|bart]`: how long a real-size
 * model takes to load, and how much memory the process then holds, by how onnxruntime is given its graphs (issue 19;
 * docs/scale.md, "Loading"). Each load runs in a new process (`loadOnce.ts`), as a user's first load does; the
 * ways alternate within each round so a change in machine load hits all of them.
 *
 * Ways: `staged` — the default: each graph's structure in a small file beside hard links to its weights
 * (`stageModel`, onnxPatch.ts); `file` — onnxruntime opens the files as they are (`stageWeights: false`; for
 * GPT-2 the graph that keeps the cache in place is then read and edited in memory, as before staging); for GPT-2
 * also `present` / `present-file` (`staticCache: false`: the graph unedited, staged or not).
 */
import { execFileSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { strArg } from './args';

interface Load {
  ms: number;
  rssBytes: number;
  how: string;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)];

export async function run(args: string[]): Promise<void> {
  const models = resolve(strArg(args, '--models') ?? resolve(__dirname, '../.bench-models'));
  const rounds = Number(strArg(args, '--rounds') ?? 3);
  const only = strArg(args, '--only');
  const plans: { kind: 'gpt2' | 'bart'; folder: string; ways: string[] }[] = [
    { kind: 'gpt2', folder: join(models, 'gpt2-medium-shape'), ways: ['staged', 'file', 'present', 'present-file'] },
    { kind: 'bart', folder: join(models, 'bart-large-shape'), ways: ['staged', 'file'] },
  ];
  for (const plan of plans.filter((p) => !only || p.kind === only)) {
    const loads = new Map<string, Load[]>(plan.ways.map((w) => [w, []]));
    for (let r = 0; r < rounds; r++) {
      for (const way of plan.ways) {
        const out = execFileSync(process.execPath, ['--import', 'tsx', join(__dirname, 'loadOnce.ts'), plan.folder, plan.kind, way], { encoding: 'utf8' });
        const load = JSON.parse(out.trim().split('\n').pop() as string) as Load;
        loads.get(way)!.push(load);
        console.log(`${plan.kind} ${way}: ${(load.ms / 1000).toFixed(1)} s, RSS ${(load.rssBytes / 1e9).toFixed(2)} GB${load.how ? ` (${load.how})` : ''}`);
      }
    }
    const staged = median(loads.get('staged')!.map((l) => l.ms));
    console.log(`\n${plan.kind === 'gpt2' ? 'gpt2-medium shape' : 'bart-large shape'}, ${rounds} loads each, each in a new process:`);
    console.log('| way | load, median (range) | RSS after loading | ÷ staged |');
    console.log('|---|---|---|---|');
    for (const [way, ls] of loads) {
      const ms = ls.map((l) => l.ms);
      const rss = ls.map((l) => l.rssBytes / 1e9);
      console.log(`| ${way} | ${(median(ms) / 1000).toFixed(1)} s (${(Math.min(...ms) / 1000).toFixed(1)}–${(Math.max(...ms) / 1000).toFixed(1)}) | ${Math.min(...rss).toFixed(2)}–${Math.max(...rss).toFixed(2)} GB | ${(median(ms) / staged).toFixed(2)} |`);
    }
    console.log('');
  }
}
