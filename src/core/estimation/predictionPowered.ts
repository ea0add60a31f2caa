/**
 * Prediction-powered inference for a fixed sample (docs/estimation.md §2): a mean, and a difference of two groups'
 * means, from expert labels on a few candidates and predictions on all of them, with the classical expert-only
 * interval beside them.
 *
 * Setting (Angelopoulos, Bates, Fannjiang, Jordan & Zrnic 2023, "Prediction-powered inference", Science 382; PPI++:
 * Angelopoulos, Duchi & Zrnic 2024, "PPI++: Efficient prediction-powered inference", arXiv:2311.01453): n labelled
 * units with label Y and prediction Ŷ, N unlabelled units with prediction Ŷ only, all independent draws from one
 * population. For the mean θ = E[Y] and a tuning parameter λ,
 *
 *   θ̂_λ = mean(λ·Ŷ_unlabelled) + mean(Y − λ·Ŷ),   se² = var(λ·Ŷ_unlabelled)/N + var(Y − λ·Ŷ)/n,
 *
 * unbiased for every λ (λ = 0 is the classical mean, λ = 1 the original PPI). PPI++ "power-tunes" λ to the value that
 * minimises the variance, estimated from the data and clipped to [0, 1]:
 *
 *   λ̂ = Cov̂(Y, Ŷ) / ((1 + n/N)·Var̂(Ŷ)),
 *
 * so the interval is never wider than the classical one up to the error of λ̂'s own estimate (at λ = 0 it is the
 * classical interval). A difference of two groups' means is the slope of an ordinary least squares regression of Y on
 * an intercept and a group indicator; PPI++ for OLS (Angelopoulos, Duchi & Zrnic 2024, §3 and Algorithm 1, with the
 * sandwich variance H⁻¹(n/N·Var(λ·∇ℓ̂ᵘ) + Var(∇ℓ − λ·∇ℓ̂))H⁻¹/n) gives it with its own tuned λ.
 *
 * Reference implementation: `ppi_py` 0.2.3 (github.com/aangelopoulos/ppi_py, commit bd90caa), functions
 * `ppi_mean_pointestimate`, `ppi_mean_ci`, `ppi_ols_pointestimate`, `ppi_ols_ci`, `classical_mean_ci`,
 * `classical_ols_ci` and `_calc_lam_glm`; `test/core/estimation/predictionPoweredParity.test.ts` checks every number
 * against it to 1e-9 (`scripts/parity/ppi_reference.py`). Variances divide by the count (numpy's default) where
 * `ppi_py` does, and by count − 1 where it uses `np.cov`.
 */
import { studentTQuantile } from '../stats/bootstrap';
import { normalUpperQuantile } from '../stats/confidenceSequence';

/** A two-sided interval for one number. */
export interface EstimateInterval {
  estimate: number;
  lower: number;
  upper: number;
  /** The standard error the interval is estimate ± z·se of. */
  standardError: number;
}

/** A prediction-powered interval: the estimate, its interval and the λ it used. */
export interface PredictionPoweredInterval extends EstimateInterval {
  /** The power-tuning parameter used, in [0, 1] (0: the classical estimate; 1: PPI without tuning). */
  lambda: number;
}

/** Options of the fixed-sample estimators. */
export interface PredictionPoweredOptions {
  /** Error level α in (0, 1): the interval has coverage 1 − α (default 0.05). */
  alpha?: number;
  /** A fixed λ (any real); default: power-tuned ({@link powerTunedLambda}), clipped to [0, 1]. */
  lambda?: number;
}

function mean(x: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return s / x.length;
}

/** Variance dividing by the count (numpy's `var`/`std` default). */
function populationVariance(x: ArrayLike<number>): number {
  const m = mean(x);
  let s = 0;
  for (let i = 0; i < x.length; i++) s += (x[i] - m) * (x[i] - m);
  return s / x.length;
}

function checkAlpha(alpha: number): void {
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`alpha must be in (0, 1) (got ${alpha})`);
}

function checkFinite(name: string, x: ArrayLike<number>): void {
  for (let i = 0; i < x.length; i++) if (!Number.isFinite(x[i])) throw new RangeError(`${name}[${i}] must be a finite number (got ${x[i]})`);
}

