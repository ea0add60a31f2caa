/**
 * Replays plans on a fully labelled file to measure them: each run starts with no label, draws candidates by the
 * design and reveals a candidate's label only when the design draws it, checking the stopping rule after every
 * label. The same runs under the uniform design (random order, same estimator and interval, and the same working
 * model, chosen from the labels in the same way) are the baseline: what the design alone buys. A second baseline is
 * the uniform design with the plain estimator (no model predictions as control variates; its weights come from the
 * fixed kernel model, as before the model was chosen from the labels).
 */
import type { HumanScoreSpec } from '../rubric/labelValues';
import seedrandom from 'seedrandom';
import type { DialogueItem } from '../dialogue/types';
import type { GroupRules, HumanGroup } from '../labels/groups';
import { normalMixtureBoundary, normalMixtureM } from '../stats/confidenceSequence';
import { anticipatedLabels, planSettings, workingModelSettings, type PlanSettings } from './planner';
import { assistCoordinates, fullyLabelledPool } from './pool';
import { SequentialPlan, type DesignKind } from '../design/sequentialPlan';

/** Options of {@link simulatePlans}. */
export interface SimulationOptions extends Partial<PlanSettings> {
  evaluator: string;
  against?: string;
  human: HumanGroup | 'auto';
  labelsPerCandidate?: number;
  /** Half-width targets (each gets its own stop in every run). */
  halfWidths: number[];
  /** Runs per design (≥ 1). */
  runs: number;
  seed?: string | number;
  groupRules?: GroupRules;
  /** Restrict the pool to one column (see {@link labellingPool}). */
  column?: { groupBy: string; value: string };
  /** Assisting signals of the working model (see {@link PoolOptions.assist}). */
  assist?: string[];
  /** The human score's dimension and rule (see {@link PoolOptions.spec}). */
  spec?: HumanScoreSpec;
  /**
   * Known level probabilities (N × K over the fully labelled pool, in file order) used by every design instead of
   * the model fitted to the labels revealed: for measuring what learning the model costs
   * (`scripts/planning/boundGap.ts`); passed to each `SequentialPlan` as its `fixedLevels`.
   */
  fixedLevels?: Float64Array;
}

/** Per-target results. */
export interface SimulatedTarget {
  halfWidth: number;
  /** Mean planned labels at the stop, planner design. */
  planner: number;
  /** Mean labels at the stop, uniform random order (same estimator and interval). */
  random: number;
  /** Mean labels at the stop, uniform random order with the plain estimator (no working model). */
  randomPlain: number;
  /** Share of runs whose interval at the stop covered the pool value. */
  plannerCoverage: number;
  randomCoverage: number;
  randomPlainCoverage: number;
}

/** The decision rule's results (pairs only). */
export interface SimulatedDecision {
  planner: number;
  random: number;
  /** Share of runs that declared the winner the pool value contradicts. */
  plannerWrong: number;
  randomWrong: number;
  plannerCoverage: number;
  randomCoverage: number;
}

/** What `plan-labels --simulate` prints. */
export interface SimulationResult {
  targets: SimulatedTarget[];
  /** Share of the planner's stops (every run × every target, and the decision stop for a pair) whose interval covered the pool value. */
  coverage: number;
  /** Planner: share of runs whose decision contradicts the pool's difference (null without a pair). */
  wrongDecisionRate: number | null;
  decision: SimulatedDecision | null;
  runs: number;
  /** Candidates in the simulated pool (scored and fully labelled). */
  pool: number;
  /** Scored candidates left out because they are not fully labelled. */
  notFullyLabelled: number;
  /** The pool's rho (or rho_A − rho_B): what the intervals should cover. */
  poolValue: number;
  poolRhos: number[];
  human: HumanGroup;
  level: number;
  settings: PlanSettings;
}

interface RunOutcome {
  labels: number[];
  covered: boolean[];
  decision?: { labels: number; wrong: boolean; covered: boolean };
}

/**
 * Simulates `runs` plans per design on the fully labelled candidates of `items`.
 *
 * @throws Error when fewer than 3 scored candidates are fully labelled, or the pool's rho is undefined
 */
