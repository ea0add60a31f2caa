/**
 * `reflect-eval perplexity`: perplexity of local models on the reference responses of a dialogue file or an
 * AnnoMI CSV (GEM 2022 §3.3, Table 3); the core job (src/core/jobs/perplexity.ts) computes it.
 */
import { readFileSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { importAnnoMI, parseAnnoMI } from '../../core/datasets/annomi';
import type { DialogueItem, TherapistBehaviour } from '../../core/dialogue/types';
import { MAX_CONTEXT_TOKENS } from '../../core/templates/modelInput';
import { runPerplexityPlan, validatePerplexityPlan } from '../../core/jobs/perplexity';
import type { PerplexityResult } from '../../core/generation/perplexity';
import { DEFAULT_GENERATOR } from '../../core/models/registry';
import { openDialogues, positiveInt, runtimeFromFlags, withRuntimeOptions } from '../common';
import { cliHost, printReport, withInterrupt } from '../host';

/** Items of an AnnoMI CSV (every utterance of the behaviour, no sampling) or of a dialogue file. */
function readItems(file: string, opts: Record<string, unknown>): DialogueItem[] {
  if (extname(file).toLowerCase() !== '.csv') {
    return openDialogues(file).items;
  }
  const dialogues = parseAnnoMI(readFileSync(file, 'utf8'), basename(file));
  const items = importAnnoMI(dialogues, { behaviour: opts.behaviour as TherapistBehaviour, quality: opts.quality as 'high' | 'low' | 'all', sourceFile: basename(file) });
  const only = opts.transcripts ? new Set(String(opts.transcripts).split(',').map((t) => t.trim())) : undefined;
  return only ? items.filter((it) => only.has(String(it.provenance?.transcriptId))) : items;
}

export function registerPerplexity(program: Command): void {
  withRuntimeOptions(program.command('perplexity <file>'))
    .description('perplexity of local models on the reference responses of a dialogue file or an AnnoMI CSV (exp of the mean token NLL, natural log; see docs/generation.md)')
    .option('--model <ref...>', 'model folder(s), hub id(s) or bundled:<name>', [DEFAULT_GENERATOR])
    .addOption(new Option('--behaviour <label>', 'response type scored (and its control code)').choices(['reflection', 'question', 'therapist_input', 'other']).default('reflection'))
    .addOption(new Option('--quality <q>', 'AnnoMI CSV: MI quality of the dialogues').choices(['high', 'low', 'all']).default('high'))
    .option('--transcripts <ids>', 'AnnoMI CSV: only these transcript ids (comma-separated)')
    .option('--max-context-tokens <n>', 'context window in tokens', positiveInt, MAX_CONTEXT_TOKENS)
    .option('--no-eos', 'do not score the EOS token after each response')
    .option('--input-special-tokens', "wrap the input in the tokenizer's special tokens (BART: <s> … </s>), for models fine-tuned that way")
    .option('--json', 'print JSON')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const plan = validatePerplexityPlan(
        {
          models: opts.model,
          behaviour: opts.behaviour,
          maxContextTokens: opts.maxContextTokens,
          includeEos: opts.eos as boolean,
          ...(opts.inputSpecialTokens ? { inputSpecialTokens: true } : {}),
          ...(runtimeFromFlags(opts) ? { runtime: runtimeFromFlags(opts) } : {}),
        },
        'flags',
      );
      const path = resolve(file);
      const items = readItems(path, opts);
      const host = cliHost();
      const report = await withInterrupt((signal) => runPerplexityPlan(plan, { file: path, items }, { ...host, signal }));
      host.close();
      if (report.nothingDone) report.nothingDone = `${file}: ${report.nothingDone}`;
      const results = ((report.data?.results ?? []) as (Omit<PerplexityResult, 'perResponse'> & { seconds: number })[]);
      if (opts.json) process.stdout.write(JSON.stringify(results, null, 2) + '\n');
      else if (results.length) {
        const rows = [['model', 'perplexity', 'mean NLL (nats)', 'tokens', 'responses', 'seconds'], ...results.map((r) => [r.model, r.perplexity.toFixed(3), r.meanNll.toFixed(4), String(r.tokens), String(r.responses), r.seconds.toFixed(1)])];
        const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
        for (const row of rows) process.stdout.write(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ') + '\n');
        for (const r of results) process.stdout.write(`${r.signature}\n`);
      }
      printReport({ ...report, lines: [] });
    });
}
