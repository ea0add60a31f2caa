/**
 * `npm run coverage`: the coverage study of every interval and test ReflectEval prints (docs/meta-evaluation.md,
 * "Coverage"). Seeded and deterministic: the same command gives the same table on any machine.
 *
 *   npx tsx scripts/coverage/run.ts [--workers 2] [--scale 1] [--only <id substring>] [--no-docs] [--cached [--write]]
 *
 * Truths are computed once per cell (cached in scripts/coverage/truth.json, keyed by the cell's design), the
 * simulations run in chunks on at most two worker threads, and the results are written to
 * scripts/coverage/results.json and, between the markers `<!-- coverage:begin -->` and `<!-- coverage:end -->`, to
 * docs/meta-evaluation.md.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { cpus } from 'node:os';
import { mergeTallies, scenarioTruth, STUDY_DEFAULTS, type Tallies, type Truth } from './study';
import { scenarios, type Scenario } from './scenarios';
import { measuredCoverageSource, renderReport } from './report';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const workers = Math.max(1, Math.min(2, Number(arg('workers') ?? Math.min(2, cpus().length))));
const scale = Number(arg('scale') ?? 1);
const only = arg('only');
const writeDocs = !process.argv.includes('--no-docs');
/** --cached: report what the finished chunks hold, run nothing (a look at a run in progress). */
const cachedOnly = process.argv.includes('--cached');
const resultsPath = arg('out') ?? join(here, 'results.json');

const truthPath = join(here, 'truth.json');
const cache: Record<string, { design: string; truth: Truth }> = existsSync(truthPath) ? JSON.parse(readFileSync(truthPath, 'utf8')) : {};