export function simulatePlans(items: readonly DialogueItem[], options: SimulationOptions): SimulationResult {
  const settings = planSettings(options);
  if (!(Number.isInteger(options.runs) && options.runs >= 1)) throw new RangeError(`runs must be a positive integer (got ${options.runs})`);
  if (options.halfWidths.some((h) => !(h > 0))) throw new RangeError('half-width targets must be positive');
  const { pool, notFullyLabelled, totals, truth, y } = fullyLabelledPool(items, options, 'a simulation');
  const candidates = pool.candidates;
  const assistCoords = assistCoordinates(pool);
  const alpha = 1 - settings.level;
  const n = candidates.length;
  const ms = options.halfWidths.map((h) => normalMixtureM(anticipatedLabels({ halfWidth: h }, n, settings.level, settings.minLabels), alpha));
  const mDecide = normalMixtureM(anticipatedLabels({ decide: true }, n, settings.level, settings.minLabels), alpha);
  const seed = String(options.seed ?? 1);
  const range = options.against ? 2 : 1;
  const covers = (value: number, hw: number) => Math.max(-range, value - hw) <= truth.value + 1e-12 && truth.value - 1e-12 <= Math.min(range, value + hw);

  const run = (design: DesignKind, r: number, assisted = true): RunOutcome => {
    const rng = seedrandom.alea(`${seed}\u0000${design}${assisted ? '' : '-plain'}\u0000${r}`);
    const clocks = Float64Array.from(candidates, () => -Math.log(1 - rng()));
    const plan = new SequentialPlan(totals, clocks, new Map(), {
      design,
      batch: settings.batch,
      defensive: settings.defensive,
      // The plain baseline keeps the fixed model (its weights 1/σ̂ are all it uses of one), as before the choice existed.
      ...workingModelSettings(assisted ? settings : { ...settings, modelSelection: null }, Boolean(options.against)),
      assisted,
      ...(assistCoords.length ? { assistCoords } : {}),
      ...(options.fixedLevels ? { fixedLevels: options.fixedLevels } : {}),
    });
    const out: RunOutcome = { labels: options.halfWidths.map(() => -1), covered: options.halfWidths.map(() => false) };
    let decided = !options.against;
    const pending = () => out.labels.some((l) => l < 0) || !decided;
    while (pending()) {
      for (const d of plan.drawBatch()) {
        plan.reveal(y[d.unit]);
        const est = plan.estimate(alpha, mDecide);
        const labels = plan.revealed;
        if (est.exact) {
          const v = est.value as number;
          options.halfWidths.forEach((_, j) => {
            if (out.labels[j] < 0) {
              out.labels[j] = labels;
              out.covered[j] = covers(v, 0);
            }
          });
          if (!decided) {
            out.decision = { labels, wrong: false, covered: covers(v, 0) };
            decided = true;
          }
          break;
        }
        if (labels < settings.minLabels || est.value === null) continue;
        const value = est.value;
        options.halfWidths.forEach((h, j) => {
          if (out.labels[j] >= 0) return;
          const hw = normalMixtureBoundary(est.intrinsicTime, ms[j], alpha) / est.weightSum;
          if (hw <= h) {
            out.labels[j] = labels;
            out.covered[j] = covers(value, hw);
          }
        });
        if (!decided && est.halfWidth !== null) {
          const lower = value - est.halfWidth;
          const upper = value + est.halfWidth;
          if (lower > 0 || upper < 0) {
            const sign = lower > 0 ? 1 : -1;
            out.decision = { labels, wrong: !(sign * truth.value > 0), covered: covers(value, est.halfWidth) };
            decided = true;
          }
        }
        if (!pending()) break;
      }
    }
    return out;
  };

  const planner: RunOutcome[] = [];
  const random: RunOutcome[] = [];
  const plain: RunOutcome[] = [];
  for (let r = 0; r < options.runs; r++) {
    planner.push(run('planner', r));
    random.push(run('uniform', r));
    plain.push(run('uniform', r, false));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const share = (xs: boolean[]) => xs.filter(Boolean).length / xs.length;
  const targets = options.halfWidths.map((halfWidth, j) => ({
    halfWidth,
    planner: mean(planner.map((o) => o.labels[j])),
    random: mean(random.map((o) => o.labels[j])),
    randomPlain: mean(plain.map((o) => o.labels[j])),
    plannerCoverage: share(planner.map((o) => o.covered[j])),
    randomCoverage: share(random.map((o) => o.covered[j])),
    randomPlainCoverage: share(plain.map((o) => o.covered[j])),
  }));
  const decision = options.against
    ? {
        planner: mean(planner.map((o) => o.decision?.labels ?? n)),
        random: mean(random.map((o) => o.decision?.labels ?? n)),
        plannerWrong: share(planner.map((o) => o.decision?.wrong ?? false)),
        randomWrong: share(random.map((o) => o.decision?.wrong ?? false)),
        plannerCoverage: share(planner.map((o) => o.decision?.covered ?? true)),
        randomCoverage: share(random.map((o) => o.decision?.covered ?? true)),
      }
    : null;
  const stops = planner.flatMap((o) => [...o.covered, ...(o.decision ? [o.decision.covered] : [])]);
  return {
    targets,
    coverage: share(stops),
    wrongDecisionRate: decision ? decision.plannerWrong : null,
    decision,
    runs: options.runs,
    pool: n,
    notFullyLabelled,
    poolValue: truth.value,
    poolRhos: truth.rhos,
    human: pool.human,
    level: settings.level,
    settings,
  };
}
