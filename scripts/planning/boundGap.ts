/**
 * Development measurement on GENERATED pools (never the reported data): where the planner loses against the
 * design-only bound (docs/labelling-plan.md, "What the design alone can buy"). Replays plans as
 * `plan-labels --simulate` does (labels revealed in planned order, the anytime interval checked after every label
 * from the 20th) under variants of the design: the defaults; the working model replaced by the bound's leave-one-out
 * model fitted on the whole pool (what learning the model costs); a 5 % instead of 20 % uniform share; batches of 1;
 * and all three. Random order runs with the same model in each variant.
 * Usage: npx tsx scripts/planning/boundGap.ts [runs per design, default 200]
 */
import seedrandom from 'seedrandom';
import { designBound, leaveOneOutLevels } from '../../src/core/planning/designBound';
import { anticipatedLabels, PLAN_DEFAULTS } from '../../src/core/planning/planner';
import { fullyLabelledPool } from '../../src/core/planning/pool';
import { SequentialPlan } from '../../src/core/planning/sequentialPlan';
import { normalMixtureBoundary, normalMixtureM } from '../../src/core/stats/confidenceSequence';
import { generatedPool } from '../../test/core/planning/generatedPool';

const runs = Number(process.argv[2] ?? 200);
const halfWidths = [0.15, 0.1];
const alpha = 1 - PLAN_DEFAULTS.level;
const items = generatedPool({ candidates: 150, signal: [0.3], copies: { count: 2, noise: 1 }, seed: 'bound-gap' });

for (const pair of [false, true]) {
  const options = pair
    ? { evaluator: 'metric:copy0.score@test', against: 'metric:copy1.score@test', human: 'experts' as const }
    : { evaluator: 'metric:gen0.score@test', human: 'experts' as const };
  const { pool, totals, y } = fullyLabelledPool(items, options, 'the measurement');
  const candidates = pool.candidates;
  const bound = designBound(items, { ...options, halfWidths });
  const oracle = leaveOneOutLevels(totals.unitRanks, y, totals.levelCount, bound.model);
  const N = candidates.length;
  const ms = halfWidths.map((h) => normalMixtureM(anticipatedLabels({ halfWidth: h }, N, PLAN_DEFAULTS.level, PLAN_DEFAULTS.minLabels), alpha));
  const bandwidth = pair ? PLAN_DEFAULTS.bandwidth * 1.5 : PLAN_DEFAULTS.bandwidth;
  console.log(`${pair ? 'pair of equal evaluators' : 'one evaluator (signal 0.3)'}: pool value ${bound.poolValue.toFixed(3)}; bound ${bound.targets.map((t) => `h = ${t.halfWidth}: ${(100 * t.saving).toFixed(1)} %`).join(', ')}`);

  const labelsAtStop = (design: 'planner' | 'uniform', r: number, batch: number, defensive: number, fixed: boolean): number[] => {
    const rng = seedrandom.alea(`bound-gap\u0000${design}\u0000${r}`);
    const clocks = Float64Array.from(candidates, () => -Math.log(1 - rng()));
    const plan = new SequentialPlan(totals, clocks, new Map(), { design, batch, defensive, model: { bandwidth, prior: PLAN_DEFAULTS.prior }, ...(fixed ? { fixedLevels: oracle } : {}) });
    const out = halfWidths.map(() => -1);
    while (out.some((l) => l < 0)) {
      for (const d of plan.drawBatch()) {
        plan.reveal(y[d.unit]);
        const est = plan.estimate(alpha, ms[0]);
        if (est.exact) {
          out.forEach((l, j) => l < 0 && (out[j] = plan.revealed));
          break;
        }
        if (plan.revealed < PLAN_DEFAULTS.minLabels || est.value === null) continue;
        halfWidths.forEach((h, j) => {
          if (out[j] < 0 && normalMixtureBoundary(est.intrinsicTime, ms[j], alpha) / est.weightSum <= h) out[j] = plan.revealed;
        });
      }
    }
    return out;
  };

  const variants = [
    { name: 'defaults (learned model, 20 % uniform, batch 5)', batch: PLAN_DEFAULTS.batch, defensive: PLAN_DEFAULTS.defensive, fixed: false },
    { name: 'the leave-one-out model given', batch: PLAN_DEFAULTS.batch, defensive: PLAN_DEFAULTS.defensive, fixed: true },
    { name: '5 % uniform share', batch: PLAN_DEFAULTS.batch, defensive: 0.05, fixed: false },
    { name: 'batches of 1', batch: 1, defensive: PLAN_DEFAULTS.defensive, fixed: false },
    { name: 'all three', batch: 1, defensive: 0.05, fixed: true },
  ];
  for (const v of variants) {
    const planner = halfWidths.map(() => 0);
    const random = halfWidths.map(() => 0);
    for (let r = 0; r < runs; r++) {
      labelsAtStop('planner', r, v.batch, v.defensive, v.fixed).forEach((l, j) => (planner[j] += l / runs));
      labelsAtStop('uniform', r, v.batch, v.defensive, v.fixed).forEach((l, j) => (random[j] += l / runs));
    }
    console.log(`  ${v.name.padEnd(48)} ${halfWidths.map((h, j) => `h = ${h}: ${planner[j].toFixed(1)} vs ${random[j].toFixed(1)} (${(100 * (1 - planner[j] / random[j])).toFixed(1)} % fewer)`).join('   ')}`);
  }
}
