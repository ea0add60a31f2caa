import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { generationConfigOf, generatorInputIds } from '../../../src/core/generation/localGenerator';
import { buildModelInput } from '../../../src/core/templates/modelInput';
import { loadTokenizer } from '../../../src/core/models/tokenizer';
import type { Turn } from '../../../src/core/dialogue/types';

const bart = resolve(__dirname, '../../../fixtures/models/layouts/bart-split');
const context: Turn[] = Array.from({ length: 30 }, (_, i) => ({ speaker: i % 2 ? 'client' : 'therapist', text: `Turn ${i}: I have been thinking about how much I drink on weekends.` }));

describe('local generator input and settings', () => {
  it('wraps the left-truncated window in the tokenizer\'s special tokens on request (BART: <s> … </s>), within the window', async () => {
    const tokenizer = await loadTokenizer(bart);
    const model = { tokenizer };
    const plain = generatorInputIds(context, model, { behaviour: 'reflection', maxContextTokens: 64 });
    assert.deepEqual(plain, buildModelInput(context, tokenizer, { maxContextTokens: 64 }).inputIds);
    const wrapped = generatorInputIds(context, model, { behaviour: 'reflection', maxContextTokens: 64, inputSpecialTokens: true });
    assert.equal(wrapped.length, 64);
    assert.equal(wrapped[0], 0);
    assert.equal(wrapped[63], 2);
    assert.deepEqual(wrapped.slice(1, 63), plain.slice(2), 'the most recent 62 tokens, ending with the control code');
    assert.throws(() => generatorInputIds(context, model, { behaviour: 'reflection', maxContextTokens: 2, inputSpecialTokens: true }), /no room beside 2 special tokens/);
  });

  it('passes a setting to the engine with the run seed and no undefined fields', () => {
    assert.deepEqual(generationConfigOf({ strategy: 'nucleusSampling', topP: 0.8, numReturnSequences: 5, maxNewTokens: 9 }, 4), { strategy: 'nucleusSampling', maxNewTokens: 9, seed: 4, topP: 0.8, numReturnSequences: 5 });
    assert.deepEqual(generationConfigOf({ strategy: 'beamSearch', numBeams: 5, numReturnSequences: 5, maxNewTokens: 9 }, 0), { strategy: 'beamSearch', maxNewTokens: 9, seed: 0, numBeams: 5, numReturnSequences: 5 });
  });
});
