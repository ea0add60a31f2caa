/**
 * The decoding engine's entry points: {@link decode} — a batch of prompts, one {@link GenerationConfig}, and per
 * prompt the sequences it produced with the settings that made them — and {@link decodeSettings}, one prompt
 * under several settings, its sampling settings decoded together as one batch.
 *
 * Strategies (GEM 2022 §3.4): greedy (`greedy.ts`), beam search returning all k hypotheses (`beamSearch.ts`),
 * nucleus sampling with n samples (`nucleusSampling.ts`); logits processors in `logitsProcess.ts`. Prompts
 * are decoded `batchSize` at a time; the k beams or n samples of a prompt are rows of the same batch over one
 * encoding of the prompt.
 */
import type { GenerativeLM } from '../models/languageModel';
import { beamSearch } from './beamSearch';
import { decodingSettingsOf, resolveGenerationConfig, type GenerationConfig, type ResolvedGenerationConfig } from './generationConfig';
import { greedyDecode } from './greedy';
import { buildLogitsProcessors } from './logitsProcess';
import { nucleusSampling, nucleusSamplingGroup } from './nucleusSampling';
import type { DecodeOptions, GeneratedSequence, LoopHooks, RowResult } from './sequences';
import type { DecodingSettings } from '../dialogue/types';

/** Rows kept in one batch when `batchSize` is not given. */
export const DEFAULT_MAX_BATCH_ROWS = 16;

function checkPrompts(model: GenerativeLM, prompts: number[][], config: ResolvedGenerationConfig): void {
  prompts.forEach((p, i) => {
    if (p.length === 0) throw new RangeError(`prompt ${i} is empty`);
    if (!p.every((t) => Number.isInteger(t) && t >= 0 && t < model.vocabSize)) throw new RangeError(`prompt ${i} has a token id outside [0, ${model.vocabSize})`);
  });
  if (model.architecture === 'decoder-only') {
    const longest = Math.max(...prompts.map((p) => p.length));
    if (longest + config.maxNewTokens > model.maxPositions) {
      throw new RangeError(`prompt of ${longest} tokens + ${config.maxNewTokens} new tokens exceeds the model's ${model.maxPositions} positions`);
    }
  } else if (1 + config.maxNewTokens > model.maxPositions) {
    throw new RangeError(`${config.maxNewTokens} new tokens exceed the decoder's ${model.maxPositions} positions`);
  }
}

/**
 * Prompt indices grouped into batches of at most `batchSize`, in order; for models whose positions padding
 * would shift (`paddingSafe` false), only prompts of equal length share a batch.
 */
export function batches(model: GenerativeLM, prompts: number[][], batchSize: number): number[][] {
  const out: number[][] = [];
  if (model.paddingSafe) {
    for (let i = 0; i < prompts.length; i += batchSize) out.push(prompts.slice(i, i + batchSize).map((_, j) => i + j));
    return out;
  }
  const byLength = new Map<number, number[]>();
  prompts.forEach((p, i) => byLength.set(p.length, [...(byLength.get(p.length) ?? []), i]));
  for (const group of byLength.values()) for (let i = 0; i < group.length; i += batchSize) out.push(group.slice(i, i + batchSize));
  return out;
}

/** Runs the strategy's loop on one batch. */
function runBatch(model: GenerativeLM, prompts: number[][], config: ResolvedGenerationConfig, hooks: LoopHooks): Promise<RowResult[][]> {
  switch (config.strategy) {
    case 'greedy':
      return greedyDecode(model, prompts, config, hooks);
    case 'nucleusSampling':
      return nucleusSampling(model, prompts, config, hooks);
    case 'beamSearch':
      return beamSearch(model, prompts, config, buildLogitsProcessors(config, false, config.numBeams), hooks);
  }
}

