/**
 * The layers of docs/architecture.md, checked with dependency-cruiser (.dependency-cruiser.cjs): no module imports
 * from a layer above its own, core never imports VS Code, the CLI or the extension, and no imports go in a circle.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..');
const rules = createRequire(__filename)(join(root, '.dependency-cruiser.cjs')) as { forbidden: unknown[]; options: Record<string, unknown> };

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

describe('architecture', function () {
  this.timeout(120_000);

  it('has no import from a higher layer, no vscode in core, no circle', async () => {
    assert.deepEqual(await violations(root, ['src', 'webview']), []);
  });

  it('the rules catch an upward import, vscode in core and a circle (on a scratch tree)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'layers-'));
    const write = (file: string, text: string) => {
      mkdirSync(join(dir, file, '..'), { recursive: true });
      writeFileSync(join(dir, file), text);
    };
    write('src/core/dialogue/a.ts', "import { b } from '../jobs/b';\nexport const a = b;\n");
    write('src/core/jobs/b.ts', 'export const b = 1;\n');
    write('src/core/metrics/c.ts', "import * as vscode from 'vscode';\nimport { d } from './d';\nexport const c = [vscode, d];\n");
    write('src/core/metrics/d.ts', "import { c } from './c';\nexport const d = () => c;\n");
    const found = await violations(dir, ['src']);
    assert.ok(found.some((v) => v.startsWith('no-upward-from-base: src/core/dialogue/a.ts → src/core/jobs/b.ts')), found.join('\n'));
    assert.ok(found.some((v) => v.startsWith('core-without-vscode: src/core/metrics/c.ts → vscode')), found.join('\n'));
    assert.ok(found.some((v) => v.startsWith('no-circular')), found.join('\n'));
  });
});
