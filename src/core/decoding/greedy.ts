/**
 * Greedy decoding: Hugging Face transformers' `generate(do_sample=False, num_beams=1)` (`GenerationMixin._sample`,
 * v4.5x): the logits processors on the raw next-token logits, then the arg-max, the first index on ties as
 * `torch.argmax`.
 */
import type { GenerativeLM } from '../models/languageModel';
import type { ResolvedGenerationConfig } from './generationConfig';
import { buildLogitsProcessors } from './logitsProcess';
import { sampleLoop } from './sampleLoop';
import { argmax } from './samplers';
import type { LoopHooks, RowResult } from './sequences';

/**
 * Greedy decoding of a batch of prompts (left-padded for decoder-only models) with KV cache.
 *
 * @returns per prompt, one row result
 */
export async function greedyDecode(model: GenerativeLM, prompts: number[][], config: ResolvedGenerationConfig, hooks: LoopHooks = {}): Promise<RowResult[][]> {
  const processors = buildLogitsProcessors(config, false);
  return sampleLoop(model, prompts, config, 1, processors, (_row, scores) => argmax(scores), hooks);
}
