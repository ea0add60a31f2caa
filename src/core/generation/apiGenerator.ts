/**
 * API generators: candidate responses from an OpenAI-compatible endpoint (OpenAI, Azure, vLLM, Ollama,
 * llama.cpp server), as the seeds' GPT-3 / GPT-3.5 reflections were made (ICMI 2023 §3.1: text-davinci-002).
 *
 * - `completions` (legacy /completions): the prompt is the context in the seeds' model-input format
 *   ({@link renderContext}, GEM 2022 §3.2, ending in `|<therapist> ~<listening>`), stopped at the next utterance
 *   separator (` |<`) by default.
 * - `chat` (/chat/completions): the messages of an editable chat template ({@link renderChatMessages}).
 *
 * One request asks for `n` samples at `temperature` / `top_p` with at most `max_tokens` new tokens (OpenAI's
 * parameter names); a `seed` is sent when given (OpenAI treats it as best effort). Retries with exponential
 * backoff that honour `Retry-After` are the `openai` package's own (`maxRetries`), as for the judges. Replies are
 * cached in a persistent JSONL {@link ResponseCache} keyed by the backend description (kind, endpoint URL, model,
 * header names — never the key or header values) and the full JSON request body, so a re-run with the same
 * settings and seed gives the same candidates without a call.
 */
import OpenAI from 'openai';
import { responseCacheKey, ResponseCache, type CacheStats } from '../cache/responseCache';
import type { DecodingSettings, TherapistBehaviour, Turn } from '../dialogue/types';
import { renderChatMessages, type ChatTemplate } from '../templates/chatTemplate';
import { cleanResponse, renderContext, UTTERANCE_SEPARATOR } from '../templates/modelInput';
import type { CandidateGenerator } from './run';
import { sequencesPerContext, type DecodingSpec } from './runConfig';

/** Default stop sequence of the completions protocol: the start of the next utterance in the seeds' format. */
export const COMPLETIONS_STOP = [UTTERANCE_SEPARATOR + '<'];

/** Connection settings of an API generator. The API key is passed in, never read from settings files. */
export interface ApiGeneratorOptions {
  protocol: 'chat' | 'completions';
  /** e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8000/v1`. */
  baseURL: string;
  model: string;
  apiKey: string;
  /** Extra HTTP headers (e.g. Azure's `api-key`); only their names enter cache keys. */
  headers?: Record<string, string>;
  /** Retries of a failed call (429, 5xx, timeouts), honouring `Retry-After` (default 3). */
  maxRetries?: number;
  /** Per-request timeout in ms (default 60 000). */
  timeoutMs?: number;
  /** Required for `chat`. */
  chatTemplate?: ChatTemplate;
  /** Stop sequences (default: {@link COMPLETIONS_STOP} for completions, none for chat). */
  stop?: string[];
  /** Replies are read from and written to this cache when given. */
  cache?: ResponseCache<ApiReply>;
  /**
   * Answer only from the cache, never call: a request not in it fails with this message (batch mode, where the
   * Batch API filled the cache first; generation/apiBatch.ts).
   */
  cacheOnly?: string;
}

/** Sampling parameters of one request (OpenAI's, in camelCase). */
export interface ApiSamplingParams {
  /** Samples to return, ≥ 1. */
  n: number;
  /** ≥ 0; 0 asks for (near-)greedy output. */
  temperature: number;
  /** In (0, 1]. */
  topP: number;
  /** Tokens per sample at most, ≥ 1. */
  maxTokens: number;
  seed?: number;
}

/** A reply: one text per sample, in choice-index order. */
export interface ApiReply {
  texts: string[];
  finishReasons: (string | null)[];
  usage?: { promptTokens: number; completionTokens: number };
}

/** The JSON body of one request (chat or completions). */
export type ApiRequestBody = Record<string, unknown>;

/** A generator on an OpenAI-compatible endpoint. */
export class ApiGenerator {
  /** What identifies the backend's behaviour in cache keys (no secrets). */
  readonly description: Record<string, unknown>;
  /** Calls made and replies served from the cache. */
  readonly stats: CacheStats = { hits: 0, calls: 0 };
  private readonly client: OpenAI;
  private readonly stop: string[];

