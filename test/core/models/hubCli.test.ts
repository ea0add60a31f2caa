/**
 * End to end: the built CLI (`node dist/cli.js generate <file> --model org/name`) with `HF_ENDPOINT` pointing at
 * the stand-in hub on loopback (stubHub.ts), `HF_HUB_CACHE` at a temp folder. The CLI is built first when
 * dist/cli.js is missing or older than a source file.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { startStubHub, type StubHub } from './stubHub';

const root = resolve(__dirname, '../../..');
const cliJs = join(root, 'dist', 'cli.js');

function newestMtime(dir: string): number {
  let t = 0;
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) if (e.isFile()) t = Math.max(t, statSync(join(e.parentPath, e.name)).mtimeMs);
  return t;
}

function runCli(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((ok) => {
    const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('HF_') && k !== 'TRANSFORMERS_OFFLINE'));
    const child = spawn(process.execPath, [cliJs, ...args], { cwd: root, env: { ...clean, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => ok({ code, stdout, stderr }));
  });
}

describe('HF_ENDPOINT=<loopback> reflect-eval generate <file> --model org/name (the built CLI)', function () {
  this.timeout(300_000);
  let hub: StubHub;
  let tmp: string;

  before(async () => {
    if (!existsSync(cliJs) || statSync(cliJs).mtimeMs < Math.max(newestMtime(join(root, 'src')), statSync(join(root, 'package-lock.json')).mtimeMs)) {
      const b = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, encoding: 'utf8' });
      assert.equal(b.status, 0, `build failed: ${b.stderr}`);
    }
    hub = await startStubHub({ 'test-org/gpt2-merged': { folder: join(root, 'fixtures', 'models', 'layouts', 'gpt2-merged') } });
    tmp = mkdtempSync(join(tmpdir(), 'hub-cli-'));
  });
  after(async () => {
    await hub?.close();
    rmSync(tmp, { recursive: true, force: true });
  });

  it('downloads the model once into HF_HUB_CACHE, generates with it, records the id as written; offline, the cached model needs no request', async () => {
    const file = join(tmp, 'study.dialogues.jsonl');
    const env = { HF_ENDPOINT: hub.endpoint, HF_HUB_CACHE: join(tmp, 'cache'), HF_HOME: join(tmp, 'hf-home') };
    const imp = await runCli(['import', 'annomi', join(root, 'data', 'annomi', 'AnnoMI-sample.csv'), '--sample', '1', '--seed', '3', '-o', file], env);
    assert.equal(imp.code, 0, imp.stderr);
    const first = await runCli(['generate', file, '--model', 'test-org/gpt2-merged', '--max-new-tokens', '4'], env);
    assert.equal(first.code, 0, first.stderr);
    assert.ok(!/Downloading/.test(first.stdout), 'the hub client prints nothing on stdout');
    assert.ok(hub.fileRequests().some((u) => u.includes('decoder_model_merged.onnx')));
    assert.ok(existsSync(join(tmp, 'cache', 'models--test-org--gpt2-merged', 'refs', 'main')));
    const items = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { candidates: { origin: { kind: string; model?: string } }[] });
    const generated = items.flatMap((it) => it.candidates).filter((c) => c.origin.kind !== 'human');
    assert.ok(generated.length > 0);
    assert.ok(generated.every((c) => c.origin.model === 'test-org/gpt2-merged'), JSON.stringify(generated.map((c) => c.origin)));

    hub.requests.length = 0;
    const offline = await runCli(['generate', file, '--model', 'test-org/gpt2-merged', '--max-new-tokens', '4'], { ...env, HF_HUB_OFFLINE: '1' });
    assert.equal(offline.code, 0, offline.stderr);
    const cold = await runCli(['generate', file, '--model', 'test-org/other', '--max-new-tokens', '4'], { ...env, HF_HUB_OFFLINE: '1' });
    assert.notEqual(cold.code, 0);
    assert.match(cold.stderr, /hub model "test-org\/other" .*not in the hub cache .*HF_HUB_OFFLINE is set/);
    assert.equal(hub.requests.length, 0, 'offline: no request');
  });
});
