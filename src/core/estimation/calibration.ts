/**
 * Cross-fitted calibration of predictors to the label scale (docs/estimation.md §2.2): a judge's 1–10 score, a
 * metric, or several predictors at once become a prediction of a candidate's outcome F (its coherence, an error's
 * indicator, a rating), fitted on the labelled candidates.
 *
 * The map is least squares of each outcome component on the predictors' values (an intercept, every value column,
 * and for a predictor some candidates lack a 0/1 column saying which, with the missing value set to 0), with a tiny
 * ridge (1e-8 × n) for stability. With several predictors it is the best linear combination of them. Fitted on the
 * same labels the estimator then uses, its predictions on those labels would be too good and the interval too narrow;
 * so it is cross-fitted (Zrnic & Candès 2024, "Cross-prediction-powered inference", PNAS 121(15)): the labelled
 * candidates are split into K folds (seeded), each labelled candidate is predicted by the map fitted without its fold,
 * and each unlabelled candidate by the mean of the K maps.
 */
import seedrandom from 'seedrandom';
import { shuffled } from '../stats/shuffle';
import { solveSpd } from '../stats/cholesky';

/** Predictions of every candidate's outcome, in the label scale. */
export interface Calibrated {
  /** Per candidate, the predicted outcome (length = outcome dimension). */
  predictions: number[][];
  /** Folds used (0: no fit, the predictor's own values). */
  folds: number;
  /** The design's columns: `intercept`, `<predictor>[<component>]`, `<predictor> missing`. */
  columns: string[];
}

/** The design row of a candidate: intercept, values (0 where missing), and a missing indicator per predictor that needs one. */
export function calibrationDesign(values: readonly (readonly (readonly number[] | null)[])[], names: readonly string[]): { rows: number[][]; columns: string[] } {
  const predictors = names.length;
  const width = names.map((_, p) => Math.max(0, ...values.map((v) => v[p]?.length ?? 0)));
  const anyMissing = names.map((_, p) => values.some((v) => v[p] === null));
  const columns = ['intercept'];
  names.forEach((n, p) => {
    for (let c = 0; c < width[p]; c++) columns.push(width[p] > 1 ? `${n}[${c}]` : n);
    if (anyMissing[p]) columns.push(`${n} missing`);
  });
  // drop value columns that never vary (they would make the design singular; the ridge keeps it solvable anyway)
  const rows = values.map((v) => {
    const row = [1];
    for (let p = 0; p < predictors; p++) {
      for (let c = 0; c < width[p]; c++) row.push(v[p]?.[c] ?? 0);
      if (anyMissing[p]) row.push(v[p] === null ? 1 : 0);
    }
    return row;
  });
  return { rows, columns };
}

/** Ridge least squares β = (XᵀX + ρI₋₀)⁻¹Xᵀy (no penalty on the intercept), by Cholesky. */
function fit(rows: readonly number[][], y: readonly number[], ridge: number): Float64Array {
  const p = rows[0].length;
  const a = new Float64Array(p * p);
  const b = new Float64Array(p);
  rows.forEach((r, i) => {
    for (let j = 0; j < p; j++) {
      b[j] += r[j] * y[i];
      for (let k = 0; k < p; k++) a[j * p + k] += r[j] * r[k];
    }
  });
  for (let j = 1; j < p; j++) a[j * p + j] += ridge;
  a[0] += 1e-12;
  return solveSpd(a, b, p, { pivotFloor: 1e-300 })!;
}

const dot = (r: readonly number[], b: Float64Array) => r.reduce((s, v, j) => s + v * b[j], 0);

/**
 * Cross-fitted linear calibration (see the module comment).
 *
 * @param values - per candidate, the predictors' values (null where a predictor has none)
 * @param names - the predictors' names (for the columns)
 * @param outcomes - per candidate, its outcome when labelled, else null (the dimension of every outcome is the same)
 * @param options - folds K (default 5; at most the labelled count), seed of the fold split
 * @throws RangeError on fewer than 2 labelled candidates or K < 2
 */
export function crossFittedCalibration(values: readonly (readonly (readonly number[] | null)[])[], names: readonly string[], outcomes: readonly (readonly number[] | null)[], options: { folds?: number; seed?: string } = {}): Calibrated {
  const labelled = outcomes.flatMap((o, i) => (o ? [i] : []));
  if (labelled.length < 2) throw new RangeError(`calibration needs at least 2 labelled candidates (got ${labelled.length})`);
  const K = Math.min(options.folds ?? 5, labelled.length);
  if (K < 2) throw new RangeError(`calibration needs at least 2 folds (got ${K})`);
  const dim = (outcomes[labelled[0]] as number[]).length;
  const { rows, columns } = calibrationDesign(values, names);
  // seeded fold split: a shuffled order of the labelled candidates, dealt round-robin
  const rng = seedrandom.alea(options.seed ?? 'calibration');
  const order = shuffled(labelled, rng);
  const fold = new Map<number, number>();
  order.forEach((i, j) => fold.set(i, j % K));
  const predictions = values.map(() => new Array<number>(dim).fill(0));
  for (let k = 0; k < K; k++) {
    const train = labelled.filter((i) => fold.get(i) !== k);
    const ridge = 1e-8 * train.length;
    const betas = Array.from({ length: dim }, (_, d) => fit(train.map((i) => rows[i]), train.map((i) => (outcomes[i] as number[])[d]), ridge));
    rows.forEach((r, i) => {
      const own = fold.get(i);
      if (own === undefined) for (let d = 0; d < dim; d++) predictions[i][d] += dot(r, betas[d]) / K;
      else if (own === k) for (let d = 0; d < dim; d++) predictions[i][d] = dot(r, betas[d]);
    });
  }
  return { predictions, folds: K, columns };
}
