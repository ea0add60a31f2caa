/**
 * The correlation table, its bootstrap intervals and the dependent-correlation tests against an independent
 * Python computation (scipy 1.10, numpy; scripts/parity/correlation_table_reference.py) on the committed
 * synthetic study and on the resample indices ReflectEval draws (scripts/parity/bootstrap_indices.ts).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { compareEvaluators } from '../../../src/core/correlation/compareEvaluators';
import { correlationTable, type CorrelationMethod } from '../../../src/core/correlation/correlationTable';
import { documentItems, parseDocument } from '../../../src/core/format/jsonl';
import type { HumanGroup } from '../../../src/core/labels/groups';
import { bootstrapIndices, bootstrapPValue, percentileInterval, percentileSorted } from '../../../src/core/stats/bootstrap';
import { steigerZ, williamsT } from '../../../src/core/stats/dependentCorrelation';

interface RefCell {
  method: CorrelationMethod;
  human: HumanGroup;
  evaluator: string;
  column: string;
  n: number;
  excluded: number;
  statistic: number | null;
  pValue: number | null;
  interval?: { seed: number | string; resamples: number; lower: number | null; upper: number | null; undefinedResamples: number };
}
interface RefTest {
  statistic: number;
  pValue: number;
}
interface RefComparison {
  method: CorrelationMethod;
  a: string;
  b: string;
  column: string;
  n: number;
  rA: number;
  rB: number;
  rAB: number;
  difference: number;
  williams?: RefTest;
  steiger?: RefTest;
  bootstrap: { seed: number | string; resamples: number; lower: number; upper: number; pValue: number; undefinedResamples: number };
}
const fixtures = join(__dirname, 'fixtures');
const ref = JSON.parse(readFileSync(join(fixtures, 'scipy-correlation-table.json'), 'utf8')) as {
  scipy: string;
  columns: string[];
  cells: RefCell[];
  comparisons: RefComparison[];
  formulas: { rjk: number; rjh: number; rkh: number; n: number; williams: RefTest; steiger: RefTest }[];
};
const indices = JSON.parse(readFileSync(join(fixtures, 'bootstrap-indices.json'), 'utf8')) as { cases: { m: number; resamples: number; seed: number | string; indices: number[][] }[] };
const items = documentItems(parseDocument(readFileSync(join(__dirname, '../../fixtures/correlation/evalreflections-synthetic.dialogues.jsonl'), 'utf8'), 'x.jsonl'));
const close = (a: number | null | undefined, b: number | null | undefined, tol = 1e-9) => (a === null || a === undefined ? b === null || b === undefined : b !== null && b !== undefined && Math.abs(a - b) <= tol);

describe(`correlation table: parity with scipy ${ref.scipy} (scripts/parity/correlation_table_reference.py)`, () => {
  it('draws the committed resample indices (seeded, reproducible)', () => {
    for (const c of indices.cases) {
      const got = bootstrapIndices(c.m, c.resamples, c.seed).map((a) => Array.from(a));
      assert.deepEqual(got, c.indices, `seed ${c.seed}`);
    }
    assert.notDeepEqual(bootstrapIndices(15, 3, 1), bootstrapIndices(15, 3, 2));
  });

  for (const method of ['spearman', 'pearson', 'kendall'] as const) {
    it(`${method}: every cell's n, left-out count, statistic and scipy's p-value (--p-value independent; 3 human groups, by source and all) within 1e-9`, () => {
      let checked = 0;
      let maxDiff = 0;
      for (const human of ['experts', 'laypeople', 'all'] as const) {
        const t = correlationTable(items, { method, human, groupBy: 'source', pValue: 'independent' });
        assert.deepEqual(t.columns.map((c) => c.key), ref.columns);
        for (const row of [t.reference, ...t.rows]) {
          for (const cell of row.cells) {
            const want = ref.cells.find((r) => r.method === method && r.human === human && r.evaluator === row.evaluatorId && r.column === cell.column);
            assert.ok(want, `no reference for ${row.evaluatorId} / ${cell.column}`);
            const where = `${human} ${row.evaluatorId} ${cell.column}`;
            assert.equal(cell.n, want.n, where);
            assert.equal(cell.excluded, want.excluded, where);
            assert.ok(close(cell.statistic, want.statistic), `${where}: ${cell.statistic} vs ${want.statistic}`);
            assert.ok(close(cell.pValue, want.pValue), `${where}: p ${cell.pValue} vs ${want.pValue}`);
            if (want.statistic !== null) maxDiff = Math.max(maxDiff, Math.abs((cell.statistic as number) - want.statistic), Math.abs((cell.pValue as number) - (want.pValue as number)));
            checked++;
          }
        }
      }
      assert.ok(checked >= 60 && maxDiff <= 1e-9);
    });

    it(`${method}: bootstrap percentile intervals (--interval percentile) of every cell on the same resamples within 1e-9`, () => {
      const b = indices.cases[0];
      const t = correlationTable(items, { method, human: 'experts', groupBy: 'source', bootstrap: { resamples: b.resamples, seed: b.seed, interval: 'percentile' } });
      let undefinedSeen = 0;
      for (const row of [t.reference, ...t.rows]) {
        for (const cell of row.cells) {
          const want = ref.cells.find((r) => r.method === method && r.human === 'experts' && r.evaluator === row.evaluatorId && r.column === cell.column)?.interval;
          assert.ok(want && cell.ci);
          const where = `${row.evaluatorId} ${cell.column}`;
          assert.ok(close(cell.ci.lower, want.lower) && close(cell.ci.upper, want.upper), `${where}: [${cell.ci.lower}, ${cell.ci.upper}] vs [${want.lower}, ${want.upper}]`);
          assert.equal(cell.ci.undefinedResamples, want.undefinedResamples, where);
          undefinedSeen += cell.ci.undefinedResamples;
        }
      }
      assert.ok(undefinedSeen > 0, 'the constant METEOR column makes every resample undefined there');
    });

    it(`${method}: comparison of two evaluators (difference, Williams, Steiger, paired bootstrap) within 1e-9`, () => {
      const b = indices.cases[1];
      for (const want of ref.comparisons.filter((c) => c.method === method)) {
        const got = compareEvaluators(items, want.a, want.b, { method, human: 'experts', groupBy: 'source', bootstrap: { resamples: b.resamples, seed: b.seed, interval: 'percentile' } }).find((c) => c.column === want.column);
        assert.ok(got);
        const where = `${want.a} vs ${want.b} on ${want.column}`;
        assert.equal(got.n, want.n, where);
        for (const k of ['rA', 'rB', 'rAB', 'difference'] as const) assert.ok(close(got[k], want[k]), `${where} ${k}: ${got[k]} vs ${want[k]}`);
        if (method === 'kendall') {
          assert.equal(got.williams, null);
          assert.equal(got.steiger, null);
        } else {
          assert.ok(close(got.williams?.statistic, want.williams?.statistic) && close(got.williams?.pValue, want.williams?.pValue), `${where} Williams`);
          assert.equal(got.williams?.df, want.n - 3);
          assert.ok(close(got.steiger?.statistic, want.steiger?.statistic) && close(got.steiger?.pValue, want.steiger?.pValue), `${where} Steiger`);
        }
        assert.ok(got.bootstrap);
        assert.ok(close(got.bootstrap.lower, want.bootstrap.lower) && close(got.bootstrap.upper, want.bootstrap.upper), `${where} interval`);
        assert.ok(close(got.bootstrap.pValue, want.bootstrap.pValue, 1e-12), `${where} bootstrap p ${got.bootstrap.pValue} vs ${want.bootstrap.pValue}`);
        assert.equal(got.bootstrap.undefinedResamples, want.bootstrap.undefinedResamples);
      }
    });
  }

  it("Williams' t and Steiger's z on 200 random correlation triples within 1e-9 of an independent implementation", () => {
    for (const f of ref.formulas) {
      const w = williamsT(f.rjk, f.rjh, f.rkh, f.n);
      const s = steigerZ(f.rjk, f.rjh, f.rkh, f.n);
      assert.ok(close(w.statistic, f.williams.statistic) && close(w.pValue, f.williams.pValue), JSON.stringify(f));
      assert.ok(close(s.statistic, f.steiger.statistic) && close(s.pValue, f.steiger.pValue), JSON.stringify(f));
    }
  });
});

describe('dependent correlations and bootstrap by hand', () => {
  it("Williams' t: r_jk = .5, r_jh = .3, r_kh = .4, n = 50", () => {
    // |R| = 1 − .25 − .09 − .16 + 2·.5·.3·.4 = 0.62; r̄ = .4;
    // denominator = 2·(49/47)·0.62 + .16·.6³ = 1.29276596 + 0.03456 = 1.32732596;
    // t = .2·sqrt(49·1.4 / 1.32732596) = .2·7.18908 = 1.43782; two-sided p with 47 df ≈ 0.1571.
    const w = williamsT(0.5, 0.3, 0.4, 50);
    assert.ok(Math.abs((w.statistic as number) - 1.4378158264484302) < 1e-12);
    assert.equal(w.df, 47);
    assert.ok(Math.abs((w.pValue as number) - 0.1571115649122728) < 1e-9);
    assert.equal(williamsT(0.5, 0.5, 0.2, 40).statistic, 0);
    assert.equal(williamsT(0.5, 0.3, 0.4, 3).undefinedReason, 'too-few');
    assert.throws(() => williamsT(1.2, 0.3, 0.4, 50), /r_jk must be a correlation/);
  });

  it("Steiger's z: same correlations", () => {
    // c = (.4·(1 − .32) − .5·.16·(1 − .32 − .16)) / .84² = (.272 − .0416) / .7056 = 0.3265306;
    // z = (atanh .5 − atanh .3)·sqrt(47) / sqrt(2 − 2c) = (0.549306 − 0.309520)·6.855655 / 1.160577 = 1.41645.
    const s = steigerZ(0.5, 0.3, 0.4, 50);
    assert.ok(Math.abs((s.statistic as number) - 1.4164452831948775) < 1e-12);
    assert.ok(Math.abs((s.pValue as number) - 0.1566451736611569) < 1e-9);
    assert.equal(steigerZ(1, 0.3, 0.4, 50).undefinedReason, 'perfect-correlation');
  });

  it('percentiles interpolate linearly as numpy; intervals drop undefined resamples; the bootstrap p counts both tails', () => {
    assert.equal(percentileSorted([1, 2, 3, 4], 50), 2.5);
    // h = 3·0.025 = 0.075 → 1 + 0.075·1 = 1.075; h = 3·0.975 = 2.925 → 3 + 0.925 = 3.925.
    assert.ok(Math.abs(percentileSorted([1, 2, 3, 4], 2.5) - 1.075) < 1e-15);
    assert.ok(Math.abs(percentileSorted([1, 2, 3, 4], 97.5) - 3.925) < 1e-15);
    const ci = percentileInterval([4, null, 1, 3, 2, null]);
    assert.equal(ci.undefinedResamples, 2);
    assert.equal(ci.resamples, 6);
    assert.ok(Math.abs((ci.lower as number) - 1.075) < 1e-15);
    assert.deepEqual([percentileInterval([null, 1]).lower, percentileInterval([null, 1]).upper], [null, null]);
    // 10 defined, 2 ≤ 0, 8 ≥ 0 → p = 2·(1 + 2)/11.
    assert.ok(Math.abs((bootstrapPValue([-1, -0.5, 1, 2, 3, 4, 5, 6, 7, 8, null]) as number) - 6 / 11) < 1e-15);
    assert.equal(bootstrapPValue([null]), null);
    assert.throws(() => bootstrapIndices(0, 10, 1), /number of items/);
  });

  it('resamples items, not candidates: a resample repeats whole items', () => {
    const its = items.slice(0, 3);
    const t = correlationTable(its, { groupBy: 'none', bootstrap: { resamples: 30, seed: 5 } });
    assert.equal(t.items, 3);
    assert.equal(t.bootstrap?.resamples, 30);
    const ids = bootstrapIndices(3, 30, 5);
    assert.ok(ids.every((r) => r.length === 3 && r.every((k) => k >= 0 && k < 3)));
  });
});
