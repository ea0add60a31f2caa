/**
 * `reflect-eval import annotations` and `reflect-eval export annotations`: long annotation tables in the layout
 * of the Wu et al. ACL 2023 release (docs/annotations.md).
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { exportAnnotationTable } from '../../core/datasets/annotationExport';
import { importAnnotationTable, type AnnotationImportOptions } from '../../core/datasets/annotationImport';
import { DEFAULT_EXPERT_PREFIX, DEFAULT_HUMAN_SOURCES } from '../../core/datasets/annotationColumns';
import { assertWritable, writeTextAtomic } from '../../core/format/files';
import type { DialogueItem } from '../../core/dialogue/types';
import { runPlanOnFile } from '../../core/jobs/file';
import { annotationTableLines, tableWarning } from '../../core/jobs/importData';
import { validatePlan } from '../../core/jobs/plans';
import { log, openDialogues } from '../common';
import { cliHost, printReport } from '../host';

/** Commander collector for a repeatable, comma-separated list option. */
function list(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), ...value.split(',').map((s) => s.trim()).filter(Boolean)];
}

/** Adds the options that say how a table is read (shared by `import annotations` and `agreement <table.csv>`). */
export function tableReadingOptions(cmd: Command): Command {
  return cmd
    .option('--expert-prefix <prefix>', 'annotator names starting with this (any case) are experts, the others laypeople (in a dialogue file, for annotations without a group)', DEFAULT_EXPERT_PREFIX)
    .option('--reference', `make each context's human response its reference (human sources: ${DEFAULT_HUMAN_SOURCES.join(', ')})`)
    .option('--reference-source <names>', 'reflection_source values that mean a human response (comma-separated, repeatable; implies --reference)', list);
}

/** Import options from the command line. */
export function tableReadingSettings(opts: Record<string, unknown>, file: string): AnnotationImportOptions {
  const sources = opts.referenceSource as string[] | undefined;
  return {
    file: basename(file),
    expertPrefix: opts.expertPrefix as string,
    reference: Boolean(opts.reference) || Boolean(sources?.length),
    ...(sources?.length ? { humanSources: sources } : {}),
  };
}

/** Reads an annotation table from disk, reporting its warnings and what it read on stderr (the import job's lines). */
export function readAnnotationTable(csv: string, options: AnnotationImportOptions): DialogueItem[] {
  const file = options.file ?? basename(csv);
  const result = importAnnotationTable(readFileSync(csv, 'utf8'), options);
  for (const w of result.warnings) log(tableWarning(file, w));
  for (const line of annotationTableLines(result, csv)) log(line);
  return result.items;
}

/** Registers `import annotations` on the `import` command returned by `registerImport`. */
export function registerAnnotationImport(imp: Command): void {
  tableReadingOptions(
    imp
      .command('annotations <csv>')
      .description('a long annotation table (one row per response × annotator, the Wu et al. ACL 2023 layout): contexts become items, responses candidates, rows annotations'),
  )
    .requiredOption('-o, --out <file>', 'output file (*.dialogues.jsonl)')
    .option('--force', 'overwrite the output file')
    .action(async (csv: string, opts: Record<string, unknown>) => {
      const out = resolve(opts.out as string);
      assertWritable(out, Boolean(opts.force));
      const { file: _name, ...options } = tableReadingSettings(opts, csv);
      const plan = validatePlan({ job: 'import', format: 'annotations', file: csv, ...options }, 'flags');
      printReport(await runPlanOnFile(plan, out, cliHost()));
    });
}

/** Registers `export` with its `annotations` subcommand; returns the `export` command so other exporters can add theirs. */
export function registerExport(program: Command): Command {
  const exp = program.command('export').description('export a dialogue file to other formats');
  exp
    .command('annotations <file>')
    .description('write the labels of a dialogue file as a long annotation table (one row per response × annotator, the Wu et al. ACL 2023 layout)')
    .requiredOption('-o, --out <csv>', 'output CSV file')
    .option('--expert-prefix <prefix>', 'write an annotator_group column only where a group differs from what this prefix says', DEFAULT_EXPERT_PREFIX)
    .option('--crlf', 'end lines with CRLF')
    .option('--force', 'overwrite the output file')
    .action((file: string, opts: Record<string, unknown>) => {
      const out = resolve(opts.out as string);
      assertWritable(out, Boolean(opts.force));
      const { items } = openDialogues(file);
      const result = exportAnnotationTable(items, { expertPrefix: opts.expertPrefix as string, eol: opts.crlf ? '\r\n' : '\n' });
      writeTextAtomic(out, result.csv);
      log(`wrote ${result.rows} rows (${result.columns.length} columns) to ${out}`);
    });
  return exp;
}
