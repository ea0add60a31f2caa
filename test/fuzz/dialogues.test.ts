/**
 * The dialogue fuzzer (test/fuzz/dialogueFuzzer.ts) with a small count; the full run is
 * `npx tsx scripts/fuzz/dialogues.ts --count 10000 --seed 1`.
 */
import assert from 'node:assert/strict';
import { describeStats, fuzzDialogues } from './dialogueFuzzer';

describe('fuzz: corrupted dialogue files through the core and the CLI (issue 14)', () => {
  it('200 corrupted files: open → label → save, score, (every fourth: compact, score), score again, export annotations; no line lost', async function () {
    this.timeout(600000);
    // Huge lines up to 256 KB here; the full run and test/core/format/bytes.test.ts have 10 MB ones.
    const stats = await fuzzDialogues({ count: 200, seed: 'ci', maxHugeBytes: 256 * 1024 });
    const summary = describeStats(stats);
    assert.deepEqual(stats.failures.slice(0, 5), [], summary);
    assert.equal(stats.linesLost, 0, summary);
    assert.equal(stats.cases, 200);
    // The run did exercise what it claims to.
    assert.ok(Object.keys(stats.byKind).length >= 15, summary);
    assert.ok(stats.itemLinesRewritten > 0 && stats.untouchedWrites > 0 && stats.problemLines > 0, summary);
    // Every fourth file was compacted and scored again as a compact file.
    assert.equal(stats.jobs.compact, 50, summary);
    assert.equal(stats.jobs['score (compact file)'], 50, summary);
  });
});
