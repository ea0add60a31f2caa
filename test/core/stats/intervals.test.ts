/**
 * Interval methods and adjusted p-values against their references: scipy 1.10's BCa on the same resample statistics
 * (scripts/parity/bca_reference.py), Hesterberg's expanded probabilities, and statsmodels 0.13's `multipletests`
 * (scripts/parity/multiple_testing_reference.py).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bootstrapIndices, bootstrapInterval, bootstrapPValue, expandedBootstrapPValue, expandedProbability, percentileInterval, studentTQuantile } from '../../../src/core/stats/bootstrap';
import { jackknifeTest } from '../../../src/core/stats/clusterBootstrap';
import { oneSampleTTest } from '../../../src/core/stats/tTest';
import { adjustPValues } from '../../../src/core/stats/multipleTesting';
import { coverageShortfall, shortfallText } from '../../../src/core/stats/measuredCoverage';
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

describe('tests that respect the clusters', () => {
  it('the expanded bootstrap p is below α exactly when the expanded percentile interval excludes 0', () => {
    for (const [m, shift] of [[15, 0.02], [15, 0.06], [10, 0.08], [30, 0.03], [15, -0.07]] as const) {
      // resample statistics: a normal-ish spread around `shift`
      const stats = Array.from({ length: 1999 }, (_, b) => shift + 0.04 * Math.sqrt(-2 * Math.log((b + 0.5) / 1999)) * Math.cos(2.399963 * b));
      const p = expandedBootstrapPValue(stats, m) as number;
      const ci = bootstrapInterval(stats, { method: 'expanded-percentile', clusters: m, level: 0.95 });
      const excludes = (ci.lower as number) > 0 || (ci.upper as number) < 0;
      assert.equal(p < 0.05, excludes, `m = ${m}, shift ${shift}: p ${p}, [${ci.lower}, ${ci.upper}]`);
      assert.ok(p >= (bootstrapPValue(stats) as number) - 1e-12, 'never smaller than the plain bootstrap p');
    }
    assert.equal(expandedBootstrapPValue([null], 15), null);
    assert.equal(expandedBootstrapPValue([0.1, 0.2], 1), bootstrapPValue([0.1, 0.2]));
  });

  it('the cluster-jackknife t of a mean of equal clusters is the t-test of the cluster means', () => {
    const clusters = [[1, 2, 3], [2, 2, 5], [0, 1, 1], [4, 3, 3], [1, 1, 2], [2, 4, 0]];
    const means = clusters.map((c) => c.reduce((a, b) => a + b, 0) / c.length);
    const grand = (cs: number[][]) => cs.flat().reduce((a, b) => a + b, 0) / cs.flat().length;
    const jk = clusters.map((_, i) => grand(clusters.filter((__, k) => k !== i)));
    const t = jackknifeTest(grand(clusters), jk, 1.5) as NonNullable<ReturnType<typeof jackknifeTest>>;
    const ref = oneSampleTTest(means, 1.5);
    assert.ok(Math.abs((t.statistic as number) - (ref.statistic as number)) < 1e-12, `${t.statistic} vs ${ref.statistic}`);
    assert.ok(Math.abs((t.pValue as number) - (ref.pValue as number)) < 1e-12);
    assert.equal(t.df, 5);
    assert.equal(jackknifeTest(null, jk), null);
    assert.equal(jackknifeTest(1, [1, 1, 1])?.pValue, null, 'no spread: no test');
  });
});

describe('the coverage study\'s verdict beside an interval', () => {
  const table = [
    { family: 'agreement' as const, interval: 'expanded-bca', contexts: 10, coverage: 0.9, se: 0.006 },
    { family: 'agreement' as const, interval: 'expanded-bca', contexts: 15, coverage: 0.928, se: 0.006 },
    { family: 'agreement' as const, interval: 'expanded-bca', contexts: 30, coverage: 0.94, se: 0.006 },
  ];
  it('falls back on the largest measured size at or below the contexts, and flags it only below 93.5 % by more than 2 SE', () => {
    assert.deepEqual(coverageShortfall('agreement', 'expanded-bca', 12, 0.95, table), { family: 'agreement', contexts: 10, coverage: 0.9, belowMeasured: false });
    assert.equal(coverageShortfall('agreement', 'expanded-bca', 20, 0.95, table), null, '92.8 ± 0.6: within two SE of the goal');
    assert.equal(coverageShortfall('agreement', 'expanded-bca', 40, 0.95, table), null);
    assert.equal(coverageShortfall('agreement', 'expanded-bca', 8, 0.95, table)?.belowMeasured, true);
    assert.equal(coverageShortfall('agreement', 'expanded-bca', 8, 0.9, table), null, 'only the 95 % level was measured');
    assert.equal(coverageShortfall('correlation', 'expanded-bca', 8, 0.95, table), null, 'nothing measured for this family');
    assert.equal(shortfallText(coverageShortfall('agreement', 'expanded-bca', 8, 0.95, table)!, 8), "8 contexts (fewer than the 10 the coverage study measured): at 10 contexts the study's nominal 95 % intervals covered 90.0 %, too narrow");
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
