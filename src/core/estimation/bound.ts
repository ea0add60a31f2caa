/**
 * How few expert labels could an estimate need with a given predictor? (`estimate --bound`, docs/estimation.md §4.)
 * Computed on a fully labelled file, per stratum, for the same kind of interval the estimator reports.
 *
 * The oracle. Give the estimator everything it learns while labelling: the predictor's calibration to the label
 * scale, as well as it can be known from the whole pool — the working model (kernel smoother over the predictors'
 * coordinates, `design/levelModel.ts`) that predicts the pool's own labels best, each from all the others
 * (leave-one-out log score, bandwidths × prior weights of the planner's grid) — and the best one-draw design for it
 * (q ∝ σ_i, no uniform share). σ_i is the model's standard deviation of candidate i's influence value γ·F_i at the
 * pool's value. Then the estimator's anytime interval after t labels is u(V_t)/Σλ (λ = 1/σ̂ of each term, V_t ≈ t)
 * with each term's variance (Σ_U σ)² − Σ_U σ² over the undrawn candidates U; along the expected path (every candidate
 * undrawn with its expected remaining probability, removed in expectation q ∝ σ) this gives the labels at which the
 * interval reaches h. The bound is that number: what the estimator would need if it knew the calibration from the
 * start. Expert-only is the same with the level shares alone (σ_i all equal) and uniform draws.
 *
 * Beside it, for fixed-size 95 % intervals (z·√V = h): the Godambe–Joshi bound with the Neyman allocation (no
 * design-unbiased estimator with this predictor and labels independent under the model needs fewer; `design/neyman.ts`)
 * and simple random sampling with the same model (N·Σσ²/(V + Σσ²)); the theorem behind them is for designs fixed in
 * advance (docs/labelling-plan.md, "What the design alone can buy").
 */
import type { DialogueItem } from '../dialogue/types';
import { gridSettings, KernelLevelModel, LEVEL_MODEL_GRID, leaveOneOutLevels, leaveOneOutLogScore } from '../design/levelModel';
import { labelsForVariance } from '../design/neyman';
import type { PlanSettings } from '../design/planSettings';
import { normalMixtureBoundary, normalMixtureM, normalUpperQuantile } from '../stats/confidenceSequence';
import { anticipatedEstimateLabels, estimateSettings, stratumModels } from './activePlan';
import { labelledStrata, type EstimateSimulationOptions } from './simulate';

/** Options of {@link estimateBound}. */
export type EstimateBoundOptions = Omit<EstimateSimulationOptions, 'runs' | 'seed' | 'estimators'> & Partial<PlanSettings>;

/** Labels needed at one half-width. */
export interface EstimateBoundTarget {
  halfWidth: number;
  /** The oracle estimator's anytime interval, Neyman draws (Σ over strata). */
  estimator: number;
  /** Expert-only: the same interval with the level shares alone and uniform draws (Σ over strata). */
  classical: number;
  /** 1 − estimator / classical. */
  saving: number;
  /** Fixed-size intervals: the Godambe–Joshi bound with the Neyman allocation (Σ over strata). */
  fixedNeyman: number;
  /** Fixed-size intervals: simple random sampling with the oracle model. */
  fixedRandom: number;
  /** Fixed-size intervals: simple random sampling without a predictor (expert-only). */
  fixedClassical: number;
}

/** What {@link estimateBound} returns. */
export interface EstimateBoundResult {
  targets: EstimateBoundTarget[];
  strata: { key: string; candidates: number; value: number; model: { bandwidth: number; prior: number }; logScore: number; marginalLogScore: number }[];
  estimand: string;
  predictors: string[];
  pool: number;
  notFullyLabelled: number;
}

/**
 * The labels along the expected path of the sequential estimator until its anytime interval reaches h (see the module
 * comment).
 *
 * @param sd - σ_i of every candidate of the stratum (influence-value units of the estimand)
 * @param design - `neyman`: q ∝ σ over the undrawn; `uniform`: q = 1/|U|
 * @param m - the normal mixture's parameter; alpha - 1 − level; minLabels - no stop before
 * @returns labels in (0, N]; N when only labelling everything reaches h
 */
export function expectedAnytimeLabels(sd: ArrayLike<number>, design: 'neyman' | 'uniform', halfWidth: number, m: number, alpha: number, minLabels: number): number {
  const N = sd.length;
  const r = new Float64Array(N).fill(1);
  let weightSum = 0;
  let v = 0;
  for (let t = 1; t <= N; t++) {
    let s1 = 0;
    let s2 = 0;
    let mass = 0;
    for (let i = 0; i < N; i++) {
      s1 += sd[i] * r[i];
      s2 += sd[i] * sd[i] * r[i];
      mass += r[i];
    }
    const variance = design === 'neyman' ? s1 * s1 - s2 : mass * s2 - s2;
    if (!(variance > 1e-300)) return t; // what is left is known: one more label makes the estimate exact
    weightSum += 1 / Math.sqrt(variance);
    v += 1;
    if (t >= minLabels && normalMixtureBoundary(v, m, alpha) / weightSum <= halfWidth) return t;
    for (let i = 0; i < N; i++) {
      const q = design === 'neyman' ? (s1 > 0 ? (sd[i] * r[i]) / s1 : 0) : r[i] / mass;
      r[i] = Math.max(0, r[i] - q);
    }
  }
  return N;
}

