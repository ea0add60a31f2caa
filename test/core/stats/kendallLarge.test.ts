import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { kendallTauB, kendallTauBStatistic, kendallTauBWeighted } from '../../../src/core/stats/correlation';

interface Tau {
  statistic: number;
  pValue: number;
}
const ref = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'scipy-kendall-large.json'), 'utf8')) as {
  scipy: string;
  sizes: number[];
  a: number[];
  b: number[];
  h: number[];
  full: { a: Tau; b: Tau };
  resamples: { items: number[]; a: number; b: number }[];
};
const item = ref.sizes.flatMap((s, k) => Array.from({ length: s }, () => k));

function weightsOf(items: number[]): Int32Array {
  const counts = new Int32Array(ref.sizes.length);
  for (const k of items) counts[k]++;
  return Int32Array.from(item, (k) => counts[k]);
}

function concatenation(column: number[], items: number[]): number[] {
  const start = ref.sizes.map((_, k) => ref.sizes.slice(0, k).reduce((s, v) => s + v, 0));
  return items.flatMap((k) => column.slice(start[k], start[k] + ref.sizes[k]));
}

describe(`Kendall's tau-b on ${ref.h.length} responses in ${ref.sizes.length} items: parity with scipy ${ref.scipy} (scripts/parity/kendall_large_reference.py)`, () => {
  for (const col of ['a', 'b'] as const) {
    it(`${col}: statistic within 1e-9 and p-value within 1e-9 relative of scipy on all responses`, () => {
      const r = kendallTauB(ref[col], ref.h);
      assert.equal(r.pMethod, 'asymptotic');
      assert.ok(Math.abs((r.statistic as number) - ref.full[col].statistic) <= 1e-9, `${r.statistic} vs ${ref.full[col].statistic}`);
      assert.ok(Math.abs((r.pValue as number) - ref.full[col].pValue) <= 1e-9 * ref.full[col].pValue, `${r.pValue} vs ${ref.full[col].pValue}`);
      assert.equal(kendallTauBWeighted(ref[col], ref.h)(new Int32Array(ref.h.length).fill(1)), r.statistic);
    });

    it(`${col}: on ${ref.resamples.length} item bootstrap resamples the weighted path equals scipy within 1e-9 and the concatenation exactly`, () => {
      const tau = kendallTauBWeighted(ref[col], ref.h);
      for (const s of ref.resamples) {
        const got = tau(weightsOf(s.items)) as number;
        assert.ok(Math.abs(got - s[col]) <= 1e-9, `${got} vs ${s[col]}`);
        assert.equal(got, kendallTauBStatistic(concatenation(ref[col], s.items), concatenation(ref.h, s.items)));
      }
    });
  }

  it('weights of zero leave pairs out; fewer than 3 pairs or a constant column give null', () => {
    const tau = kendallTauBWeighted([1, 2, 3, 4, 5], [1, 1, 2, 3, 3]);
    assert.equal(tau([0, 2, 1, 0, 1]), kendallTauBStatistic([2, 2, 3, 5], [1, 1, 2, 3]));
    assert.equal(tau([0, 1, 1, 0, 0]), null);
    assert.equal(tau([3, 0, 0, 0, 0]), null);
    assert.equal(tau([1, 1, 0, 0, 0]), null); // y constant among the pairs drawn
    assert.throws(() => tau([1, 1]), /expected 5 weights/);
  });
});