function checkSample(y: ArrayLike<number>, yhat: ArrayLike<number>, yhatUnlabelled: ArrayLike<number>): void {
  if (y.length !== yhat.length) throw new RangeError(`labels and predictions on the labelled units differ in length (${y.length} vs ${yhat.length})`);
  if (y.length < 2) throw new RangeError(`at least 2 labelled units are needed (got ${y.length})`);
  if (yhatUnlabelled.length < 2) throw new RangeError(`at least 2 unlabelled units are needed (got ${yhatUnlabelled.length})`);
  checkFinite('y', y);
  checkFinite('yhat', yhat);
  checkFinite('yhatUnlabelled', yhatUnlabelled);
}

/** z_{1−α/2}. */
function zTwoSided(alpha: number): number {
  return normalUpperQuantile(alpha / 2);
}

/**
 * The Student t quantile t_{df, 1−p} (P(T > t) = p): the reference distribution of a cluster-robust interval with
 * few clusters (df = clusters − 1; Cameron & Miller 2015, §VI). One bisection for the whole project: stats'
 * {@link studentTQuantile} at 1 − p.
 *
 * @throws RangeError on df < 1 or p outside (0, 1)
 */
export function studentUpperQuantile(p: number, df: number): number {
  if (!(df >= 1)) throw new RangeError(`degrees of freedom must be ≥ 1 (got ${df})`);
  if (!(p > 0 && p < 1)) throw new RangeError(`p must be in (0, 1) (got ${p})`);
  return studentTQuantile(1 - p, df);
}

/**
 * The PPI++ power-tuned λ for a mean (Angelopoulos, Duchi & Zrnic 2024, Example 6.1; `ppi_py` `_calc_lam_glm` with an
 * identity Hessian): λ̂ = [Σ(Y − Ȳ)(Ŷ − Ŷ̄)/n] / [(1 + n/N)·s²], s² the variance (count − 1) of the predictions on the
 * labelled and unlabelled units together, clipped to [0, 1]. With predictions that do not vary (s² = 0) λ̂ = 0.
 *
 * @param y - labels of the n labelled units
 * @param yhat - predictions on the labelled units (n)
 * @param yhatUnlabelled - predictions on the N unlabelled units
 * @returns λ̂ in [0, 1]
 * @throws RangeError on unequal lengths, fewer than 2 units on either side, or a value that is not finite
 */
export function powerTunedLambda(y: ArrayLike<number>, yhat: ArrayLike<number>, yhatUnlabelled: ArrayLike<number>): number {
  checkSample(y, yhat, yhatUnlabelled);
  const n = y.length;
  const N = yhatUnlabelled.length;
  const my = mean(y);
  const mh = mean(yhat);
  let cov = 0;
  for (let i = 0; i < n; i++) cov += (y[i] - my) * (yhat[i] - mh);
  cov /= n;
  let all = 0;
  for (let i = 0; i < n; i++) all += yhat[i];
  for (let i = 0; i < N; i++) all += yhatUnlabelled[i];
  all /= n + N;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (yhat[i] - all) ** 2;
  for (let i = 0; i < N; i++) ss += (yhatUnlabelled[i] - all) ** 2;
  const variance = ss / (n + N - 1);
  if (!(variance > 0)) return 0;
  const lambda = cov / ((1 + n / N) * variance);
  return Math.min(1, Math.max(0, lambda));
}

/**
 * The prediction-powered mean and its interval (PPI++; `ppi_py` `ppi_mean_ci` and `ppi_mean_pointestimate`): see the
 * module comment. λ is power-tuned unless given.
 *
 * @param y - labels of the n labelled units
 * @param yhat - predictions on the labelled units (n)
 * @param yhatUnlabelled - predictions on the N unlabelled units
 * @returns the estimate, the 1 − α interval estimate ± z_{1−α/2}·se, se and λ
 * @throws RangeError on unequal lengths, fewer than 2 units on either side, a value that is not finite, or α outside (0, 1)
 */
export function predictionPoweredMean(y: ArrayLike<number>, yhat: ArrayLike<number>, yhatUnlabelled: ArrayLike<number>, options: PredictionPoweredOptions = {}): PredictionPoweredInterval {
  const alpha = options.alpha ?? 0.05;
  checkAlpha(alpha);
  checkSample(y, yhat, yhatUnlabelled);
  const lambda = options.lambda ?? powerTunedLambda(y, yhat, yhatUnlabelled);
  const n = y.length;
  const N = yhatUnlabelled.length;
  const imputed = Float64Array.from(yhatUnlabelled as ArrayLike<number>, (v) => lambda * v);
  const rectifier = Float64Array.from({ length: n }, (_, i) => y[i] - lambda * yhat[i]);
  const estimate = mean(imputed) + mean(rectifier);
  const standardError = Math.sqrt(populationVariance(imputed) / N + populationVariance(rectifier) / n);
  const z = zTwoSided(alpha);
  return { estimate, lower: estimate - z * standardError, upper: estimate + z * standardError, standardError, lambda };
}

