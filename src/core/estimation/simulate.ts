/**
 * Replays estimate plans on a fully labelled file to measure them (docs/estimation.md §5): each run starts with no
 * expert label, draws candidates by the design and reveals a candidate's label only when the design draws it, and
 * stops each stratum when its anytime interval reaches the half-width. Three estimators run on the same pools:
 *
 * - `estimator`: the planner's design with the predictors (active selection and prediction-powered estimation);
 * - `random`: uniform random order with the same predictors and estimator (what prediction alone buys);
 * - `classical`: uniform random order without predictors (expert-only; the working model is the level shares alone,
 *   so the estimator is the design-weighted mean of the labels with the same anytime interval).
 */
import seedrandom from 'seedrandom';
import type { DialogueItem } from '../dialogue/types';
import type { EstimandSpec } from '../design/planRecord';
import { checkSettings, workingModelSettings, type PlanSettings } from '../design/planSettings';
import type { DesignKind } from '../design/sequentialPlan';
import type { GroupRules, HumanGroup } from '../labels/groups';
import { anticipatedEstimateLabels, estimateSettings, poolStrata, StrataRun, stratumModels, unitLevel, type StratumUnits } from './activePlan';
import type { EstimandScale } from './estimands';
import { estimationPool, type EstimationPool } from './pool';

/** Options of {@link simulateEstimates}. */
export interface EstimateSimulationOptions extends Partial<PlanSettings> {
  estimand: EstimandSpec;
  human?: HumanGroup;
  predictors: string[];
  by?: string;
  compare?: [string, string];
  groups?: string[];
  labelsPerCandidate?: number;
  /** Half-widths (each gets its own runs: the order of batches between strata depends on it). */
  halfWidths: number[];
  /** Runs per estimator and half-width (≥ 1). */
  runs: number;
  seed?: string | number;
  groupRules?: GroupRules;
  /** Which estimators to run (default all three). */
  estimators?: SimulatedEstimator[];
}

/** An estimator of the simulation (see the module comment). */
export type SimulatedEstimator = 'estimator' | 'random' | 'classical';

/** Per estimator at one half-width. */
export interface SimulatedOutcome {
  /** Mean expert labels until every stratum stopped. */
  labels: number;
  /** Monte-Carlo standard error of that mean. */
  labelsSe: number;
  /** Share of (run × stratum) stops whose interval held the stratum's pool value. */
  coverage: number;
}

/** One half-width's results. */
export interface SimulatedEstimateTarget {
  halfWidth: number;
  estimator?: SimulatedOutcome;
  random?: SimulatedOutcome;
  classical?: SimulatedOutcome;
}

/** What {@link simulateEstimates} returns. */
export interface EstimateSimulationResult {
  targets: SimulatedEstimateTarget[];
  /** The estimator's coverage over every run, stratum and half-width. */
  coverage: number;
  runs: number;
  /** Fully labelled candidates in the strata. */
  pool: number;
  /** Candidates of the strata left out because they are not fully labelled. */
  notFullyLabelled: number;
  /** Each stratum's pool value (what the intervals should cover) and size. */
  strata: { key: string; candidates: number; value: number }[];
  estimand: string;
  human: HumanGroup;
  predictors: string[];
  level: number;
  settings: PlanSettings;
}

/** A fully labelled pool ready to simulate: the pool restricted to fully labelled candidates, strata, scale, levels, truths. */
export interface LabelledStrata {
  pool: EstimationPool;
  strata: StratumUnits[];
  scale: EstimandScale;
  /** Level index of every pool unit. */
  levels: number[];
  truths: number[];
  notFullyLabelled: number;
}

/**
 * The fully labelled candidates of a file as strata with their exact values.
 *
 * @throws Error when a stratum has fewer than 2 fully labelled candidates or its value is undefined
 */
export function labelledStrata(items: readonly DialogueItem[], options: Pick<EstimateSimulationOptions, 'estimand' | 'human' | 'predictors' | 'by' | 'compare' | 'groups' | 'labelsPerCandidate' | 'groupRules'>, purpose: string): LabelledStrata {
  const full = estimationPool(items, { estimand: options.estimand, human: options.human, predictors: options.predictors, ...(options.by !== undefined ? { by: options.by } : {}), labelsPerCandidate: options.labelsPerCandidate, groupRules: options.groupRules });
  const strataAll = poolStrata(full, options);
  const inStrata = new Set(strataAll.flatMap((s) => s.units));
  const keep = full.units.map((u, i) => inStrata.has(i) && u.outcome !== null);
  const notFullyLabelled = [...inStrata].filter((i) => !keep[i]).length;
  const pool: EstimationPool = { ...full, units: full.units.filter((_, i) => keep[i]) };
  const strata = poolStrata(pool, options);
  const scale = pool.estimand.scale(pool.labelsPerCandidate, pool.maxLabels);
  const levels = pool.units.map((_, i) => unitLevel(pool, scale, i));
  const models = stratumModels(pool, strata, scale, new Set(), strata.map(() => 1));
  const truths = models.map((m, j) => {
    if (m.units.length < 2) throw new Error(`group "${m.key}" has ${m.units.length} fully labelled candidate(s); ${purpose} needs at least 2 in every group`);
    const v = m.totals.evaluate(m.totals.totals(m.units.map((i) => levels[i])));
    if (!v) throw new Error(`the value of "${strata[j].key}" is undefined on the fully labelled pool (no candidate in its denominator)`);
    return v.value;
  });
  return { pool, strata, scale, levels, truths, notFullyLabelled };
}

