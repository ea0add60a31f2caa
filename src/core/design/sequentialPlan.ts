/**
 * The sequential sampling design and its estimator (see docs/labelling-plan.md).
 *
 * Design. Candidates are drawn one at a time, without replacement, from the unlabelled pool U_t with known
 * probabilities q_t(i) (Σ_{U_t} q_t = 1). The planner's q_t is the Neyman-type allocation of active inference
 * (Zrnic & Candès 2024, "Active statistical inference", ICML; the classical optimum of Hansen & Hurwitz 1943 for
 * one unbiased draw): proportional to the working model's predicted standard deviation of the unit's influence
 * value φ_i = γ·f_i (γ the gradient of h at the current model-based estimate), mixed with the uniform design
 * (defensive share η; Hesterberg 1995) so that every unit keeps q ≥ η/|U_t|. The baseline design is uniform
 * (q = 1/|U_t|). Draws are made in batches: the model and γ are refitted only when the whole previous batch is
 * labelled, so a batch can be labelled by several annotators in parallel. With `modelSelection` the working model is
 * also chosen anew then, among several, by its leave-one-out log score on the labels known ({@link SelectedLevelModel}):
 * a function of the labels revealed before the batch, like the fit itself.
 *
 * Draw mechanics. Each candidate holds an exponential clock E_i ~ Exp(1) fixed by the plan's seed (a permanent
 * random number). A draw picks argmin_{i∈U} R_i/q_i over the residual clocks R_i (initially E_i) and subtracts
 * τ·q_i from every loser, τ the winning time. By the memorylessness of the exponential the residual clocks are
 * again independent Exp(1) given the past, so the draw picks i with probability exactly q_t(i) (an exponential
 * race, as in the Plackett–Luce / successive sampling construction) and the whole plan is a deterministic
 * function of the seed and the labels revealed — it can be replayed from a dialogue file.
 *
 * Estimator. With f_i the unit's vector of totals (see {@link SpearmanTotals}), f̂_t the working model's
 * expectation and K_t the units known before draw t (labelled at the start, or drawn earlier):
 *   T_t = Σ_{K_t} f_i + Σ_{U_t} f̂_t(i) + (f_{i_t} − f̂_t(i_t)) / q_t(i_t),
 * the model-assisted Des Raj (1956) term, satisfies E[T_t | past] = θ (the pool totals) whatever the model, so
 * T_t − θ are martingale differences (the sequential form of active / prediction-powered inference, with the
 * model predictions as control variates). They are averaged with predictable weights λ_t = 1/σ̂_t, σ̂_t² the
 * model's prediction of Var(γ·T_t | past) = Σ_{U_t} v_i/q_i − Σ_{U_t} v_i (the stabilised one-step estimator of
 * Luedtke & van der Laan 2016, Ann. Statist. 44(2); adaptive weights of Hadad et al. 2021, PNAS 118(15);
 * for uniform q this is the weighting of Waudby-Smith & Ramdas 2020's without-replacement confidence sequences):
 *   θ̂ = Σ λ_t T_t / Σ λ_t,  estimate h(θ̂).
 * Interval: h(θ̂) ± u(V)/Σλ_t with V = Σ λ_t² (γ̂·(T_t − θ̂))² (γ̂ = ∇h(θ̂), the delta method) and u the
 * two-sided normal-mixture boundary ({@link normalMixtureBoundary}): an asymptotic confidence sequence
 * (Waudby-Smith et al. 2024), valid at data-dependent stopping times. When every pool candidate is known the
 * estimate is the exact pool value and the interval has width 0.
 */
import { normalMixtureBoundary } from '../stats/confidenceSequence';
import { KernelLevelModel, type LevelModelSettings } from './levelModel';
import { SelectedLevelModel, type WorkingModelCandidates, type WorkingModelSpec } from './workingModel';
import type { PoolTotals } from './poolTotals';

/** `planner`: the Neyman-type design; `uniform`: every unlabelled candidate equally likely (the baseline). */
export type DesignKind = 'planner' | 'uniform';

