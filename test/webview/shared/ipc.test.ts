import assert from 'node:assert/strict';
import { HostChannel } from '../../../src/extension/webviewChannel';
import { RequestCancelled, WebviewChannel, type VsCodeApi } from '../../../webview/shared/ipc';
import { Watermark, type HostEnvelope, type RequestShape, type WebviewEnvelope } from '../../../webview/shared/messages';

/** A protocol for the tests: two notifications each way, an ordered request and one that is not. */
interface TestProtocol {
  toWebview: { hello: { text: string }; shown: { what: string } };
  toHost: { ready: Record<string, never>; note: { n: number } };
  requests: { apply: RequestShape<{ value: number }, number>; look: RequestShape<{ key: string }, string> };
}

/**
 * A host channel and a webview channel joined as VS Code joins them: each message is delivered later (a macrotask),
 * in the order sent; everything each side posts is recorded.
 */
function joined() {
  const toWebview: HostEnvelope[] = [];
  const toHost: WebviewEnvelope[] = [];
  let webviewTake: (data: unknown) => void = () => undefined;
  let state: unknown;
  const host = new HostChannel<TestProtocol>((msg) => {
    toWebview.push(msg);
    setImmediate(() => webviewTake(structuredClone(msg)));
  });
  const api: VsCodeApi = {
    postMessage: (msg) => {
      toHost.push(msg as WebviewEnvelope);
      setImmediate(() => host.receive(structuredClone(msg)));
    },
    getState: () => state,
    setState: (s) => void (state = s),
  };
  const webview = new WebviewChannel<TestProtocol>(api, (take) => void (webviewTake = take));
  return { host, webview, toWebview, toHost };
}

const settle = () => new Promise((r) => setTimeout(r, 20));

