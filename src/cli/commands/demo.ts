/**
 * `reflect-eval demo`: the main job offline on the bundled default (README's first command).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import type { Command } from 'commander';
import { importAnnoMI, parseAnnoMI } from '../../core/annomi/annomi';
import { writeTextAtomic } from '../../core/format/files';
import { formatItems } from '../../core/format/jsonl';
import { runJudge, type Judge } from '../../core/judges/judge';
import { localOnnxJudge } from '../../core/judges/localJudge';
import { loadPromptLibrary } from '../../core/judges/prompts';
import { scoreItems } from '../../core/metrics';
import { metricRuns } from '../../core/metrics/runSpec';
import type { DialogueItem } from '../../core/dialogue/types';
import { loadModel, log, positiveInt } from '../common';
import { bundledAnnoMISample, bundledPrompts } from '../paths';
import { generateStep } from './generate';

/** The demo caps candidates at 48 tokens: the tiny bundled model tends to loop, and AnnoMI reflections are short. */
const DEMO_MAX_NEW_TOKENS = 48;

async function judgeStep(items: DialogueItem[], judge: Judge, promptsDir: string[], body: string, request: string, concurrency = 1): Promise<DialogueItem[]> {
  const lib = loadPromptLibrary(...promptsDir);
  let last = 0;
  const res = await runJudge(items, judge, lib, { body, request }, {
    concurrency,
    onProgress: (p) => {
      if (p.done === p.total || p.done - last >= 10) {
        last = p.done;
        log(`judged ${p.done}/${p.total} candidates (${p.failures} without a usable score)`);
      }
    },
  });
  log(`evaluator ${res.evaluatorId}: ${res.calls} calls`);
  return res.items;
}

/** ICMI 2023's reference metrics (BLEU-4, ROUGE-L, METEOR) under their defaults, against each item's reference. */
async function scoreStep(items: DialogueItem[]): Promise<DialogueItem[]> {
  let current = items;
  for (const run of metricRuns(undefined, undefined)) {
    const res = await scoreItems(current, run.metric, run.config);
    current = res.items;
    log(`${res.evaluatorIds.join(', ')}: ${res.scored} scored, ${res.failures} without a score`);
  }
  return current;
}

export function registerDemo(program: Command): void {
  program
    .command('demo')
    .description('offline demo: import 15 AnnoMI contexts, generate greedy candidates with the bundled model, judge them with the local judge, score them with BLEU-4, ROUGE-L and METEOR')
    .option('-o, --out <file>', 'output file', 'demo/annomi-demo.dialogues.jsonl')
    .option('--sample <n>', 'contexts to import', positiveInt, 15)
    .option('--seed <seed>', 'sampling seed', '0')
    .option('--csv <file>', 'AnnoMI CSV (default: the bundled sample)')
    .action(async (opts: Record<string, unknown>) => {
      const out = resolve(opts.out as string);
      mkdirSync(dirname(out), { recursive: true });
      const csv = (opts.csv as string | undefined) ?? bundledAnnoMISample();
      const dialogues = parseAnnoMI(readFileSync(csv, 'utf8'), basename(csv));
      let items = importAnnoMI(dialogues, { sample: opts.sample as number, seed: opts.seed as string, sourceFile: basename(csv) });
      log(`imported ${items.length} AnnoMI reflection contexts from ${csv}`);
      // One model serves as generator and as local judge.
      const model = await loadModel(undefined);
      try {
        items = await generateStep(items, model, DEMO_MAX_NEW_TOKENS);
        items = await judgeStep(items, localOnnxJudge(model), [bundledPrompts()], 'instructions', 'rating');
      } finally {
        await model.dispose();
      }
      items = await scoreStep(items);
      writeTextAtomic(out, formatItems(items));
      log(`wrote ${out}: ${items.length} items, ${items.reduce((n, it) => n + it.candidates.length, 0)} candidates. Open it in VS Code with ReflectEval.`);
    });
}
