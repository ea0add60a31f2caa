/**
 * `reflect-eval dedup`: semantic deduplication of every item's candidates (first study §4.2.1).
 */
import { resolve } from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { SEMANTIC_DEDUP_DEFAULTS, clusterCandidates, semanticDedupConfig } from '../../core/dedup/semanticDedup';
import { writeItemsBack } from '../../core/format/files';
import type { EncoderDtype } from '../../core/models/encoder';
import { SentenceEmbedder } from '../../core/models/sentenceEmbedding';
import { log, openDialogues } from '../common';

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
    .option('-o, --out <file>', 'write here instead of updating the file in place')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const config = semanticDedupConfig({
        model: opts.model as string,
        threshold: opts.threshold as number,
        sample: opts.sample as number,
        seed: opts.seed as number,
        include: opts.include as 'generated' | 'all',
      });
      const { doc, items } = openDialogues(file);
      log(`loading sentence-embedding model ${config.model}`);
      const embedder = await SentenceEmbedder.load(config.model, { dtype: opts.dtype as EncoderDtype });
      try {
        const res = await clusterCandidates(items, embedder, config, { onProgress: (done, total) => log(`clustered ${done}/${total} items`) });
        const n = writeItemsBack(doc, res.items, resolve((opts.out as string | undefined) ?? file));
        log(`updated ${n} items; signature ${res.signature}`);
        if (opts.json) {
          process.stdout.write(JSON.stringify({ signature: res.signature, meanSampledClusterSize: res.meanSampledClusterSize, items: res.perItem }, null, 2) + '\n');
          return;
        }
        const rows = [['item', 'candidates', 'clusters', 'sampled', 'sampled sizes'], ...res.perItem.map((p) => [p.itemId, String(p.candidates), String(p.clusters), String(p.sampled), p.sampledSizes.join(' ')])];
        const widths = rows[0].map((_, k) => Math.max(...rows.map((r) => r[k].length)));
        for (const r of rows) process.stdout.write(r.map((c, k) => c.padEnd(widths[k])).join('  ').trimEnd() + '\n');
        const m = res.meanSampledClusterSize;
        process.stdout.write(`mean size of a sampled cluster: ${Number.isNaN(m) ? '—' : m.toFixed(2)}\n`);
      } finally {
        await embedder.dispose();
      }
    });
}
