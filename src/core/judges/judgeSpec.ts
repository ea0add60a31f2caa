/**
 * A judge of a run (an API model or a local one, ICMI 2023 §2.4), a model's price, and what tokens cost at it. The
 * judge plan that crosses judges with task bodies and assessment requests is the judge job's (src/core/jobs/judge.ts).
 */

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
}

/** Price of a model in currency units per million tokens. */
export interface Price {
  inputPerMTok: number;
  outputPerMTok: number;
}

/** Cost of token usage at a price (per million tokens); 0 tokens cost 0. */
export function costOf(usage: { promptTokens: number; completionTokens: number }, price: Price | undefined): number | null {
  if (!price) return null;
  return (usage.promptTokens * price.inputPerMTok + usage.completionTokens * price.outputPerMTok) / 1e6;
}