/**
 * The classical (expert-only) mean and its normal interval, mean ± z·sd/√n with sd dividing by n (`ppi_py`
 * `classical_mean_ci`).
 *
 * @throws RangeError on fewer than 2 labels, a value that is not finite, or α outside (0, 1)
 */
export function classicalMean(y: ArrayLike<number>, options: { alpha?: number } = {}): EstimateInterval {
  const alpha = options.alpha ?? 0.05;
  checkAlpha(alpha);
  if (y.length < 2) throw new RangeError(`at least 2 labels are needed (got ${y.length})`);
  checkFinite('y', y);
  const estimate = mean(y);
  const standardError = Math.sqrt(populationVariance(y) / y.length);
  const z = zTwoSided(alpha);
  return { estimate, lower: estimate - z * standardError, upper: estimate + z * standardError, standardError };
}

// ---------------------------------------------------------------------------------------------------------------
// Ordinary least squares (a difference of means is its slope on a group indicator)

/** Inverse of a small symmetric matrix (d × d, row-major) by Gauss–Jordan elimination with partial pivoting. */
function invert(a: Float64Array, d: number): Float64Array {
  const m = Float64Array.from(a);
  const inv = new Float64Array(d * d);
  for (let i = 0; i < d; i++) inv[i * d + i] = 1;
  for (let c = 0; c < d; c++) {
    let p = c;
    for (let r = c + 1; r < d; r++) if (Math.abs(m[r * d + c]) > Math.abs(m[p * d + c])) p = r;
    if (!(Math.abs(m[p * d + c]) > 1e-300)) throw new RangeError('least squares: the design matrix is singular (a group with no unit on one side?)');
    if (p !== c) {
      for (let k = 0; k < d; k++) {
        [m[c * d + k], m[p * d + k]] = [m[p * d + k], m[c * d + k]];
        [inv[c * d + k], inv[p * d + k]] = [inv[p * d + k], inv[c * d + k]];
      }
    }
    const piv = m[c * d + c];
    for (let k = 0; k < d; k++) {
      m[c * d + k] /= piv;
      inv[c * d + k] /= piv;
    }
    for (let r = 0; r < d; r++) {
      if (r === c) continue;
      const f = m[r * d + c];
      if (f === 0) continue;
      for (let k = 0; k < d; k++) {
        m[r * d + k] -= f * m[c * d + k];
        inv[r * d + k] -= f * inv[c * d + k];
      }
    }
  }
  return inv;
}

/** θ = (XᵀX)⁻¹XᵀY. */
function leastSquares(x: readonly (readonly number[])[], y: ArrayLike<number>, d: number): Float64Array {
  const xtx = new Float64Array(d * d);
  const xty = new Float64Array(d);
  x.forEach((row, i) => {
    for (let a = 0; a < d; a++) {
      xty[a] += row[a] * y[i];
      for (let b = 0; b < d; b++) xtx[a * d + b] += row[a] * row[b];
    }
  });
  const inv = invert(xtx, d);
  const theta = new Float64Array(d);
  for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) theta[a] += inv[a * d + b] * xty[b];
  return theta;
}

/** Sample covariance matrix (count − 1) of the rows of g (m × d). */
function covariance(g: readonly Float64Array[], d: number): Float64Array {
  const m = g.length;
  const mu = new Float64Array(d);
  for (const r of g) for (let a = 0; a < d; a++) mu[a] += r[a] / m;
  const out = new Float64Array(d * d);
  for (const r of g) for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) out[a * d + b] += (r[a] - mu[a]) * (r[b] - mu[b]);
  for (let k = 0; k < d * d; k++) out[k] /= m - 1;
  return out;
}

