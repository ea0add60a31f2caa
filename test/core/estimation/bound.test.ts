/**
 * The oracle bound: along the expected path, equal σ needs the same labels under either design; a predictor that is
 * noise gives the expert-only numbers; the fixed-n numbers reproduce the arithmetic on EvalReflections (about
 * 59 expert labels for ± 0.10 expert-only, about 45 with the laypeople's labels); and the simulated estimator stays
 * above its bound.
 */
import assert from 'node:assert/strict';
import { estimateBound, expectedAnytimeLabels } from '../../../src/core/estimation/bound';
import { simulateEstimates } from '../../../src/core/estimation/simulate';
import { normalMixtureM } from '../../../src/core/stats/confidenceSequence';
import { addScores, evalReflections, gemGridPool } from '../../../scripts/estimation/generatedPools';

describe('estimate bound', function () {
  this.timeout(300_000);

  it('the expected path: equal σ gives the same labels for both designs; a spread of σ lets the Neyman design need fewer', () => {
    const m = normalMixtureM(60, 0.05);
    const flat = new Float64Array(200).fill(0.5 / 200);
    assert.equal(expectedAnytimeLabels(flat, 'neyman', 0.1, m, 0.05, 20), expectedAnytimeLabels(flat, 'uniform', 0.1, m, 0.05, 20));
    const spread = Float64Array.from({ length: 200 }, (_, i) => (i < 100 ? 0.05 : 0.5) / 200);
    assert.ok(expectedAnytimeLabels(spread, 'neyman', 0.05, m, 0.05, 20) < expectedAnytimeLabels(spread, 'uniform', 0.05, m, 0.05, 20));
    assert.equal(expectedAnytimeLabels(new Float64Array(50), 'uniform', 0.1, m, 0.05, 20), 1, 'nothing uncertain: one label makes it exact');
  });

  it('on EvalReflections: the fixed-n arithmetic of the issue, a noise predictor gives expert-only, and the oracle needs fewer anytime labels', () => {
    const items = addScores(evalReflections(), 'bound-scores');
    const lay = estimateBound(items, { estimand: { kind: 'coherence-rate', aggregate: 'majority' }, predictors: ['human:laypeople'], halfWidths: [0.1] });
    const t = lay.targets[0];
    assert.ok(t.fixedClassical > 55 && t.fixedClassical < 62, `expert-only fixed-n ${t.fixedClassical}`);
    assert.ok(t.fixedRandom > 40 && t.fixedRandom < 50, `with laypeople ${t.fixedRandom}`);
    assert.ok(t.estimator < t.classical);
    const noise = estimateBound(items, { estimand: { kind: 'coherence-rate', aggregate: 'majority' }, predictors: ['metric:noise'], halfWidths: [0.1] });
    assert.ok(Math.abs(noise.targets[0].estimator - noise.targets[0].classical) <= 2, JSON.stringify(noise.targets[0]));
  });

  it('the simulated estimator needs at least about as many labels as its bound', () => {
    const items = gemGridPool(3, 'bound-sim');
    const spec = { estimand: { kind: 'coherence-rate', aggregate: 'mean' } as const, predictors: ['human:laypeople'], halfWidths: [0.1], labelsPerCandidate: 3 };
    const b = estimateBound(items, spec);
    const s = simulateEstimates(items, { ...spec, runs: 30, estimators: ['estimator'] });
    assert.ok((s.targets[0].estimator?.labels as number) >= 0.95 * b.targets[0].estimator, `${s.targets[0].estimator?.labels} vs bound ${b.targets[0].estimator}`);
  });
});
