/**
 * How the estimate planner's defaults were chosen, on generated pools only (docs/estimation.md, "How the defaults were
 * chosen"): the GEM-grid generator of generatedPools.ts (latent quality, lay labels noisier than expert ones), never
 * EvalReflections. Prints mean labels at ±0.05 for the planner design and random order (same predictors and
 * estimator) and expert-only, per setting.
 *
 *   npx tsx scripts/estimation/devDefaults.ts [runs]
 */
import { addScores, gemGridPool } from './generatedPools';
import { simulateEstimates } from '../../src/core/estimation/simulate';
import type { ModelSelection } from '../../src/core/design/planSettings';
import { PLAN_DEFAULTS } from '../../src/core/design/planSettings';

const runs = Number(process.argv[2] ?? 20);
const items = addScores(gemGridPool(40, 'dev-defaults'), 'dev-scores');
const withFlat: ModelSelection = { ...(PLAN_DEFAULTS.modelSelection as ModelSelection), bandwidths: [...(PLAN_DEFAULTS.modelSelection as ModelSelection).bandwidths, 1000] };
const variants: { name: string; defensive: number; modelSelection: ModelSelection }[] = [
  { name: 'planner defaults (5 % uniform)', defensive: 0.05, modelSelection: PLAN_DEFAULTS.modelSelection as ModelSelection },
  { name: '+ flat kernel, 5 %', defensive: 0.05, modelSelection: withFlat },
  { name: '+ flat kernel, 20 %', defensive: 0.2, modelSelection: withFlat },
  { name: '+ flat kernel, 50 %', defensive: 0.5, modelSelection: withFlat },
];
for (const estimand of [{ kind: 'coherence-rate', aggregate: 'majority' }, { kind: 'coherence-rate', aggregate: 'mean' }] as const) {
  for (const predictor of ['human:laypeople', 'judge:informed', 'metric:noise']) {
    for (const v of variants) {
      const t0 = Date.now();
      const r = simulateEstimates(items, { estimand, predictors: [predictor], halfWidths: [0.05], runs, defensive: v.defensive, modelSelection: v.modelSelection, seed: 'dev' });
      const t = r.targets[0];
      console.log(`${estimand.aggregate}\t${predictor}\t${v.name}\tplanner ${t.estimator?.labels.toFixed(1)} ± ${t.estimator?.labelsSe.toFixed(1)}\trandom ${t.random?.labels.toFixed(1)} ± ${t.random?.labelsSe.toFixed(1)}\tclassical ${t.classical?.labels.toFixed(1)}\tcoverage ${r.coverage.toFixed(3)}\t${((Date.now() - t0) / 1000).toFixed(0)} s`);
    }
  }
}
