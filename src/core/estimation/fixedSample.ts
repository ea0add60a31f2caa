/**
 * Prediction-powered estimates from a fixed sample of expert labels (docs/estimation.md §2): when the candidates the
 * experts labelled are a uniform random sample of the pool (not chosen by a plan), PPI++ per group — and the
 * difference between two groups, paired where they answer the same contexts — with the classical expert-only
 * estimate beside it. The labelled and unlabelled candidates are taken as independent draws from one population
 * (ppi_py's setting), so the interval is about that population, not only this pool.
 *
 * Predictions: with one `human:<group>` predictor and no calibration, that group's own outcome on the estimand
 * (the laypeople's majority vote for the experts' majority vote; PPI++'s λ rescales it); otherwise the cross-fitted
 * linear calibration of every predictor (`calibration.ts`). A ratio estimand (an error's share among incoherent
 * candidates, a mean rating) is estimated through its linearisation ψ = (F₀ − R·F₁)/F̄₁: λ is tuned and the interval
 * made on ψ (the delta method), the estimate is the ratio of the two PPI means with that λ. Interval ends are clipped
 * to the estimand's range (a rate to [0, 1]); a group with fewer than `minLabelled` labelled or unlabelled candidates
 * gets no interval.
 */
import type { DialogueItem } from '../dialogue/types';
import type { EstimandSpec } from '../design/planRecord';
import { poolStrata } from './activePlan';
import { crossFittedCalibration } from './calibration';
import { estimationPool, type EstimationPool, type EstimationPoolOptions } from './pool';
import {
  classicalMean,
  classicalMeanDifference,
  pairedPredictionPoweredDifference,
  powerTunedLambda,
  predictionPoweredMean,
  predictionPoweredMeanDifference,
  type EstimateInterval,
  type PredictionPoweredInterval,
} from './predictionPowered';

/** Options of {@link fixedSampleEstimates}. */
export interface FixedSampleOptions extends Omit<EstimationPoolOptions, 'estimand'> {
  estimand: EstimandSpec;
  /** Only these groups of `by`. */
  groups?: string[];
  /** The difference of two groups of `by` (first − second). */
  compare?: [string, string];
  /** Error level (default 0.05). */
  alpha?: number;
  /** `none`: a single human predictor's own outcome; `linear`: cross-fitted linear calibration (default: none when possible). */
  calibration?: 'none' | 'linear';
  /** Folds of the cross-fitting (default 5). */
  folds?: number;
  seed?: string;
  /** For a difference: `auto` (default: paired when the two groups share a context), `paired` or `unpaired`. */
  pairing?: 'auto' | 'paired' | 'unpaired';
  /**
   * The fewest labelled (and, for PPI++, unlabelled) candidates a group needs for an interval (default 10): the
   * intervals are normal approximations, which with a handful of binary labels can be degenerate (all labels and
   * predictions equal: width 0).
   */
  minLabelled?: number;
}

/** One group's estimate. */
export interface FixedSampleGroup {
  key: string;
  candidates: number;
  /** Candidates with the planned group's full labels. */
  labelled: number;
  /** PPI++ (null with fewer than 2 labelled or 2 unlabelled candidates). */
  estimator: PredictionPoweredInterval | null;
  /** Expert-only from the same labels (null with fewer than 2). */
  classical: EstimateInterval | null;
}

/** A difference between two groups. */
export interface FixedSampleDifference {
  key: string;
  paired: boolean;
  /** Contexts with candidates of both groups. */
  sharedContexts: number;
  estimator: PredictionPoweredInterval | null;
  classical: EstimateInterval | null;
}

/** What {@link fixedSampleEstimates} returns. */
export interface FixedSampleResult {
  estimand: string;
  human: string;
  predictors: string[];
  calibration: { kind: 'none' | 'linear'; folds: number; columns: string[] };
  alpha: number;
  groups: FixedSampleGroup[];
  difference: FixedSampleDifference | null;
}

interface Prepared {
  pool: EstimationPool;
  /** Per pool unit: the outcome's linearisation inputs. */
  predictions: number[][];
}