describe('the message layer (webview/shared/messages.ts)', () => {
  it('numbers each side’s messages and hands notifications to their typed handlers', async () => {
    const { host, webview, toWebview, toHost } = joined();
    const atHost: number[] = [];
    const atWebview: string[] = [];
    host.on('note', (p, env) => atHost.push(p.n * 10 + env.seq));
    webview.on('hello', (p) => atWebview.push(p.text));
    assert.equal(webview.notify('ready', {}), 1);
    assert.equal(webview.notify('note', { n: 4 }), 2);
    assert.equal(host.notify('hello', { text: 'hi' }), 1);
    await settle();
    assert.deepEqual(atHost, [42]);
    assert.deepEqual(atWebview, ['hi']);
    assert.deepEqual(toHost.map((m) => [m.type, m.seq]), [['ready', 1], ['note', 2]]);
    assert.deepEqual(toWebview[0], { type: 'hello', seq: 1, params: { text: 'hi' }, done: { webview: 0, host: 1 } });
  });

  it('answers a request with one ack naming it; its result handler runs before the next message is handled', async () => {
    const { host, webview, toWebview } = joined();
    host.handle('look', (p) => {
      host.notify('shown', { what: p.key });
      return `value of ${p.key}`;
    });
    const order: string[] = [];
    webview.on('shown', (p) => order.push(`shown ${p.what}`));
    webview.after((env) => order.push(`after ${env.type}`));
    const sent = webview.request('look', { key: 'k' }, { onResult: (r) => order.push(`result ${r}`) });
    assert.equal(webview.outstanding('look'), 1);
    assert.equal(await sent.result, 'value of k');
    assert.deepEqual(order, ['shown k', 'after shown', 'result value of k', 'after ack']);
    assert.deepEqual(toWebview.at(-1)?.params, { re: sent.seq, result: 'value of k' });
    assert.equal(webview.outstanding(), 0);
  });

  it('rejects a request with the host’s error, and one nobody handles', async () => {
    const { host, webview } = joined();
    host.handle('look', () => {
      throw new Error('no such key');
    });
    await assert.rejects(webview.request('look', { key: 'k' }).result, /no such key/);
    await assert.rejects(webview.request('apply', { value: 1 }).result, /no handler for the webview's apply request/);
  });

  it('runs ordered requests one at a time in the order sent, and says a request is taken in only once it has started', async () => {
    const { host, webview, toWebview } = joined();
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    host.handle(
      'apply',
      async (p) => {
        log.push(`start ${p.value}`);
        // What the host sends while applying: the webview can tell its own request is in.
        host.notify('shown', { what: `applying ${p.value}` });
        if (p.value === 1) await gate;
        log.push(`end ${p.value}`);
        return p.value * 2;
      },
      { ordered: true },
    );
    const first = webview.request('apply', { value: 1 });
    const second = webview.request('apply', { value: 2 });
    webview.notify('note', { n: 0 });
    await settle();
    assert.deepEqual(log, ['start 1'], 'the second waits for the first');
    assert.deepEqual(host.done.webview, first.seq, 'the first has started; the second, and the note after it, are not counted yet');
    const applying1 = toWebview.find((m) => m.type === 'shown');
    assert.ok(applying1 && applying1.done.webview >= first.seq, 'a message sent while a request runs says it is in');
    release();
    assert.equal(await first.result, 2);
    assert.equal(await second.result, 4);
    assert.deepEqual(log, ['start 1', 'end 1', 'start 2', 'end 2']);
    await settle();
    assert.equal(host.done.webview, 3, 'everything taken in');
  });

  it('runs host work in the same order, and says an operation it announces is in once the work applies it', async () => {
    const { host, webview, toWebview } = joined();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    host.handle('apply', async () => (await gate, 0), { ordered: true });
    webview.request('apply', { value: 1 });
    await settle();
    const work: string[] = [];
    let announced = 0;
    host.ordered((announce) => {
      work.push('decided after the request');
      announced = announce('hello', { text: 'host label' });
      host.notify('shown', { what: 'applied' });
    });
    host.ordered(() => void work.push('nothing to announce'));
    assert.deepEqual(work, [], 'waits for the request before it');
    release();
    await settle();
    assert.deepEqual(work, ['decided after the request', 'nothing to announce']);
    const hello = toWebview.find((m) => m.type === 'hello')!;
    const shown = toWebview.find((m) => m.type === 'shown')!;
    assert.ok(hello.done.host < announced, 'the announcement itself: not applied yet, the webview shows it');
    assert.ok(shown.done.host >= announced, 'what follows it: applied');
    assert.deepEqual(toWebview.map((m) => m.type), ['ack', 'hello', 'shown', 'ack'], 'the request’s ack, the operation, its ack; nothing for work that announced nothing');
    assert.equal(webview.done.host, toWebview.at(-1)!.done.host);
  });

  it('tells the host a request has arrived before it waits for its turn', async () => {
    const { host, webview } = joined();
    const log: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    host.handle('apply', async (p) => (p.value === 1 && (await gate), log.push(`run ${p.value}`), p.value), { ordered: true, arrived: (p) => log.push(`arrived ${p.value}`), answered: (seq, r) => log.push(`answered ${r}`) });
    webview.request('apply', { value: 1 });
    webview.request('apply', { value: 2 });
    await settle();
    assert.deepEqual(log, ['arrived 1', 'arrived 2']);
    release();
    await settle();
    assert.deepEqual(log, ['arrived 1', 'arrived 2', 'run 1', 'answered 1', 'run 2', 'answered 2']);
  });

  it('withdraws a request: dropped while it waits its turn, its signal aborted while it runs', async () => {
    const { host, webview, toWebview } = joined();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const seen: string[] = [];
    host.handle(
      'apply',
      async (p, ctx) => {
        seen.push(`run ${p.value}`);
        await gate;
        return ctx.signal.aborted ? -1 : p.value;
      },
      { ordered: true },
    );
    host.handle('look', async (p, ctx) => {
      await new Promise((r) => ctx.signal.addEventListener('abort', r));
      seen.push(`aborted ${p.key}`);
      return 'late';
    });
    const running = new AbortController();
    const queued = new AbortController();
    const looking = new AbortController();
    const a = webview.request('apply', { value: 1 }, { signal: running.signal });
    const b = webview.request('apply', { value: 2 }, { signal: queued.signal });
    const c = webview.request('look', { key: 'slow' }, { signal: looking.signal });
    await settle();
    queued.abort();
    looking.abort();
    await assert.rejects(b.result, RequestCancelled);
    await assert.rejects(c.result, RequestCancelled);
    await settle();
    assert.deepEqual(seen, ['run 1', 'aborted slow']);
    running.abort();
    await settle();
    release();
    await assert.rejects(a.result, RequestCancelled);
    await settle();
    assert.deepEqual(seen, ['run 1', 'aborted slow'], 'the withdrawn request never ran');
    const acks = toWebview.filter((m) => m.type === 'ack').map((m) => JSON.stringify(m.params)).sort();
    assert.deepEqual(acks, [a, b, c].map((r) => JSON.stringify({ re: r.seq, cancelled: true })).sort(), 'each withdrawn request is answered: cancelled');
    assert.equal(webview.outstanding(), 0, 'the late answer to a withdrawn request is dropped');
  });

  it('ignores what is not a message of the layer', async () => {
    const { host, webview } = joined();
    const errors: string[] = [];
    const quiet = new HostChannel<TestProtocol>(() => undefined, (e) => void errors.push(e.message));
    quiet.receive({ command: 'something else' });
    quiet.receive(null);
    webview.receive('text');
    assert.deepEqual(errors, []);
    quiet.receive({ type: 'note', seq: 1, params: { n: 1 } });
    assert.match(errors[0] ?? '', /no handler for the webview's note message/);
    host.dispose();
  });

  describe('Watermark', () => {
    it('is the highest number up to which every message seen has been taken in', () => {
      const w = new Watermark();
      assert.equal(w.done, 0);
      w.seen(1);
      w.opened(2);
      w.seen(3);
      assert.equal(w.done, 1);
      w.opened(4);
      w.take(2);
      assert.equal(w.done, 3);
      w.take(4);
      assert.equal(w.done, 4);
    });

    it('starts again when a page reloaded numbers from 1, and skips numbers it never saw', () => {
      const w = new Watermark();
      w.seen(500);
      w.opened(501);
      w.seen(1);
      assert.equal(w.done, 1, 'the old page’s open request no longer holds the count back');
      w.take(501);
      w.seen(40);
      assert.equal(w.done, 40);
    });
  });
});
