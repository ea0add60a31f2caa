/**
 * Writes the item-bootstrap resample indices ReflectEval draws for the parity cases, so that independent code
 * (scripts/parity/correlation_table_reference.py) recomputes the intervals on exactly the same resamples:
 *
 *     npx tsx scripts/parity/bootstrap_indices.ts   # → test/core/correlation/fixtures/bootstrap-indices.json
 *
 * The unit test re-draws them with bootstrapIndices() and checks they are unchanged.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bootstrapIndices } from '../../src/core/stats/bootstrap';

export const BOOTSTRAP_CASES = [
  { m: 15, resamples: 500, seed: 7 },
  { m: 15, resamples: 200, seed: 'evalreflections' },
];

const out = join(__dirname, '..', '..', 'test', 'core', 'correlation', 'fixtures', 'bootstrap-indices.json');
writeFileSync(out, JSON.stringify({ generatedBy: 'scripts/parity/bootstrap_indices.ts', cases: BOOTSTRAP_CASES.map((c) => ({ ...c, indices: bootstrapIndices(c.m, c.resamples, c.seed).map((a) => Array.from(a)) })) }) + '\n');
console.log(`wrote ${out}`);
