/**
 * The webview's side of the message layer (webview/shared/messages.ts; the host's side:
 * src/extension/webviewChannel.ts): one per webview page. It numbers what the webview sends, pairs each request with
 * the `ack` that answers it (calling its result handler before any later message is handled), withdraws a request
 * whose signal is aborted (`cancel`; its answer, should one still come, is dropped), hands the host's notifications
 * to their handlers, and remembers how far the host has got ({@link Done}, stamped on every host message).
 *
 * The numbers start at 1 with each page. A page reloaded after the host has seen higher numbers starts the host's
 * count again (`Watermark`); its first message, `ready`, goes out before anything the host must acknowledge.
 */
import {
  ACK,
  CANCEL,
  isEnvelope,
  type AckParams,
  type CancelParams,
  type Done,
  type HostEnvelope,
  type Protocol,
  type RequestParams,
  type RequestResult,
  type RequestType,
  type ToHostParams,
  type ToHostType,
  type ToWebviewParams,
  type ToWebviewType,
  type WebviewEnvelope,
} from './messages';

/** What `acquireVsCodeApi()` gives a webview page. */
export interface VsCodeApi {
  postMessage(msg: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;
let api: VsCodeApi | undefined;

/** The page's VS Code API (`acquireVsCodeApi` may be called only once per page). */
export function vscodeApi(): VsCodeApi {
  return (api ??= acquireVsCodeApi());
}

/** The error a request's promise rejects with when it is withdrawn. */
export class RequestCancelled extends Error {
  constructor(type: string) {
    super(`${type} was cancelled`);
    this.name = 'RequestCancelled';
  }
}

interface Waiting {
  type: string;
  onResult?: (result: unknown, ack: HostEnvelope<typeof ACK, AckParams>) => void;
  resolve(result: unknown): void;
  reject(err: Error): void;
}

/** A request on its way: its number, and its result once the host answers. */
export interface SentRequest<R> {
  seq: number;
  result: Promise<R>;
}

/** The webview's end of its messages, typed by its protocol `P`. */
export class WebviewChannel<P extends Protocol> {
  private seq = 0;
  private doneSoFar: Done = { webview: 0, host: 0 };
  private readonly handlers = new Map<string, (params: unknown, env: HostEnvelope) => void>();
  private readonly waiting = new Map<number, Waiting>();
  private readonly afterEach: ((env: HostEnvelope) => void)[] = [];

  /**
   * @param vscode - the page's VS Code API ({@link vscodeApi})
   * @param listen - registers the function that takes each message the page receives (by default, `window`'s
   *   `message` events)
   */
  constructor(
    private readonly vscode: VsCodeApi = vscodeApi(),
    listen: (take: (data: unknown) => void) => void = (take) => window.addEventListener('message', (e: MessageEvent) => take(e.data)),
  ) {
    listen((data) => this.receive(data));
  }

  /** How far the host had got by its last message. */
  get done(): Done {
    return this.doneSoFar;
  }

  /** The number of the last message sent (0: none yet). */
  get lastSeq(): number {
    return this.seq;
  }

  /** Requests sent and not yet answered (of one kind, or all). */
  outstanding(type?: RequestType<P>): number {
    if (type === undefined) return this.waiting.size;
    let n = 0;
    for (const w of this.waiting.values()) if (w.type === type) n++;
    return n;
  }

  /**
   * Sends a notification.
   *
   * @returns its number
   */
  notify<K extends ToHostType<P>>(type: K, params: ToHostParams<P, K>): number {
    const seq = ++this.seq;
    this.vscode.postMessage({ type, seq, params } satisfies WebviewEnvelope);
    return seq;
  }

  /**
   * Sends a request. Its result comes in the host's `ack`: `onResult` runs as that message is handled (before the
   * next one, and before the handlers registered with {@link after}); the promise settles too. The promise rejects
   * with the host's error, or with {@link RequestCancelled} once `signal` aborts (a `cancel` goes to the host).
   */
  request<K extends RequestType<P>>(
    type: K,
    params: RequestParams<P, K>,
    options: { signal?: AbortSignal; onResult?: (result: RequestResult<P, K>, ack: HostEnvelope<typeof ACK, AckParams>) => void } = {},
  ): SentRequest<RequestResult<P, K>> {
    const seq = ++this.seq;
    const result = new Promise<RequestResult<P, K>>((resolve, reject) => {
      this.waiting.set(seq, { type, onResult: options.onResult as Waiting['onResult'], resolve: resolve as (r: unknown) => void, reject });
    });
    // A caller that only wants `onResult` (or nothing) does not leave an unhandled rejection behind.
    result.catch(() => undefined);
    this.vscode.postMessage({ type, seq, params, request: true } satisfies WebviewEnvelope);
    const signal = options.signal;
    if (signal) {
      const withdraw = () => {
        const w = this.waiting.get(seq);
        if (!w) return;
        this.waiting.delete(seq);
        this.vscode.postMessage({ type: CANCEL, seq: ++this.seq, params: { re: seq } satisfies CancelParams } satisfies WebviewEnvelope);
        w.reject(new RequestCancelled(type));
      };
      if (signal.aborted) withdraw();
      else signal.addEventListener('abort', withdraw, { once: true });
    }
    return { seq, result };
  }

  /** Handles a notification from the host (one handler per kind; a later one replaces it). */
  on<K extends ToWebviewType<P>>(type: K, handler: (params: ToWebviewParams<P, K>, env: HostEnvelope<K, ToWebviewParams<P, K>>) => void): this {
    this.handlers.set(type, handler as (params: unknown, env: HostEnvelope) => void);
    return this;
  }

  /** Runs `listener` after every message from the host has been handled (its handler, or a request's result). */
  after(listener: (env: HostEnvelope) => void): this {
    this.afterEach.push(listener);
    return this;
  }

  /** The page's saved state (VS Code keeps it across reloads of the page). */
  getState<T extends object>(): Partial<T> {
    return ((this.vscode.getState() as Partial<T> | undefined) ?? {}) as Partial<T>;
  }

  /** Merges `patch` into the page's saved state (other parts of the page keep theirs). */
  patchState(patch: object): void {
    this.vscode.setState({ ...((this.vscode.getState() as object | undefined) ?? {}), ...patch });
  }

  /** Takes one message from the host (anything that is not an envelope is ignored). */
  receive(data: unknown): void {
    if (!isEnvelope(data)) return;
    const env = data as HostEnvelope;
    if (env.done) this.doneSoFar = env.done;
    if (env.type === ACK) this.answer(env as HostEnvelope<typeof ACK, AckParams>);
    else this.handlers.get(env.type)?.(env.params, env);
    for (const listener of this.afterEach) listener(env);
  }

  private answer(env: HostEnvelope<typeof ACK, AckParams>): void {
    const re = env.params.re;
    if (re === undefined) return;
    const w = this.waiting.get(re);
    if (!w) return;
    this.waiting.delete(re);
    const p = env.params;
    if (p.cancelled) return w.reject(new RequestCancelled(w.type));
    if (p.error !== undefined) return w.reject(new Error(p.error));
    w.onResult?.(p.result, env);
    w.resolve(p.result);
  }
}
