import assert from 'node:assert/strict';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { OnnxCausalLM } from '../../../src/core/models/causalLM';
import { buildOnnxModel, ELEM } from '../../../src/core/models/onnxBuilder';
import { bufferSource, prefixInputName, slimModel, stageModel } from '../../../src/core/models/onnxPatch';
import type { DecodingSession } from '../../../src/core/models/languageModel';
import { assertSameTokens, values, worstDifference } from './compare';
import { loadCausalLM } from '../../helpers/models';

const gpt2 = resolve(__dirname, '../../../fixtures/models/reflect-gpt2-tiny');
const LAYERS = 3;
const H = 4;
const D = 32;
const pastNames = Array.from({ length: LAYERS }, (_, i) => [`past_key_values.${i}.key`, `past_key_values.${i}.value`]).flat();

describe('one prompt cache shared by all rows (sharedPrefixOf, onnxPatch)', () => {
  let staged: Awaited<ReturnType<typeof stageModel>>;
  let original: ort.InferenceSession;
  let shared: ort.InferenceSession;
  before(async () => {
    staged = await stageModel(join(gpt2, 'onnx/model.onnx'), pastNames, undefined, { sharedPrefix: true });
    assert.ok(!('skipped' in staged), 'skipped' in staged ? staged.skipped : '');
    original = await ort.InferenceSession.create(join(gpt2, 'onnx/model.onnx'));
    shared = await ort.InferenceSession.create(staged.path);
  });
  after(async () => {
    await original?.release();
    await shared?.release();
    if (staged && !('skipped' in staged)) await staged.dispose();
  });

  it('gives the logits of every row holding the prompt itself: one or several new positions, and an empty prefix', async () => {
    assert.ok(!('skipped' in staged) && staged.sharedPrefix === true);
    for (const { rows, prefix, own, width } of [
      { rows: 5, prefix: 7, own: 4, width: 1 },
      { rows: 2, prefix: 7, own: 0, width: 3 },
      { rows: 3, prefix: 0, own: 5, width: 1 },
    ]) {
      const ints = (n: number, f: (i: number) => number, dims: number[]) => new ort.Tensor('int64', BigInt64Array.from({ length: n }, (_, i) => BigInt(f(i))), dims);
      const base = {
        input_ids: ints(rows * width, (i) => 100 + i * 17, [rows, width]),
        attention_mask: ints(rows * (prefix + own + width), () => 1, [rows, prefix + own + width]),
        position_ids: ints(rows * width, (i) => prefix + own + (i % width), [rows, width]),
      };
      const whole: Record<string, ort.Tensor> = { ...base };
      const split: Record<string, ort.Tensor> = { ...base };
      pastNames.forEach((name, k) => {
        const p = values(H * prefix * D, 1 + k);
        const o = values(rows * H * own * D, 100 + k);
        // The whole cache: each row's positions are the prefix's, then its own.
        const all = new Float32Array(rows * H * (prefix + own) * D);
        for (let r = 0; r < rows; r++) {
          for (let h = 0; h < H; h++) {
            all.set(p.subarray(h * prefix * D, (h + 1) * prefix * D), (r * H + h) * (prefix + own) * D);
            all.set(o.subarray((r * H + h) * own * D, (r * H + h + 1) * own * D), ((r * H + h) * (prefix + own) + prefix) * D);
          }
        }
        whole[name] = new ort.Tensor('float32', all, [rows, H, prefix + own, D]);
        split[name] = new ort.Tensor('float32', o, [rows, H, own, D]);
        split[prefixInputName(name)] = new ort.Tensor('float32', p, [1, H, prefix, D]);
      });
      const a = (await original.run(whole, ['logits'])).logits.data as Float32Array;
      const b = (await shared.run(split, ['logits'])).logits.data as Float32Array;
      // Only the order of the sums over positions differs.
      assert.ok(worstDifference(a, b) < 1e-4, `rows ${rows}, prefix ${prefix}, own ${own}, width ${width}: logits differ by ${worstDifference(a, b)}`);
    }
  });

  it('leaves the graph without prefix inputs, saying why, when the attention is not the Concat → Transpose → MatMul pattern or the opset is too old', () => {
    const build = (opset: number) => buildOnnxModel(
      [
        { op: 'Concat', inputs: ['past_key_values.0.key', 'k_new'], outputs: ['present.0.key'], attrs: { axis: 2 } },
        { op: 'Concat', inputs: ['past_key_values.0.value', 'v_new'], outputs: ['present.0.value'], attrs: { axis: 2 } },
        { op: 'Identity', inputs: ['present.0.key'], outputs: ['y'] },
      ],
      ['past_key_values.0.key', 'past_key_values.0.value', 'k_new', 'v_new'].map((name) => ({ name, elem: ELEM.float, rank: 4 })),
      ['present.0.key', 'present.0.value', 'y'].map((name) => ({ name, elem: ELEM.float, rank: 4 })),
      opset,
    );
    const slim = (opset: number) => slimModel(bufferSource(build(opset)), 'model.onnx', ['past_key_values.0.key', 'past_key_values.0.value'], 1024, { sharedPrefix: true });
    const s13 = slim(13);
    assert.ok(!('skipped' in s13));
    assert.equal(s13.appended.get('past_key_values.0.key'), 'k_new', 'the cache appends are still exposed');
    assert.deepEqual(s13.sharedPrefix, { skipped: 'present.0.key is not read by one Transpose(perm 0,1,3,2) alone' });
    assert.ok(!new TextDecoder().decode(s13.bytes).includes('prefix_key_values'));
    const s11 = slim(11);
    assert.ok(!('skipped' in s11));
    const why = s11.sharedPrefix;
    assert.ok(why !== undefined && why !== true);
    assert.match(why.skipped, /default opset is 11/);
  });
});

