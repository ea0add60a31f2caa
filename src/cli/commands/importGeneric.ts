/**
 * `reflect-eval import generic <file> --mapping mapping.json -o out.dialogues.jsonl`: any CSV or JSONL dataset
 * through a column mapping (docs/importing.md); `--preview N` prints the first items, `--guess` a mapping guessed
 * from the file's columns.
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { Command } from 'commander';
import { guessDatasetMapping, importDataset, MAPPING_PRESETS, previewItems, writeImportOutputs, type DatasetMapping } from '../../core/datasets';
import { log, positiveInt } from '../common';

/** The mapping of `--mapping` (a JSON file or inline JSON) or `--preset`, before validation. */
function mappingFrom(opts: Record<string, unknown>): { value: unknown; source: string } {
  if (opts.mapping && opts.preset) throw new Error('give either --mapping or --preset, not both');
  if (opts.preset) {
    const preset = MAPPING_PRESETS[opts.preset as string];
    if (!preset) throw new Error(`unknown preset ${JSON.stringify(opts.preset)}; presets: ${Object.keys(MAPPING_PRESETS).join(', ')}`);
    return { value: structuredClone(preset), source: `preset ${opts.preset as string}` };
  }
  const m = opts.mapping as string | undefined;
  if (!m) throw new Error('give --mapping <mapping.json> (or --preset, or --guess to print a mapping guessed from the columns)');
  const inline = m.trim().startsWith('{');
  const text = inline ? m : readFileSync(m, 'utf8');
  const source = inline ? '--mapping' : basename(m);
  try {
    return { value: JSON.parse(text), source };
  } catch (err) {
    throw new Error(`${source}: not valid JSON: ${(err as Error).message}`);
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
    .action((file: string, opts: Record<string, unknown>) => {
      const text = readFileSync(file, 'utf8');
      const name = basename(file);
      if (opts.guess) {
        const guessed = guessDatasetMapping(text, name);
        for (const n of guessed.notes) log(`guess: ${n}`);
        process.stdout.write(JSON.stringify(guessed.mapping, null, 2) + '\n');
        return;
      }
      if (!opts.out && opts.preview === undefined) throw new Error('give -o <out.dialogues.jsonl>, or --preview to only look at the first items');
      const out = opts.out ? resolve(opts.out as string) : undefined;
      const { value, source } = mappingFrom(opts);
      if (opts.reference && value && typeof value === 'object') (value as DatasetMapping).reference = { ...(value as DatasetMapping).reference, fromHumanResponse: true };
      const result = importDataset(text, value, { file: name, mappingSource: source });
      for (const w of result.warnings) log(`${name}:${w.line}: ${w.row !== w.line ? `row ${w.row}: ` : ''}${w.message}`);
      const candidates = result.items.reduce((s, it) => s + it.candidates.length, 0);
      const experts = result.annotators.filter((a) => a.group === 'expert').length;
      log(
        `read ${result.records} records${result.turnRows ? ` (${result.turnRows} turn rows, ${result.responseRows} response rows)` : ''}: ${result.items.length} contexts, ${candidates} responses, ` +
          `${result.annotators.length} annotators (${experts} experts, ${result.annotators.length - experts} laypeople), ${result.items.filter((i) => i.reference).length} references`,
      );
      if (result.keptColumns.length) log(`kept unmapped column(s): ${result.keptColumns.map((c) => `${c.name} (per ${c.level})`).join(', ')}`);
      if (opts.preview !== undefined) process.stdout.write(previewItems(result.items, opts.preview === true ? 3 : (opts.preview as number), 120, result.rubric) + '\n');
      if (out) {
        const written = writeImportOutputs(result, out, Boolean(opts.force));
        log(`wrote ${result.items.length} items to ${out}${written.length > 1 ? ` and the study's rubric (${result.rubric!.dimensions.length} dimensions, primary ${result.rubric!.primary}) to ${written[1]}` : ''}`);
      }
    });
}
