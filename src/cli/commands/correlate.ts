/**
 * `reflect-eval correlate`.
 */
import type { Command } from 'commander';
import { correlationTable, formatCorrelationTable } from '../../core/analysis/correlationTable';
import { openDialogues } from '../common';

export function registerCorrelate(program: Command): void {
  program
    .command('correlate <file>')
    .description("Spearman's rho of every evaluator against the human coherence score (annotators who said coherent)")
    .option('--json', 'print JSON')
    .action((file: string, opts: Record<string, unknown>) => {
      const { items } = openDialogues(file);
      const rows = correlationTable(items);
      if (opts.json) process.stdout.write(JSON.stringify(rows, null, 2) + '\n');
      else process.stdout.write((rows.length ? formatCorrelationTable(rows) : 'no evaluator scores in this file') + '\n');
    });
}
