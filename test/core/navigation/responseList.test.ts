import assert from 'node:assert/strict';
import { responseListBanner, responseListOrder, responsePosition, stepResponse, type ResponseList } from '../../../src/core/navigation/responseList';

const e = (index: number, candidateId: string, score: number, human = 1) => ({ index, itemId: `it-${index}`, candidateId, score, human });

describe('response list (issue 41 item 4)', () => {
  it('orders by the evaluator score, highest first; ties by file place, then candidate id', () => {
    const ordered = responseListOrder([e(3, 'b', 0.2), e(1, 'z', 0.5), e(0, 'b', 0.2), e(0, 'a', 0.2), e(2, 'x', 0.9)]);
    assert.deepEqual(ordered.map((x) => `${x.index}${x.candidateId}`), ['2x', '1z', '0a', '0b', '3b']);
  });

  it('does not change its input', () => {
    const input = [e(1, 'a', 0), e(0, 'a', 1)];
    responseListOrder(input);
    assert.deepEqual(input.map((x) => x.index), [1, 0]);
  });

  it('finds a response by item and shown candidate id', () => {
    const list = { entries: [e(0, 'a', 1), e(4, 'c', 0)] };
    assert.equal(responsePosition(list, 4, 'c'), 1);
    assert.equal(responsePosition(list, 4, 'a'), -1);
    assert.equal(responsePosition(list, 0, null), -1);
  });

  it('steps one position, stops at both ends, and goes back to the last shown from off the list', () => {
    assert.equal(stepResponse(3, 0, 0, 1), 1);
    assert.equal(stepResponse(3, 2, 2, 1), null);
    assert.equal(stepResponse(3, 0, 0, -1), null);
    assert.equal(stepResponse(3, 2, 2, -1), 1);
    assert.equal(stepResponse(3, -1, 2, 1), 2);
    assert.equal(stepResponse(3, -1, 7, -1), 2);
    assert.equal(stepResponse(0, -1, 0, 1), null);
  });

  it('says what the list is, where in it, and the keys', () => {
    const list: ResponseList = { title: 'BLEU-4 × coherent, GPT-2', evaluator: 'BLEU-4', entries: [e(0, 'a', 0.25, 2), e(1, 'b', 0.00001, 0)], start: 0 };
    assert.equal(responseListBanner(list, 0), 'BLEU-4 × coherent, GPT-2: 2 responses · 1 of 2: BLEU-4 0.250, human 2 — J/K move, Esc returns');
    assert.equal(responseListBanner(list, 1), 'BLEU-4 × coherent, GPT-2: 2 responses · 2 of 2: BLEU-4 1.00e-5, human 0 — J/K move, Esc returns');
    assert.equal(responseListBanner(list, -1), 'BLEU-4 × coherent, GPT-2: 2 responses — J/K move, Esc returns');
    assert.equal(responseListBanner(list, 0, true), 'BLEU-4 × coherent, GPT-2: 2 responses · 1 of 2 — J/K move, Esc returns', 'blind: no scores');
  });
});
