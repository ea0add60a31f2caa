/**
 * Local ONNX models — decoder-only ({@link OnnxCausalLM}) and encoder-decoder ({@link OnnxSeq2SeqLM}) — as a
 * run's {@link CandidateGenerator}, on the decoding engine ({@link decode}).
 *
 * Model input (both families): the context in the seeds' format ({@link buildModelInput}: utterances with
 * speaker tags, ` |` separators, `|<therapist> ~<listening>`), tokenized without special tokens and
 * left-truncated to the run's window (GEM 2022 §3.2: 384 tokens) — the decoder-only model continues it, the
 * encoder-decoder model encodes it (how both bundled fixtures were trained). With `inputSpecialTokens`, the
 * window is wrapped in the tokenizer's special tokens (as Python's `tokenizer(text)` does; BART: `<s> … </s>`),
 * for models fine-tuned on inputs made that way. A decoder-only window is also cut so that prompt +
 * `maxNewTokens` fit the model's positions.
 *
 * Per context, the k beams of a beam setting run as one batch, and consecutive sampling settings (the GEM 2022
 * grid's four p × 5 samples) as one batch of their rows together ({@link decodeSettings}); a setting's candidates
 * are those it gives when decoded alone ({@link decode}), which `generate` does. Each sampling setting gets its
 * own seed, derived from the run's seed, the item id and the setting ({@link samplingSeed}), so that sample i of
 * different contexts, and of different p in the GEM 2022 grid, draw independent random numbers (with one seed for
 * all, the p = 0.4 and p = 0.6 samples of a context would share their draws and coincide more often than
 * independent sampling makes them). The derived seed is what a candidate records, so it is still reproduced by
 * decoding its context alone with the settings it records.
 */
import type { GenerativeLM } from '../models/languageModel';
import type { DecodingSettings } from '../dialogue/types';
import type { GenerationConfig } from '../decoding/generationConfig';
import { decode, decodeSettings } from '../decoding/engine';
import { buildModelInput, cleanResponse, renderContext } from '../templates/modelInput';
import type { ChatTemplate } from '../templates/chatTemplate';
import { chatPromptIds } from '../templates/modelPrompt';
import type { DialogueItem, TherapistBehaviour, Turn } from '../dialogue/types';
import type { CandidateGenerator, ContextOutput, RunSettings } from './run';
import type { GeneratedSequence } from '../decoding/sequences';
import { describeSpec, type DecodingSpec } from './runConfig';

/**
 * The seed of one sampling call of a run: FNV-1a (32-bit) of `"<run seed>\u0000<item id>\u0000<setting>"`, where the
 * setting is {@link describeSpec}'s text (strategy, p, temperature, top-k, samples), reduced to [0, 2^31).
 * Deterministic on every machine; a different run seed, item or setting gives an unrelated seed.
 */
export function samplingSeed(runSeed: number, itemId: string, spec: DecodingSpec): number {
  const text = `${runSeed}\u0000${itemId}\u0000${describeSpec(spec)}`;
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h & 0x7fffffff;
}

/** The engine configuration of a run's decoding setting. */
export function generationConfigOf(spec: DecodingSpec & { maxNewTokens: number }, seed: number): GenerationConfig {
  const { strategy, maxNewTokens, numBeams, numReturnSequences, lengthPenalty, earlyStopping, topP, topK, temperature, noRepeatNgramSize, repetitionPenalty } = spec;
  const config: GenerationConfig = { strategy, maxNewTokens, seed };
  const optional = { numBeams, numReturnSequences, lengthPenalty, earlyStopping, topP, topK, temperature, noRepeatNgramSize, repetitionPenalty };
  for (const [k, v] of Object.entries(optional)) if (v !== undefined) (config as unknown as Record<string, unknown>)[k] = v;
  return config;
}

/** Token window of a model's input for `maxNewTokens` new tokens. */
export function inputWindow(model: GenerativeLM, maxContextTokens: number, maxNewTokens: number): number {
  return model.architecture === 'decoder-only' ? Math.min(maxContextTokens, model.maxPositions - maxNewTokens) : Math.min(maxContextTokens, model.maxPositions);
}

/**
 * The input token ids of a context: the seeds' format left-truncated to `maxContextTokens` tokens, optionally
 * wrapped in the tokenizer's special tokens (which count toward the window).
 *
 * @throws RangeError when the special tokens alone fill the window
 */
