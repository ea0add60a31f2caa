/**
 * The estimation pool of a dialogue file (docs/estimation.md §1): every candidate, with the groups it belongs to
 * (`--by`), the planned annotator group's outcome once it is fully labelled, and the predictors' values — another
 * group's outcome on the same estimand (`human:laypeople`) or an evaluator's score.
 *
 * Unit of labelling (as the Spearman planner's, docs/labelling-plan.md): a candidate counts as labelled once
 * `labelsPerCandidate` annotators of the planned group have given it a coherence label; with fewer it waits.
 */
import { createHash } from 'node:crypto';
import { unitGroups } from '../dialogue/groupBy';
import { decodingStrategy, GROUND_TRUTH } from '../dialogue/strategy';
import { candidateOrigins, type Annotation, type Candidate, type DialogueItem } from '../dialogue/types';
import type { EstimandSpec } from '../design/planRecord';
import { DEFAULT_GROUP_RULES, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';
import { estimandOf, type Estimand } from './estimands';

/** One candidate of the pool. */
export interface EstimationUnit {
  itemId: string;
  candidateId: string;
  /** Its groups under `by` (one, or several for a candidate produced by several origins); `['all']` without `by`. */
  groups: string[];
  /** Coherence labels from the planned group. */
  groupLabels: number;
  /** The planned group's outcome once the candidate is fully labelled (≥ labelsPerCandidate labels), else null. */
  outcome: number[] | null;
  /**
   * Per predictor, its value(s): for `human:<group>` that group's outcome on the estimand followed by its share of
   * "coherent" labels (null without a label from it); for an evaluator `[score]` (null without a usable score).
   */
  predictors: (number[] | null)[];
}

/** Options of {@link estimationPool}. */
export interface EstimationPoolOptions {
  estimand: EstimandSpec;
  /** Whose labels are estimated (default `experts`). */
  human?: HumanGroup;
  /** Predictors: `human:<group>` (another group's labels; not one that shares annotators with `human`) or evaluator ids. */
  predictors?: string[];
  /**
   * Grouping of the candidates: `strategy` (the first study's decoding strategy, GEM 2022 Figure 3: model, method and
   * parameters, e.g. `GPT-2 nucleus p=0.4`, the human reference `ground truth`), or any key of `unitGroups`
   * (`origin`, `model`, `source`, `kind`, `stage`, a dotted field path). Absent: the whole pool is one group, `all`.
   */
  by?: string;
  /** Labels that make a candidate labelled; default: the most common count among candidates with any, else 3. */
  labelsPerCandidate?: number;
  groupRules?: GroupRules;
}

/** The pool and how it was made. */
export interface EstimationPool {
  units: EstimationUnit[];
  estimand: Estimand;
  human: HumanGroup;
  labelsPerCandidate: number;
  /** The most planned-group labels any candidate carries (at least labelsPerCandidate). */
  maxLabels: number;
  predictors: string[];
  by?: string;
  /** Group keys in display order (`ground truth` first for strategies, then first appearance). */
  groups: string[];
}

/** The groups of a candidate under `by` ({@link EstimationPoolOptions.by}). */
export function estimationGroups(item: DialogueItem, candidate: Candidate, by: string | undefined): string[] {
  if (by === undefined) return ['all'];
  if (by === 'strategy') return [...new Set(candidateOrigins(candidate).map((o) => decodingStrategy(o).label))];
  return unitGroups(item, candidate, by);
}

function usableScore(c: Candidate, id: string): number | null {
  const s = c.scores?.[id];
  return s && s.status === 'ok' && typeof s.value === 'number' && Number.isFinite(s.value) ? s.value : null;
}

/**
 * The pool of `items`: every candidate, in file order.
 *
 * @throws Error on a repeated (item id, candidate id), a predictor that shares annotators with the planned group, or a
 *   bad labels-per-candidate count; RangeError on a bad estimand
 */
export function estimationPool(items: readonly DialogueItem[], options: EstimationPoolOptions): EstimationPool {
  const rules = options.groupRules ?? DEFAULT_GROUP_RULES;
  const human = options.human ?? 'experts';
  const estimand = estimandOf(options.estimand);
  const predictors = options.predictors ?? [];
  const readers = predictors.map((p): ((c: Candidate) => number[] | null) => {
    const g = /^human:(experts|laypeople|all)$/.exec(p)?.[1] as HumanGroup | undefined;
    if (g) {
      if (g === human || g === 'all' || human === 'all') throw new Error(`predictor ${p}: shares annotators with the labels being estimated (${human}); predict with another group or an evaluator`);
      const keep = inGroup(g, rules);
      return (c) => {
        const anns = c.annotations.filter((a: Annotation) => estimand.labelled(a) && keep(a));
        const outcome = estimand.outcome(anns);
        // The group's outcome on the estimand, then what else its labels say (the MI estimands: its share of
        // "coherent" labels, finer than a majority vote).
        return outcome === null ? null : [...outcome, ...estimand.predictorExtra(anns)];
      };
    }
    if (p.startsWith('human:')) throw new Error(`predictor ${p}: a human predictor is human:experts, human:laypeople or human:all`);
    return (c) => {
      const s = usableScore(c, p);
      return s === null ? null : [s];
    };
  });
  const keep = inGroup(human, rules);
  const seen = new Set<string>();
  const rows: (Omit<EstimationUnit, 'outcome'> & { annotations: Annotation[] })[] = [];
  const firstSeen: string[] = [];
  for (const it of items) {
    for (const c of it.candidates) {
      const k = `${it.id}\u0000${c.id}`;
      if (seen.has(k)) throw new Error(`item "${it.id}" has two candidates with the id "${c.id}"; estimates name candidates by (item, candidate) id`);
      seen.add(k);
      const groups = estimationGroups(it, c, options.by);
      for (const g of groups) if (!firstSeen.includes(g)) firstSeen.push(g);
      const annotations = c.annotations.filter((a) => estimand.labelled(a) && keep(a));
      rows.push({ itemId: it.id, candidateId: c.id, groups, groupLabels: annotations.length, annotations, predictors: readers.map((r) => r(c)) });
    }
  }
  let perCandidate = options.labelsPerCandidate;
  if (perCandidate === undefined) {
    const counts = new Map<number, number>();
    for (const r of rows) if (r.groupLabels > 0) counts.set(r.groupLabels, (counts.get(r.groupLabels) ?? 0) + 1);
    let best = 0;
    for (const [k, n] of counts) if (n > (counts.get(best) ?? 0) || (n === (counts.get(best) ?? 0) && k > best)) best = k;
    perCandidate = best > 0 ? best : human === 'all' ? 6 : 3;
  }
  if (!(Number.isInteger(perCandidate) && perCandidate >= 1)) throw new Error(`labels per candidate must be a positive integer (got ${perCandidate})`);
  const L = perCandidate;
  const units = rows.map(({ annotations, ...r }) => ({ ...r, outcome: r.groupLabels >= L ? estimand.outcome(annotations) : null }));
  const maxLabels = Math.max(L, ...rows.map((r) => r.groupLabels));
  const groups = options.by === 'strategy' ? [...firstSeen.filter((g) => g === GROUND_TRUTH), ...firstSeen.filter((g) => g !== GROUND_TRUTH)] : firstSeen;
  return { units, estimand, human, labelsPerCandidate: L, maxLabels, predictors, ...(options.by !== undefined ? { by: options.by } : {}), groups };
}

/**
 * A fingerprint of what a plan on the pool depends on besides the planned labels (SHA-256, first 16 hex digits): the
 * estimand, the groups, the candidates' ids and groups, and the predictors' values. A plan replays only on the same.
 */
export function estimationFingerprint(pool: EstimationPool, units: readonly EstimationUnit[]): string {
  const h = createHash('sha256');
  h.update(JSON.stringify([pool.estimand.spec, pool.human, pool.predictors, pool.by ?? null, pool.labelsPerCandidate]));
  for (const u of units) h.update(JSON.stringify([u.itemId, u.candidateId, u.groups, u.predictors]));
  return h.digest('hex').slice(0, 16);
}