/**
 * Decodes every prompt under `config`.
 *
 * @param model - a decoder-only or encoder-decoder model (`loadGenerativeModel`, models/registry.ts)
 * @param prompts - token ids of each prompt (non-empty): decoder-only, the text to continue; encoder-decoder,
 *   the encoder input, tokenized as the model was trained (the bundled BART fixture: `buildModelInput`'s ids;
 *   a model trained with Python `tokenizer(text)` defaults: `tokenizer.encodeWithSpecialTokens`)
 * @returns per prompt, in prompt order: greedy, 1 sequence; beam search, the best `numReturnSequences`
 *   (default all k) hypotheses, best first, with `score`; sampling, `numReturnSequences` samples in
 *   sample-index order. Each sequence carries `settings` (the {@link DecodingSettings} to record on a
 *   candidate, with `beamRank`/`beamScore` or `sampleIndex`). After an abort, prompts not started get `[]`
 *   and started ones what they had (`finishReason: "aborted"`).
 * @throws RangeError on an invalid configuration, an empty prompt, a token id outside the vocabulary, or a
 *   prompt too long for `maxNewTokens` more positions
 */
export async function decode(model: GenerativeLM, prompts: number[][], config: GenerationConfig, options: DecodeOptions = {}): Promise<GeneratedSequence[][]> {
  const resolved = resolveGenerationConfig(config, model.specialTokens);
  checkPrompts(model, prompts, resolved);
  const rowsPerPrompt = resolved.strategy === 'beamSearch' ? resolved.numBeams : resolved.numReturnSequences;
  const batchSize = Math.max(1, options.batchSize ?? Math.floor(DEFAULT_MAX_BATCH_ROWS / rowsPerPrompt));
  const settings = decodingSettingsOf(resolved);
  const start = performance.now();
  let tokensGenerated = 0;
  let promptsDone = 0;
  const out: GeneratedSequence[][] = prompts.map(() => []);
  for (const indices of batches(model, prompts, batchSize)) {
    if (options.signal?.aborted) break;
    const batch = indices.map((i) => prompts[i]);
    const doneBefore = promptsDone;
    const results = await runBatch(model, batch, resolved, {
      signal: options.signal,
      timer: options.timer,
      noKernel: options.noKernel,
      reusePromptPass: options.reusePromptPass,
      onStepScores: options.onStepScores && ((e) => options.onStepScores!({ ...e, prompt: indices[e.prompt] })),
      onStep: (tokens, done) => {
        tokensGenerated += tokens;
        promptsDone = doneBefore + done;
        options.onProgress?.({ tokensGenerated, promptsDone, promptsTotal: prompts.length, elapsedMs: performance.now() - start });
      },
    });
    results.forEach((rows, i) => {
      out[indices[i]] = sequencesOf(model, rows, resolved, settings);
    });
  }
  return out;
}

/** A prompt's row results as the sequences `decode` returns, with the settings each records. */
function sequencesOf(model: GenerativeLM, rows: readonly RowResult[], resolved: ResolvedGenerationConfig, settings: DecodingSettings): GeneratedSequence[] {
  const stripForcedBos = model.architecture === 'encoder-decoder' && resolved.forcedBosTokenId !== null;
  return rows.map((r, j) => {
    const tokenIds = stripForcedBos && r.tokens[0] === resolved.forcedBosTokenId ? r.tokens.slice(1) : r.tokens;
    const extra =
      resolved.strategy === 'beamSearch'
        ? { beamRank: j, ...(r.score !== null ? { beamScore: r.score } : {}) }
        : resolved.strategy === 'nucleusSampling'
          ? { sampleIndex: j }
          : {};
    return { tokenIds, endedWithEos: r.finishReason === 'eos', finishReason: r.finishReason, score: r.score, settings: { ...settings, ...extra } };
  });
}

/**
 * Rows of one batch when several sampling settings of a prompt are decoded together ({@link decodeSettings}): the
 * GEM 2022 grid's 4 p values × 5 samples. At gpt2-medium's shape a row of the in-place cache holds ~77 MB for a
 * 384-token prompt and 8 new tokens, so 20 rows hold ~1.5 GB.
 */
export const MAX_SAMPLING_GROUP_ROWS = 20;

/**
 * Cache bytes a batch of sampling settings may hold ({@link decodeSettings}), by the model's
 * `cacheBytesPerRow`: 2 GiB, which keeps the grid's 20 rows for gpt2-medium's and bart-large's shapes with 128 new
 * tokens (~101 and ~52 MB a row for a 384-token prompt) and gives a larger model fewer rows (gpt2-large at 512
 * positions, ~189 MB a row: 11 rows, two settings of 5 samples).
 */
