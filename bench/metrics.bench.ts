/**
 * `npm run bench -- metrics [--pairs N] [--seed S]`: BLEU-4 (NLTK defaults), ROUGE-L (rouge-score defaults) and
 * METEOR (NLTK defaults) over N (default 100,000) (reference, candidate) pairs built from the committed AnnoMI
 * sample, in ReflectEval and in the reference implementations (NLTK 3.8 through Debian's /usr/bin/python3, and
 * the rouge-score-equivalent code of scripts/parity/text_metrics_reference.py) on the same pairs. Times only the
 * scoring loops (the Python script times its own; WordNet is loaded before the METEOR loop on both sides),
 * compares every value, and prints a table. Each ReflectEval metric first runs once, untimed, on 1,000 other
 * pairs (JIT warm-up). The speed-up is given on CPU time (process.cpuUsage, all of Node's
 * threads; time.process_time in Python), which a machine shared with other jobs disturbs less than wall-clock
 * time, and on wall-clock time.
 *
 * Pairs: half are two AnnoMI utterances drawn at random (little overlap), half are a therapist utterance and a
 * seeded edit of it (words dropped, repeated and swapped), so every matching stage of the metrics is exercised.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import seedrandom from 'seedrandom';
import { parseAnnoMI } from '../src/core/datasets/annomi';
import { getMetric, type MetricInput } from '../src/core/metrics';
import { sharedWordNet } from '../src/core/metrics/text/wordnet';

const root = resolve(__dirname, '..');

function buildPairs(n: number, seed: string): [string, string][] {
  const csv = join(root, 'data', 'annomi', 'AnnoMI-sample.csv');
  const utterances = parseAnnoMI(readFileSync(csv, 'utf8'), 'AnnoMI-sample.csv').flatMap((d) => d.utterances);
  const therapist = utterances.filter((u) => u.speaker === 'therapist').map((u) => u.text);
  const all = utterances.map((u) => u.text);
  const rng = seedrandom(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rng() * xs.length)];
  const pairs: [string, string][] = [];
  for (let i = 0; i < n; i++) {
    const reference = pick(therapist);
    if (i % 2 === 0) {
      pairs.push([reference, pick(all)]);
      continue;
    }
    const words = reference.split(' ');
    const edited: string[] = [];
    for (const w of words) {
      const r = rng();
      if (r < 0.15) continue;
      edited.push(w);
      if (r > 0.95) edited.push(w);
    }
    if (edited.length > 3 && rng() < 0.3) {
      const k = Math.floor(rng() * (edited.length - 1));
      [edited[k], edited[k + 1]] = [edited[k + 1], edited[k]];
    }
    pairs.push([reference, edited.join(' ')]);
  }
  return pairs;
}

interface Times {
  wall: number;
  cpu: number;
}

interface Row {
  metric: string;
  ours: Times;
  reference: Times;
  identical: number;
  maxDiff: number;
}

function compare(name: string, mine: number[], theirs: number[], ours: Times, reference: Times): Row {
  let identical = 0;
  let maxDiff = 0;
  mine.forEach((v, i) => {
    const d = Math.abs(v - theirs[i]);
    if (d === 0) identical++;
    maxDiff = Math.max(maxDiff, d);
  });
  return { metric: name, ours, reference, identical, maxDiff };
}

export async function run(args: string[]): Promise<void> {
  const n = args.includes('--pairs') ? Number(args[args.indexOf('--pairs') + 1]) : 100_000;
  const seed = args.includes('--seed') ? args[args.indexOf('--seed') + 1] : 'metrics-bench';
  if (!Number.isInteger(n) || n <= 0) throw new Error('--pairs must be a positive integer');
  const pairs = buildPairs(n, seed);
  const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-bench-'));
  try {
    const input = join(dir, 'pairs.jsonl');
    const output = join(dir, 'reference.json');
    writeFileSync(input, pairs.map((p) => JSON.stringify(p)).join('\n') + '\n');

    const inputs: MetricInput[] = pairs.map(([reference, candidate]) => ({ reference, candidate }));
    const warmup: MetricInput[] = buildPairs(1000, `${seed}-warm-up`).map(([reference, candidate]) => ({ reference, candidate }));
    const timed = async (name: string, output: string): Promise<{ values: number[]; wall: number; cpu: number }> => {
      const metric = getMetric(name);
      const config = metric.configure({});
      await metric.score(warmup, config); // JIT warm-up on 1,000 other pairs, not timed
      const c0 = process.cpuUsage();
      const t0 = process.hrtime.bigint();
      const values = (await metric.score(inputs, config)).map((v) => v[output] as number);
      const wall = Number(process.hrtime.bigint() - t0) / 1e9;
      const c = process.cpuUsage(c0);
      return { values, wall, cpu: (c.user + c.system) / 1e6 };
    };
    const bleu = await timed('bleu4', 'score');
    const rouge = await timed('rougeL', 'f');
    // WordNet is loaded before METEOR's loop, as NLTK's is loaded before the Python loops.
    sharedWordNet();
    const meteor = await timed('meteor', 'score');

    console.error(`reference run: /usr/bin/python3 scripts/parity/text_metrics_reference.py --bench (${n} pairs) …`);
    const py = spawnSync('/usr/bin/python3', [join(root, 'scripts', 'parity', 'text_metrics_reference.py'), '--bench', input, output], { encoding: 'utf8', stdio: ['ignore', 'inherit', 'inherit'] });
    if (py.status !== 0) throw new Error(`the Python reference run failed (exit ${py.status})`);
    const ref = JSON.parse(readFileSync(output, 'utf8')) as { wall: Record<string, number>; cpu: Record<string, number>; bleu4: number[]; rougeL: number[]; meteor: number[] };

    const rows = [
      compare('BLEU-4 (NLTK 3.8 sentence_bleu)', bleu.values, ref.bleu4, bleu, { wall: ref.wall.bleu4, cpu: ref.cpu.bleu4 }),
      compare('ROUGE-L F (rouge-score 0.1.2)', rouge.values, ref.rougeL, rouge, { wall: ref.wall.rougeL, cpu: ref.cpu.rougeL }),
      compare('METEOR (NLTK 3.8 meteor_score)', meteor.values, ref.meteor, meteor, { wall: ref.wall.meteor, cpu: ref.cpu.meteor }),
    ];
    const sum = (f: (r: Row) => number) => rows.reduce((a, r) => a + f(r), 0);
    const total: Row = {
      metric: 'all three',
      ours: { wall: sum((r) => r.ours.wall), cpu: sum((r) => r.ours.cpu) },
      reference: { wall: sum((r) => r.reference.wall), cpu: sum((r) => r.reference.cpu) },
      identical: sum((r) => r.identical),
      maxDiff: Math.max(...rows.map((r) => r.maxDiff)),
    };
    const header = ['metric', 'pairs', 'ReflectEval CPU s', 'reference CPU s', 'speed-up (CPU)', 'speed-up (wall)', 'identical values', 'max |Δ|'];
    const body = [...rows, total].map((r) => [
      r.metric,
      String(n),
      r.ours.cpu.toFixed(2),
      r.reference.cpu.toFixed(2),
      `${(r.reference.cpu / r.ours.cpu).toFixed(1)}×`,
      `${(r.reference.wall / r.ours.wall).toFixed(1)}×`,
      `${r.identical}/${r === total ? 3 * n : n}`,
      r.maxDiff === 0 ? '0' : r.maxDiff.toExponential(1),
    ]);
    const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
    const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`;
    console.log(line(header));
    console.log(`|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`);
    for (const b of body) console.log(line(b));
    console.log(`pairs: ${n} from data/annomi/AnnoMI-sample.csv (seed ${seed}); ReflectEval after a 1,000-pair warm-up per metric; reference: NLTK 3.8 and rouge-score-equivalent Python (/usr/bin/python3); Node ${process.version}; CPU = user + system seconds of the scoring loop`);
    if (total.maxDiff > 1e-9) {
      console.error('values differ by more than 1e-9');
      process.exitCode = 1;
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
