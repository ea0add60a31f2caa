/**
 * Helpers shared by the `reflect-eval` subcommands (src/cli/commands/*.ts).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { EXECUTION_PROVIDERS, type ExecutionProvider, type LocalRuntimeOptions } from '../core/models/ortRuntime';
import type { DialogueDocument } from '../core/format/jsonl';
import { readStudy, studyProblemMessages } from '../core/format/studyFiles';
import type { DialogueItem } from '../core/dialogue/types';
import { resolve } from 'node:path';
import { HUMAN_SCORE_RULES, humanScoreSpec, type HumanScoreRule } from '../core/rubric/labelValues';
import { MI_RUBRIC } from '../core/rubric/presets';
import type { Rubric } from '../core/rubric/rubric';
import { loadRubric } from '../core/rubric/rubricFile';

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

/**
 * Reads a study — the dialogue file and its labels in sidecar files, if it keeps them there — and reports its
 * problems (each line kept as is) on stderr. `doc` is the dialogue file alone; `items` are what every analysis reads.
 */
export function openDialogues(path: string): { doc: DialogueDocument; items: DialogueItem[] } {
  const study = readStudy(path);
  for (const m of studyProblemMessages(study)) log(m);
  return { doc: study.doc, items: study.items };
}

/** Adds `--threads`, `--execution-provider` and `--spinning` (how local models run) to a command. */
export function withRuntimeOptions(cmd: Command): Command {
  return cmd
    .option('--threads <n>', "threads inside one onnxruntime operator for local models (intraOpNumThreads; default onnxruntime's: one per core)", positiveInt)
    .addOption(new Option('--execution-provider <name>', 'onnxruntime execution provider for local models (default cpu)').choices([...EXECUTION_PROVIDERS]))
    .addOption(new Option('--spinning <on|off>', "let onnxruntime's threads spin-wait for work (default off; faster on an idle machine at real model sizes)").choices(['on', 'off']));
}

/** The plan's `runtime` with the flags of {@link withRuntimeOptions} laid over it (undefined when neither sets anything). */
export function runtimeFromFlags(opts: Record<string, unknown>, planRuntime?: LocalRuntimeOptions): LocalRuntimeOptions | undefined {
  const runtime: LocalRuntimeOptions = {
    ...planRuntime,
    ...(opts.threads !== undefined ? { threads: opts.threads as number } : {}),
    ...(opts.executionProvider !== undefined ? { executionProvider: opts.executionProvider as ExecutionProvider } : {}),
    ...(opts.spinning !== undefined ? { spinning: opts.spinning === 'on' } : {}),
  };
  return Object.keys(runtime).length ? runtime : undefined;
}

/** Adds `--dimension <name>` and `--human-score <rule>` (which rubric dimension an analysis takes, and how). */
export function withDimensionOptions(cmd: Command): Command {
  return cmd
    .option('--dimension <name>', "the rubric dimension the human score is taken on, its name exactly (default: the rubric's primary, coherent in the MI preset)")
    .addOption(new Option('--human-score <rule>', "how the annotators' labels on it become one score: mean | median (ordinal and numeric; default mean) | count | majority (binary; default count)").choices([...HUMAN_SCORE_RULES]));
}

/**
 * The study's rubric (its `*.rubric.json`, else the MI preset; an annotation table is always the MI preset) with the
 * dimension and rule the flags of {@link withDimensionOptions} name, checked before any work.
 *
 * @throws Error when the dimension is not a binary, ordinal or numeric dimension of the rubric, or the rule does not fit it
 */
export function dimensionFromFlags(file: string, opts: Record<string, unknown>): { rubric: Rubric; dimension?: string; humanScore?: HumanScoreRule } {
  const rubric = /\.(csv|tsv)$/i.test(file) ? MI_RUBRIC : loadRubric(resolve(file)).rubric;
  const dimension = opts.dimension as string | undefined;
  const humanScore = opts.humanScore as HumanScoreRule | undefined;
  humanScoreSpec(rubric, dimension, humanScore);
  return { rubric, ...(dimension !== undefined ? { dimension } : {}), ...(humanScore !== undefined ? { humanScore } : {}) };
}

/** A commander argument parser that accepts one of `values` (`--method spearman`). */
export function oneOf<T extends string>(values: readonly T[]): (v: string) => T {
  return (v) => {
    if (!values.includes(v as T)) throw new InvalidArgumentError(`must be one of ${values.join(', ')}`);
    return v as T;
  };
}

/** A commander argument parser for a number in the open interval (0, 1) (`--level 0.95`). */
export function unitInterval(v: string): number {
  const n = Number(v);
  if (!(n > 0 && n < 1)) throw new InvalidArgumentError('must be in (0, 1)');
  return n;
}
