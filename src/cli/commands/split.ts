/**
 * `reflect-eval split <file> --max-mb 45`: a dialogue file too large for VS Code (over 50 MB, which VS Code hands to
 * no extension) becomes parts the editor can open, each a run of whole lines, byte for byte (src/core/format/split.ts).
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { partFileName, splitDialogueFile, VSCODE_EXTENSION_FILE_LIMIT } from '../../core/format/split';

const MB = 1024 * 1024;

export function registerSplit(program: Command): void {
  program
    .command('split <file>')
    .description('split a dialogue file into parts of whole lines that VS Code can open (it hands files over 50 MB to no extension); `cat` the parts in order to join them again (a compact file\'s header starts every part: the command prints the join)')
    .option('--max-mb <n>', 'largest part in MB (1 MB = 1,048,576 bytes; at most 50)', '45')
    .option('-o, --out-dir <dir>', 'folder of the parts (default: beside the file)')
    .action((file: string, opts: { maxMb: string; outDir?: string }) => {
      const path = resolve(file);
      const maxMb = Number(opts.maxMb);
      if (!(maxMb > 0 && maxMb <= VSCODE_EXTENSION_FILE_LIMIT / MB)) throw new Error(`--max-mb: must be a number in (0, 50] (got ${opts.maxMb})`);
      if (!existsSync(path) || !statSync(path).isFile()) throw new Error(`${file}: no such file`);
      const { parts, header } = splitDialogueFile(readFileSync(path), Math.floor(maxMb * MB));
      const dir = resolve(opts.outDir ?? dirname(path));
      const names = parts.map((_, i) => join(dir, partFileName(basename(path), i + 1, parts.length)));
      const taken = names.filter((n) => existsSync(n));
      if (taken.length) throw new Error(`${taken[0]} exists: ReflectEval does not overwrite it (remove the old parts, or choose another --out-dir)`);
      parts.forEach((p, i) => {
        writeFileSync(names[i], p.bytes);
        process.stdout.write(`${names[i]}: lines ${p.firstLine}–${p.lastLine}, ${(p.bytes.length / MB).toFixed(1)} MB${p.oversized ? ` (one line over ${maxMb} MB: too large for VS Code on its own)` : ''}\n`);
      });
      const quoted = names.map((n) => JSON.stringify(basename(n)));
      // A compact file's header starts every part: keep it once when joining.
      const joinCommand = header ? `(cat ${quoted[0]}${quoted.slice(1).map((q) => `; tail -n +2 ${q}`).join('')})` : `cat ${quoted.join(' ')}`;
      process.stdout.write(`${parts.length} part(s)${header ? ', each starting with the file\'s header line' : ''}. Join them again in this order: ${joinCommand} > ${JSON.stringify(basename(path))}\n`);
    });
}
