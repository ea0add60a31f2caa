/**
 * Development measurement on GENERATED pools (never the reported data) that chose the planner's working model and
 * defensive share (docs/labelling-plan.md, §2 and "Where the rest goes"): the fixed kernel model of the earlier
 * defaults against the working model chosen from the labels by leave-one-out log score (kernel smoothers of the grid
 * and an adjacent-category logit model), and uniform shares of 20, 10 and 5 %, for pairs of equal evaluators (noisy
 * copies of the experts' score, several noise levels and pool sizes, and pools whose difference is near 0 for the
 * decision rule) and single evaluators of several signal levels. Random order keeps the same model in each variant
 * (what the design buys); coverage is at the half-width stops (planner / random) and over all the planner's stops.
 * `hard` pools check validity where the working model is likely to be wrong or the design extreme: an evaluator whose
 * score is U-shaped in the human score (a logit model is wrong there), one with five tied values, and an unequal pair.
 * Usage: npx tsx scripts/planning/modelChoice.ts [runs per design, default 400]
 *   [pools: all (pairs, equal pairs, single evaluators) | pair | equal | single | hard] [variants: all | shares | models]
 * (docs/labelling-plan.md, "How the defaults were chosen", was made with `400 all all` and `400 hard all`.)
 */
import { LEVEL_MODEL_GRID } from '../../src/core/design/levelModel';
import type { ModelSelection } from '../../src/core/planning/planner';
import { fullyLabelledPool } from '../../src/core/planning/pool';
import { simulatePlans } from '../../src/core/planning/simulate';
import type { DialogueItem } from '../../src/core/dialogue/types';
import seedrandom from 'seedrandom';
import { gaussian, generatedPool } from '../../test/core/planning/generatedPool';

const runs = Number(process.argv[2] ?? 400);
const which = process.argv[3] ?? 'all';
const variantSet = process.argv[4] ?? 'all';
const halfWidths = [0.15, 0.1];
const PAIR = { evaluator: 'metric:copy0.score@test', against: 'metric:copy1.score@test', human: 'experts' as const };
const SINGLE = { evaluator: 'metric:gen0.score@test', human: 'experts' as const };

/** The first pool `equal-<N>-<s>` (s = 0, 1, …) whose difference rho_A − rho_B is below 0.02 in absolute value. */
function equalPool(candidates: number): { items: DialogueItem[]; seed: string } {
  for (let s = 0; ; s++) {
    const seed = `equal-${candidates}-${s}`;
    const items = generatedPool({ candidates, copies: { count: 2, noise: 1 }, seed });
    if (Math.abs(fullyLabelledPool(items, PAIR, 'the measurement').truth.value) < 0.02) return { items, seed };
  }
}

/** Adds evaluators `metric:<name>.score@test` computed from each candidate's experts' coherence score y and Gaussian noise. */
function withScores(items: DialogueItem[], seed: string, scores: Record<string, (y: number, noise: () => number) => number>): DialogueItem[] {
  const rng = seedrandom.alea(seed);
  const noise = () => gaussian(rng);
  for (const it of items) {
    for (const c of it.candidates) {
      const y = c.annotations.filter((a) => a.coherent).length;
      for (const [name, f] of Object.entries(scores)) (c.scores as Record<string, unknown>)[`metric:${name}.score@test`] = { value: f(y, noise), status: 'ok' };
    }
  }
  return items;
}

const pools: { name: string; items: DialogueItem[]; pair: boolean; options?: typeof PAIR | typeof SINGLE }[] = [];
if (which === 'all' || which === 'pair') {
  for (const [candidates, noise] of [[150, 1], [180, 1], [120, 0.5], [150, 1.5], [200, 2]] as const) {
    pools.push({ name: `pair, noise ${noise}, N ${candidates}`, items: generatedPool({ candidates, copies: { count: 2, noise }, seed: `model-choice-pair-${candidates}-${noise}` }), pair: true });
  }
}
if (which === 'all' || which === 'equal') {
  for (const candidates of [120, 150, 180]) {
    const { items, seed } = equalPool(candidates);
    pools.push({ name: `equal pair (${seed}), noise 1, N ${candidates}`, items, pair: true });
  }
}
if (which === 'all' || which === 'single') {
  for (const [candidates, signal] of [[150, 0], [150, 0.3], [120, 0.6], [200, 1]] as const) {
    pools.push({ name: `single, signal ${signal}, N ${candidates}`, items: generatedPool({ candidates, signal: [signal], seed: `model-choice-single-${candidates}-${signal}` }), pair: false });
  }
}

