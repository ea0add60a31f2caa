/**
 * `reflect-eval perplexity`: perplexity of local models on reference responses given their contexts (GEM 2022
 * §3.3, Table 3), from a dialogue file or an AnnoMI CSV.
 */
import { readFileSync } from 'node:fs';
import { basename, extname } from 'node:path';
import cliProgress from 'cli-progress';
import { Option, type Command } from 'commander';
import { importAnnoMI, parseAnnoMI } from '../../core/annomi/annomi';
import { DEFAULT_GENERATOR as DEFAULT_LOCAL_MODEL, loadGenerativeModel } from '../../core/models/registry';
import { MAX_CONTEXT_TOKENS } from '../../core/generation/modelInput';
import { perplexity, perplexityExamples, type PerplexityResult } from '../../core/generation/perplexity';
import type { DialogueItem, TherapistBehaviour } from '../../core/dialogue/types';
import { log, openDialogues, positiveInt } from '../common';
import { bundledModels } from '../paths';

/** Items of an AnnoMI CSV (every utterance of the behaviour, no sampling) or of a dialogue file. */
function readItems(file: string, opts: Record<string, unknown>): DialogueItem[] {
  if (extname(file).toLowerCase() !== '.csv') return openDialogues(file).items;
  const dialogues = parseAnnoMI(readFileSync(file, 'utf8'), basename(file));
  const items = importAnnoMI(dialogues, { behaviour: opts.behaviour as TherapistBehaviour, quality: opts.quality as 'high' | 'low' | 'all', sourceFile: basename(file) });
  const only = opts.transcripts ? new Set(String(opts.transcripts).split(',').map((t) => t.trim())) : undefined;
  return only ? items.filter((it) => only.has(String(it.provenance?.transcriptId))) : items;
}

export function registerPerplexity(program: Command): void {
  program
    .command('perplexity <file>')
    .description('perplexity of local models on the reference responses of a dialogue file or an AnnoMI CSV (exp of the mean token NLL, natural log; see docs/generation.md)')
    .option('--model <ref...>', 'model folder(s), hub id(s) or bundled:<name>', [DEFAULT_LOCAL_MODEL])
    .addOption(new Option('--behaviour <label>', 'response type scored (and its control code)').choices(['reflection', 'question', 'therapist_input', 'other']).default('reflection'))
    .addOption(new Option('--quality <q>', 'AnnoMI CSV: MI quality of the dialogues').choices(['high', 'low', 'all']).default('high'))
    .option('--transcripts <ids>', 'AnnoMI CSV: only these transcript ids (comma-separated)')
    .option('--max-context-tokens <n>', 'context window in tokens', positiveInt, MAX_CONTEXT_TOKENS)
    .option('--no-eos', 'do not score the EOS token after each response')
    .option('--input-special-tokens', "wrap the input in the tokenizer's special tokens (BART: <s> … </s>), for models fine-tuned that way")
    .option('--json', 'print JSON')
    .action(async (file: string, opts: Record<string, unknown>) => {
      const examples = perplexityExamples(readItems(file, opts), opts.behaviour as TherapistBehaviour);
      if (examples.length === 0) throw new Error(`${file}: no item with a ${opts.behaviour} reference to score`);
      log(`${examples.length} reference ${opts.behaviour}s from ${file}`);
      const results: (Omit<PerplexityResult, 'perResponse'> & { seconds: number })[] = [];
      for (const ref of opts.model as string[]) {
        log(`loading ${ref}`);
        const model = await loadGenerativeModel(ref, { bundledDir: bundledModels(), baseDir: process.cwd() });
        const bar = new cliProgress.SingleBar({ format: `${ref} [{bar}] {value}/{total} responses`, stream: process.stderr, noTTYOutput: true, notTTYSchedule: 10_000 }, cliProgress.Presets.shades_classic);
        bar.start(examples.length, 0);
        try {
          const t0 = performance.now();
          const { perResponse: _each, ...r } = await perplexity(model, examples, {
            maxContextTokens: opts.maxContextTokens as number,
            includeEos: opts.eos as boolean,
            inputSpecialTokens: Boolean(opts.inputSpecialTokens),
            behaviour: opts.behaviour as TherapistBehaviour,
            onProgress: (done) => bar.update(done),
          });
          results.push({ ...r, seconds: (performance.now() - t0) / 1000 });
        } finally {
          bar.stop();
          await model.dispose();
        }
      }
      if (opts.json) {
        process.stdout.write(JSON.stringify(results, null, 2) + '\n');
        return;
      }
      const rows = [['model', 'perplexity', 'mean NLL (nats)', 'tokens', 'responses', 'seconds'], ...results.map((r) => [r.model, r.perplexity.toFixed(3), r.meanNll.toFixed(4), String(r.tokens), String(r.responses), r.seconds.toFixed(1)])];
      const widths = rows[0].map((_, c) => Math.max(...rows.map((row) => row[c].length)));
      for (const row of rows) process.stdout.write(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]) : cell.padStart(widths[c]))).join('  ') + '\n');
      for (const r of results) process.stdout.write(`${r.signature}\n`);
    });
}