describe('decoding one prompt with a shared prefix (reflect-gpt2-tiny)', () => {
  let shared: OnnxCausalLM;
  let perRow: OnnxCausalLM;
  let returned: OnnxCausalLM;
  before(async () => {
    shared = await loadCausalLM(gpt2);
    perRow = await loadCausalLM(gpt2, { sharedPrefix: false });
    returned = await loadCausalLM(gpt2, { staticCache: false });
  });
  after(async () => {
    await shared?.dispose();
    await perRow?.dispose();
    await returned?.dispose();
  });

  it('is the default where the graph allows it, and can be turned off', () => {
    assert.equal(shared.cacheMode.kind === 'static' && shared.cacheMode.sharedPrefix, true);
    assert.deepEqual(perRow.cacheMode.kind === 'static' && perRow.cacheMode.sharedPrefix, { skipped: 'sharedPrefix is off' });
  });

  it('gives the logits of a cache returned every step through repeated and dropped rows, several positions at once, and growth past its room', async () => {
    const prompt = [464, 3290, 318, 257, 1332, 40, 588];
    const a = await shared.startDecoding([prompt], { expand: 5, maxNewTokens: 2, reusePromptPass: false });
    const b = await returned.startDecoding([prompt], { expand: 5, reusePromptPass: false });
    assert.ok(worstDifference(a.logits, b.logits) < 1e-4, 'prompt pass');
    let rows = 5;
    const tokens = (step: number, width = 1) => Array.from({ length: rows * width }, (_, i) => 100 + ((i * 7 + step * 13) % 500));
    const both = async (what: string, f: (s: DecodingSession) => Promise<Float32Array>) => {
      const d = worstDifference(await f(a.session), await f(b.session));
      assert.ok(d < 1e-4, `${what}: logits differ by ${d}`);
    };
    for (let step = 0; step < 10; step++) {
      if (step === 2) {
        for (const s of [a.session, b.session]) s.select([1, 1, 0, 4, 2, 2, 3]);
        rows = 7;
      }
      if (step === 5) {
        for (const s of [a.session, b.session]) s.select([6, 0]);
        rows = 2;
      }
      if (step === 7) await both(`step ${step}, 3 positions at once`, (s) => s.extend(tokens(step, 3), 3));
      else await both(`step ${step}`, (s) => s.step(tokens(step)));
    }
    a.session.release?.();
  });

  it('decodes the tokens of the per-row cache: greedy, beam search and nucleus sampling', async () => {
    const prompt = [40, 588, 284, 467, 11, 475, 1544, 750];
    await assertSameTokens(shared, perRow, prompt);
  });
});
