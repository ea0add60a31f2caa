/**
 * `reflect-eval import annomi` and `reflect-eval stats annomi`.
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { Command, Option } from 'commander';
import { parseAnnoMI, selectDialogues, summariseWindowCounts, therapistLabelDistribution, windowTurnCounts, type AnnoMISelection } from '../../core/datasets/annomi';
import { assertWritable } from '../../core/format/files';
import { runPlanOnFile } from '../../core/jobs/file';
import { validatePlan } from '../../core/jobs/plans';
import { MAX_CONTEXT_TOKENS } from '../../core/templates/modelInput';
import { DEFAULT_GENERATOR, loadModelTokenizer } from '../../core/models/registry';
import type { TherapistBehaviour } from '../../core/dialogue/types';
import { log, positiveInt } from '../common';
import { bundledModels } from '../paths';
import { cliHost, printReport } from '../host';

const BEHAVIOURS = ['reflection', 'question', 'therapist_input', 'other'];

function selection(opts: Record<string, unknown>, file: string): AnnoMISelection {
  return {
    behaviour: opts.behaviour as TherapistBehaviour,
    quality: opts.quality as 'high' | 'low' | 'all',
    topic: opts.topic as string | undefined,
    sample: opts.sample as number | undefined,
    seed: opts.seed as string,
    onePerDialogue: opts.onePerDialogue as boolean,
    referenceAsCandidate: opts.referenceCandidate as boolean,
    sourceFile: basename(file),
  };
}

function annomiOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--behaviour <label>', 'therapist behaviour of the target utterances').choices(BEHAVIOURS).default('reflection'))
    .addOption(new Option('--quality <q>', 'MI quality of the dialogues').choices(['high', 'low', 'all']).default('high'))
    .option('--topic <text>', 'keep dialogues whose topic contains this text');
}

/** Registers `import annomi`; returns the `import` command so other importers can add theirs. */
export function registerImport(program: Command): Command {
  const imp = program.command('import').description('import dialogues into a *.dialogues.jsonl file');
  annomiOptions(
    imp
      .command('annomi <csv>')
      .description('AnnoMI (Wu et al., ICASSP 2022): every therapist utterance of a behaviour becomes an item whose context is all preceding turns'),
  )
    .option('--sample <n>', 'sample N items with a seed', positiveInt)
    .option('--seed <seed>', 'seed of the sampler', '0')
    .option('--no-one-per-dialogue', 'allow several sampled items from one dialogue')
    .option('--no-reference-candidate', 'do not add the reference as a human candidate')
    .requiredOption('-o, --out <file>', 'output file (*.dialogues.jsonl)')
    .option('--force', 'overwrite the output file')
    .action(async (csv: string, opts: Record<string, unknown>) => {
      const out = resolve(opts.out as string);
      assertWritable(out, Boolean(opts.force));
      const { sourceFile: _name, ...chosen } = selection(opts, csv);
      const plan = validatePlan({ job: 'import', format: 'annomi', file: csv, ...chosen }, 'flags');
      printReport(await runPlanOnFile(plan, out, cliHost()));
    });
  return imp;
}

/** Registers `stats annomi`. */
export function registerStats(program: Command): void {
  const stats = program.command('stats').description('dataset statistics');
  annomiOptions(stats.command('annomi <csv>').description('therapist-label distribution of the selected dialogues (GEM 2022 Table 2) and turns per model input window (footnote 5)'))
    .option('--model <ref>', 'tokenizer of this generator: a folder, a hub id or bundled:<name> (default: the bundled model)')
    .option('--max-context-tokens <n>', 'window size in tokens', positiveInt, MAX_CONTEXT_TOKENS)
    .option('--json', 'print JSON')
    .action(async (csv: string, opts: Record<string, unknown>) => {
      const dialogues = selectDialogues(parseAnnoMI(readFileSync(csv, 'utf8'), basename(csv)), selection(opts, csv));
      const dist = therapistLabelDistribution(dialogues);
      const ref = (opts.model as string | undefined) ?? DEFAULT_GENERATOR;
      const tokenizer = await loadModelTokenizer(ref, { bundledDir: bundledModels(), baseDir: process.cwd(), hub: { log } });
      const max = opts.maxContextTokens as number;
      const measured = windowTurnCounts(dialogues, tokenizer, max);
      const all = summariseWindowCounts(measured, 'any');
      const target = summariseWindowCounts(measured, opts.behaviour as TherapistBehaviour);
      if (opts.json) {
        process.stdout.write(JSON.stringify({ labels: dist, window: { maxContextTokens: max, allTherapistTurns: all, [String(opts.behaviour)]: target } }, null, 2) + '\n');
        return;
      }
      const lines = [`${dist.dialogues} dialogues (quality: ${opts.quality}${opts.topic ? `, topic: ${opts.topic}` : ''}), ${dist.therapistUtterances} therapist utterances`, '', 'label             count  share'];
      for (const [label, count] of Object.entries(dist.counts).sort((a, b) => b[1] - a[1])) {
        lines.push(`${label.padEnd(16)} ${String(count).padStart(6)}  ${(dist.proportions[label] * 100).toFixed(1).padStart(5)}%`);
      }
      lines.push('', `turns in a ${max}-token window (tokenizer: ${(opts.model as string | undefined) ?? 'bundled reflect-gpt2-tiny'})`);
      lines.push(`  all therapist turns (${all.examples}): mean ${all.meanTurns.toFixed(2)}, median ${all.medianTurns}, whole context fits ${(all.untruncatedShare * 100).toFixed(1)}%`);
      lines.push(`  ${opts.behaviour} targets (${target.examples}): mean ${target.meanTurns.toFixed(2)}, median ${target.medianTurns}, whole context fits ${(target.untruncatedShare * 100).toFixed(1)}%`);
      process.stdout.write(lines.join('\n') + '\n');
    });
}
