/**
 * The main job on the bundled default, as a list of plans (README's first command, `npm run demo`), on real expert
 * labels: import the GPT-2 stage of EvalReflections (150 reflections × 3 experts + 3 laypeople, ACL 2023; the data
 * ICMI 2023 evaluates against) with each context's human reflection as its reference; score every response with
 * ICMI 2023's reference metrics and the bundled local judge under two task bodies × the rating request (the third,
 * Instructions & Tutorial, needs ~1,000 tokens before the dialogue: more than the bundled model's 1,024 positions
 * leave room for, so it is left to judges with longer windows); generate a new greedy
 * candidate for each of the 15 contexts with the bundled model (unlabelled, to label in the editor); write a
 * Markdown report with the correlation table against the experts by source, with bootstrap intervals. Offline.
 */
import type { Pipeline } from './plans';

/** Options of {@link demoPipeline}. */
export interface DemoOptions {
  /** The dialogue file to write (relative to the host's base folder). */
  file: string;
  /** The annotation table (default: the bundled EvalReflections GPT-2 stage). */
  table: string;
  /** The Markdown report. */
  report: string;
}

/** The demo cap on new tokens: the tiny bundled model tends to loop, and AnnoMI reflections are short. */
export const DEMO_MAX_NEW_TOKENS = 48;

/** The demo's steps. */
export function demoPipeline(options: DemoOptions): Pipeline {
  return {
    file: options.file,
    steps: [
      { job: 'import', format: 'annotations', file: options.table, reference: true },
      { job: 'score', metrics: ['bleu4', 'rougeL', 'meteor'] },
      { job: 'judge', judges: [{ backend: 'local' }], bodies: ['instructions', 'instructions-error-explanations'], requests: ['rating'], concurrency: 16 },
      { job: 'generate', generators: [{ backend: 'local' }], preset: 'greedy', maxNewTokens: DEMO_MAX_NEW_TOKENS },
      { job: 'report', out: options.report, human: 'experts', groupBy: 'source', bootstrap: 1000, seed: 1 },
    ],
  };
}
