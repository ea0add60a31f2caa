/**
 * `reflect-eval dedup`: semantic deduplication of every item's candidates (first study §4.2.1). Flags become a
 * dedup plan run by the core job (src/core/jobs/dedup.ts).
 */
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { SEMANTIC_DEDUP_DEFAULTS } from '../../core/dedup/semanticDedup';
import { validateDedupPlan } from '../../core/jobs/dedup';
import { runPlanOnFile } from '../../core/jobs/file';
import type { ItemClustering } from '../../core/dedup/semanticDedup';
import { cliHost, printReport, withInterrupt } from '../host';

function nonNegativeNumber(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0) throw new InvalidArgumentError('must be a number ≥ 0');
  return n;
}
function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('must be an integer ≥ 0');
  return n;
}
function integer(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('must be an integer');
  return n;
}

export function registerDedup(program: Command): void {
  program
    .command('dedup <file>')
    .description('cluster each item\'s candidates by sentence embeddings (Ward, distance threshold), mark each cluster\'s representative (most tokens) and a seeded sample of k clusters per item')
    .option('--model <folderOrHubId>', 'sentence-embedding model: ONNX folder (HF/Optimum layout) or hub id', SEMANTIC_DEDUP_DEFAULTS.model)
    .option('--threshold <sigma>', 'linkage distance threshold: merges at a Ward distance below it are made', nonNegativeNumber, SEMANTIC_DEDUP_DEFAULTS.threshold)
    .option('--sample <k>', 'clusters sampled per item for annotation (0: none)', nonNegativeInt, SEMANTIC_DEDUP_DEFAULTS.sample)
    .option('--seed <n>', 'seed of the sample', integer, SEMANTIC_DEDUP_DEFAULTS.seed)
    .option('--include <which>', 'generated (not written by a person) or all candidates', SEMANTIC_DEDUP_DEFAULTS.include)
    .option('--dtype <dtype>', 'ONNX weights: fp32, fp16 or q8', 'fp32')
    .option('--json', 'print the per-item summary as JSON')
    .option('--print-plan', 'print the plan as JSON, then exit')
    .option('-o, --out <file>', 'write here instead of updating the file in place')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const plan = validateDedupPlan(
        { model: opts.model, threshold: opts.threshold, sample: opts.sample, seed: opts.seed, include: opts.include, ...(opts.dtype !== 'fp32' ? { dtype: opts.dtype } : {}) },
        'flags',
      );
      if (opts.printPlan) {
        process.stdout.write(JSON.stringify({ job: 'dedup', ...plan }, null, 2) + '\n');
        return;
      }
      const host = cliHost();
      const report = await withInterrupt((signal) =>
        runPlanOnFile({ ...plan, job: 'dedup' }, resolve(file), { ...host, signal }, { out: opts.out ? resolve(opts.out as string) : undefined }),
      );
      host.close();
      printReport(report);
      const data = report.data as { signature: string; meanSampledClusterSize: number | null; items: ItemClustering[] } | undefined;
      if (!data) return;
      if (opts.json) {
        process.stdout.write(JSON.stringify(data, null, 2) + '\n');
        return;
      }
      const rows = [['item', 'candidates', 'clusters', 'sampled', 'sampled sizes'], ...data.items.map((p) => [p.itemId, String(p.candidates), String(p.clusters), String(p.sampled), p.sampledSizes.join(' ')])];
      const widths = rows[0].map((_, k) => Math.max(...rows.map((r) => r[k].length)));
      for (const r of rows) process.stdout.write(r.map((c, k) => c.padEnd(widths[k])).join('  ').trimEnd() + '\n');
      const m = data.meanSampledClusterSize;
      process.stdout.write(`mean size of a sampled cluster: ${m === null ? '—' : m.toFixed(2)}\n`);
    });
}
