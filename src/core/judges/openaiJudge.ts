/**
 * A judge on any OpenAI-compatible chat completions endpoint (OpenAI, Azure, vLLM, Ollama, llama.cpp server),
 * through the `openai` package. Temperature 0 (ICMI 2023 §3.3). Retries with exponential backoff that honour
 * `Retry-After` are the `openai` package's own (`maxRetries`).
 */
import OpenAI from 'openai';
import { resultFromReply, type Judge, type JudgeRequest, type JudgeResult } from './judge';

/** Connection settings. The API key is passed in, never read from settings files. */
export interface OpenAIJudgeOptions {
  /** e.g. `https://api.openai.com/v1` or `http://127.0.0.1:8000/v1`. */
  baseURL: string;
  model: string;
  apiKey: string;
  /** Extra HTTP headers (e.g. Azure's `api-key`). */
  headers?: Record<string, string>;
  /** Default 3. */
  maxRetries?: number;
  /** Per-request timeout in ms (default 60 000). */
  timeoutMs?: number;
  /** Default 16: a rating needs a few tokens. */
  maxTokens?: number;
}

/** Creates a chat-completions judge. Its id is `api:<model>`. */
export function openAIChatJudge(options: OpenAIJudgeOptions): Judge {
  const client = new OpenAI({
    baseURL: options.baseURL,
    apiKey: options.apiKey,
    defaultHeaders: options.headers,
    maxRetries: options.maxRetries ?? 3,
    timeout: options.timeoutMs ?? 60_000,
  });
  return {
    id: `api:${options.model}`,
    async judge(req: JudgeRequest): Promise<JudgeResult> {
      const completion = await client.chat.completions.create(
        {
          model: options.model,
          messages: [{ role: 'user', content: req.prompt }],
          temperature: 0,
          max_tokens: options.maxTokens ?? 16,
        },
        { signal: req.signal },
      );
      const raw = completion.choices?.[0]?.message?.content;
      if (typeof raw !== 'string') return { raw: '', value: null, status: 'error', message: 'the endpoint returned no message content' };
      return resultFromReply(raw, req.spec);
    },
  };
}
