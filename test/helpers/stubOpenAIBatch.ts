/**
 * A stand-in for OpenAI's files and batches endpoints on 127.0.0.1 (the Batch API: upload a JSONL file with purpose
 * `batch`, create a batch, poll it, download its output and error files), for Batch API tests. Each request line
 * is answered by a script; the batch ends `completed`, `expired` or `failed` after a number of polls, or is held
 * `in_progress` while `hold()` says so. It counts what a resume must not repeat: uploads and batch creations.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chatCompletion, chatCompletionChoices } from './stubOpenAI';

/** How one request line of a batch fares. */
export type BatchLineAnswer =
  /** Answered (HTTP 200) with this chat reply. */
  | { reply: string }
  /** Answered (HTTP 200) with one chat choice per text (a request with `n` > 1). */
  | { replies: string[] }
  /** In the error file with this code (e.g. `batch_expired` for a request an expired batch never ran). */
  | { error: { code: string; message: string } }
  /** In the output file with a non-200 status (the endpoint refused this one request). */
  | { status: number; message: string };

export interface BatchLine {
  custom_id: string;
  method: string;
  url: string;
  body: { model?: string; messages?: { role: string; content: string }[]; [k: string]: unknown };
}

export interface StubBatchOptions {
  answer: (line: BatchLine) => BatchLineAnswer;
  /** Polls (GET /batches/:id) before the batch ends (default 2). */
  pollsToFinish?: number;
  /** How the batch ends (default `completed`). */
  finalStatus?: 'completed' | 'expired' | 'failed';
  /** While true, polls see `in_progress` whatever their count. */
  hold?: () => boolean;
}

export interface StubBatchBatch {
  id: string;
  input_file_id: string;
  endpoint: string;
  completion_window: string;
  status: string;
  polls: number;
  lines: BatchLine[];
  output_file_id?: string;
  error_file_id?: string;
  request_counts: { total: number; completed: number; failed: number };
  errors?: unknown;
}

export interface StubBatchServer {
  baseURL: string;
  /** Files uploaded: purpose and the request lines they held. */
  uploads: { id: string; purpose: string; lines: BatchLine[] }[];
  /** Batches created (POST /batches), in order. */
  batches: StubBatchBatch[];
  /** Every request: method and path. */
  log: { method: string; url: string; authorization?: string }[];
  close(): Promise<void>;
}

export async function startStubBatchAPI(options: StubBatchOptions): Promise<StubBatchServer> {
  const files = new Map<string, string>();
  const uploads: StubBatchServer['uploads'] = [];
  const batches: StubBatchBatch[] = [];
  const log: StubBatchServer['log'] = [];
  let n = 0;
  const send = (res: import('node:http').ServerResponse, status: number, body: unknown, type = 'application/json') => {
    res.writeHead(status, { 'content-type': type });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const view = (b: StubBatchBatch) => ({
    id: b.id,
    object: 'batch',
    endpoint: b.endpoint,
    errors: b.errors ?? null,
    input_file_id: b.input_file_id,
    completion_window: b.completion_window,
    status: b.status,
    output_file_id: b.output_file_id ?? null,
    error_file_id: b.error_file_id ?? null,
    created_at: 0,
    request_counts: b.request_counts,
    metadata: {},
  });
  const finish = (b: StubBatchBatch) => {
    const final = options.finalStatus ?? 'completed';
    const out: string[] = [];
    const err: string[] = [];
    if (final === 'failed') {
      b.errors = { object: 'list', data: [{ code: 'invalid_request', message: 'the stub refused this batch', line: 1 }] };
    } else {
      for (const line of b.lines) {
        const a = options.answer(line);
        if ('replies' in a) out.push(JSON.stringify({ id: `req-${n++}`, custom_id: line.custom_id, response: { status_code: 200, request_id: 'r', body: JSON.parse(chatCompletionChoices(a.replies)) }, error: null }));
        else if ('reply' in a) out.push(JSON.stringify({ id: `req-${n++}`, custom_id: line.custom_id, response: { status_code: 200, request_id: 'r', body: JSON.parse(chatCompletion(a.reply)) }, error: null }));
        else if ('error' in a) err.push(JSON.stringify({ id: `req-${n++}`, custom_id: line.custom_id, response: null, error: a.error }));
        else out.push(JSON.stringify({ id: `req-${n++}`, custom_id: line.custom_id, response: { status_code: a.status, request_id: 'r', body: { error: { message: a.message } } }, error: null }));
      }
    }
    const failed = b.lines.length - out.filter((l) => JSON.parse(l).response.status_code === 200).length;
    b.request_counts = { total: b.lines.length, completed: b.lines.length - failed, failed };
    if (out.length) {
      b.output_file_id = `file-out-${n++}`;
      files.set(b.output_file_id, out.join('\n') + '\n');
    }
    if (err.length) {
      b.error_file_id = `file-err-${n++}`;
      files.set(b.error_file_id, err.join('\n') + '\n');
    }
    b.status = final;
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const url = (req.url ?? '').replace(/\?.*$/, '');
      log.push({ method: req.method ?? '', url, authorization: req.headers.authorization });
      const raw = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'POST' && url === '/v1/files') {
        // multipart/form-data: the file part's lines are the JSONL requests; the purpose is a field.
        const purpose = /name="purpose"\r\n\r\n([^\r\n]*)/.exec(raw)?.[1] ?? '';
        const lines = raw
          .split(/\r?\n/)
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as BatchLine)
          .filter((l) => typeof l.custom_id === 'string');
        const id = `file-in-${n++}`;
        files.set(id, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
        uploads.push({ id, purpose, lines });
        return send(res, 200, { id, object: 'file', bytes: raw.length, created_at: 0, filename: 'input.jsonl', purpose, status: 'processed' });
      }
      if (req.method === 'POST' && url === '/v1/batches') {
        const body = JSON.parse(raw) as { input_file_id: string; endpoint: string; completion_window: string };
        const upload = uploads.find((u) => u.id === body.input_file_id);
        if (!upload) return send(res, 404, { error: { message: `no file ${body.input_file_id}` } });
        const b: StubBatchBatch = { id: `batch_${n++}`, input_file_id: body.input_file_id, endpoint: body.endpoint, completion_window: body.completion_window, status: 'validating', polls: 0, lines: upload.lines, request_counts: { total: upload.lines.length, completed: 0, failed: 0 } };
        batches.push(b);
        return send(res, 200, view(b));
      }
      let m = /^\/v1\/batches\/([^/]+)$/.exec(url);
      if (req.method === 'GET' && m) {
        const b = batches.find((x) => x.id === m![1]);
        if (!b) return send(res, 404, { error: { message: 'no such batch' } });
        b.polls++;
        if (!['completed', 'expired', 'failed'].includes(b.status)) {
          if (!options.hold?.() && b.polls >= (options.pollsToFinish ?? 2)) finish(b);
          else b.status = 'in_progress';
        }
        return send(res, 200, view(b));
      }
      m = /^\/v1\/files\/([^/]+)\/content$/.exec(url);
      if (req.method === 'GET' && m) {
        const text = files.get(m[1]);
        return text === undefined ? send(res, 404, { error: { message: 'no such file' } }) : send(res, 200, text, 'application/octet-stream');
      }
      send(res, 404, { error: { message: `the stub has no ${req.method} ${url}` } });
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    uploads,
    batches,
    log,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
