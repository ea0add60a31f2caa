/**
 * Judges on any OpenAI-compatible endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp server), chat completions or
 * (legacy) completions, through the `openai` package. Temperature 0 (ICMI 2023 §3.3). Retries with exponential
 * backoff that honour `Retry-After` are the `openai` package's own (`maxRetries`) — except HTTP 429 when the judge
 * is built with `rateLimits: 'caller'` (as the judge job builds it): then the 429 is thrown as a `RateLimitedError`
 * and the job's adaptive pool (`remote/adaptiveConcurrency.ts`) lowers its concurrency and retries, so a throttled
 * request backs off once, not twice.
 *
 * With `logprobs`, the reply's first-token alternatives (`top_logprobs`) give a probability-weighted expected
 * score over the valid answers: E = Σ v·p(v) / Σ p(v) over alternatives whose text is a valid answer v.
 */
import OpenAI, { APIError } from 'openai';
import { buildSignature, type Signature } from '../evaluators/signature';
import { RateLimitedError, retryAfterMs } from '../remote/adaptiveConcurrency';
import { resultFromReply, type Judge, type JudgeRequest, type JudgeResult } from './judge';
import { ERROR_CATEGORIES_JSON_SCHEMA } from './parseErrorCategories';
import type { RequestSpec } from '../templates/judgePrompt';

/** Connection settings. The API key is passed in, never read from settings files. */
export interface OpenAIJudgeOptions {
  /** e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8000/v1`. */
  baseURL: string;
  model: string;
  apiKey: string;
  /** `chat` (default): /chat/completions; `completions`: /completions with the prompt as text. */
  endpoint?: 'chat' | 'completions';
  /** Extra HTTP headers (e.g. Azure's `api-key`). */
  headers?: Record<string, string>;
  /** Default 3. */
  maxRetries?: number;
  /** Per-request timeout in ms (default 60 000). */
  timeoutMs?: number;
  /** Default 16: a rating needs a few tokens. */
  maxTokens?: number;
  /** Ask for the first token's alternatives (20 for chat, 5 for completions) to compute `expected`. */
  logprobs?: boolean;
  /** Sampling temperature (default 0, ICMI 2023 §3.3; above 0 for repeated judgements). */
  temperature?: number;
  /**
   * Chat endpoints that support OpenAI's structured outputs: error-category requests are sent with
   * `response_format: {type: 'json_schema', json_schema: ERROR_CATEGORIES_JSON_SCHEMA}`. Without it the reply is
   * parsed robustly (JSON, a code fence, labelled lines or a list of names).
   */
  jsonSchema?: boolean;
  /**
   * Who retries HTTP 429: `client` (default) — the `openai` package, with its backoff and `Retry-After`; `caller` —
   * nobody here: a 429 is thrown at once as a {@link RateLimitedError} for an {@link AdaptiveConcurrency} to lower
   * its limit and retry (the judge job does this; other errors are still retried by the client).
   */
  rateLimits?: 'client' | 'caller';
}

/** The request body of one judgement (chat or legacy completions), as the online call and the Batch API send it. */
export function judgeRequestBody(options: Omit<OpenAIJudgeOptions, 'apiKey'>, prompt: string, spec?: RequestSpec): Record<string, unknown> {
  const errorCategories = spec?.kind === 'errorCategories';
  const common = { model: options.model, temperature: options.temperature ?? 0, max_tokens: options.maxTokens ?? (errorCategories ? ERROR_CATEGORIES_MAX_TOKENS : 16) };
  if (options.endpoint === 'completions') return { ...common, prompt, ...(options.logprobs ? { logprobs: 5 } : {}) };
  return {
    model: options.model,
    messages: [{ role: 'user', content: prompt }],
    temperature: common.temperature,
    max_tokens: common.max_tokens,
    ...(options.logprobs && !errorCategories ? { logprobs: true, top_logprobs: 20 } : {}),
    ...(options.jsonSchema && errorCategories ? { response_format: { type: 'json_schema', json_schema: ERROR_CATEGORIES_JSON_SCHEMA } } : {}),
  };
}

/** A (chat) completion object as the endpoint returns it; only the fields a judgement reads. */
interface CompletionLike {
  choices?: {
    text?: unknown;
    message?: { content?: unknown };
    logprobs?: { top_logprobs?: Record<string, number>[]; content?: { top_logprobs?: { token: string; logprob: number }[] }[] } | null;
  }[];
  usage?: { prompt_tokens?: number; completion_tokens?: number };
}

/**
 * Turns a completion body (a chat.completion, or a text_completion for `endpoint: 'completions'`) into a judgement:
 * the reply parsed by {@link resultFromReply}, the expected score from logprobs, the tokens billed. The one reading
 * of replies for online calls and Batch API results alike.
 */
