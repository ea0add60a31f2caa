/**
 * A small, fast version of the coverage study (`npm run coverage`, docs/meta-evaluation.md#coverage): on studies
 * generated with a known truth in the seeds' shape (15 contexts × 10 candidates, 3 of 9 annotators), the default
 * intervals must cover the truth in at least 90 % of 300 studies at nominal 95 %, and the default tests must reject
 * a true null at most 10 % of the time at 5 %. A method that is badly off (the percentile intervals cover 89–93 %
 * here, scipy's p of a cell rejects 8–10 %) sits near these lines; one that is broken falls far below them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_INTERVAL } from '../../../src/core/stats/bootstrap';
import { generateStudy } from '../../../scripts/coverage/generate';
import { altTestMeasures, binaryMeasures, plannerMeasures, testMeasures, type BinaryTruth } from '../../../scripts/coverage/methods';
import { scenarios } from '../../../scripts/coverage/scenarios';
import { addOutcomes, type Tallies } from '../../../scripts/coverage/study';

const truths = JSON.parse(readFileSync(join(__dirname, '..', '..', '..', 'scripts', 'coverage', 'truth.json'), 'utf8'));
const cell = (id: string) => {
  const s = scenarios().find((x) => x.id === id);
  assert.ok(s, id);
  const cached = truths[id];
  assert.equal(cached?.design, JSON.stringify(s.design) + (s.epsilon ?? ''), `scripts/coverage/truth.json is stale for ${id}: run npm run coverage -- --only ${id}`);
  return { s, truth: cached.truth };
};
const rate = (t: Tallies, k: string) => {
  assert.ok(t[k]?.defined, `no result for ${k}`);
  return t[k].hits / t[k].defined;
};

describe('coverage of the default intervals and tests (300 generated studies)', function () {
  this.timeout(300_000);
  const settings = { resamples: 1000, level: 0.95, alpha: 0.05 };

  it(`15 contexts, 50 % coherent: ${DEFAULT_INTERVAL} intervals of rho, of a difference of rhos, kappa, alpha and AC1 cover ≥ 90 %`, () => {
    const { s, truth } = cell('binary-15-50');
    const t: Tallies = {};
    for (let r = 0; r < 300; r++) {
      const seed = `ci/${s.id}/${r}`;
      addOutcomes(t, binaryMeasures(generateStudy(s.design, seed), truth.binary as BinaryTruth, { ...settings, seed, intervals: [DEFAULT_INTERVAL] }, { methods: ['spearman'] }));
    }
    for (const k of ['rho', 'diff', 'fleiss', 'alpha', 'ac1']) {
      const c = rate(t, `${k}/${DEFAULT_INTERVAL}`);
      assert.ok(c >= 0.9, `${k}: ${(c * 100).toFixed(1)} % of 300 intervals cover the truth`);
    }
  });

  it('the cells\' cluster-jackknife p and the comparison\'s reject a true null ≤ 10 % (15 contexts)', () => {
    const { s } = cell('tests-15-50');
    const t: Tallies = {};
    for (let r = 0; r < 300; r++) {
      const seed = `ci/${s.id}/${r}`;
      addOutcomes(t, testMeasures(generateStudy(s.design, seed), generateStudy({ ...s.design, evaluator: { signal: 0, contextSd: 0.6, noiseSd: 1, shape: 'continuous' } }, `${seed}/null`), { ...settings, seed }));
    }
    for (const k of ['rho-jackknife', 'diff-jackknife']) assert.ok(rate(t, k) <= 0.1, `${k}: ${(rate(t, k) * 100).toFixed(1)} %`);
  });

  it('the planner\'s anytime interval covers the pool value at its stops in ≥ 90 % of 100 runs', () => {
    const { s } = cell('planner-single-15');
    const t: Tallies = {};
    for (let r = 0; r < 100; r++) addOutcomes(t, plannerMeasures(generateStudy(s.design, `ci/${s.id}/${r}`), { ...settings, resamples: 0, seed: `ci/${s.id}/${r}` }, false));
    for (const k of ['planner-stop-0.15', 'planner-stop-0.10']) assert.ok(rate(t, k) >= 0.9, `${k}: ${(rate(t, k) * 100).toFixed(1)} %`);
  });

  it('the alt-test\'s per-annotator tests reject a true null (an evaluator exactly ε behind) ≤ 10 %', () => {
    const { s, truth } = cell('alt-test-15-80');
    const t: Tallies = {};
    for (let r = 0; r < 300; r++) {
      const study = generateStudy({ ...s.design, evaluator: { ...s.design.evaluator, noiseSd: truth.altNoise } }, `ci/${s.id}/${r}`);
      addOutcomes(t, altTestMeasures(study, Int8Array.from(study.a), { ...settings, seed: `ci/${s.id}/${r}`, epsilon: 0.2 }));
    }
    assert.ok(rate(t, 'alt-annotator') <= 0.1, `per-annotator: ${(rate(t, 'alt-annotator') * 100).toFixed(1)} %`);
    assert.ok(rate(t, 'alt-any-win') <= 0.1, `BY, any win: ${(rate(t, 'alt-any-win') * 100).toFixed(1)} %`);
  });
});