function prepare(items: readonly DialogueItem[], options: FixedSampleOptions): Prepared & { calibration: FixedSampleResult['calibration'] } {
  const pool = estimationPool(items, { ...options });
  if (pool.predictors.length === 0) throw new Error('a prediction-powered estimate needs a predictor (--predictor human:laypeople, or an evaluator)');
  const dim = pool.estimand.scale(pool.labelsPerCandidate, pool.maxLabels).dim;
  const single = pool.predictors.length === 1 && pool.predictors[0].startsWith('human:');
  const kind = options.calibration ?? (single ? 'none' : 'linear');
  if (kind === 'none') {
    if (!single) throw new Error('--calibration none needs exactly one human:<group> predictor (an evaluator is on its own scale: calibrate it)');
    const missing = pool.units.filter((u) => u.predictors[0] === null).length;
    if (missing > 0) throw new Error(`${missing} candidate(s) have no ${pool.predictors[0].slice(6)} label to predict from; use --calibration linear (a missing prediction becomes its own column)`);
    return { pool, predictions: pool.units.map((u) => (u.predictors[0] as number[]).slice(0, dim)), calibration: { kind, folds: 0, columns: [pool.predictors[0]] } };
  }
  const cal = crossFittedCalibration(
    pool.units.map((u) => u.predictors),
    pool.predictors,
    pool.units.map((u) => u.outcome),
    { folds: options.folds ?? 5, seed: options.seed ?? 'calibration' },
  );
  return { pool, predictions: cal.predictions, calibration: { kind, folds: cal.folds, columns: cal.columns } };
}

