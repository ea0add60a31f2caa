/**
 * The cells of the coverage study: designs in the shape of the seed papers' studies (items clustered in contexts of
 * 10 candidates, 3 annotators of a panel of 9, binary labels and 1–5 ratings, ties, class balance 50–85 %, 10 to 100
 * contexts), each with the measures it feeds and its number of simulations.
 */
import type { StudyDesign } from './generate';

export type Family = 'binary' | 'tests' | 'null' | 'ceiling' | 'rating' | 'repeatability' | 'planner-single' | 'planner-pair' | 'alt-test';

export interface Scenario {
  id: string;
  family: Family;
  /** What a reader needs to know about the cell. */
  label: string;
  design: StudyDesign;
  sims: number;
  /** binary: also the plain bootstrap over responses. */
  plain?: boolean;
  /** alt-test: ε. */
  epsilon?: number;
}

/** The panel of 9 annotators: fixed leniency biases on the latent scale. */
export const PANEL = [-0.4, -0.3, -0.2, -0.1, 0, 0.1, 0.2, 0.3, 0.4];

/** The base design: κ ≈ 0.36 at 70 % coherent; a BLEU-like evaluator (40 % exact zeros), Spearman ρ ≈ 0.47. */
export function baseDesign(contexts: number, balance: number): StudyDesign {
  return {
    contexts,
    candidates: 10,
    contextSd: 0.6,
    humanNoise: 1,
    panel: PANEL,
    perCandidate: 3,
    labels: 'binary',
    balance,
    evaluator: { signal: 1, contextSd: 0.4, noiseSd: 1.2, shape: 'zero-mass', zeroShare: 0.4 },
  };
}

/** Every cell, in the order of the report. `scale` multiplies the simulations (the CI's small version uses 300/2000). */
export function scenarios(): Scenario[] {
  const out: Scenario[] = [];
  for (const m of [10, 15, 30]) {
    for (const balance of [0.5, 0.85]) {
      out.push({ id: `binary-${m}-${balance * 100}`, family: 'binary', label: `${m} contexts, ${balance * 100} % coherent, BLEU-like evaluator (40 % zeros)`, design: baseDesign(m, balance), sims: 2000, plain: m === 15 });
    }
  }
  out.push({
    id: 'binary-15-70-judge',
    family: 'binary',
    label: '15 contexts, 70 % coherent, a judge rating 1–5 (heavy ties)',
    design: { ...baseDesign(15, 0.7), evaluator: { signal: 1, contextSd: 0.4, noiseSd: 1.2, shape: 'rating', ratingShares: [0.1, 0.2, 0.3, 0.25, 0.15] } },
    sims: 2000,
  });
  out.push({ id: 'binary-100-70', family: 'binary', label: '100 contexts, 70 % coherent, BLEU-like evaluator', design: baseDesign(100, 0.7), sims: 2000 });
  for (const m of [10, 15, 30]) {
    out.push({ id: `null-${m}-70`, family: 'null', label: `${m} contexts, 70 % coherent, an evaluator that knows nothing (ρ = 0) with its own context effect`, design: { ...baseDesign(m, 0.7), evaluator: { signal: 0, contextSd: 0.6, noiseSd: 1, shape: 'continuous' } }, sims: 2000 });
  }
  for (const m of [10, 15, 30, 100]) {
    for (const balance of [0.5, 0.85]) {
      out.push({
        id: `tests-${m}-${balance * 100}`,
        family: 'tests',
        label: `${m} contexts, ${balance * 100} % coherent: two equally good BLEU-like evaluators; and one that knows nothing (its own context effect)`,
        design: baseDesign(m, balance),
        sims: 2000,
      });
    }
  }
  // The ceiling and repeatability at 30 contexts: 1,000 simulations (each of their studies costs 2–3 of a 15-context
  // study's, and these two cells alone would otherwise take a fifth of the study's budget).
  for (const m of [15, 30]) out.push({ id: `ceiling-${m}-70`, family: 'ceiling', label: `${m} contexts, 70 % coherent`, design: baseDesign(m, 0.7), sims: m === 30 ? 1000 : 2000 });
  for (const m of [10, 15, 30, 100]) {
    out.push({ id: `rating-${m}`, family: 'rating', label: `${m} contexts, 1–5 ratings (5/10/25/35/25 %)`, design: { ...baseDesign(m, 0.7), labels: 'rating', ratingShares: [0.05, 0.1, 0.25, 0.35, 0.25] }, sims: 2000 });
  }
  for (const m of [15, 30]) {
    out.push({
      id: `repeatability-${m}`,
      family: 'repeatability',
      label: `${m} contexts, a judge rating 1–5 asked 5 times (reply noise 0.8)`,
      design: { ...baseDesign(m, 0.7), evaluator: { signal: 1, contextSd: 0.4, noiseSd: 0.8, shape: 'rating' }, replies: { count: 5, noiseSd: 0.8 } },
      sims: m === 30 ? 1000 : 2000,
    });
  }
  out.push({ id: 'planner-single-15', family: 'planner-single', label: 'a pool of 150 (15 contexts), one evaluator', design: baseDesign(15, 0.7), sims: 2000 });
  out.push({ id: 'planner-pair-15', family: 'planner-pair', label: 'a pool of 150 (15 contexts), two equally good evaluators', design: baseDesign(15, 0.7), sims: 2000 });
  // Annotators reliable enough that an evaluator can be ε = 0.2 behind them (with the base design's noise 1, even a
  // random labeller at the base rate is less than 0.2 behind: see "trivial baselines").
  for (const [m, balance, noise] of [[15, 0.8, 0.3], [30, 0.8, 0.3], [15, 0.5, 0.5]] as const) {
    out.push({
      id: `alt-test-${m}-${balance * 100}`,
      family: 'alt-test',
      label: `${m} contexts, ${balance * 100} % coherent, annotator noise ${noise}; an evaluator exactly ε = 0.2 behind each annotator`,
      design: { ...baseDesign(m, balance), humanNoise: noise, panel: new Array(9).fill(0), evaluator: { signal: 1, contextSd: 0, noiseSd: 1, shape: 'label', zeroShare: 1 - balance } },
      sims: 2000,
      epsilon: 0.2,
    });
  }
  return out;
}
