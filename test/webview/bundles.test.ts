/**
 * The webviews run in a browser: their bundles may use nothing of Node. A core module that pulls a Node-only
 * library in (csv-stringify's `Buffer.from` at load) leaves a panel blank with "Buffer is not defined" — caught here
 * from the bundles esbuild makes as `npm run build` makes them, before any e2e.
 */
import assert from 'node:assert/strict';
import { build } from 'esbuild';

const ENTRIES = ['editor', 'correlation', 'preview', 'agreement', 'search'];

describe('webview bundles', () => {
  it('use no Node global or module (Buffer, process, require)', async function () {
    this.timeout(120_000);
    const out = await build({
      entryPoints: Object.fromEntries(ENTRIES.map((e) => [e, `webview/${e}/main.ts`])),
      outdir: 'dist-test-webview',
      bundle: true,
      platform: 'browser',
      format: 'iife',
      write: false,
      logLevel: 'silent',
      alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
    });
    assert.equal(out.outputFiles.length, ENTRIES.length);
    for (const f of out.outputFiles) {
      const text = f.text;
      for (const [what, pattern] of [['Buffer', /\bBuffer\.(from|alloc|isBuffer|concat)\b/], ['process', /\bprocess\.(env|cwd|platform|argv)\b/], ['require', /\brequire\(["'](node:|fs|path|os|crypto)/]] as const) {
        const at = pattern.exec(text);
        assert.equal(at, null, `${f.path.split('/').pop()} uses ${what}: …${at ? text.slice(Math.max(0, at.index - 200), at.index + 60) : ''}`);
      }
    }
  });
});
