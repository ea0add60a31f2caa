/**
 * Hub models over real HTTP: `@huggingface/hub` against a stand-in for the hub on loopback (stubHub.ts) serving the
 * fixture folders as repositories, into the Python-compatible cache (`models--org--name/{blobs,snapshots,refs}`).
 * Checked: what is downloaded and where, that a cached model costs no request, that a dropped connection leaves
 * nothing a later run takes for complete, one clear error for 404 / 401 / no ONNX export, HF_HUB_OFFLINE, and a
 * cache written by Python's huggingface_hub (built here file by file as it lays files out).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { describedModelFiles, describeModel, loadGenerativeModel, loadModelTokenizer, loadSentenceEmbedder, ModelSourceError, type ModelLocator } from '../../../src/core/models/registry';
import { startStubHub, type StubHub } from './stubHub';

const fixtures = resolve(__dirname, '../../../fixtures/models');
const gpt2Merged = join(fixtures, 'layouts', 'gpt2-merged');
const bartSplit = join(fixtures, 'layouts', 'bart-split');
const encoder = join(fixtures, 'reflect-roberta-tiny');
const TOKEN = 'hf_stubTokenDoNotLeak123';
const HF_VARS = ['HF_ENDPOINT', 'HF_HOME', 'HF_HUB_CACHE', 'HUGGINGFACE_HUB_CACHE', 'HF_HUB_OFFLINE', 'TRANSFORMERS_OFFLINE', 'HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN', 'HF_TOKEN_PATH', 'XDG_CACHE_HOME'];

/** Every file under `dir`, relative, `/`-separated. */
function filesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => relative(dir, join(e.parentPath, e.name)).split('\\').join('/'))
    .sort();
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const gitOid = (b: Buffer) => createHash('sha1').update(`blob ${b.length}\0`).update(b).digest('hex');

/** Lays out `files` of `folder` as Python's huggingface_hub does: blobs named by ETag, relative symlinks, refs/main. */
function pythonCache(cacheDir: string, id: string, commit: string, folder: string, files: string[]): void {
  const repo = join(cacheDir, `models--${id.split('/').join('--')}`);
  for (const f of files) {
    const content = readFileSync(join(folder, f));
    const blob = join(repo, 'blobs', f.endsWith('.onnx') ? sha256(content) : gitOid(content));
    mkdirSync(dirname(blob), { recursive: true });
    writeFileSync(blob, content);
    const pointer = join(repo, 'snapshots', commit, f);
    mkdirSync(dirname(pointer), { recursive: true });
    symlinkSync(relative(dirname(pointer), blob), pointer);
  }
  mkdirSync(join(repo, 'refs'), { recursive: true });
  writeFileSync(join(repo, 'refs', 'main'), commit);
}

