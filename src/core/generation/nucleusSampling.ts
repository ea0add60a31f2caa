/**
 * Nucleus (top-p) sampling, Holtzman et al. (2020), as Hugging Face transformers'
 * `generate(do_sample=True, top_p=p, top_k=…, temperature=…, num_return_sequences=n)` (`GenerationMixin._sample`,
 * v4.5x): the logits processors, then the warpers Temperature → TopK → TopP on the raw logits, then one draw
 * from the softmax of what remains. The n samples of a prompt run as n rows of one batch on one encoded
 * prompt (cache tiled); sample i draws from the stream `sampleStream(seed, i)` (see `samplers.ts`).
 */
import type { GenerativeLM } from '../models/languageModel';
import type { ResolvedGenerationConfig } from './config';
import { buildLogitsProcessors, TopPLogitsWarper } from './logitsProcess';
import { sampleLoop } from './sampleLoop';
import { sampleCategorical, sampleFromWeights, sampleStream, type UniformStream } from './samplers';
import type { LoopHooks, RowResult } from './sequences';

/**
 * Draws `numReturnSequences` samples per prompt.
 *
 * @returns per prompt, the samples in sample-index order
 */
export async function nucleusSampling(model: GenerativeLM, prompts: number[][], config: ResolvedGenerationConfig, hooks: LoopHooks = {}): Promise<RowResult[][]> {
  const n = config.numReturnSequences;
  const processors = buildLogitsProcessors(config, true);
  const streams: UniformStream[] = Array.from({ length: prompts.length * n }, (_, row) => sampleStream(config.seed, row % n));
  const scratch = new Float64Array(model.vocabSize);
  const last = processors.processors[processors.length - 1];
  const topP = last instanceof TopPLogitsWarper ? last : undefined;
  return sampleLoop(model, prompts, config, n, processors, (row, scores) => {
    const u = streams[row]();
    // TopP already computed exp(score − max) for the row: draw from those (the same numbers softmax would give).
    const nucleus = topP?.lastNucleus(scores);
    return nucleus ? sampleFromWeights(nucleus.probs, nucleus.threshold, u) : sampleCategorical(scores, u, scratch);
  }, hooks);
}