/** The per-unit gradients of the squared loss, x·(xᵀθ − y), and the Hessian of the PPI++ OLS problem. */
function olsStatistics(theta: Float64Array, x: readonly (readonly number[])[], y: ArrayLike<number>, yhat: ArrayLike<number>, xu: readonly (readonly number[])[], yhatu: ArrayLike<number>, useUnlabelled: boolean, d: number) {
  const n = x.length;
  const N = xu.length;
  const hessian = new Float64Array(d * d);
  const gradHatU: Float64Array[] = [];
  const dot = (row: readonly number[]) => {
    let s = 0;
    for (let a = 0; a < d; a++) s += row[a] * theta[a];
    return s;
  };
  for (let i = 0; i < N; i++) {
    const row = xu[i];
    const g = new Float64Array(d);
    if (useUnlabelled) {
      for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) hessian[a * d + b] += (row[a] * row[b]) / (N + n);
      const r = dot(row) - yhatu[i];
      for (let a = 0; a < d; a++) g[a] = row[a] * r;
    }
    gradHatU.push(g);
  }
  const grad: Float64Array[] = [];
  const gradHat: Float64Array[] = [];
  for (let i = 0; i < n; i++) {
    const row = x[i];
    for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) hessian[a * d + b] += (row[a] * row[b]) / (useUnlabelled ? N + n : n);
    const p = dot(row);
    grad.push(Float64Array.from(row, (v) => v * (p - y[i])));
    gradHat.push(Float64Array.from(row, (v) => v * (p - yhat[i])));
  }
  return { grad, gradHat, gradHatU, inverseHessian: invert(hessian, d) };
}

/** PPI++'s λ for a GLM coordinate (`_calc_lam_glm`, optim_mode "overall", clipped): vᵀCv / (2(1 + n/N)·vᵀΣ̂v), v the coordinate's row of H⁻¹ (all rows: traces). */
function glmLambda(s: ReturnType<typeof olsStatistics>, d: number, coordinate: number | null): number {
  const n = s.grad.length;
  const N = s.gradHatU.length;
  const mg = new Float64Array(d);
  const mh = new Float64Array(d);
  for (let i = 0; i < n; i++) for (let a = 0; a < d; a++) {
    mg[a] += s.grad[i][a] / n;
    mh[a] += s.gradHat[i][a] / n;
  }
  const cov = new Float64Array(d * d);
  for (let i = 0; i < n; i++) for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) {
    const ga = s.grad[i][a] - mg[a];
    const gb = s.grad[i][b] - mg[b];
    const ha = s.gradHat[i][a] - mh[a];
    const hb = s.gradHat[i][b] - mh[b];
    cov[a * d + b] += (ga * hb + ha * gb) / n;
  }
  const varHat = covariance([...s.gradHat, ...s.gradHatU], d);
  const H = s.inverseHessian;
  // quadratic form Σ_rows vᵀ M v over the rows of H⁻¹ considered (one row for a coordinate, all for the trace)
  const form = (M: Float64Array) => {
    let total = 0;
    const rows = coordinate === null ? Array.from({ length: d }, (_, r) => r) : [coordinate];
    for (const r of rows) for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) total += H[r * d + a] * M[a * d + b] * H[b * d + r];
    return total;
  };
  const lambda = form(cov) / (2 * (1 + n / N) * form(varHat));
  if (!Number.isFinite(lambda)) return 0;
  return Math.min(1, Math.max(0, lambda));
}

/** Options of {@link predictionPoweredOls}. */
export interface PredictionPoweredOlsOptions extends PredictionPoweredOptions {
  /** The coefficient whose variance λ is tuned for (0-based); default null: the sum of all coefficients' variances. */
  coordinate?: number | null;
}

/** A prediction-powered least-squares fit: every coefficient with its interval, and the λ used. */
export interface PredictionPoweredOlsResult {
  estimate: number[];
  lower: number[];
  upper: number[];
  standardError: number[];
  lambda: number;
}

function checkDesign(x: readonly (readonly number[])[], name: string, d: number): void {
  x.forEach((row, i) => {
    if (row.length !== d) throw new RangeError(`${name}[${i}] has ${row.length} covariates (expected ${d})`);
    checkFinite(`${name}[${i}]`, row);
  });
}

/**
 * The PPI++ point estimate of ordinary least squares coefficients with a given λ: the least-squares fit of λ·Ŷ on
 * the unlabelled covariates plus the fit of Y − λ·Ŷ on the labelled ones (`ppi_py` `ppi_ols_pointestimate` with lam).
 */
function olsPointEstimate(x: readonly (readonly number[])[], y: ArrayLike<number>, yhat: ArrayLike<number>, xu: readonly (readonly number[])[], yhatu: ArrayLike<number>, lambda: number, d: number): Float64Array {
  const imputed = leastSquares(xu, Float64Array.from(yhatu as ArrayLike<number>, (v) => lambda * v), d);
  const rectifier = leastSquares(x, Float64Array.from({ length: y.length }, (_, i) => y[i] - lambda * yhat[i]), d);
  return imputed.map((v, a) => v + rectifier[a]);
}

