/**
 * ReflectEval's layers (docs/architecture.md), checked by test/architecture.test.ts. A module may import from its
 * own layer and the layers below it, never from a layer above; core never imports VS Code, the CLI or the
 * extension; webviews never import Node or VS Code; nothing imports in a circle.
 */
const LAYERS = [
  ['base', '^src/core/(version|config)[.]ts$|^src/core/(dialogue|evaluators|cache|stats)/'],
  ['formats and models', '^src/core/(format|labels|models|remote)/'],
  ['evaluation', '^src/core/(generation|metrics|judges|annomi|annotations|importers|dedup)/'],
  ['analysis', '^src/core/(agreement|analysis|planning)/'],
  ['jobs', '^src/core/jobs/'],
  ['programs', '^src/(cli|extension)/'],
];

const upward = [];
LAYERS.forEach(([name, path], i) => {
  const above = LAYERS.slice(i + 1).map(([, p]) => `(${p})`).join('|');
  if (above) {
    upward.push({
      name: `no-upward-from-${name.replace(/\W+/g, '-')}`,
      comment: `${name} must not import from a higher layer`,
      severity: 'error',
      from: { path },
      to: { path: above, dependencyTypesNot: ['type-only'] },
    });
  }
});

module.exports = {
  forbidden: [
    ...upward,
    { name: 'core-without-vscode', severity: 'error', from: { path: '^src/core/' }, to: { path: '^vscode$|^src/(cli|extension)/|^webview/' } },
    { name: 'cli-without-extension', severity: 'error', from: { path: '^src/cli/' }, to: { path: '^vscode$|^src/extension/' } },
    { name: 'webview-without-host', severity: 'error', from: { path: '^webview/' }, to: { path: '^vscode$|^node:|^src/(cli|extension|core/jobs)/', dependencyTypesNot: ['type-only'] } },
    { name: 'no-circular', severity: 'error', from: { path: '^(src|webview)/' }, to: { circular: true, dependencyTypesNot: ['type-only'] } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|test|bench|scripts)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