/**
 * The bound on a fully labelled file (see the module comment).
 *
 * @throws Error when a stratum has fewer than 2 fully labelled candidates or its value is undefined
 */
export function estimateBound(items: readonly DialogueItem[], options: EstimateBoundOptions): EstimateBoundResult {
  const ls = labelledStrata(items, options, 'the bound');
  const settings = estimateSettings(options, ls.scale.levels.length);
  const alpha = 1 - settings.level;
  const z = normalUpperQuantile(alpha / 2);
  const models = stratumModels(ls.pool, ls.strata, ls.scale, new Set(), ls.strata.map(() => 1));
  const K = ls.scale.levels.length;
  const grid = gridSettings(LEVEL_MODEL_GRID);
  const strata = models.map((s, j) => {
    const y = s.units.map((i) => ls.levels[i]);
    const N = y.length;
    const local = y.map((_, i) => i);
    let best = { model: grid[0], logScore: -Infinity };
    for (const model of grid) {
      const fitted = new KernelLevelModel(s.totals.coordinates, K, model);
      y.forEach((k, i) => fitted.add(i, k));
      const score = leaveOneOutLogScore(fitted, local, y);
      if (score > best.logScore) best = { model, logScore: score };
    }
    const p = leaveOneOutLevels(s.totals.coordinates, y, K, best.model);
    const truth = s.totals.evaluate(s.totals.totals(y));
    if (!truth) throw new Error(`the value of "${s.key}" is undefined on the fully labelled pool`);
    const counts = new Float64Array(K);
    for (const k of y) counts[k]++;
    const marginalLogScore = y.reduce((acc, k) => acc + Math.log((counts[k] - 1 + 0.5) / (N - 1 + K / 2)), 0) / N;
    const coef = new Float64Array(K);
    const sdOracle = new Float64Array(N);
    const sdMarginal = new Float64Array(N);
    for (let i = 0; i < N; i++) {
      s.totals.coefficients(truth.gradient, i, coef);
      let m1 = 0;
      let m2 = 0;
      let q1 = 0;
      let q2 = 0;
      for (let k = 0; k < K; k++) {
        m1 += p[i * K + k] * coef[k];
        m2 += p[i * K + k] * coef[k] * coef[k];
        const share = counts[k] / N;
        q1 += share * coef[k];
        q2 += share * coef[k] * coef[k];
      }
      sdOracle[i] = Math.sqrt(Math.max(0, m2 - m1 * m1));
      sdMarginal[i] = Math.sqrt(Math.max(0, q2 - q1 * q1));
    }
    return { key: s.key, candidates: N, value: truth.value, model: best.model, logScore: best.logScore, marginalLogScore, sdOracle, sdMarginal };
  });
  const targets = options.halfWidths.map((h) => {
    let estimator = 0;
    let classical = 0;
    let fixedNeyman = 0;
    let fixedRandom = 0;
    let fixedClassical = 0;
    for (const s of strata) {
      const m = normalMixtureM(anticipatedEstimateLabels(h, s.candidates, ls.scale, settings.level, settings.minLabels, Boolean(options.compare)), alpha);
      estimator += expectedAnytimeLabels(s.sdOracle, 'neyman', h, m, alpha, settings.minLabels);
      classical += expectedAnytimeLabels(s.sdMarginal, 'uniform', h, m, alpha, settings.minLabels);
      const variance = (h / z) ** 2;
      const fixed = (sd: Float64Array, design: 'uniform' | 'neyman') => (sd.some((x) => x > 0) ? labelsForVariance(sd, variance, design) : 0);
      fixedNeyman += fixed(s.sdOracle, 'neyman');
      fixedRandom += fixed(s.sdOracle, 'uniform');
      fixedClassical += fixed(s.sdMarginal, 'uniform');
    }
    return { halfWidth: h, estimator, classical, saving: 1 - estimator / classical, fixedNeyman, fixedRandom, fixedClassical };
  });
  return {
    targets,
    strata: strata.map(({ sdOracle: _o, sdMarginal: _m, ...rest }) => rest),
    estimand: ls.pool.estimand.name,
    predictors: ls.pool.predictors,
    pool: new Set(ls.strata.flatMap((s) => s.units)).size,
    notFullyLabelled: ls.notFullyLabelled,
  };
}