/**
 * The PPI++ point estimate of least-squares coefficients with a power-tuned λ (`ppi_py` `ppi_ols_pointestimate`,
 * lam=None): λ tuned at the λ = 1 estimate, then the estimate with that λ.
 *
 * @throws RangeError on mismatched shapes, values that are not finite, or a singular design
 */
export function predictionPoweredOlsPointEstimate(x: readonly (readonly number[])[], y: ArrayLike<number>, yhat: ArrayLike<number>, xUnlabelled: readonly (readonly number[])[], yhatUnlabelled: ArrayLike<number>, options: { coordinate?: number | null } = {}): { estimate: number[]; lambda: number } {
  const d = checkOls(x, y, yhat, xUnlabelled, yhatUnlabelled);
  const pilot = olsPointEstimate(x, y, yhat, xUnlabelled, yhatUnlabelled, 1, d);
  const lambda = glmLambda(olsStatistics(pilot, x, y, yhat, xUnlabelled, yhatUnlabelled, true, d), d, options.coordinate ?? null);
  return { estimate: [...olsPointEstimate(x, y, yhat, xUnlabelled, yhatUnlabelled, lambda, d)], lambda };
}

function checkOls(x: readonly (readonly number[])[], y: ArrayLike<number>, yhat: ArrayLike<number>, xu: readonly (readonly number[])[], yhatu: ArrayLike<number>): number {
  if (x.length === 0) throw new RangeError('least squares: no labelled unit');
  const d = x[0].length;
  if (x.length !== y.length || y.length !== yhat.length) throw new RangeError(`least squares: ${x.length} covariate rows, ${y.length} labels and ${yhat.length} predictions on the labelled units`);
  if (xu.length !== yhatu.length) throw new RangeError(`least squares: ${xu.length} covariate rows but ${yhatu.length} predictions on the unlabelled units`);
  if (x.length < 2 || xu.length < 2) throw new RangeError('least squares: at least 2 labelled and 2 unlabelled units are needed');
  checkDesign(x, 'x', d);
  checkDesign(xu, 'xUnlabelled', d);
  checkFinite('y', y);
  checkFinite('yhat', yhat);
  checkFinite('yhatUnlabelled', yhatu);
  return d;
}

/**
 * PPI++ least squares with intervals (`ppi_py` `ppi_ols_ci`): with λ not given, λ is tuned at the power-tuned point
 * estimate ({@link predictionPoweredOlsPointEstimate}) — a second tuning step, as ppi_py 0.2.3 does, so the interval's
 * centre (reported as `estimate`) can differ slightly from that point estimate — and the interval is the estimate ±
 * z·sqrt(diag(H⁻¹(n/N·Var(λ∇ℓ̂ᵘ) + Var(∇ℓ − λ∇ℓ̂))H⁻¹)/n). With λ = 0 the unlabelled units are not used (the classical
 * fit, with the Hessian of the labelled units).
 *
 * @param x - covariates of the n labelled units (n rows of d numbers)
 * @param y - their labels; `yhat` their predictions
 * @param xUnlabelled - covariates of the N unlabelled units; `yhatUnlabelled` their predictions
 * @throws RangeError on mismatched shapes, values that are not finite, a singular design, or α outside (0, 1)
 */
export function predictionPoweredOls(x: readonly (readonly number[])[], y: ArrayLike<number>, yhat: ArrayLike<number>, xUnlabelled: readonly (readonly number[])[], yhatUnlabelled: ArrayLike<number>, options: PredictionPoweredOlsOptions = {}): PredictionPoweredOlsResult {
  const alpha = options.alpha ?? 0.05;
  checkAlpha(alpha);
  const d = checkOls(x, y, yhat, xUnlabelled, yhatUnlabelled);
  let lambda = options.lambda;
  if (lambda === undefined) {
    const tuned = predictionPoweredOlsPointEstimate(x, y, yhat, xUnlabelled, yhatUnlabelled, { coordinate: options.coordinate ?? null });
    lambda = glmLambda(olsStatistics(Float64Array.from(tuned.estimate), x, y, yhat, xUnlabelled, yhatUnlabelled, true, d), d, options.coordinate ?? null);
  }
  const theta = olsPointEstimate(x, y, yhat, xUnlabelled, yhatUnlabelled, lambda, d);
  const s = olsStatistics(theta, x, y, yhat, xUnlabelled, yhatUnlabelled, lambda !== 0, d);
  const n = x.length;
  const N = xUnlabelled.length;
  const l = lambda;
  const varU = covariance(s.gradHatU.map((g) => g.map((v) => l * v)), d);
  const varL = covariance(s.grad.map((g, i) => g.map((v, a) => v - l * s.gradHat[i][a])), d);
  const middle = varU.map((v, k) => (n / N) * v + varL[k]);
  const H = s.inverseHessian;
  const z = zTwoSided(alpha);
  const estimate: number[] = [];
  const lower: number[] = [];
  const upper: number[] = [];
  const standardError: number[] = [];
  for (let r = 0; r < d; r++) {
    let v = 0;
    for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) v += H[r * d + a] * middle[a * d + b] * H[b * d + r];
    const se = Math.sqrt(v / n);
    estimate.push(theta[r]);
    standardError.push(se);
    lower.push(theta[r] - z * se);
    upper.push(theta[r] + z * se);
  }
  return { estimate, lower, upper, standardError, lambda };
}

