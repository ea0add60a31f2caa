/**
 * Anytime-valid (time-uniform) boundaries for sums of martingale differences: the two-sided normal-mixture
 * boundary of Robbins (1970), in the form of Howard, Ramdas, McAuliffe & Sekhon (2021, "Time-uniform,
 * nonparametric, nonasymptotic confidence sequences", Ann. Statist. 49(2), §3, the normal mixture) and of
 * Waudby-Smith, Arbour, Sinha, Kennedy & Ramdas (2024, "Time-uniform central limit theory and asymptotic
 * confidence sequences", Ann. Statist. 52(6), Thm 2.2 and its martingale version), whose asymptotic confidence
 * sequence is this boundary applied to an estimated variance process.
 */
import erfc from '@stdlib/math-base-special-erfc';

/**
 * The two-sided normal-mixture boundary u(V) = sqrt((V + m) · ln((V + m) / (m · α²))).
 *
 * For a martingale S_t whose increments are conditionally Gaussian (or sub-Gaussian) with variance process V_t,
 * P(∃ t: |S_t| ≥ u(V_t)) ≤ α (Howard et al. 2021, normal mixture with mixing precision 1/m; Ville's inequality).
 * With V_t replaced by an estimate and the increments only asymptotically Gaussian, the same boundary gives an
 * asymptotic confidence sequence (Waudby-Smith et al. 2024, Thm 2.2: their margin
 * sqrt(2(tρ²+1)/(t²ρ²) · ln(sqrt(tρ²+1)/α)) for a mean of unit-variance terms is u(t)/t with m = 1/ρ²).
 *
 * @param v - intrinsic time (variance process) V ≥ 0
 * @param m - mixture parameter m > 0 (intrinsic time around which the boundary is tightest, see {@link normalMixtureM})
 * @param alpha - in (0, 1)
 * @returns u(V) ≥ 0
 * @throws RangeError on m ≤ 0, V < 0 or α outside (0, 1)
 */
export function normalMixtureBoundary(v: number, m: number, alpha: number): number {
  if (!(m > 0)) throw new RangeError(`normal mixture: m must be positive (got ${m})`);
  if (!(v >= 0)) throw new RangeError(`normal mixture: the intrinsic time must be ≥ 0 (got ${v})`);
  if (!(alpha > 0 && alpha < 1)) throw new RangeError(`normal mixture: alpha must be in (0, 1) (got ${alpha})`);
  return Math.sqrt((v + m) * Math.log((v + m) / (m * alpha * alpha)));
}

/**
 * The mixture parameter m that makes the normal-mixture boundary of a mean (u(t)/t) smallest at intrinsic time
 * `tOpt`: m = tOpt / (−W₋₁(−α²/e) − 1), W₋₁ the lower branch of Lambert's W (Waudby-Smith et al. 2024, the ρ²
 * minimising the margin at t_opt, with m = 1/ρ²; reference R code `best_rho2_exact` in
 * github.com/WannabeSmith/sequential.causal). For α = 0.05, m ≈ tOpt / 8.1.
 *
 * @param tOpt - intrinsic time (> 0) where the boundary should be tightest
 * @param alpha - in (0, exp(-1/2)) (so that −α²/e lies in the domain of W₋₁)
 * @throws RangeError outside these ranges
 */
export function normalMixtureM(tOpt: number, alpha: number): number {
  if (!(tOpt > 0)) throw new RangeError(`normal mixture: tOpt must be positive (got ${tOpt})`);
  if (!(alpha > 0 && alpha < Math.exp(-0.5))) throw new RangeError(`normal mixture: alpha must be in (0, e^-1/2) (got ${alpha})`);
  return tOpt / (-lambertWm1(-(alpha * alpha) / Math.E) - 1);
}

/**
 * The lower branch W₋₁(x) of Lambert's W function (w·e^w = x, w ≤ −1) for x in [−1/e, 0), by Halley's iteration
 * from the asymptotic start ln(−x) − ln(−ln(−x)) (Corless et al. 1996, "On the Lambert W function", eq. 4.19 and
 * §5), or from the branch-point series −1 − p − p²/3 (p = sqrt(2(1 + e·x))) near −1/e.
 *
 * @throws RangeError outside [−1/e, 0)
 */
export function lambertWm1(x: number): number {
  const branch = -1 / Math.E;
  if (!(x >= branch - 1e-15 && x < 0)) throw new RangeError(`Lambert W₋₁ is defined on [−1/e, 0) (got ${x})`);
  if (x <= branch) return -1;
  const p = Math.sqrt(Math.max(0, 2 * (1 + Math.E * x)));
  let w = x > -0.25 ? Math.log(-x) - Math.log(-Math.log(-x)) : -1 - p - (p * p) / 3;
  for (let i = 0; i < 100; i++) {
    const ew = Math.exp(w);
    const f = w * ew - x;
    const wp1 = w + 1;
    if (wp1 === 0) break;
    const step = f / (ew * wp1 - ((w + 2) * f) / (2 * wp1));
    w -= step;
    if (Math.abs(step) <= 1e-15 * Math.abs(w)) break;
  }
  return w;
}

/**
 * The standard normal quantile z with P(Z > z) = p, for p in (0, 1), by Newton's method on erfc (accurate to
 * about 1e-14 in the central range). Used for z_{1−α/2} in sample-size guesses, not for reported p-values.
 *
 * @throws RangeError outside (0, 1)
 */
export function normalUpperQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normal quantile: p must be in (0, 1) (got ${p})`);
  let z = 0;
  for (let i = 0; i < 200; i++) {
    const tail = 0.5 * erfc(z / Math.SQRT2);
    const density = Math.exp(-0.5 * z * z) / Math.sqrt(2 * Math.PI);
    const step = (tail - p) / density;
    z += Math.max(-2, Math.min(2, step));
    if (Math.abs(step) < 1e-15 * Math.max(1, Math.abs(z))) break;
  }
  return z;
}
