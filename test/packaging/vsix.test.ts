/**
 * The platform VSIXs of `npm run package:all` (scripts/package.mjs): each carries onnxruntime-node's native files
 * for its own target and no other's, the universal one none; and a build without binaries for its platform still
 * imports, tokenizes and judges through an API, while local generation says why it cannot run.
 *
 * Packages every target once (about 1–2 min on 2 busy cores: deflating ~250 MB of binaries), so it runs as
 * `npm run test:packaging`, not in the unit suite. Needs `npm run build` first (dist/extension.js, dist/cli.js).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import AdmZip from 'adm-zip';
import { startStubOpenAI } from '../helpers/stubOpenAI';

const root = resolve(__dirname, '../..');
const napi = join(root, 'node_modules', 'onnxruntime-node', 'bin', 'napi-v6');
const ortTargets = readdirSync(napi).flatMap((p) => readdirSync(join(napi, p)).map((a) => `${p}-${a}`));
const NATIVE = /\.(node|dll|dylib|so(\.\d+)*)$/;

function cliIn(dir: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((ok) => {
    const child = spawn(process.execPath, [join(dir, 'extension', 'dist', 'cli.js'), ...args], { cwd: dir, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => ok({ code, stdout, stderr }));
  });
}

describe('platform VSIXs (npm run package:all)', function () {
  this.timeout(600_000);
  const out = mkdtempSync(join(tmpdir(), 'reflect-eval-vsix-'));

  before(() => {
    assert.ok(existsSync(join(root, 'dist', 'extension.js')) && existsSync(join(root, 'dist', 'cli.js')), 'run npm run build first');
    const r = spawnSync(process.execPath, [join(root, 'scripts', 'package.mjs'), '--all', '--out-dir', out], { cwd: root, encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
  });

  it('onnxruntime-node 1.30 ships the five targets the VSIXs are built for', () => {
    assert.deepEqual([...ortTargets].sort(), ['darwin-arm64', 'linux-arm64', 'linux-x64', 'win32-arm64', 'win32-x64']);
  });

  for (const target of [...ortTargets, 'universal']) {
    it(target === 'universal' ? 'universal: no native files, no target platform' : `${target}: native files are exactly onnxruntime-node's for ${target}, and the manifest names the target`, () => {
      const zip = new AdmZip(join(out, `reflect-eval-${target}.vsix`));
      const names = zip.getEntries().map((e) => e.entryName);
      const native = names.filter((n) => NATIVE.test(n)).sort();
      const manifest = zip.readAsText('extension.vsixmanifest');
      assert.ok(names.includes('extension/dist/extension.js'));
      assert.ok(names.includes('extension/dist/entry.js'), 'the entry (package.json main) is in the VSIX');
      assert.ok(names.includes('extension/dist/node_modules/onnxruntime-common/package.json'));
      if (target === 'universal') {
        assert.deepEqual(native, []);
        assert.ok(!names.some((n) => n.startsWith('extension/dist/node_modules/onnxruntime-node/')));
        assert.doesNotMatch(manifest, /TargetPlatform=/);
        return;
      }
      const [platform, arch] = target.split('-');
      const expected = readdirSync(join(napi, platform, arch))
        .filter((f) => NATIVE.test(f))
        .map((f) => `extension/dist/node_modules/onnxruntime-node/bin/napi-v6/${platform}/${arch}/${f}`)
        .sort();
      assert.ok(expected.some((f) => f.endsWith('onnxruntime_binding.node')));
      assert.deepEqual(native, expected);
      assert.match(manifest, new RegExp(`TargetPlatform="${target}"`));
      assert.ok(names.includes('extension/dist/node_modules/onnxruntime-node/dist/index.js'));
    });
  }

  it('every VSIX carries what the extension uses and nothing else of the repository: no source maps, no test data, no CC BY-NC data', () => {
    for (const target of [...ortTargets, 'universal']) {
      const zip = new AdmZip(join(out, `reflect-eval-${target}.vsix`));
      const names = zip.getEntries().map((e) => e.entryName);
      const manifest = JSON.parse(zip.readAsText('extension/package.json')) as { main: string; icon: string; contributes: { walkthroughs: { steps: { media: { image: Record<string, string> } }[] }[] } };
      assert.equal(manifest.main, './dist/entry.js');
      assert.ok(names.includes(`extension/${manifest.icon}`), 'the icon');
      // (vsce stores README.md, CHANGELOG.md and LICENSE as readme.md, changelog.md and LICENSE.txt.)
      for (const file of ['extension/readme.md', 'extension/changelog.md', 'extension/LICENSE.txt', 'extension/LICENSE-data.md', 'extension/media/screenshots/editor-light.png', 'extension/data/annomi/AnnoMI-sample.csv', 'extension/data/annomi/README.md', 'extension/data/wordnet/wn30-meteor.txt.gz', 'extension/fixtures/models/reflect-gpt2-tiny/onnx/model.onnx']) {
        assert.ok(names.includes(file), `${target}: ${file}`);
      }
      // Every picture the walkthrough shows is there.
      for (const step of manifest.contributes.walkthroughs.flatMap((w) => w.steps)) for (const image of Object.values(step.media.image)) assert.ok(names.includes(`extension/${image}`), `${target}: ${image}`);
      const unwanted = names.filter((n) => /\.map$|\/(parity|reference_outputs)\.json$|^extension\/data\/evalreflections\/|^extension\/(src|test|bench|scripts|webview)\/|^extension\/test-output\//.test(n));
      assert.deepEqual(unwanted, [], target);
    }
  });

  it('without binaries for its platform (the universal VSIX): tokenizers and API judges work, local generation says why not', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-nobin-'));
    new AdmZip(join(out, 'reflect-eval-universal.vsix')).extractAllTo(dir, true);
    // The VSIX holds the extension only; the CLI bundle beside it resolves onnxruntime-* from the VSIX's dist/node_modules.
    copyFileSync(join(root, 'dist', 'cli.js'), join(dir, 'extension', 'dist', 'cli.js'));
    const sample = join(root, 'data', 'annomi', 'AnnoMI-sample.csv');

    const stats = await cliIn(dir, ['stats', 'annomi', sample]);
    assert.equal(stats.code, 0, stats.stderr);
    assert.match(stats.stdout, /tokenizer: bundled reflect-gpt2-tiny/);

    const file = join(dir, 'study.dialogues.jsonl');
    const imp = await cliIn(dir, ['import', 'annomi', sample, '--sample', '2', '-o', file]);
    assert.equal(imp.code, 0, imp.stderr);
    const gen = await cliIn(dir, ['generate', file, '--max-new-tokens', '4']);
    assert.notEqual(gen.code, 0);
    assert.match(gen.stderr, new RegExp(`local models cannot run on ${process.platform}-${process.arch}: onnxruntime-node's native binaries`));
    assert.match(gen.stderr, /API judges and generators \(openai-chat, openai-completions\) and everything else still work/);

    const stub = await startStubOpenAI(() => ({ reply: '4' }));
    try {
      writeFileSync(join(dir, 'run.json'), JSON.stringify({ judges: [{ backend: 'openai-chat', baseURL: stub.baseURL, model: 'stub-judge', apiKeyEnv: 'MY_JUDGE_KEY' }], bodies: ['instructions'], requests: ['rating'] }));
      const judged = await cliIn(dir, ['judge', file, '--config', join(dir, 'run.json')], { MY_JUDGE_KEY: 'sk-test' });
      assert.equal(judged.code, 0, judged.stderr);
      assert.equal(stub.requests.length, 2);
      const items = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      assert.ok(items.every((it) => Object.values(it.candidates[0].scores).some((s) => (s as { value?: number }).value === 4)));
    } finally {
      await stub.close();
    }
  });
});
