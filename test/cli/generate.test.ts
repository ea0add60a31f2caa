import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cliAsync } from '../helpers/cli';
import { startStubOpenAI, textCompletionChoices, type StubServer } from '../helpers/stubOpenAI';

const root = resolve(__dirname, '../..');
const SECRET = 'sk-gen-DO-NOT-LEAK-0987654321';

const cli = cliAsync;

interface Origin {
  kind: string;
  model?: string;
  decoding?: Record<string, unknown>;
}

describe('reflect-eval generate --config (a local fixture and an API endpoint, GEM 2022 grid)', function () {
  this.timeout(300_000);
  let stub: StubServer | undefined;
  after(async () => stub?.close());

  it('records every origin, skips beam search on the API, reads the key from the named variable, and a second run with the same seed changes nothing and calls nothing', async () => {
    stub = await startStubOpenAI((req) => ({
      rawBody: textCompletionChoices(Array.from({ length: req.body.n as number }, (_, i) => ` api t${req.body.temperature} p${req.body.top_p} #${i % 3} |<client> ok`)),
    }));
    const dir = mkdtempSync(join(tmpdir(), 'gen-cli-'));
    const file = join(dir, 'study.dialogues.jsonl');
    const imp = await cli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '2', '--seed', '5', '-o', file]);
    assert.equal(imp.code, 0, imp.stderr);
    const config = join(dir, 'gen.json');
    writeFileSync(
      config,
      JSON.stringify({
        generators: [
          { backend: 'local', model: 'bundled:reflect-gpt2-tiny' },
          { backend: 'openai-completions', model: 'stub-davinci', baseURL: stub.baseURL, apiKeyEnv: 'MY_GEN_KEY' },
        ],
        preset: 'gem2022',
        maxNewTokens: 6,
        seed: 9,
      }),
    );
    const first = await cli(['generate', file, '--config', config], { MY_GEN_KEY: SECRET });
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stderr, /stub-davinci: beam k=5 ×5 skipped: OpenAI-compatible endpoints offer no beam search/);
    assert.match(first.stderr, /4\/4 contexts/);
    assert.equal(stub.requests.length, 2 * 5);
    assert.ok(stub.requests.every((r) => r.headers.authorization === `Bearer ${SECRET}` && r.body.seed === 9));
    const text = readFileSync(file, 'utf8');
    assert.ok(!text.includes(SECRET) && !text.includes('127.0.0.1'), 'neither the key nor the endpoint is in the file');
    assert.ok(!readFileSync(join(dir, '.reflect-eval-cache', 'generation-cache.jsonl'), 'utf8').includes(SECRET));
    for (const line of text.trim().split('\n')) {
      const item = JSON.parse(line) as { candidates: { text: string; origin: Origin; duplicateOrigins?: Origin[] }[] };
      const origins = item.candidates.flatMap((c) => [c.origin, ...(c.duplicateOrigins ?? [])]);
      assert.equal(origins.filter((o) => o.model === 'bundled:reflect-gpt2-tiny').length, 26);
      const api = origins.filter((o) => o.kind === 'api');
      assert.equal(api.length, 21);
      // Samples #0..#2 repeat within each p: kept once with their origins.
      assert.equal(item.candidates.filter((c) => c.origin.kind === 'api').length, 1 + 4 * 3);
      assert.ok(item.candidates.some((c) => c.text === 'api t1 p0.8 #1' && c.duplicateOrigins?.length === 1), 'the separator cut the text and the duplicate lists its origin');
    }

    const second = await cli(['generate', file, '--config', config, '--seed', '9'], { MY_GEN_KEY: SECRET });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /0 new candidates, 0 duplicates listed as further origins, 94 already present/);
    assert.equal(readFileSync(file, 'utf8'), text, 'identical file');
    assert.equal(stub.requests.length, 2 * 5, 'every API reply came from the cache');
  });

  it('names the config file and field of a mistake, and says which variable lacks the key', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'gen-cli-bad-'));
    const file = join(dir, 'x.dialogues.jsonl');
    await cli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '1', '-o', file]);
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ generators: [{ backend: 'local' }], settings: [{ strategy: 'nucleusSampling', topP: 1.5 }] }));
    const r = await cli(['generate', file, '--config', bad]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, new RegExp(`${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: settings\\[0\\]\\.topP: must be a number in \\(0, 1\\]`));
    const noKey = join(dir, 'nokey.json');
    writeFileSync(noKey, JSON.stringify({ generators: [{ backend: 'openai-chat', model: 'm', baseURL: 'http://127.0.0.1:9/v1', apiKeyEnv: 'UNSET_GEN_KEY_VAR' }], preset: 'greedy' }));
    const k = await cli(['generate', file, '--config', noKey], { UNSET_GEN_KEY_VAR: '' });
    assert.equal(k.code, 1);
    assert.match(k.stderr, /no API key for the generator m at http:\/\/127\.0\.0\.1:9\/v1: set the environment variable UNSET_GEN_KEY_VAR/);
  });
});