/** Settings of a {@link SequentialPlan}. */
export interface DesignSettings {
  design: DesignKind;
  /** Draws per batch (model refits between batches), ≥ 1. */
  batch: number;
  /** Defensive share η in [0, 1] of the uniform design mixed into the planner's probabilities. */
  defensive: number;
  /** The working model's settings; with `modelSelection`, those used until it makes its first choice. */
  model: LevelModelSettings;
  /**
   * Choose the working model from the labels known (at the start and revealed) before every batch: the candidate
   * with the best leave-one-out log score ({@link SelectedLevelModel}), from `minLabels` known labels on. Absent:
   * the kernel model of `model` throughout.
   */
  modelSelection?: WorkingModelCandidates;
  /**
   * Use the working model's predictions as control variates (default true). False gives the plain Des Raj
   * expansion estimator (f̂ = 0), the textbook estimator of a design without a model: a second baseline.
   */
  assisted?: boolean;
  /**
   * More coordinates of the working model besides the evaluators' ranks: per assisting signal, the N candidates'
   * positions in (0, 1) ({@link assistCoordinates}). They shape the draw probabilities and control variates only.
   */
  assistCoords?: readonly Float64Array[];
  /**
   * Known level probabilities (N × K, row-major) used instead of the kernel model fitted to the labels: for measuring
   * what learning the model costs (`scripts/planning/boundGap.ts`), never in a plan.
   */
  fixedLevels?: Float64Array;
}

/** One draw of the design. */
export interface PlanDraw {
  /** Pool index of the candidate drawn. */
  unit: number;
  /** Batch number, from 0. */
  batch: number;
  /** q_t: the probability with which it was drawn among the |U_t| unlabelled candidates. */
  probability: number;
  /** |U_t|: unlabelled candidates (this one included) when it was drawn. */
  remaining: number;
  /** σ̂_t: predicted standard deviation of the linearised term (its weight is 1/σ̂_t). */
  sigma: number;
  /** Σ_{U_t} f̂_t (length dim). */
  predictedRemaining: Float64Array;
  /** f̂_t of the unit drawn. */
  predictedUnit: Float64Array;
  /** The unit's level index, once revealed. */
  level?: number;
}

/** The estimate after the revealed draws. */
export interface PlanEstimate {
  /** rho (or rho_A − rho_B); null when undefined (no planned label yet, or no spread in the estimated human scores). */
  value: number | null;
  /** The interval, clipped to the estimand's range; null when undefined. */
  lower: number | null;
  upper: number | null;
  /** u(V)/Σλ, before clipping; 0 when the pool is fully known; null when undefined. */
  halfWidth: number | null;
  /** The estimate of each evaluator's rho (one or two), or null. */
  rhos: number[] | null;
  /** Planned labels revealed (draws). */
  labels: number;
  /** Every pool candidate is known: the value is the pool's exact rho. */
  exact: boolean;
  /** Intrinsic time V and Σλ (for predictions of the width). */
  intrinsicTime: number;
  weightSum: number;
}

/** What the design knows at the start of a batch (used for the draws, the provisional order and predictions). */
interface DesignState {
  gradient: Float64Array;
  /** Predicted level probabilities, N × K. */
  probs: Float64Array;
  /** Predicted mean and variance v_i of φ_i. */
  mean: Float64Array;
  variance: Float64Array;
  sd: Float64Array;
}

export class SequentialPlan {
  readonly draws: PlanDraw[] = [];
  /** Draws whose label has been revealed: always a prefix of `draws`. */
  revealed = 0;
  private readonly unlabelled: Uint8Array;
  private remainingCount: number;
  private readonly clocks: Float64Array;
  private readonly known: Float64Array;
  private readonly terms: Float64Array[] = [];
  private readonly model: KernelLevelModel | SelectedLevelModel;
  private modelled = 0;
  private state: DesignState | null = null;
  private readonly startUnits: number;

