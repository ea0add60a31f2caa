/**
 * Nucleus (top-p) sampling, Holtzman et al. (2020), as Hugging Face transformers'
 * `generate(do_sample=True, top_p=p, top_k=…, temperature=…, num_return_sequences=n)` (`GenerationMixin._sample`,
 * v4.5x): the logits processors, then the warpers Temperature → TopK → TopP on the raw logits, then one draw
 * from the softmax of what remains. The n samples of a prompt run as n rows of one batch on one encoded
 * prompt (cache tiled); sample i draws from the stream `sampleStream(seed, i)` (see `samplers.ts`).
 *
 * How a step runs: every row's processors up to TopP in JavaScript; then one float32 softmax of the whole batch in
 * onnxruntime ({@link SoftmaxKernel}, as torch's); then per row the top-p nucleus of those probabilities
 * ({@link NucleusSelector}, TopPLogitsWarper's selection) and one draw by inversion over it. With `noKernel` the
 * whole processor list runs in JavaScript, TopPLogitsWarper included, and the draw is `sampleCategorical` on the
 * processed scores (the path tests compare with).
 */
import type { GenerativeLM, RunTimer } from '../models/languageModel';
import type { ResolvedGenerationConfig } from './generationConfig';
import { buildLogitsProcessors, LogitsProcessorList, TopPLogitsWarper, type Scores } from './logitsProcess';
import { sampleLoop, type BatchChooser, type TokenChooser } from './sampleLoop';
import { sampleCategorical, sampleFromProbabilities, sampleStream, type UniformStream } from './samplers';
import type { LoopHooks, RowResult } from './sequences';
import { SoftmaxKernel } from './softmaxKernel';
import type { NucleusSelector } from './topP';

/** One setting's processors split as the kernel path runs them: those before the softmax, and top-p after it. */
interface SplitProcessors {
  /** Every processor when the kernel is not used; else those before TopP. */
  before: LogitsProcessorList;
  /** TopP's selection on the kernel's probabilities (undefined: no top-p, or no kernel). */
  nucleus?: NucleusSelector;
}

function splitProcessors(config: ResolvedGenerationConfig, kernel: boolean): SplitProcessors {
  const all = buildLogitsProcessors(config, true);
  const last = all.processors[all.length - 1];
  if (!kernel || !(last instanceof TopPLogitsWarper)) return { before: all };
  return { before: new LogitsProcessorList(all.processors.slice(0, -1)), nucleus: last.selector };
}

/**
 * The step's token choice for rows of one or several settings: `settingOf(row)` picks the row's {@link SplitProcessors}.
 * `maskScores`: also set the scores outside the nucleus to −∞, as TopPLogitsWarper would (only the debug hook reads
 * them).
 */
async function chooser(vocabSize: number, split: readonly SplitProcessors[], settingOf: (row: number) => number, draw: (row: number) => number, kernel: boolean, maskScores: boolean, timer?: RunTimer): Promise<TokenChooser | BatchChooser> {
  if (!kernel) {
    const scratch = new Float64Array(vocabSize);
    return (row, scores) => sampleCategorical(scores, draw(row), scratch);
  }
  const softmax = await SoftmaxKernel.get();
  let buffer = new Float32Array(0);
  let probs: Float32Array = buffer;
  let V = 0;
  return {
    async prepare(scores, rows, vocab) {
      V = vocab;
      if (buffer.length < rows * vocab) buffer = new Float32Array(rows * vocab); // the first step has the most rows
      probs = await softmax.run(scores, rows, vocab, buffer, timer);
    },
    choose(row, scores: Scores, index) {
      const p = probs.subarray(index * V, (index + 1) * V);
      const selector = split[settingOf(row)].nucleus;
      const u = draw(row);
      if (!selector) return sampleFromProbabilities(p, Number.MIN_VALUE, sumOf(p), u);
      const { threshold, keptSum } = selector.select(p);
      if (maskScores) for (let i = 0; i < V; i++) if (p[i] < threshold) scores[i] = -Infinity;
      return sampleFromProbabilities(p, threshold, keptSum, u);
    },
  };
}

/**
 * Σ of a row of probabilities (float64).
 *
 * @throws RangeError when it is not positive and finite (NaN logits, or every score −∞), as `NucleusSelector` does
 */
function sumOf(p: Float32Array): number {
  let z = 0;
  for (let i = 0; i < p.length; i++) z += p[i];
  if (!(z > 0 && z < Infinity)) throw new RangeError(z !== z ? 'a probability is NaN (NaN logits?)' : 'every token has probability 0');
  return z;
}

/**
 * Draws `numReturnSequences` samples per prompt.
 *
 * @returns per prompt, the samples in sample-index order
 */
export async function nucleusSampling(model: GenerativeLM, prompts: number[][], config: ResolvedGenerationConfig, hooks: LoopHooks = {}): Promise<RowResult[][]> {
  const n = config.numReturnSequences;
  const kernel = !hooks.noKernel;
  const split = splitProcessors(config, kernel);
  const streams: UniformStream[] = Array.from({ length: prompts.length * n }, (_, row) => sampleStream(config.seed, row % n));
  const choose = await chooser(model.vocabSize, [split], () => 0, (row) => streams[row](), kernel, hooks.onStepScores !== undefined, hooks.timer);
  return sampleLoop(model, prompts, config, n, split.before, choose, hooks);
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
  const kernel = !hooks.noKernel;
  const split = configs.map((c) => splitProcessors(c, kernel));
  const streams = settingOf.map((s, r) => sampleStream(configs[s].seed, indexOf[r]));
  const rows = settingOf.length;
  const choose = await chooser(model.vocabSize, split, (row) => settingOf[row], (row) => streams[row](), kernel, hooks.onStepScores !== undefined, hooks.timer);
  const [results] = await sampleLoop(model, [prompt], first, rows, (row) => split[settingOf[row]].before, choose, hooks);
  return configs.map((_, s) => results.filter((_, r) => settingOf[r] === s));
}
