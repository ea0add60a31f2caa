/**
 * Parity of the fixed-sample prediction-powered estimators with ppi_py 0.2.3 (scripts/parity/ppi_reference.py writes
 * fixtures/ppi-reference.json): point estimates, λ and interval ends to 1e-9 for the mean (tuned and fixed λ), the
 * unpaired difference of two groups' means (ppi_py's OLS with a group indicator, coord=1), a three-coefficient OLS,
 * and the classical intervals beside them — on the committed EvalReflections GPT-2 stage (experts' labels predicted
 * by the laypeople's) and on generated data.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  classicalMean,
  classicalMeanDifference,
  powerTunedLambda,
  predictionPoweredMean,
  predictionPoweredMeanDifference,
  predictionPoweredOls,
  predictionPoweredOlsPointEstimate,
} from '../../../src/core/estimation/predictionPowered';

interface Interval {
  estimate?: number;
  pointEstimate?: number;
  lower: number;
  upper: number;
}
type Group = { y: number[]; yhat: number[]; yhatUnlabelled: number[] };
type Case =
  | ({ kind: 'mean'; name: string; lambda: number; pointEstimate: number; classical: Interval; fixed: (Interval & { lambda: number })[] } & Group & Interval)
  | ({ kind: 'difference'; name: string; first: Group; second: Group; pointLambda: number; pointEstimate: number; lambda: number; estimate: number; classical: Interval } & Interval)
  | { kind: 'ols'; name: string; x: number[][]; y: number[]; yhat: number[]; xUnlabelled: number[][]; yhatUnlabelled: number[]; pointLambda: number; pointEstimate: number[]; lambda: number; estimate: number[]; lower: number[]; upper: number[] };

const fixture = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'ppi-reference.json'), 'utf8')) as { alpha: number; cases: Case[] };
const close = (actual: number, expected: number, what: string) => assert.ok(Math.abs(actual - expected) <= 1e-9, `${what}: ${actual} vs ppi_py ${expected} (diff ${actual - expected})`);

describe('prediction-powered estimators: parity with ppi_py 0.2.3', () => {
  const alpha = fixture.alpha;
  it('covers the mean, the difference and OLS, on real and generated data', () => {
    const kinds = new Set(fixture.cases.map((c) => c.kind));
    assert.deepEqual([...kinds].sort(), ['difference', 'mean', 'ols']);
    assert.ok(fixture.cases.some((c) => c.name.startsWith('evalreflections') && c.kind === 'mean'));
    assert.ok(fixture.cases.some((c) => c.name.startsWith('evalreflections') && c.kind === 'difference'));
    // λ clips at both ends somewhere, so the clipping is tested too.
    assert.ok(fixture.cases.some((c) => c.kind === 'mean' && c.lambda === 0));
    assert.ok(fixture.cases.some((c) => c.kind === 'mean' && c.lambda === 1));
  });

  for (const c of fixture.cases) {
    it(`${c.kind}: ${c.name}`, () => {
      if (c.kind === 'mean') {
        close(powerTunedLambda(c.y, c.yhat, c.yhatUnlabelled), c.lambda, 'lambda');
        const r = predictionPoweredMean(c.y, c.yhat, c.yhatUnlabelled, { alpha });
        close(r.lambda, c.lambda, 'lambda of the interval');
        close(r.estimate, c.pointEstimate, 'point estimate');
        close(r.lower, c.lower, 'lower');
        close(r.upper, c.upper, 'upper');
        for (const f of c.fixed) {
          const g = predictionPoweredMean(c.y, c.yhat, c.yhatUnlabelled, { alpha, lambda: f.lambda });
          close(g.estimate, f.pointEstimate as number, `point estimate at lambda ${f.lambda}`);
          close(g.lower, f.lower, `lower at lambda ${f.lambda}`);
          close(g.upper, f.upper, `upper at lambda ${f.lambda}`);
        }
        const k = classicalMean(c.y, { alpha });
        close(k.estimate, c.classical.estimate as number, 'classical estimate');
        close(k.lower, c.classical.lower, 'classical lower');
        close(k.upper, c.classical.upper, 'classical upper');
      } else if (c.kind === 'difference') {
        const r = predictionPoweredMeanDifference(c.first, c.second, { alpha });
        close(r.lambda, c.lambda, 'lambda of the interval');
        close(r.estimate, c.estimate, 'centre of the interval');
        close(r.lower, c.lower, 'lower');
        close(r.upper, c.upper, 'upper');
        const x = [...c.first.y.map(() => [1, 1]), ...c.second.y.map(() => [1, 0])];
        const xu = [...c.first.yhatUnlabelled.map(() => [1, 1]), ...c.second.yhatUnlabelled.map(() => [1, 0])];
        const p = predictionPoweredOlsPointEstimate(x, [...c.first.y, ...c.second.y], [...c.first.yhat, ...c.second.yhat], xu, [...c.first.yhatUnlabelled, ...c.second.yhatUnlabelled], { coordinate: 1 });
        close(p.lambda, c.pointLambda, 'lambda of the point estimate');
        close(p.estimate[1], c.pointEstimate, 'point estimate');
        const k = classicalMeanDifference(c.first.y, c.second.y, { alpha });
        close(k.estimate, c.classical.estimate as number, 'classical estimate');
        close(k.lower, c.classical.lower, 'classical lower');
        close(k.upper, c.classical.upper, 'classical upper');
      } else {
        const r = predictionPoweredOls(c.x, c.y, c.yhat, c.xUnlabelled, c.yhatUnlabelled, { alpha });
        close(r.lambda, c.lambda, 'lambda of the interval');
        c.estimate.forEach((v, j) => close(r.estimate[j], v, `coefficient ${j}`));
        c.lower.forEach((v, j) => close(r.lower[j], v, `lower ${j}`));
        c.upper.forEach((v, j) => close(r.upper[j], v, `upper ${j}`));
        const p = predictionPoweredOlsPointEstimate(c.x, c.y, c.yhat, c.xUnlabelled, c.yhatUnlabelled);
        close(p.lambda, c.pointLambda, 'lambda of the point estimate');
        c.pointEstimate.forEach((v, j) => close(p.estimate[j], v, `point estimate ${j}`));
      }
    });
  }

  it('refuses what it cannot estimate, naming the problem', () => {
    assert.throws(() => predictionPoweredMean([1], [1], [0, 1]), /at least 2 labelled/);
    assert.throws(() => predictionPoweredMean([1, 0], [1], [0, 1]), /differ in length/);
    assert.throws(() => predictionPoweredMean([1, NaN], [1, 0], [0, 1]), /y\[1\] must be a finite number/);
    assert.throws(() => predictionPoweredMean([1, 0], [1, 0], [0, 1], { alpha: 1 }), /alpha/);
    assert.throws(() => predictionPoweredMeanDifference({ y: [], yhat: [], yhatUnlabelled: [1] }, { y: [1], yhat: [1], yhatUnlabelled: [1] }), /first group needs/);
  });
});
