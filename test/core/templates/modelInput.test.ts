import assert from 'node:assert/strict';
import type { TextTokenizer } from '../../../src/core/models/tokenizer';
import { buildModelInput, renderContext, responseIds, turnsInWindow } from '../../../src/core/templates/modelInput';
import type { Turn } from '../../../src/core/dialogue/types';

/** GEM 2022 Table 1. */
const table1: Turn[] = [
  { speaker: 'client', text: "The baby was up all night and I'm exhausted." },
  { speaker: 'therapist', text: "So, what you're saying is you've had a rough night?" },
  { speaker: 'client', text: "Yes. She was up every three hours to eat, I don't understand it." },
];

/** One token per whitespace-separated word: makes truncation arithmetic checkable by hand. */
const words: TextTokenizer = {
  encode: (t) => t.split(/\s+/).filter(Boolean).map((w) => w.length),
  decode: (ids) => ids.join(' '),
};

describe('model input format (GEM 2022 §3.2, footnote 4)', () => {
  it("renders the paper's Table 1 example exactly", () => {
    assert.equal(
      renderContext(table1, 'reflection'),
      "<client> The baby was up all night and I'm exhausted. |<therapist> So, what you're saying is you've had a rough night? |<client> Yes. She was up every three hours to eat, I don't understand it. |<therapist> ~<listening>",
    );
  });

  it('uses the control code of the wanted response type', () => {
    assert.ok(renderContext(table1, 'question').endsWith('|<therapist> ~<asking>'));
    assert.ok(renderContext(table1, 'therapist_input').endsWith('|<therapist> ~<informing>'));
    assert.ok(renderContext(table1, 'other').endsWith('|<therapist> ~<other>'));
    assert.throws(() => renderContext(table1, 'summary' as never), /no control code for therapist behaviour "summary"/);
  });

  it('left-truncates to the most recent tokens, keeping the control code', () => {
    const full = words.encode(renderContext(table1));
    assert.equal(full.length, 37);
    const input = buildModelInput(table1, words, { maxContextTokens: 20 });
    assert.equal(input.inputIds.length, 20);
    assert.equal(input.truncatedTokens, 17);
    assert.deepEqual(input.inputIds, full.slice(17));
    // Words: first client turn 10, therapist turn "|<therapist>" + 10 = 11, last client turn 1 + 13 = 14 ("<client>" + 13),
    // prompt "|<therapist> ~<listening>" 2. Last turn alone = 14 + 2 = 16; with the therapist turn 16 + 11 = 27; all 37.
    assert.equal(input.turnsInWindow, 1);
    assert.equal(turnsInWindow(table1, words, 'reflection', 27), 2);
    assert.equal(turnsInWindow(table1, words, 'reflection', 26), 1);
    assert.equal(turnsInWindow(table1, words, 'reflection', 37), 3);
  });

  it('keeps a context that fits untouched', () => {
    const input = buildModelInput(table1, words);
    assert.equal(input.truncatedTokens, 0);
    assert.equal(input.turnsInWindow, 3);
  });

  it('right-truncates the reference to 128 tokens', () => {
    const long = Array.from({ length: 200 }, (_, i) => `w${i}`).join(' ');
    assert.equal(responseIds(long, words).length, 128);
    assert.equal(responseIds('a b c', words).length, 3);
  });
});
