/**
 * Building a judge from a {@link JudgeSpec}, shared by the CLI and the extension (which differ only in where
 * the API key comes from: an environment variable, or VS Code SecretStorage).
 */
import { OnnxCausalLM } from '../models/causalLM';
import { DEFAULT_GENERATOR } from '../models/registry';
import type { Judge } from './judge';
import { localOnnxJudge } from './localJudge';
import { openAIChatJudge } from './openaiJudge';
import type { JudgeSpec } from './runConfig';

/** How outputs name the demo model bundled with ReflectEval (its install path differs on every machine). */
export const BUNDLED_MODEL_ID = DEFAULT_GENERATOR;

/**
 * What identifies a judge's behaviour, for cache keys and manifests: the spec without secrets, at temperature 0.
 */
export function judgeDescription(spec: JudgeSpec): Record<string, unknown> {
  const { apiKeyEnv: _secretSource, ...rest } = spec;
  return { ...rest, temperature: 0 };
}

/**
 * Creates the judge a spec describes.
 *
 * @param options.apiKey - required for API judges
 * @param options.bundledModel - folder of the bundled model, used by a local judge without `model`
 * @returns the judge and a function releasing its resources (the local model's session)
 * @throws Error when an API judge has no key or no model name
 */
export async function createJudge(spec: JudgeSpec, options: { apiKey?: string; bundledModel: string }): Promise<{ judge: Judge; dispose: () => Promise<void> }> {
  if (spec.backend === 'local') {
    const model = spec.model ? await OnnxCausalLM.load(spec.model) : await OnnxCausalLM.load(options.bundledModel, { id: BUNDLED_MODEL_ID });
    return { judge: localOnnxJudge(model), dispose: () => model.dispose() };
  }
  if (!options.apiKey) throw new Error(`no API key for the judge ${spec.model ?? '(no model)'} at ${spec.baseURL ?? '(no baseURL)'}`);
  if (!spec.model) throw new Error(`the ${spec.backend} judge at ${spec.baseURL ?? '(no baseURL)'} needs a model name`);
  const judge = openAIChatJudge({
    baseURL: spec.baseURL ?? 'https://api.openai.com/v1',
    model: spec.model,
    apiKey: options.apiKey,
    headers: spec.headers,
    endpoint: spec.backend === 'openai-completions' ? 'completions' : 'chat',
    logprobs: spec.logprobs,
    maxTokens: spec.maxTokens,
  });
  return { judge, dispose: async () => {} };
}