/**
 * Classical least squares with heteroskedasticity-robust (HC0) standard errors (`ppi_py` `classical_ols_ci`, via
 * statsmodels `OLS(...).fit().HC0_se`).
 *
 * @throws RangeError on mismatched shapes, values that are not finite, a singular design, or α outside (0, 1)
 */
export function classicalOls(x: readonly (readonly number[])[], y: ArrayLike<number>, options: { alpha?: number } = {}): Omit<PredictionPoweredOlsResult, 'lambda'> {
  const alpha = options.alpha ?? 0.05;
  checkAlpha(alpha);
  if (x.length !== y.length || x.length < 2) throw new RangeError(`least squares: ${x.length} covariate rows and ${y.length} labels (at least 2 needed)`);
  const d = x[0].length;
  checkDesign(x, 'x', d);
  checkFinite('y', y);
  const theta = leastSquares(x, y, d);
  const xtx = new Float64Array(d * d);
  const meat = new Float64Array(d * d);
  x.forEach((row, i) => {
    let p = 0;
    for (let a = 0; a < d; a++) p += row[a] * theta[a];
    const e2 = (y[i] - p) ** 2;
    for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) {
      xtx[a * d + b] += row[a] * row[b];
      meat[a * d + b] += e2 * row[a] * row[b];
    }
  });
  const inv = invert(xtx, d);
  const z = zTwoSided(alpha);
  const out = { estimate: [] as number[], lower: [] as number[], upper: [] as number[], standardError: [] as number[] };
  for (let r = 0; r < d; r++) {
    let v = 0;
    for (let a = 0; a < d; a++) for (let b = 0; b < d; b++) v += inv[r * d + a] * meat[a * d + b] * inv[b * d + r];
    const se = Math.sqrt(v);
    out.estimate.push(theta[r]);
    out.standardError.push(se);
    out.lower.push(theta[r] - z * se);
    out.upper.push(theta[r] + z * se);
  }
  return out;
}

/** One group's labelled and unlabelled units, for a difference of means. */
export interface GroupSample {
  /** Labels of the group's labelled units. */
  y: ArrayLike<number>;
  /** Predictions on them. */
  yhat: ArrayLike<number>;
  /** Predictions on the group's unlabelled units. */
  yhatUnlabelled: ArrayLike<number>;
}

/**
 * The unpaired prediction-powered difference of two groups' means, first − second: PPI++ least squares of the label
 * on an intercept and an indicator of the first group (its slope is the difference), λ tuned for the slope
 * ({@link predictionPoweredOls} with coordinate 1; `ppi_py` `ppi_ols_ci(..., coord=1)`). The two groups are taken
 * as independent samples: for groups that share contexts use {@link pairedPredictionPoweredDifference}.
 *
 * @throws RangeError when a group has fewer than 1 labelled or unlabelled unit, or on values that are not finite
 */
