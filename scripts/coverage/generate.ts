/**
 * Studies with a known truth, in the shape of the seed papers' (Wu et al., GEM 2022 / ACL 2023 / ICMI 2023): m
 * dialogue contexts × k candidates, each candidate labelled by 3 annotators drawn from a panel of 9, two automatic
 * evaluators, optionally K judge replies per candidate.
 *
 * The latent-quality model (Dawid–Skene-like, with context effects):
 *
 *   q_cj = u_c + e_cj,                     u_c ~ N(0, σ_u²), e_cj ~ N(0, 1)       (latent quality of candidate j of context c)
 *   label_a = [q + b_a + η > τ]            η ~ N(0, σ_h²), b_a the annotator's fixed bias   (binary: coherent)
 *   rating_a = 1 + #{τ_t < q + b_a + η}    (1–5, four thresholds)                 (ratings: empathy-like)
 *   s_E = T(λ·q + w_c + ε),                w_c ~ N(0, σ_w²) the evaluator's context effect, ε ~ N(0, σ_e²)
 *
 * τ (or τ_1…τ_4) is solved so that the panel's marginal share of "coherent" (or of each rating) is the design's.
 * T shapes the evaluator's ties: `continuous` (none), `zero-mass` (BLEU-like: max(0, · − c₀), a share of exact
 * zeros), `rating` (a judge's 1–5 rating, cut at quantiles). Evaluators A and B are independent copies of one
 * design, so ρ_A = ρ_B exactly (the null of the dependent-correlation tests); `null` evaluators have λ = 0.
 *
 * Everything is seeded (seedrandom's alea) and deterministic.
 */
import seedrandom from 'seedrandom';
import erfc from '@stdlib/math-base-special-erfc';
import { normalQuantile } from '../../src/core/stats/bootstrap';

export type EvaluatorShape = 'continuous' | 'zero-mass' | 'rating' | 'label';

/** An evaluator's design. */
export interface EvaluatorDesign {
  /** λ: weight of the latent quality (0: an evaluator that knows nothing). */
  signal: number;
  /** σ_w: the evaluator's own context effect. */
  contextSd: number;
  /** σ_e: noise. */
  noiseSd: number;
  shape: EvaluatorShape;
  /** zero-mass: share of exact zeros; label: share of 0s (1 − the share of "coherent"); rating: shares of 1…5. */
  zeroShare?: number;
  ratingShares?: readonly number[];
}

/** A study design. */
export interface StudyDesign {
  contexts: number;
  candidates: number;
  /** σ_u: context effect of the latent quality. */
  contextSd: number;
  /** σ_h: annotator noise (sets the agreement: larger is lower κ). */
  humanNoise: number;
  /** Fixed biases of the panel (its size is the panel's); each candidate gets `perCandidate` of them, drawn without replacement. */
  panel: readonly number[];
  perCandidate: number;
  labels: 'binary' | 'rating';
  /** binary: share of "coherent"; rating: shares of 1…5. */
  balance?: number;
  ratingShares?: readonly number[];
  evaluator: EvaluatorDesign;
  /** Judge replies per candidate (repeatability): replies are s_E's latent part plus N(0, replyNoise²), cut as the evaluator. */
  replies?: { count: number; noiseSd: number };
}

/** One generated study, in flat arrays (candidate index i = c·k + j). */
export interface Study {
  design: StudyDesign;
  /** Context of each candidate. */
  context: Int32Array;
  /** Annotators of each candidate (perCandidate per candidate, panel indices). */
  annotators: Int32Array;
  /** Their labels (0/1) or ratings (1–5), aligned with `annotators`. */
  values: Int8Array;
  /** Evaluators A and B. */
  a: Float64Array;
  b: Float64Array;
  /** Replies (count per candidate, candidate-major) when the design has replies. */
  replies?: Float64Array;
}

export function normalCdf(z: number): number {
  return 0.5 * erfc(-z / Math.SQRT2);
}

