/**
 * The step loop shared by greedy decoding and sampling, after Hugging Face transformers'
 * `GenerationMixin._sample` (v4.5x): at each step the next-token logits of every unfinished row go through
 * the logits processors, a token is chosen (arg-max, or a draw from the softmax), a row that chose an EOS id
 * is finished, and the loop ends when every row is finished or `maxNewTokens` tokens were produced.
 *
 * Finished rows leave the batch (their cache rows are dropped) instead of being fed padding as in HF; the
 * remaining rows compute exactly what they would have.
 */
import type { GenerativeLM } from '../models/languageModel';
import type { ResolvedGenerationConfig } from './generationConfig';
import type { LogitsProcessor } from './logitsProcess';
import type { LoopHooks, RowResult } from './sequences';
import type { Scores } from './logitsProcess';

/** Chooses the token of row `row` (global row index) from its processed scores. */
export type TokenChooser = (row: number, scores: Scores) => number;

/**
 * A chooser that first sees the whole step: `prepare` runs once per step, after every active row's processors and
 * before any `choose` (e.g. one softmax of the batch in onnxruntime); `choose` then gets the row's position `index`
 * in that batch.
 */
export interface BatchChooser {
  /** @param scores - the processed scores of the step's rows, row-major [rows, vocab] */
  prepare(scores: Float32Array, rows: number, vocab: number): Promise<void>;
  choose(row: number, scores: Scores, index: number): number;
}

/**
 * Decodes `prompts`, each continued by `expand` rows (samples), until EOS or `maxNewTokens`.
 *
 * @param processors - the logits processors of every row, or of row `row` (global row index) when rows differ
 *   (several sampling settings decoded as one batch, see `nucleusSamplingGroup`)
 * @param chooser - picks each row's token from its processed scores; a {@link BatchChooser} first sees the step's
 *   processed scores of every row at once (sampling's softmax in onnxruntime)
 * @returns per prompt, `expand` row results in row order
 */
export async function sampleLoop(
  model: GenerativeLM,
  prompts: number[][],
  config: ResolvedGenerationConfig,
  expand: number,
  processors: LogitsProcessor | ((row: number) => LogitsProcessor),
  chooser: TokenChooser | BatchChooser,
  hooks: LoopHooks = {},
): Promise<RowResult[][]> {
  const rows = prompts.length * expand;
  const results: RowResult[] = Array.from({ length: rows }, () => ({ tokens: [], finishReason: 'aborted', score: null }));
  const grouped = () => prompts.map((_, p) => results.slice(p * expand, (p + 1) * expand));
  if (hooks.signal?.aborted) return grouped();
  const eos = new Set(config.eosTokenIds);
  const processorsOf = typeof processors === 'function' ? processors : () => processors;
  const batch = typeof chooser === 'function' ? undefined : chooser;
  const choose = typeof chooser === 'function' ? chooser : chooser.choose.bind(chooser);
  const started = await model.startDecoding(prompts, { expand, timer: hooks.timer, reusePromptPass: hooks.reusePromptPass, maxNewTokens: config.maxNewTokens });
  const { session, history } = started;
  const V = session.vocab;
  let logits = started.logits;
  let active = Array.from({ length: rows }, (_, r) => r);
  const openPerPrompt = new Array<number>(prompts.length).fill(expand);
  let promptsDone = 0;
  try {
    for (let step = 0; step < config.maxNewTokens; step++) {
      if (hooks.signal?.aborted) break;
      const keep: number[] = [];
      const next: number[] = [];
      const raws: Float32Array[] = [];
      for (let i = 0; i < active.length; i++) {
        const row = active[i];
        const scores = logits.subarray(i * V, (i + 1) * V);
        if (hooks.onStepScores) raws.push(scores.slice());
        processorsOf(row).apply(history[row], scores, step);
      }
      if (batch) await batch.prepare(logits, active.length, V);
      for (let i = 0; i < active.length; i++) {
        const row = active[i];
        const scores = logits.subarray(i * V, (i + 1) * V);
        const token = choose(row, scores, i);
        if (hooks.onStepScores) hooks.onStepScores({ prompt: Math.floor(row / expand), sequence: row % expand, step, logits: raws[i], scores, token });
        history[row].push(token);
        const res = results[row];
        let open = true;
        if (eos.has(token)) {
          res.finishReason = 'eos';
          open = false;
        } else {
          res.tokens.push(token);
          if (step + 1 === config.maxNewTokens) {
            res.finishReason = 'length';
            open = false;
          }
        }
        if (open) {
          keep.push(i);
          next.push(token);
        } else if (--openPerPrompt[Math.floor(row / expand)] === 0) {
          promptsDone++;
        }
      }
      hooks.onStep?.(active.length, promptsDone);
      if (keep.length === 0) break;
      session.select(keep);
      active = keep.map((i) => active[i]);
      logits = await session.step(next);
    }
  } finally {
    session.release?.();
  }
  return grouped();
}
