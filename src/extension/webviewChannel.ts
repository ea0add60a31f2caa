/**
 * The host's side of the message layer (webview/shared/messages.ts; the webview's side: webview/shared/ipc.ts): one
 * per webview. It numbers what the host sends and stamps every message with how far the host has got ({@link Done}),
 * hands the webview's notifications to their handlers, runs its requests and answers each with one `ack`, and runs
 * the requests declared `ordered` and the host's own work one at a time, in the order they arrived (the dialogue
 * editor's label edits, the webview's and those the host applies itself). A `cancel` from the webview aborts a request's signal, or drops it while it waits
 * its turn. No `vscode` import: a panel connects it to its webview (panels.ts), and tests drive it directly.
 */
import {
  ACK,
  CANCEL,
  isEnvelope,
  Watermark,
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
} from '../../webview/shared/messages';

/** What a request handler gets besides its parameters. */
export interface RequestContext {
  /** Aborted when the webview withdraws the request (or the channel is disposed). */
  signal: AbortSignal;
  /** The request's number (the webview's). */
  seq: number;
}

interface RequestHandler {
  run(params: unknown, ctx: RequestContext): unknown;
  ordered: boolean;
  arrived?: (params: unknown, seq: number) => void;
  answered?: (ackSeq: number, result: unknown) => void;
}

/** Something to dispose (a VS Code `Disposable`, structurally). */
export interface Disposable {
  dispose(): void;
}

/** The host's end of one webview's messages, typed by its protocol `P`. */
export class HostChannel<P extends Protocol> implements Disposable {
  private seq = 0;
  /** The webview's messages taken in. */
  private readonly fromWebview = new Watermark();
  /** The host's own messages, of which operations are taken in when they start. */
  private readonly own = new Watermark();
  private readonly notifications = new Map<string, (params: unknown, env: WebviewEnvelope) => unknown>();
  private readonly requests = new Map<string, RequestHandler>();
  private readonly running = new Map<number, AbortController>();
  /** Ordered work waiting for its turn, by the number it will be taken in under. */
  private readonly waiting = new Set<number>();
  private queue: Promise<void> = Promise.resolve();
  /** Host work queued so far (its queue keys are negative, the webview's requests' are their numbers). */
  private hostWork = 0;
  private disposed = false;

  /**
   * @param post - delivers one message to the webview (`Webview.postMessage`)
   * @param onError - a handler threw, or a message had no handler: shown or logged by the caller (never thrown
   *   into the transport)
   */
  constructor(
    private readonly post: (msg: HostEnvelope) => unknown,
    private readonly onError: (err: Error) => void = () => undefined,
  ) {}

  /** How far the host has got: stamped on every message it sends. */
  get done(): Done {
    return { webview: this.fromWebview.done, host: this.own.done };
  }

  /** The number of the last message sent (0: none yet). */
  get lastSeq(): number {
    return this.seq;
  }

  /**
   * Sends a notification.
   *
   * @returns its number
   */
  notify<K extends ToWebviewType<P>>(type: K, params: ToWebviewParams<P, K>): number {
    const seq = this.next();
    this.send(type, seq, params);
    return seq;
  }

  /**
   * Handles a notification from the webview (one handler per kind; a later one replaces it). What it throws, or
   * the promise it returns rejects with, goes to `onError`.
   */
  on<K extends ToHostType<P>>(type: K, handler: (params: ToHostParams<P, K>, env: WebviewEnvelope<K, ToHostParams<P, K>>) => unknown): this {
    this.notifications.set(type, handler as (params: unknown, env: WebviewEnvelope) => unknown);
    return this;
  }

  /**
   * Handles a request from the webview: its result (or error) goes back in an `ack`.
   *
   * @param options.ordered - run one at a time with the other ordered requests and the host's operations, in the
   *   order they arrived; the webview's messages after it count as taken in only once it has started
   * @param options.arrived - called as the request arrives, before it waits for its turn
   * @param options.answered - called with the number of the `ack` once sent with a result (e.g. to note that it
   *   moves focus)
   */
  handle<K extends RequestType<P>>(
    type: K,
    handler: (params: RequestParams<P, K>, ctx: RequestContext) => RequestResult<P, K> | Promise<RequestResult<P, K>>,
    options: { ordered?: boolean; arrived?: (params: RequestParams<P, K>, seq: number) => void; answered?: (ackSeq: number, result: RequestResult<P, K>) => void } = {},
  ): this {
    this.requests.set(type, { run: handler as RequestHandler['run'], ordered: !!options.ordered, arrived: options.arrived as RequestHandler['arrived'], answered: options.answered as RequestHandler['answered'] });
    return this;
  }

