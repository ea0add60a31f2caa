// Bundles the extension host code, the CLI and the webview UIs with esbuild.
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';

// onnxruntime-node is native and stays outside the bundles, loaded from node_modules at run time (the VSIX
// carries a copy in dist/node_modules/, see scripts/package.mjs; transformers.js requires it at load). @huggingface/transformers is bundled; its top-level `require("sharp")`
// (image processing, which ReflectEval never uses) is replaced by a stub so the 18 MB libvips is not needed.
const external = ['vscode', 'onnxruntime-node', 'onnxruntime-common'];
const stubSharp = {
  name: 'stub-sharp',
  setup(b) {
    b.onResolve({ filter: /^sharp$/ }, () => ({ path: 'sharp', namespace: 'stub-sharp' }));
    b.onLoad({ filter: /.*/, namespace: 'stub-sharp' }, () => ({
      contents: 'module.exports = new Proxy(function () {}, { get() { throw new Error("image processing (sharp) is not available in ReflectEval"); }, apply() { throw new Error("image processing (sharp) is not available in ReflectEval"); } });',
      loader: 'js',
    }));
  },
};
const watch = process.argv.includes('--watch');
const common = { bundle: true, sourcemap: true, logLevel: 'warning', minify: false };

await Promise.all([
  build({
    ...common,
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external,
    plugins: [stubSharp],
  }),
  build({
    ...common,
    entryPoints: ['src/cli/index.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external,
    plugins: [stubSharp],
    banner: { js: '#!/usr/bin/env node' },
  }),
  build({
    ...common,
    entryPoints: { editor: 'webview/editor/main.ts', correlation: 'webview/correlation/main.ts', preview: 'webview/preview/main.ts', agreement: 'webview/agreement/main.ts' },
    outdir: 'dist/webview',
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
  }),
]);
chmodSync('dist/cli.js', 0o755);
if (watch) console.log('watch mode is not implemented; re-run npm run build');
