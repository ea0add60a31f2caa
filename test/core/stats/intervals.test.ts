/**
 * Interval methods and adjusted p-values against their references: scipy 1.10's BCa on the same resample statistics
 * (scripts/parity/bca_reference.py), Hesterberg's expanded probabilities, and statsmodels 0.13's `multipletests`
 * (scripts/parity/multiple_testing_reference.py).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bootstrapIndices, bootstrapInterval, expandedProbability, percentileInterval, studentTQuantile } from '../../../src/core/stats/bootstrap';
import { adjustPValues } from '../../../src/core/stats/multipleTesting';
import { cellStatisticOfCounts, intervalOfCounts } from '../../../src/core/correlation/correlationTable';
import { generateStudy, humanScores } from '../../../scripts/coverage/generate';
import { baseDesign } from '../../../scripts/coverage/scenarios';

const fixtures = join(__dirname, 'fixtures');
const close = (a: number | null, b: number, tol: number, what: string) => {
  assert.ok(a !== null && Math.abs(a - b) <= tol * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);
};

describe('bootstrap interval methods', () => {
  const ref = JSON.parse(readFileSync(join(fixtures, 'bca-reference.json'), 'utf8'));
  // The inputs of scripts/parity/bca_inputs.ts, made again (they are seeded).
  const inputs = ([[10, 0.5], [15, 0.85], [15, 0.7], [30, 0.6], [8, 0.8]] as const).map(([m, balance], k) => {
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
    return { m, f, stats };
  });

  it(`BCa over clusters equals scipy 1.10's BCa (jackknife over the clusters) on ${ref.cases.length} generated studies, to 1e-9`, () => {
    ref.cases.forEach((c: any, k: number) => {
      const { m, f, stats } = inputs[k];
      assert.equal(m, c.m);
      close(f(new Int32Array(m).fill(1)), c.estimate, 1e-12, `${c.name} estimate`);
      c.jackknife.forEach((v: number, i: number) => {
        const counts = new Int32Array(m).fill(1);
        counts[i] = 0;
        close(f(counts), v, 1e-12, `${c.name} jackknife ${i}`);
      });
      for (const level of [0.9, 0.95]) {
        const r = c[String(level)];
        const used = new Array(m).fill(true);
        const bca = intervalOfCounts(stats, f, used, level, 'bca');
        close(bca.lower, r.bca[0], 1e-9, `${c.name} ${level} BCa lower`);
        close(bca.upper, r.bca[1], 1e-9, `${c.name} ${level} BCa upper`);
        assert.equal(bca.method, 'bca');
        assert.equal(bca.clusters, m);
        close(expandedProbability((1 - level) / 2, m), r.expandedProbability, 1e-9, `${c.name} expanded probability`);
        const ep = intervalOfCounts(stats, f, used, level, 'expanded-percentile');
        close(ep.lower, r.expandedPercentile[0], 1e-9, `${c.name} expanded percentile lower`);
        close(ep.upper, r.expandedPercentile[1], 1e-9, `${c.name} expanded percentile upper`);
        const eb = intervalOfCounts(stats, f, used, level, 'expanded-bca');
        close(eb.lower, r.expandedBca[0], 1e-9, `${c.name} expanded BCa lower`);
        close(eb.upper, r.expandedBca[1], 1e-9, `${c.name} expanded BCa upper`);
        const p = intervalOfCounts(stats, f, used, level, 'percentile');
        const plain = percentileInterval(stats, level);
        assert.deepEqual([p.lower, p.upper], [plain.lower, plain.upper], 'the percentile method is the plain percentile interval');
      }
    });
  });

  it('the expansion widens: 15 clusters at 95 % read the 1.3 % and 98.7 % percentiles; none with fewer than 2 clusters', () => {
    // √(15/14)·t_14(0.025) = −2.2200 → Φ = 0.01321
    assert.ok(Math.abs(expandedProbability(0.025, 15) - 0.013209) < 2e-6, String(expandedProbability(0.025, 15)));
    assert.ok(expandedProbability(0.025, 100) < 0.025 && expandedProbability(0.025, 100) > 0.023);
    assert.equal(expandedProbability(0.025, 1), 0.025);
    assert.ok(Math.abs(studentTQuantile(0.975, 14) - 2.1447866879169273) < 1e-10);
    assert.ok(Math.abs(studentTQuantile(0.05, 3) + 2.3533634348018264) < 1e-10);
  });

  it('BCa falls back to the percentile bounds, and says so, when every resample lies on one side of the estimate', () => {
    const stats = [0.5, 0.6, 0.7, 0.8];
    const r = bootstrapInterval(stats, { method: 'bca', estimate: 0.1, jackknife: [0.1, 0.2, 0.3], clusters: 3 });
    assert.equal(r.fallback, 'bca-undefined');
    assert.deepEqual([r.lower, r.upper], [percentileInterval(stats).lower, percentileInterval(stats).upper]);
    assert.equal(bootstrapInterval([0.5], { method: 'expanded-bca' }).lower, null, 'fewer than two defined resamples');
  });
});

describe('adjusted p-values', () => {
  const ref = JSON.parse(readFileSync(join(fixtures, 'multipletests.json'), 'utf8'));

  it(`Holm and Benjamini–Yekutieli equal statsmodels ${ref.statsmodels} multipletests on ${ref.cases.length} families, to 1e-12`, () => {
    for (const c of ref.cases) {
      for (const method of ['holm', 'by'] as const) {
        const got = adjustPValues(c.p, method);
        got.forEach((g, i) => close(g, c[method][i], 1e-12, `${method} ${JSON.stringify(c.p).slice(0, 60)} [${i}]`));
      }
    }
  });

  it('leaves undefined tests out of the family and keeps them null', () => {
    assert.deepEqual(adjustPValues([0.01, null, 0.04], 'holm'), [0.02, null, 0.04]);
    assert.deepEqual(adjustPValues([null, null], 'by'), [null, null]);
    assert.throws(() => adjustPValues([1.2], 'holm'), /must be in \[0, 1\]/);
  });
});
