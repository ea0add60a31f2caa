/**
 * Development measurement on GENERATED pools (never the reported data): where the planner loses against the
 * design-only bound (docs/labelling-plan.md, "What the design alone can buy"). Replays plans with `simulatePlans`
 * (as `plan-labels --simulate`: labels revealed in planned order, the anytime interval checked after every label
 * from the 20th) under variants of the design: the earlier defaults (the fixed kernel model, 20 % uniform share); the
 * defaults (the working model chosen from the labels, 5 % uniform share, batches of 5); the working model replaced by
 * the bound's leave-one-out model fitted on the whole pool (what learning the model costs); a 20 % uniform share;
 * batches of 1; and the bound's model with batches of 1. Random order runs with the same model in each variant.
 * Usage: npx tsx scripts/planning/boundGap.ts [runs per design, default 200]
 */
import { designBound, leaveOneOutLevels } from '../../src/core/planning/designBound';
import { PLAN_DEFAULTS } from '../../src/core/planning/planner';
import { fullyLabelledPool } from '../../src/core/planning/pool';
import { simulatePlans } from '../../src/core/planning/simulate';
import { generatedPool } from '../../test/core/planning/generatedPool';

const runs = Number(process.argv[2] ?? 200);
const halfWidths = [0.15, 0.1];
const items = generatedPool({ candidates: 150, signal: [0.3], copies: { count: 2, noise: 1 }, seed: 'bound-gap' });

for (const pair of [false, true]) {
  const options = pair
    ? { evaluator: 'metric:copy0.score@test', against: 'metric:copy1.score@test', human: 'experts' as const }
    : { evaluator: 'metric:gen0.score@test', human: 'experts' as const };
  const { totals, y } = fullyLabelledPool(items, options, 'the measurement');
  const bound = designBound(items, { ...options, halfWidths });
  const oracle = leaveOneOutLevels(totals.unitRanks, y, totals.levelCount, bound.model);
  console.log(`${pair ? 'pair of equal evaluators' : 'one evaluator (signal 0.3)'}: pool value ${bound.poolValue.toFixed(3)}; bound ${bound.targets.map((t) => `h = ${t.halfWidth}: ${(100 * t.saving).toFixed(1)} %`).join(', ')}`);
  const variants = [
    { name: 'earlier defaults (fixed kernel, 20 % uniform)', batch: PLAN_DEFAULTS.batch, defensive: 0.2, modelSelection: null, fixed: false },
    { name: 'defaults (model chosen, 5 % uniform, batch 5)', batch: PLAN_DEFAULTS.batch, defensive: PLAN_DEFAULTS.defensive, fixed: false },
    { name: 'the leave-one-out model given', batch: PLAN_DEFAULTS.batch, defensive: PLAN_DEFAULTS.defensive, fixed: true },
    { name: '20 % uniform share', batch: PLAN_DEFAULTS.batch, defensive: 0.2, fixed: false },
    { name: 'batches of 1', batch: 1, defensive: PLAN_DEFAULTS.defensive, fixed: false },
    { name: 'the model given and batches of 1', batch: 1, defensive: PLAN_DEFAULTS.defensive, fixed: true },
  ];
  for (const v of variants) {
    const r = simulatePlans(items, { ...options, halfWidths, runs, seed: 'bound-gap', batch: v.batch, defensive: v.defensive, ...('modelSelection' in v ? { modelSelection: v.modelSelection } : {}), ...(v.fixed ? { fixedLevels: oracle } : {}) });
    console.log(`  ${v.name.padEnd(50)} ${r.targets.map((t) => `h = ${t.halfWidth}: ${t.planner.toFixed(1)} vs ${t.random.toFixed(1)} (${(100 * (1 - t.planner / t.random)).toFixed(1)} % fewer)`).join('   ')}; coverage ${r.coverage.toFixed(3)}`);
  }
}