function truthOf(s: Scenario): Truth {
  const key = JSON.stringify(s.design) + (s.epsilon ?? '');
  const hit = cache[s.id];
  if (hit && hit.design === key) return hit.truth;
  const started = Date.now();
  const truth = scenarioTruth(s);
  process.stderr.write(`truth of ${s.id}: ${JSON.stringify(truth)} (${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  cache[s.id] = { design: key, truth };
  writeFileSync(truthPath, JSON.stringify(cache, null, 1) + '\n');
  return truth;
}

/**
 * Finished chunks are kept (outside the repository) so an interrupted run resumes where it stopped: a chunk is a pure
 * function of its scenario, range and settings. Bump CHUNK_VERSION when a measured method's code changes.
 */
const CHUNK_VERSION = 2;
const chunkDir = arg('chunks') ?? join(tmpdir(), 'reflect-eval-coverage');
mkdirSync(chunkDir, { recursive: true });
function chunkPath(job: { scenario: Scenario; start: number; end: number }): string {
  const key = JSON.stringify({ v: CHUNK_VERSION, id: job.scenario.id, design: job.scenario.design, plain: job.scenario.plain, epsilon: job.scenario.epsilon, start: job.start, end: job.end, settings: STUDY_DEFAULTS });
  return join(chunkDir, `${job.scenario.id}-${createHash('sha1').update(key).digest('hex').slice(0, 16)}.json`);
}

interface Job {
  scenario: Scenario;
  truth: Truth;
  start: number;
  end: number;
}

async function main(): Promise<void> {
  const cells = scenarios().filter((s) => !only || s.id.includes(only)).map((s) => ({ ...s, sims: Math.max(1, Math.round(s.sims * scale)) }));
  const truths = new Map(cells.map((s) => [s.id, truthOf(s)]));
  const jobs: Job[] = [];
  const chunk = 50;
  for (const s of cells) for (let start = 0; start < s.sims; start += chunk) jobs.push({ scenario: s, truth: truths.get(s.id) as Truth, start, end: Math.min(s.sims, start + chunk) });
  // The cells at 15 contexts (the seeds' design) first, so an interrupted run has the most useful ones.
  jobs.sort((a, b) => Number(a.scenario.design.contexts !== 15) - Number(b.scenario.design.contexts !== 15));
  const tallies = new Map<string, Tallies>(cells.map((s) => [s.id, {}]));
  const cpu = new Map<string, number>(cells.map((s) => [s.id, 0]));
  const started = Date.now();
  let done = 0;
  const pending: Job[] = [];
  for (const job of jobs) {
    const path = chunkPath(job);
    if (existsSync(path)) {
      const m = JSON.parse(readFileSync(path, 'utf8')) as { tallies: Tallies; wallMs: number };
      mergeTallies(tallies.get(job.scenario.id) as Tallies, m.tallies);
      cpu.set(job.scenario.id, (cpu.get(job.scenario.id) ?? 0) + m.wallMs);
      done++;
    } else pending.push(job);
  }
  if (done) process.stderr.write(`${done} chunks already done (${chunkDir})\n`);
  jobs.splice(0, jobs.length, ...(cachedOnly ? [] : pending));
  if (cachedOnly) for (const s of cells) s.sims = Math.min(s.sims, Object.values(tallies.get(s.id) ?? {}).reduce((n, t) => Math.max(n, t.defined + t.undefined), 0));
  done = 0;
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, () =>
      new Promise<void>((resolve, reject) => {
        const w = new Worker(join(here, 'worker.mjs'));
        const send = () => {
          if (next >= jobs.length) {
            void w.terminate().then(() => resolve());
            return;
          }
          current = jobs[next++];
          w.postMessage(current);
        };
        let current: Job | undefined;
        w.on('message', (m: { id: string; tallies: Tallies; wallMs: number }) => {
          if (current) writeFileSync(chunkPath(current), JSON.stringify(m));
          mergeTallies(tallies.get(m.id) as Tallies, m.tallies);
          cpu.set(m.id, (cpu.get(m.id) ?? 0) + m.wallMs);
          done++;
          if (done % 10 === 0 || done === jobs.length) process.stderr.write(`${done}/${jobs.length} chunks, ${((Date.now() - started) / 1000).toFixed(0)} s\n`);
          send();
        });
        w.on('error', reject);
        send();
      }),
    ),
  );
  const results = {
    generatedBy: 'scripts/coverage/run.ts',
    settings: { ...STUDY_DEFAULTS, scale, workers },
    // A --cached report runs nothing: its wall time says nothing of the study's (the chunks keep their own seconds).
    wallSeconds: cachedOnly ? null : (Date.now() - started) / 1000,
    cells: cells.map((s) => ({ id: s.id, family: s.family, label: s.label, sims: s.sims, contexts: s.design.contexts, truth: truths.get(s.id), workerSeconds: (cpu.get(s.id) ?? 0) / 1000, tallies: tallies.get(s.id) })),
  };
  writeFileSync(resultsPath, JSON.stringify(results, null, 1) + '\n');
  process.stderr.write(`wrote ${resultsPath}${results.wallSeconds === null ? ' (from cached chunks)' : ` (${results.wallSeconds.toFixed(0)} s)`}\n`);
  // --write: write the docs and the table even from a partial (--cached) run, e.g. when a run had to be cut short.
  if ((writeDocs && !only && scale === 1) || process.argv.includes('--write')) {
    const docs = join(root, 'docs', 'meta-evaluation.md');
    const text = readFileSync(docs, 'utf8');
    const begin = '<!-- coverage:begin -->';
    const end = '<!-- coverage:end -->';
    const i = text.indexOf(begin);
    const j = text.indexOf(end);
    if (i < 0 || j < i) throw new Error(`${docs} has no ${begin} … ${end} markers`);
    writeFileSync(docs, text.slice(0, i + begin.length) + '\n' + renderReport(results) + '\n' + text.slice(j));
    process.stderr.write(`updated ${docs}\n`);
    const src = join(root, 'src', 'core', 'stats', 'measuredCoverage.ts');
    const code = readFileSync(src, 'utf8');
    const a = code.indexOf('// BEGIN GENERATED');
    const b = code.indexOf('// END GENERATED');
    writeFileSync(src, code.slice(0, code.indexOf('\n', a) + 1) + measuredCoverageSource(results) + '\n' + code.slice(b));
    process.stderr.write(`updated ${src}\n`);
  } else process.stdout.write(renderReport(results) + '\n');
}

void main();
