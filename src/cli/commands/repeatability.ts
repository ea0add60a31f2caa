/**
 * `reflect-eval repeatability`: does a judge give the same verdict twice? For judge variants run with
 * `judge --repeats K`: alpha across repeats, share of replies that change, verdict flip rate, per-candidate spread,
 * and the mean of K's correlation with the human score with a two-stage interval (docs/meta-evaluation.md).
 */
import { writeFileSync } from 'node:fs';
import { InvalidArgumentError, type Command } from 'commander';
import { renderTable } from '../../core/metaEvaluation/metaEvaluationExport';
import { repeatabilityTable, repeatabilityTablePlain } from '../../core/metaEvaluation/repeatabilityTable';
import { EXPORT_FORMATS, type ExportFormat } from '../../core/correlation/correlationExport';
import type { HumanChoice } from '../../core/correlation/correlationTable';
import { log, openDialogues, positiveInt } from '../common';
import { resolveEvaluator } from './correlate';

export function registerRepeatability(program: Command): void {
  program
    .command('repeatability <file>')
    .description('repeatability of judge variants run with `judge --repeats K`: alpha across repeats, flip rate, spread, and the mean of K\'s correlation with the humans (two-stage bootstrap)')
    .option('--evaluator <names...>', 'judge variants (ids, unique prefixes or names; default: every variant with repeats)')
    .option('--human <group>', 'experts | laypeople | all | auto', 'auto')
    .option('--threshold <t>', 'verdict threshold on the judge\'s scale (default: where the mean of K calls "coherent" as often as the humans\' majority)', (v) => {
      const n = Number(v);
      if (!Number.isFinite(n)) throw new InvalidArgumentError('must be a number');
      return n;
    })
    .option('--bootstrap [B]', 'intervals from B resamples of items (and of repeats, for the correlation); default 1000 when given without a number', positiveInt)
    .option('--seed <seed>', 'seed of the bootstrap', '1')
    .option('--format <format>', `output: ${EXPORT_FORMATS.join(' | ')}`, 'text')
    .option('-o, --out <file>', 'also write the output to this file')
    .option('--json', 'print the full result as JSON')
    .action((file: string, opts: Record<string, unknown>) => {
      if (!EXPORT_FORMATS.includes(opts.format as ExportFormat)) throw new InvalidArgumentError(`--format must be one of ${EXPORT_FORMATS.join(', ')}`);
      const { items } = openDialogues(file);
      const human = opts.human as HumanChoice;
      const evaluatorIds = (opts.evaluator as string[] | undefined)?.map((e) => resolveEvaluator(items, e, { human }));
      const bootstrap = opts.bootstrap === undefined ? undefined : { resamples: opts.bootstrap === true ? 1000 : (opts.bootstrap as number), seed: opts.seed as string };
      const table = repeatabilityTable(items, { human, ...(evaluatorIds ? { evaluatorIds } : {}), ...(opts.threshold !== undefined ? { threshold: opts.threshold as number } : {}), ...(bootstrap ? { bootstrap } : {}) });
      if (table.rows.length === 0) {
        log(`${file}: no judge variant keeps more than one reply per candidate; run \`reflect-eval judge ${file} --repeats 5\` first`);
        process.exitCode = 1;
        return;
      }
      let output = opts.json ? JSON.stringify(table, null, 2) : renderTable(repeatabilityTablePlain(table), opts.format as ExportFormat);
      if (!output.endsWith('\n')) output += '\n';
      process.stdout.write(output);
      if (opts.out) writeFileSync(opts.out as string, output);
    });
}
