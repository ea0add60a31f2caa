/**
 * One cross-attention cache for every row of one prompt (seq2seqLM.ts, `crossAttention`; `rowSharing`, onnxPatch.ts):
 * the with-past graph's attention broadcasts a one-row cache over the rows, with the results of a copy per row.
 */
import assert from 'node:assert/strict';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { buildOnnxModel, ELEM } from '../../../src/core/models/onnxBuilder';
import { bufferSource, fileSource, rowSharing } from '../../../src/core/models/onnxPatch';
import { OnnxSeq2SeqLM } from '../../../src/core/models/seq2seqLM';
import type { DecodingSession } from '../../../src/core/models/languageModel';
import { assertSameTokens, values, worstDifference } from './compare';
import { loadSeq2SeqLM } from '../../helpers/models';

const models = resolve(__dirname, '../../../fixtures/models');
const merged = join(models, 'reflect-bart-tiny');
const split = join(models, 'layouts', 'bart-split');

/** `t` ([1, …]) repeated into `rows` rows. */
function tile(t: Float32Array, dims: number[], rows: number): ort.Tensor {
  const out = new Float32Array(t.length * rows);
  for (let r = 0; r < rows; r++) out.set(t, r * t.length);
  return new ort.Tensor('float32', out, [rows, ...dims.slice(1)]);
}

/** The session's first cross-attention cache tensor (white box: what the graph is fed). */
const crossOf = (s: DecodingSession) => (s as unknown as { crossPast: Map<string, ort.Tensor> }).crossPast.values().next().value!;

function sharingOf(file: string, names: string[], trueInputs: string[]) {
  const fd = openSync(file, 'r');
  try {
    return rowSharing(fileSource(fd), names, trueInputs);
  } finally {
    closeSync(fd);
  }
}

const crossNames = (layers: number) => Array.from({ length: layers }, (_, i) => [`past_key_values.${i}.encoder.key`, `past_key_values.${i}.encoder.value`]).flat();