  /**
   * @param totals - the pool's Spearman totals
   * @param clocks - E_i ~ Exp(1) per pool candidate (the plan's permanent random numbers)
   * @param start - candidates known when the plan starts (pool index → level index): counted exactly, never drawn
   * @param settings - design settings
   */
  constructor(
    readonly totals: PoolTotals,
    clocks: Float64Array,
    start: ReadonlyMap<number, number>,
    readonly settings: DesignSettings,
  ) {
    const n = totals.size;
    if (clocks.length !== n) throw new RangeError(`plan: ${n} clocks expected (got ${clocks.length})`);
    if (!(Number.isInteger(settings.batch) && settings.batch >= 1)) throw new RangeError(`plan: batch must be a positive integer (got ${settings.batch})`);
    if (!(settings.defensive >= 0 && settings.defensive <= 1)) throw new RangeError(`plan: defensive share must be in [0, 1] (got ${settings.defensive})`);
    if (settings.fixedLevels && settings.fixedLevels.length !== totals.size * totals.levelCount) throw new RangeError(`plan: fixedLevels must hold ${totals.size} × ${totals.levelCount} probabilities (got ${settings.fixedLevels.length})`);
    this.clocks = Float64Array.from(clocks);
    this.unlabelled = new Uint8Array(n).fill(1);
    this.known = new Float64Array(totals.dim);
    const coords = [...totals.coordinates, ...(settings.assistCoords ?? [])];
    const selection = settings.modelSelection;
    this.model = selection ? new SelectedLevelModel(coords, totals.levelCount, selection, settings.model) : new KernelLevelModel(coords, totals.levelCount, settings.model);
    for (const [unit, level] of start) {
      this.unlabelled[unit] = 0;
      totals.addUnit(this.known, unit, level);
      this.model.add(unit, level);
    }
    this.startUnits = start.size;
    this.remainingCount = n - start.size;
  }

  /** Candidates neither known at the start nor drawn yet. */
  get remaining(): number {
    return this.remainingCount;
  }

  /** Candidates known when the plan started. */
  get started(): number {
    return this.startUnits;
  }

  /** Whether the unit is still undrawn (and was not known at the start). */
  isUndrawn(unit: number): boolean {
    return this.unlabelled[unit] === 1;
  }

  /** The probabilities q over the undrawn units given the design state (Σ = 1). */
  private probabilities(state: DesignState, units: readonly number[], out: Float64Array): void {
    const m = units.length;
    if (this.settings.design === 'uniform') {
      for (const i of units) out[i] = 1 / m;
      return;
    }
    let s = 0;
    for (const i of units) s += state.sd[i];
    const eta = s > 0 ? this.settings.defensive : 1;
    for (const i of units) out[i] = (s > 0 ? ((1 - eta) * state.sd[i]) / s : 0) + eta / m;
  }

  /**
   * σ̂: the model's prediction of the standard deviation of the linearised term γ·T over one draw from `units`
   * with probabilities q. With e_i = φ_i − φ̂_i (φ̂ the model mean when assisted, else 0), Var = Σ e_i²/q_i − (Σ e_i)²;
   * its expectation under the model is Σ E[e_i²]/q_i − (Σ E e_i)² − Σ Var e_i.
   */
  private termSd(state: DesignState, units: readonly number[], q: Float64Array): number {
    const assisted = this.settings.assisted !== false;
    let sv = 0;
    let se2q = 0;
    let smean = 0;
    for (const i of units) {
      const bias = assisted ? 0 : state.mean[i];
      const e2 = state.variance[i] + bias * bias;
      sv += state.variance[i];
      se2q += e2 / q[i];
      smean += bias;
    }
    return Math.sqrt(Math.max(0, se2q - smean * smean - sv));
  }

  private undrawnUnits(): number[] {
    const out: number[] = [];
    for (let i = 0; i < this.unlabelled.length; i++) if (this.unlabelled[i]) out.push(i);
    return out;
  }

  private predictLevels(unit: number, out: Float64Array): Float64Array {
    const fixed = this.settings.fixedLevels;
    if (!fixed) return this.model.predict(unit, out);
    const K = this.totals.levelCount;
    out.set(fixed.subarray(unit * K, (unit + 1) * K));
    return out;
  }

  /**
   * The working model's settings now, and (when they are chosen from the labels) their leave-one-out log score, null
   * before the first choice.
   */
  get workingModel(): { model: WorkingModelSpec; logScore: number | null } {
    if (this.model instanceof SelectedLevelModel) return { model: { ...this.model.chosen }, logScore: this.model.logScore };
    return { model: { kind: 'kernel', ...this.model.modelSettings }, logScore: null };
  }