export function predictionPoweredMeanDifference(first: GroupSample, second: GroupSample, options: PredictionPoweredOptions = {}): PredictionPoweredInterval {
  for (const [name, g] of [['first', first], ['second', second]] as const) {
    if (g.y.length < 1 || g.yhatUnlabelled.length < 1) throw new RangeError(`the ${name} group needs labelled and unlabelled units (has ${g.y.length} and ${g.yhatUnlabelled.length})`);
  }
  const x = [...Array.from({ length: first.y.length }, () => [1, 1]), ...Array.from({ length: second.y.length }, () => [1, 0])];
  const xu = [...Array.from({ length: first.yhatUnlabelled.length }, () => [1, 1]), ...Array.from({ length: second.yhatUnlabelled.length }, () => [1, 0])];
  const cat = (a: ArrayLike<number>, b: ArrayLike<number>) => [...Array.from(a), ...Array.from(b)];
  const r = predictionPoweredOls(x, cat(first.y, second.y), cat(first.yhat, second.yhat), xu, cat(first.yhatUnlabelled, second.yhatUnlabelled), { ...options, coordinate: 1 });
  return { estimate: r.estimate[1], lower: r.lower[1], upper: r.upper[1], standardError: r.standardError[1], lambda: r.lambda };
}

/** The classical difference of two groups' label means with the HC0 (unpooled, count-divided) standard error. */
export function classicalMeanDifference(first: ArrayLike<number>, second: ArrayLike<number>, options: { alpha?: number } = {}): EstimateInterval {
  const x = [...Array.from({ length: first.length }, () => [1, 1]), ...Array.from({ length: second.length }, () => [1, 0])];
  const r = classicalOls(x, [...Array.from(first), ...Array.from(second)], options);
  return { estimate: r.estimate[1], lower: r.lower[1], upper: r.upper[1], standardError: r.standardError[1] };
}

// ---------------------------------------------------------------------------------------------------------------
// Paired difference (groups that share contexts)

/** One unit of a paired difference. */
export interface PairedUnit {
  /** The context (dialogue item) the unit answers: units of the two groups in one context are correlated. */
  cluster: string;
  /** 0: the first group; 1: the second. */
  group: 0 | 1;
  /** The label, when labelled (undefined: unlabelled). */
  y?: number;
  /** The prediction (every unit). */
  yhat: number;
}

/** A paired difference: the estimate and interval with the contexts' correlation, and the contexts used. */
export interface PairedDifference extends PredictionPoweredInterval {
  /** Contexts with at least one unit. */
  clusters: number;
}

/**
 * The prediction-powered difference of two groups' means, first − second, for groups that answer the same contexts
 * (GPT-2 greedy and BART greedy on the same 15 dialogues): our derivation (docs/estimation.md §2.3), since ppi_py has
 * no paired form.
 *
 * Each group's mean is PPI's, θ̂_g(λ) = mean_{unlabelled g}(λŶ) + mean_{labelled g}(Y − λŶ), and D̂(λ) = θ̂_1 − θ̂_2.
 * Linearised, D̂(λ) − D = Σ_c ψ_c(λ) over contexts c, with ψ_c(λ) = Σ_{i∈c} s_i w_i r_i(λ): s_i = ±1 by group,
 * w_i = 1/(unlabelled count of the group) or 1/(labelled count), and r_i the unit's centred term (λŶ_i minus its
 * group's unlabelled mean; Y_i − λŶ_i minus its group's labelled mean). With contexts drawn independently and labels
 * missing completely at random, the ψ_c are independent with mean ≈ 0, so Var D̂ ≈ C/(C − 1)·Σ_c ψ_c² (the
 * cluster-robust sandwich, Liang & Zeger 1986, with its small-sample factor), and the interval is D̂ ± t_{C−1}·se
 * (the t reference with C − 1 degrees of freedom that cluster-robust intervals use with few clusters; Cameron &
 * Miller 2015, "A practitioner's guide to cluster-robust inference", J. Human Resources 50(2), §VI). Units of both groups in one context
 * enter one ψ_c, so a context effect shared by the two groups cancels: that is the pairing. With every unit its own
 * context and the factor dropped it is the unpaired variance Σ_i w_i² r_i². ψ_c(λ) = b_c + λ·a_c is linear in λ (b the
 * classical part, a the predictions' part), so the power-tuned λ = −Σ b_c a_c / Σ a_c², clipped to [0, 1], minimises
 * the estimated variance (PPI++'s criterion, with the context-level covariance).
 *
 * Coverage was measured by simulation (test/core/estimation/pairedDifference.test.ts, docs/estimation.md).
 *
 * @throws RangeError when a group has no labelled or no unlabelled unit, fewer than 2 contexts, values that are not finite, or α outside (0, 1)
 */
