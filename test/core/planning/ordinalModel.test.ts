/**
 * The adjacent-category logit working model (docs/labelling-plan.md, §2): its fit, its behaviour with few labels,
 * and its one-step leave-one-out score against exact refits.
 */
import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import { normalScores, OrdinalLevelModel } from '../../../src/core/design/ordinalModel';
import { monotonePool } from './generatedPool';

describe('labelling plan: the adjacent-category logit model', function () {
  this.timeout(120_000);

  it('the adjacent-category logit model recovers its parameters from many labels, and predicts probabilities that sum to 1', () => {
    // Labels drawn from the model itself: α = (0.5, 0.8, 0.2), β = (1.2, −0.6) on the normal scores.
    const rng = seedrandom.alea('ordinal-fit');
    const n = 4000;
    const coords = [Float64Array.from({ length: n }, (_, i) => (i + 0.5) / n), Float64Array.from({ length: n }, () => rng())];
    for (let i = n - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [coords[0][i], coords[0][j]] = [coords[0][j], coords[0][i]];
    }
    const z = coords.map((c) => normalScores(c));
    const alpha = [0, 0.5, 0.8, 0.2];
    const beta = [1.2, -0.6];
    const model = new OrdinalLevelModel(coords, 4, { ridge: 1, prior: 2 });
    for (let i = 0; i < n; i++) {
      const s = beta[0] * z[0][i] + beta[1] * z[1][i];
      const w = alpha.map((a, k) => Math.exp(a + k * s));
      const total = w.reduce((a, b) => a + b, 0);
      let u = rng() * total;
      let k = 0;
      while (k < 3 && u > w[k]) u -= w[k++];
      model.add(i, k);
    }
    const theta = model.parameters;
    [0.5, 0.8, 0.2, 1.2, -0.6].forEach((v, j) => assert.ok(Math.abs(theta[j] - v) < 0.15, `parameter ${j}: ${theta[j]} vs ${v}`));
    const out = new Float64Array(4);
    model.predict(17, out);
    assert.ok(Math.abs(out.reduce((a, b) => a + b, 0) - 1) < 1e-12);
  });

  it('the logit model stays finite with few labels and with a level no label has, and fits the same whatever the order of calls', () => {
    const { coords, y } = monotonePool(30, 'ordinal-few');
    const a = new OrdinalLevelModel(coords, 4, { ridge: 1, prior: 2 });
    const b = new OrdinalLevelModel(coords, 4, { ridge: 1, prior: 2 });
    const out = new Float64Array(4);
    // Three labels, all at level 3: level 0 has none.
    for (const i of [0, 1, 2]) {
      a.add(i, 3);
      a.predict(5, out); // a fit after every label
      b.add(i, 3);
    }
    for (const v of a.parameters) assert.ok(Number.isFinite(v));
    assert.deepEqual(Array.from(a.parameters), Array.from(b.parameters));
    a.predict(9, out);
    assert.ok(out[0] > 0 && out[3] > out[0]);
    for (let i = 3; i < 30; i++) {
      a.add(i, y[i]);
      b.add(i, y[i]);
      if (i % 7 === 0) a.predict(0, out);
    }
    assert.deepEqual(Array.from(a.parameters), Array.from(b.parameters));
  });

  it("the logit model's one-step leave-one-out score is close to exact refits", () => {
    const { coords, y } = monotonePool(60, 'ordinal-loo');
    const settings = { ridge: 1, prior: 2 };
    const model = new OrdinalLevelModel(coords, 4, settings);
    y.forEach((k, i) => model.add(i, k));
    const row = new Float64Array(4);
    let exact = 0;
    for (let i = 0; i < y.length; i++) {
      const other = new OrdinalLevelModel(coords, 4, settings);
      y.forEach((k, j) => j !== i && other.add(j, k));
      exact += Math.log(other.predict(i, row)[y[i]]);
    }
    exact /= y.length;
    const approx = model.leaveOneOutLogScore();
    assert.ok(Math.abs(approx - exact) < 0.01, `one-step ${approx} vs exact ${exact}`);
    // It is a leave-one-out score: worse than the in-sample fit.
    let inSample = 0;
    for (let i = 0; i < y.length; i++) inSample += Math.log(model.predict(i, row)[y[i]]);
    assert.ok(approx < inSample / y.length);
  });
});