  /**
   * Fits the model to every revealed label (choosing its settings anew when they are chosen from the labels) and
   * computes the design state at the model-based estimate.
   */
  private refresh(): DesignState {
    for (; this.modelled < this.revealed; this.modelled++) {
      const d = this.draws[this.modelled];
      this.model.add(d.unit, d.level as number);
    }
    if (this.model instanceof SelectedLevelModel) this.model.select();
    const t = this.totals;
    const n = t.size;
    const K = t.levelCount;
    const probs = new Float64Array(n * K);
    const p = new Float64Array(K);
    const theta = Float64Array.from(this.known);
    for (let i = 0; i < n; i++) {
      if (!this.unlabelled[i]) continue;
      this.predictLevels(i, p);
      probs.set(p, i * K);
      t.addExpected(theta, i, p);
    }
    // Drawn candidates still waiting for their label (only between batches' draws and labels) count as predicted.
    for (let s = this.revealed; s < this.draws.length; s++) t.addExpected(theta, this.draws[s].unit, this.predictLevels(this.draws[s].unit, p));
    const ev = t.evaluate(theta);
    const gradient = ev ? ev.gradient : new Float64Array(t.dim);
    const meanPhi = new Float64Array(n);
    const variance = new Float64Array(n);
    const sd = new Float64Array(n);
    const c = new Float64Array(K);
    for (let i = 0; i < n; i++) {
      if (!this.unlabelled[i]) continue;
      t.coefficients(gradient, i, c);
      let mean = 0;
      let second = 0;
      for (let k = 0; k < K; k++) {
        const pk = probs[i * K + k];
        mean += c[k] * pk;
        second += c[k] * c[k] * pk;
      }
      meanPhi[i] = mean;
      variance[i] = Math.max(0, second - mean * mean);
      sd[i] = Math.sqrt(variance[i]);
    }
    this.state = { gradient, probs, mean: meanPhi, variance, sd };
    return this.state;
  }

  /**
   * Draws the next batch (min(batch, remaining) candidates) by exponential races.
   *
   * @throws Error when earlier draws are not all revealed, or nothing remains
   */
  drawBatch(): PlanDraw[] {
    if (this.revealed !== this.draws.length) throw new Error('plan: the previous batch is not fully labelled yet');
    if (this.remainingCount === 0) throw new Error('plan: every candidate of the pool is labelled');
    const state = this.refresh();
    const t = this.totals;
    const K = t.levelCount;
    const batch = this.draws.length === 0 ? 0 : (this.draws[this.draws.length - 1].batch + 1);
    let units = this.undrawnUnits();
    const sumF = new Float64Array(t.dim);
    const assisted = this.settings.assisted !== false;
    if (assisted) for (const i of units) t.addExpected(sumF, i, state.probs.subarray(i * K, (i + 1) * K));
    const q = new Float64Array(t.size);
    const out: PlanDraw[] = [];
    for (let j = 0; j < this.settings.batch && units.length > 0; j++) {
      this.probabilities(state, units, q);
      let winner = -1;
      let best = Infinity;
      for (const i of units) {
        const r = this.clocks[i] / q[i];
        if (r < best) {
          best = r;
          winner = i;
        }
      }
      for (const i of units) if (i !== winner) this.clocks[i] -= best * q[i];
      const predictedUnit = new Float64Array(t.dim);
      if (assisted) t.addExpected(predictedUnit, winner, state.probs.subarray(winner * K, (winner + 1) * K));
      const draw: PlanDraw = {
        unit: winner,
        batch,
        probability: q[winner],
        remaining: units.length,
        sigma: this.termSd(state, units, q),
        predictedRemaining: Float64Array.from(sumF),
        predictedUnit,
      };
      for (let d = 0; d < t.dim; d++) sumF[d] -= predictedUnit[d];
      this.unlabelled[winner] = 0;
      this.remainingCount--;
      units = units.filter((i) => i !== winner);
      this.draws.push(draw);
      out.push(draw);
    }
    return out;
  }

