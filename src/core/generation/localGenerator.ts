/**
 * Local ONNX models as a run's {@link CandidateGenerator}.
 */
import type { OnnxCausalLM } from '../models/causalLM';
import type { DecodingSettings } from '../model/types';
import { greedySearch } from './decode';
import { cleanResponse } from './generate';
import { buildModelInput } from './modelInput';
import type { CandidateGenerator } from './run';

/**
 * A loaded model as a generator. Each candidate's origin is `{kind: "model", model: <id>, decoding}` where
 * `decoding` records the strategy and every parameter, the seed and the sample index.
 *
 * @param options.keepOpen - do not dispose the model when the run ends (the caller owns it)
 */
export function localCandidateGenerator(model: OnnxCausalLM, options: { keepOpen?: boolean } = {}): CandidateGenerator {
  return {
    id: model.ref,
    unsupported: (spec) => (spec.strategy === 'greedy' ? undefined : `${spec.strategy} needs the new decoding engine`),
    async generate(item, spec, run, createdAt, signal) {
      const maxContextTokens = Math.min(run.maxContextTokens, model.config.maxPositions - spec.maxNewTokens);
      const prompt = buildModelInput(item.context, model.tokenizer, { behaviour: run.behaviour, maxContextTokens }).inputIds;
      const [seq] = await greedySearch(model, [prompt], { maxNewTokens: spec.maxNewTokens, signal });
      const decoding: DecodingSettings = { strategy: 'greedy', maxNewTokens: spec.maxNewTokens, behaviour: run.behaviour, maxContextTokens };
      return {
        candidates: [{ text: cleanResponse(model.tokenizer.decode(seq.tokenIds)), origin: { kind: 'model', model: model.ref, decoding, createdAt } }],
        tokens: seq.tokenIds.length + (seq.endedWithEos ? 1 : 0),
      };
    },
    dispose: async () => {
      if (!options.keepOpen) await model.dispose();
    },
  };
}