  /** @throws Error when a chat generator has no chat template */
  constructor(readonly options: ApiGeneratorOptions) {
    if (options.protocol === 'chat' && !options.chatTemplate) throw new Error(`the chat generator ${options.model} needs a chat template`);
    this.client = new OpenAI({
      baseURL: options.baseURL,
      apiKey: options.apiKey,
      defaultHeaders: options.headers,
      maxRetries: options.maxRetries ?? 3,
      timeout: options.timeoutMs ?? 60_000,
    });
    this.stop = options.stop ?? (options.protocol === 'completions' ? COMPLETIONS_STOP : []);
    this.description = {
      kind: `openai-${options.protocol}`,
      baseURL: options.baseURL,
      model: options.model,
      ...(options.headers ? { headerNames: Object.keys(options.headers).sort() } : {}),
    };
  }

  /** How candidate origins name the prompt: the seeds' format, or the chat template with its hash. */
  get promptFormat(): string {
    return this.options.protocol === 'chat' ? `chat-template@${this.options.chatTemplate!.hash}` : 'gem2022-model-input';
  }

  /** Stop sequences sent with every request. */
  get stopSequences(): readonly string[] {
    return this.stop;
  }

  /** The request body for one context (what is sent, and what the cache key covers). */
  requestBody(context: readonly Turn[], params: ApiSamplingParams, behaviour: TherapistBehaviour = 'reflection'): ApiRequestBody {
    if (!(Number.isInteger(params.n) && params.n >= 1)) throw new RangeError(`n must be an integer ≥ 1, got ${params.n}`);
    if (!(params.topP > 0 && params.topP <= 1)) throw new RangeError(`top_p must be in (0, 1], got ${params.topP}`);
    if (!(params.temperature >= 0)) throw new RangeError(`temperature must be ≥ 0, got ${params.temperature}`);
    if (!(Number.isInteger(params.maxTokens) && params.maxTokens >= 1)) throw new RangeError(`max_tokens must be an integer ≥ 1, got ${params.maxTokens}`);
    const input =
      this.options.protocol === 'chat'
        ? { messages: renderChatMessages(this.options.chatTemplate!, context, behaviour) }
        : { prompt: renderContext(context, behaviour) };
    return {
      model: this.options.model,
      ...input,
      n: params.n,
      temperature: params.temperature,
      top_p: params.topP,
      max_tokens: params.maxTokens,
      ...(params.seed !== undefined ? { seed: params.seed } : {}),
      ...(this.stop.length ? { stop: this.stop } : {}),
    };
  }

  /** The response-cache key of a request body: the backend description and the body (no secrets). */
  cacheKey(body: ApiRequestBody): string {
    return responseCacheKey(this.description, JSON.stringify(body));
  }

  /**
   * Asks for `params.n` samples for one context, or serves them from the cache.
   *
   * @returns the reply and whether it came from the cache (usage is omitted for cached replies: nothing was spent)
   * @throws the `openai` package's APIError after its retries, Error when the reply lacks a sample's text, or Error
   *   with the `cacheOnly` message for a request not in the cache in that mode
   */
  async complete(context: readonly Turn[], params: ApiSamplingParams, options: { behaviour?: TherapistBehaviour; signal?: AbortSignal } = {}): Promise<ApiReply & { cached: boolean }> {
    const body = this.requestBody(context, params, options.behaviour);
    const key = this.cacheKey(body);
    const hit = this.options.cache?.get(key);
    if (hit) {
      this.stats.hits++;
      const { usage: _spentEarlier, ...rest } = hit;
      return { ...rest, cached: true };
    }
    if (this.options.cacheOnly) throw new Error(this.options.cacheOnly);
    this.stats.calls++;
    const reply = await this.call(body, options.signal);
    this.options.cache?.set(key, reply);
    return { ...reply, cached: false };
  }

  private async call(body: ApiRequestBody, signal?: AbortSignal): Promise<ApiReply> {
    const res =
      this.options.protocol === 'chat'
        ? await this.client.chat.completions.create(body as unknown as OpenAI.Chat.ChatCompletionCreateParamsNonStreaming, { signal })
        : await this.client.completions.create(body as unknown as OpenAI.CompletionCreateParamsNonStreaming, { signal });
    return this.replyFrom(body, res);
  }

