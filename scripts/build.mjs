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
const watch = process.argv.includes('--watch');
// jsonc-parser's "main" is a UMD build whose factory requires './impl/format' at run time, which a bundle does not
// carry ("Cannot find module './impl/format'" from dist/cli.js); its ES module build bundles whole.
const common = { bundle: true, sourcemap: true, logLevel: 'warning', minify: false, alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' } };

await Promise.all([
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
if (watch) console.log('watch mode is not implemented; re-run npm run build');
