/**
 * `reflect-eval score`: reference metrics (BLEU-4, sacreBLEU, ROUGE-L, METEOR and whatever else is registered)
 * on every candidate of a dialogue file, one score per metric output under `metric:<name>.<output>@<signature>`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { writeItemsBack } from '../../core/format/files';
import { listMetrics, scoreItems } from '../../core/metrics';
import { DEFAULT_METRICS, itemsLackingReference, metricRuns } from '../../core/metrics/runSpec';
import { log, openDialogues } from '../common';

/** `--config`: inline JSON (starts with `{`) or the path of a JSON file. */
function readConfig(arg: string): { value: unknown; source: string } {
  const inline = arg.trimStart().startsWith('{');
  const source = inline ? '--config' : resolve(arg);
  if (!inline && !existsSync(source)) throw new Error(`--config ${arg}: no such file (give inline JSON starting with "{" or a JSON file)`);
  try {
    return { value: JSON.parse(inline ? arg : readFileSync(source, 'utf8')), source };
  } catch (err) {
    throw new Error(`${source}: not valid JSON: ${(err as Error).message}`);
  }
}

export function registerScore(program: Command): void {
  program
    .command('score [file]')
    .description(`score every candidate with reference metrics (default: ${DEFAULT_METRICS.join(', ')}); see docs/metrics.md`)
    .option('--metric <names...>', 'metrics to run (see --list)')
    .option('--config <json|file>', 'configurations: {"bleu4": {"smoothing": "method1"}, "meteor": [{"mode": "tokens"}, {"mode": "string"}]}, or one metric\'s fields when one --metric is given')
    .option('--force', 'score again candidates that already have these scores')
    .option('--list', 'list the registered metrics and their default signatures, then exit')
    .option('-o, --out <file>', 'write here instead of updating the file in place')
    .action(async (file: string | undefined, opts: Record<string, unknown>) => {
      if (opts.list) {
        for (const m of listMetrics()) process.stdout.write(`${m.name}\t${m.card.title}\t${m.outputs.map((o) => o.name).join(',')}\t${m.signature(m.configure({}))}\n`);
        return;
      }
      if (!file) throw new Error('score: give a dialogue file (or --list)');
      const config = opts.config ? readConfig(opts.config as string) : undefined;
      const runs = metricRuns(opts.metric as string[] | undefined, config?.value, config?.source);
      const { doc, items } = openDialogues(file);
      let current = items;
      for (const run of runs) {
        let last = 0;
        const res = await scoreItems(current, run.metric, run.config, {
          force: Boolean(opts.force),
          onProgress: (done, total) => {
            if (done === total || done - last >= 500) {
              last = done;
              log(`${run.metric.name}: ${done}/${total} candidates`);
            }
          },
        });
        current = res.items;
        for (const id of res.evaluatorIds) {
          const values = current.flatMap((it) => it.candidates.map((c) => c.scores[id])).filter((s) => s?.status === 'ok').map((s) => s.value as number);
          const mean = values.length ? values.reduce((a, b) => a + b, 0) / values.length : NaN;
          log(`${id}: ${res.scored} scored, ${res.skipped} already scored, ${res.failures} without a score; mean ${values.length ? mean.toPrecision(4) : '-'} over ${values.length}`);
        }
      }
      const noReference = itemsLackingReference(current, runs);
      if (noReference > 0) {
        log(`${noReference} of ${current.length} items have no reference, so reference-based metrics left their candidates unscored; for an annotation table, import it with --reference (the human response becomes the reference)`);
      }
      const out = resolve((opts.out as string | undefined) ?? file);
      const n = writeItemsBack(doc, current, out);
      log(`updated ${n} items in ${out}`);
    });
}
