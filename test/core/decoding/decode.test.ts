import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decode } from '../../../src/core/decoding/engine';
import type { GenerativeLM } from '../../../src/core/models/languageModel';
import { OnnxCausalLM } from '../../../src/core/models/causalLM';
import { ModelSourceError } from '../../../src/core/models/errors';
import { loadCausalLM } from '../../helpers/models';

/** Greedy decoding of each prompt through the engine: its one sequence, or an empty one after an abort. */
async function greedySearch(model: GenerativeLM, prompts: number[][], o: { maxNewTokens?: number; signal?: AbortSignal } = {}) {
  const out = await decode(model, prompts, { strategy: 'greedy', maxNewTokens: o.maxNewTokens }, { signal: o.signal });
  return out.map((seqs) => seqs[0] ?? { tokenIds: [], endedWithEos: false });
}

const folder = resolve(__dirname, '../../../fixtures/models/reflect-gpt2-tiny');
interface Reference {
  promptIds: number[];
  greedyNewTokens: number;
  greedyIds: number[];
  lastLogitsTop20: { ids: number[]; values: number[] };
}
const refs = (JSON.parse(readFileSync(join(folder, 'reference_outputs.json'), 'utf8')) as { references: Reference[] }).references;

describe('ONNX causal LM and greedy decoding (bundled fixture, references from PyTorch)', () => {
  let model: OnnxCausalLM;
  before(async () => {
    model = await loadCausalLM(folder);
  });
  after(async () => model?.dispose());

  it('reads the model shapes from config.json', () => {
    assert.equal(model.config.modelType, 'gpt2');
    assert.ok(model.config.vocabSize > 256);
    assert.equal(model.tokenizer.eosTokenIds.length, 1);
  });

  it('matches the PyTorch next-token logits to 1e-4', async () => {
    for (const ref of refs) {
      const L = ref.promptIds.length;
      const out = await model.forward(
        BigInt64Array.from(ref.promptIds, BigInt),
        new BigInt64Array(L).fill(1n),
        BigInt64Array.from(ref.promptIds.map((_, i) => BigInt(i))),
        1,
        L,
        model.emptyCache(1),
      );
      const offset = (L - 1) * out.vocab;
      ref.lastLogitsTop20.ids.forEach((id, k) => {
        assert.ok(Math.abs(out.logits[offset + id] - ref.lastLogitsTop20.values[k]) < 1e-4, `token ${id}: ${out.logits[offset + id]} vs ${ref.lastLogitsTop20.values[k]}`);
      });
    }
  });

  it('produces exactly the PyTorch greedy token ids with the KV cache', async () => {
    for (const ref of refs) {
      const [seq] = await greedySearch(model, [ref.promptIds], { maxNewTokens: ref.greedyNewTokens });
      assert.deepEqual(seq.tokenIds, ref.greedyIds);
    }
  });

  it('gives the same tokens for prompts batched with left padding as one by one', async () => {
    const prompts = refs.map((r) => r.promptIds);
    assert.notEqual(prompts[0].length, prompts[1].length, 'the references have different lengths, so batching pads');
    const batched = await greedySearch(model, prompts, { maxNewTokens: 24 });
    batched.forEach((seq, i) => assert.deepEqual(seq.tokenIds, refs[i].greedyIds));
  });

  it('stops at maxNewTokens and on abort', async () => {
    const [seq] = await greedySearch(model, [refs[0].promptIds], { maxNewTokens: 3 });
    assert.ok(seq.tokenIds.length <= 3);
    const ctl = new AbortController();
    ctl.abort();
    const [none] = await greedySearch(model, [refs[0].promptIds], { maxNewTokens: 5, signal: ctl.signal });
    assert.deepEqual(none.tokenIds, []);
    await assert.rejects(() => greedySearch(model, [[]]), /prompt 0 is empty/);
  });

  it('names the folder and the missing piece of an incomplete model folder', async () => {
    await assert.rejects(() => loadCausalLM(resolve(__dirname)), (e: unknown) => e instanceof ModelSourceError && /has no config\.json/.test((e as Error).message) && (e as Error).message.includes(resolve(__dirname)));
  });
});
