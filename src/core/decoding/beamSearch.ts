/**
 * Beam search with Hugging Face transformers' semantics: the vectorized `GenerationMixin._beam_search` of
 * transformers ≥ 4.50, < 5 (read at huggingface/transformers commit 000034a4, `src/transformers/generation/utils.py`:
 * `_beam_search`, `_get_top_k_continuations`, `_get_running_beams_for_next_iteration`,
 * `_update_finished_beams`, `_check_early_stop_heuristic`, `_beam_search_has_unfinished_sequences`).
 *
 * Per prompt, with k = `numBeams`, n_eos = number of EOS ids and t = tokens generated after this step:
 * 1. every running beam's next-token logits → log-softmax → logits processors (HF applies the processors to
 *    the log-probabilities in beam search, to raw logits in greedy and sampling), plus the beam's running
 *    score; the first step starts from beam 0 only (the other beams start at −1e9);
 * 2. the top K = max(2, 1 + n_eos)·k continuations over all beams × vocabulary;
 * 3. a continuation "hits a stopping criterion" when its token is an EOS id or t = `maxNewTokens`;
 * 4. the next running beams are the k best continuations that did not hit one;
 * 5. among the first k continuations (only those), the ones that hit are finished hypotheses scored
 *    sum_logprobs / t ** lengthPenalty, and enter the k finished slots if they beat the worst — unless
 *    `earlyStopping` is true and the k slots are full, or the early-stop heuristic already said no
 *    improvement is possible;
 * 6. the heuristic: with best = the best running score / L ** lengthPenalty, where L = `maxNewTokens` when
 *    `earlyStopping` is "never" and lengthPenalty > 0, else t, improvement stays possible while a slot is empty
 *    or best > the worst finished score;
 * 7. a prompt is done when no improvement is possible, or `earlyStopping` is true and its k slots are full,
 *    or t = `maxNewTokens`.
 *
 * A done prompt's rows leave the batch (HF keeps computing them and discards the result). The cache is
 * reordered by gathering rows of the previous step's cache (`DecodingSession.select`), as HF's
 * `reorder_cache`, never recomputed. Ties in HF's `torch.topk` (unspecified order) go to the lower index here
 * (beam-major, then token id; existing finished hypotheses before new ones).
 */
import type { GenerativeLM } from '../models/languageModel';
import type { ResolvedGenerationConfig } from './generationConfig';
import { BeamKernel, type BeamTopK } from './beamKernel';
import { LogitsProcessorList, type LogitsProcessor } from './logitsProcess';
import { logSoftmax, logSumExpF32 } from './samplers';
import type { LoopHooks, RowResult } from './sequences';

/**
 * The K largest values offered (value + offset), best first; ties keep the earlier-offered index. Two
 * monomorphic scanners (float32 logits, float64 log-probabilities) keep the hot loop fast.
 */
class TopK {
  readonly values: Float64Array;
  readonly indices: Float64Array;
  private count = 0;

  constructor(readonly K: number) {
    this.values = new Float64Array(K);
    this.indices = new Float64Array(K);
  }

  reset(): void {
    this.count = 0;
  }

  private insert(val: number, index: number): void {
    const vals = this.values;
    const idx = this.indices;
    let j = this.count < this.K ? this.count++ : this.K - 1;
    while (j > 0 && vals[j - 1] < val) {
      vals[j] = vals[j - 1];
      idx[j] = idx[j - 1];
      j--;
    }
    vals[j] = val;
    idx[j] = index;
  }

  offerF32(row: Float32Array, offset: number, firstIndex: number): void {
    const K = this.K;
    for (let v = 0; v < row.length; v++) {
      const val = row[v] + offset;
      if (this.count < K || val > this.values[K - 1]) this.insert(val, firstIndex + v);
    }
  }

  offerF64(row: Float64Array, offset: number, firstIndex: number): void {
    const K = this.K;
    for (let v = 0; v < row.length; v++) {
      const val = row[v] + offset;
      if (this.count < K || val > this.values[K - 1]) this.insert(val, firstIndex + v);
    }
  }
}

interface Hypothesis {
  /** The processors' view of the sequence: initial history + generated tokens. */
  history: number[];
  /** Generated tokens (EOS included when it ended with one). */
  tokens: number[];
  /** Running: sum of processed log-probs; finished: length-normalised score. */
  score: number;
}

interface PromptState {
  running: Hypothesis[];
  finished: (Hypothesis & { eos: boolean })[];
  improvementPossible: boolean;
  done: boolean;
}

/**
 * Beam search over `prompts`, one batch of prompts × k rows.
 *
 * @returns per prompt, the `numReturnSequences` best finished hypotheses, best first (aborted runs: the
 *   finished ones, then running beams scored at their current length)
 */
