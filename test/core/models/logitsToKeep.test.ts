import assert from 'node:assert/strict';
import * as ort from 'onnxruntime-node';
import { buildOnnxModel, ELEM, type NodeSpec } from '../../../src/core/models/onnxBuilder';
import { bufferSource, LOGITS_TO_KEEP, slimModel } from '../../../src/core/models/onnxPatch';
import { values } from './compare';

// ONNX element types beyond ELEM's.
const INT8 = 3;
const B = 2;
const S = 6;
const D = 16;
const V = 40;
const pastNames = ['past_key_values.0.key', 'past_key_values.0.value'];
// The cache appends every staged decoder has (lastLogitsOf applies only with them).
const cacheNodes: NodeSpec[] = [
  { op: 'Concat', inputs: ['past_key_values.0.key', 'k_new'], outputs: ['present.0.key'], attrs: { axis: 2 } },
  { op: 'Concat', inputs: ['past_key_values.0.value', 'v_new'], outputs: ['present.0.value'], attrs: { axis: 2 } },
];
const cacheInputs = ['past_key_values.0.key', 'past_key_values.0.value', 'k_new', 'v_new'].map((name) => ({ name, elem: ELEM.float, rank: 4 }));
const outputs = ['logits', 'present.0.key', 'present.0.value'].map((name) => ({ name, elem: ELEM.float, rank: name === 'logits' ? 3 : 4 }));

/**
 * The LM head as onnxruntime's quantize_dynamic writes it (and scripts/bench/build_real_size_models.py's
 * quantize_matmuls_int8): DynamicQuantizeLinear(x) → MatMulInteger(x_q, W, x_zp, w_zp) → Cast → Mul(x_scale · w_scale).
 * The weight and its scale are graph inputs here (initializers in a real file; both count as declared).
 */
function quantizedHead(extra: NodeSpec[] = []): Uint8Array {
  return buildOnnxModel(
    [
      ...cacheNodes,
      { op: 'DynamicQuantizeLinear', inputs: ['hidden'], outputs: ['xq', 'xs', 'xzp'] },
      { op: 'MatMulInteger', inputs: ['xq', 'w', 'xzp', 'wzp'], outputs: ['y32'] },
      { op: 'Cast', inputs: ['y32'], outputs: ['yf'], attrs: { to: ELEM.float } },
      { op: 'Mul', inputs: ['xs', 'wscale'], outputs: ['s'] },
      { op: 'Mul', inputs: ['yf', 's'], outputs: ['logits'] },
      ...extra,
    ],
    [...cacheInputs, { name: 'hidden', elem: ELEM.float, rank: 3 }, { name: 'w', elem: INT8, rank: 2 }, { name: 'wzp', elem: INT8, rank: 0 }, { name: 'wscale', elem: ELEM.float, rank: 0 }],
    extra.length ? [...outputs, { name: 'other', elem: ELEM.float, rank: 3 }] : outputs,
  );
}

function plainHead(): Uint8Array {
  return buildOnnxModel([...cacheNodes, { op: 'MatMul', inputs: ['hidden', 'w'], outputs: ['logits'] }], [...cacheInputs, { name: 'hidden', elem: ELEM.float, rank: 3 }, { name: 'w', elem: ELEM.float, rank: 2 }], outputs);
}

function feeds(quantized: boolean): Record<string, ort.Tensor> {
  const empty = new ort.Tensor('float32', new Float32Array(0), [B, 1, 0, 4]);
  const one = new ort.Tensor('float32', new Float32Array(B * 4), [B, 1, 1, 4]);
  // Hidden states of a wide range, so the quantizer's per-tensor scale depends on every position.
  const hidden = values(B * S * D, 7).map((x, i) => x * (1 + (i % 5)));
  const f: Record<string, ort.Tensor> = {
    'past_key_values.0.key': empty,
    'past_key_values.0.value': empty,
    k_new: one,
    v_new: one,
    hidden: new ort.Tensor('float32', hidden, [B, S, D]),
  };
  if (quantized) {
    f.w = new ort.Tensor('int8', Int8Array.from({ length: D * V }, (_, i) => ((i * 37) % 255) - 127), [D, V]);
    f.wzp = new ort.Tensor('int8', Int8Array.of(0), []);
    f.wscale = new ort.Tensor('float32', Float32Array.of(0.013), []);
  } else {
    f.w = new ort.Tensor('float32', values(D * V, 3), [D, V]);
  }
  return f;
}

const keep = (k: number) => new ort.Tensor('int64', BigInt64Array.of(BigInt(k)), [1]);

/** Rows `from`… of each batch row of `[B, S, V]` logits. */
function lastRows(t: ort.Tensor, k: number): Float32Array {
  const [b, s, v] = t.dims;
  const d = t.data as Float32Array;
  const out = new Float32Array(b * k * v);
  for (let r = 0; r < b; r++) out.set(d.subarray((r * s + s - k) * v, (r + 1) * s * v), r * k * v);
  return out;
}

describe('logits of the last positions only (lastLogitsOf, onnxPatch)', () => {
  for (const quantized of [false, true]) {
    it(`${quantized ? 'a dynamically quantized (q8) LM head' : 'an fp32 LM head'}: the kept rows are bit for bit the whole head's, and fed S it computes what it did`, async () => {
      const model = quantized ? quantizedHead() : plainHead();
      const slim = slimModel(bufferSource(model), 'unused', pastNames, 1024, { logitsToKeep: true });
      assert.ok(!('skipped' in slim), 'skipped' in slim ? slim.skipped : '');
      assert.equal(slim.logitsToKeep, true, JSON.stringify(slim.logitsToKeep));
      const original = await ort.InferenceSession.create(model);
      const edited = await ort.InferenceSession.create(slim.bytes);
      try {
        assert.ok(edited.inputNames.includes(LOGITS_TO_KEEP));
        const whole = (await original.run(feeds(quantized), ['logits'])).logits;
        assert.deepEqual(whole.dims, [B, S, V]);
        for (const k of [S, 2, 1]) {
          const kept = (await edited.run({ ...feeds(quantized), [LOGITS_TO_KEEP]: keep(k) }, ['logits'])).logits;
          assert.deepEqual(kept.dims, [B, k, V]);
          assert.deepEqual(kept.data, lastRows(whole, k), `k = ${k}`);
        }
        if (quantized) {
          // Slicing the hidden states before the quantizer would change the scale: the edit must not do that.
          const sliced = feeds(true);
          const h = sliced.hidden;
          sliced.hidden = new ort.Tensor('float32', lastRows(h, 1), [B, 1, D]);
          const naive = (await original.run(sliced, ['logits'])).logits;
          assert.notDeepEqual(naive.data, lastRows(whole, 1), 'the fixture does not tell the two slicings apart');
        }
      } finally {
        await original.release();
        await edited.release();
      }
    });
  }

  it('leaves a quantized head alone, saying why, when its integer product is read by anything else', () => {
    const slim = slimModel(bufferSource(quantizedHead([{ op: 'Cast', inputs: ['y32'], outputs: ['other'], attrs: { to: ELEM.float } }])), 'unused', pastNames, 1024, { logitsToKeep: true });
    assert.ok(!('skipped' in slim));
    assert.ok(slim.logitsToKeep !== true && /quantized head/.test(slim.logitsToKeep?.skipped ?? ''), JSON.stringify(slim.logitsToKeep));
  });
});