/**
 * Simulates `runs` plans per estimator and half-width on the fully labelled candidates of `items`.
 *
 * @throws RangeError on bad settings; Error when a stratum has too few fully labelled candidates
 */
export function simulateEstimates(items: readonly DialogueItem[], options: EstimateSimulationOptions): EstimateSimulationResult {
  if (!(Number.isInteger(options.runs) && options.runs >= 1)) throw new RangeError(`runs must be a positive integer (got ${options.runs})`);
  if (options.halfWidths.length === 0 || options.halfWidths.some((h) => !(h > 0))) throw new RangeError('half-width targets must be positive');
  const ls = labelledStrata(items, options, 'a simulation');
  const settings = estimateSettings(options, ls.scale.levels.length);
  checkSettings(settings);
  const seed = String(options.seed ?? 1);
  const estimators = options.estimators ?? ['estimator', 'random', 'classical'];
  const noPredictors: EstimationPool = { ...ls.pool, units: ls.pool.units.map((u) => ({ ...u, predictors: [] })) };
  const run = (h: number, which: SimulatedEstimator, r: number) => {
    const pool = which === 'classical' ? noPredictors : ls.pool;
    const anticipated = ls.strata.map((s) => anticipatedEstimateLabels(h, s.units.length, ls.scale, settings.level, settings.minLabels, Boolean(options.compare)));
    const models = stratumModels(pool, ls.strata, ls.scale, new Set(), anticipated);
    const rng = seedrandom.alea(`${seed}\u0000${which}\u0000${h}\u0000${r}`);
    const clocks = ls.strata.map((s) => Float64Array.from(s.units, () => -Math.log(1 - rng())));
    const design: DesignKind = which === 'estimator' ? 'planner' : 'uniform';
    const sim = new StrataRun(models, clocks, { design, batch: settings.batch, defensive: settings.defensive, ...workingModelSettings(settings, false) }, { level: settings.level, halfWidth: h, minLabels: settings.minLabels });
    sim.advance((s, local) => ls.levels[ls.strata[s].units[local]]);
    const covered = sim.stops.map((stop, j) => {
      const e = stop?.estimate;
      if (!e || e.value === null) return false;
      if (e.exact) return Math.abs(e.value - ls.truths[j]) < 1e-9;
      return (e.lower as number) - 1e-12 <= ls.truths[j] && ls.truths[j] <= (e.upper as number) + 1e-12;
    });
    return { labels: sim.labels, covered };
  };
  const stats = (xs: number[]) => {
    const m = xs.reduce((a, b) => a + b, 0) / xs.length;
    const v = xs.length > 1 ? xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1) : 0;
    return { mean: m, se: Math.sqrt(v / xs.length) };
  };
  let covered = 0;
  let stops = 0;
  const targets = options.halfWidths.map((halfWidth) => {
    const out: SimulatedEstimateTarget = { halfWidth };
    for (const which of estimators) {
      const labels: number[] = [];
      let c = 0;
      let n = 0;
      for (let r = 0; r < options.runs; r++) {
        const o = run(halfWidth, which, r);
        labels.push(o.labels);
        for (const x of o.covered) {
          n++;
          if (x) c++;
        }
      }
      if (which === 'estimator') {
        covered += c;
        stops += n;
      }
      const s = stats(labels);
      out[which] = { labels: s.mean, labelsSe: s.se, coverage: c / n };
    }
    return out;
  });
  return {
    targets,
    coverage: stops ? covered / stops : NaN,
    runs: options.runs,
    pool: new Set(ls.strata.flatMap((s) => s.units)).size,
    notFullyLabelled: ls.notFullyLabelled,
    strata: ls.strata.map((s, j) => ({ key: s.key, candidates: s.units.length, value: ls.truths[j] })),
    estimand: ls.pool.estimand.name,
    human: ls.pool.human,
    predictors: ls.pool.predictors,
    level: settings.level,
    settings,
  };
}
