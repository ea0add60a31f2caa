/**
 * How the estimate planner's defaults were chosen, on generated pools only (docs/estimation.md, "How the defaults were
 * chosen"): the GEM-grid generator of generatedPools.ts (latent quality, lay labels noisier than expert ones), never
 * EvalReflections. Prints mean expert labels at the stop for the planner design, random order (same predictors and
 * estimator) and expert-only, per variant.
 *
 *   npx tsx scripts/estimation/devDefaults.ts share [runs]   # GEM grid, 40 contexts (2,120 candidates), ± 0.05: uniform share, a near-flat kernel
 *   npx tsx scripts/estimation/devDefaults.ts rule [runs]    # GEM grid, 3 contexts (159 candidates), ± 0.10: the level shares with the one-SE rule
 */
import { addScores, gemGridPool } from './generatedPools';
import { simulateEstimates } from '../../src/core/estimation/simulate';
import type { ModelSelection } from '../../src/core/design/planSettings';
import { PLAN_DEFAULTS } from '../../src/core/design/planSettings';

const suite = process.argv[2] ?? 'share';
const planner = PLAN_DEFAULTS.modelSelection as ModelSelection;
const withFlat: ModelSelection = { ...planner, bandwidths: [...planner.bandwidths, 1000] };
const setups = {
  share: {
    items: () => addScores(gemGridPool(40, 'dev-defaults'), 'dev-scores'),
    halfWidth: 0.05,
    runs: 12,
    seed: 'dev',
    variants: [
      { name: 'planner defaults (5 % uniform)', defensive: 0.05, modelSelection: planner },
      { name: '+ flat kernel, 5 %', defensive: 0.05, modelSelection: withFlat },
      { name: '+ flat kernel, 20 %', defensive: 0.2, modelSelection: withFlat },
      { name: '+ flat kernel, 50 %', defensive: 0.5, modelSelection: withFlat },
    ],
  },
  rule: {
    items: () => addScores(gemGridPool(3, 'noise-dev'), 'noise-dev'),
    halfWidth: 0.1,
    runs: 80,
    seed: 'rule-dev',
    variants: [
      { name: 'planner defaults', defensive: 0.05, modelSelection: planner },
      { name: 'level shares, one-SE rule', defensive: 0.05, modelSelection: { ...planner, marginal: true } },
    ],
  },
} as const;
const setup = setups[suite as keyof typeof setups];
if (!setup) throw new Error(`suite must be ${Object.keys(setups).join(' or ')}`);
const runs = Number(process.argv[3] ?? setup.runs);
const items = setup.items();
for (const predictor of ['human:laypeople', 'judge:informed', 'metric:noise']) {
  for (const v of setup.variants) {
    const r = simulateEstimates(items, { estimand: { kind: 'coherence-rate', aggregate: 'majority' }, predictors: [predictor], halfWidths: [setup.halfWidth], runs, defensive: v.defensive, modelSelection: v.modelSelection, labelsPerCandidate: 3, seed: setup.seed });
    const t = r.targets[0];
    console.log(`| ${predictor} | ${v.name} | ${t.estimator?.labels.toFixed(1)} ± ${t.estimator?.labelsSe.toFixed(1)} | ${t.random?.labels.toFixed(1)} ± ${t.random?.labelsSe.toFixed(1)} | ${t.classical?.labels.toFixed(1)} | ${r.coverage.toFixed(3)} |`);
  }
}
