/**
 * Fuzzes dialogue files (issue 14): corrupts lines of real dialogue files in many ways and checks that every line
 * not changed by a job comes back byte for byte (test/fuzz/dialogueFuzzer.ts says exactly what is run and checked).
 *
 *   npx tsx scripts/fuzz/dialogues.ts --count 10000 --seed 1 [--start 0] [--slow-every 500]
 *
 * `--slow-every N` also runs `generate` and `judge` with the bundled model every N files (0: never). Exits 1 if a
 * guarantee broke; the files of failing cases are kept and listed, and `--start <case> --count 1` replays one.
 */
import { Command, InvalidArgumentError } from 'commander';
import { describeStats, fuzzDialogues } from '../../test/fuzz/dialogueFuzzer';

const nonNegative = (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be a non-negative integer');
  return n;
};

const opts = new Command('fuzz-dialogues')
  .option('--count <n>', 'corrupted files to try', nonNegative, 1000)
  .option('--seed <seed>', 'seed', '1')
  .option('--start <n>', 'index of the first file (replay one with --count 1)', nonNegative, 0)
  .option('--slow-every <n>', 'run generate and judge (bundled model) every N files; 0: never', nonNegative, 500)
  .parse()
  .opts<{ count: number; seed: string; start: number; slowEvery: number }>();

async function main(): Promise<void> {
  const began = Date.now();
  const stats = await fuzzDialogues({
    count: opts.count,
    seed: opts.seed,
    start: opts.start,
    slowEvery: opts.slowEvery,
    onProgress: (done, s) => {
      if (done % 500 === 0 || done === opts.count) process.stderr.write(`${done}/${opts.count} files, ${s.corruptions} corruptions, lines lost ${s.linesLost}, failures ${s.failures.length} (${((Date.now() - began) / 1000).toFixed(0)} s)\n`);
    },
  });
  process.stdout.write(`seed ${opts.seed}, files ${opts.start}–${opts.start + opts.count - 1}, ${((Date.now() - began) / 1000).toFixed(1)} s\n${describeStats(stats)}\n`);
  for (const f of stats.failures.slice(0, 20)) process.stdout.write(`case ${f.case} ${f.step}: ${f.message}\n  input: ${f.input}\n`);
  if (stats.failures.length) process.exitCode = 1;
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exitCode = 1;
});
