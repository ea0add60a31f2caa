/**
 * Loaded by .mocharc.json's `require`, before any spec file: every unit and CLI test's temporary files go under one
 * fresh directory, removed when the run ends (a mocha global teardown). Tests call
 * `mkdtempSync(join(tmpdir(), …))`, some while their spec file loads, and most do not clean up; `os.tmpdir()` reads
 * TMPDIR on each call and spawned CLIs inherit it, so pointing TMPDIR at a scratch directory for the run keeps /tmp
 * from collecting a directory per test per run. REFLECT_EVAL_KEEP_TEST_TMP=1 keeps it for a post-mortem.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const previous = process.env.TMPDIR;
const scratch = mkdtempSync(join(tmpdir(), 'reflect-eval-tests-'));
process.env.TMPDIR = scratch;

export function mochaGlobalTeardown(): void {
  if (previous === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = previous;
  if (process.env.REFLECT_EVAL_KEEP_TEST_TMP) process.stderr.write(`test files kept in ${scratch}\n`);
  else rmSync(scratch, { recursive: true, force: true });
}
