/**
 * Development check of the labelling planner on GENERATED pools (never the reported data): coverage, labels
 * needed and wrong decisions for pools of known structure. Usage: npx tsx scripts/planning/devSimulation.ts [runs]
 */
import seedrandom from 'seedrandom';
import type { DialogueItem } from '../../src/core/dialogue/types';
import { simulatePlans } from '../../src/core/planning/simulate';

function normal(rng: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

/** A pool of `n` candidates in items of 10: latent quality z, 3 expert labels Bernoulli(logistic(z + e)), evaluators z·s + noise. */
export function generatedPool(n: number, signal: number[], seed: string, discrete = false): DialogueItem[] {
  const rng = seedrandom.alea(seed);
  const items: DialogueItem[] = [];
  for (let i = 0; i < n; i++) {
    if (i % 10 === 0) items.push({ id: `item-${i / 10}`, context: [], candidates: [] } as unknown as DialogueItem);
    const z = normal(rng) * 1.5 + 0.8;
    const annotations = [0, 1, 2].map((a) => ({ annotator: `Expert ${a + 1}`, group: 'expert', coherent: rng() < 1 / (1 + Math.exp(-(z + normal(rng) * 0.7))) }));
    const scores: Record<string, { value: number; status: 'ok' }> = {};
    signal.forEach((s, e) => {
      let v = s * z + normal(rng);
      if (discrete) v = Math.max(1, Math.min(5, Math.round(3 + v)));
      scores[`metric:dev${e}.score@x`] = { value: v, status: 'ok' };
    });
    items[items.length - 1].candidates.push({ id: `c${i}`, text: 'x', origin: { kind: 'model' }, annotations, scores } as never);
  }
  return items;
}

const runs = Number(process.argv[2] ?? 100);
for (const [n, s, discrete] of [[150, 0, false], [150, 0.3, false], [150, 1, false], [150, 1, true], [600, 0.5, false]] as const) {
  const items = generatedPool(n, [s], `dev-${n}-${s}`, discrete);
  const t0 = Date.now();
  const r = simulatePlans(items, { evaluator: 'metric:dev0.score@x', human: 'experts', halfWidths: [0.15, 0.1], runs, seed: 'dev' });
  console.log(JSON.stringify({ n, signal: s, discrete, rho: +r.poolValue.toFixed(3), targets: r.targets.map((t) => ({ h: t.halfWidth, planner: +t.planner.toFixed(1), random: +t.random.toFixed(1), covP: t.plannerCoverage, covR: t.randomCoverage })), ms: Date.now() - t0 }));
}
const pair = generatedPool(150, [0.6, 0.6], 'dev-pair');
const r = simulatePlans(pair, { evaluator: 'metric:dev0.score@x', against: 'metric:dev1.score@x', human: 'experts', halfWidths: [0.15], runs, seed: 'dev' });
console.log(JSON.stringify({ pair: true, diff: r.poolValue, rhos: r.poolRhos, targets: r.targets, decision: r.decision, coverage: r.coverage }));
