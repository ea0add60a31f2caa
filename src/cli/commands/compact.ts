/**
 * `reflect-eval compact <file>`: a dialogue file's evaluators described once in a header line and every score written
 * as little more than its value, so a study of real size fits in VS Code's 50 MB (src/core/format/compact.ts;
 * docs/format.md, "Compact files"). `--expand` turns a compact file back into the long form.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { compactDocument, expandDocument } from '../../core/format/compact';
import { readDialogueFile, writeTextAtomic } from '../../core/format/files';
import { VSCODE_EXTENSION_FILE_LIMIT } from '../../core/format/split';

const MB = 1024 * 1024;

export function registerCompact(program: Command): void {
  program
    .command('compact <file>')
    .description('describe the evaluators once in a header line and write each score as its value (a full study fits VS Code\'s 50 MB); drops each score\'s own time and the raw reply of parsed scores (the reply cache keeps them) unless told to keep them; --expand writes the long form back')
    .option('-o, --out <file>', 'write here instead of in place')
    .option('--keep-raw', 'keep the raw reply of scores that parsed')
    .option('--keep-times', 'keep each score\'s own time (default: each evaluator keeps the time of its latest score)')
    .option('--expand', 'the other way: remove the header and write every score in the long form')
    .action((file: string, opts: { out?: string; keepRaw?: boolean; keepTimes?: boolean; expand?: boolean }) => {
      const path = resolve(file);
      if (!existsSync(path) || !statSync(path).isFile()) throw new Error(`${file}: no such file`);
      const doc = readDialogueFile(path);
      const before = doc.bytes?.length ?? 0;
      const result = opts.expand ? expandDocument(doc) : compactDocument(doc, { keepRaw: opts.keepRaw, keepTimes: opts.keepTimes });
      const out = resolve(opts.out ?? path);
      writeTextAtomic(out, result.bytes);
      const mb = (n: number) => `${(n / MB).toFixed(1)} MB`;
      const size = `${mb(before)} → ${mb(result.bytes.length)}`;
      if (opts.expand) process.stdout.write(`${out}: long form, ${result.longScores} scores; ${size}\n`);
      else {
        process.stdout.write(`${out}: ${result.evaluators} evaluators in the header; ${result.compactScores} scores compact, ${result.longScores} in the long form; ${size}\n`);
        if (result.rawDropped || result.timesDropped) process.stdout.write(`dropped: ${result.rawDropped} raw replies of parsed scores (the reply cache keeps them; --keep-raw keeps them here), ${result.timesDropped} scores' own times (--keep-times)\n`);
      }
      if (doc.problems.length) process.stdout.write(`${doc.problems.length} problem line(s) kept as they are (the first: line ${doc.problems[0].line}: ${doc.problems[0].message})\n`);
      if (result.bytes.length > VSCODE_EXTENSION_FILE_LIMIT) process.stdout.write(`still over VS Code's 50 MB: split it for the editor (reflect-eval split ${JSON.stringify(opts.out ?? file)} --max-mb 45); the CLI reads it whole\n`);
    });
}