export function resultFromCompletion(completion: unknown, endpoint: 'chat' | 'completions' | undefined, spec: RequestSpec): JudgeResult {
  const c = (completion ?? {}) as CompletionLike;
  let raw: unknown;
  let alternatives: { token: string; logprob: number }[] | undefined;
  if (endpoint === 'completions') {
    raw = c.choices?.[0]?.text;
    const top = c.choices?.[0]?.logprobs?.top_logprobs?.[0];
    if (top) alternatives = Object.entries(top).map(([token, logprob]) => ({ token, logprob: Number(logprob) }));
  } else {
    raw = c.choices?.[0]?.message?.content;
    alternatives = c.choices?.[0]?.logprobs?.content?.[0]?.top_logprobs?.map((t) => ({ token: t.token, logprob: t.logprob }));
  }
  const usage = c.usage;
  const tokens = usage ? { usage: { promptTokens: usage.prompt_tokens ?? 0, completionTokens: usage.completion_tokens ?? 0 } } : {};
  if (typeof raw !== 'string') return { raw: '', value: null, status: 'error', message: 'the endpoint returned no text', ...tokens };
  const expected = alternatives && spec.kind !== 'errorCategories' ? expectedFromLogprobs(alternatives, spec) : undefined;
  return { ...resultFromReply(raw, spec), ...(expected !== undefined ? { expected } : {}), ...tokens };
}

/** A fetch that marks 429 responses as not to be retried by the `openai` client (`x-should-retry: false`). */
function noClientRetryOn429(): typeof fetch {
  return async (input, init) => {
    const res = await fetch(input, init);
    if (res.status !== 429) return res;
    const headers = new Headers(res.headers);
    headers.set('x-should-retry', 'false');
    return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
  };
}

/** Reply length of error-category requests when `maxTokens` is not set: room for the JSON and a rationale. */
export const ERROR_CATEGORIES_MAX_TOKENS = 400;

/**
 * The signature of an OpenAI-compatible judge: everything that changes its replies — protocol, endpoint (without
 * credentials, query or trailing slash), model, temperature, reply length, logprobs, and the names (never the
 * values, which may be keys) of extra headers.
 */
export function openAIJudgeSignature(options: Omit<OpenAIJudgeOptions, 'apiKey'>): Signature {
  let url = options.baseURL;
  try {
    const u = new URL(options.baseURL);
    u.username = '';
    u.password = '';
    u.search = '';
    u.hash = '';
    url = u.toString();
  } catch {
    // Not a URL: the client will fail on it; the signature keeps it as written.
  }
  const headers = Object.keys(options.headers ?? {}).map((h) => h.toLowerCase()).sort();
  return buildSignature([
    ['backend', options.endpoint === 'completions' ? 'openai-completions' : 'openai-chat'],
    ['url', url.replace(/\/+$/, '')],
    ['model', options.model],
    ['temperature', options.temperature ?? 0],
    ['maxTokens', options.maxTokens ?? 16],
    ['logprobs', Boolean(options.logprobs)],
    ['headers', headers.length ? headers.join(',') : undefined],
    ['jsonSchema', options.jsonSchema ? true : undefined],
  ]);
}

/**
 * Expected score from first-token alternatives: Σ v·p(v) / Σ p(v) over alternatives whose trimmed text is a
 * valid answer (a number in range, whole when the request wants whole numbers); undefined when none is.
 *
 * @param alternatives - token text and natural-log probability
 */
export function expectedFromLogprobs(alternatives: { token: string; logprob: number }[], spec: RequestSpec): number | undefined {
  const mass = new Map<number, number>();
  const words = spec.answers ? new Map(Object.entries(spec.answers).map(([w, v]) => [w.toLowerCase(), v])) : undefined;
  for (const a of alternatives) {
    const t = a.token.trim();
    const word = words?.get(t.toLowerCase());
    if (word !== undefined) {
      mass.set(word, (mass.get(word) ?? 0) + Math.exp(a.logprob));
      continue;
    }
    if (!/^\d+(\.\d+)?$/.test(t)) continue;
    const v = Number(t);
    if (v < spec.min || v > spec.max || (spec.integer && !Number.isInteger(v)) || (spec.values && !spec.values.includes(v))) continue;
    mass.set(v, (mass.get(v) ?? 0) + Math.exp(a.logprob));
  }
  let z = 0;
  let s = 0;
  for (const [v, p] of mass) {
    z += p;
    s += v * p;
  }
  return z > 0 ? s / z : undefined;
}

/** Creates an OpenAI-compatible judge. Its id is `api:<model>`. */
export function openAIChatJudge(options: OpenAIJudgeOptions): Judge {
  const caller = options.rateLimits === 'caller';
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    defaultHeaders: options.headers,
    maxRetries: options.maxRetries ?? 3,
    timeout: options.timeoutMs ?? 60_000,
    ...(caller ? { fetch: noClientRetryOn429() } : {}),
  });
  return {
    id: `api:${options.model}`,
    signature: openAIJudgeSignature(options),
    async judge(req: JudgeRequest): Promise<JudgeResult> {
      const body = judgeRequestBody(options, req.prompt, req.spec);
      try {
        const completion =
          options.endpoint === 'completions'
            ? await client.completions.create(body as unknown as OpenAI.CompletionCreateParamsNonStreaming, { signal: req.signal })
            : await client.chat.completions.create(body as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming, { signal: req.signal });
        return resultFromCompletion(completion, options.endpoint, req.spec);
      } catch (err) {
        if (caller && err instanceof APIError && err.status === 429) throw new RateLimitedError(`HTTP 429 from ${options.baseURL}: ${err.message}`, retryAfterMs((h) => err.headers?.get(h)));
        throw err;
      }
    },
  };
}
