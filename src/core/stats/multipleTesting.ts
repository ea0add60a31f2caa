/**
 * Multiple-testing procedures that control the false discovery rate.
 */

/** Which hypotheses a step-up procedure rejects. */
export interface StepUpResult {
  /** Per input p-value, in input order: rejected at level q. */
  rejected: boolean[];
  /** Per input p-value: the threshold (i/m)·q/c(m) its rank was compared with (null for a null p-value). */
  thresholds: (number | null)[];
  /** c(m): 1 for Benjamini–Hochberg, H_m = Σ_{i=1}^{m} 1/i for Benjamini–Yekutieli. */
  correction: number;
  q: number;
  /** m: number of hypotheses (null p-values included, as never rejected). */
  m: number;
}

function stepUp(pValues: readonly (number | null)[], q: number, correction: number): StepUpResult {
  if (!(q > 0 && q < 1)) throw new RangeError(`the FDR level q must be in (0, 1), got ${q}`);
  const m = pValues.length;
  // Ascending by p, null (nan) last as numpy's argsort puts nan last; ties keep input order (stable).
  const order = pValues.map((p, i) => ({ p, i })).sort((a, b) => (a.p === null ? (b.p === null ? 0 : 1) : b.p === null ? -1 : a.p - b.p) || a.i - b.i);
  const thresholds: (number | null)[] = new Array(m).fill(null);
  let last = -1;
  order.forEach(({ p, i }, rank) => {
    const t = ((rank + 1) / m) * (q / correction);
    if (p === null) return;
    thresholds[i] = t;
    if (p <= t) last = rank;
  });
  const rejected = new Array<boolean>(m).fill(false);
  for (let r = 0; r <= last; r++) rejected[order[r].i] = true;
  return { rejected, thresholds, correction, q, m };
}

/**
 * Benjamini–Yekutieli step-up procedure (Benjamini & Yekutieli 2001, Theorem 1.3), which controls the FDR at q
 * under any dependence between the tests: with p-values sorted ascending p_(1) ≤ … ≤ p_(m), reject H_(1) … H_(k)
 * for the largest k with p_(k) ≤ (k/m)·q/H_m, H_m = Σ 1/i. This is the correction of the alternative annotator
 * test (Calderon, Reichart & Dror, ACL 2025, §3), whose per-annotator tests share the same items.
 * A null p-value (undefined test) is never rejected and sorts last.
 *
 * @param q - FDR level in (0, 1)
 */
export function benjaminiYekutieli(pValues: readonly (number | null)[], q: number): StepUpResult {
  let h = 0;
  for (let i = 1; i <= pValues.length; i++) h += 1 / i;
  return stepUp(pValues, q, h || 1);
}

/** Benjamini–Hochberg step-up procedure (Benjamini & Hochberg 1995): as {@link benjaminiYekutieli} with c(m) = 1. */
export function benjaminiHochberg(pValues: readonly (number | null)[], q: number): StepUpResult {
  return stepUp(pValues, q, 1);
}

/** How a family of p-values is adjusted: Holm's step-down (familywise error) or Benjamini–Yekutieli (FDR, any dependence). */
export type PAdjustMethod = 'holm' | 'by';
export const P_ADJUST_METHODS: readonly PAdjustMethod[] = ['holm', 'by'];

/**
 * Adjusted p-values of a family, as statsmodels 0.13 `multipletests(p, method='holm' | 'fdr_by').pvals_corrected`:
 * with the m defined p-values sorted ascending p_(1) ≤ … ≤ p_(m),
 * - Holm (1979, Scand. J. Statist. 6:65–70): p̃_(i) = min(1, max_{j ≤ i} (m − j + 1)·p_(j));
 * - Benjamini–Yekutieli (2001, Ann. Statist. 29:1165–1188, Theorem 1.3): p̃_(i) = min(1, min_{j ≥ i} m·H_m·p_(j)/j),
 *   H_m = Σ_{k=1}^{m} 1/k.
 * Rejecting p̃ < α (Holm: ≤ α) is the step-down / step-up procedure at level α. A null p-value (an undefined test)
 * is not part of the family (m counts defined p-values only; statsmodels cannot take a nan) and stays null. Ties keep
 * their input order, as numpy's stable argsort.
 *
 * @throws RangeError on a p-value outside [0, 1]
 */
export function adjustPValues(pValues: readonly (number | null)[], method: PAdjustMethod): (number | null)[] {
  const defined = pValues.map((p, i) => ({ p, i })).filter((e): e is { p: number; i: number } => e.p !== null);
  for (const { p, i } of defined) if (!(p >= 0 && p <= 1)) throw new RangeError(`p-value ${i} must be in [0, 1], got ${p}`);
  const m = defined.length;
  const order = defined.sort((a, b) => a.p - b.p || a.i - b.i);
  const out: (number | null)[] = pValues.map(() => null);
  if (m === 0) return out;
  if (method === 'holm') {
    let running = 0;
    order.forEach(({ p, i }, j) => {
      running = Math.max(running, (m - j) * p);
      out[i] = Math.min(1, running);
    });
    return out;
  }
  let h = 0;
  for (let k = 1; k <= m; k++) h += 1 / k;
  let running = Infinity;
  for (let j = m - 1; j >= 0; j--) {
    const { p, i } = order[j];
    running = Math.min(running, (p * m * h) / (j + 1));
    out[i] = Math.min(1, running);
  }
  return out;
}
