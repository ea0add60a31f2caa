// Bundles the extension host code, the CLI and the webview UIs with esbuild.
import { build } from 'esbuild';
import { chmodSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';

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
// transformers.js requires onnxruntime-node when it loads, which throws where the VSIX carries no native binaries
// for the platform (an Intel Mac): its one require is routed through requireOrtForTransformers
// (src/core/models/ortRuntime.ts), so tokenizers still load there and only running a model says why it cannot.
const ortRequire = 'requireFromHere("onnxruntime-node")';
const lazyOrtInTransformers = {
  name: 'lazy-ort-in-transformers',
  setup(b) {
    b.onLoad({ filter: /@huggingface[\\/]transformers[\\/]dist[\\/]transformers\.node\.(mjs|cjs)$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      const hits = text.split(ortRequire).length - 1;
      if (hits !== 1) throw new Error(`${args.path}: expected one ${ortRequire}, found ${hits}; update scripts/build.mjs for this transformers.js version`);
      const shim = JSON.stringify(resolve('src/core/models/ortRuntime.ts'));
      return {
        contents: `import { requireOrtForTransformers as __reflectEvalRequireOrt } from ${shim};\n` + text.replace(ortRequire, '__reflectEvalRequireOrt(requireFromHere)'),
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};
// The extension's entry (package.json `main`) is a small bundle of its own: it loads the rest, dist/extension.js, on
// first use with `import('./extension')` (src/extension/entry.ts), which must stay a run-time require of that file
// beside it — not be bundled in.
const fullExtensionBesideEntry = {
  name: 'full-extension-beside-entry',
  setup(b) {
    b.onResolve({ filter: /^\.\/extension$/ }, (args) => (args.importer.endsWith(`src/extension/entry.ts`) ? { path: './extension.js', external: true } : undefined));
  },
};
const watch = process.argv.includes('--watch');
// jsonc-parser's "main" is a UMD build whose factory requires './impl/format' at run time, which a bundle does not
// carry ("Cannot find module './impl/format'" from dist/cli.js); its ES module build bundles whole.
const common = { bundle: true, sourcemap: true, logLevel: 'warning', minify: false, alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' } };

const bundles = await Promise.all([
  build({
    ...common,
    entryPoints: ['src/extension/entry.ts'],
    outfile: 'dist/entry.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external,
    plugins: [fullExtensionBesideEntry],
    // import() becomes require(): VS Code's extension host provides `vscode` to required modules.
    supported: { 'dynamic-import': false },
    metafile: true,
  }),
  build({
    ...common,
    entryPoints: ['src/extension/extension.ts'],
    outfile: 'dist/extension.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external,
    plugins: [stubSharp, lazyOrtInTransformers],
  }),
  build({
    ...common,
    entryPoints: ['src/cli/index.ts'],
    outfile: 'dist/cli.js',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external,
    plugins: [stubSharp, lazyOrtInTransformers],
    banner: { js: '#!/usr/bin/env node' },
  }),
  build({
    ...common,
    entryPoints: { editor: 'webview/editor/main.ts', correlation: 'webview/correlation/main.ts', preview: 'webview/preview/main.ts', agreement: 'webview/agreement/main.ts', search: 'webview/search/main.ts' },
    outdir: 'dist/webview',
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
  }),
]);
chmodSync('dist/cli.js', 0o755);
// The entry must stay small (activation in any workspace; bench/activation.bench.ts): fail the build when a change
// pulls the jobs, the models or the editor into it.
const ENTRY_LIMIT = 200_000;
const entryInputs = Object.keys(bundles[0].metafile.inputs);
const entryBytes = Object.values(bundles[0].metafile.outputs).find((o) => o.entryPoint)?.bytes ?? 0;
if (entryBytes > ENTRY_LIMIT) throw new Error(`dist/entry.js is ${entryBytes} bytes (limit ${ENTRY_LIMIT}): it bundles ${entryInputs.filter((i) => !i.startsWith('src/extension/')).join(', ')}`);
if (watch) console.log('watch mode is not implemented; re-run npm run build');
