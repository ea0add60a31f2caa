/**
 * Symmetric positive definite solves by Cholesky factorisation (A = LLᵀ, then two triangular solves): the one solver
 * behind the ordinal model's Newton steps (design/ordinalModel.ts) and the calibration's ridge fit
 * (estimation/calibration.ts). Golub & Van Loan, Matrix Computations (4th ed.), Algorithm 4.2.1.
 */

/**
 * Solves A x = b for a symmetric positive definite A, leaving A and b as they are.
 *
 * @param a - A, p × p, row-major (only its lower triangle is read)
 * @param b - b, length p
 * @param p - the order of A
 * @param options.pivotFloor - when given, a pivot below it is raised to it (a ridge-like guard for a nearly singular
 *   A) instead of the solve failing
 * @returns x (length p), or null when a pivot is not positive and no `pivotFloor` is given (A is not positive
 *   definite to working precision)
 */
export function solveSpd(a: ArrayLike<number>, b: ArrayLike<number>, p: number, options: { pivotFloor?: number } = {}): Float64Array | null {
  const l = Float64Array.from(a);
  for (let j = 0; j < p; j++) {
    let d = l[j * p + j];
    for (let k = 0; k < j; k++) d -= l[j * p + k] * l[j * p + k];
    if (options.pivotFloor !== undefined) d = Math.max(d, options.pivotFloor);
    else if (!(d > 0)) return null;
    d = Math.sqrt(d);
    l[j * p + j] = d;
    for (let i = j + 1; i < p; i++) {
      let s = l[i * p + j];
      for (let k = 0; k < j; k++) s -= l[i * p + k] * l[j * p + k];
      l[i * p + j] = s / d;
    }
  }
  const x = Float64Array.from(b);
  for (let i = 0; i < p; i++) {
    let s = x[i];
    for (let k = 0; k < i; k++) s -= l[i * p + k] * x[k];
    x[i] = s / l[i * p + i];
  }
  for (let i = p - 1; i >= 0; i--) {
    let s = x[i];
    for (let k = i + 1; k < p; k++) s -= l[k * p + i] * x[k];
    x[i] = s / l[i * p + i];
  }
  return x;
}
