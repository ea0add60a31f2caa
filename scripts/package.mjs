// Packages the extension as a VSIX for this machine's platform: the esbuild bundles plus onnxruntime-node
// (its JS and this platform's native binaries) and onnxruntime-common copied into dist/node_modules/, where
// Node's resolution from dist/extension.js finds them; a VSIX built with --no-dependencies carries no
// top-level node_modules.
//
//   node scripts/package.mjs [--out dist/reflect-eval.vsix]
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const out = resolve(args.includes('--out') ? args[args.indexOf('--out') + 1] : 'dist/reflect-eval.vsix');
const ortRoot = dirname(require.resolve('onnxruntime-node/package.json'));
// onnxruntime-common's "exports" hide package.json: find its folder from its main entry.
const commonMain = require.resolve('onnxruntime-common', { paths: [ortRoot] });
const commonRoot = commonMain.slice(0, commonMain.lastIndexOf('onnxruntime-common') + 'onnxruntime-common'.length);
const runtime = resolve('dist/node_modules');
rmSync(runtime, { recursive: true, force: true });
const ortDest = join(runtime, 'onnxruntime-node');
mkdirSync(ortDest, { recursive: true });
cpSync(join(ortRoot, 'package.json'), join(ortDest, 'package.json'));
cpSync(join(ortRoot, 'dist'), join(ortDest, 'dist'), { recursive: true });
const platformBin = join('bin', 'napi-v6', process.platform, process.arch);
if (!existsSync(join(ortRoot, platformBin))) throw new Error(`onnxruntime-node has no binaries for ${process.platform}/${process.arch}`);
cpSync(join(ortRoot, platformBin), join(ortDest, platformBin), { recursive: true });
cpSync(commonRoot, join(runtime, 'onnxruntime-common'), { recursive: true });
const vsce = join(dirname(require.resolve('@vscode/vsce/package.json')), 'vsce');
execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--out', out], { stdio: 'inherit' });
console.log(`packaged ${out}`);
