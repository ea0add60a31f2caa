import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kendallExactP, kendallTauB, kendallTauBStatistic, pearsonR, spearmanRho } from '../../../src/core/stats/correlation';
import { rankAverage } from '../../../src/core/stats/rank';

interface Ref {
  statistic: number | null;
  pValue: number | null;
}
interface Case {
  name: string;
  x: number[];
  y: number[];
  spearman: Ref;
  pearson: Ref;
  kendall: Ref;
}
const ref = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'scipy-correlation.json'), 'utf8')) as { scipy: string; cases: Case[] };

describe(`correlations: parity with scipy ${ref.scipy} (scripts/parity/stats_reference.py)`, () => {
  for (const [name, fn] of [
    ['spearman', spearmanRho],
    ['pearson', pearsonR],
    ['kendall', kendallTauB],
  ] as const) {
    it(`${name}: statistic and p-value within 1e-9 on all ${ref.cases.length} cases; nan ↔ undefined`, () => {
      let maxStat = 0;
      let maxP = 0;
      for (const c of ref.cases) {
        const want = c[name];
        const got = fn(c.x, c.y);
        if (want.statistic === null) {
          assert.equal(got.statistic, null, c.name);
          assert.equal(got.undefinedReason, 'constant-input', c.name);
          continue;
        }
        assert.notEqual(got.statistic, null, c.name);
        maxStat = Math.max(maxStat, Math.abs((got.statistic as number) - want.statistic));
        maxP = Math.max(maxP, Math.abs((got.pValue as number) - (want.pValue as number)));
        assert.ok(Math.abs((got.statistic as number) - want.statistic) <= 1e-9, `${c.name}: ${got.statistic} vs ${want.statistic}`);
        assert.ok(Math.abs((got.pValue as number) - (want.pValue as number)) <= 1e-9, `${c.name}: p ${got.pValue} vs ${want.pValue}`);
      }
      assert.ok(maxStat < 1e-9 && maxP < 1e-9);
    });
  }
});

describe("Kendall's tau-b in O(n log n) (Knight 1966)", () => {
  it(`equals scipy's statistic within 1e-9 on all ${ref.cases.length} cases, and undefined where scipy gives nan`, () => {
    for (const c of ref.cases) {
      const got = kendallTauBStatistic(c.x, c.y);
      if (c.kendall.statistic === null) assert.equal(got, null, c.name);
      else assert.ok(got !== null && Math.abs(got - c.kendall.statistic) <= 1e-9, `${c.name}: ${got} vs ${c.kendall.statistic}`);
    }
    assert.equal(kendallTauBStatistic([1, 2], [2, 1]), null);
  });
});

describe('ranks and hand-worked cases', () => {
  it('gives tied values their average rank', () => {
    assert.deepEqual(rankAverage([10, 20, 20, 30]), [1, 2.5, 2.5, 4]);
    assert.deepEqual(rankAverage([3, 1, 2, 1, 3, 3]), [5, 1.5, 3, 1.5, 5, 5]);
    assert.deepEqual(rankAverage([]), []);
  });

  it('computes rho and p for a 5-point example by hand', () => {
    // x ranks [1,2,3,4,5], y ranks [2,1,4,3,5]: d² = 1+1+1+1+0 = 4, rho = 1 − 6·4/(5·24) = 0.8.
    const r = spearmanRho([1, 2, 3, 4, 5], [20, 10, 40, 30, 50]);
    assert.ok(Math.abs((r.statistic as number) - 0.8) < 1e-12);
    // t = 0.8·sqrt(3/(1.8·0.2)) = 0.8·sqrt(8.3333…) = 2.3094; two-sided p with 3 df = 0.1041 (t tables).
    assert.ok(Math.abs((r.pValue as number) - 0.10408803866182788) < 1e-9);
  });

  it('says why a correlation is undefined, and rejects bad input naming the index', () => {
    assert.equal(spearmanRho([1, 2], [1, 2]).undefinedReason, 'too-few');
    assert.equal(spearmanRho([1, 1, 1], [1, 2, 3]).undefinedReason, 'constant-input');
    assert.equal(spearmanRho([1, 2, 3], [2, 4, 7]).pValue, 0);
    assert.throws(() => spearmanRho([1, 2], [1]), /same length/);
    assert.throws(() => spearmanRho([1, Number.NaN, 3], [1, 2, 3]), /x\[1\] is not a finite number/);
  });
});

describe("Kendall's tau-b by hand", () => {
  it('counts concordant and discordant pairs, with the exact p for small untied samples', () => {
    // x = 1..4, y = [1, 3, 2, 4]: 5 concordant pairs, 1 discordant → tau = (5 − 1) / 6.
    const r = kendallTauB([1, 2, 3, 4], [1, 3, 2, 4]);
    assert.ok(Math.abs((r.statistic as number) - 4 / 6) < 1e-15);
    assert.equal(r.pMethod, 'exact');
    // Permutations of 4 with at most 1 inversion: 1 + 3 = 4 of 24, two-sided: 2·4/24.
    assert.ok(Math.abs((r.pValue as number) - 8 / 24) < 1e-15);
    assert.ok(Math.abs(kendallExactP(4, 5) - 8 / 24) < 1e-15);
  });
  it('uses the tie-corrected normal approximation when there are ties', () => {
    const r = kendallTauB([0, 1, 1, 2, 3, 3], [1, 2, 2, 2, 4, 5]);
    assert.equal(r.pMethod, 'asymptotic');
    assert.equal(kendallTauB([2, 2, 2], [1, 2, 3]).undefinedReason, 'constant-input');
  });
});