describe('hub models through @huggingface/hub (a stand-in hub on loopback)', function () {
  this.timeout(120_000);
  let hub: StubHub;
  let tmp: string;
  let cache: string;
  let locator: ModelLocator;
  const savedEnv: Record<string, string | undefined> = {};
  const variants = mkdtempSync(join(tmpdir(), 'hub-variants-'));
  const pytorchOnly = mkdtempSync(join(tmpdir(), 'hub-pt-'));

  before(async () => {
    // A repository with an fp32 and a "q8" merged decoder (the q8 file is the fp32 graph under the quantized name:
    // what is checked is which file is chosen and downloaded), and one without any ONNX export.
    cpSync(gpt2Merged, variants, { recursive: true });
    cpSync(join(variants, 'onnx', 'decoder_model_merged.onnx'), join(variants, 'onnx', 'decoder_model_merged_quantized.onnx'));
    cpSync(gpt2Merged, pytorchOnly, { recursive: true });
    rmSync(join(pytorchOnly, 'onnx'), { recursive: true });
    hub = await startStubHub(
      {
        'test-org/gpt2-merged': { folder: gpt2Merged },
        'test-org/bart-split': { folder: bartSplit },
        'test-org/encoder': { folder: encoder },
        'test-org/variants': { folder: variants },
        'test-org/pytorch-only': { folder: pytorchOnly },
        'test-org/gated': { folder: gpt2Merged, gated: true },
      },
      { token: TOKEN },
    );
  });
  after(async () => {
    await hub.close();
    rmSync(variants, { recursive: true, force: true });
    rmSync(pytorchOnly, { recursive: true, force: true });
  });
  beforeEach(() => {
    for (const k of HF_VARS) {
      savedEnv[k] = process.env[k];
      delete process.env[k];
    }
    tmp = mkdtempSync(join(tmpdir(), 'hub-test-'));
    cache = join(tmp, 'hub-cache');
    // No token file of the user's own: HF_HOME points at an empty folder.
    process.env.HF_HOME = join(tmp, 'hf-home');
    hub.requests.length = 0;
    hub.cut.clear();
    locator = { bundledDir: '', baseDir: tmp, hub: { endpoint: hub.endpoint, cacheDir: cache } };
  });
  afterEach(() => {
    for (const k of HF_VARS) {
      if (savedEnv[k] === undefined) delete process.env[k];
      else process.env[k] = savedEnv[k];
    }
    rmSync(tmp, { recursive: true, force: true });
  });

  it('first run downloads what generation needs into models--org--name/{blobs,snapshots,refs}; a second run makes no request at all', async () => {
    const model = await loadGenerativeModel('test-org/bart-split', locator);
    const local = await loadGenerativeModel(bartSplit, locator);
    try {
      assert.equal(model.architecture, 'encoder-decoder');
      assert.equal(model.ref, 'test-org/bart-split', 'outputs record the id as written');
      const commit = hub.commitOf('test-org/bart-split');
      const repo = join(cache, 'models--test-org--bart-split');
      assert.equal(model.folder, join(repo, 'snapshots', commit));
      assert.equal(readFileSync(join(repo, 'refs', 'main'), 'utf8'), commit);
      assert.deepEqual(filesUnder(join(repo, 'snapshots', commit)), [
        'config.json',
        'generation_config.json',
        'onnx/decoder_model.onnx',
        'onnx/decoder_with_past_model.onnx',
        'onnx/encoder_model.onnx',
        'special_tokens_map.json',
        'tokenizer.json',
        'tokenizer_config.json',
      ]);
      // Python's layout: each snapshot file a relative symlink to a blob named by its ETag (sha256 for LFS files, git blob id otherwise).
      const onnx = join(repo, 'snapshots', commit, 'onnx', 'encoder_model.onnx');
      assert.ok(lstatSync(onnx).isSymbolicLink());
      const fixtureBytes = readFileSync(join(bartSplit, 'onnx', 'encoder_model.onnx'));
      assert.equal(resolve(dirname(onnx), readlinkSync(onnx)), join(repo, 'blobs', sha256(fixtureBytes)));
      assert.ok(existsSync(join(repo, 'blobs', gitOid(readFileSync(join(bartSplit, 'config.json'))))));
      assert.ok(!filesUnder(join(repo, 'blobs')).some((f) => f.endsWith('.incomplete')));
      // The LFS files came through the redirect to the CDN, as from the real hub.
      assert.ok(hub.fileRequests().some((u) => u.startsWith('/cdn/')));
      // The same numbers as the fixture folder.
      const prompt = local.tokenizer.encodeWithSpecialTokens('I feel stuck at work.');
      const [a, b] = [await model.startDecoding([prompt]), await local.startDecoding([prompt])];
      assert.deepEqual(Array.from(a.logits), Array.from(b.logits));
    } finally {
      await model.dispose();
      await local.dispose();
    }
    const before = hub.requests.length;
    const again = await describeModel('test-org/bart-split', locator);
    assert.equal(hub.requests.length, before, 'a cached model costs no request');
    assert.deepEqual(again.hub?.downloaded, []);
    assert.equal(again.hub?.commit, hub.commitOf('test-org/bart-split'));
  });

  it('downloads only the ONNX variant of the dtype asked for, records it, and names the variants present when one is missing', async () => {
    const d = await describeModel('test-org/variants', locator, { dtype: 'q8' });
    assert.ok(d.hub?.downloaded.includes('onnx/decoder_model_merged_quantized.onnx'));
    assert.ok(!hub.fileRequests().some((u) => u.includes('/onnx/decoder_model_merged.onnx')), 'the fp32 file is not downloaded');
    assert.equal(describedModelFiles(d), `test-org/variants|dtype:q8|commit:${hub.commitOf('test-org/variants')}|files:onnx/decoder_model_merged_quantized.onnx`);
    const model = await loadGenerativeModel('test-org/variants', locator, { dtype: 'q8' });
    assert.equal(model.ref, 'test-org/variants|dtype:q8');
    await model.dispose();
    const files = hub.fileRequests().length;
    await assert.rejects(describeModel('test-org/variants', locator, { dtype: 'q4' }), (e: unknown) => {
      assert.ok(e instanceof ModelSourceError);
      assert.match(e.message, /hub model "test-org\/variants".*no ONNX decoder for dtype q4; variants present: fp32 \(onnx\/decoder_model_merged\.onnx\), q8 \(onnx\/decoder_model_merged_quantized\.onnx\)/);
      return true;
    });
    assert.equal(hub.fileRequests().length, files, 'nothing is downloaded for a missing variant');
  });

  it('a download cut mid-file leaves nothing taken for complete; the next run downloads it again and loads', async () => {
    hub.cut.add('test-org/gpt2-merged/onnx/decoder_model_merged.onnx');
    await assert.rejects(loadGenerativeModel('test-org/gpt2-merged', locator), (e: unknown) => {
      assert.ok(e instanceof ModelSourceError, String(e));
      assert.match(e.message, /hub model "test-org\/gpt2-merged".*onnx\/decoder_model_merged\.onnx.*run again/);
      return true;
    });
    const repo = join(cache, 'models--test-org--gpt2-merged');
    const snapshot = join(repo, 'snapshots', hub.commitOf('test-org/gpt2-merged'));
    const bytes = readFileSync(join(gpt2Merged, 'onnx', 'decoder_model_merged.onnx'));
    assert.ok(!existsSync(join(snapshot, 'onnx', 'decoder_model_merged.onnx')), 'no snapshot entry for the cut file');
    assert.ok(!existsSync(join(repo, 'blobs', sha256(bytes))), 'no blob under the final name');
    const partial = filesUnder(join(repo, 'blobs')).filter((f) => f.endsWith('.incomplete'));
    assert.ok(partial.every((f) => statSync(join(repo, 'blobs', f)).size < bytes.length), 'only a marked, shorter partial file');
    hub.requests.length = 0;
    const model = await loadGenerativeModel('test-org/gpt2-merged', locator);
    await model.dispose();
    assert.equal(sha256(readFileSync(join(snapshot, 'onnx', 'decoder_model_merged.onnx'))), sha256(bytes));
    assert.ok(hub.fileRequests().every((u) => u.includes('decoder_model_merged.onnx') || u.startsWith('/cdn/')), `only the missing file is fetched again: ${hub.fileRequests().join(', ')}`);
  });

  it('a 404 gives one error naming the id and what to do', async () => {
    await assert.rejects(describeModel('test-org/no-such-model', locator), (e: unknown) => {
      assert.ok(e instanceof ModelSourceError, String(e));
      assert.match(e.message, /^hub model "test-org\/no-such-model" \(revision main\): its file list .* was not found at http:\/\/127\.0\.0\.1:\d+ \(HTTP 404/);
      assert.match(e.message, /check the id.*HF_TOKEN.*pass a local folder.*no folder .*test-org\/no-such-model exists either/);
      return true;
    });
    await assert.rejects(describeModel('test-org/gpt2-merged@v9', locator), /revision v9.*HTTP 404/);
  });

  it('a 401 from a gated model names the id, the file and HF_TOKEN; the token (HF_TOKEN, else $HF_HOME/token) is sent and never shown', async () => {
    await assert.rejects(describeModel('test-org/gated', locator), (e: unknown) => {
      assert.ok(e instanceof ModelSourceError, String(e));
      assert.match(e.message, /^hub model "test-org\/gated" \(revision main\): config\.json was refused by .* \(HTTP 401 \("Access to model test-org\/gated is restricted/);
      assert.match(e.message, /no HF_TOKEN is set\. Set HF_TOKEN to a token that can read it.*pass a local folder/);
      return true;
    });
    process.env.HF_TOKEN = 'hf_wrongToken';
    await assert.rejects(describeModel('test-org/gated', locator), (e: Error) => /HTTP 401/.test(e.message) && /token in HF_TOKEN has no access/.test(e.message) && !e.message.includes('hf_wrongToken'));
    process.env.HF_TOKEN = TOKEN;
    hub.requests.length = 0;
    const model = await loadGenerativeModel('test-org/gated', locator);
    await model.dispose();
    assert.ok(hub.requests.filter((r) => r.url.includes('/resolve/')).every((r) => r.authorization === `Bearer ${TOKEN}`));
    // Without HF_TOKEN, the token `huggingface-cli login` saved in $HF_HOME/token is used, as by Python.
    delete process.env.HF_TOKEN;
    mkdirSync(process.env.HF_HOME!, { recursive: true });
    writeFileSync(join(process.env.HF_HOME!, 'token'), `${TOKEN}\n`);
    const fresh: ModelLocator = { ...locator, hub: { ...locator.hub, cacheDir: join(tmp, 'other-cache') } };
    hub.requests.length = 0;
    await describeModel('test-org/gated', fresh);
    assert.ok(hub.requests.length > 0 && hub.requests.every((r) => r.authorization === `Bearer ${TOKEN}`));
  });

  it('names a repository without an ONNX export before downloading any model file', async () => {
    await assert.rejects(
      describeModel('test-org/pytorch-only', locator),
      (e: unknown) => e instanceof ModelSourceError && /^hub model "test-org\/pytorch-only" \(revision main, commit [0-9a-f]{7}\) has no ONNX decoder \(looked for onnx\/model\.onnx/.test(e.message),
    );
    assert.deepEqual(
      hub.fileRequests().map((u) => u.split('/').pop()),
      ['config.json', 'config.json'],
      'only config.json (probe and body), to know the architecture',
    );
  });

  it('HF_HUB_OFFLINE=1: a warm cache loads with zero requests, a cold one fails clearly with zero requests', async () => {
    process.env.HF_ENDPOINT = hub.endpoint;
    process.env.HF_HUB_CACHE = cache;
    const env: ModelLocator = { bundledDir: '', baseDir: tmp };
    await (await loadGenerativeModel('test-org/gpt2-merged', env)).dispose();
    assert.ok(existsSync(join(cache, 'models--test-org--gpt2-merged')), 'HF_ENDPOINT and HF_HUB_CACHE are honoured');
    process.env.HF_HUB_OFFLINE = '1';
    hub.requests.length = 0;
    await (await loadGenerativeModel('test-org/gpt2-merged', env)).dispose();
    await assert.rejects(
      loadGenerativeModel('test-org/bart-split', env),
      (e: unknown) => e instanceof ModelSourceError && /hub model "test-org\/bart-split" .*is not in the hub cache .*HF_HUB_OFFLINE is set.*pass a local folder/.test(e.message),
    );
    // Offline, a tokenizer loads from the cached snapshot; a snapshot missing its ONNX files is named as incomplete.
    await loadModelTokenizer('test-org/gpt2-merged', env);
    rmSync(join(cache, 'models--test-org--gpt2-merged', 'snapshots', hub.commitOf('test-org/gpt2-merged'), 'onnx'), { recursive: true });
    await assert.rejects(loadGenerativeModel('test-org/gpt2-merged', env), /HF_HUB_OFFLINE is set and the cached copy of hub model "test-org\/gpt2-merged" .* is not complete \(.*no ONNX decoder/);
    assert.equal(hub.requests.length, 0, 'offline: no request at all');
  });

  it('finds a model Python downloaded ($HF_HOME/hub, symlinked snapshot) without any request, by branch or by commit', async () => {
    const commit = 'c0ffee' + '0'.repeat(34);
    process.env.HF_ENDPOINT = hub.endpoint;
    pythonCache(join(process.env.HF_HOME!, 'hub'), 'someone/python-made', commit, bartSplit, [
      'config.json',
      'generation_config.json',
      'tokenizer.json',
      'tokenizer_config.json',
      'special_tokens_map.json',
      'onnx/encoder_model.onnx',
      'onnx/decoder_model.onnx',
      'onnx/decoder_with_past_model.onnx',
    ]);
    const env: ModelLocator = { bundledDir: '', baseDir: tmp };
    const model = await loadGenerativeModel('someone/python-made', env);
    assert.equal(model.architecture, 'encoder-decoder');
    assert.equal(model.ref, 'someone/python-made');
    await model.dispose();
    const pinned = await describeModel(`someone/python-made@${commit}`, env);
    assert.equal(pinned.hub?.commit, commit);
    assert.equal(pinned.ref, `someone/python-made@${commit}`);
    assert.equal(hub.requests.length, 0);
  });

  it('downloads an encoder with its sentence-transformers files and embeds as the fixture folder does; a tokenizer alone needs no ONNX file', async () => {
    const hubEmbedder = await loadSentenceEmbedder('test-org/encoder', locator);
    const localEmbedder = await loadSentenceEmbedder(encoder, locator);
    try {
      assert.equal(hubEmbedder.ref, 'test-org/encoder');
      assert.deepEqual(hubEmbedder.spec, localEmbedder.spec);
      const snapshot = join(cache, 'models--test-org--encoder', 'snapshots', hub.commitOf('test-org/encoder'));
      for (const f of ['1_Pooling/config.json', 'modules.json', 'sentence_bert_config.json', 'onnx/model.onnx']) assert.ok(existsSync(join(snapshot, f)), f);
      const texts = ['It sounds like you feel torn.', ''];
      assert.deepEqual(await hubEmbedder.embed(texts), await localEmbedder.embed(texts));
    } finally {
      await hubEmbedder.dispose();
      await localEmbedder.dispose();
    }
    hub.requests.length = 0;
    const tok = await loadModelTokenizer('test-org/gpt2-merged', locator);
    assert.ok(tok.encode('hello there').length > 0);
    assert.ok(!hub.fileRequests().some((u) => /\.onnx/.test(u) || u.startsWith('/cdn/')), 'no ONNX file for a tokenizer');
  });
});