export function generatorInputIds(
  context: readonly Turn[],
  model: Pick<GenerativeLM, 'tokenizer'>,
  options: { behaviour: TherapistBehaviour; maxContextTokens: number; inputSpecialTokens?: boolean },
): number[] {
  if (!options.inputSpecialTokens) return buildModelInput(context, model.tokenizer, options).inputIds;
  const text = renderContext(context, options.behaviour);
  const plain = model.tokenizer.encode(text);
  const full = model.tokenizer.encodeWithSpecialTokens(text);
  // The special tokens are what `full` adds around `plain` (a prefix and a suffix).
  let at = 0;
  while (at + plain.length <= full.length && !plain.every((t, i) => full[at + i] === t)) at++;
  if (at + plain.length > full.length) throw new Error('the tokenizer\'s special tokens are not a prefix and suffix of the plain encoding');
  const prefix = full.slice(0, at);
  const suffix = full.slice(at + plain.length);
  const keep = options.maxContextTokens - prefix.length - suffix.length;
  if (keep < 1) throw new RangeError(`a window of ${options.maxContextTokens} tokens leaves no room beside ${prefix.length + suffix.length} special tokens`);
  return [...prefix, ...plain.slice(Math.max(0, plain.length - keep)), ...suffix];
}

/**
 * A loaded model as a generator. Each candidate's origin is `{kind: "model", model: <id>, decoding}` where
 * `decoding` is the engine's record of the strategy and every parameter that shaped it (with the seed for
 * sampling, and `beamRank` + `beamScore` or `sampleIndex`), plus the response type (`behaviour`) and the
 * context window (`maxContextTokens`), and `inputSpecialTokens: true` when the input was wrapped.
 *
 * @param options.keepOpen - do not dispose the model when the run ends (the caller owns it)
 * @param options.inputSpecialTokens - wrap the input in the tokenizer's special tokens (default false)
 */
export function localCandidateGenerator(
  model: GenerativeLM,
  options: { keepOpen?: boolean; inputSpecialTokens?: boolean; maxGroupRows?: number; chat?: { template: ChatTemplate; templateArgs?: Record<string, unknown> } } = {},
): CandidateGenerator {
  const chat = options.chat;
  let promptFormat: string | undefined;
  const promptOf = (item: DialogueItem, maxNewTokens: number, run: RunSettings) => {
    const maxContextTokens = inputWindow(model, run.maxContextTokens, maxNewTokens);
    if (chat) {
      // An instruct model reads the chat template's messages in its own template, not the seeds' format.
      const p = chatPromptIds(model.tokenizer, chat.template, item.context, { behaviour: run.behaviour, maxTokens: maxContextTokens, templateArgs: chat.templateArgs });
      promptFormat = p.promptFormat;
      return { maxContextTokens, prompt: p.ids };
    }
    return { maxContextTokens, prompt: generatorInputIds(item.context, model, { behaviour: run.behaviour, maxContextTokens, inputSpecialTokens: options.inputSpecialTokens }) };
  };
  const configOf = (item: DialogueItem, spec: DecodingSpec & { maxNewTokens: number }, run: RunSettings) =>
    generationConfigOf(spec, spec.strategy === 'nucleusSampling' ? samplingSeed(run.seed, item.id, spec) : run.seed);
  const outputOf = (sequences: GeneratedSequence[], maxContextTokens: number, run: RunSettings, createdAt: string): ContextOutput => {
    let tokens = 0;
    const candidates = sequences.map((s) => {
      tokens += s.tokenIds.length + (s.endedWithEos ? 1 : 0);
      const decoding: DecodingSettings = { ...s.settings, behaviour: run.behaviour, maxContextTokens, ...(options.inputSpecialTokens ? { inputSpecialTokens: true } : {}), ...(chat && promptFormat ? { promptFormat } : {}) };
      return { text: cleanResponse(model.tokenizer.decode(s.tokenIds)), origin: { kind: 'model' as const, model: model.ref, decoding, createdAt } };
    });
    return { candidates, tokens };
  };
  const aborted = () => Object.assign(new Error('generation cancelled'), { name: 'AbortError' });
  return {
    id: model.ref,
    unsupported: () => undefined,
    async generate(item, spec, run, createdAt, signal) {
      const { prompt, maxContextTokens } = promptOf(item, spec.maxNewTokens, run);
      const [sequences] = await decode(model, [prompt], configOf(item, spec, run), { signal });
      if (signal?.aborted) throw aborted();
      return outputOf(sequences, maxContextTokens, run, createdAt);
    },
    // Settings with the same window share one prompt: their sampling settings decode as one batch (decodeSettings).
    async generateSettings(item, specs, run, createdAt, signal) {
      const out: ContextOutput[] = new Array(specs.length);
      const byWindow = new Map<number, number[]>();
      specs.forEach((spec, i) => {
        const w = inputWindow(model, run.maxContextTokens, spec.maxNewTokens);
        byWindow.set(w, [...(byWindow.get(w) ?? []), i]);
      });
      for (const indices of byWindow.values()) {
        const { prompt, maxContextTokens } = promptOf(item, specs[indices[0]].maxNewTokens, run);
        const sequences = await decodeSettings(model, prompt, indices.map((i) => configOf(item, specs[i], run)), { signal, maxGroupRows: options.maxGroupRows });
        if (signal?.aborted) throw aborted();
        indices.forEach((i, k) => {
          out[i] = outputOf(sequences[k], maxContextTokens, run, createdAt);
        });
      }
      return out;
    },
    dispose: async () => {
      if (!options.keepOpen) await model.dispose();
    },
  };
}
