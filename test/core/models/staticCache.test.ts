import assert from 'node:assert/strict';
import { closeSync, cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as ort from 'onnxruntime-node';
import { OnnxCausalLM } from '../../../src/core/models/causalLM';
import { OnnxGraph, ortRuntime } from '../../../src/core/models/onnxGraph';
import { CacheBufferPool, rowMoves, StaticKVCache } from '../../../src/core/models/kvCache';
import { lengthDelimitedHeader } from '../../../src/core/models/onnxBuilder';
import { exposeCacheAppends, fileSource, openCacheAppends, readModelWithRoom, slimModel, stageModel } from '../../../src/core/models/onnxPatch';
import type { DecodingSession } from '../../../src/core/models/languageModel';
import { loadCausalLM } from '../../helpers/models';

const fixtures = resolve(__dirname, '../../../fixtures/models');
const gpt2 = join(fixtures, 'reflect-gpt2-tiny');

// Protobuf fields for hand-made models.
const cat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]));
const field = (n: number, payload: Uint8Array) => cat(lengthDelimitedHeader(n, payload.length), payload);
const text = (n: number, s: string) => field(n, new TextEncoder().encode(s));
const encode = (v: bigint) => {
  const out: number[] = [];
  let x = BigInt.asUintN(64, v);
  while (x >= 0x80n) {
    out.push(Number((x & 0x7fn) | 0x80n));
    x >>= 7n;
  }
  out.push(Number(x));
  return out;
};
/** A varint field (wire type 0). */
const varint = (n: number, v: bigint) => Uint8Array.from([...encode(BigInt(n << 3)), ...encode(v)]);
/** A NodeProto: inputs, outputs, op type and an `axis` attribute. */
const node = (inputs: string[], outputs: string[], op: string, axis?: bigint) =>
  field(1, cat(...inputs.map((i) => text(1, i)), ...outputs.map((o) => text(2, o)), text(4, op), ...(axis === undefined ? [] : [field(5, cat(text(1, 'axis'), varint(3, axis), varint(20, 2n)))])));
/** A ModelProto whose graph holds `parts` (node, initializer and output fields), then an opset field after the graph. */
const model = (...parts: Uint8Array[]) => cat(varint(1, 8n), field(7, cat(...parts)), field(8, cat(text(1, ''), varint(2, 13n))));
const concatLayer = (axis: bigint) => [node(['past_key_values.0.key', 'k_new'], ['present.0.key'], 'Concat', axis), node(['past_key_values.0.value', 'v_new'], ['present.0.value'], 'Concat', axis)];
const past = ['past_key_values.0.key', 'past_key_values.0.value'];

