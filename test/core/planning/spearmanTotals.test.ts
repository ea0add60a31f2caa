import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import { SpearmanTotals } from '../../../src/core/planning/spearmanTotals';
import { spearmanRho } from '../../../src/core/stats/correlation';

function randomPool(n: number, seed: string) {
  const rng = seedrandom.alea(seed);
  const y = Array.from({ length: n }, () => Math.floor(rng() * 4));
  // Ties in x too: judge-like ratings 1..5 for one evaluator, continuous for the other.
  const xa = y.map((v) => Math.max(1, Math.min(5, Math.round(1 + v + (rng() - 0.5) * 3))));
  const xb = y.map((v) => v * 0.3 + rng());
  return { y, xa, xb };
}

describe('planning: Spearman rho as a function of pool totals', () => {
  it('gives scipy\'s Spearman rho (average ranks, ties) on the exact totals, for one evaluator and for a difference', () => {
    for (let s = 0; s < 30; s++) {
      const { y, xa, xb } = randomPool(5 + s * 7, `t${s}`);
      const levels = [0, 1, 2, 3];
      const one = new SpearmanTotals([xa], levels);
      const ra = spearmanRho(xa, y).statistic;
      const rb = spearmanRho(xb, y).statistic;
      const ev = one.evaluate(one.totals(y));
      if (ra === null) {
        assert.equal(ev, null);
        continue;
      }
      assert.ok(ev);
      assert.ok(Math.abs(ev.value - ra) < 1e-12, `n=${y.length}: ${ev.value} vs ${ra}`);
      const two = new SpearmanTotals([xa, xb], levels);
      const ev2 = two.evaluate(two.totals(y));
      assert.ok(ev2 && rb !== null);
      assert.ok(Math.abs(ev2.value - (ra - rb)) < 1e-12);
      assert.ok(Math.abs(ev2.rhos[1] - rb) < 1e-12);
    }
  });

  it('has the gradient of its finite differences', () => {
    const { y, xa, xb } = randomPool(60, 'grad');
    const t = new SpearmanTotals([xa, xb], [0, 1, 2, 3]);
    const theta = t.totals(y);
    // Move off the exact totals (as an estimate would be) without emptying a level.
    for (let d = 0; d < t.dim; d++) theta[d] += d < 4 ? 0.7 * (d - 1.5) : 3 * Math.sin(d);
    const ev = t.evaluate(theta);
    assert.ok(ev);
    for (let d = 0; d < t.dim; d++) {
      const h = 1e-5 * Math.max(1, Math.abs(theta[d]));
      const up = Float64Array.from(theta);
      const down = Float64Array.from(theta);
      up[d] += h;
      down[d] -= h;
      const numeric = ((t.evaluate(up) as { value: number }).value - (t.evaluate(down) as { value: number }).value) / (2 * h);
      assert.ok(Math.abs(numeric - ev.gradient[d]) < 1e-6 * Math.max(1, Math.abs(numeric)), `component ${d}: ${numeric} vs ${ev.gradient[d]}`);
    }
  });

  it('is undefined when the human score has one level, and refuses a constant evaluator', () => {
    const t = new SpearmanTotals([[1, 2, 3, 4]], [0, 1, 2, 3]);
    assert.equal(t.evaluate(t.totals([2, 2, 2, 2])), null);
    assert.throws(() => new SpearmanTotals([[1, 1, 1]], [0, 1]), /same score/);
    assert.throws(() => t.levelIndex(7), /not one of the levels/);
  });
});
