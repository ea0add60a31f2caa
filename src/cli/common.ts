/**
 * Helpers shared by the `reflect-eval` subcommands (src/cli/commands/*.ts).
 */
import { InvalidArgumentError } from 'commander';
import { readDialogueFile } from '../core/format/files';
import { documentItems, type DialogueDocument } from '../core/format/jsonl';
import { BUNDLED_MODEL_ID } from '../core/judges/createJudge';
import { OnnxCausalLM } from '../core/models/causalLM';
import type { DialogueItem } from '../core/dialogue/types';
import { bundledModel } from './paths';

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
  for (const p of doc.problems) log(`${p.file}:${p.line}${p.field ? ` ${p.field}` : ''}: ${p.message} (line kept as is)`);
  return { doc, items: documentItems(doc) };
}

/** Loads `ref`, or the bundled model (named `bundled:reflect-gpt2-tiny` in outputs) when `ref` is undefined. */
export async function loadModel(ref: string | undefined): Promise<OnnxCausalLM> {
  log(`loading model ${ref ?? BUNDLED_MODEL_ID}`);
  return ref ? OnnxCausalLM.load(ref) : OnnxCausalLM.load(bundledModel(), { id: BUNDLED_MODEL_ID });
}
