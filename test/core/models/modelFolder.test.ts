/**
 * Model folders: layout detection, and one clear ModelSourceError (folder + missing piece) for broken copies
 * of the fixtures built in a temp dir.
 */
import assert from 'node:assert/strict';
import fs, { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { OnnxCausalLM } from '../../../src/core/models/causalLM';
import { ModelSourceError } from '../../../src/core/models/errors';
import { checkModelFolder } from '../../../src/core/models/modelFiles';
import { buildOnnxModel, ELEM } from '../../../src/core/models/onnxBuilder';
import { describedModelFiles, describeModel, loadEncoder, loadGenerativeModel, loadModelTokenizer, type ModelLocator } from '../../../src/core/models/registry';
import { OnnxSeq2SeqLM } from '../../../src/core/models/seq2seqLM';
import { fixtureLocator } from '../../helpers/models';

const models = resolve(__dirname, '../../../fixtures/models');
const gpt2 = join(models, 'reflect-gpt2-tiny');
const merged = join(models, 'layouts', 'gpt2-merged');
const bartSplit = join(models, 'layouts', 'bart-split');

/** Replaces every occurrence of `from` by `to` (same length) in a binary file: renames an ONNX graph input consistently. */
function renameInOnnx(file: string, from: string, to: string): void {
  assert.equal(from.length, to.length);
  const buf = readFileSync(file);
  const a = Buffer.from(from);
  let n = 0;
  for (let i = buf.indexOf(a); i >= 0; i = buf.indexOf(a, i + 1)) {
    buf.write(to, i);
    n++;
  }
  assert.ok(n > 0, `${from} not found in ${file}`);
  writeFileSync(file, buf);
}

function rejectsWith(p: Promise<unknown>, folder: string, piece: RegExp): Promise<void> {
  return assert.rejects(p, (e: unknown) => {
    assert.ok(e instanceof ModelSourceError, `expected a ModelSourceError, got ${String(e)}`);
    assert.ok(e.message.includes(folder), `names the folder: ${e.message}`);
    assert.match(e.message, piece);
    return true;
  });
}

describe('model folders and layouts', () => {
  let tmp: string;
  beforeEach(() => {
    tmp = mkdtempSync(join(tmpdir(), 'reflect-eval-model-'));
  });
  afterEach(() => rmSync(tmp, { recursive: true, force: true }));

  const copy = (src: string) => {
    const dst = join(tmp, 'model');
    cpSync(src, dst, { recursive: true });
    return dst;
  };

  it('detects each supported layout', () => {
    assert.deepEqual(
      [gpt2, merged, bartSplit].map((f) => {
        const l = checkModelFolder(f);
        return `${l.architecture}/${l.kind}`;
      }),
      ['decoder-only/single', 'decoder-only/merged', 'encoder-decoder/split'],
    );
  });

  it('loads the right class for the folder: loadGenerativeModel decides by config.json; each class refuses the other architecture', async () => {
    const a = await loadGenerativeModel(merged, fixtureLocator);
    const b = await loadGenerativeModel(bartSplit, fixtureLocator);
    try {
      assert.ok(a instanceof OnnxCausalLM);
      assert.ok(b instanceof OnnxSeq2SeqLM);
      assert.equal(b.specialTokens.decoderStartTokenId, 2);
    } finally {
      await a.dispose();
      await b.dispose();
    }
    await rejectsWith(describeModel(bartSplit, fixtureLocator, { task: 'generation' }).then((d) => OnnxCausalLM.fromDescription(d)), bartSplit, /encoder-decoder/);
    await rejectsWith(describeModel(gpt2, fixtureLocator, { task: 'generation' }).then((d) => OnnxSeq2SeqLM.fromDescription(d)), gpt2, /decoder-only/);
  });

  it('names the missing config or tokenizer file', async () => {
    const dir = copy(merged);
    rmSync(join(dir, 'tokenizer.json'));
    await rejectsWith(loadGenerativeModel(dir, fixtureLocator), dir, /has no tokenizer\.json/);
  });

  it('names the missing ONNX decoder, and the missing half of a split layout', async () => {
    const dir = copy(merged);
    rmSync(join(dir, 'onnx', 'decoder_model_merged.onnx'));
    await rejectsWith(loadGenerativeModel(dir, fixtureLocator), dir, /no ONNX decoder/);
    const bart = join(tmp, 'bart');
    cpSync(bartSplit, bart, { recursive: true });
    rmSync(join(bart, 'onnx', 'decoder_with_past_model.onnx'));
    await rejectsWith(loadGenerativeModel(bart, fixtureLocator), bart, /no onnx\/decoder_with_past_model\.onnx/);
    rmSync(join(bart, 'onnx', 'encoder_model.onnx'));
    await rejectsWith(loadGenerativeModel(bart, fixtureLocator), bart, /no onnx\/encoder_model\.onnx/);
  });

  it('names a wrongly named ONNX input (renamed inside a copy of the graph), in one error', async () => {
    const dir = copy(merged);
    renameInOnnx(join(dir, 'onnx', 'decoder_model_merged.onnx'), 'attention_mask', 'attention_mazk');
    await rejectsWith(loadGenerativeModel(dir, fixtureLocator), dir, /decoder_model_merged\.onnx.*no input "attention_mask".*unexpected input "attention_mazk"/);
  });

  it('names a missing cache output and a wrongly named encoder-decoder input', async () => {
    const dir = copy(merged);
    renameInOnnx(join(dir, 'onnx', 'decoder_model_merged.onnx'), 'present.0.value', 'present.0.valuE');
    await rejectsWith(loadGenerativeModel(dir, fixtureLocator), dir, /no output "present\.0\.value"/);
    const bart = join(tmp, 'bart');
    cpSync(bartSplit, bart, { recursive: true });
    renameInOnnx(join(bart, 'onnx', 'decoder_with_past_model.onnx'), 'encoder_attention_mask', 'encoder_attention_mazk');
    await rejectsWith(loadGenerativeModel(bart, fixtureLocator), bart, /decoder_with_past_model\.onnx.*no input "encoder_attention_mask"/);
  });

  it('names a graph onnxruntime cannot load, and a folder that does not exist', async () => {
    const dir = copy(merged);
    writeFileSync(join(dir, 'onnx', 'decoder_model_merged.onnx'), 'not a model');
    await rejectsWith(loadGenerativeModel(dir, fixtureLocator), dir, /decoder_model_merged\.onnx could not be loaded/);
    const gone = join(tmp, 'nothing-here');
    await rejectsWith(loadGenerativeModel(gone, fixtureLocator), gone, /does not exist/);
  });

  it('finds files at the top level as well as under onnx/', async () => {
    const dir = copy(merged);
    renameSync(join(dir, 'onnx', 'decoder_model_merged.onnx'), join(dir, 'decoder_model_merged.onnx'));
    const m = await loadGenerativeModel(dir, fixtureLocator);
    await m.dispose();
  });

  it('resolves bundled:, relative (against the base folder) and absolute references to one description', async () => {
    const locator: ModelLocator = { bundledDir: models, baseDir: join(models, 'layouts') };
    const bundled = await describeModel('bundled:reflect-bart-tiny', locator);
    assert.deepEqual([bundled.source, bundled.folder, bundled.layout.architecture, bundled.config.model_type], ['bundled', join(models, 'reflect-bart-tiny'), 'encoder-decoder', 'bart']);
    assert.equal(bundled.generationConfig.decoder_start_token_id, 2);
    const rel = await describeModel('gpt2-merged', locator);
    assert.deepEqual([rel.ref, rel.source, rel.folder], ['gpt2-merged', 'folder', merged]);
    assert.equal(describedModelFiles(rel), 'gpt2-merged|files:onnx/decoder_model_merged.onnx');
    assert.equal((await describeModel(bartSplit, locator)).source, 'folder');
    await rejectsWith(describeModel('./gpt2-nothing', locator), join(models, 'layouts', 'gpt2-nothing'), /does not exist/);
    await assert.rejects(describeModel('bundled:reflect-gpt2-tiny', { bundledDir: '', baseDir: models }), /no folder of bundled models/);
    // Any local generative model loads by reference, encoder-decoder included (so any can be a local judge).
    const bart = await loadGenerativeModel('bundled:reflect-bart-tiny', locator);
    assert.ok(bart instanceof OnnxSeq2SeqLM);
    assert.equal(bart.ref, 'bundled:reflect-bart-tiny');
    await bart.dispose();
    const tok = await loadModelTokenizer('bundled:reflect-gpt2-tiny', locator);
    assert.deepEqual(tok.eosTokenIds.length, 1);
  });

  it('chooses the ONNX files of a dtype (transformers.js suffixes), records it, and lists the variants present when one is missing', async () => {
    const dir = copy(merged);
    cpSync(join(dir, 'onnx', 'decoder_model_merged.onnx'), join(dir, 'onnx', 'decoder_model_merged_quantized.onnx'));
    const locator: ModelLocator = { bundledDir: '', baseDir: tmp };
    const q8 = await describeModel('model', locator, { dtype: 'q8' });
    assert.equal(q8.layout.architecture === 'decoder-only' && q8.layout.decoder, join(dir, 'onnx', 'decoder_model_merged_quantized.onnx'));
    assert.equal(describedModelFiles(q8), 'model|dtype:q8|files:onnx/decoder_model_merged_quantized.onnx');
    const m = await loadGenerativeModel('model', locator, { dtype: 'q8' });
    assert.equal(m.ref, 'model|dtype:q8');
    await m.dispose();
    // The q8 load reads the _quantized file, not the fp32 one: with the fp32 file unreadable, q8 still loads and
    // decodes, and fp32 fails.
    writeFileSync(join(dir, 'onnx', 'decoder_model_merged.onnx'), 'not an ONNX file');
    const q8only = await loadGenerativeModel('model', locator, { dtype: 'q8' });
    const { decode } = await import('../../../src/core/decoding/engine');
    const [[seq]] = await decode(q8only, [[5, 6, 7]], { strategy: 'greedy', maxNewTokens: 3 });
    assert.ok(seq.tokenIds.length + (seq.endedWithEos ? 1 : 0) >= 1);
    await q8only.dispose();
    await assert.rejects(loadGenerativeModel('model', locator));
    cpSync(join(dir, 'onnx', 'decoder_model_merged_quantized.onnx'), join(dir, 'onnx', 'decoder_model_merged.onnx'));
    await rejectsWith(
      describeModel('model', locator, { dtype: 'q4' }),
      dir,
      /no ONNX decoder for dtype q4; variants present: fp32 \(onnx\/decoder_model_merged\.onnx\), q8 \(onnx\/decoder_model_merged_quantized\.onnx\)/,
    );
    rmSync(join(dir, 'onnx', 'decoder_model_merged.onnx'));
    await rejectsWith(describeModel('model', locator), dir, /no ONNX decoder for dtype fp32; variants present: q8 /);
    // Encoders: model_<suffix>.onnx.
    const enc = join(tmp, 'encoder');
    cpSync(join(models, 'reflect-roberta-tiny'), enc, { recursive: true });
    renameSync(join(enc, 'onnx', 'model.onnx'), join(enc, 'onnx', 'model_fp16.onnx'));
    await rejectsWith(loadEncoder(enc, locator), enc, /no ONNX encoder for dtype fp32; variants present: fp16 \(onnx\/model_fp16\.onnx\)/);
  });

  it('parses config.json once per load, for generators and encoders alike', async () => {
    const reads: string[] = [];
    const sync = fs.readFileSync;
    const async_ = fs.promises.readFile;
    const stream = fs.createReadStream;
    const note = (p: unknown) => basename(String(p)) === 'config.json' && !String(p).includes('Pooling') && reads.push(String(p));
    // Spies on every way the loaders and transformers.js read files; they only record.
    fs.readFileSync = ((p: fs.PathOrFileDescriptor, ...a: unknown[]) => (note(p), (sync as (...x: unknown[]) => unknown)(p, ...a))) as typeof fs.readFileSync;
    fs.promises.readFile = ((p: fs.PathLike, ...a: unknown[]) => (note(p), (async_ as (...x: unknown[]) => unknown)(p, ...a))) as typeof fs.promises.readFile;
    fs.createReadStream = ((p: fs.PathLike, ...a: unknown[]) => (note(p), (stream as (...x: unknown[]) => unknown)(p, ...a))) as typeof fs.createReadStream;
    try {
      const locator: ModelLocator = { bundledDir: models, baseDir: tmp };
      await (await loadGenerativeModel('bundled:reflect-bart-tiny', locator)).dispose();
      await (await loadGenerativeModel('bundled:reflect-gpt2-tiny', locator)).dispose();
      await (await loadEncoder('bundled:reflect-roberta-tiny', locator)).dispose();
    } finally {
      fs.readFileSync = sync;
      fs.promises.readFile = async_;
      fs.createReadStream = stream;
    }
    assert.deepEqual(reads, ['reflect-bart-tiny', 'reflect-gpt2-tiny', 'reflect-roberta-tiny'].map((m) => join(models, m, 'config.json')));
  });

  it('refuses an fp16 export for generation, naming the float16 tensors and the precisions that load', async () => {
    // A graph with the decoder's names whose logits and caches are float16 (logits = Cast(input_ids), presents = pasts).
    const dir = copy(merged);
    rmSync(join(dir, 'onnx'), { recursive: true });
    fs.mkdirSync(join(dir, 'onnx'));
    const layers = Number(JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')).n_layer);
    const pasts = Array.from({ length: layers }, (_, i) => [`past_key_values.${i}.key`, `past_key_values.${i}.value`]).flat();
    const FLOAT16 = 10;
    const bytes = buildOnnxModel(
      [
        { op: 'Unsqueeze', inputs: ['input_ids'], outputs: ['ids3'], attrs: { axes: [2] } },
        { op: 'Cast', inputs: ['ids3'], outputs: ['logits'], attrs: { to: FLOAT16 } },
        ...pasts.map((p) => ({ op: 'Identity', inputs: [p], outputs: [p.replace('past_key_values.', 'present.')] })),
      ],
      [
        { name: 'input_ids', elem: ELEM.int64, rank: 2 },
        { name: 'attention_mask', elem: ELEM.int64, rank: 2 },
        ...pasts.map((name) => ({ name, elem: FLOAT16, rank: 4 })),
      ],
      [{ name: 'logits', elem: FLOAT16, rank: 3 }, ...pasts.map((p) => ({ name: p.replace('past_key_values.', 'present.'), elem: FLOAT16, rank: 4 }))],
      11,
    );
    writeFileSync(join(dir, 'onnx', 'model_fp16.onnx'), bytes);
    await rejectsWith(
      loadGenerativeModel(dir, { bundledDir: '', baseDir: tmp }, { dtype: 'fp16' }),
      dir,
      /onnx\/model_fp16\.onnx has past_key_values\.0\.key: float16, past_key_values\.0\.value: float16, .* and \d+ more\. .*load an fp32 or integer-quantized variant \(dtype fp32, q8/,
    );
  });
});
