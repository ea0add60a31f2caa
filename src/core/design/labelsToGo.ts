/**
 * What a plan predicts and draws with, shared by both planners: the permanent random numbers (exponential clocks) of
 * a plan's candidates, and the labels to go until a target holds (docs/labelling-plan.md §2 and §4).
 */
import seedrandom from 'seedrandom';
import { normalMixtureBoundary } from '../stats/confidenceSequence';
import type { PlanTarget } from './planSettings';
import type { PlanEstimate, SequentialPlan } from './sequentialPlan';

/**
 * The permanent random numbers of a plan: an Exp(1) clock E = −ln(1 − U) per candidate, U from seedrandom's Alea
 * seeded with the plan's seed and the candidate's item and candidate ids, so a candidate keeps its clock whatever
 * else is in the pool.
 *
 * @param units - the pool's candidates, in pool order
 * @returns one clock per candidate
 */
export function permanentClocks(seed: string, units: readonly { itemId: string; candidateId: string }[]): Float64Array {
  return Float64Array.from(units, (c) => -Math.log(1 - seedrandom.alea(`${seed}\u0000${c.itemId}\u0000${c.candidateId}`)()));
}

/**
 * Labels to go: the interval after k more planned steps is predicted as u(V + r·k)/(Σλ + Σ 1/σ̂_j), with σ̂_j the
 * recorded σ̂ of drawn candidates and the model's prediction along the provisional order for the rest, and r the
 * realised intrinsic time per label so far (1 before `minLabels`); a decision keeps the current estimate. Steps on
 * candidates already labelled (`labelled(unit)`) cost no label. Exhausting the pool always stops (exact value).
 *
 * @returns labels still to make, or null when a decision has no estimate yet
 */
export function predictLabelsToGo(plan: SequentialPlan, labelled: (unit: number) => boolean, target: PlanTarget, est: PlanEstimate, provisional: readonly number[], m: number, alpha: number, minLabels: number): number | null {
  if ('decide' in target && est.value === null) return null;
  const sigmas: { sigma: number; cost: number }[] = [];
  for (let s = plan.revealed; s < plan.draws.length; s++) sigmas.push({ sigma: plan.draws[s].sigma, cost: labelled(plan.draws[s].unit) ? 0 : 1 });
  const predicted = plan.predictedSigmas(provisional);
  provisional.forEach((i, j) => sigmas.push({ sigma: predicted[j], cost: labelled(i) ? 0 : 1 }));
  const labels = est.labels;
  const rate = labels >= minLabels && est.weightSum > 0 ? Math.max(est.intrinsicTime / labels, 1e-6) : 1;
  let weightSum = Number.isFinite(est.weightSum) ? est.weightSum : 0;
  let v = est.intrinsicTime;
  let cost = 0;
  for (let j = 0; j < sigmas.length; j++) {
    cost += sigmas[j].cost;
    if (j === sigmas.length - 1) return cost; // the last step makes the estimate exact
    weightSum += 1 / Math.max(sigmas[j].sigma, 1e-9);
    v += rate;
    if (labels + j + 1 < minLabels) continue;
    const hw = normalMixtureBoundary(v, m, alpha) / weightSum;
    if ('halfWidth' in target ? hw <= target.halfWidth : hw < Math.abs(est.value as number)) return cost;
  }
  return cost;
}
