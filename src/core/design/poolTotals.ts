/**
 * What a sequential labelling design estimates: a smooth function h(θ) of POOL TOTALS θ = Σ_i f_i(y_i), where
 * f_i(k) ∈ R^dim is candidate i's contribution when its label takes level k (one of K). Spearman's rho of an
 * evaluator with the human score (`planning/spearmanTotals.ts`) and a coherence rate, an error category's share or
 * a mean rating per group (`estimation/estimandTotals.ts`) are all of this form, so one design, estimator and
 * anytime interval ({@link SequentialPlan}) serves both planners (docs/labelling-plan.md, docs/estimation.md).
 */

/** h(θ) and its gradient ∂h/∂θ (length dim). */
export interface EstimandValue {
  value: number;
  gradient: Float64Array;
  /**
   * The estimand's parts at θ, when it has several: each evaluator's rho (Spearman's rho of one evaluator, or
   * rho_A − rho_B), each group's value (a difference between two groups).
   */
  rhos?: number[];
}

/** A pool's totals: the per-candidate contributions f_i(k), the estimand h and what the working model sees. */
export interface PoolTotals {
  /** Pool size N. */
  readonly size: number;
  /** Length of θ. */
  readonly dim: number;
  /** K, the number of label levels. */
  readonly levelCount: number;
  /** The working model's coordinates: per coordinate, the N candidates' positions in (0, 1). At least one. */
  readonly coordinates: readonly Float64Array[];
  /** The estimand's range: estimates and interval ends are clipped to it. */
  readonly bounds: readonly [number, number];
  /** out += s · f_unit(level). */
  addUnit(out: Float64Array, unit: number, level: number, s?: number): void;
  /** out += s · Σ_k p_k f_unit(k): the expected contribution under level probabilities p (length K). */
  addExpected(out: Float64Array, unit: number, p: ArrayLike<number>, s?: number): void;
  /** c_k = gradient · f_unit(k) for every level k: the unit's linearised contribution (influence value) per level. */
  coefficients(gradient: ArrayLike<number>, unit: number, out: Float64Array): Float64Array;
  /** h(θ) and its gradient; null where h is undefined (no spread, an empty denominator). */
  evaluate(theta: ArrayLike<number>): EstimandValue | null;
}
