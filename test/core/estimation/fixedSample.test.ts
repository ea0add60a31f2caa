/**
 * Fixed-sample PPI++ per group: the same numbers as the parity-checked estimator on the group's arrays; coverage of
 * the pool's rate over uniform random samples of expert labels on a generated pool, with intervals narrower on
 * average than expert-only; the cross-fitted calibration never predicts a labelled candidate from its own label.
 */
import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { crossFittedCalibration } from '../../../src/core/estimation/calibration';
import { fixedSampleEstimates } from '../../../src/core/estimation/fixedSample';
import { estimationPool } from '../../../src/core/estimation/pool';
import { predictionPoweredMean } from '../../../src/core/estimation/predictionPowered';
import { addScores, gemGridPool } from '../../../scripts/estimation/generatedPools';

function subsample(items: readonly DialogueItem[], share: number, seed: string): DialogueItem[] {
  const rng = seedrandom.alea(seed);
  return items.map((it) => ({ ...it, candidates: it.candidates.map((c) => (rng() < share ? c : { ...c, annotations: c.annotations.filter((a) => a.group !== 'expert') })) }));
}

describe('fixed-sample estimates', function () {
  this.timeout(120_000);
  const full = addScores(gemGridPool(8, 'fixed'), 'fixed-scores');
  const spec = { estimand: { kind: 'coherence-rate', aggregate: 'majority' } as const, predictors: ['human:laypeople'], by: 'model', labelsPerCandidate: 3 };

  it('per group, is predictionPoweredMean on the group\'s labelled outcomes, lay predictions and unlabelled predictions', () => {
    const items = subsample(full, 0.3, 'one');
    const r = fixedSampleEstimates(items, spec);
    const pool = estimationPool(items, spec);
    const gpt = r.groups.find((g) => g.key === 'GPT-2');
    const units = pool.units.filter((u) => u.groups.includes('GPT-2'));
    const L = units.filter((u) => u.outcome !== null);
    const U = units.filter((u) => u.outcome === null);
    const direct = predictionPoweredMean(L.map((u) => (u.outcome as number[])[0]), L.map((u) => (u.predictors[0] as number[])[0]), U.map((u) => (u.predictors[0] as number[])[0]));
    assert.equal(gpt?.estimator?.estimate, direct.estimate);
    assert.equal(gpt?.estimator?.lambda, direct.lambda);
    assert.equal(gpt?.labelled, L.length);
  });

  it('covers each group\'s pool rate in at least 93 % of 300 uniform 30 % samples, narrower than expert-only on average', () => {
    const all = fixedSampleEstimates(full, { ...spec, minLabelled: 2 });
    const truth = new Map(all.groups.map((g) => [g.key, g.classical?.estimate as number]));
    let covered = 0;
    let n = 0;
    let ppiWidth = 0;
    let classicalWidth = 0;
    for (let r = 0; r < 300; r++) {
      const out = fixedSampleEstimates(subsample(full, 0.3, `cov-${r}`), spec);
      for (const g of out.groups) {
        if (!g.estimator || !g.classical || g.key === '(none)') continue;
        n++;
        if (g.estimator.lower <= (truth.get(g.key) as number) && (truth.get(g.key) as number) <= g.estimator.upper) covered++;
        ppiWidth += g.estimator.upper - g.estimator.lower;
        classicalWidth += g.classical.upper - g.classical.lower;
      }
    }
    assert.ok(n >= 500, `${n} group intervals`);
    assert.ok(covered / n >= 0.93, `coverage ${covered / n}`);
    assert.ok(ppiWidth < classicalWidth * 0.95, `mean width ${ppiWidth / n} vs expert-only ${classicalWidth / n}`);
  });

  it('cross-fitting: a labelled candidate\'s prediction does not move with its own label; an exact linear relation is recovered; unlabelled ones get the mean of the fold maps', () => {
    const x = Array.from({ length: 60 }, (_, i) => [[i / 60]] as (number[] | null)[]);
    const y = x.map((v, i) => (i % 3 === 0 ? null : [2 * (v[0] as number[])[0] + 1]));
    const a = crossFittedCalibration(x, ['s'], y, { folds: 5, seed: 's' });
    a.predictions.forEach((p, i) => assert.ok(Math.abs(p[0] - (2 * (i / 60) + 1)) < 1e-6, `${i}: ${p[0]}`));
    const moved = y.map((v, i) => (i === 1 ? [100] : v));
    const b = crossFittedCalibration(x, ['s'], moved, { folds: 5, seed: 's' });
    assert.equal(b.predictions[1][0], a.predictions[1][0], 'its own label is in no map that predicts it');
    assert.notEqual(b.predictions[0][0], a.predictions[0][0], 'an unlabelled candidate sees every fold');
    const missing = x.map((v, i) => (i === 5 ? [null] : v)) as (number[] | null)[][];
    const c = crossFittedCalibration(missing, ['s'], y, { folds: 5 });
    assert.deepEqual(c.columns, ['intercept', 's', 's missing']);
  });

  it('calibrates an evaluator (and several predictors at once) and refuses --calibration none for it', () => {
    const items = subsample(full, 0.3, 'cal');
    const r = fixedSampleEstimates(items, { ...spec, predictors: ['judge:informed', 'human:laypeople'] });
    assert.equal(r.calibration.kind, 'linear');
    assert.deepEqual(r.calibration.columns, ['intercept', 'judge:informed', 'human:laypeople[0]', 'human:laypeople[1]']);
    assert.ok(r.groups.some((g) => g.estimator));
    assert.throws(() => fixedSampleEstimates(items, { ...spec, predictors: ['judge:informed'], calibration: 'none' }), /--calibration none needs exactly one human/);
    assert.throws(() => fixedSampleEstimates(items, { ...spec, predictors: [] }), /needs a predictor/);
  });
});
