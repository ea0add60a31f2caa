/**
 * Inputs of the BCa parity test: generated clustered studies (scripts/coverage/generate.ts), each cell's pairs by
 * context, and the resample statistics ReflectEval's cluster bootstrap computes on them (Spearman's ρ, B = 999).
 * scripts/parity/bca_reference.py reads this and computes scipy 1.10's BCa interval on the same resample statistics.
 *
 *   npx tsx scripts/parity/bca_inputs.ts > /tmp/bca-inputs.json
 *   /usr/bin/python3 scripts/parity/bca_reference.py /tmp/bca-inputs.json > test/core/stats/fixtures/bca-reference.json
 */
import { bootstrapIndices } from '../../src/core/stats/bootstrap';
import { cellStatisticOfCounts } from '../../src/core/correlation/correlationTable';
import { generateStudy, humanScores } from '../coverage/generate';
import { baseDesign } from '../coverage/scenarios';

const cases = [];
for (const [k, [m, balance]] of [[10, 0.5], [15, 0.85], [15, 0.7], [30, 0.6], [8, 0.8]].entries()) {
  const s = generateStudy(baseDesign(m, balance), `bca-${k}`);
  const h = humanScores(s);
  const x: number[][] = Array.from({ length: m }, () => []);
  const y: number[][] = Array.from({ length: m }, () => []);
  for (let i = 0; i < h.length; i++) {
    x[s.context[i]].push(s.a[i]);
    y[s.context[i]].push(h[i]);
  }
  const f = cellStatisticOfCounts('spearman', { x, y });
  const counts = new Int32Array(m);
  const stats = bootstrapIndices(m, 999, `bca-${k}`).map((idx) => {
    counts.fill(0);
    for (const i of idx) counts[i]++;
    return f(counts);
  });
  cases.push({ name: `spearman-${m}-contexts-${balance}`, x, y, stats, estimate: f(new Int32Array(m).fill(1)) });
}
process.stdout.write(JSON.stringify({ generatedBy: 'scripts/parity/bca_inputs.ts', cases }) + '\n');