/** Labelled outcomes, their predictions and the unlabelled predictions of a set of units. */
function sides(p: Prepared, units: readonly number[]) {
  const L = units.filter((i) => p.pool.units[i].outcome !== null);
  const U = units.filter((i) => p.pool.units[i].outcome === null);
  return { L, U, y: L.map((i) => p.pool.units[i].outcome as number[]), yhat: L.map((i) => p.predictions[i]), yhatU: U.map((i) => p.predictions[i]) };
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/**
 * The linearisation of a ratio at R (ψ = (F₀ − R·F₁)/d, d the mean denominator), or the outcome itself for a mean.
 */
function linear(form: 'mean' | 'ratio', R: number, d: number) {
  return (f: readonly number[]) => (form === 'mean' ? f[0] : (f[0] - R * f[1]) / d);
}

/** Clips an interval's ends to [lo, hi] (the estimand's range; the estimate is left as is). */
function clip<T extends EstimateInterval | null>(e: T, [lo, hi]: readonly [number, number]): T {
  return (e ? { ...e, lower: Math.max(lo, e.lower), upper: Math.min(hi, e.upper) } : e) as T;
}

/** PPI++ of one group (mean or ratio), and the classical estimate from its labels; null below `min` labelled (or unlabelled) candidates. */
function groupEstimate(p: Prepared, units: readonly number[], form: 'mean' | 'ratio', alpha: number, min: number): { estimator: PredictionPoweredInterval | null; classical: EstimateInterval | null } {
  const s = sides(p, units);
  let classical: EstimateInterval | null = null;
  if (s.L.length >= Math.max(2, min)) {
    if (form === 'mean') classical = classicalMean(s.y.map((f) => f[0]), { alpha });
    else {
      const d = mean(s.y.map((f) => f[1]));
      if (d > 0) {
        const R = mean(s.y.map((f) => f[0])) / d;
        const psi = classicalMean(s.y.map(linear(form, R, d)), { alpha });
        classical = { estimate: R, lower: R - (psi.estimate - psi.lower), upper: R + (psi.upper - psi.estimate), standardError: psi.standardError };
      }
    }
  }
  if (s.L.length < Math.max(2, min) || s.U.length < Math.max(2, min)) return { estimator: null, classical };
  if (form === 'mean') return { estimator: predictionPoweredMean(s.y.map((f) => f[0]), s.yhat.map((f) => f[0]), s.yhatU.map((f) => f[0]), { alpha }), classical };
  // ratio: pilot with λ = 1, tune λ on ψ, estimate both means with that λ
  const ppiMeans = (lambda: number) => [0, 1].map((c) => predictionPoweredMean(s.y.map((f) => f[c]), s.yhat.map((f) => f[c]), s.yhatU.map((f) => f[c]), { alpha, lambda }).estimate);
  const [n1, d1] = ppiMeans(1);
  if (!(d1 > 0)) return { estimator: null, classical };
  const lin = linear(form, n1 / d1, d1);
  const lambda = powerTunedLambda(s.y.map(lin), s.yhat.map(lin), s.yhatU.map(lin));
  const [n, d] = ppiMeans(lambda);
  if (!(d > 0)) return { estimator: null, classical };
  const R = n / d;
  const lin2 = linear(form, R, d);
  const psi = predictionPoweredMean(s.y.map(lin2), s.yhat.map(lin2), s.yhatU.map(lin2), { alpha, lambda });
  const half = psi.upper - psi.estimate;
  return { estimator: { estimate: R, lower: R - half, upper: R + half, standardError: psi.standardError, lambda }, classical };
}

/**
 * Prediction-powered estimates per group (and a difference) from a fixed sample of expert labels; see the module
 * comment.
 *
 * @throws Error without a predictor, with --calibration none and an evaluator or missing predictions, or bad groups
 */
export function fixedSampleEstimates(items: readonly DialogueItem[], options: FixedSampleOptions): FixedSampleResult {
  const alpha = options.alpha ?? 0.05;
  const prepared = prepare(items, options);
  const { pool } = prepared;
  const form = pool.estimand.scale(pool.labelsPerCandidate, pool.maxLabels).form;
  const strata = poolStrata(pool, { groups: options.groups });
  const min = options.minLabelled ?? 10;
  const bounds = pool.estimand.scale(pool.labelsPerCandidate, pool.maxLabels).bounds;
  const groups = strata.map((s) => {
    const g = groupEstimate(prepared, s.units, form, alpha, min);
    return { key: s.key, candidates: s.units.length, labelled: s.units.filter((i) => pool.units[i].outcome !== null).length, estimator: clip(g.estimator, bounds), classical: clip(g.classical, bounds) };
  });
  let difference: FixedSampleDifference | null = null;
  if (options.compare) {
    const [st] = poolStrata(pool, { compare: options.compare });
    const first = st.units.filter((_, j) => st.slots[j] === 0);
    const second = st.units.filter((_, j) => st.slots[j] === 1);
    const ctx = (us: number[]) => new Set(us.map((i) => pool.units[i].itemId));
    const c1 = ctx(first);
    const shared = [...ctx(second)].filter((c) => c1.has(c)).length;
    const paired = options.pairing === 'paired' || (options.pairing !== 'unpaired' && shared > 0);
    // linearise at the groups' own classical ratios for a ratio estimand (means: the outcome itself)
    const at = (us: number[]) => {
      if (form === 'mean') return linear('mean', 0, 1);
      const ys = us.filter((i) => pool.units[i].outcome !== null).map((i) => pool.units[i].outcome as number[]);
      const d = ys.length ? mean(ys.map((f) => f[1])) : 0;
      return linear('ratio', d > 0 ? mean(ys.map((f) => f[0])) / d : 0, d > 0 ? d : 1);
    };
    const lin = [at(first), at(second)];
    let estimator: PredictionPoweredInterval | null = null;
    let classical: EstimateInterval | null = null;
    const sa = sides(prepared, first);
    const sb = sides(prepared, second);
    const enough = sa.L.length >= min && sb.L.length >= min;
    if (enough) classical = classicalMeanDifference(sa.y.map(lin[0]), sb.y.map(lin[1]), { alpha });
    try {
      if (!enough || sa.U.length < min || sb.U.length < min) throw new RangeError('too few');
      if (paired) {
        estimator = pairedPredictionPoweredDifference(
          [first, second].flatMap((us, g) => us.map((i) => ({ cluster: pool.units[i].itemId, group: g as 0 | 1, yhat: lin[g](prepared.predictions[i]), ...(pool.units[i].outcome !== null ? { y: lin[g](pool.units[i].outcome as number[]) } : {}) }))),
          { alpha },
        );
      } else {
        estimator = predictionPoweredMeanDifference({ y: sa.y.map(lin[0]), yhat: sa.yhat.map(lin[0]), yhatUnlabelled: sa.yhatU.map(lin[0]) }, { y: sb.y.map(lin[1]), yhat: sb.yhat.map(lin[1]), yhatUnlabelled: sb.yhatU.map(lin[1]) }, { alpha });
      }
    } catch {
      estimator = null; // too few labelled or unlabelled candidates on a side
    }
    if (form === 'ratio' && estimator) {
      // centre the ratio difference on the two groups' PPI ratios; the interval's half-width comes from ψ
      const ga = groups.find((g) => g.key === options.compare?.[0])?.estimator ?? groupEstimate(prepared, first, form, alpha, min).estimator;
      const gb = groups.find((g) => g.key === options.compare?.[1])?.estimator ?? groupEstimate(prepared, second, form, alpha, min).estimator;
      if (ga && gb) {
        const half = estimator.upper - estimator.estimate;
        const e = ga.estimate - gb.estimate;
        estimator = { ...estimator, estimate: e, lower: e - half, upper: e + half };
      }
    }
    const range: [number, number] = [bounds[0] - bounds[1], bounds[1] - bounds[0]];
    difference = { key: st.key, paired, sharedContexts: shared, estimator: clip(estimator, range), classical: clip(classical, range) };
  }
  return { estimand: pool.estimand.name, human: pool.human, predictors: pool.predictors, calibration: prepared.calibration, alpha, groups, difference };
}
