import assert from 'node:assert/strict';
import { KeyRoute, type KeyTarget } from '../../../src/extension/editor/keyRoute';
import type { EditorAction } from '../../../src/core/labels/labelKeys';
import type { FocusState } from '../../../webview/editor/protocol';

const state = (move: number, settled = true, candidateId: string | null = 'c1'): FocusState => ({ move, index: 3, itemId: 'it-3', candidateId, settled });
const Y: EditorAction = { kind: 'coherent' };
const FOUR: EditorAction = { kind: 'option', n: 4 };
const J: EditorAction = { kind: 'nextCandidate' };

/**
 * A route whose host records what it was asked to do: `host c2 coherent`, `webview 3 nextCandidate` (the number of
 * the `action` message, counted as the channel counts the host's messages; `send` sends another message).
 */
function recorded(holdMs = 60_000): { route: KeyRoute; log: string[]; send: () => number } {
  const log: string[] = [];
  let seq = 0;
  const route = new KeyRoute(
    {
      apply: (action, at: KeyTarget) => log.push(`host ${at.candidateId} ${action.kind}`),
      forward: (action) => {
        log.push(`webview ${++seq} ${action.kind}`);
        return seq;
      },
    },
    holdMs,
  );
  return { route, log, send: () => ++seq };
}

describe('KeyRoute: where a labelling key is applied', () => {
  it('labels in the host only on a settled report that follows every message that moves focus', () => {
    const { route, send } = recorded();
    assert.equal(route.target(), null, 'nothing reported yet');
    route.report(state(0));
    assert.deepEqual(route.target(), { index: 3, itemId: 'it-3', candidateId: 'c1', question: null });
    send(); // a message that does not move focus (an item, say) changes nothing
    assert.deepEqual(route.target(), { index: 3, itemId: 'it-3', candidateId: 'c1', question: null });
    const move = send();
    route.moved(move);
    assert.equal(route.target(), null, 'a move is on its way: the old focus may be gone');
    route.report(state(move - 1));
    assert.equal(route.target(), null, 'a report from before the move');
    route.report(state(move, false));
    assert.equal(route.target(), null, 'the webview has handled it but waits for an item');
    route.report(state(move, true, null));
    assert.equal(route.target(), null, 'no candidate focused');
    route.report(state(move, true, 'c2'));
    assert.deepEqual(route.target(), { index: 3, itemId: 'it-3', candidateId: 'c2', question: null });
  });

  it('counts a move owed for a request, so a report made before its answer is stale', () => {
    const { route, send, log } = recorded();
    route.report(state(0));
    // "Next unlabelled": the webview asked; its answer is still in the host's queue.
    route.owe();
    assert.equal(route.target(), null);
    route.key(Y);
    assert.equal(route.holding, 1, 'a key waits for the answer and the report after it');
    const answer = send();
    route.paid(answer);
    route.report(state(answer - 1, true, 'c1'));
    assert.equal(route.holding, 1, 'a report from before the answer releases nothing');
    route.report(state(answer, true, 'c4'));
    assert.deepEqual(log, ['host c4 coherent']);
    route.dispose();
  });

  it('holds a key typed at once after j until the webview reports where focus went, and keeps later keys behind it', () => {
    const { route, log } = recorded();
    route.report(state(0, true, 'c1'));
    route.key(Y);
    route.key(J);
    route.key(Y); // typed before the webview handled j
    route.key(FOUR);
    route.key(J);
    assert.deepEqual(log, ['host c1 coherent', 'webview 1 nextCandidate'], 'the keys after j wait; so does the second j');
    assert.equal(route.holding, 3);
    route.report(state(0, true, 'c1'));
    assert.equal(route.holding, 3, 'a report from before the move releases nothing');
    route.report(state(1, true, 'c2'));
    assert.deepEqual(log.slice(2), ['host c2 coherent', 'host c2 option', 'webview 2 nextCandidate']);
    assert.equal(route.holding, 0);
  });

  it('sends a held key to the webview when the report is not settled on a candidate, or does not come in time', async () => {
    const a = recorded();
    a.route.report(state(0));
    a.route.key(J);
    a.route.key(Y);
    a.route.report(state(1, false)); // j went past the last candidate: the next item is on its way
    assert.deepEqual(a.log, ['webview 1 nextCandidate', 'webview 2 coherent'], 'the webview applies it once the item is shown');

    const b = recorded(20);
    b.route.report(state(0));
    b.route.key(J);
    b.route.key(Y);
    b.route.key(FOUR);
    await new Promise((r) => setTimeout(r, 80));
    assert.deepEqual(b.log, ['webview 1 nextCandidate', 'webview 2 coherent', 'webview 3 option'], 'in order, numbered as moves');
    b.route.report(state(3, true, 'c2'));
    b.route.key(Y);
    assert.equal(b.log.at(-1), 'host c2 coherent', 'after the flush, keys label in the host again');
    b.route.dispose();
  });

  it('forwards a labelling key when nothing is in flight but focus is not on a candidate', () => {
    const { route, log } = recorded();
    route.report(state(0, true, null));
    route.key(Y);
    assert.deepEqual(log, ['webview 1 coherent']);
    assert.equal(route.holding, 0);
  });
});