export function pairedPredictionPoweredDifference(units: readonly PairedUnit[], options: PredictionPoweredOptions = {}): PairedDifference {
  const alpha = options.alpha ?? 0.05;
  checkAlpha(alpha);
  units.forEach((u, i) => {
    if (u.group !== 0 && u.group !== 1) throw new RangeError(`units[${i}].group must be 0 or 1 (got ${String(u.group)})`);
    if (!Number.isFinite(u.yhat)) throw new RangeError(`units[${i}].yhat must be a finite number (got ${u.yhat})`);
    if (u.y !== undefined && !Number.isFinite(u.y)) throw new RangeError(`units[${i}].y must be a finite number or absent (got ${u.y})`);
  });
  const full = pairedCore(units, options.lambda);
  if (typeof full === 'string') throw new RangeError(full);
  const C = full.clusters.length;
  if (C < 2) throw new RangeError(`a paired difference needs at least 2 contexts (got ${C})`);
  // The cluster jackknife: the whole procedure (λ tuned anew) without each context in turn.
  const byCluster = new Map<string, PairedUnit[]>();
  for (const u of units) {
    let l = byCluster.get(u.cluster);
    if (!l) byCluster.set(u.cluster, (l = []));
    l.push(u);
  }
  const leaveOut: number[] = [];
  for (const c of full.clusters) {
    const rest = units.filter((u) => u.cluster !== c);
    const r = pairedCore(rest, options.lambda);
    if (typeof r === 'string') continue; // a context without which a group has no labelled unit: it cannot be left out
    leaveOut.push(r.estimate);
  }
  let jack = 0;
  if (leaveOut.length >= 2) {
    const m = leaveOut.reduce((a, b) => a + b, 0) / leaveOut.length;
    for (const e of leaveOut) jack += (e - m) ** 2;
    jack *= (leaveOut.length - 1) / leaveOut.length;
  }
  const standardError = Math.sqrt(Math.max(full.variance, jack));
  const t = studentUpperQuantile(alpha / 2, C - 1);
  return { estimate: full.estimate, lower: full.estimate - t * standardError, upper: full.estimate + t * standardError, standardError, lambda: full.lambda, clusters: C };
}

/** The paired estimate with λ tuned (or given), its cluster-robust variance and the contexts; a message when a group lacks labelled or unlabelled units. */
function pairedCore(units: readonly PairedUnit[], fixedLambda: number | undefined): { estimate: number; variance: number; lambda: number; clusters: string[] } | string {
  const counts = [
    [0, 0],
    [0, 0],
  ]; // [group][labelled ? 0 : 1]
  const sums = [
    { y: 0, yhatL: 0, yhatU: 0 },
    { y: 0, yhatL: 0, yhatU: 0 },
  ];
  for (const u of units) {
    const s = sums[u.group];
    if (u.y !== undefined) {
      counts[u.group][0]++;
      s.y += u.y;
      s.yhatL += u.yhat;
    } else {
      counts[u.group][1]++;
      s.yhatU += u.yhat;
    }
  }
  for (const g of [0, 1]) if (counts[g][0] < 1 || counts[g][1] < 1) return `the ${g === 0 ? 'first' : 'second'} group needs labelled and unlabelled units (has ${counts[g][0]} and ${counts[g][1]})`;
  const means = sums.map((s, g) => ({ y: s.y / counts[g][0], yhatL: s.yhatL / counts[g][0], yhatU: s.yhatU / counts[g][1] }));
  // ψ_c(λ) = b_c + λ a_c
  const clusters = new Map<string, { a: number; b: number }>();
  for (const u of units) {
    let c = clusters.get(u.cluster);
    if (!c) clusters.set(u.cluster, (c = { a: 0, b: 0 }));
    const sign = u.group === 0 ? 1 : -1;
    const m = means[u.group];
    if (u.y !== undefined) {
      const w = sign / counts[u.group][0];
      c.b += w * (u.y - m.y);
      c.a -= w * (u.yhat - m.yhatL);
    } else {
      const w = sign / counts[u.group][1];
      c.a += w * (u.yhat - m.yhatU);
    }
  }
  const C = clusters.size;
  let ab = 0;
  let aa = 0;
  for (const c of clusters.values()) {
    ab += c.a * c.b;
    aa += c.a * c.a;
  }
  const lambda = fixedLambda ?? (aa > 0 ? Math.min(1, Math.max(0, -ab / aa)) : 0);
  let v = 0;
  for (const c of clusters.values()) v += (c.b + lambda * c.a) ** 2;
  v *= C > 1 ? C / (C - 1) : 1;
  const theta = (g: number) => lambda * means[g].yhatU + means[g].y - lambda * means[g].yhatL;
  return { estimate: theta(0) - theta(1), variance: v, lambda, clusters: [...clusters.keys()] };
}