export async function beamSearch(
  model: GenerativeLM,
  prompts: number[][],
  config: ResolvedGenerationConfig,
  processors: LogitsProcessor,
  hooks: LoopHooks = {},
): Promise<RowResult[][]> {
  const k = config.numBeams;
  const lp = config.lengthPenalty;
  const maxNew = config.maxNewTokens;
  const eos = new Set(config.eosTokenIds);
  const K = Math.max(2, 1 + config.eosTokenIds.length) * k;
  const states: PromptState[] = prompts.map(() => ({ running: [], finished: [], improvementPossible: true, done: false }));
  if (hooks.signal?.aborted) return states.map(() => []);
  const started = await model.startDecoding(prompts, { expand: k, timer: hooks.timer, reusePromptPass: hooks.reusePromptPass, maxNewTokens: maxNew });
  const { session } = started;
  const V = session.vocab;
  states.forEach((s, p) => {
    for (let b = 0; b < k; b++) s.running.push({ history: started.history[p * k + b], tokens: [], score: b === 0 ? 0 : -1e9 });
  });
  let logits = started.logits;
  let active = prompts.map((_, p) => p);
  const noProcessors = processors instanceof LogitsProcessorList && processors.length === 0;
  // On steps where no processor acts, steps 1–2 run in onnxruntime for the whole batch (see beamKernel.ts).
  const list = processors instanceof LogitsProcessorList ? processors : new LogitsProcessorList([processors]);
  const kernel = K <= k * V && !hooks.noKernel ? await BeamKernel.get() : undefined;
  let kernelScores = new Float32Array(0);
  const lps = Array.from({ length: k }, () => new Float64Array(V));
  const top = new TopK(K);
  let aborted = false;
  let promptsDone = 0;

  try {
    for (let t = 1; t <= maxNew; t++) {
      if (hooks.signal?.aborted) {
        aborted = true;
        break;
      }
      const rowsBefore = active.length * k;
      let kernelOut: BeamTopK | undefined;
      if (kernel && active.every((p) => list.inactive(states[p].running[0].history.length, t - 1))) {
        if (kernelScores.length < rowsBefore) kernelScores = new Float32Array(rowsBefore);
        active.forEach((p, i) => {
          for (let b = 0; b < k; b++) kernelScores[i * k + b] = states[p].running[b].score;
        });
        kernelOut = await kernel.run(logits, kernelScores.subarray(0, rowsBefore), active.length, k, V, K, hooks.timer);
      }
      const nextActive: number[] = [];
      const select: number[] = [];
      const tokens: number[] = [];
      active.forEach((p, i) => {
        const s = states[p];
        // 1–2. processed log-probs plus running scores; top K over beams × vocabulary.
        if (kernelOut) {
          // Steps 1–2 were done for the whole batch by the kernel (float32, as torch).
          for (let j = 0; j < K; j++) {
            top.values[j] = kernelOut.values[i * K + j];
            top.indices[j] = Number(kernelOut.indices[i * K + j]);
          }
        } else {
          top.reset();
          for (let b = 0; b < k; b++) {
            const raw = logits.subarray((i * k + b) * V, (i * k + b + 1) * V);
            const base = s.running[b].score;
            if (noProcessors) {
              // Log-probabilities read off the logits (x − logsumexp) as they are scanned.
              top.offerF32(raw, base - logSumExpF32(raw), b * V);
            } else {
              const lpRow = logSoftmax(raw, lps[b]);
              processors.apply(s.running[b].history, lpRow, t - 1);
              top.offerF64(lpRow, base, b * V);
            }
          }
        }
        const topVal = top.values;
        const topIdx = top.indices;
        const cands = Array.from({ length: K }, (_, j) => {
          const beam = Math.floor(topIdx[j] / V);
          const token = topIdx[j] - beam * V;
          return { beam, token, score: topVal[j], hit: eos.has(token) || t >= maxNew };
        });
        // 4. next running beams: the k best that did not hit a stopping criterion.
        const runningCands = cands
          .map((c, j) => ({ c, j, adjusted: c.hit ? c.score - 1e9 : c.score }))
          .sort((a, b) => b.adjusted - a.adjusted || a.j - b.j)
          .slice(0, k);
        // 5. finished hypotheses among the first k continuations.
        const slotsFull = s.finished.length === k;
        const entering: (Hypothesis & { eos: boolean })[] = [];
        if (s.improvementPossible && !(config.earlyStopping === true && slotsFull)) {
          for (let j = 0; j < k; j++) {
            const c = cands[j];
            if (!c.hit) continue;
            const from = s.running[c.beam];
            entering.push({ history: from.history, tokens: [...from.tokens, c.token], score: c.score / t ** lp, eos: eos.has(c.token) });
          }
        }
        if (entering.length > 0) {
          s.finished = [...s.finished, ...entering]
            .map((h, j) => ({ h, j }))
            .sort((a, b) => b.h.score - a.h.score || a.j - b.j)
            .slice(0, k)
            .map(({ h }) => h);
        }
        s.running = runningCands.map(({ c, adjusted }) => {
          const from = s.running[c.beam];
          return { history: [...from.history, c.token], tokens: [...from.tokens, c.token], score: adjusted };
        });
        // 6. early-stop heuristic, then 7. is this prompt done?
        const bestLength = config.earlyStopping === 'never' && lp > 0 ? maxNew : t;
        const best = s.running[0].score / bestLength ** lp;
        const worst = s.finished.length < k ? -1e9 : s.finished[k - 1].score;
        s.improvementPossible = s.improvementPossible && best > worst;
        s.done = !s.improvementPossible || (config.earlyStopping === true && s.finished.length === k) || t >= maxNew;
        if (s.done) {
          promptsDone++;
          return;
        }
        nextActive.push(p);
        for (const { c } of runningCands) {
          select.push(i * k + c.beam);
          tokens.push(c.token);
        }
      });
      hooks.onStep?.(rowsBefore, promptsDone);
      if (nextActive.length === 0) break;
      session.select(select);
      active = nextActive;
      logits = await session.step(tokens);
    }
  } finally {
    session.release?.();
  }

  return states.map((s) => {
    const out: RowResult[] = s.finished.map((h) => ({ tokens: h.eos ? h.tokens.slice(0, -1) : h.tokens, finishReason: h.eos ? 'eos' : 'length', score: h.score }));
    if (aborted && !s.done) {
      for (const h of s.running) {
        if (out.length >= k) break;
        if (h.score <= -1e9 / 2) continue;
        out.push({ tokens: h.tokens, finishReason: 'aborted', score: h.tokens.length > 0 ? h.score / h.tokens.length ** lp : null });
      }
    }
    return out.slice(0, config.numReturnSequences);
  });
}
