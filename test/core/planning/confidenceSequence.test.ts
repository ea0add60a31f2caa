import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import { lambertWm1, normalMixtureBoundary, normalMixtureM, normalUpperQuantile } from '../../../src/core/stats/confidenceSequence';
import { gaussian } from './generatedPool';

describe('stats: normal-mixture confidence sequence', () => {
  it('solves w·e^w = x on the lower branch of Lambert W', () => {
    for (const x of [-1 / Math.E + 1e-9, -0.3, -0.1, -0.01, -0.0025 / Math.E, -1e-8]) {
      const w = lambertWm1(x);
      assert.ok(w <= -1);
      assert.ok(Math.abs(w * Math.exp(w) - x) < 1e-12 * Math.max(1, Math.abs(x)) + 1e-15, `${x}: ${w}`);
    }
    assert.throws(() => lambertWm1(0.1), RangeError);
  });

  it('makes the boundary of a mean tightest at tOpt (Waudby-Smith et al. 2024)', () => {
    const m = normalMixtureM(200, 0.05);
    const width = (t: number, mm: number) => normalMixtureBoundary(t, mm, 0.05) / t;
    for (const f of [0.7, 0.9, 1.1, 1.5]) assert.ok(width(200, m) < width(200, m * f), `m × ${f}`);
    assert.ok(Math.abs(normalUpperQuantile(0.025) - 1.959963984540054) < 1e-12);
  });

  it('keeps a Gaussian random walk inside the boundary at all 1000 times in about 95 % of paths (a fixed-n interval checked every step does not)', () => {
    const rng = seedrandom.alea('cs');
    const m = normalMixtureM(100, 0.05);
    let crossed = 0;
    let naive = 0;
    const paths = 400;
    for (let p = 0; p < paths; p++) {
      let s = 0;
      let c = false;
      let nv = false;
      for (let t = 1; t <= 1000; t++) {
        s += gaussian(rng);
        if (Math.abs(s) > normalMixtureBoundary(t, m, 0.05)) c = true;
        if (t >= 20 && Math.abs(s) > 1.96 * Math.sqrt(t)) nv = true;
      }
      if (c) crossed++;
      if (nv) naive++;
    }
    assert.ok(crossed / paths <= 0.06, `crossed ${crossed}/${paths}`);
    assert.ok(naive / paths >= 0.2, `naive crossed ${naive}/${paths}`);
  });
});
