import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import { meanOfRepeats, repeatability, twoStageCorrelation } from '../../../src/core/metaEvaluation/repeatability';

/** Standard normal draws (Box–Muller) from a seeded generator. */
function normal(rng: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

/** Φ, the standard normal CDF (Abramowitz & Stegun 26.2.17, |error| < 7.5e-8). */
function phi(z: number): number {
  const t = 1 / (1 + 0.2316419 * Math.abs(z));
  const d = 0.3989422804014327 * Math.exp((-z * z) / 2);
  const p = d * t * (0.31938153 + t * (-0.356563782 + t * (1.781477937 + t * (-1.821255978 + t * 1.330274429))));
  return z > 0 ? 1 - p : p;
}

describe('judge repeatability on simulated replies of known spread', () => {
  // A judge whose reply to candidate i is μ_i + e, μ_i ~ N(0, σ_b²), e ~ N(0, σ_w²) independent per repeat:
  // interval alpha across repeats estimates σ_b² / (σ_b² + σ_w²); at threshold τ the flip rate is
  // mean_i 2 p_i (1 − p_i), p_i = Φ((μ_i − τ)/σ_w).
  const sb = 1;
  const sw = 0.6;
  const tau = 0.3;
  const N = 400;
  const K = 5;
  const rng = seedrandom('repeatability-simulation');
  const mu = Array.from({ length: N }, () => sb * normal(rng));
  const replies = mu.map((m) => Array.from({ length: K }, () => m + sw * normal(rng)));
  const expectedAlpha = (sb * sb) / (sb * sb + sw * sw);
  const expectedFlip = mu.reduce((s, m) => {
    const p = phi((m - tau) / sw);
    return s + 2 * p * (1 - p);
  }, 0) / N;
  const r = repeatability(replies, { threshold: tau, bootstrap: { resamples: 400, seed: 3 } });

  it(`alpha across repeats covers σ_b²/(σ_b²+σ_w²) = ${expectedAlpha.toFixed(3)} within its 95% interval`, () => {
    assert.ok(r.alpha.alpha !== null && r.ci);
    assert.ok(r.ci.alpha.lower! <= expectedAlpha && expectedAlpha <= r.ci.alpha.upper!, `${r.ci.alpha.lower}–${r.ci.alpha.upper} vs ${expectedAlpha}`);
  });

  it('the flip rate covers mean 2p(1 − p) within its interval, and the SD matches σ_w', () => {
    assert.ok(r.flipRate !== null && r.ci?.flipRate);
    assert.ok(r.ci.flipRate.lower! <= expectedFlip && expectedFlip <= r.ci.flipRate.upper!, `${r.ci.flipRate.lower}–${r.ci.flipRate.upper} vs ${expectedFlip}`);
    // E[sample SD] = c4(K)·σ_w with c4(5) = 0.9400
    assert.ok(r.ci.meanSd.lower! <= 0.94 * sw && 0.94 * sw <= r.ci.meanSd.upper!, `${r.ci.meanSd.lower}–${r.ci.meanSd.upper}`);
    assert.equal(r.changedShare, 1, 'continuous replies always change');
  });

  it('a judge that repeats itself has alpha 1, flip rate 0 and no change', () => {
    const same = repeatability(mu.map((m) => [Math.round(m), Math.round(m), Math.round(m)]), { threshold: 0.5 });
    assert.equal(same.alpha.alpha, 1);
    assert.equal(same.flipRate, 0);
    assert.equal(same.changedShare, 0);
    assert.equal(same.verdictChangedShare, 0);
  });

  it('counts changes, flips and spread per candidate, with missing replies and per-candidate thresholds', () => {
    const x = repeatability(
      [
        [1, 1, 5, null],
        [2, 2, 2, 2],
        [4, null, null, null],
        [3, 4, 3, 4],
      ],
      { threshold: [3, 3, 3, 4] },
    );
    assert.equal(x.repeats, 4);
    assert.deepEqual(x.spread.map((s) => [s.replies, s.distinct, s.aboveThreshold]), [[3, 2, 1], [4, 1, 0], [1, 1, 1], [4, 2, 2]]);
    assert.equal(x.changedShare, 2 / 3); // the single-reply candidate does not count
    // flips: 2·1·2/(3·2) = 2/3, 0, (2·2·2)/(4·3) = 2/3  → mean 4/9
    assert.ok(Math.abs((x.flipRate as number) - 4 / 9) < 1e-12);
    assert.deepEqual(meanOfRepeats([[1, 3, null], [null]]), [2, null]);
  });

  it('the two-stage interval is at least as wide as the item-only one and is reproducible', () => {
    const human = mu.map((m) => (m > 0.5 ? 3 : m > 0 ? 2 : m > -0.5 ? 1 : 0));
    const a = twoStageCorrelation(replies, human, { resamples: 300, seed: 9 });
    const b = twoStageCorrelation(replies, human, { resamples: 300, seed: 9 });
    assert.deepEqual(a, b);
    assert.ok(a.statistic !== null && a.statistic > 0.6, String(a.statistic));
    const width = (i: { lower: number | null; upper: number | null }) => (i.upper as number) - (i.lower as number);
    assert.ok(width(a.ci) >= width(a.itemOnlyCi) * 0.95, `${width(a.ci)} vs ${width(a.itemOnlyCi)}`);
    assert.ok(a.ci.lower! <= a.statistic! && a.statistic! <= a.ci.upper!);
    // Drawing replies again attenuates the replicates: the uncentred interval sits below the estimate.
    assert.ok(a.uncentredCi.upper! < a.statistic!, `${a.uncentredCi.upper} vs ${a.statistic}`);
  });
});