describe('one cross-attention cache for the rows of one prompt (rowSharing, seq2seqLM)', () => {
  // Attention over k and v as transformers' 4-D BART attention reads a cache; k2 as its older 3-D one (reshaped to
  // [B·H, S, D]); s measured by Shape; kt2 transposed and also added to.
  const attention = buildOnnxModel(
    [
      { op: 'Transpose', inputs: ['k'], outputs: ['kt'], attrs: { perm: [0, 1, 3, 2] } },
      { op: 'MatMul', inputs: ['q', 'kt'], outputs: ['scores'] },
      { op: 'Softmax', inputs: ['scores'], outputs: ['probs'], attrs: { axis: -1 } },
      { op: 'MatMul', inputs: ['probs', 'v'], outputs: ['out'] },
      { op: 'Reshape', inputs: ['k2', 'shape'], outputs: ['k2r'] },
      { op: 'Shape', inputs: ['s'], outputs: ['sdims'] },
      { op: 'Transpose', inputs: ['k3'], outputs: ['kt3'], attrs: { perm: [0, 1, 3, 2] } },
      { op: 'Add', inputs: ['kt3', 'kt3'], outputs: ['twice'] },
      { op: 'Transpose', inputs: ['k4'], outputs: ['kt4'], attrs: { perm: [0, 1, 3, 2] } },
    ],
    [
      { name: 'q', elem: ELEM.float, rank: 4 },
      { name: 'k', elem: ELEM.float, rank: 4 },
      { name: 'v', elem: ELEM.float, rank: 4 },
      { name: 'k2', elem: ELEM.float, rank: 4 },
      { name: 'shape', elem: ELEM.int64, rank: 1 },
      { name: 's', elem: ELEM.float, rank: 4 },
      { name: 'k3', elem: ELEM.float, rank: 4 },
      { name: 'k4', elem: ELEM.float, rank: 4 },
      { name: 'passed', elem: ELEM.float, rank: 4 },
    ],
    [
      { name: 'out', elem: ELEM.float, rank: 4 },
      { name: 'k2r', elem: ELEM.float, rank: 3 },
      { name: 'sdims', elem: ELEM.int64, rank: 1 },
      { name: 'twice', elem: ELEM.float, rank: 4 },
      { name: 'kt4', elem: ELEM.float, rank: 4 },
      { name: 'passed', elem: ELEM.float, rank: 4 },
    ],
  );

  it('finds the inputs read only as a MatMul operand, and names the node that reads any other way', () => {
    const found = rowSharing(bufferSource(attention), ['k', 'v', 'k2', 's', 'k3', 'k4', 'passed', 'nowhere']);
    assert.equal(found.get('k'), 'broadcast');
    assert.equal(found.get('v'), 'broadcast');
    assert.deepEqual(found.get('k2'), { skipped: 'k2 is read by Reshape(k2, shape)' });
    assert.deepEqual(found.get('s'), { skipped: 's is read by Shape(s)' });
    assert.deepEqual(found.get('k3'), { skipped: 'k3 is transposed into kt3, and kt3 is read by Add(kt3, kt3)' });
    assert.deepEqual(found.get('k4'), { skipped: 'k4 is transposed into kt4, and the transposed kt4 is a graph output' });
    assert.equal(found.get('passed'), 'broadcast', 'an input passed on as an output (which then has one row)');
    assert.equal(found.get('nowhere'), 'unread');
  });

  it('onnxruntime broadcasts one row of the keys and values over the rows: the output of the keys and values tiled', async () => {
    const session = await ort.InferenceSession.create(attention);
    try {
      const [B, H, S, D] = [3, 2, 5, 4];
      const q = new ort.Tensor('float32', values(B * H * D, 1), [B, H, 1, D]);
      const k = values(H * S * D, 2);
      const v = values(H * S * D, 3);
      const rest = {
        k4: new ort.Tensor('float32', new Float32Array(1), [1, 1, 1, 1]),
        passed: new ort.Tensor('float32', new Float32Array(1), [1, 1, 1, 1]),
        k2: new ort.Tensor('float32', new Float32Array(H * S * D), [1, H, S, D]),
        shape: new ort.Tensor('int64', BigInt64Array.from([BigInt(H), BigInt(S), BigInt(D)]), [3]),
        s: new ort.Tensor('float32', new Float32Array(1), [1, 1, 1, 1]),
        k3: new ort.Tensor('float32', new Float32Array(1), [1, 1, 1, 1]),
      };
      const one = await session.run({ q, k: new ort.Tensor('float32', k, [1, H, S, D]), v: new ort.Tensor('float32', v, [1, H, S, D]), ...rest }, ['out']);
      const tiled = await session.run({ q, k: tile(k, [1, H, S, D], B), v: tile(v, [1, H, S, D], B), ...rest }, ['out']);
      assert.deepEqual(one.out.dims, [B, H, 1, D]);
      assert.deepEqual(one.out.data, tiled.out.data);
    } finally {
      await session.release();
    }
  });

  it('follows a merged decoder into its with-past branch only', () => {
    const names = [...crossNames(2), 'encoder_hidden_states'];
    const file = join(merged, 'onnx/decoder_model_merged.onnx');
    const withPast = sharingOf(file, names, ['use_cache_branch']);
    for (const n of crossNames(2)) assert.equal(withPast.get(n), 'broadcast', n);
    assert.equal(withPast.get('encoder_hidden_states'), 'unread');
    // Both branches: the first step's branch projects the encoder states into the cache (MatMul(states, weights)).
    const both = sharingOf(file, names, []);
    assert.match((both.get('encoder_hidden_states') as { skipped: string }).skipped, /^encoder_hidden_states is read by MatMul\(encoder_hidden_states, /);
    // A past self-attention cache is concatenated with the new position: not shareable.
    const self = sharingOf(file, ['past_key_values.0.decoder.key'], ['use_cache_branch']).get('past_key_values.0.decoder.key');
    assert.equal(typeof self, 'object');
  });

  for (const [layout, dir] of [
    ['merged decoder', merged],
    ['decoder and decoder-with-past', split],
  ] as const) {
    describe(`${layout} (${dir.split('/').slice(-1)[0]})`, () => {
      let shared: OnnxSeq2SeqLM;
      let perRow: OnnxSeq2SeqLM;
      let prompt: number[];
      before(async () => {
        shared = await loadSeq2SeqLM(dir);
        perRow = await loadSeq2SeqLM(dir, { sharedPrefix: false });
        prompt = (JSON.parse(readFileSync(join(dir, 'parity.json'), 'utf8')) as { cases: { promptIds: number[] }[] }).cases[0].promptIds;
      });
      after(async () => {
        await shared?.dispose();
        await perRow?.dispose();
      });

      it('feeds one row of the cache, with the logits of a copy per row through dropped and reordered rows', async () => {
        assert.deepEqual(shared.crossAttention, { shared: true, hiddenUnread: true });
        assert.deepEqual(perRow.crossAttention, { shared: false, reason: 'sharedPrefix is off' });
        const a = await shared.startDecoding([prompt], { expand: 4, reusePromptPass: false });
        const b = await perRow.startDecoding([prompt], { expand: 4, reusePromptPass: false });
        assert.equal(crossOf(a.session).dims[0], 1);
        assert.equal(crossOf(b.session).dims[0], 4);
        assert.ok(worstDifference(a.logits, b.logits) === 0);
        let rows = 4;
        for (let step = 0; step < 6; step++) {
          if (step === 2) {
            a.session.select([3, 0, 2]); // one row finished, the others reordered (as beam search does)
            b.session.select([3, 0, 2]);
            rows = 3;
          }
          if (step === 4) {
            a.session.select([1]);
            b.session.select([1]);
            rows = 1;
          }
          const tokens = Array.from({ length: rows }, (_, r) => 4 + step * 3 + r);
          const x = await a.session.step(tokens);
          const y = await b.session.step(tokens);
          assert.ok(worstDifference(x, y) <= 1e-5, `step ${step}: ${worstDifference(x, y)}`);
        }
        assert.equal(crossOf(a.session).dims[0], 1, 'rows leaving do not copy the shared cache');
        a.session.release?.();
        b.session.release?.();
      });

      it('keeps a copy per row for a batch of several prompts', async () => {
        const c = await shared.startDecoding([prompt, prompt.slice(0, -2)], { expand: 2 });
        assert.equal(crossOf(c.session).dims[0], 4);
        c.session.release?.();
      });

      it('decodes the tokens of the per-row copies: greedy, beam search and nucleus sampling', async () => {
        await assertSameTokens(shared, perRow, prompt);
      });
    });
  }
});