  /** Reveals the label (level index) of the next unrevealed draw. @throws Error when none is waiting */
  reveal(level: number): void {
    if (this.revealed >= this.draws.length) throw new Error('plan: no drawn candidate is waiting for a label');
    const d = this.draws[this.revealed];
    d.level = level;
    const t = this.totals;
    const term = Float64Array.from(this.known);
    for (let k = 0; k < t.dim; k++) term[k] += d.predictedRemaining[k] - d.predictedUnit[k] / d.probability;
    t.addUnit(term, d.unit, level, 1 / d.probability);
    this.terms.push(term);
    t.addUnit(this.known, d.unit, level);
    this.revealed++;
  }

  /** Whether every pool candidate is known (drawn and revealed, or known at the start). */
  get complete(): boolean {
    return this.remainingCount === 0 && this.revealed === this.draws.length;
  }

  /**
   * The estimate and its anytime-valid interval after the revealed draws.
   *
   * @param alpha - 1 − confidence level
   * @param m - the normal mixture's parameter (fixed before the first label)
   */
  estimate(alpha: number, m: number): PlanEstimate {
    const t = this.totals;
    const [lo, hi] = t.bounds;
    const labels = this.revealed;
    if (this.complete) {
      const ev = t.evaluate(this.known);
      return { value: ev ? ev.value : null, lower: ev ? ev.value : null, upper: ev ? ev.value : null, halfWidth: ev ? 0 : null, rhos: ev?.rhos ?? null, labels, exact: true, intrinsicTime: 0, weightSum: Infinity };
    }
    const none: PlanEstimate = { value: null, lower: null, upper: null, halfWidth: null, rhos: null, labels, exact: false, intrinsicTime: 0, weightSum: 0 };
    if (labels === 0) return none;
    const theta = new Float64Array(t.dim);
    let weightSum = 0;
    const lambda = new Float64Array(labels);
    for (let s = 0; s < labels; s++) {
      lambda[s] = 1 / Math.max(this.draws[s].sigma, 1e-9);
      weightSum += lambda[s];
      const term = this.terms[s];
      for (let d = 0; d < t.dim; d++) theta[d] += lambda[s] * term[d];
    }
    for (let d = 0; d < t.dim; d++) theta[d] /= weightSum;
    const ev = t.evaluate(theta);
    if (!ev) return { ...none, weightSum };
    let v = 0;
    for (let s = 0; s < labels; s++) {
      let psi = 0;
      const term = this.terms[s];
      for (let d = 0; d < t.dim; d++) psi += ev.gradient[d] * (term[d] - theta[d]);
      v += lambda[s] * lambda[s] * psi * psi;
    }
    const halfWidth = normalMixtureBoundary(v, m, alpha) / weightSum;
    return {
      value: ev.value,
      lower: Math.max(lo, ev.value - halfWidth),
      upper: Math.min(hi, ev.value + halfWidth),
      halfWidth,
      rhos: ev.rhos ?? null,
      labels,
      exact: false,
      intrinsicTime: v,
      weightSum,
    };
  }

  /**
   * The undrawn candidates in the order the design would draw them if the model did not change: ascending
   * R_i/q_i under the current design state (a Plackett–Luce order). Provisional beyond the current batch.
   */
  provisionalOrder(): number[] {
    const state = this.state && this.modelled === this.revealed ? this.state : this.refresh();
    const units = this.undrawnUnits();
    const q = new Float64Array(this.totals.size);
    this.probabilities(state, units, q);
    return units.map((i) => [i, this.clocks[i] / q[i]] as const).sort((a, b) => a[1] - b[1] || a[0] - b[0]).map(([i]) => i);
  }

  /**
   * Predicted σ̂ of the next draws if they follow `order` (undrawn units) under the current design state: for each
   * step, the model's predicted standard deviation of the term over the units still undrawn.
   */
  predictedSigmas(order: readonly number[]): number[] {
    const state = this.state && this.modelled === this.revealed ? this.state : this.refresh();
    let units = this.undrawnUnits();
    const q = new Float64Array(this.totals.size);
    const out: number[] = [];
    for (const next of order) {
      this.probabilities(state, units, q);
      out.push(this.termSd(state, units, q));
      units = units.filter((i) => i !== next);
    }
    return out;
  }
}