  /**
   * Runs host work one at a time with the ordered requests, after everything queued before it. The work may
   * `announce` the operation it is about to apply (a notification the webview shows until `done.host` reaches its
   * number: every message sent after the announcement, as the work applies it, says so); an `ack` follows work that
   * announced something.
   */
  ordered(work: (announce: <K extends ToWebviewType<P>>(type: K, params: ToWebviewParams<P, K>) => number) => unknown): void {
    const key = -++this.hostWork;
    this.enqueue(key, async () => {
      let announced = false;
      const announce = <K extends ToWebviewType<P>>(type: K, params: ToWebviewParams<P, K>): number => {
        const seq = this.next(true);
        this.send(type, seq, params);
        this.own.take(seq);
        announced = true;
        return seq;
      };
      try {
        await work(announce);
      } catch (err) {
        this.onError(err as Error);
      }
      if (announced) this.send(ACK, this.next(), {} satisfies AckParams);
    }, () => undefined);
  }

  /** Takes one message from the webview (anything that is not an envelope is ignored). */
  receive(msg: unknown): void {
    if (this.disposed || !isEnvelope(msg)) return;
    const env = msg as WebviewEnvelope;
    if (env.type === CANCEL) {
      this.fromWebview.seen(env.seq);
      return this.cancel((env.params as CancelParams).re);
    }
    if (env.request) return this.request(env);
    this.fromWebview.seen(env.seq);
    const handler = this.notifications.get(env.type);
    if (!handler) return this.onError(new Error(`no handler for the webview's ${env.type} message`));
    try {
      const done = handler(env.params, env);
      if (done instanceof Promise) done.catch((err: Error) => this.onError(err));
    } catch (err) {
      this.onError(err as Error);
    }
  }

  /** Stops: requests running are aborted, ordered work not yet started is dropped. */
  dispose(): void {
    this.disposed = true;
    for (const c of this.running.values()) c.abort();
    this.running.clear();
    this.waiting.clear();
  }

  private request(env: WebviewEnvelope): void {
    const handler = this.requests.get(env.type);
    if (!handler) {
      this.fromWebview.seen(env.seq);
      this.send(ACK, this.next(), { re: env.seq, error: `no handler for the webview's ${env.type} request` } satisfies AckParams);
      return;
    }
    const controller = new AbortController();
    // A page reloaded numbers from 1 again: a request of the old page under the same number is withdrawn.
    this.running.get(env.seq)?.abort();
    this.running.set(env.seq, controller);
    try {
      handler.arrived?.(env.params, env.seq);
    } catch (err) {
      this.onError(err as Error);
    }
    const run = async () => {
      this.fromWebview.take(env.seq);
      let ack: AckParams;
      if (controller.signal.aborted) ack = { re: env.seq, cancelled: true };
      else {
        try {
          const result = await handler.run(env.params, { signal: controller.signal, seq: env.seq });
          // Withdrawn while it ran: the webview has stopped waiting for the result.
          ack = controller.signal.aborted ? { re: env.seq, cancelled: true } : { re: env.seq, result };
        } catch (err) {
          ack = controller.signal.aborted ? { re: env.seq, cancelled: true } : { re: env.seq, error: (err as Error).message };
        }
      }
      if (this.running.get(env.seq) === controller) this.running.delete(env.seq);
      if (this.disposed) return;
      const seq = this.next();
      this.send(ACK, seq, ack);
      if (!ack.error && !ack.cancelled) handler.answered?.(seq, ack.result);
    };
    if (handler.ordered) {
      this.fromWebview.opened(env.seq);
      this.enqueue(env.seq, run, () => this.fromWebview.take(env.seq));
    } else {
      this.fromWebview.seen(env.seq);
      void run();
    }
  }

  private cancel(re: number): void {
    this.running.get(re)?.abort();
  }

  /** Queues ordered work; `drop` when the channel is disposed before its turn. */
  private enqueue(key: number, work: () => Promise<void>, drop: () => void): void {
    this.waiting.add(key);
    this.queue = this.queue.then(async () => {
      if (!this.waiting.delete(key)) return drop();
      await work();
    });
  }

  /** The next message's number; `operation`: it announces work taken in later. */
  private next(operation = false): number {
    const seq = ++this.seq;
    if (operation) this.own.opened(seq);
    else this.own.seen(seq);
    return seq;
  }

  private send(type: string, seq: number, params: unknown): void {
    if (this.disposed) return;
    this.post({ type, seq, params, done: this.done });
  }
}
