import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { userPromptRoots } from '../../src/cli/host';
import { bundledPrompts } from '../../src/cli/paths';

describe('CLI host: prompt folders', () => {
  it('adds ./prompts only when it exists, --prompts always, and never the bundled folder twice', () => {
    const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-prompts-'));
    assert.deepEqual(userPromptRoots(dir), [bundledPrompts()], 'no prompts/ folder: the bundled templates only (as the editor without one)');
    mkdirSync(join(dir, 'prompts'));
    assert.deepEqual(userPromptRoots(dir), [bundledPrompts(), join(dir, 'prompts')]);
    assert.deepEqual(userPromptRoots(dir, 'mine'), [bundledPrompts(), join(dir, 'mine')]);
    assert.deepEqual(userPromptRoots(join(bundledPrompts(), '..')), [bundledPrompts()], 'run from the package root: its prompts/ is the bundled one');
  });
});
