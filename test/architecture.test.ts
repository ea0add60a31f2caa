/**
 * The house rules of docs/architecture.md, checked with dependency-cruiser (.dependency-cruiser.cjs): every room of
 * `src/core` imports only from floors below its own (type-only imports included), core never imports VS Code or a
 * program, the programs keep apart, webviews reach their host only through messages, nothing imports in a circle;
 * and the goals of issue 38 measured from the imports (scripts/architecture/floors.ts): at most 7 floors, no loop
 * between folders, no import back up. Each rule is shown to catch a violation on a scratch tree.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { measureFloors } from '../scripts/architecture/floors';

const root = resolve(__dirname, '..');
const rules = createRequire(__filename)(join(root, '.dependency-cruiser.cjs')) as { forbidden: unknown[]; options: Record<string, unknown>; FLOORS: string[][] };

async function violations(cwd: string, paths: string[]): Promise<string[]> {
  const { cruise } = (await import('dependency-cruiser')) as unknown as {
    cruise: (files: string[], options: Record<string, unknown>) => Promise<{ output: { summary: { violations: { from: string; to: string; rule: { name: string } }[] } } }>;
  };
  const previous = process.cwd();
  process.chdir(cwd);
  try {
    const result = await cruise(paths, { ...rules.options, ruleSet: { forbidden: rules.forbidden }, validate: true, tsConfig: undefined });
    return result.output.summary.violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`);
  } finally {
    process.chdir(previous);
  }
}

function scratch(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'layers-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(join(dir, file, '..'), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return dir;
}

describe('architecture', function () {
  this.timeout(120_000);

  it('has no import against the floors, no vscode in core, no circle', async () => {
    assert.deepEqual(await violations(root, ['src', 'webview']), []);
  });

  it('src/core stands on at most 7 floors, with no loop between folders and no import back up; every room is declared', async () => {
    const m = await measureFloors(root);
    assert.ok(m.floors <= 7, `${m.floors} floors`);
    assert.deepEqual(m.loops, []);
    assert.deepEqual(m.importsBackUp, []);
    const declared = new Set(rules.FLOORS.flat());
    assert.deepEqual(m.rooms.map((r) => r.room).filter((r) => !declared.has(r)), []);
    // A room's measured floor never exceeds its declared one (the rules allow imports from lower floors only).
    for (const { room, floor } of m.rooms) {
      const declaredFloor = rules.FLOORS.findIndex((rooms) => rooms.includes(room)) + 1;
      assert.ok(floor <= declaredFloor, `${room}: measured floor ${floor}, declared ${declaredFloor}`);
    }
  });

  it('each rule catches its violation on a scratch tree, type-only imports included', async () => {
    const dir = scratch({
      // upward, as a value and as a type only
      'src/core/stats/up.ts': "import { plan } from '../jobs/plans';\nexport const up = plan;\n",
      'src/core/dialogue/upType.ts': "import type { Plan } from '../jobs/plans';\nexport type Up = Plan;\n",
      'src/core/jobs/plans.ts': 'export const plan = 1;\nexport type Plan = number;\n',
      // the same floor: two rooms of floor 3
      'src/core/labels/side.ts': "import { m } from '../metrics/m';\nexport const side = m;\n",
      'src/core/metrics/m.ts': 'export const m = 1;\n',
      // a room on no floor
      'src/core/newRoom/x.ts': "import { m } from '../metrics/m';\nexport const x = m;\n",
      // vscode in core, the CLI importing the extension, a webview importing Node
      'src/core/format/v.ts': "import * as vscode from 'vscode';\nexport const v = vscode;\n",
      'src/cli/c.ts': "import { e } from '../extension/e';\nexport const c = e;\n",
      'src/extension/e.ts': 'export const e = 1;\n',
      'webview/w/main.ts': "import { readFileSync } from 'node:fs';\nimport { e } from '../../src/extension/e';\nexport const w = [readFileSync, e];\n",
      // a webview naming a job's type
      'webview/w/types.ts': "import type { Plan } from '../../src/core/jobs/plans';\nexport type W = Plan;\n",
      // a circle of types only
      'src/core/cache/a.ts': "import type { B } from './b';\nexport type A = { b?: B };\n",
      'src/core/cache/b.ts': "import type { A } from './a';\nexport type B = { a?: A };\n",
    });
    try {
      const found = await violations(dir, ['src', 'webview']);
      const expect = (prefix: string) => assert.ok(found.some((v) => v.startsWith(prefix)), `${prefix}\n  not in:\n${found.join('\n')}`);
      expect('floor-1-stats: src/core/stats/up.ts → src/core/jobs/plans.ts');
      expect('floor-1-dialogue: src/core/dialogue/upType.ts → src/core/jobs/plans.ts');
      expect('floor-3-labels: src/core/labels/side.ts → src/core/metrics/m.ts');
      expect('core-room-declared: src/core/newRoom/x.ts');
      expect('core-without-programs: src/core/format/v.ts → vscode');
      expect('cli-without-extension: src/cli/c.ts → src/extension/e.ts');
      expect('webview-without-node: webview/w/main.ts → fs');
      expect('webview-without-host: webview/w/main.ts → src/extension/e.ts');
      expect('webview-without-host: webview/w/types.ts → src/core/jobs/plans.ts');
      expect('no-circular: src/core/cache/a.ts → src/core/cache/b.ts');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the floor measure finds a loop between folders and names the import back up', async () => {
    const dir = scratch({
      'src/core/a/one.ts': "import { two } from '../b/two';\nimport { three } from '../b/three';\nexport const one = [two, three];\n",
      'src/core/b/two.ts': 'export const two = 2;\n',
      'src/core/b/three.ts': "import type { Four } from '../a/four';\nexport const three: Four = 3;\n",
      'src/core/a/four.ts': 'export type Four = number;\n',
      'src/core/c/top.ts': "import { one } from '../a/one';\nexport const top = one;\n",
    });
    try {
      const m = await measureFloors(dir);
      assert.deepEqual(m.loops, [['a', 'b']]);
      assert.deepEqual(m.importsBackUp, ['src/core/b/three.ts → src/core/a/four.ts (type-only)']);
      assert.equal(m.floors, 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
