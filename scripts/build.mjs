// Bundles the extension host code, the CLI and the webview UIs with esbuild.
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';

// Native and heavy packages stay outside the bundles and are loaded from node_modules at run time.
const external = ['vscode', 'onnxruntime-node', 'onnxruntime-common', '@huggingface/transformers', 'sharp'];
const watch = process.argv.includes('--watch');
const common = { bundle: true, sourcemap: true, logLevel: 'warning', minify: false };

await Promise.all([
  build({ ...common, entryPoints: ['src/extension/extension.ts'], outfile: 'dist/extension.js', platform: 'node', format: 'cjs', target: 'node20', external }),
  build({
    ...common,
    entryPoints: ['src/cli/index.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external,
    banner: { js: '#!/usr/bin/env node' },
  }),
  build({
    ...common,
    entryPoints: { editor: 'webview/editor/main.ts', correlation: 'webview/correlation/main.ts' },
    outdir: 'dist/webview',
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
  }),
]);
chmodSync('dist/cli.js', 0o755);
if (watch) console.log('watch mode is not implemented; re-run npm run build');
