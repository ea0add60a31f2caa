/**
 * An estimand of one stratum as pool totals (`design/poolTotals.ts`), so the sequential design, its Des Raj
 * estimator and its anytime interval (`design/sequentialPlan.ts`) estimate it (docs/estimation.md §3).
 *
 * A stratum is a group of candidates (one value of `--by`, or the whole pool) or, for a difference between two
 * groups, the candidates of both, each in its *slot* (0: first group, 1: second). A candidate's outcome F at level k
 * (`estimands.ts`) goes into its slot's block of θ:
 * - mean (coherence rate): h = θ_slot / N_slot, N_slot the slot's candidates (known);
 * - ratio (an error's share among incoherent candidates, a mean rating): h = θ_{slot,0} / θ_{slot,1};
 * - difference: h = h_0 − h_1.
 * All are exact functions of the totals: with every candidate known, h is the pool's value.
 *
 * The working model sees the predictors: each predictor value column (another group's outcome components, an
 * evaluator's score) becomes a coordinate, the candidates' midranks over the stratum normalised to (0, 1) (a candidate
 * without the value sits at 0.5). Constant columns are dropped; with no coordinate left (no predictor, or none that
 * varies) a single constant coordinate makes every model the level shares alone — the expert-only estimator.
 */
import type { EstimandValue, PoolTotals } from '../design/poolTotals';
import { rankAverage } from '../stats/rank';
import type { EstimandScale } from './estimands';

/** The working-model coordinates of predictor values: per non-constant column, midranks normalised to (0, 1), missing at 0.5; one constant coordinate when none varies. */
export function predictorCoordinates(values: readonly (readonly (readonly number[] | null)[])[]): Float64Array[] {
  const n = values.length;
  const out: Float64Array[] = [];
  const predictors = n ? values[0].length : 0;
  for (let p = 0; p < predictors; p++) {
    const width = Math.max(0, ...values.map((v) => v[p]?.length ?? 0));
    for (let c = 0; c < width; c++) {
      const present = values.map((v, i) => [v[p]?.[c], i] as const).filter((x): x is readonly [number, number] => typeof x[0] === 'number' && Number.isFinite(x[0]));
      if (present.length === 0 || present.every(([v]) => v === present[0][0])) continue;
      const ranks = rankAverage(present.map(([v]) => v));
      const col = new Float64Array(n).fill(0.5);
      present.forEach(([, i], j) => (col[i] = (ranks[j] - 0.5) / present.length));
      out.push(col);
    }
  }
  if (out.length === 0) out.push(new Float64Array(n).fill(0.5));
  return out;
}

export class EstimandTotals implements PoolTotals {
  readonly size: number;
  readonly dim: number;
  readonly levelCount: number;
  readonly coordinates: readonly Float64Array[];
  readonly bounds: readonly [number, number];
  /** Candidates per slot. */
  readonly slotSizes: number[];
  private readonly D: number;
  private readonly F: Float64Array;

  /**
   * @param scale - the estimand's levels and form
   * @param slots - per candidate of the stratum, its slot (all 0 for one group; 0 or 1 for a difference)
   * @param coordinates - the working model's coordinates ({@link predictorCoordinates})
   * @throws RangeError on a slot other than 0 or 1, an empty slot, or coordinates of the wrong length
   */
  constructor(
    readonly scale: EstimandScale,
    readonly slots: readonly number[],
    coordinates: readonly Float64Array[],
  ) {
    this.size = slots.length;
    const nSlots = Math.max(...slots) + 1;
    if (slots.some((s) => s !== 0 && s !== 1)) throw new RangeError('estimand totals: a candidate is in slot 0 or 1');
    this.slotSizes = Array.from({ length: nSlots }, (_, s) => slots.filter((x) => x === s).length);
    if (this.slotSizes.some((n) => n === 0)) throw new RangeError('estimand totals: every group of a difference needs candidates');
    if (coordinates.length === 0 || coordinates.some((c) => c.length !== this.size)) throw new RangeError(`estimand totals: coordinates must hold ${this.size} positions each`);
    this.coordinates = coordinates;
    this.D = scale.dim;
    this.dim = nSlots * scale.dim;
    this.levelCount = scale.levels.length;
    this.F = Float64Array.from(scale.levels.flatMap((l) => l.features));
    const [lo, hi] = scale.bounds;
    this.bounds = nSlots === 1 ? [lo, hi] : [lo - hi, hi - lo];
  }

  /** Groups compared: 1 (one group's value) or 2 (first − second). */
  get groups(): number {
    return this.slotSizes.length;
  }

  addUnit(out: Float64Array, unit: number, level: number, s = 1): void {
    const base = this.slots[unit] * this.D;
    for (let d = 0; d < this.D; d++) out[base + d] += s * this.F[level * this.D + d];
  }

  addExpected(out: Float64Array, unit: number, p: ArrayLike<number>, s = 1): void {
    const base = this.slots[unit] * this.D;
    for (let k = 0; k < this.levelCount; k++) {
      const w = s * p[k];
      if (w === 0) continue;
      for (let d = 0; d < this.D; d++) out[base + d] += w * this.F[k * this.D + d];
    }
  }

  coefficients(gradient: ArrayLike<number>, unit: number, out: Float64Array): Float64Array {
    const base = this.slots[unit] * this.D;
    for (let k = 0; k < this.levelCount; k++) {
      let c = 0;
      for (let d = 0; d < this.D; d++) c += gradient[base + d] * this.F[k * this.D + d];
      out[k] = c;
    }
    return out;
  }

  /** h(θ) (each group's value clipped to the estimand's range; the gradient is not), null when a ratio's denominator is not positive. */
  evaluate(theta: ArrayLike<number>): EstimandValue | null {
    const gradient = new Float64Array(this.dim);
    const parts: number[] = [];
    const [lo, hi] = this.scale.bounds;
    for (let s = 0; s < this.slotSizes.length; s++) {
      const sign = s === 0 ? 1 : -1;
      const base = s * this.D;
      let v: number;
      if (this.scale.form === 'mean') {
        v = theta[base] / this.slotSizes[s];
        gradient[base] = sign / this.slotSizes[s];
      } else {
        const den = theta[base + 1];
        if (!(den > 1e-12)) return null;
        v = theta[base] / den;
        gradient[base] = sign / den;
        gradient[base + 1] = (-sign * v) / den;
      }
      parts.push(Math.min(hi, Math.max(lo, v)));
    }
    const value = parts.length === 1 ? parts[0] : parts[0] - parts[1];
    return { value, gradient, ...(parts.length > 1 ? { rhos: parts } : {}) };
  }

  /** The exact totals when every candidate's level is known. */
  totals(levels: readonly number[]): Float64Array {
    if (levels.length !== this.size) throw new RangeError(`estimand totals: expected ${this.size} levels (got ${levels.length})`);
    const out = new Float64Array(this.dim);
    levels.forEach((k, i) => this.addUnit(out, i, k));
    return out;
  }
}
