import assert from 'node:assert/strict';
import { KeyRoute } from '../../src/extension/keyRoute';
import type { FocusState } from '../../webview/editor/protocol';

const state = (move: number, settled = true, candidateId: string | null = 'c1'): FocusState => ({ type: 'focusState', move, index: 3, itemId: 'it-3', candidateId, settled });

describe('KeyRoute: where a labelling key is applied', () => {
  it('labels in the host only on a settled report that follows every message that moves focus', () => {
    const route = new KeyRoute();
    assert.equal(route.target(), null, 'nothing reported yet');
    route.report(state(0));
    assert.deepEqual(route.target(), { index: 3, itemId: 'it-3', candidateId: 'c1' });
    const move = route.nextMove();
    assert.equal(route.target(), null, 'a move is on its way: the old focus may be gone');
    route.report(state(move - 1));
    assert.equal(route.target(), null, 'a report from before the move');
    route.report(state(move, false));
    assert.equal(route.target(), null, 'the webview has handled it but waits for an item');
    route.report(state(move, true, null));
    assert.equal(route.target(), null, 'no candidate focused');
    route.report(state(move, true, 'c2'));
    assert.deepEqual(route.target(), { index: 3, itemId: 'it-3', candidateId: 'c2' });
  });

  it('counts a move owed for a request, so a report made before its answer is stale', () => {
    const route = new KeyRoute();
    route.report(state(0));
    // "Next unlabelled": the webview asked; its reveal is still in the host's queue.
    route.nextMove();
    assert.equal(route.target(), null);
  });
});
