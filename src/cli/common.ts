/**
 * Helpers shared by the `reflect-eval` subcommands (src/cli/commands/*.ts).
 */
import { InvalidArgumentError } from 'commander';
import { readDialogueFile } from '../core/format/files';
import { documentItems, type DialogueDocument } from '../core/format/jsonl';
import { problemLineMessages } from '../core/format/lineReport';
import type { DialogueItem } from '../core/dialogue/types';

/** Commander parser for a positive integer option. */
export function positiveInt(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

/** Progress and diagnostics go to stderr, so stdout carries only results. */
export function log(msg: string): void {
  process.stderr.write(msg + '\n');
}

/** Reads a dialogue file and reports its problems (each line kept as is) on stderr. */
export function openDialogues(path: string): { doc: DialogueDocument; items: DialogueItem[] } {
  const doc = readDialogueFile(path);
  for (const m of problemLineMessages(doc)) log(m);
  return { doc, items: documentItems(doc) };
}