describe('exposing the cache positions a step adds (onnxPatch)', () => {
  it('declares the second input of each present Concat as a graph output, on axis 2 or −2, keeping the rest byte for byte', () => {
    for (const axis of [2n, -2n]) {
      const bytes = model(...concatLayer(axis), field(12, text(1, 'present.0.key')));
      const r = exposeCacheAppends(bytes, past);
      assert.ok('bytes' in r, JSON.stringify(r));
      assert.deepEqual([...r.appended], [
        ['past_key_values.0.key', 'k_new'],
        ['past_key_values.0.value', 'v_new'],
      ]);
      const s = Buffer.from(r.bytes).toString('latin1');
      assert.ok(s.includes('k_new') && s.lastIndexOf('k_new') > s.indexOf('present.0.key'), 'k_new is declared after the existing output');
      // What follows the graph (the opset field) is still there, after the added outputs.
      assert.ok(Buffer.from(r.bytes.subarray(r.bytes.length - 4)).equals(Buffer.from(bytes.subarray(bytes.length - 4))));
    }
  });

  it('lengthens the graph field\'s header when the added outputs need a longer length, in place and copied alike', () => {
    let crossed = 0;
    for (let pad = 0; pad < 60; pad++) {
      // A graph of 88 to 147 bytes: its length takes one varint byte below 128, two from 128.
      const graph = cat(concatLayer(2n)[0], field(12, text(1, 'present.0.key')), text(2, 'g'.repeat(pad)));
      const bytes = cat(varint(1, 8n), field(7, graph), field(8, cat(text(1, ''), varint(2, 13n))));
      const copy = exposeCacheAppends(bytes, ['past_key_values.0.key']);
      const roomy = new Uint8Array(new ArrayBuffer(bytes.length + 100), 0, bytes.length);
      roomy.set(bytes);
      const inPlace = exposeCacheAppends(roomy, ['past_key_values.0.key'], { inPlace: true });
      assert.ok('bytes' in copy && 'bytes' in inPlace);
      assert.deepEqual([...inPlace.bytes], [...copy.bytes], `pad ${pad}`);
      // Read back: the output is declared once, and a second patch finds nothing to add.
      const again = exposeCacheAppends(copy.bytes, ['past_key_values.0.key']);
      assert.ok('bytes' in again);
      assert.deepEqual([...again.bytes], [...copy.bytes], `pad ${pad}: patched twice`);
      if (graph.length < 128 && graph.length + (copy.bytes.length - bytes.length) >= 128) crossed++;
    }
    assert.ok(crossed > 0, 'some graphs crossed 128 bytes');
  });

  it('refuses what is not the Concat pattern, naming why: another axis, another operator, a missing producer, external weights', () => {
    const why = (bytes: Uint8Array) => {
      const r = exposeCacheAppends(bytes, past);
      assert.ok('skipped' in r);
      return r.skipped;
    };
    assert.match(why(model(...concatLayer(1n))), /present\.0\.key is made by Concat\(past_key_values\.0\.key, k_new\), not Concat/);
    assert.match(why(model(node(['past_key_values.0.key', 'k_new'], ['present.0.key'], 'Add'), concatLayer(2n)[1])), /made by Add/);
    assert.match(why(model(concatLayer(2n)[0])), /no node makes present\.0\.value/);
    assert.match(why(model(node(['k_new', 'past_key_values.0.key'], ['present.0.key'], 'Concat', 2n), concatLayer(2n)[1])), /not Concat/);
    const external = field(5, cat(text(8, 'w'), varint(14, 1n)));
    assert.match(why(model(...concatLayer(2n), external)), /external data/);
    assert.throws(() => exposeCacheAppends(Uint8Array.from([0x3a, 0x7f, 0x01]), past), RangeError);
  });

  it('patches in place when the buffer has room after the model, with the same bytes as a copy', async () => {
    const file = join(gpt2, 'onnx/model.onnx');
    const names = Array.from({ length: 3 }, (_, i) => ['key', 'value'].map((kv) => `past_key_values.${i}.${kv}`)).flat();
    const copy = exposeCacheAppends(new Uint8Array(readFileSync(file)), names);
    const roomy = await readModelWithRoom(file);
    const inPlace = exposeCacheAppends(roomy, names, { inPlace: true });
    assert.ok('bytes' in copy && 'bytes' in inPlace);
    assert.equal(inPlace.bytes.buffer, roomy.buffer, 'written over the buffer read');
    const roomyToo = await readModelWithRoom(file);
    const asked = exposeCacheAppends(roomyToo, names);
    assert.ok('bytes' in asked && asked.bytes.buffer !== roomyToo.buffer, 'not in place unless asked');
    assert.ok(Buffer.from(inPlace.bytes).equals(Buffer.from(copy.bytes)));
    const session = await ort.InferenceSession.create(copy.bytes);
    try {
      for (const name of copy.appended.values()) assert.ok(session.outputNames.includes(name), name);
      for (const name of names) assert.ok(session.outputNames.includes(name.replace('past_key_values.', 'present.')));
    } finally {
      await session.release();
    }
  });
});

