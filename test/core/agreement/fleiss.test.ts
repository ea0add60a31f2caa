import assert from 'node:assert/strict';
import { fleissKappa, ratingCounts } from '../../../src/core/agreement/fleiss';

/**
 * Fleiss (1971), Table 1: 30 psychiatric patients, each diagnosed by 6 of the psychiatrists, in 5 categories
 * (depression, personality disorder, schizophrenia, neurosis, other). Fleiss reports κ = .430 and the
 * per-category kappas .245, .245, .520, .471, .566; statsmodels 0.13.5 fleiss_kappa gives 0.43024452006014074.
 */
const FLEISS_1971 = [
  [0, 0, 0, 6, 0], [0, 3, 0, 0, 3], [0, 1, 4, 0, 1], [0, 0, 0, 0, 6], [0, 3, 0, 3, 0], [2, 0, 4, 0, 0],
  [0, 0, 4, 0, 2], [2, 0, 3, 1, 0], [2, 0, 0, 4, 0], [0, 0, 0, 0, 6], [1, 0, 0, 5, 0], [1, 1, 0, 4, 0],
  [0, 3, 3, 0, 0], [1, 0, 0, 5, 0], [0, 2, 0, 3, 1], [0, 0, 5, 0, 1], [3, 0, 0, 1, 2], [5, 1, 0, 0, 0],
  [0, 2, 0, 4, 0], [1, 0, 2, 0, 3], [0, 0, 0, 0, 6], [0, 1, 0, 5, 0], [0, 2, 0, 1, 3], [2, 0, 0, 4, 0],
  [1, 0, 0, 4, 1], [0, 5, 0, 1, 0], [4, 0, 0, 0, 2], [0, 2, 0, 4, 0], [1, 0, 5, 0, 0], [0, 0, 0, 0, 6],
];

describe('fleissKappa', () => {
  it("reproduces Fleiss' own 1971 example (κ = .430, per-category .245 .245 .520 .471 .566)", () => {
    const r = fleissKappa(FLEISS_1971);
    assert.equal(r.subjects, 30);
    assert.equal(r.raters, 6);
    assert.ok(Math.abs(r.kappa! - 0.43024452006014074) < 1e-12, String(r.kappa));
    assert.deepEqual(r.perCategory.map((k) => Number(k!.toFixed(3))), [0.245, 0.245, 0.52, 0.471, 0.566]);
  });

  it('matches a small table worked by hand', () => {
    // 3 subjects, 3 raters, 2 categories: [3,0], [2,1], [0,3].
    // P_i = 1, (4+1-3)/6 = 1/3, 1 → P̄ = 7/9; p = 5/9, 4/9 → P̄e = 41/81; κ = (63/81 - 41/81) / (40/81) = 22/40.
    const r = fleissKappa([[3, 0], [2, 1], [0, 3]]);
    assert.ok(Math.abs(r.observedAgreement - 7 / 9) < 1e-15);
    assert.ok(Math.abs(r.expectedAgreement - 41 / 81) < 1e-15);
    assert.ok(Math.abs(r.kappa! - 0.55) < 1e-15);
  });

  it('is 1 under perfect agreement and −1/(n−1) at its minimum', () => {
    assert.equal(fleissKappa([[2, 0], [0, 2]]).kappa, 1);
    // two raters always disagree, both categories equally used: P̄ = 0, P̄e = 1/2 → κ = −1 = −1/(n−1)
    assert.equal(fleissKappa([[1, 1], [1, 1]]).kappa, -1);
  });

  it('is undefined (null, with the reason) when every rating is in one category or there are no subjects', () => {
    const r = fleissKappa([[3, 0], [3, 0]]);
    assert.equal(r.kappa, null);
    assert.equal(r.undefinedReason, 'every rating is in one category');
    assert.equal(fleissKappa([]).undefinedReason, 'no subjects');
  });

  it('refuses subjects with different numbers of ratings instead of guessing', () => {
    assert.throws(() => fleissKappa([[3, 0], [1, 1]]), /subject 1 has 2 ratings, subject 0 has 3/);
    assert.throws(() => fleissKappa([[1, 0], [0, 1]]), /at least 2 ratings/);
    assert.throws(() => fleissKappa([[1.5, 0.5]]), /non-negative integers/);
  });

  it('ratingCounts builds the count table from ratings, in the given category order', () => {
    const { categories, counts } = ratingCounts([['a', 'b', 'a'], ['c', 'c', 'c']], ['c', 'b', 'a']);
    assert.deepEqual(categories, ['c', 'b', 'a']);
    assert.deepEqual(counts, [[0, 1, 2], [3, 0, 0]]);
    assert.throws(() => ratingCounts([['x']], ['a']), /"x" is not one of the categories/);
  });
});
