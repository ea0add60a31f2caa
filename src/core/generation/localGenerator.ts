/**
 * Local ONNX models — decoder-only ({@link OnnxCausalLM}) and encoder-decoder ({@link OnnxSeq2SeqLM}) — as a
 * run's {@link CandidateGenerator}, on the decoding engine ({@link decode}).
 *
 * Model input (both families): the context in the seeds' format ({@link buildModelInput}: utterances with
 * speaker tags, ` |` separators, `|<therapist> ~<listening>`), tokenized without special tokens and
 * left-truncated to the run's window (GEM 2022 §3.2: 384 tokens) — the decoder-only model continues it, the
 * encoder-decoder model encodes it (how both bundled fixtures were trained). A decoder-only window is also cut
 * so that prompt + `maxNewTokens` fit the model's positions.
 *
 * One {@link decode} call per context and setting: the k beams, or the n samples of one p, of a context run as
 * one batch. Sampling starts from the run's seed for every context and setting, so a candidate is reproduced by
 * decoding its context alone with the settings it records.
 */
import type { GenerativeLM } from '../models/languageModel';
import type { DecodingSettings } from '../model/types';
import type { GenerationConfig } from './config';
import { decode } from './engine';
import { cleanResponse } from './generate';
import { buildModelInput } from './modelInput';
import type { CandidateGenerator } from './run';
import type { DecodingSpec } from './runConfig';

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
 * A loaded model as a generator. Each candidate's origin is `{kind: "model", model: <id>, decoding}` where
 * `decoding` is the engine's record of the strategy and every parameter that shaped it (with the seed for
 * sampling, and `beamRank` + `beamScore` or `sampleIndex`), plus the response type (`behaviour`) and the
 * context window (`maxContextTokens`).
 *
 * @param options.keepOpen - do not dispose the model when the run ends (the caller owns it)
 */
export function localCandidateGenerator(model: GenerativeLM, options: { keepOpen?: boolean } = {}): CandidateGenerator {
  return {
    id: model.ref,
    unsupported: () => undefined,
    async generate(item, spec, run, createdAt, signal) {
      const maxContextTokens = inputWindow(model, run.maxContextTokens, spec.maxNewTokens);
      const prompt = buildModelInput(item.context, model.tokenizer, { behaviour: run.behaviour, maxContextTokens }).inputIds;
      const [sequences] = await decode(model, [prompt], generationConfigOf(spec, run.seed), { signal });
      if (signal?.aborted) throw Object.assign(new Error('generation cancelled'), { name: 'AbortError' });
      let tokens = 0;
      const candidates = sequences.map((s) => {
        tokens += s.tokenIds.length + (s.endedWithEos ? 1 : 0);
        const decoding: DecodingSettings = { ...s.settings, behaviour: run.behaviour, maxContextTokens };
        return { text: cleanResponse(model.tokenizer.decode(s.tokenIds)), origin: { kind: 'model' as const, model: model.ref, decoding, createdAt } };
      });
      return { candidates, tokens };
    },
    dispose: async () => {
      if (!options.keepOpen) await model.dispose();
    },
  };
}
