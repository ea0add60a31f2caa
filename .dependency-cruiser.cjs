/**
 * ReflectEval's house rules (docs/architecture.md), checked by test/architecture.test.ts on every run.
 *
 * `src/core` is a building of floors. Each folder of `src/core` is one room (one idea), and so is each file at the
 * root of `src/core`. A room may import only from rooms on floors below its own: never from its own floor, never
 * from above, type-only imports included — so no two folders can import each other, and no floor is higher than it
 * must be. The programs (`src/cli`, `src/extension`) stand on top; webviews (`webview/`) bundle pure core code
 * and talk to their host only through messages.
 */
const FLOORS = [
  /* 1 */ ['version.ts', 'config.ts', 'stats', 'dialogue', 'cache', 'models', 'tables'],
  /* 2 */ ['remote', 'evaluators', 'format', 'templates', 'decoding', 'rubric'],
  /* 3 */ ['labels', 'generation', 'metrics', 'dedup'],
  /* 4 */ ['judges', 'datasets', 'agreement', 'correlation', 'navigation', 'design'],
  /* 5 */ ['metaEvaluation', 'planning', 'team', 'estimation'],
  /* 6 */ ['jobs', 'workspace'],
];

const roomPath = (room) => (room.endsWith('.ts') ? `^src/core/${room.replace('.', '[.]')}$` : `^src/core/${room}/`);
const anyOf = (rooms) => rooms.map((r) => `(${roomPath(r)})`).join('|');
const allRooms = FLOORS.flat();

const floorRules = [];
FLOORS.forEach((rooms, i) => {
  const above = FLOORS.slice(i + 1).flat();
  for (const room of rooms) {
    const forbidden = [...rooms.filter((r) => r !== room), ...above];
    if (forbidden.length === 0) continue;
    floorRules.push({
      name: `floor-${i + 1}-${room.replace(/\W+/g, '-')}`,
      comment: `${room} (floor ${i + 1}) may import only from rooms on floors below ${i + 1}`,
      severity: 'error',
      from: { path: roomPath(room) },
      to: { path: anyOf(forbidden) },
    });
  }
});

module.exports = {
  FLOORS,
  forbidden: [
    ...floorRules,
    {
      name: 'core-room-declared',
      comment: 'every folder and root file of src/core stands on a declared floor (add a new one to FLOORS)',
      severity: 'error',
      from: { path: '^src/core/', pathNot: anyOf(allRooms) },
      to: {},
    },
    { name: 'core-without-programs', severity: 'error', from: { path: '^src/core/' }, to: { path: '^vscode$|^src/(cli|extension)/|^webview/' } },
    { name: 'cli-without-extension', severity: 'error', from: { path: '^src/cli/' }, to: { path: '^vscode$|^src/extension/' } },
    { name: 'extension-without-cli', severity: 'error', from: { path: '^src/extension/' }, to: { path: '^src/cli/' } },
    {
      name: 'webview-without-host',
      comment: 'a webview bundles pure core code; it reaches its host, Node and jobs only through messages (not even their types)',
      severity: 'error',
      from: { path: '^webview/' },
      to: { path: '^vscode$|^src/(cli|extension)/|^src/core/jobs/' },
    },
    { name: 'webview-without-node', severity: 'error', from: { path: '^webview/' }, to: { dependencyTypes: ['core'] } },
    { name: 'no-circular', severity: 'error', from: { path: '^(src|webview)/' }, to: { circular: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|test|bench|scripts)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
