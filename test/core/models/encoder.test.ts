import { strict as assert } from 'node:assert';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pythonStrip, type EncoderModel } from '../../../src/core/models/encoder';
import { ModelSourceError } from '../../../src/core/models/errors';
import { loadEncoder, loadSentenceEmbedder } from '../../../src/core/models/registry';
import { fixtureLocator } from '../../helpers/models';

const ROOT = join(__dirname, '..', '..', '..');
const FULL = join(ROOT, 'fixtures', 'models', 'reflect-roberta-tiny');
const ref = JSON.parse(readFileSync(join(ROOT, 'test', 'core', 'metrics', 'fixtures', 'bertscore-reference.json'), 'utf8')) as {
  numLayers: number;
  sentences: string[];
  sentenceEmbeddings: number[][];
  layerMeans: { sentences: string[]; values: number[][][] };
};

describe('EncoderModel on the tiny encoder fixture (transformers.js) vs the float64 PyTorch reference', () => {
  let enc: EncoderModel;
  before(async () => {
    enc = await loadEncoder(FULL, fixtureLocator);
  });
  after(() => enc.dispose());

  it('reads the export: layers 0–4, RoBERTa special ids, model_max_length 128', () => {
    assert.deepEqual(enc.availableLayers, [0, 1, 2, 3, 4]);
    assert.deepEqual(enc.specialIds, { cls: 0, sep: 2, pad: 1 });
    assert.equal(enc.modelMaxLength, 128);
    assert.equal(enc.tokenizerClass, 'RobertaTokenizer');
  });

  it('gives every layer the hidden states of PyTorch within 1e-6 (token means of 3 sentences), batched with padding', async () => {
    let max = 0;
    for (let layer = 0; layer <= ref.numLayers; layer++) {
      const hs = await enc.hiddenStates(ref.layerMeans.sentences.map((s) => enc.encode(s)), layer, { batchSize: 3 });
      hs.forEach((h, i) => {
        for (let k = 0; k < h.hiddenSize; k++) {
          let m = 0;
          for (let t = 0; t < h.length; t++) m += h.data[t * h.hiddenSize + k];
          max = Math.max(max, Math.abs(m / h.length - ref.layerMeans.values[i][layer][k]));
        }
      });
    }
    assert.ok(max < 1e-6, `max |diff| ${max}`);
  });

  it('truncates the content, not the special tokens, to model_max_length', () => {
    const long = 'so '.repeat(300);
    const ids = enc.encode(long);
    assert.equal(ids.length, 128);
    assert.deepEqual([ids[0], ids[127]], [0, 2]);
    assert.deepEqual(enc.encode(long, 10).slice(1, 9), enc.tokenize(long).slice(0, 8));
  });

  it('names the folder and the missing file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'enc-'));
    try {
      cpSync(FULL, dir, { recursive: true });
      rmSync(join(dir, 'tokenizer.json'));
      await assert.rejects(loadEncoder(dir, fixtureLocator), (e: Error) => e instanceof ModelSourceError && e.message.includes(`model folder ${dir} has no tokenizer.json`));
      await assert.rejects(loadEncoder(join(dir, 'nope'), fixtureLocator), /does not exist/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SentenceEmbedder (mean pooling over the attention mask, L2 normalisation)', () => {
  it('reproduces the float64 PyTorch embeddings within 1e-6, empty and over-long sentences included', async () => {
    const e = await loadSentenceEmbedder(FULL, fixtureLocator);
    try {
      assert.deepEqual(e.spec, { pooling: 'mean', normalize: true, maxSeqLength: 128, lowerCase: false });
      const got = await e.embed(ref.sentences, { batchSize: 5 });
      let max = 0;
      got.forEach((v, i) => v.forEach((x, k) => (max = Math.max(max, Math.abs(x - ref.sentenceEmbeddings[i][k])))));
      assert.ok(max < 1e-6, `max |diff| ${max}`);
      for (const v of got) assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-12);
    } finally {
      await e.dispose();
    }
  });

  it('refuses a pooling mode other than mean and follows modules.json on normalisation', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'st-'));
    try {
      cpSync(FULL, dir, { recursive: true });
      writeFileSync(join(dir, '1_Pooling', 'config.json'), JSON.stringify({ pooling_mode_cls_token: true, pooling_mode_mean_tokens: false }));
      await assert.rejects(loadSentenceEmbedder(dir, fixtureLocator), /asks for pooling_mode_cls_token; ReflectEval implements mean pooling/);
      writeFileSync(join(dir, '1_Pooling', 'config.json'), JSON.stringify({ pooling_mode_mean_tokens: true }));
      writeFileSync(join(dir, 'modules.json'), JSON.stringify([{ type: 'sentence_transformers.models.Transformer' }, { type: 'sentence_transformers.models.Pooling' }]));
      const e = await loadSentenceEmbedder(dir, fixtureLocator);
      assert.equal(e.spec.normalize, false);
      await e.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('strips like Python before embedding', async () => {
    assert.equal(pythonStrip('\u00a0 Okay. \u001f'), 'Okay.');
  });
});
