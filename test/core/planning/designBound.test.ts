/**
 * The design-only saving bound (docs/labelling-plan.md, "What the design alone can buy"): the Neyman inclusion
 * probabilities, the Godambe–Joshi variance they minimise, the labels each design needs for a target variance, the
 * leave-one-out working model, and the bound on generated pools against the planner's simulated saving.
 */
import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import { designBound, godambeJoshiVariance, labelsForVariance, leaveOneOutLevels, neymanInclusion } from '../../../src/core/planning/designBound';
import { KernelLevelModel } from '../../../src/core/design/levelModel';
import { SequentialPlan } from '../../../src/core/design/sequentialPlan';
import { simulatePlans } from '../../../src/core/planning/simulate';
import { SpearmanTotals } from '../../../src/core/planning/spearmanTotals';
import { gaussian, generatedPool } from './generatedPool';

const sum = (a: ArrayLike<number>) => Array.from(a).reduce((s, v) => s + v, 0);

describe('labelling plan: what the design alone can buy', function () {
  this.timeout(300_000);

  it('Neyman inclusion probabilities: proportional to σ, take-all units capped at 1, summing to n', () => {
    const sd = [10, 1, 1, 1, 1, 0];
    const pi = neymanInclusion(sd, 3);
    assert.ok(Math.abs(sum(pi) - 3) < 1e-12);
    assert.equal(pi[0], 1, 'the unit whose share would exceed 1 is taken whole');
    for (let i = 1; i < 5; i++) assert.ok(Math.abs(pi[i] - 0.5) < 1e-12, `π[${i}] = ${pi[i]}`);
    assert.equal(pi[5], 0);
    const small = neymanInclusion([1, 2, 3, 4], 1);
    assert.deepEqual(Array.from(small).map((v) => +v.toFixed(12)), [0.1, 0.2, 0.3, 0.4]);
    assert.deepEqual(Array.from(neymanInclusion([0, 0, 0], 1.5)), [0.5, 0.5, 0.5]);
    assert.throws(() => neymanInclusion([1, 2], 3), /sample size must be in \(0, 2\]/);
    assert.throws(() => neymanInclusion([1, Number.NaN], 1), /sd\[1\] must be a finite number/);
  });

  it('no other inclusion probabilities of the same expected size give a smaller Godambe–Joshi variance', () => {
    const rng = seedrandom.alea('gj');
    const sd = Array.from({ length: 40 }, () => Math.abs(gaussian(rng)) + 0.05);
    for (const n of [5, 20, 35]) {
      const best = godambeJoshiVariance(sd, neymanInclusion(sd, n));
      for (let t = 0; t < 300; t++) {
        // A random feasible π: positive weights scaled to sum n, with the excess over 1 spread over the rest.
        const w = sd.map(() => rng() + 0.01);
        const pi = neymanInclusion(w, n);
        assert.ok(Math.abs(sum(pi) - n) < 1e-9);
        assert.ok(godambeJoshiVariance(sd, pi) >= best - 1e-9, `n ${n}: a random design beat the Neyman design`);
      }
      const uniform = sd.map(() => n / sd.length);
      assert.ok(godambeJoshiVariance(sd, uniform) > best);
    }
    assert.throws(() => godambeJoshiVariance([1, 1], [0.5, 0]), /π\[1\] is 0 where σ is 1/);
  });

  it('labels for a target variance: equal σ needs the same labels either way; without take-all units the ratio is (Σσ)²/(N·Σσ²)', () => {
    const flat = Array.from({ length: 50 }, () => 2);
    assert.ok(Math.abs(labelsForVariance(flat, 10, 'neyman') - labelsForVariance(flat, 10, 'uniform')) < 1e-6);
    const sd = Array.from({ length: 100 }, (_, i) => (i + 0.5) / 100); // σ uniform on (0, 1): the 3/4 of untied ranks
    const s1 = sum(sd);
    const s2 = sum(sd.map((v) => v * v));
    const v = 20 * s2; // large enough that no unit is taken whole
    const random = labelsForVariance(sd, v, 'uniform');
    const neyman = labelsForVariance(sd, v, 'neyman');
    assert.ok(Math.abs(random - (100 * s2) / (v + s2)) < 1e-9);
    assert.ok(Math.abs(neyman / random - (s1 * s1) / (100 * s2)) < 1e-6, `${neyman / random}`);
    assert.ok(Math.abs(1 - neyman / random - 0.25) < 0.001, 'σ uniform on (0, 1): the Neyman design needs a quarter fewer');
    assert.ok(Math.abs(godambeJoshiVariance(sd, neymanInclusion(sd, neyman)) - v) < 1e-6 * v);
    // The closed form used for the labels agrees with the definition, with and without take-all units.
    const rng = seedrandom.alea('closed-form');
    const skewed = Array.from({ length: 80 }, () => Math.exp(2 * gaussian(rng)));
    for (const n of [3, 10, 40, 70, 79]) {
      const target = godambeJoshiVariance(skewed, neymanInclusion(skewed, n));
      const found = labelsForVariance(skewed, target, 'neyman');
      assert.ok(Math.abs(found - n) < 1e-6, `n ${n}: found ${found}`);
    }
    assert.ok(neymanInclusion(skewed, 40).filter((p) => p === 1).length > 0, 'the skewed σ has take-all units at n = 40');
  });

  it('the bound is the variance the difference estimator attains: under Poisson sampling with those probabilities, and (N/n − 1)·Σσ² under simple random sampling', () => {
    // Model: y_i ∈ {0, 1, 2} with known probabilities; the influence values c_k(i) are fixed coefficients.
    const rng = seedrandom.alea('mc');
    const N = 60;
    const probs = Array.from({ length: N }, () => {
      const w = [rng(), rng(), rng()];
      return w.map((x) => x / sum(w));
    });
    const coef = Array.from({ length: N }, (_, i) => [0, 1, 2].map((k) => (k - 1) * ((i % 7) + 1)));
    const mu = probs.map((p, i) => sum(p.map((pk, k) => pk * coef[i][k])));
    const sd = probs.map((p, i) => Math.sqrt(sum(p.map((pk, k) => pk * coef[i][k] ** 2)) - mu[i] ** 2));
    const pi = neymanInclusion(sd, 20);
    const bound = godambeJoshiVariance(sd, pi);
    let sq = 0;
    const reps = 40_000;
    for (let r = 0; r < reps; r++) {
      let total = 0;
      let estimate = 0;
      for (let i = 0; i < N; i++) {
        const u = rng();
        const k = u < probs[i][0] ? 0 : u < probs[i][0] + probs[i][1] ? 1 : 2;
        const phi = coef[i][k];
        total += phi;
        estimate += mu[i] + (rng() < pi[i] ? (phi - mu[i]) / pi[i] : 0);
      }
      sq += (estimate - total) ** 2;
    }
    const empirical = sq / reps;
    assert.ok(Math.abs(empirical / bound - 1) < 0.04, `empirical ${empirical} vs bound ${bound}`);
    // Simple random sampling without replacement of n = 20: the difference estimator's variance is (N/n − 1)·Σσ².
    const srs = (N / 20 - 1) * sum(sd.map((v) => v * v));
    let sqSrs = 0;
    const units = Array.from({ length: N }, (_, i) => i);
    for (let r = 0; r < reps; r++) {
      for (let j = 0; j < 20; j++) {
        const k = j + Math.floor(rng() * (N - j));
        [units[j], units[k]] = [units[k], units[j]];
      }
      let total = 0;
      let estimate = sum(mu);
      const phi = probs.map((p, i) => {
        const u = rng();
        return coef[i][u < p[0] ? 0 : u < p[0] + p[1] ? 1 : 2];
      });
      for (let i = 0; i < N; i++) total += phi[i];
      for (let j = 0; j < 20; j++) estimate += (N / 20) * (phi[units[j]] - mu[units[j]]);
      sqSrs += (estimate - total) ** 2;
    }
    assert.ok(Math.abs(sqSrs / reps / srs - 1) < 0.04, `simple random sampling: empirical ${sqSrs / reps} vs ${srs}`);
    assert.ok(bound < srs, 'the Neyman design needs fewer labels for the same variance');
  });

  it('leave-one-out level probabilities equal a model refitted without the candidate', () => {
    const rng = seedrandom.alea('loo');
    const coords = [Float64Array.from({ length: 30 }, () => rng()), Float64Array.from({ length: 30 }, () => rng())];
    const y = Array.from({ length: 30 }, () => Math.floor(rng() * 4));
    const settings = { bandwidth: 0.2, prior: 2 };
    const loo = leaveOneOutLevels(coords, y, 4, settings);
    const row = new Float64Array(4);
    for (const i of [0, 7, 29]) {
      const model = new KernelLevelModel(coords, 4, settings);
      y.forEach((k, j) => j !== i && model.add(j, k));
      model.predict(i, row);
      for (let k = 0; k < 4; k++) assert.ok(Math.abs(loo[i * 4 + k] - row[k]) < 1e-12, `candidate ${i}, level ${k}`);
    }
  });

  it('on a generated pool: a weak evaluator allows about a quarter fewer labels at best, a pair of equal evaluators more, and the planner stays under its bound', () => {
    const items = generatedPool({ candidates: 150, signal: [0.3], copies: { count: 2, noise: 1 }, seed: 'bound' });
    const single = designBound(items, { evaluator: 'metric:gen0.score@test', human: 'experts', halfWidths: [0.15, 0.1] });
    assert.equal(single.pool, 150);
    assert.ok(single.maxSaving.saving > 0.15 && single.maxSaving.saving < 0.3, JSON.stringify(single.maxSaving));
    for (const t of single.targets) assert.ok(t.neyman < t.random && t.saving <= single.maxSaving.saving + 1e-9, JSON.stringify(t));
    assert.ok(single.logScore >= single.marginalLogScore - 0.02, 'the chosen model predicts at least about as well as the level shares');
    const pair = designBound(items, { evaluator: 'metric:copy0.score@test', against: 'metric:copy1.score@test', human: 'experts', halfWidths: [0.15, 0.1] });
    assert.ok(pair.maxSaving.saving > single.maxSaving.saving + 0.1, `pair ${pair.maxSaving.saving} vs single ${single.maxSaving.saving}`);
    const sim = simulatePlans(items, { evaluator: 'metric:gen0.score@test', human: 'experts', halfWidths: [0.15, 0.1], runs: 40, seed: 'bound' });
    for (const t of sim.targets) assert.ok(1 - t.planner / t.random <= single.maxSaving.saving + 0.03, `simulated saving ${1 - t.planner / t.random} vs bound ${single.maxSaving.saving}`);
  });

  it('a plan given fixed level probabilities predicts with them instead of fitting the kernel model (scripts/planning/boundGap.ts)', () => {
    const rng = seedrandom.alea('fixed');
    const totals = new SpearmanTotals([Array.from({ length: 20 }, () => rng())], [0, 1, 2, 3]);
    const fixed = Float64Array.from({ length: 80 }, (_, j) => (j % 4 === (Math.floor(j / 4) % 4) ? 0.7 : 0.1));
    const clocks = Float64Array.from({ length: 20 }, () => -Math.log(1 - rng()));
    const plan = new SequentialPlan(totals, clocks, new Map(), { design: 'planner', batch: 1, defensive: 0.2, model: { bandwidth: 0.1, prior: 2 }, fixedLevels: fixed });
    const [draw] = plan.drawBatch();
    const expected = new Float64Array(totals.dim);
    for (let i = 0; i < 20; i++) totals.addExpected(expected, i, fixed.subarray(i * 4, i * 4 + 4));
    for (let d = 0; d < totals.dim; d++) assert.ok(Math.abs(draw.predictedRemaining[d] - expected[d]) < 1e-9, `component ${d}`);
    assert.throws(() => new SequentialPlan(totals, clocks, new Map(), { design: 'planner', batch: 1, defensive: 0.2, model: { bandwidth: 0.1, prior: 2 }, fixedLevels: new Float64Array(3) }), /fixedLevels must hold 20 × 4 probabilities \(got 3\)/);
  });
});