  /**
   * The reply a response body holds — a `chat.completion` or a `text_completion`, from an online call or a Batch API
   * output line — for the request `body` (its `n` samples, in choice-index order).
   *
   * @throws Error when the body has another number of choices than `n`, or a choice without text
   */
  replyFrom(body: ApiRequestBody, res: unknown): ApiReply {
    type Choice = { index: number; text?: string | null; message?: { content?: string | null }; finish_reason?: string | null };
    const r = (res ?? {}) as { choices?: Choice[]; usage?: { prompt_tokens?: number; completion_tokens?: number } };
    const choices = (r.choices ?? [])
      .map((c) => ({ index: c.index, text: this.options.protocol === 'chat' ? c.message?.content : c.text, finishReason: c.finish_reason ?? null }))
      .sort((a, b) => a.index - b.index);
    const usage = r.usage;
    const n = body.n as number;
    if (choices.length !== n) throw new Error(`${this.options.model}: asked for ${n} samples, the endpoint returned ${choices.length}`);
    choices.forEach((c, i) => {
      if (typeof c.text !== 'string') throw new Error(`${this.options.model}: sample ${i} has no text`);
    });
    return {
      texts: choices.map((c) => c.text as string),
      finishReasons: choices.map((c) => c.finishReason),
      ...(usage ? { usage: { promptTokens: usage.prompt_tokens ?? 0, completionTokens: usage.completion_tokens ?? 0 } } : {}),
    };
  }
}

/**
 * The OpenAI sampling parameters of a decoding setting, or why an endpoint cannot run it: greedy → temperature
 * 0, top_p 1, n 1; nucleusSampling → its top_p, temperature (default 1) and numReturnSequences as n. Beam search,
 * top-k, repetition penalties and n-gram blocking have no OpenAI parameter.
 */
export function apiSamplingParams(spec: DecodingSpec & { maxNewTokens: number }, seed: number): ApiSamplingParams | { unsupported: string } {
  if (spec.strategy === 'beamSearch') return { unsupported: 'OpenAI-compatible endpoints offer no beam search' };
  if (spec.topK) return { unsupported: 'OpenAI-compatible endpoints take no top_k' };
  if (spec.noRepeatNgramSize) return { unsupported: 'OpenAI-compatible endpoints take no no_repeat_ngram_size' };
  if (spec.repetitionPenalty !== undefined && spec.repetitionPenalty !== 1) return { unsupported: 'OpenAI-compatible endpoints take no repetition_penalty' };
  if (spec.strategy === 'greedy') return { n: 1, temperature: 0, topP: 1, maxTokens: spec.maxNewTokens, seed };
  return { n: sequencesPerContext(spec), temperature: spec.temperature ?? 1, topP: spec.topP ?? 1, maxTokens: spec.maxNewTokens, seed };
}

/**
 * An API generator as a run's {@link CandidateGenerator}. Each candidate's origin is `{kind: "api", model,
 * backend ("openai-chat" | "openai-completions"), promptFormat, decoding}` — no endpoint URL — where `decoding`
 * records the strategy, temperature, topP, maxNewTokens (max_tokens), numReturnSequences (n), seed, stop,
 * behaviour and the sample index.
 */
export function apiCandidateGenerator(api: ApiGenerator): CandidateGenerator {
  const { protocol, model } = api.options;
  return {
    id: model,
    unsupported: (spec) => {
      const p = apiSamplingParams({ ...spec, maxNewTokens: spec.maxNewTokens ?? 1 }, 0);
      return 'unsupported' in p ? p.unsupported : undefined;
    },
    async generate(item, spec, run, createdAt, signal) {
      const params = apiSamplingParams(spec, run.seed);
      if ('unsupported' in params) throw new Error(params.unsupported);
      const reply = await api.complete(item.context, params, { behaviour: run.behaviour, signal });
      const decoding: DecodingSettings = {
        strategy: spec.strategy,
        maxNewTokens: params.maxTokens,
        temperature: params.temperature,
        topP: params.topP,
        numReturnSequences: params.n,
        seed: run.seed,
        behaviour: run.behaviour,
        ...(api.stopSequences.length ? { stop: [...api.stopSequences] } : {}),
      };
      return {
        candidates: reply.texts.map((text, sampleIndex) => ({
          text: cleanResponse(text),
          origin: { kind: 'api' as const, model, backend: `openai-${protocol}`, promptFormat: api.promptFormat, decoding: { ...decoding, sampleIndex }, createdAt },
        })),
        tokens: reply.usage?.completionTokens ?? 0,
      };
    },
    dispose: async () => {},
  };
}