/** Bisection for x with f(x) = target, f increasing. */
function solve(f: (x: number) => number, target: number, lo = -20, hi = 20): number {
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (f(mid) < target) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/** Thresholds of the humans' labels: τ (binary) or τ_1…τ_4 (ratings) on q + b + η. */
export function humanThresholds(d: StudyDesign): number[] {
  const sd = Math.sqrt(d.contextSd ** 2 + 1 + d.humanNoise ** 2);
  const share = (t: number) => d.panel.reduce((s, b) => s + normalCdf((b - t) / sd), 0) / d.panel.length; // P(value > t)
  if (d.labels === 'binary') return [solve((t) => -share(t), -(d.balance ?? 0.8))];
  const shares = d.ratingShares ?? [0.05, 0.1, 0.25, 0.35, 0.25];
  const out: number[] = [];
  let above = 1;
  for (let r = 0; r < 4; r++) {
    above -= shares[r];
    out.push(solve((t) => -share(t), -above));
  }
  return out;
}

/** The cut points of an evaluator's shape on its latent scale (which is normal with sd `sd`). */
export function evaluatorCuts(e: EvaluatorDesign, sd: number): number[] {
  if (e.shape === 'zero-mass' || e.shape === 'label') return [sd * normalQuantile(e.zeroShare ?? 0.4)];
  if (e.shape === 'rating') {
    const shares = e.ratingShares ?? [0.1, 0.2, 0.3, 0.25, 0.15];
    let cum = 0;
    return shares.slice(0, 4).map((s) => sd * normalQuantile((cum += s)));
  }
  return [];
}

export function evaluatorLatentSd(d: StudyDesign, e: EvaluatorDesign = d.evaluator): number {
  return Math.sqrt(e.signal ** 2 * (d.contextSd ** 2 + 1) + e.contextSd ** 2 + e.noiseSd ** 2);
}

function shape(e: EvaluatorDesign, cuts: readonly number[], v: number): number {
  if (e.shape === 'continuous') return v;
  if (e.shape === 'zero-mass') return Math.max(0, v - cuts[0]);
  if (e.shape === 'label') return v > cuts[0] ? 1 : 0;
  let r = 1;
  for (const c of cuts) if (v > c) r++;
  return r;
}

/** A seeded standard normal generator (Box–Muller on alea). */
export function normalSource(seed: string): () => number {
  const rng = seedrandom.alea(seed);
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    let u = 0;
    while (u === 0) u = rng();
    const v = rng();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * v);
    return r * Math.cos(2 * Math.PI * v);
  };
}

/** Generates one study. `seed` makes it reproducible. */
export function generateStudy(d: StudyDesign, seed: string, contexts = d.contexts): Study {
  const rng = seedrandom.alea(`${seed}/u`);
  const z = normalSource(seed);
  const k = d.candidates;
  const n = contexts * k;
  const p = d.perCandidate;
  const context = new Int32Array(n);
  const annotators = new Int32Array(n * p);
  const values = new Int8Array(n * p);
  const a = new Float64Array(n);
  const b = new Float64Array(n);
  const replies = d.replies ? new Float64Array(n * d.replies.count) : undefined;
  const tau = humanThresholds(d);
  const e = d.evaluator;
  const sdE = evaluatorLatentSd(d);
  const cuts = evaluatorCuts(e, sdE);
  const replyCuts = d.replies ? evaluatorCuts(e, Math.sqrt(sdE ** 2 + d.replies.noiseSd ** 2)) : [];
  const panel = d.panel.length;
  const pick = new Int32Array(panel);
  for (let c = 0; c < contexts; c++) {
    const u = d.contextSd * z();
    const wa = e.contextSd * z();
    const wb = e.contextSd * z();
    for (let j = 0; j < k; j++) {
      const i = c * k + j;
      context[i] = c;
      const q = u + z();
      // annotators: a partial Fisher–Yates shuffle of the panel
      for (let t = 0; t < panel; t++) pick[t] = t;
      for (let t = 0; t < p; t++) {
        const r = t + Math.floor(rng() * (panel - t));
        const tmp = pick[t];
        pick[t] = pick[r];
        pick[r] = tmp;
        const ann = pick[t];
        const v = q + d.panel[ann] + d.humanNoise * z();
        annotators[i * p + t] = ann;
        if (d.labels === 'binary') values[i * p + t] = v > tau[0] ? 1 : 0;
        else {
          let r5 = 1;
          for (const th of tau) if (v > th) r5++;
          values[i * p + t] = r5;
        }
      }
      const la = e.signal * q + wa + e.noiseSd * z();
      const lb = e.signal * q + wb + e.noiseSd * z();
      a[i] = shape(e, cuts, la);
      b[i] = shape(e, cuts, lb);
      if (replies && d.replies) for (let r = 0; r < d.replies.count; r++) replies[i * d.replies.count + r] = shape(e, replyCuts, la + d.replies.noiseSd * z());
    }
  }
  return { design: d, context, annotators, values, a, b, ...(replies ? { replies } : {}) };
}

/** The human score of each candidate: the number who said coherent (binary) or the mean rating. */
export function humanScores(s: Study): Float64Array {
  const p = s.design.perCandidate;
  const n = s.context.length;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    let t = 0;
    for (let r = 0; r < p; r++) t += s.values[i * p + r];
    out[i] = s.design.labels === 'binary' ? t : t / p;
  }
  return out;
}

/** Reliability data: candidates × panel, the value or null. */
export function reliabilityMatrix(s: Study): (number | null)[][] {
  const p = s.design.perCandidate;
  const n = s.context.length;
  const out: (number | null)[][] = [];
  for (let i = 0; i < n; i++) {
    const row: (number | null)[] = new Array(s.design.panel.length).fill(null);
    for (let r = 0; r < p; r++) row[s.annotators[i * p + r]] = s.values[i * p + r];
    out.push(row);
  }
  return out;
}
