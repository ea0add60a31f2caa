/**
 * `reflect-eval agreement <file>`: the first study's agreement table and analyses (GEM 2022 §5.1–5.3) and the
 * per-group coherence scores (ICMI 2023 §2.1) of a labelled dialogue file or an annotation table.
 */
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { firstStudyAnalysis } from '../../core/analysis/firstStudy';
import { firstStudyCsv } from '../../core/analysis/firstStudyCsv';
import { formatFirstStudyAnalysis } from '../../core/analysis/firstStudyText';
import { assertWritable, writeTextAtomic } from '../../core/format/files';
import type { HumanGroup } from '../../core/labels/groups';
import { log, openDialogues, positiveInt } from '../common';
import { readAnnotationTable, tableReadingOptions, tableReadingSettings } from './annotations';

function nonNegativeInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0) throw new Error(`must be a non-negative integer, got ${v}`);
  return n;
}

/** Registers `agreement`. */
export function registerAgreement(program: Command): void {
  tableReadingOptions(
    program
      .command('agreement <file>')
      .description("Fleiss' kappa table (first study Table 4), coherence scores by group, coherence rate and most evident errors per decoding strategy; <file> is a *.dialogues.jsonl file or an annotation table (*.csv)"),
  )
    .option('--json', 'print the analysis as JSON')
    .option('--csv <out>', 'also write the analysis as a tidy CSV (table, group, row, column, value)')
    .addOption(new Option('--majority-group <group>', 'whose labels make the majority votes of §5.2–5.3').choices(['all', 'laypeople', 'experts']).default('all'))
    .option('--min-responses <n>', 'show a strategy with at least this many majority-labelled responses', nonNegativeInt, 5)
    .option('--raters <n>', 'ratings per subject for the kappas (default: the most common number)', positiveInt)
    .option('--no-propagate', "do not give cluster members their representative's labels")
    .option('--force', 'overwrite the --csv file')
    .action((file: string, opts: Record<string, unknown>) => {
      const csvOut = opts.csv ? resolve(opts.csv as string) : undefined;
      if (csvOut) assertWritable(csvOut, Boolean(opts.force));
      const items = /\.(csv|tsv)$/i.test(file) ? readAnnotationTable(file, tableReadingSettings(opts, file)) : openDialogues(file).items;
      const analysis = firstStudyAnalysis(items, {
        groupRules: { expertPrefix: opts.expertPrefix as string },
        majorityGroup: opts.majorityGroup as HumanGroup,
        minResponses: opts.minResponses as number,
        raters: opts.raters as number | undefined,
        propagateClusters: opts.propagate as boolean,
      });
      if (csvOut) {
        writeTextAtomic(csvOut, firstStudyCsv(analysis));
        log(`wrote ${csvOut}`);
      }
      process.stdout.write(opts.json ? JSON.stringify(analysis, null, 2) + '\n' : formatFirstStudyAnalysis(analysis));
    });
}
