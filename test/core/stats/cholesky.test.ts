import assert from 'node:assert/strict';
import { solveSpd } from '../../../src/core/stats/cholesky';

describe('stats/cholesky solveSpd', () => {
  it('solves a positive definite system and leaves its inputs as they were', () => {
    const a = [4, 2, 0.6, 2, 5, 1, 0.6, 1, 3];
    const b = [1, -2, 0.5];
    const x = solveSpd(a, b, 3)!;
    for (let i = 0; i < 3; i++) {
      const ax = a[i * 3] * x[0] + a[i * 3 + 1] * x[1] + a[i * 3 + 2] * x[2];
      assert.ok(Math.abs(ax - b[i]) < 1e-14, `row ${i}: ${ax} ≠ ${b[i]}`);
    }
    assert.deepEqual(a, [4, 2, 0.6, 2, 5, 1, 0.6, 1, 3]);
    assert.deepEqual(b, [1, -2, 0.5]);
  });

  it('returns null for a matrix that is not positive definite, unless a pivot floor is given', () => {
    const singular = [1, 1, 1, 1];
    assert.equal(solveSpd(singular, [1, 1], 2), null);
    assert.equal(solveSpd([-1, 0, 0, 1], [1, 1], 2), null);
    const floored = solveSpd([4, 0, 0, 0], [2, 0], 2, { pivotFloor: 1e-300 })!;
    assert.equal(floored[0], 0.5);
    assert.equal(floored[1], 0);
  });
});
