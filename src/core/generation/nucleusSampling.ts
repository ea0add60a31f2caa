/**
 * Nucleus (top-p) sampling, Holtzman et al. (2020), as Hugging Face transformers'
 * `generate(do_sample=True, top_p=p, top_k=…, temperature=…, num_return_sequences=n)` (`GenerationMixin._sample`,
 * v4.5x): the logits processors, then the warpers Temperature → TopK → TopP on the raw logits, then one draw
 * from the softmax of what remains. The n samples of a prompt run as n rows of one batch on one encoded
 * prompt (cache tiled); sample i draws from the stream `sampleStream(seed, i)` (see `samplers.ts`).
 */
import type { GenerativeLM } from '../models/languageModel';
import type { ResolvedGenerationConfig } from './config';
import { buildLogitsProcessors, TopPLogitsWarper, type LogitsProcessorList, type Scores } from './logitsProcess';
import { sampleLoop } from './sampleLoop';
import { sampleCategorical, sampleFromWeights, sampleStream, type UniformStream } from './samplers';
import type { LoopHooks, RowResult } from './sequences';

/** Chooses a row's token from its processed scores with `processors`' top-p nucleus when it has one. */
function drawToken(processors: LogitsProcessorList, scratch: Float64Array): (scores: Scores, u: number) => number {
  const last = processors.processors[processors.length - 1];
  const topP = last instanceof TopPLogitsWarper ? last : undefined;
  return (scores, u) => {
    // TopP already computed exp(score − max) for the row: draw from those (the same numbers softmax would give).
    const nucleus = topP?.lastNucleus(scores);
    return nucleus ? sampleFromWeights(nucleus.probs, nucleus.threshold, u, nucleus.keptSum) : sampleCategorical(scores, u, scratch);
  };
}

/**
 * Draws `numReturnSequences` samples per prompt.
 *
 * @returns per prompt, the samples in sample-index order
 */
export async function nucleusSampling(model: GenerativeLM, prompts: number[][], config: ResolvedGenerationConfig, hooks: LoopHooks = {}): Promise<RowResult[][]> {
  const n = config.numReturnSequences;
  const processors = buildLogitsProcessors(config, true);
  const streams: UniformStream[] = Array.from({ length: prompts.length * n }, (_, row) => sampleStream(config.seed, row % n));
  const draw = drawToken(processors, new Float64Array(model.vocabSize));
  return sampleLoop(model, prompts, config, n, processors, (row, scores) => draw(scores, streams[row]()), hooks);
}

/**
 * Several sampling settings of one prompt decoded as one batch: the rows of setting s are its
 * `numReturnSequences` samples, each with setting s's processors, warpers and stream (`sampleStream(seed_s, i)`),
 * so every sample is the one {@link nucleusSampling} draws for that setting alone, given the same logits. One
 * decoder pass then serves every setting's rows (the model's weights are read once per step instead of once per
 * setting), which is what the GEM 2022 grid's four p values × 5 samples need.
 *
 * @param configs - nucleus-sampling settings (≥ 1) that share `maxNewTokens` and `eosTokenIds`
 * @returns per setting, its samples in sample-index order
 * @throws RangeError when a setting is not nucleus sampling, or the settings differ in `maxNewTokens` or EOS ids
 */
export async function nucleusSamplingGroup(model: GenerativeLM, prompt: number[], configs: readonly ResolvedGenerationConfig[], hooks: LoopHooks = {}): Promise<RowResult[][]> {
  if (configs.length === 0) return [];
  const first = configs[0];
  for (const c of configs) {
    if (c.strategy !== 'nucleusSampling') throw new RangeError(`a sampling group takes nucleusSampling settings only, got ${c.strategy}`);
    if (c.maxNewTokens !== first.maxNewTokens) throw new RangeError(`the settings of a sampling group must share maxNewTokens (${first.maxNewTokens} and ${c.maxNewTokens})`);
    if (c.eosTokenIds.join(',') !== first.eosTokenIds.join(',')) throw new RangeError('the settings of a sampling group must share their EOS ids');
  }
  // Row r belongs to setting settingOf[r] as its sample indexOf[r].
  const settingOf: number[] = [];
  const indexOf: number[] = [];
  configs.forEach((c, s) => {
    for (let i = 0; i < c.numReturnSequences; i++) {
      settingOf.push(s);
      indexOf.push(i);
    }
  });
  const scratch = new Float64Array(model.vocabSize);
  const processors = configs.map((c) => buildLogitsProcessors(c, true));
  const draws = processors.map((p) => drawToken(p, scratch));
  const streams = settingOf.map((s, r) => sampleStream(configs[s].seed, indexOf[r]));
  const rows = settingOf.length;
  const [results] = await sampleLoop(model, [prompt], first, rows, (row) => processors[settingOf[row]], (row, scores) => draws[settingOf[row]](scores, streams[row]()), hooks);
  return configs.map((_, s) => results.filter((_, r) => settingOf[r] === s));
}
