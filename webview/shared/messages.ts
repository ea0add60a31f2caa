/**
 * The message layer under every webview (issue 38 item 2): what crosses between a webview and its extension host,
 * declared once per webview (its `protocol.ts`) on this base, so both sides compile against one definition. The
 * webview's side is webview/shared/ipc.ts, the host's src/extension/webviewChannel.ts; this file is pure (no DOM,
 * no `vscode`), so both bundle it.
 *
 * A protocol has three parts: notifications the host sends the webview, notifications the webview sends the host,
 * and requests the webview sends the host, each answered by one `ack` with its typed result (or an error, or word
 * that it was cancelled). Every message travels in an {@link Envelope}: its kind (`type`), its parameters, and a
 * number (`seq`) that increases by one per message from its side. The numbers are the one sequence/acknowledge
 * mechanism of the layer:
 *
 * - a request is answered by the `ack` that names its number (`re`);
 * - every message from the host says how far the host has got with what each side started ({@link Done}): the
 *   webview's messages the host has taken in (a request the host runs in order counts once it has started), and
 *   the host's own operations (announced by a message, run later in the same order) it has started. A webview
 *   that shows the effect of a message before the host has applied it (a label typed faster than the host
 *   answers) keeps showing it until `done` covers it;
 * - a message that builds on an earlier one names the earlier one's number (the editor's partial item messages).
 *
 * Modelled on GitLens's `IpcNotification`/`IpcRequest` (gitkraken/vscode-gitlens, src/webviews/protocol.ts and
 * src/webviews/apps/shared/ipc.ts), with one difference: a protocol here is a type (method → parameters), not a
 * set of runtime descriptor objects, so a protocol file holds no code.
 */

/**
 * One webview's messages: notifications each way (method → parameters) and the webview's requests (method →
 * parameters and result). Declared as an interface in the webview's protocol.ts.
 */
export interface Protocol {
  /** Notifications the host sends the webview. */
  toWebview: object;
  /** Notifications the webview sends the host. */
  toHost: object;
  /** Requests the webview sends the host, each answered by one `ack` carrying its result. */
  requests: object;
}

/** A request's parameters and result, as a protocol declares them. */
export interface RequestShape<P = unknown, R = unknown> {
  params: P;
  result: R;
}

/** The kind of the message that answers a request or ends a host operation. */
export const ACK = 'ack';
/** The kind of the message that withdraws a request. */
export const CANCEL = 'cancel';

export type ToWebviewType<P extends Protocol> = keyof P['toWebview'] & string;
export type ToHostType<P extends Protocol> = keyof P['toHost'] & string;
export type RequestType<P extends Protocol> = keyof P['requests'] & string;
export type ToWebviewParams<P extends Protocol, K extends ToWebviewType<P>> = P['toWebview'][K];
export type ToHostParams<P extends Protocol, K extends ToHostType<P>> = P['toHost'][K];
export type RequestParams<P extends Protocol, K extends RequestType<P>> = P['requests'][K] extends RequestShape<infer A, unknown> ? A : never;
export type RequestResult<P extends Protocol, K extends RequestType<P>> = P['requests'][K] extends RequestShape<unknown, infer R> ? R : never;

/** One message on the wire. */
export interface Envelope<T extends string = string, P = unknown> {
  /** The message's kind: a notification's or request's method, or {@link ACK} / {@link CANCEL}. */
  type: T;
  /** Increases by one per message from its side (the webview's numbers survive a reload of its page). */
  seq: number;
  params: P;
}

/** How far the host has got with what each side started (see the top of this file). */
export interface Done {
  /** Every webview message up to this number has been taken in (a request run in order: started). */
  webview: number;
  /** Every host operation announced by a message up to this number has been started. */
  host: number;
}

/** A message from the host. */
export interface HostEnvelope<T extends string = string, P = unknown> extends Envelope<T, P> {
  done: Done;
}

/** A message from the webview; `request` when it expects an `ack`. */
export interface WebviewEnvelope<T extends string = string, P = unknown> extends Envelope<T, P> {
  request?: true;
}

/**
 * The end of a request (`re`: its number) or of a host operation (no `re`; `done.host` says which): the request's
 * result, or why there is none.
 */
export interface AckParams<R = unknown> {
  re?: number;
  result?: R;
  /** The request failed: the handler's message. */
  error?: string;
  /** The webview withdrew the request before it ran. */
  cancelled?: true;
}

/** The parameters of a {@link CANCEL}: the request withdrawn. */
export interface CancelParams {
  re: number;
}

/** Every notification the host may send a webview of protocol `P`, as a discriminated union (for handlers and tests). */
export type HostNotification<P extends Protocol> = { [K in ToWebviewType<P>]: HostEnvelope<K, ToWebviewParams<P, K>> }[ToWebviewType<P>];

/** Whether `msg` has the shape of an {@link Envelope} (anything else posted to a window or webview is ignored). */
export function isEnvelope(msg: unknown): msg is Envelope {
  if (typeof msg !== 'object' || msg === null) return false;
  const m = msg as Partial<Envelope>;
  return typeof m.type === 'string' && typeof m.seq === 'number';
}

/**
 * How far a stream of numbered messages has been taken in, when some are taken at once and some later, in order
 * (a request queued behind others): the highest number such that every message up to it that was seen has been
 * taken. Numbers may start anywhere and skip (a webview page reloaded numbers on from its saved state); a number
 * at or below one seen before starts the stream again (a page that lost its state).
 */
export class Watermark {
  private highest = 0;
  private readonly open = new Set<number>();

  /** A message seen and taken in at once. */
  seen(seq: number): void {
    this.restartIfBehind(seq);
    this.highest = Math.max(this.highest, seq);
  }

  /** A message seen that is taken in later ({@link take}). */
  opened(seq: number): void {
    this.seen(seq);
    this.open.add(seq);
  }

  /** A message opened earlier is taken in now (unknown numbers are ignored). */
  take(seq: number): void {
    this.open.delete(seq);
  }

  /** Every message seen up to this number has been taken in (0: none). */
  get done(): number {
    if (this.open.size === 0) return this.highest;
    let min = Infinity;
    for (const s of this.open) min = Math.min(min, s);
    return min - 1;
  }

  private restartIfBehind(seq: number): void {
    if (seq > this.highest) return;
    this.highest = seq - 1;
    this.open.clear();
  }
}
