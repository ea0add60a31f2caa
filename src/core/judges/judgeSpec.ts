/**
 * The judge matrix run configuration (judges × task bodies × assessment requests, ICMI 2023 §2.4) and the
 * arithmetic of a run: number of calls and estimated cost.
 */
import { ConfigError } from '../config';
import type { DialogueItem } from '../dialogue/types';

/** One judge of a run. API keys are never in the config: `apiKeyEnv` names the environment variable. */
export interface JudgeSpec {
  backend: 'openai-chat' | 'openai-completions' | 'local';
  /** API model name, or for `local` a model folder / hub id (omit for the bundled model). */
  model?: string;
  baseURL?: string;
  headers?: Record<string, string>;
  /** Environment variable holding the API key (default `REFLECT_EVAL_API_KEY`). */
  apiKeyEnv?: string;
  /** Ask for token log-probabilities (API backends) to compute expected scores. */
  logprobs?: boolean;
  maxTokens?: number;
  /** API backends: sampling temperature (default 0, ICMI 2023 §3.3). */
  temperature?: number;
  /**
   * `openai-chat` only: the endpoint supports OpenAI's structured outputs, so error-category requests are sent with
   * `response_format: {type: 'json_schema', …}` (otherwise their replies are parsed robustly).
   */
  jsonSchema?: boolean;
  /**
   * `local` only: wrap prompts in the model's chat template — default when the model folder has one (instruct
   * models); `false` uses prompts as they are, `true` requires a template (localJudge.ts).
   */
  chat?: boolean;
  /** `local` chat judges: a system turn before the prompt (default none). */
  system?: string;
  /** `local` chat judges: variables for the chat template (default `{"enable_thinking": false}`). */
  templateArgs?: Record<string, unknown>;
  /** `local`: error-category requests also write a rationale after the verdict (default false). */
  rationale?: boolean;
  /** `local`: the rationale's length bound in tokens (default 96). */
  rationaleTokens?: number;
}

/** Price of a model in currency units per million tokens. */
export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
}

export interface RunConfig {
  judges: JudgeSpec[];
  bodies: string[];
  requests: string[];
  concurrency?: number;
  /** Prices by model name (editable; no built-in prices). */
  prices?: Record<string, Price>;
}

/** A run config problem, naming the file and field (the shared {@link ConfigError}). */
export { ConfigError as RunConfigError } from '../config';

/**
 * Checks a parsed run config.
 *
 * @throws RunConfigError naming the file and the offending field
 */
export function validateRunConfig(value: unknown, file: string): RunConfig {
  const fail = (field: string, msg: string): never => {
    throw new ConfigError(file, field, msg);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('(root)', 'must be a JSON object');
  const c = value as Record<string, unknown>;
  for (const key of ['judges', 'bodies', 'requests']) {
    if (!Array.isArray(c[key]) || (c[key] as unknown[]).length === 0) fail(key, 'must be a non-empty array');
  }
  (c.judges as unknown[]).forEach((j, i) => {
    const s = j as Record<string, unknown>;
    if (!['openai-chat', 'openai-completions', 'local'].includes(String(s?.backend))) fail(`judges[${i}].backend`, 'must be "openai-chat", "openai-completions" or "local"');
    if (s.backend !== 'local' && typeof s.model !== 'string') fail(`judges[${i}].model`, 'is required for API judges');
    if (s.backend !== 'local' && typeof s.baseURL !== 'string') fail(`judges[${i}].baseURL`, 'is required for API judges');
    if ('apiKey' in s) fail(`judges[${i}].apiKey`, 'keys do not belong in a run config: name an environment variable in "apiKeyEnv"');
  });
  (c.bodies as unknown[]).forEach((b, i) => typeof b === 'string' || fail(`bodies[${i}]`, 'must be a template name'));
  (c.requests as unknown[]).forEach((r, i) => typeof r === 'string' || fail(`requests[${i}]`, 'must be a template name'));
  if (c.concurrency !== undefined && !(Number.isInteger(c.concurrency) && (c.concurrency as number) >= 1)) fail('concurrency', 'must be an integer ≥ 1');
  for (const [model, p] of Object.entries((c.prices as Record<string, Price> | undefined) ?? {})) {
    if (!(typeof p?.inputPerMTok === 'number' && typeof p?.outputPerMTok === 'number')) fail(`prices.${model}`, 'needs numeric "inputPerMTok" and "outputPerMTok"');
  }
  return c as unknown as RunConfig;
}

/** Number of judgements a run will make at most: candidates × judges × bodies × requests. */
export function plannedCalls(items: readonly DialogueItem[], config: RunConfig): number {
  const candidates = items.reduce((n, it) => n + it.candidates.length, 0);
  return candidates * config.judges.length * config.bodies.length * config.requests.length;
}

/** Cost of token usage at a price (per million tokens); 0 tokens cost 0. */
export function costOf(usage: { promptTokens: number; completionTokens: number }, price: Price | undefined): number | null {
  if (!price) return null;
  return (usage.promptTokens * price.inputPerMTok + usage.completionTokens * price.outputPerMTok) / 1e6;
}
