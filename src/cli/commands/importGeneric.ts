/**
 * `reflect-eval import generic <file> --mapping mapping.json -o out.dialogues.jsonl`: any CSV or JSONL dataset
 * through a column mapping (docs/importing.md); `--preview N` prints the first items, `--guess` a mapping guessed
 * from the file's columns.
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { assertWritable } from '../../core/format/files';
import { guessDatasetMapping, MAPPING_PRESETS, previewItems } from '../../core/datasets';
import { writeCreatedFile } from '../../core/jobs/file';
import type { ImportPlan } from '../../core/jobs/importData';
import { JOBS, validatePlan } from '../../core/jobs/plans';
import { log, positiveInt } from '../common';
import { cliHost, printReport } from '../host';

/** The mapping part of a generic import plan from `--mapping` (a JSON file, or inline JSON) or `--preset`. */
function mappingFrom(opts: Record<string, unknown>): { mapping: unknown } | { preset: string } {
  if (opts.mapping && opts.preset) throw new Error('give either --mapping or --preset, not both');
  if (opts.preset) {
    if (!Object.hasOwn(MAPPING_PRESETS, opts.preset as string)) throw new Error(`unknown preset ${JSON.stringify(opts.preset)}; presets: ${Object.keys(MAPPING_PRESETS).join(', ')}`);
    return { preset: opts.preset as string };
  }
  const m = opts.mapping as string | undefined;
  if (!m) throw new Error('give --mapping <mapping.json> (or --preset, or --guess to print a mapping guessed from the columns)');
  if (!m.trim().startsWith('{')) return { mapping: m };
  try {
    return { mapping: JSON.parse(m) };
  } catch (err) {
    throw new Error(`--mapping: not valid JSON: ${(err as Error).message}`);
  }
}

/** Registers `import generic` on the program's `import` command (added by `registerImport`). */
export function registerGenericImport(program: Command): void {
  const imp = program.commands.find((c) => c.name() === 'import');
  if (!imp) throw new Error('registerGenericImport: register the import command first');
  imp
    .command('generic <file>')
    .description('any CSV or JSONL dataset through a column mapping: context (JSON list or speaker/text rows), response, source, reference, labels (long or wide); docs/importing.md')
    .option('--mapping <file|json>', 'the mapping (a JSON file, or inline JSON)')
    .option('--preset <name>', `a ready-made mapping: ${Object.keys(MAPPING_PRESETS).join(', ')}`)
    .option('--reference', 'make each context\'s human-written response its reference (sets reference.fromHumanResponse)')
    .option('--guess', 'print a mapping guessed from the file\'s columns (edit it, then pass it with --mapping)')
    .option('--preview [N]', 'print the first N items (default 3)', positiveInt)
    .option('-o, --out <file>', 'output file (*.dialogues.jsonl)')
    .option('--force', 'overwrite the output file')
    .action(async (file: string, opts: Record<string, unknown>) => {
      if (opts.guess) {
        // Only the mapping goes to stdout (so it can be redirected into a file); what the guess saw goes to stderr.
        const guessed = guessDatasetMapping(readFileSync(file, 'utf8'), basename(file));
        for (const n of guessed.notes) log(`guess: ${n}`);
        process.stdout.write(JSON.stringify(guessed.mapping, null, 2) + '\n');
        return;
      }
      if (!opts.out && opts.preview === undefined) throw new Error('give -o <out.dialogues.jsonl>, or --preview to only look at the first items');
      const out = opts.out ? resolve(opts.out as string) : undefined;
      if (out) assertWritable(out, Boolean(opts.force));
      const plan = validatePlan({ job: 'import', format: 'generic', file, ...mappingFrom(opts), ...(opts.reference ? { reference: true } : {}) }, 'flags');
      // The job reads the dataset; the preview looks at its items before they are written.
      const made = await JOBS.import.run(plan as ImportPlan, cliHost());
      if (opts.preview !== undefined) process.stdout.write(previewItems(made.items, opts.preview === true ? 3 : (opts.preview as number), 120, made.rubric ?? null) + '\n');
      printReport(out ? writeCreatedFile(made, out) : made.report);
    });
}