describe('loading the edited graph without reading its weights into memory (stageModel)', () => {
  const file = join(gpt2, 'onnx/model.onnx');
  const names = Array.from({ length: 3 }, (_, i) => ['key', 'value'].map((kv) => `past_key_values.${i}.${kv}`)).flat();
  /** Every output of one pass of a model over 2 cached positions and 3 new ones, with fixed inputs. */
  const outputsOf = async (source: string | Uint8Array) => {
    const session = typeof source === 'string' ? await ort.InferenceSession.create(source) : await ort.InferenceSession.create(source);
    try {
      const past = new Float32Array(4 * 2 * 32).map((_, i) => Math.sin(i));
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new ort.Tensor('int64', BigInt64Array.from([5n, 17n, 301n]), [1, 3]),
        attention_mask: new ort.Tensor('int64', BigInt64Array.from([1n, 1n, 1n, 1n, 1n]), [1, 5]),
        position_ids: new ort.Tensor('int64', BigInt64Array.from([2n, 3n, 4n]), [1, 3]),
      };
      for (const n of names) feeds[n] = new ort.Tensor('float32', past, [1, 4, 2, 32]);
      const out = await session.run(feeds);
      return Object.fromEntries(Object.entries(out).map(([k, t]) => [k, Array.from(t.data as Float32Array)]));
    } finally {
      await session.release();
    }
  };
  let expected: Record<string, number[]>;
  before(async () => {
    const patched = exposeCacheAppends(new Uint8Array(readFileSync(file)), names);
    assert.ok('bytes' in patched);
    expected = await outputsOf(patched.bytes);
  });

  it('points every large initializer at its own bytes in the model file: the same outputs, bit for bit, as the model edited in memory', async () => {
    const fd = openSync(file, 'r');
    const slim = (() => {
      try {
        return slimModel(fileSource(fd, 4096), 'model.onnx', names);
      } finally {
        closeSync(fd);
      }
    })();
    assert.ok('bytes' in slim);
    assert.ok(slim.bytes.length < readFileSync(file).length / 20, `${slim.bytes.length} bytes`);
    assert.deepEqual(slim.external, []);
    const staged = await stageModel(file, names);
    assert.ok('path' in staged, JSON.stringify(staged));
    const dir = join(staged.path, '..');
    try {
      assert.deepEqual(readFileSync(staged.path), Buffer.from(slim.bytes));
      const got = await outputsOf(staged.path);
      assert.deepEqual(Object.keys(got).sort(), Object.keys(expected).sort());
      for (const k of Object.keys(expected)) assert.deepEqual(got[k], expected[k], k);
    } finally {
      await staged.dispose();
    }
    assert.ok(!existsSync(dir), 'the staged folder is removed');
  });

  it('reads a model and its external data reached through symbolic links (a Hugging Face cache), hard-linking the files they point to', async () => {
    const root = mkdtempSync(join(tmpdir(), 'reflect-eval-hub-'));
    try {
      mkdirSync(join(root, 'blobs'));
      mkdirSync(join(root, 'snapshots/abc/onnx'), { recursive: true });
      cpSync(file, join(root, 'blobs/0123abcd'));
      symlinkSync('../../../blobs/0123abcd', join(root, 'snapshots/abc/onnx/model.onnx'));
      const r = await openCacheAppends(join(root, 'snapshots/abc/onnx/model.onnx'), names);
      assert.ok('source' in r && typeof r.source === 'string');
      try {
        const got = await outputsOf(r.source);
        for (const k of Object.keys(expected)) assert.deepEqual(got[k], expected[k], k);
      } finally {
        await r.dispose();
      }
      // A model with its weights in an external data file, both links into the cache's blobs (hub models over 2 GB).
      const fd = openSync(file, 'r');
      const slim = slimModel(fileSource(fd), 'model.onnx_data', names);
      closeSync(fd);
      assert.ok('bytes' in slim);
      writeFileSync(join(root, 'blobs/4567efgh'), slim.bytes);
      mkdirSync(join(root, 'snapshots/def/onnx'), { recursive: true });
      symlinkSync('../../../blobs/4567efgh', join(root, 'snapshots/def/onnx/model.onnx'));
      symlinkSync('../../../blobs/0123abcd', join(root, 'snapshots/def/onnx/model.onnx_data'));
      const ext = await stageModel(join(root, 'snapshots/def/onnx/model.onnx'), names);
      assert.ok('path' in ext, JSON.stringify(ext));
      try {
        const got = await outputsOf(ext.path);
        for (const k of Object.keys(expected)) assert.deepEqual(got[k], expected[k], k);
      } finally {
        await ext.dispose();
      }
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('tries each folder in turn (removing staged folders left there over an hour ago), and edits the model in memory where no folder takes the links', async () => {
    const nowhere = join(tmpdir(), 'reflect-eval-no-such-folder', 'deeper');
    const ok = mkdtempSync(join(tmpdir(), 'reflect-eval-parent-'));
    try {
      // Staged folders left behind (a platform that would not remove them): the old one goes, a recent one stays.
      mkdirSync(join(ok, '.reflect-eval-graph-old'));
      mkdirSync(join(ok, '.reflect-eval-graph-recent'));
      const twoHoursAgo = new Date(Date.now() - 7_200_000);
      utimesSync(join(ok, '.reflect-eval-graph-old'), twoHoursAgo, twoHoursAgo);
      const second = await stageModel(file, names, [nowhere, ok]);
      assert.ok('path' in second && second.path.startsWith(ok), 'the second folder');
      await second.dispose();
      assert.deepEqual(readdirSync(ok), ['.reflect-eval-graph-recent']);
      const none = await openCacheAppends(file, names, [nowhere]);
      assert.ok('source' in none && none.source instanceof Uint8Array, 'edited in memory');
      const got = await outputsOf(none.source);
      for (const k of Object.keys(expected)) assert.deepEqual(got[k], expected[k], k);
    } finally {
      rmSync(ok, { recursive: true, force: true });
    }
  });

  it('links the external data files a model already has, and refuses a location outside its folder', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-external-'));
    try {
      // A model whose weights are in an external file: the fixture's structure, its data in data/weights.bin.
      mkdirSync(join(dir, 'data'));
      cpSync(file, join(dir, 'data/weights.bin'));
      const fd = openSync(file, 'r');
      const external = (location: string) => {
        const r = slimModel(fileSource(fd), location, names);
        assert.ok('bytes' in r);
        return r.bytes;
      };
      writeFileSync(join(dir, 'model.onnx'), external('data/weights.bin'));
      writeFileSync(join(dir, 'escaping.onnx'), external('../weights.bin'));
      closeSync(fd);
      const staged = await stageModel(join(dir, 'model.onnx'), names);
      assert.ok('path' in staged, JSON.stringify(staged));
      try {
        const got = await outputsOf(staged.path);
        for (const k of Object.keys(expected)) assert.deepEqual(got[k], expected[k], k);
      } finally {
        await staged.dispose();
      }
      assert.deepEqual(await stageModel(join(dir, 'escaping.onnx'), names), { skipped: 'an initializer\'s external data location "../weights.bin" is not another file inside the model\'s folder' });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('every graph opened with its weights read as external data (OnnxGraph.open)', () => {
  it('stages the files it opens itself, with the same outputs as the file opened as it is', async () => {
    const rt = await ortRuntime();
    const folder = join(fixtures, 'reflect-bart-tiny');
    const file = join(folder, 'onnx/encoder_model.onnx');
    const contract = { requiredInputs: ['input_ids', 'attention_mask'], requiredOutputs: ['last_hidden_state'] };
    const staged = await OnnxGraph.open(rt, folder, file, contract);
    const plain = await OnnxGraph.open(rt, folder, file, contract, { stageWeights: false });
    const given = await OnnxGraph.open(rt, folder, file, contract, {}, new Uint8Array(readFileSync(file)));
    try {
      assert.deepEqual([staged.loadedFrom, plain.loadedFrom, given.loadedFrom], ['staged', 'file', 'source']);
      const feeds = { input_ids: new ort.Tensor('int64', BigInt64Array.from([0n, 31n, 415n, 2n]), [1, 4]), attention_mask: new ort.Tensor('int64', BigInt64Array.from([1n, 1n, 1n, 1n]), [1, 4]) };
      const a = (await staged.run(feeds)).last_hidden_state.data as Float32Array;
      const b = (await plain.run(feeds)).last_hidden_state.data as Float32Array;
      assert.ok(a.length > 0);
      assert.deepEqual(Array.from(a), Array.from(b));
    } finally {
      await staged.session.release();
      await plain.session.release();
      await given.session.release();
    }
  });

  it('names the model\'s own file, not a staged one, when onnxruntime cannot load it', async () => {
    const rt = await ortRuntime();
    const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-unstaged-'));
    try {
      writeFileSync(join(dir, 'model.onnx'), Uint8Array.from([0x3a, 0x7f, 0x01]));
      await assert.rejects(OnnxGraph.open(rt, dir, join(dir, 'model.onnx'), { requiredInputs: [], requiredOutputs: [] }), /model\.onnx could not be loaded by onnxruntime/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('StaticKVCache', () => {
  const H = 2;
  const D = 3;
  /** A compact [rows, H, len, D] tensor whose values name their row, head and position. */
  const compact = (rows: number[], len: number) => {
    const data = new Float32Array(rows.length * H * len * D);
    rows.forEach((r, i) => {
      for (let h = 0; h < H; h++) for (let t = 0; t < len; t++) for (let d = 0; d < D; d++) data[((i * H + h) * len + t) * D + d] = r * 1000 + h * 100 + t * 10 + d;
    });
    return new ort.Tensor('float32', data, [rows.length, H, len, D]);
  };
  /** The first `len` positions of every row of the cache's tensor, compacted. */
  const held = (c: StaticKVCache, name: string) => {
    const t = c.tensors().get(name) as ort.Tensor;
    const [rows, , cap] = t.dims;
    const out: number[] = [];
    const data = t.data as Float32Array;
    for (let rh = 0; rh < rows * H; rh++) out.push(...data.subarray(rh * cap * D, (rh * cap + c.length) * D));
    return out;
  };

  it('holds what a compact cache holds through tiling, appends, row selection (with repeats) and growth', () => {
    const c = StaticKVCache.from(ort.Tensor, new Map([['k', compact([0, 1], 2)]]), 2, 3);
    assert.deepEqual([c.rows, c.length, c.capacity], [4, 2, 3]);
    assert.deepEqual(c.tensors().get('k')?.dims, [4, H, 3, D]);
    assert.deepEqual(held(c, 'k'), [...(compact([0, 0, 1, 1], 2).data as Float32Array)]);
    // A step's new position (t = 2) per row.
    const step = (rows: number[], t: number) => {
      const data = new Float32Array(rows.length * H * D);
      rows.forEach((r, i) => {
        for (let h = 0; h < H; h++) for (let d = 0; d < D; d++) data[(i * H + h) * D + d] = r * 1000 + h * 100 + t * 10 + d;
      });
      return new ort.Tensor('float32', data, [rows.length, H, 1, D]);
    };
    c.append({ k_new: step([0, 0, 1, 1], 2) }, new Map([['k', 'k_new']]), 1);
    assert.deepEqual(held(c, 'k'), [...(compact([0, 0, 1, 1], 3).data as Float32Array)]);
    assert.throws(() => c.append({ k_new: step([0, 0, 1, 1], 3) }, new Map([['k', 'k_new']]), 1), RangeError);
    c.select([3, 3, 0]);
    assert.equal(c.rows, 3);
    assert.deepEqual(held(c, 'k'), [...(compact([1, 1, 0], 3).data as Float32Array)]);
    c.reserve(1, 8);
    assert.equal(c.capacity, 8);
    assert.deepEqual(held(c, 'k'), [...(compact([1, 1, 0], 3).data as Float32Array)]);
    c.append({ k_new: step([1, 1, 0], 3) }, new Map([['k', 'k_new']]), 1);
    assert.deepEqual(held(c, 'k'), [...(compact([1, 1, 0], 4).data as Float32Array)]);
    c.select([1, 2, 0]);
    assert.deepEqual(held(c, 'k'), [...(compact([1, 0, 1], 4).data as Float32Array)], 'a cycle');
    c.select([2, 1]);
    assert.deepEqual(held(c, 'k'), [...(compact([1, 0], 4).data as Float32Array)]);
  });

  it('reuses released buffers (the smallest that fits) and keeps them out of later caches while in use', () => {
    const pool = new CacheBufferPool();
    const c = StaticKVCache.from(ort.Tensor, new Map([['k', compact([0], 2)], ['v', compact([1], 2)]]), 2, 4, pool);
    const used = [...c.tensors().values()].map((t) => (t.data as Float32Array).buffer);
    assert.equal(pool.held, 0);
    c.release();
    assert.equal(pool.held, 2 * 2 * H * 4 * D);
    const big = pool.take(1);
    assert.ok(used.includes(big.buffer), 'a released buffer');
    const d = StaticKVCache.from(ort.Tensor, new Map([['k', compact([2], 2)]]), 1, 4, pool);
    assert.equal(pool.held, 0, 'the other released buffer went to the new cache');
    assert.deepEqual(held(d, 'k'), [...(compact([2], 2).data as Float32Array)]);
    assert.notEqual((d.tensors().get('k')?.data as Float32Array).buffer, big.buffer);
    // Prompts that grow: buffers too small for a request are not kept.
    const p2 = new CacheBufferPool();
    p2.give(new Float32Array(10));
    p2.give(new Float32Array(30));
    assert.equal(p2.take(20).length, 30);
    assert.equal(p2.held, 10);
    assert.equal(p2.take(40).length, 40);
    assert.equal(p2.held, 0, 'the 10-float buffer went');
  });

  it('moves rows in place as a gather would, for every selection of up to 4 of 4 rows, copying only rows that change', () => {
    let checked = 0;
    const all = (n: number, rows: number): number[][] => (n === 0 ? [[]] : all(n - 1, rows).flatMap((p) => Array.from({ length: rows }, (_, r) => [...p, r])));
    for (let n = 1; n <= 4; n++) {
      for (const indices of all(n, 4)) {
        const rows = ['a', 'b', 'c', 'd'];
        let spare = '';
        const moves = rowMoves(indices, 4);
        for (const [from, to] of moves) {
          const v = from < 0 ? spare : rows[from];
          if (to < 0) spare = v;
          else rows[to] = v;
        }
        assert.deepEqual(rows.slice(0, n), indices.map((i) => 'abcd'[i]), `select ${indices}`);
        const changed = indices.filter((i, k) => i !== k).length;
        assert.ok(moves.filter(([, to]) => to >= 0).length === changed, `select ${indices}: ${moves.length} moves`);
        checked++;
      }
    }
    assert.equal(checked, 4 + 16 + 64 + 256);
    assert.throws(() => rowMoves([4], 4), RangeError);
  });

  it('copies, between rows of one prompt, only the positions after the prompt pass, and holds a gather\'s rows through random reorders, drops and growth', () => {
    // Two prompts × 3 rows; every append gives each row values of its own, so rows differ after the prompt pass.
    const c = StaticKVCache.from(ort.Tensor, new Map([['k', compact([0, 1], 3)], ['v', compact([5, 6], 3)]]), 3, 4);
    type Row = { k: number[][]; v: number[][] }; // per head, the values of every position
    const rowOf = (r: number, len: number): number[][] => Array.from({ length: H }, (_, h) => Array.from({ length: len * D }, (_, i) => r * 1000 + h * 100 + Math.floor(i / D) * 10 + (i % D)));
    let rows: Row[] = [0, 0, 0, 1, 1, 1].map((p) => ({ k: rowOf(p, 3), v: rowOf(p + 5, 3) }));
    const expected = (name: 'k' | 'v') => rows.flatMap((r) => r[name].flat());
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    let value = 100_000;
    for (let round = 0; round < 60; round++) {
      const n = rows.length;
      const data = { k: new Float32Array(n * H * D), v: new Float32Array(n * H * D) };
      for (const name of ['k', 'v'] as const) {
        for (let i = 0; i < n; i++) {
          for (let h = 0; h < H; h++) {
            const vals = Array.from({ length: D }, () => value++);
            data[name].set(vals, (i * H + h) * D);
            rows[i][name][h] = [...rows[i][name][h], ...vals];
          }
        }
      }
      c.reserve(1, c.capacity + 4);
      c.append({ kn: new ort.Tensor('float32', data.k, [n, H, 1, D]), vn: new ort.Tensor('float32', data.v, [n, H, 1, D]) }, new Map([['k', 'kn'], ['v', 'vn']]), 1);
      // Mostly a beam search's reorders (within each prompt's rows); now and then rows dropped or repeated across prompts.
      const within = rand(4) > 0 && n === 6;
      const indices = within ? [0, 1, 2, 3, 4, 5].map((i) => 3 * Math.floor(i / 3) + rand(3)) : Array.from({ length: 1 + rand(6) }, () => rand(n));
      c.select(indices);
      rows = indices.map((i) => ({ k: rows[i].k.map((h) => [...h]), v: rows[i].v.map((h) => [...h]) }));
      assert.deepEqual(held(c, 'k'), expected('k'), `round ${round}: select ${indices}`);
      assert.deepEqual(held(c, 'v'), expected('v'), `round ${round}: select ${indices}`);
      if (rows.length < 6 && rand(3) === 0) break;
    }
    // The prompt pass's positions of a row are not written by a move between rows of its prompt: a value planted
    // there stays (a whole-row copy would overwrite it).
    const d = StaticKVCache.from(ort.Tensor, new Map([['k', compact([0], 2)]]), 3, 3);
    d.append({ kn: new ort.Tensor('float32', new Float32Array(3 * H * D).map((_, i) => -1 - i), [3, H, 1, D]) }, new Map([['k', 'kn']]), 1);
    const buf = d.tensors().get('k')!.data as Float32Array;
    const row = H * 3 * D;
    buf[2 * row] = 42; // row 2, head 0, position 0 (of the prompt pass)
    d.select([0, 1, 0]);
    assert.equal((d.tensors().get('k')!.data as Float32Array)[2 * row], 42);
    assert.equal((d.tensors().get('k')!.data as Float32Array)[2 * row + 2 * D], -1, 'the position after the prompt pass is row 0\'s');
  });
});

describe('a decoder-only model with its cache kept in place (reflect-gpt2-tiny)', () => {
  let inPlace: OnnxCausalLM;
  let returned: OnnxCausalLM;
  before(async () => {
    inPlace = await loadCausalLM(gpt2);
    returned = await loadCausalLM(gpt2, { staticCache: false });
  });
  after(async () => {
    await inPlace?.dispose();
    await returned?.dispose();
  });

  it('is the default where the graph allows it, and says why not where it does not', async () => {
    assert.equal(inPlace.cacheMode.kind, 'static');
    assert.equal(inPlace.cacheMode.kind === 'static' && inPlace.cacheMode.loadedFrom, 'links');
    assert.deepEqual(returned.cacheMode, { kind: 'present', reason: 'staticCache is off' });
    const merged = await loadCausalLM(join(fixtures, 'layouts/gpt2-merged'));
    const noPositions = await loadCausalLM(join(fixtures, 'layouts/gpt2-no-position-ids'));
    try {
      assert.match(merged.cacheMode.kind === 'present' ? merged.cacheMode.reason : '', /merged decoder/);
      assert.match(noPositions.cacheMode.kind === 'present' ? noPositions.cacheMode.reason : '', /no position_ids input/);
    } finally {
      await merged.dispose();
      await noPositions.dispose();
    }
  });

  it('is not used for attention that counts cache slots (a sliding or local window) or a model type not known to be exact', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-static-'));
    try {
      const config = JSON.parse(readFileSync(join(gpt2, 'config.json'), 'utf8')) as Record<string, unknown>;
      const reasonWith = async (change: Record<string, unknown>) => {
        const folder = join(dir, String(Object.keys(change).length + JSON.stringify(change).length));
        cpSync(gpt2, folder, { recursive: true });
        writeFileSync(join(folder, 'config.json'), JSON.stringify({ ...config, ...change }));
        const m = await loadCausalLM(folder);
        await m.dispose();
        return m.cacheMode.kind === 'present' ? m.cacheMode.reason : 'static';
      };
      assert.match(await reasonWith({ model_type: 'gpt_neo' }), /model_type gpt_neo is not one whose attention/);
      assert.match(await reasonWith({ sliding_window: 256 }), /sliding_window 256/);
      assert.equal(await reasonWith({ sliding_window: 256, use_sliding_window: false }), 'static');
      assert.match(await reasonWith({ layer_types: ['full_attention', 'sliding_attention'] }), /local or sliding/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives the logits of a cache returned every step: left-padded rows, repeated and dropped rows, several positions at once, and growing past its room', async () => {
    const prompts = [
      [464, 3290, 318, 257, 1332],
      [40, 588],
      [1544, 750, 407, 765, 284, 467, 11, 475],
    ];
    const a = await inPlace.startDecoding(prompts, { expand: 2, maxNewTokens: 2, reusePromptPass: false });
    const b = await returned.startDecoding(prompts, { expand: 2, reusePromptPass: false });
    const close = (x: Float32Array, y: Float32Array, what: string) => {
      assert.equal(x.length, y.length, what);
      let worst = 0;
      for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(x[i] - y[i]));
      assert.ok(worst < 1e-4, `${what}: logits differ by ${worst}`);
    };
    close(a.logits, b.logits, 'prompt pass');
    const both = async (what: string, f: (s: DecodingSession) => Promise<Float32Array>) => close(await f(a.session), await f(b.session), what);
    let rows = 6;
    const tokens = (step: number, width = 1) => Array.from({ length: rows * width }, (_, i) => 100 + ((i * 7 + step * 13) % 500));
    for (let step = 0; step < 12; step++) {
      // Beyond maxNewTokens (2) the cache grows; rows are repeated and dropped as beam search and sampling do.
      if (step === 3) {
        a.session.select([1, 1, 0, 4, 5, 2]);
        b.session.select([1, 1, 0, 4, 5, 2]);
      }
      if (step === 6) {
        a.session.select([5, 0, 3]);
        b.session.select([5, 0, 3]);
        rows = 3;
      }
      if (step === 8) await both(`step ${step}, 4 positions at once`, (s) => s.extend(tokens(step, 4), 4));
      else await both(`step ${step}`, (s) => s.step(tokens(step)));
    }
    // A released session's buffers serve the next one, with the old keys and values still in the slots it has not
    // written: the mask hides them.
    a.session.release?.();
    const c = await inPlace.startDecoding([[318, 257]], { expand: 3, maxNewTokens: 40, reusePromptPass: false });
    const d = await returned.startDecoding([[318, 257]], { expand: 3, reusePromptPass: false });
    close(c.logits, d.logits, 'after reuse, prompt pass');
    for (let step = 0; step < 4; step++) {
      const t = Array.from({ length: 3 }, (_, i) => 200 + i * 31 + step);
      close(await c.session.step(t), await d.session.step(t), `after reuse, step ${step}`);
    }
    c.session.release?.();
  });
});
