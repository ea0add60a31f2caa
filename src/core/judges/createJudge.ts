/**
 * Building a judge from a {@link JudgeSpec}, shared by the CLI and the extension (which differ only in where
 * the API key comes from: an environment variable, or VS Code SecretStorage).
 */
import { DEFAULT_GENERATOR, loadGenerativeModel, type ModelLocator } from '../models/registry';
import type { Judge } from './judge';
import { localOnnxJudge } from './localJudge';
import { openAIChatJudge } from './openaiJudge';
import type { JudgeSpec } from './judgeSpec';

/**
 * What identifies a judge's behaviour, for cache keys and manifests: the spec without secrets, at temperature 0.
 */
export function judgeDescription(spec: JudgeSpec): Record<string, unknown> {
  const { apiKeyEnv: _secretSource, ...rest } = spec;
  // `temperature: 0` last, as ReflectEval 0.1.0 wrote it, so its caches stay valid for judges at temperature 0.
  return { ...rest, temperature: spec.temperature ?? 0 };
}

/**
 * Creates the judge a spec describes. A local judge is any model the registry resolves (`bundled:<name>`, a
 * folder relative to `models.baseDir`, an absolute folder, a hub id; decoder-only or encoder-decoder); the
 * default is the bundled model.
 *
 * @param options.apiKey - required for API judges
 * @param options.models - where model references are resolved
 * @returns the judge and a function releasing its resources (the local model's session)
 * @throws Error when an API judge has no key or no model name; ModelSourceError for a local model that cannot load
 */
export async function createJudge(spec: JudgeSpec, options: { apiKey?: string; models: ModelLocator }): Promise<{ judge: Judge; dispose: () => Promise<void> }> {
  if (spec.backend === 'local') {
    const model = await loadGenerativeModel(spec.model ?? DEFAULT_GENERATOR, options.models);
    const judge = localOnnxJudge(model, undefined, {
      ...(spec.chat !== undefined ? { chat: spec.chat } : {}),
      ...(spec.system !== undefined ? { system: spec.system } : {}),
      ...(spec.templateArgs !== undefined ? { templateArgs: spec.templateArgs } : {}),
      ...(spec.rationale !== undefined ? { rationale: spec.rationale } : {}),
      ...(spec.rationaleTokens !== undefined ? { rationaleTokens: spec.rationaleTokens } : {}),
    });
    return { judge, dispose: () => model.dispose() };
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
    temperature: spec.temperature,
    // The job's pool (AdaptiveConcurrency in runJudge) retries 429s and lowers its concurrency; the client does not.
    rateLimits: 'caller',
    jsonSchema: spec.jsonSchema,
  });
  return { judge, dispose: async () => {} };
}

/** A short label of a judge for pickers and messages: `local: bundled:reflect-gpt2-tiny`, `openai-chat: m @ http://…`. */
export function judgeLabel(spec: JudgeSpec): string {
  return spec.backend === 'local' ? `local: ${spec.model ?? DEFAULT_GENERATOR}` : `${spec.backend}: ${spec.model} @ ${spec.baseURL}`;
}
