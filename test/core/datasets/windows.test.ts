import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAnnoMI, summariseWindowCounts, windowTurnCounts } from '../../../src/core/datasets/annomi';
import type { TextTokenizer } from '../../../src/core/models/tokenizer';
import { DialogueWindows, turnsInWindow } from '../../../src/core/templates/modelInput';
import type { TherapistBehaviour } from '../../../src/core/dialogue/types';
import { loadTokenizer } from '../../../src/core/models/tokenizer';

const root = resolve(__dirname, '../../..');
const dialogues = parseAnnoMI(readFileSync(join(root, 'data/annomi/AnnoMI-sample.csv'), 'utf8'), 'AnnoMI-sample.csv');
const CODES: TherapistBehaviour[] = ['reflection', 'question', 'therapist_input', 'other'];

/** Every prefix of every sample dialogue, every control code: the per-dialogue counter vs encoding each window. */
function assertSameAsEncoding(tokenizer: TextTokenizer, max: number, expectAdditive: boolean): number {
  let checked = 0;
  for (const d of dialogues.slice(0, 6)) {
    const turns = d.utterances.map((u) => ({ speaker: u.speaker, text: u.text }));
    const windows = new DialogueWindows(turns, tokenizer);
    assert.equal(windows.additive, expectAdditive);
    for (let end = 0; end <= turns.length; end += 3) {
      const code = CODES[end % 4];
      assert.equal(windows.turnsInWindow(end, code, max), turnsInWindow(turns.slice(0, end), tokenizer, code, max), `${d.transcriptId} end ${end}`);
      checked++;
    }
  }
  return checked;
}

describe('context windows per dialogue (stats annomi, GEM 2022 footnote 5)', function () {
  this.timeout(120_000);

  for (const model of ['reflect-gpt2-tiny', 'reflect-bart-tiny']) {
    it(`${model}: turn counts equal encoding every window (units add up for a byte-level BPE tokenizer)`, async () => {
      const tok = await loadTokenizer(join(root, 'fixtures/models', model));
      assert.ok(assertSameAsEncoding(tok, 384, true) > 30);
      assert.ok(assertSameAsEncoding(tok, 40, true) > 30);
    });
  }

  it('a tokenizer whose tokens cross the separator is measured window by window, with the same result', () => {
    // Two characters per token: a token spans " |<" junctions, so the units do not add up.
    const pairs: TextTokenizer = { encode: (t) => Array.from({ length: Math.ceil(t.length / 2) }, (_, i) => i), decode: () => '' };
    assert.ok(assertSameAsEncoding(pairs, 300, false) > 30);
  });

  it('summaries by behaviour count only that behaviour; untruncated when every context turn fits', () => {
    const words: TextTokenizer = { encode: (t) => t.split(/\s+/).filter(Boolean).map(() => 0), decode: () => '' };
    const measured = windowTurnCounts(dialogues, words, 100_000);
    const all = summariseWindowCounts(measured, 'any');
    assert.equal(all.untruncatedShare, 1);
    const reflections = summariseWindowCounts(measured, 'reflection');
    assert.equal(reflections.examples, measured.filter((m) => m.behaviour === 'reflection').length);
    assert.ok(reflections.examples > 0 && reflections.examples < all.examples);
  });
});
