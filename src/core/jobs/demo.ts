/**
 * The main job on the bundled default, as a list of plans (README's first command, `npm run demo`): import AnnoMI
 * reflection contexts from the committed sample, generate greedy candidates with the bundled model, judge them with
 * the local judge, score them with ICMI 2023's reference metrics. Offline.
 */
import type { Pipeline } from './plans';

/** Options of {@link demoPipeline}. */
export interface DemoOptions {
  /** The dialogue file to write (relative to the host's base folder). */
  file: string;
  /** The AnnoMI CSV (default: the committed sample under the data folder). */
  csv: string;
  /** Contexts to import (default 15, one per dialogue, as the seeds sample them). */
  sample?: number;
  seed?: string;
}

/** The demo cap on new tokens: the tiny bundled model tends to loop, and AnnoMI reflections are short. */
export const DEMO_MAX_NEW_TOKENS = 48;

/** The demo's steps. */
export function demoPipeline(options: DemoOptions): Pipeline {
  return {
    file: options.file,
    steps: [
      { job: 'import', format: 'annomi', file: options.csv, sample: options.sample ?? 15, seed: options.seed ?? '0' },
      { job: 'generate', generators: [{ backend: 'local' }], preset: 'greedy', maxNewTokens: DEMO_MAX_NEW_TOKENS },
      { job: 'judge', judges: [{ backend: 'local' }], bodies: ['instructions'], requests: ['rating'], concurrency: 1 },
      { job: 'score', metrics: ['bleu4', 'rougeL', 'meteor'] },
    ],
  };
}
