import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { loadTokenizer } from '../../../src/core/models/tokenizer';

describe('model tokenizer', () => {
  it('decodes an empty sequence (a model that writes EOS first) to the empty text instead of throwing', async () => {
    for (const name of ['reflect-gpt2-tiny', 'reflect-bart-tiny']) {
      const tok = await loadTokenizer(resolve(__dirname, '../../../fixtures/models', name));
      assert.equal(tok.decode([]), '');
      const ids = tok.encode('You want to cut down.');
      assert.equal(tok.decode(ids), 'You want to cut down.');
    }
  });
});
