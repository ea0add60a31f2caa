/**
 * `reflect-eval studies [folder]`: the studies of a folder as the VS Code side bar lists them (src/core/workspace):
 * each dialogue file with its labelling progress, and under it its generation and judge runs, label plans, reports
 * and team packets. `--json` prints the index itself.
 */
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Command } from 'commander';
import { formatStudyIndex } from '../../core/workspace/describe';
import { WorkspaceScanner } from '../../core/workspace/scan';
import { annotationSchemaProblem } from '../../core/format/labelSidecars';

export function registerStudies(program: Command): void {
  program
    .command('studies [folder]')
    .description('list the studies (*.dialogues.jsonl) under a folder with their labelling progress, generation and judge runs, label plans and reports, as the VS Code side bar shows them')
    .option('--annotator <id>', 'count this annotator\'s labels as "yours"')
    .option('--json', 'print the index as JSON')
    .action(async (folder: string | undefined, opts: { annotator?: string; json?: boolean }) => {
      const root = resolve(folder ?? '.');
      if (!existsSync(root) || !statSync(root).isDirectory()) throw new Error(`${folder}: no such folder`);
      const scanner = new WorkspaceScanner(root, { annotationCheck: async () => annotationSchemaProblem });
      const index = await scanner.scan(opts.annotator ?? null);
      process.stdout.write(opts.json ? JSON.stringify(index, null, 2) + '\n' : formatStudyIndex(index));
      if (scanner.stats.truncated) process.stderr.write(`reflect-eval: stopped listing ${root} after ${scanner.stats.files} files\n`);
    });
}
