/**
 * A small OpenAI-compatible HTTP server on 127.0.0.1 for judge-client tests: it records every request and
 * answers from a script of responses (status, headers, body), repeating the last one when the script runs out.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StubResponse {
  status?: number;
  headers?: Record<string, string>;
  /** A chat reply text (wrapped in a chat.completion object), or a raw body string. */
  reply?: string;
  rawBody?: string;
  /** Wait this long before answering (to make the client time out). */
  delayMs?: number;
}

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

export interface StubServer {
  baseURL: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export function chatCompletion(content: string): string {
  return JSON.stringify({
    id: 'chatcmpl-stub',
    object: 'chat.completion',
    created: 0,
    model: 'stub-judge',
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 },
  });
}

/** A chat.completion body with one choice per text (for requests with `n` > 1). */
export function chatCompletionChoices(texts: string[], usage = { prompt_tokens: 10, completion_tokens: 5 * texts.length }): string {
  return JSON.stringify({
    id: 'chatcmpl-stub',
    object: 'chat.completion',
    created: 0,
    model: 'stub',
    choices: texts.map((content, index) => ({ index, message: { role: 'assistant', content }, finish_reason: 'stop' })),
    usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens },
  });
}

/** A (legacy) text_completion body with one choice per text; `order` lists choice indices in the order sent. */
export function textCompletionChoices(texts: string[], order: number[] = texts.map((_, i) => i)): string {
  return JSON.stringify({
    id: 'cmpl-stub',
    object: 'text_completion',
    created: 0,
    model: 'stub',
    choices: order.map((index) => ({ index, text: texts[index], finish_reason: 'stop', logprobs: null })),
    usage: { prompt_tokens: 10, completion_tokens: 5 * texts.length, total_tokens: 10 + 5 * texts.length },
  });
}

export async function startStubOpenAI(script: StubResponse[] | ((req: RecordedRequest) => StubResponse)): Promise<StubServer> {
  const requests: RecordedRequest[] = [];
  let i = 0;
  const server: Server = createServer((req, res) => {
    let data = '';
    req.on('data', (c) => (data += c));
    req.on('end', () => {
      const rec: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: data ? JSON.parse(data) : {} };
      requests.push(rec);
      const r = typeof script === 'function' ? script(rec) : script[Math.min(i++, script.length - 1)];
      const answer = () => {
        if (res.destroyed) return;
        res.writeHead(r.status ?? 200, { 'content-type': 'application/json', ...(r.headers ?? {}) });
        res.end(r.rawBody ?? (r.reply !== undefined ? chatCompletion(r.reply) : JSON.stringify({ error: { message: 'stub error' } })));
      };
      if (r.delayMs) setTimeout(answer, r.delayMs).unref();
      else answer();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