if (which === 'hard') {
  const base = (candidates: number, seed: string) => generatedPool({ candidates, seed });
  pools.push({ name: 'U-shaped single, N 120', items: withScores(base(120, 'hard-u'), 'hard-u', { u: (y, e) => (y - 1.5) ** 2 + 0.7 * e() }), pair: false, options: { evaluator: 'metric:u.score@test', human: 'experts' } });
  pools.push({ name: 'tied single (5 values), N 150', items: withScores(base(150, 'hard-tied'), 'hard-tied', { tied: (y, e) => Math.max(1, Math.min(5, Math.round(1.5 + 0.6 * y + e()))) }), pair: false, options: { evaluator: 'metric:tied.score@test', human: 'experts' } });
  pools.push({ name: 'unequal pair (noise 0.7 vs 1.5), N 150', items: withScores(base(150, 'hard-unequal'), 'hard-unequal', { a: (y, e) => y + 0.7 * e(), b: (y, e) => y + 1.5 * e() }), pair: true, options: { evaluator: 'metric:a.score@test', against: 'metric:b.score@test', human: 'experts' } });
  pools.push({ name: 'pair: copy vs U-shaped, N 150', items: withScores(base(150, 'hard-mixed'), 'hard-mixed', { a: (y, e) => y + e(), u: (y, e) => (y - 1.5) ** 2 + 0.7 * e() }), pair: true, options: { evaluator: 'metric:a.score@test', against: 'metric:u.score@test', human: 'experts' } });
}

const chosen = (ordinal: boolean): ModelSelection => ({ bandwidths: [...LEVEL_MODEL_GRID.bandwidths], priors: [...LEVEL_MODEL_GRID.priors], minLabels: 10, ...(ordinal ? { ordinal: [{ ridge: 1, prior: 2 }] } : {}) });
const variants: { name: string; defensive: number; modelSelection: ModelSelection | null }[] = [
  ...(variantSet !== 'shares' ? [
    { name: 'fixed kernel, 20 %', defensive: 0.2, modelSelection: null },
    { name: 'chosen among kernels, 20 %', defensive: 0.2, modelSelection: chosen(false) },
  ] : []),
  { name: 'chosen, kernels + logit, 20 %', defensive: 0.2, modelSelection: chosen(true) },
  ...(variantSet !== 'models' ? [
    { name: 'chosen, kernels + logit, 10 %', defensive: 0.1, modelSelection: chosen(true) },
    { name: 'chosen, kernels + logit, 5 %', defensive: 0.05, modelSelection: chosen(true) },
  ] : []),
];
for (const p of pools) {
  for (const v of variants) {
    const r = simulatePlans(p.items, { ...(p.options ?? (p.pair ? PAIR : SINGLE)), halfWidths, runs, seed: 'model-choice', defensive: v.defensive, modelSelection: v.modelSelection });
    const targets = r.targets.map((t) => `h ${t.halfWidth}: ${t.planner.toFixed(1)} vs ${t.random.toFixed(1)} (${(100 * (1 - t.planner / t.random)).toFixed(1)} %) cov ${t.plannerCoverage.toFixed(3)}/${t.randomCoverage.toFixed(3)}`).join('  ');
    const decision = r.decision ? `  decision ${r.decision.planner.toFixed(1)} vs ${r.decision.random.toFixed(1)} wrong ${r.decision.plannerWrong.toFixed(3)}/${r.decision.randomWrong.toFixed(3)}` : '';
    console.log(`${p.name} (value ${r.poolValue.toFixed(3)}) | ${v.name.padEnd(30)} | ${targets}${decision} | coverage ${r.coverage.toFixed(3)}`);
  }
}
