// Packages the extension as platform-specific VSIXs (`vsce package --target`, as VS Code's Marketplace serves
// them): the esbuild bundles plus onnxruntime-node (its JS and ONE platform's native binaries) and
// onnxruntime-common copied into dist/node_modules/, where Node's resolution from dist/extension.js finds them; a
// VSIX built with --no-dependencies carries no top-level node_modules.
//
//   node scripts/package.mjs [--target linux-x64] [--out dist/reflect-eval.vsix]   one VSIX (default: this machine)
//   node scripts/package.mjs --all [--out-dir dist/vsix]                            one per target, plus universal
//
// --all packages every target onnxruntime-node ships binaries for (its bin/napi-v6/<platform>/<arch>/ folders:
// linux-x64, linux-arm64, darwin-arm64, win32-x64, win32-arm64 in 1.30) and a universal VSIX with no native
// binaries, which the Marketplace serves to every other platform (an Intel Mac): there local models say why they
// cannot run (src/core/models/ortRuntime.ts) and API judges and generators work.
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const opt = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
const ortRoot = dirname(require.resolve('onnxruntime-node/package.json'));
// onnxruntime-common's "exports" hide package.json: find its folder from its main entry.
const commonMain = require.resolve('onnxruntime-common', { paths: [ortRoot] });
const commonRoot = commonMain.slice(0, commonMain.lastIndexOf('onnxruntime-common') + 'onnxruntime-common'.length);
const napi = join(ortRoot, 'bin', 'napi-v6');
const vsce = join(dirname(require.resolve('@vscode/vsce/package.json')), 'vsce');

/** `<platform>-<arch>` for every folder onnxruntime-node ships binaries in. */
function ortTargets() {
  return readdirSync(napi)
    .flatMap((p) => readdirSync(join(napi, p)).map((a) => `${p}-${a}`))
    .sort();
}

/**
 * What Node needs of the onnxruntime packages at run time: their JavaScript as `require` reaches it (CommonJS), not
 * their TypeScript sources (lib/), declarations, source maps or ES module build.
 */
const runtimeOnly = (root) => (path) => {
  const rel = path.slice(root.length).replace(/\\/g, '/');
  return !/\.(map|ts)$/.test(rel) && !/^\/(lib|dist\/esm)(\/|$)/.test(rel);
};

/** Stages dist/node_modules for `target` ('universal': no native binaries) and runs vsce; returns the VSIX size in bytes. */
function packageTarget(target, out) {
  const runtime = resolve('dist/node_modules');
  rmSync(runtime, { recursive: true, force: true });
  mkdirSync(runtime, { recursive: true });
  cpSync(commonRoot, join(runtime, 'onnxruntime-common'), { recursive: true, filter: runtimeOnly(commonRoot) });
  if (target !== 'universal') {
    const [platform, arch] = target.split('-');
    const bin = join('bin', 'napi-v6', platform, arch);
    if (!existsSync(join(ortRoot, bin))) throw new Error(`onnxruntime-node has no binaries for ${target} (it has: ${ortTargets().join(', ')})`);
    const ortDest = join(runtime, 'onnxruntime-node');
    mkdirSync(ortDest, { recursive: true });
    cpSync(join(ortRoot, 'package.json'), join(ortDest, 'package.json'));
    cpSync(join(ortRoot, 'dist'), join(ortDest, 'dist'), { recursive: true, filter: runtimeOnly(ortRoot) });
    cpSync(join(ortRoot, bin), join(ortDest, bin), { recursive: true });
  }
  mkdirSync(dirname(out), { recursive: true });
  const targetArgs = target === 'universal' ? [] : ['--target', target];
  // No public repository yet (package.json has no `repository`): vsce cannot turn README.md's relative links and
  // images into URLs, so they stay relative — VS Code's page of the installed extension reads them from the VSIX. A
  // Marketplace publication needs the public URL of these files: `vsce publish --baseContentUrl … --baseImagesUrl …`.
  execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', ...targetArgs, '--out', out], { stdio: ['ignore', 'ignore', 'inherit'] });
  const bytes = statSync(out).size;
  console.log(`packaged ${out} (${target}, ${(bytes / 1e6).toFixed(1)} MB)`);
  return bytes;
}

try {
  if (args.includes('--all')) {
    const outDir = resolve(opt('--out-dir') ?? 'dist/vsix');
    for (const t of [...ortTargets(), 'universal']) packageTarget(t, join(outDir, `reflect-eval-${t}.vsix`));
  } else {
    const target = opt('--target') ?? `${process.platform}-${process.arch}`;
    packageTarget(target, resolve(opt('--out') ?? 'dist/reflect-eval.vsix'));
  }
} finally {
  // A staged foreign platform left in dist/node_modules would shadow node_modules/ for dist/cli.js.
  rmSync(resolve('dist/node_modules'), { recursive: true, force: true });
}