export const SAMPLING_GROUP_CACHE_BYTES = 2 * 1024 ** 3;

/**
 * Decodes one prompt under several settings, as `decode(model, [prompt], config)` would for each config in turn,
 * with consecutive nucleus-sampling settings that share `maxNewTokens` and EOS ids decoded together as one batch
 * of at most `maxGroupRows` rows ({@link nucleusSamplingGroup}; a setting with more rows than that runs alone).
 * Each setting's sequences are those it gives alone, given the same logits: every sample keeps its own
 * processors and random stream, and records the same settings (a batch of other rows can change a logit in its
 * last bits, as any change of batch shape in onnxruntime can, and so in rare cases a draw that sits on a boundary).
 *
 * @param configs - the settings, in the order their sequences are returned
 * @param options.maxGroupRows - rows of one sampling batch (default: {@link MAX_SAMPLING_GROUP_ROWS}, fewer when
 *   the model's `cacheBytesPerRow` says that many rows would hold more than {@link SAMPLING_GROUP_CACHE_BYTES}; 1
 *   decodes every setting alone)
 * @returns per config, its sequences (as {@link decode} returns for its one prompt); after an abort, settings
 *   not started get `[]`
 * @throws RangeError as {@link decode} does
 */
export async function decodeSettings(model: GenerativeLM, prompt: number[], configs: readonly GenerationConfig[], options: DecodeOptions & { maxGroupRows?: number } = {}): Promise<GeneratedSequence[][]> {
  const resolved = configs.map((c) => resolveGenerationConfig(c, model.specialTokens));
  resolved.forEach((r) => checkPrompts(model, [prompt], r));
  const capOf = (maxNewTokens: number) => {
    if (options.maxGroupRows !== undefined) return options.maxGroupRows;
    const rowBytes = model.cacheBytesPerRow?.(prompt.length, maxNewTokens);
    return rowBytes ? Math.min(MAX_SAMPLING_GROUP_ROWS, Math.floor(SAMPLING_GROUP_CACHE_BYTES / rowBytes)) : MAX_SAMPLING_GROUP_ROWS;
  };
  const joins = (a: ResolvedGenerationConfig, b: ResolvedGenerationConfig) =>
    a.strategy === 'nucleusSampling' && b.strategy === 'nucleusSampling' && a.maxNewTokens === b.maxNewTokens && a.eosTokenIds.join(',') === b.eosTokenIds.join(',');
  // Consecutive settings that can share a batch, within the row cap.
  const groups: number[][] = [];
  resolved.forEach((r, i) => {
    const g = groups[groups.length - 1];
    const last = g && resolved[g[g.length - 1]];
    if (g && last && joins(last, r) && g.reduce((n, j) => n + resolved[j].numReturnSequences, 0) + r.numReturnSequences <= capOf(r.maxNewTokens)) g.push(i);
    else groups.push([i]);
  });
  const out: GeneratedSequence[][] = configs.map(() => []);
  const start = performance.now();
  let tokensBefore = 0;
  for (const g of groups) {
    if (options.signal?.aborted) break;
    if (g.length === 1) {
      let tokens = 0;
      [out[g[0]]] = await decode(model, [prompt], configs[g[0]], {
        ...options,
        onProgress: (p) => {
          tokens = p.tokensGenerated;
          options.onProgress?.({ ...p, tokensGenerated: tokensBefore + p.tokensGenerated, elapsedMs: performance.now() - start });
        },
      });
      tokensBefore += tokens;
      continue;
    }
    const results = await nucleusSamplingGroup(model, prompt, g.map((i) => resolved[i]), {
      signal: options.signal,
      timer: options.timer,
      reusePromptPass: options.reusePromptPass,
      onStep: (tokens, done) => {
        tokensBefore += tokens;
        options.onProgress?.({ tokensGenerated: tokensBefore, promptsDone: done, promptsTotal: 1, elapsedMs: performance.now() - start });
      },
    });
    g.forEach((i, k) => {
      out[i] = sequencesOf(model, results[k], resolved[i], decodingSettingsOf(resolved[i]));
    });
  }
  return out;
}
