/**
 * The labelling pool of a dialogue file: the candidates an evaluator (or both of a pair) scored, with their human
 * coherence score (ICMI 2023 §2.1: the number of the chosen group's annotators who said "coherent"), computed as
 * the correlation table computes it ({@link coherenceScore} over {@link inGroup}).
 *
 * Unit of labelling: a candidate counts as labelled once `labelsPerCandidate` annotators of the group have given
 * it a coherence label (EvalReflections: 3 experts). With fewer it is partly labelled: its score is not yet the
 * group's, so the planner waits for the rest.
 */
import { createHash } from 'node:crypto';
import { candidateGroups } from '../dialogue/groupBy';
import { resolveHuman } from '../correlation/correlationTable';
import type { Candidate, DialogueItem } from '../dialogue/types';
import { coherenceScore } from '../labels/annotate';
import { holdsLabel, humanScoreSpec, isCoherenceCount, specScore, type HumanScoreSpec } from '../rubric/labelValues';
import { MI_RUBRIC } from '../rubric/presets';
import { type EstimandValue, SpearmanTotals } from './spearmanTotals';
import { rankAverage } from '../stats/rank';
import { DEFAULT_GROUP_RULES, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';

/** One candidate of the pool. */
export interface PoolCandidate {
  itemId: string;
  candidateId: string;
  /** The evaluator's usable score (and the second evaluator's, for a pair). */
  scores: number[];
  /** Coherence labels from the group. */
  groupLabels: number;
  /** The coherence score once the candidate is fully labelled (≥ labelsPerCandidate group labels), else null. */
  human: number | null;
  /** Values of the assisting signals ({@link PoolOptions.assist}), NaN where a candidate has none. */
  assist?: number[];
}

/** Options of {@link labellingPool}. */
export interface PoolOptions {
  /** Evaluator id. */
  evaluator: string;
  /** Second evaluator id, for rho_A − rho_B. */
  against?: string;
  /** Whose labels make the coherence score; `auto` resolves as the correlation table does. */
  human: HumanGroup | 'auto';
  /** Group labels that make a candidate labelled; default: the most common count among candidates with any (the study's own count), else 1 (one annotator labelling alone). */
  labelsPerCandidate?: number;
  groupRules?: GroupRules;
  /** Restrict the pool to one column of the correlation table: candidates whose group under `groupBy` is `column` (see {@link candidateGroups}). */
  column?: { groupBy: string; value: string };
  /**
   * Signals that help the working model predict the human score, beside the evaluators' own scores (see
   * {@link assistValue}): other evaluators' ids, or `human:<group>` for another group's coherence score (cheap lay
   * labels on every candidate, experts to be planned). They change which candidates are drawn, never the estimand.
   */
  assist?: string[];
  /**
   * The dimension and rule of the human score (default: the MI preset's coherence count). A binary or ordinal
   * dimension; its score's possible values are the plan's levels ({@link humanScoreLevels}).
   */
  spec?: HumanScoreSpec;
}

/**
 * The values a human score under `spec` can take on a candidate with `minLabels` … `maxLabels` labels of the group:
 * the plan's levels. Count: 0 … maxLabels; majority: 0, 1; mean: every sum of n ratings over n (n in range); median:
 * every point and every midpoint of two points. Ordinal points are integers, so a mean's value is exactly the
 * sum / n that {@link humanScore} computes.
 *
 * @throws Error for a numeric dimension (its scores have no finite set of levels)
 */
export function humanScoreLevels(spec: HumanScoreSpec, minLabels: number, maxLabels: number): number[] {
  const d = spec.dimension;
  if (spec.rule === 'count') return Array.from({ length: maxLabels + 1 }, (_, k) => k);
  if (spec.rule === 'majority') return [0, 1];
  if (d.type === 'numeric') throw new Error(`a labelling plan needs a human score with finitely many values: ${d.name} is numeric; plan on a binary or ordinal dimension`);
  const points = d.type === 'binary' ? [0, 1] : d.points.map((p) => p.value);
  const out = new Set<number>();
  if (spec.rule === 'median') {
    for (const a of points) for (const b of points) out.add(a === b ? a : (a + b) / 2);
  } else {
    const lo = Math.min(...points);
    const hi = Math.max(...points);
    for (let n = Math.max(1, minLabels); n <= maxLabels; n++) for (let s = n * lo; s <= n * hi; s++) out.add(s / n);
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * The value of an assisting signal on a candidate: an evaluator's usable score, or for `human:<group>` the number
 * of that group's annotators who said coherent; NaN when there is none.
 */
export function assistValue(c: Candidate, signal: string, rules: GroupRules = DEFAULT_GROUP_RULES): number {
  const m = /^human:(experts|laypeople|all)$/.exec(signal);
  if (m) return coherenceScore(c, inGroup(m[1] as HumanGroup, rules)) ?? Number.NaN;
  return usableScore(c, signal) ?? Number.NaN;
}

/** The pool and what was left out. */
export interface LabellingPool {
  candidates: PoolCandidate[];
  human: HumanGroup;
  labelsPerCandidate: number;
  evaluators: string[];
  /** Candidates of the file left out because an evaluator has no usable score on them. */
  missingScore: number;
  /** Items with at least one pool candidate. */
  items: number;
  column?: { groupBy: string; value: string };
  /** The assisting signals, when any. */
  assist?: string[];
  /** The human score's dimension and rule. */
  spec: HumanScoreSpec;
}

/**
 * The assisting signals of a pool as working-model coordinates: per signal, each candidate's midrank normalised to
 * (0, 1), (R − 1/2) / N; a candidate without the signal sits in the middle (0.5).
 */
export function assistCoordinates(pool: Pick<LabellingPool, 'candidates' | 'assist'>): Float64Array[] {
  const n = pool.candidates.length;
  return (pool.assist ?? []).map((_, a) => {
    const values = pool.candidates.map((c) => c.assist?.[a] ?? Number.NaN);
    const present = values.map((v, i) => [v, i] as const).filter(([v]) => Number.isFinite(v));
    const out = new Float64Array(n).fill(0.5);
    if (present.length === 0) return out;
    const ranks = rankAverage(present.map(([v]) => v));
    present.forEach(([, i], j) => (out[i] = (ranks[j] - 0.5) / present.length));
    return out;
  });
}

function usableScore(c: Candidate, id: string): number | null {
  const s = c.scores?.[id];
  return s && s.status === 'ok' && typeof s.value === 'number' && Number.isFinite(s.value) ? s.value : null;
}

/**
 * The pool of `items` for an evaluator (or a pair): every candidate with a usable (`ok`, finite) score from each
 * evaluator, in file order.
 *
 * @throws Error on a repeated (item id, candidate id), or a bad labelsPerCandidate
 */
export function labellingPool(items: readonly DialogueItem[], options: PoolOptions): LabellingPool {
  const rules = options.groupRules ?? DEFAULT_GROUP_RULES;
  const spec = options.spec ?? humanScoreSpec(MI_RUBRIC);
  if (spec.dimension.type === 'numeric' && !isCoherenceCount(spec)) humanScoreLevels(spec, 1, 1);
  const human = resolveHuman(items, options.human, rules, spec);
  const filter = inGroup(human, rules);
  const evaluators = options.against ? [options.evaluator, options.against] : [options.evaluator];
  const rows: { itemId: string; candidateId: string; scores: number[]; groupLabels: number; coherent: number | null; assist?: number[] }[] = [];
  for (const signal of options.assist ?? []) {
    const g = /^human:(experts|laypeople|all)$/.exec(signal)?.[1];
    if (g && (g === human || g === 'all' || human === 'all')) throw new Error(`assist ${signal}: shares annotators with the human score being planned (${human}); assist with another group or an evaluator`);
  }
  const seen = new Set<string>();
  const itemIds = new Set<string>();
  let missingScore = 0;
  for (const it of items) {
    for (const c of it.candidates) {
      const key = `${it.id}\u0000${c.id}`;
      if (seen.has(key)) throw new Error(`item "${it.id}" has two candidates with the id "${c.id}"; the plan names candidates by (item, candidate) id`);
      seen.add(key);
      if (options.column && !candidateGroups(c, options.column.groupBy).includes(options.column.value)) continue;
      const scores = evaluators.map((e) => usableScore(c, e));
      if (scores.some((s) => s === null)) {
        missingScore++;
        continue;
      }
      const groupLabels = c.annotations.filter((a) => holdsLabel(a, spec) && filter(a)).length;
      rows.push({ itemId: it.id, candidateId: c.id, scores: scores as number[], groupLabels, coherent: specScore(c, spec, filter), ...(options.assist?.length ? { assist: options.assist.map((a) => assistValue(c, a, rules)) } : {}) });
      itemIds.add(it.id);
    }
  }
  let perCandidate = options.labelsPerCandidate;
  if (perCandidate === undefined) {
    const counts = new Map<number, number>();
    for (const r of rows) if (r.groupLabels > 0) counts.set(r.groupLabels, (counts.get(r.groupLabels) ?? 0) + 1);
    let best = 0;
    for (const [k, n] of counts) if (n > (counts.get(best) ?? 0) || (n === (counts.get(best) ?? 0) && k > best)) best = k;
    // No labels of the group yet: one annotator labelling alone, whose one label makes a candidate labelled (issue 41
    // item 2; a team sets its own count).
    perCandidate = best > 0 ? best : 1;
  }
  if (!(Number.isInteger(perCandidate) && perCandidate >= 1)) throw new Error(`labels per candidate must be a positive integer (got ${perCandidate})`);
  const candidates = rows.map((r) => ({ itemId: r.itemId, candidateId: r.candidateId, scores: r.scores, groupLabels: r.groupLabels, human: r.groupLabels >= (perCandidate as number) ? r.coherent : null, ...(r.assist ? { assist: r.assist } : {}) }));
  return { candidates, human, labelsPerCandidate: perCandidate, evaluators, missingScore, items: itemIds.size, spec, ...(options.column ? { column: options.column } : {}), ...(options.assist?.length ? { assist: options.assist } : {}) };
}

/** A fingerprint of the pool's candidates and scores (SHA-256, hex, first 16 characters): a plan replays only on the same pool. */
export function poolFingerprint(pool: LabellingPool): string {
  const h = createHash('sha256');
  h.update(JSON.stringify([pool.evaluators, pool.column ?? null, ...(pool.assist ? [pool.assist] : [])]));
  for (const c of pool.candidates) h.update(JSON.stringify([c.itemId, c.candidateId, c.scores, ...(c.assist ? [c.assist.map((v) => (Number.isFinite(v) ? v : null))] : [])]));
  return h.digest('hex').slice(0, 16);
}

/** A fully labelled pool with its exact totals: what a simulation replays and what the design-only bound is computed on. */
export interface FullyLabelledPool {
  /** The pool restricted to its fully labelled candidates. */
  pool: LabellingPool;
  /** Scored candidates left out because they are not fully labelled. */
  notFullyLabelled: number;
  totals: SpearmanTotals;
  /** The pool's value (rho, or rho_A − rho_B) and its gradient at the true totals. */
  truth: EstimandValue;
  /** Every candidate's human-score level index. */
  y: number[];
}

/**
 * The fully labelled candidates of {@link labellingPool}, their Spearman totals (levels 0 … the largest count seen,
 * at least labelsPerCandidate) and the pool's exact value.
 *
 * @param purpose - what needs the fully labelled pool, for the error ("a simulation", "the bound")
 * @throws Error when fewer than 3 candidates are fully labelled, or every one has the same human score
 */
export function fullyLabelledPool(items: readonly DialogueItem[], options: PoolOptions, purpose: string): FullyLabelledPool {
  const full = labellingPool(items, options);
  const candidates = full.candidates.filter((c) => c.human !== null);
  if (candidates.length < 3) throw new Error(`only ${candidates.length} scored candidate(s) are fully labelled by ${full.human} (${full.labelsPerCandidate} labels each); ${purpose} needs a fully labelled file`);
  const maxScore = Math.max(full.labelsPerCandidate, ...candidates.map((c) => c.groupLabels));
  const levels = humanScoreLevels(full.spec, full.labelsPerCandidate, maxScore);
  const totals = new SpearmanTotals(full.evaluators.map((_, e) => candidates.map((c) => c.scores[e])), levels);
  const truth = totals.evaluate(totals.totals(candidates.map((c) => c.human as number)));
  if (!truth) throw new Error("the pool's correlation is undefined (every fully labelled candidate has the same human score)");
  const y = candidates.map((c) => totals.levelIndex(c.human as number));
  return { pool: { ...full, candidates }, notFullyLabelled: full.candidates.length - candidates.length, totals, truth, y };
}
