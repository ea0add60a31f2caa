/**
 * Hub ids: the download path, against a stub of the hub's `/<id>/resolve/<revision>/<file>` URLs on loopback
 * serving a fixture folder (the real hub is remote; this checks which files are asked for and how a missing
 * export is reported).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadLanguageModel } from '../../../src/core/models/loadModel';
import { ModelSourceError, resolveModel } from '../../../src/core/models/modelSource';

const layouts = resolve(__dirname, '../../../fixtures/models/layouts');

describe('hub ids (stub hub on loopback)', () => {
  let server: Server;
  let requests: string[];
  let cache: string;
  const saved = { endpoint: process.env.HF_ENDPOINT, cache: process.env.REFLECT_EVAL_CACHE };

  before(async () => {
    server = createServer((req, res) => {
      requests.push(req.url ?? '');
      const m = /^\/test-org\/([\w-]+)\/resolve\/main\/(.+)$/.exec(req.url ?? '');
      const file = m && join(layouts, m[1], m[2]);
      if (!file || !existsSync(file)) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200).end(readFileSync(file));
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    process.env.HF_ENDPOINT = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.close();
    process.env.HF_ENDPOINT = saved.endpoint;
    if (saved.endpoint === undefined) delete process.env.HF_ENDPOINT;
  });
  beforeEach(() => {
    requests = [];
    cache = mkdtempSync(join(tmpdir(), 'reflect-eval-hub-'));
  });
  afterEach(() => rmSync(cache, { recursive: true, force: true }));

  it('downloads an encoder-decoder split export (falling back from the merged one) and loads it', async () => {
    const { folder, layout } = await resolveModel('test-org/bart-split', { cacheDir: cache });
    assert.equal(layout.architecture, 'encoder-decoder');
    assert.equal(layout.kind, 'split');
    assert.ok(requests.includes('/test-org/bart-split/resolve/main/onnx/decoder_model_merged.onnx'), 'tried the merged decoder first');
    for (const f of ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'onnx/encoder_model.onnx', 'onnx/decoder_model.onnx', 'onnx/decoder_with_past_model.onnx']) {
      assert.ok(existsSync(join(folder, f)), f);
    }
    process.env.REFLECT_EVAL_CACHE = cache;
    try {
      const model = await loadLanguageModel('test-org/bart-split');
      assert.equal(model.architecture, 'encoder-decoder');
      assert.equal(model.ref, 'test-org/bart-split');
      await model.dispose();
    } finally {
      process.env.REFLECT_EVAL_CACHE = saved.cache;
      if (saved.cache === undefined) delete process.env.REFLECT_EVAL_CACHE;
    }
    const again = requests.length;
    await resolveModel('test-org/bart-split', { cacheDir: cache });
    assert.ok(requests.length - again <= 2, 'a second resolve downloads no model file again (only optional files absent from the hub are asked for)');
  });

  it('downloads a merged decoder-only export', async () => {
    const { layout } = await resolveModel('test-org/gpt2-merged', { cacheDir: cache });
    assert.equal(layout.architecture, 'decoder-only');
    assert.equal(layout.kind, 'merged');
  });

  it('names the hub id and what it lacks', async () => {
    await assert.rejects(resolveModel('test-org/no-such-model', { cacheDir: cache }), (e: unknown) => e instanceof ModelSourceError && /hub model "test-org\/no-such-model" has no config\.json/.test(e.message));
  });
});
