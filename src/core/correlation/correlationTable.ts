/**
 * The evaluator × response-group correlation table (Wu et al., ICMI 2023 §3, Tables 2–5): for every evaluator
 * (metric, follow-up, average of follow-ups, judge variant) and every group of responses (by origin: source
 * model, decoding strategy, source label, or any candidate field), the correlation between the evaluator's scores
 * and the human coherence score (the number of annotators of the chosen group who said "coherent", §2.1), with n,
 * the two-sided p-value as scipy.stats computes it, significance (p < α), the best evaluator per column, a seeded
 * item-bootstrap percentile interval, and a human reference row (laypeople against experts, Table 2).
 */
import { MI_RUBRIC } from '../rubric/presets';
import type { DimensionType, Rubric } from '../rubric/rubric';
import { holdsLabel, humanScorePhrase, humanScoreSpec, isCoherenceCount, specScore, type HumanScoreRule, type HumanScoreSpec } from '../rubric/labelValues';
import { annotatorGroup, DEFAULT_GROUP_RULES, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';
import { candidateGroups } from '../dialogue/groupBy';
import type { Candidate, DialogueItem } from '../dialogue/types';
import { IS_REFERENCE_REASON, isReferenceCandidate } from '../dialogue/reference';
import { isReferenceBasedEvaluator } from '../metrics';
import type { UndefinedReason } from '../tables/numberFormat';
import { bootstrapIndices, bootstrapInterval, DEFAULT_INTERVAL, type BootstrapInterval, type IntervalMethod } from '../stats/bootstrap';
import { kendallTauB, kendallTauBStatistic, kendallTauBWeighted, pearsonR, spearmanRho } from '../stats/correlation';
import { jackknifeTest, type JackknifeTest } from '../stats/clusterBootstrap';
import type { CoverageFamily } from '../stats/measuredCoverage';
import { adjustPValues, type PAdjustMethod } from '../stats/multipleTesting';
import seedrandom from 'seedrandom';
import { BASELINE_IDS, displayNames, evaluatorKind, evaluatorLegend, evaluatorSignatures, HUMAN_REFERENCE_ID, KIND_ORDER, type EvaluatorKind, type LegendEntry } from '../evaluators/evaluatorNames';

/** Correlation coefficient: Spearman's rho (ICMI 2023's choice), Pearson's r, or Kendall's tau-b. */
export type CorrelationMethod = 'spearman' | 'pearson' | 'kendall';
export const CORRELATION_METHODS: readonly CorrelationMethod[] = ['spearman', 'pearson', 'kendall'];

/** Whose coherence labels make the human score; `auto`: the experts' when any expert label exists, else everyone's. */
export type HumanChoice = HumanGroup | 'auto';

/**
 * Which cell of a column is "best" (bold): `absolute` — the largest |correlation| (ICMI 2023 §3.2 ranks follow-ups
 * by absolute correlation, since an unfavourable follow-up should correlate negatively); `signed` — the largest
 * correlation (Table 5, where every evaluator is meant to agree positively).
 */
export type BestRule = 'absolute' | 'signed';

/** Bootstrap settings: B resamples of the items, a seed, and the interval's confidence level. */
export interface BootstrapSettings {
  resamples: number;
  seed: number | string;
  /** Default 0.95. */
  level?: number;
  /** How the bounds are read off the resamples (default {@link DEFAULT_INTERVAL}; `percentile` for the intervals of earlier versions). */
  interval?: IntervalMethod;
}

/** A derived evaluator: the mean of several evaluators' scores (ICMI 2023 Table 4, likelihood-averaged follow-ups). */
export interface AverageEvaluator {
  /** Row label; the row's id is `average:<label>`. */
  label: string;
  /** Evaluator ids averaged; a candidate gets a value only when every member has an `ok` score on it. */
  members: string[];
}

/** Options of {@link correlationTable}; every field has a default. */
export interface CorrelationTableOptions {
  /** Default `spearman`. */
  method?: CorrelationMethod;
  /** Default `auto`. */
  human?: HumanChoice;
  /** Column grouping (see {@link candidateGroups}); default `origin`. */
  groupBy?: string;
  /** Add the column of all candidates (key `all`), last. Default true. */
  includeAll?: boolean;
  /** Default `absolute`. */
  best?: BestRule;
  /** Significance level for the italics. Default 0.05. */
  alpha?: number;
  /** Percentile intervals for every cell, when given. */
  bootstrap?: BootstrapSettings;
  /** Keep only evaluators whose id or display name contains one of these strings (case-insensitive). */
  evaluators?: string[];
  /** Extra rows: averages of evaluators. */
  averages?: AverageEvaluator[];
  /** Annotator groups (default: ids starting with `Expert` are experts unless an annotation says its group). */
  groupRules?: GroupRules;
  /**
   * Evaluators that compare with the item's reference (BLEU, ROUGE, METEOR, BERTScore, …). A candidate that is its
   * item's reference (`isReferenceCandidate`) is left out of their cells, counted in `isReference`, even when a
   * self-score is stored (files scored before ReflectEval stopped scoring the reference against itself). Default:
   * `isReferenceBasedEvaluator` (metrics/registry.ts), the rule the ceiling and the alt-test use too.
   */
  referenceBased?: (evaluatorId: string) => boolean;
  /**
   * Trivial baseline rows (`correlate --baselines`): response length in whitespace tokens, a constant (its
   * correlation is undefined: it says nothing), and a seeded random number (what noise alone correlates). Never
   * marked best, never in a column's family of adjusted p-values.
   */
  baselines?: boolean | { seed?: number | string };
  /**
   * Adjust the p-values of each column's evaluator rows for their number (`--adjust`): Holm's step-down (familywise
   * error) or Benjamini–Yekutieli (false discovery rate under any dependence); significance then reads the adjusted
   * p-value. Default none.
   */
  adjust?: PAdjustMethod | 'none';
  /**
   * How the best cell of a column is marked: `separated` (default) — only when the best cell has at least
   * `minBestN` responses and the dependent-correlation test separates it from the runner-up at α on the responses
   * both scored ({@link bestSeparation}); `largest` — the largest value, whatever the evidence (the papers' bold).
   */
  bestMark?: BestMark;
  /** Responses the best cell (and the test against the runner-up) needs for a mark. Default 20. */
  minBestN?: number;
  /**
   * The p-value of each cell (H0: no correlation): `cluster-jackknife` (default) — the cluster-jackknife t-test over
   * the dialogue items ({@link cellJackknifeTest}), which holds its level when responses of one context are alike;
   * `independent` — scipy's p, which treats the n responses as independent (the papers' p; 8–10 % type-I error at 5 %
   * on clustered studies in the coverage study, docs/meta-evaluation.md#coverage). With the default, scipy's p is kept
   * in `pIndependent`.
   */
  pValue?: PTest;
  /** The study's rubric (default: the MI preset, what a file without a rubric of its own uses). */
  rubric?: Rubric;
  /**
   * The rubric dimension the human score is taken on (`--dimension`; binary, ordinal or numeric). Default: the
   * rubric's primary — `coherent` in the MI preset.
   */
  dimension?: string;
  /**
   * How the annotators' labels on the dimension become one human score (`--human-score`): `count` or `majority`
   * (binary only), `mean` or `median`. Default: count for binary (ICMI 2023 §2.1), mean for ordinal and numeric.
   */
  humanScore?: HumanScoreRule;
}

/** The human-score spec of `options` ({@link humanScoreSpec}: the rubric's dimension under the rule). */
export function tableSpec(options: Pick<CorrelationTableOptions, 'rubric' | 'dimension' | 'humanScore'>): HumanScoreSpec {
  return humanScoreSpec(options.rubric ?? MI_RUBRIC, options.dimension, options.humanScore);
}

/**
 * What a table says about its human score outside the seeds' coherence count: the dimension's name exactly (what
 * `--dimension` takes), its title and type, the rule, the rubric, and the phrase the text uses.
 */
export interface TableDimension {
  name: string;
  title: string;
  type: DimensionType;
  rule: HumanScoreRule;
  rubric: string;
  /** E.g. "mean rating of Overall". */
  phrase: string;
}

/** The table's {@link TableDimension}, or undefined for the MI preset's coherence count (whose tables are as they always were). */
export function tableDimension(spec: HumanScoreSpec): TableDimension | undefined {
  if (isCoherenceCount(spec)) return undefined;
  return { name: spec.dimension.name, title: spec.dimension.title ?? spec.dimension.name, type: spec.dimension.type, rule: spec.rule, rubric: spec.rubric.name, phrase: humanScorePhrase(spec) };
}

/** How a cell's p-value is computed (see {@link CorrelationTableOptions.pValue}). */
export type PTest = 'cluster-jackknife' | 'independent';

/** How the best cell of a column is marked (see {@link CorrelationTableOptions.bestMark}). */
export type BestMark = 'separated' | 'largest';

/** Why a column's best cell is, or is not, marked. */
export interface BestInColumn {
  column: string;
  /** The evaluator with the largest (|) value, and the runner-up; null when the column has fewer than two defined evaluator cells. */
  best: string | null;
  runnerUp: string | null;
  /** Responses both scored (the test's n); null without a test. */
  n: number | null;
  /** Two-sided p of the test of equal correlations with the human score (the cluster-jackknife t of their difference, {@link bestSeparation}). */
  pValue: number | null;
  /** The best cell is marked. */
  marked: boolean;
  /** `separated`, or why not: `too-few` (< minBestN responses), `not-separated` (p ≥ α), `tie`, `untestable`, `one-cell`; `largest` under the old rule. */
  reason: 'separated' | 'too-few' | 'not-separated' | 'tie' | 'untestable' | 'one-cell' | 'largest';
}

/** One cell: an evaluator against the human score on one group of responses. */
export interface CorrelationCell {
  column: string;
  /** Candidates of the column with both a usable score and a human label: the pairs correlated. */
  n: number;
  /** Candidates of the column left out: no usable (`ok`, numeric) score, or no label from the chosen annotators. */
  excluded: number;
  /** Of those, how many had no usable score (a candidate can lack both). */
  missingScore: number;
  /** Of those, how many had no label from the chosen annotators. */
  missingLabel: number;
  /**
   * Of those, how many are the item's reference itself, left out of a reference-based evaluator (never scored
   * against itself); not counted in `missingScore` or `missingLabel`. Absent in cells built elsewhere (0).
   */
  isReference?: number;
  /**
   * Among the n pairs, how many carry each warning of the evaluator (a sentence, e.g. unsmoothed BLEU-4 without
   * a 4-gram match): values that are defined but degenerate. Absent when none.
   */
  warnings?: Record<string, number>;
  /** The correlation in [-1, 1], or null when undefined. */
  statistic: number | null;
  /** Two-sided p-value, or null when undefined. */
  pValue: number | null;
  /** The p-value adjusted for the column's evaluator rows (with `adjust`); null for rows outside the family. */
  pAdjusted?: number | null;
  /** scipy's p (responses as independent), kept when `pValue` is the cluster-jackknife one. */
  pIndependent?: number | null;
  /**
   * Why the correlation is undefined: fewer than 3 pairs, a constant column (scipy gives nan), or (side-by-side
   * tables only) the evaluator is not part of that column's configuration.
   */
  undefinedReason?: UndefinedReason;
  /** How `pValue` was computed: the cluster jackknife, or (scipy's p) for Kendall exact or asymptotic (scipy's `method='auto'`). */
  pMethod?: 'exact' | 'asymptotic' | 'cluster-jackknife';
  /** p < α (the adjusted p with `adjust`). */
  significant: boolean;
  /** The best defined cell of its column among the evaluator rows (ties all marked); never on the human row. */
  best: boolean;
  /** Percentile bootstrap interval, when asked for. */
  ci?: BootstrapInterval;
}

/** One row of the table. */
export interface CorrelationRow {
  evaluatorId: string;
  displayName: string;
  kind: EvaluatorKind;
  /** One cell per column, in the table's column order. */
  cells: CorrelationCell[];
}

/** A column: one group of responses. */
export interface CorrelationColumn {
  /** Group value (`all` for every candidate). */
  key: string;
  label: string;
  /** Candidates in the group. */
  candidates: number;
  /** Items with at least one candidate in the group. */
  items: number;
}

/** The whole table, with everything needed to reproduce it. */
export interface CorrelationTable {
  method: CorrelationMethod;
  /** The human score used (after resolving `auto`). */
  human: HumanGroup;
  humanRequested: HumanChoice;
  groupBy: string;
  best: BestRule;
  alpha: number;
  columns: CorrelationColumn[];
  /** Evaluator rows, by kind (metrics, follow-ups, averages, judges) then display name. */
  rows: CorrelationRow[];
  /** Laypeople's coherence scores against the experts' on the same candidates (ICMI 2023 Table 2). */
  reference: CorrelationRow;
  /** Every row's display name, id and full signature, in row order: what each row is, for a reader to reproduce. */
  legend: LegendEntry[];
  /** Items that hold at least one candidate: the units resampled by the bootstrap. */
  items: number;
  bootstrap?: { resamples: number; seed: number | string; level: number; interval?: IntervalMethod };
  /** The p-value adjustment of each column's evaluator rows, when asked for. */
  adjust?: PAdjustMethod;
  /** How best cells are marked, and per column why (not) ({@link markBest}). */
  bestMark?: BestMark;
  bestInColumn?: BestInColumn[];
  /** Responses a best cell needs (`minBestN`). */
  minBestN?: number;
  /** How the cells' p-values were computed (absent in tables made before issue 40: `independent`). */
  pTest?: PTest;
  /** Side-by-side tables: the pinned configurations, in column order (see `sideBySide`). */
  configurations?: { label: string; method: CorrelationMethod; human: HumanGroup; groupBy: string; variant?: string }[];
  /**
   * The human score's dimension and rule, present whenever it is not the MI preset's coherence count: text tables
   * name it in their header, CSV and JSON carry it as a `dimension` column / field.
   */
  dimension?: TableDimension;
}

/** The correlation of x with y by `method`, as scipy.stats 1.10 computes it. */
export function correlate(method: CorrelationMethod, x: readonly number[], y: readonly number[]) {
  return method === 'spearman' ? spearmanRho(x, y) : method === 'pearson' ? pearsonR(x, y) : kendallTauB(x, y);
}

/**
 * `experts` when any annotation in `items` with a label on the spec's dimension (default: coherence) is an expert's,
 * else `all`.
 */
export function resolveHuman(items: readonly DialogueItem[], choice: HumanChoice, rules: GroupRules = DEFAULT_GROUP_RULES, spec: HumanScoreSpec = tableSpec({})): HumanGroup {
  if (choice !== 'auto') return choice;
  for (const it of items) for (const c of it.candidates) for (const a of c.annotations) if (holdsLabel(a, spec) && annotatorGroup(a, rules) === 'expert') return 'experts';
  return 'all';
}

/** Pairs of one cell, kept per item so the bootstrap can resample items. */
export interface CellPairs {
  /** x (evaluator) and y (human) values of the item's candidates in this cell, indexed by item. */
  x: number[][];
  y: number[][];
  n: number;
  excluded: number;
  missingScore: number;
  missingLabel: number;
  /** Left out as the item's reference (see {@link CorrelationCell.isReference}). */
  isReference: number;
  /** Warning → how many of the n pairs carry it. */
  warnings: Map<string, number>;
}

/** One candidate reduced to what the table needs. */
interface Observation {
  item: number;
  /** The candidate's id (for drill-down from a plotted point). */
  candidate: string;
  groups: string[];
  human: number | null;
  lay: number | null;
  expert: number | null;
  /** Evaluator id → usable value, or null when the score exists but is not usable. */
  scores: Map<string, number | null>;
  /**
   * Evaluator ids that leave the candidate out as its item's reference: the stored score says so (`reason:
   * "is-reference"`), or the candidate is the reference and the evaluator is reference-based.
   */
  leftOutAsReference: Set<string>;
  /** Evaluator id → the warning stored with a usable score. */
  warnings: Map<string, string>;
}

/** The candidates of a file, reduced for correlating: built once, queried per cell. */
export interface CorrelationData {
  /** Items with at least one candidate (resampling units), by index. */
  itemIds: string[];
  evaluatorIds: string[];
  columns: CorrelationColumn[];
  human: HumanGroup;
  observations: Observation[];
  /** Recorded signatures by evaluator id ({@link evaluatorSignatures}), for names and legends. */
  signatures: Map<string, string>;
  /** The human score's dimension and rule. */
  spec: HumanScoreSpec;
}

function usable(c: Candidate, id: string): number | null | undefined {
  const s = c.scores?.[id];
  if (!s) return undefined;
  return s.status === 'ok' && typeof s.value === 'number' && Number.isFinite(s.value) ? s.value : null;
}

function baselineSeed(options: CorrelationTableOptions): string {
  return String(typeof options.baselines === 'object' ? (options.baselines.seed ?? 1) : 1);
}

/** Reduces `items` for {@link correlationTable} and {@link compareEvaluators}. */
export function correlationData(items: readonly DialogueItem[], options: CorrelationTableOptions = {}): CorrelationData {
  const rules = options.groupRules ?? DEFAULT_GROUP_RULES;
  const spec = tableSpec(options);
  const human = resolveHuman(items, options.human ?? 'auto', rules, spec);
  const referenceBased = (id: string) => !id.startsWith('average:') && (options.referenceBased ?? isReferenceBasedEvaluator)(id);
  const groupBy = options.groupBy ?? 'origin';
  const includeAll = options.includeAll ?? true;
  const humanFilter = inGroup(human, rules);
  const layFilter = inGroup('laypeople', rules);
  const expertFilter = inGroup('experts', rules);
  const itemIds: string[] = [];
  const observations: Observation[] = [];
  const ids = new Set<string>();
  const groupCounts = new Map<string, { candidates: number; items: Set<number>; labelled: number }>();
  const count = (key: string, item: number, labelled: boolean) => {
    let g = groupCounts.get(key);
    if (!g) groupCounts.set(key, (g = { candidates: 0, items: new Set(), labelled: 0 }));
    g.candidates++;
    g.items.add(item);
    if (labelled) g.labelled++;
  };
  for (const it of items) {
    if (it.candidates.length === 0) continue;
    const item = itemIds.length;
    itemIds.push(it.id);
    for (const c of it.candidates) {
      const scores = new Map<string, number | null>();
      const leftOutAsReference = new Set<string>();
      const warnings = new Map<string, string>();
      const isReference = isReferenceCandidate(it, c);
      for (const id of Object.keys(c.scores ?? {})) {
        ids.add(id);
        const s = c.scores[id];
        if (s?.reason === IS_REFERENCE_REASON || (isReference && referenceBased(id))) {
          // the reference is not scored against itself: no value (so comparisons leave it out too)
          leftOutAsReference.add(id);
          scores.set(id, null);
          continue;
        }
        const v = usable(c, id) ?? null;
        scores.set(id, v);
        if (v !== null && typeof s?.warning === 'string' && s.warning) warnings.set(id, s.warning);
      }
      if (options.baselines) {
        const t = c.text.trim();
        scores.set(BASELINE_IDS.length, t ? t.split(/\s+/u).length : 0);
        scores.set(BASELINE_IDS.constant, 0);
        scores.set(BASELINE_IDS.random, seedrandom(`${baselineSeed(options)}/${it.id}/${c.id}`)());
      }
      for (const avg of options.averages ?? []) {
        const vals = avg.members.map((m) => usable(c, m));
        if (vals.every((v) => v === undefined)) continue;
        const id = `average:${avg.label}`;
        scores.set(id, vals.every((v): v is number => typeof v === 'number') ? vals.reduce((a, b) => a + b, 0) / vals.length : null);
        // an average over a member that left the reference out leaves it out too
        if (avg.members.some((m) => leftOutAsReference.has(m))) leftOutAsReference.add(id);
      }
      const groups = candidateGroups(c, groupBy);
      if (includeAll) groups.push('all');
      const labelled = c.annotations.some((a) => holdsLabel(a, spec));
      for (const g of groups) count(g, item, labelled);
      observations.push({
        item,
        candidate: c.id,
        groups,
        human: specScore(c, spec, humanFilter),
        lay: specScore(c, spec, layFilter),
        expert: specScore(c, spec, expertFilter),
        scores,
        leftOutAsReference,
        warnings,
      });
    }
  }
  for (const avg of options.averages ?? []) ids.add(`average:${avg.label}`);
  const filters = (options.evaluators ?? []).map((f) => f.toLowerCase()).filter(Boolean);
  const signatures = evaluatorSignatures(items);
  const names = displayNames([...ids], signatures);
  const evaluatorIds = [...ids].filter((id) => filters.length === 0 || filters.some((f) => id.toLowerCase().includes(f) || (names.get(id) ?? '').toLowerCase().includes(f)));
  if (options.baselines && observations.length) evaluatorIds.push(BASELINE_IDS.length, BASELINE_IDS.constant, BASELINE_IDS.random);
  // A group none of whose responses anyone has labelled (e.g. the gold references) gets no column.
  const keys = [...groupCounts.keys()].filter((k) => k !== 'all' && (groupCounts.get(k)?.labelled ?? 0) > 0).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  if (includeAll && groupCounts.has('all')) keys.push('all');
  const columns = keys.map((key) => {
    const g = groupCounts.get(key) as { candidates: number; items: Set<number>; labelled: number };
    return { key, label: key === 'all' ? 'All' : key, candidates: g.candidates, items: g.items.size };
  });
  return { itemIds, evaluatorIds, columns, human, observations, signatures, spec };
}

/**
 * The (x, y) pairs of one cell, per item. `evaluatorId` may be {@link HUMAN_REFERENCE_ID}: then x is the
 * laypeople's and y the experts' coherence score.
 */
export function cellPairs(data: CorrelationData, evaluatorId: string, column: string): CellPairs {
  const m = data.itemIds.length;
  const x: number[][] = Array.from({ length: m }, () => []);
  const y: number[][] = Array.from({ length: m }, () => []);
  let n = 0;
  let excluded = 0;
  let missingScore = 0;
  let missingLabel = 0;
  let isReference = 0;
  const warnings = new Map<string, number>();
  const reference = evaluatorId === HUMAN_REFERENCE_ID;
  for (const o of data.observations) {
    if (!o.groups.includes(column)) continue;
    if (!reference && o.leftOutAsReference.has(evaluatorId)) {
      excluded++;
      isReference++;
      continue;
    }
    const xv = reference ? o.lay : o.scores.get(evaluatorId);
    const yv = reference ? o.expert : o.human;
    const noX = xv === null || xv === undefined;
    const noY = yv === null;
    if (noX || noY) {
      excluded++;
      if (noX) missingScore++;
      if (noY) missingLabel++;
      continue;
    }
    x[o.item].push(xv);
    y[o.item].push(yv);
    n++;
    const w = reference ? undefined : o.warnings.get(evaluatorId);
    if (w) warnings.set(w, (warnings.get(w) ?? 0) + 1);
  }
  return { x, y, n, excluded, missingScore, missingLabel, isReference, warnings };
}

/** One response of a cell: its evaluator score against its human coherence score. */
export interface CellPoint {
  itemId: string;
  candidateId: string;
  /** The evaluator's score (x of the correlation). */
  score: number;
  /** The human coherence score: how many of the group's annotators said coherent (y of the correlation). */
  human: number;
}

/**
 * The responses behind one cell, the same ones {@link cellPairs} correlates (left-out responses are not here), with
 * their item and candidate ids, in file order.
 */
export function cellPoints(data: CorrelationData, evaluatorId: string, column: string): CellPoint[] {
  const out: CellPoint[] = [];
  const reference = evaluatorId === HUMAN_REFERENCE_ID;
  for (const o of data.observations) {
    if (!o.groups.includes(column)) continue;
    if (!reference && o.leftOutAsReference.has(evaluatorId)) continue;
    const x = reference ? o.lay : o.scores.get(evaluatorId);
    const y = reference ? o.expert : o.human;
    if (x === null || x === undefined || y === null) continue;
    out.push({ itemId: data.itemIds[o.item], candidateId: o.candidate, score: x, human: y });
  }
  return out;
}

/** Concatenates the per-item pairs of the items in `indices` (with repetition), in that order. */
export function resamplePairs(pairs: Pick<CellPairs, 'x' | 'y'>, indices: ArrayLike<number>): { x: number[]; y: number[] } {
  const x: number[] = [];
  const y: number[] = [];
  for (let i = 0; i < indices.length; i++) {
    const k = indices[i];
    const px = pairs.x[k];
    const py = pairs.y[k];
    for (let j = 0; j < px.length; j++) {
      x.push(px[j]);
      y.push(py[j]);
    }
  }
  return { x, y };
}

/**
 * Bootstrap interval of one cell's correlation over the given item resamples: each resample is the concatenation of
 * the pairs of its items ({@link resamplePairs}), the correlation is recomputed on it, and resamples where it is
 * undefined are counted and left out; the bounds follow `interval` ({@link bootstrapInterval}; the clusters are the
 * items holding at least one pair of the cell, and BCa's jackknife leaves each of them out in turn).
 *
 * Spearman and Pearson are computed without building the resample: a pair drawn w times (w = how often its item
 * was drawn) is weighted by w, ranks are average ranks among the weighted copies, and r is the weighted Pearson
 * correlation — the same number as on the concatenated resample (up to rounding, ~1e-15), in O(n) per resample
 * after one sort. Kendall's tau-b likewise weights each pair by its item's draws ({@link kendallTauBWeighted}:
 * Knight's pair counts with weights, O(n log d) per resample, exactly {@link kendallTauBStatistic} of the
 * concatenation).
 */
export function cellInterval(method: CorrelationMethod, pairs: CellPairs, resamples: readonly Int32Array[], level = 0.95, interval: IntervalMethod = DEFAULT_INTERVAL): BootstrapInterval {
  const ofCounts = cellStatisticOfCounts(method, pairs);
  const counts = new Int32Array(pairs.x.length);
  const stats = resamples.map((idx) => {
    counts.fill(0);
    for (let i = 0; i < idx.length; i++) counts[idx[i]]++;
    return ofCounts(counts);
  });
  return intervalOfCounts(stats, ofCounts, pairs.x.map((px) => px.length > 0), level, interval);
}

/**
 * The leave-one-item-out values of a statistic of item draw counts: with every used item once, each used item's
 * count set to 0 in turn (in item order). The one jackknife loop behind BCa's acceleration, the cell's jackknife
 * t-test and the best-separation test.
 *
 * @param used - per item, whether it takes part (its count is 1, and it is left out in turn)
 * @param others - the count of every item that does not take part (0, or 1 where the statistic needs it)
 */
export function leaveOneItemOut(ofCounts: (counts: Int32Array) => number | null, used: readonly boolean[], others: 0 | 1 = 0): (number | null)[] {
  const counts = Int32Array.from(used, (u) => (u ? 1 : others));
  const out: (number | null)[] = [];
  used.forEach((u, k) => {
    if (!u) return;
    counts[k] = 0;
    out.push(ofCounts(counts));
    counts[k] = 1;
  });
  return out;
}

/**
 * The interval of resample statistics of a statistic of item draw counts: the clusters are the items `used`, BCa's
 * estimate is `ofCounts` with every item once, its jackknife with each used item left out in turn.
 */
export function intervalOfCounts(stats: readonly (number | null)[], ofCounts: (counts: Int32Array) => number | null, used: readonly boolean[], level: number, interval: IntervalMethod, family: CoverageFamily = 'correlation'): BootstrapInterval {
  const m = used.filter(Boolean).length;
  if (interval !== 'bca' && interval !== 'expanded-bca') return bootstrapInterval(stats, { level, method: interval, clusters: m, family });
  const estimate = ofCounts(Int32Array.from(used, () => 1));
  const jackknife = leaveOneItemOut(ofCounts, used, 1);
  return bootstrapInterval(stats, { level, method: interval, clusters: m, estimate, jackknife, family });
}

/** The cell's correlation as a function of item draw counts (each pair repeated as often as its item was drawn). */
export function cellStatisticOfCounts(method: CorrelationMethod, pairs: Pick<CellPairs, 'x' | 'y'>): (counts: Int32Array) => number | null {
  if (method !== 'kendall') return weightedCorrelation(pairs, method === 'spearman');
  const item: number[] = [];
  const x: number[] = [];
  const y: number[] = [];
  pairs.x.forEach((px, k) => {
    for (let j = 0; j < px.length; j++) {
      item.push(k);
      x.push(px[j]);
      y.push(pairs.y[k][j]);
    }
  });
  const tau = kendallTauBWeighted(x, y);
  const weights = new Int32Array(x.length);
  return (counts) => {
    for (let j = 0; j < item.length; j++) weights[j] = counts[item[j]];
    return tau(weights);
  };
}

/**
 * A function of item draw counts giving Pearson's r (or Spearman's rho when `ranks`) of the cell's pairs, each
 * repeated as often as its item was drawn; null when fewer than 3 pairs are drawn or a column is constant.
 */
export function weightedCorrelation(pairs: Pick<CellPairs, 'x' | 'y'>, ranks: boolean): (counts: Int32Array) => number | null {
  const item: number[] = [];
  const x: number[] = [];
  const y: number[] = [];
  pairs.x.forEach((xs, k) => {
    for (let j = 0; j < xs.length; j++) {
      item.push(k);
      x.push(xs[j]);
      y.push(pairs.y[k][j]);
    }
  });
  const n = x.length;
  const orderX = Array.from({ length: n }, (_, i) => i).sort((a, b) => x[a] - x[b]);
  const orderY = Array.from({ length: n }, (_, i) => i).sort((a, b) => y[a] - y[b]);
  const w = new Float64Array(n);
  const rx = new Float64Array(n);
  const ry = new Float64Array(n);
  /** Average ranks of the weighted copies in `out`; returns false when fewer than two distinct values are drawn. */
  const rank = (values: number[], order: number[], out: Float64Array): boolean => {
    let before = 0;
    let groups = 0;
    for (let i = 0; i < n; ) {
      let j = i;
      let weight = 0;
      while (j < n && values[order[j]] === values[order[i]]) weight += w[order[j++]];
      if (weight > 0) {
        groups++;
        const r = before + (weight + 1) / 2;
        for (let k = i; k < j; k++) out[order[k]] = r;
        before += weight;
      }
      i = j;
    }
    return groups >= 2;
  };
  const distinct = (values: number[], order: number[]): boolean => {
    let first: number | null = null;
    for (const i of order) {
      if (w[i] === 0) continue;
      if (first === null) first = values[i];
      else if (values[i] !== first) return true;
    }
    return false;
  };
  return (counts) => {
    let total = 0;
    for (let i = 0; i < n; i++) total += w[i] = counts[item[i]];
    if (total < 3) return null;
    let a: ArrayLike<number> = x;
    let b: ArrayLike<number> = y;
    if (ranks) {
      if (!rank(x, orderX, rx) || !rank(y, orderY, ry)) return null;
      a = rx;
      b = ry;
    } else if (!distinct(x, orderX) || !distinct(y, orderY)) return null;
    let ma = 0;
    let mb = 0;
    for (let i = 0; i < n; i++) {
      if (w[i] === 0) continue;
      ma += w[i] * a[i];
      mb += w[i] * b[i];
    }
    ma /= total;
    mb /= total;
    let sab = 0;
    let saa = 0;
    let sbb = 0;
    for (let i = 0; i < n; i++) {
      if (w[i] === 0) continue;
      const da = a[i] - ma;
      const db = b[i] - mb;
      sab += w[i] * da * db;
      saa += w[i] * da * da;
      sbb += w[i] * db * db;
    }
    if (saa === 0 || sbb === 0) return null;
    return Math.max(-1, Math.min(1, sab / Math.sqrt(saa * sbb)));
  };
}

/**
 * The correlation table of `items`.
 *
 * Rows: every evaluator id found on any candidate (filtered by `evaluators`), plus the requested averages, sorted
 * by kind then display name; the human reference row separately. Columns: the groups of {@link candidateGroups}
 * under `groupBy`, sorted (numbers numerically), then `all`. Each cell correlates, over the column's candidates
 * that have both a usable score and a label from the chosen annotators, the evaluator's score with the coherence
 * score ({@link coherenceScore}); candidates lacking either are left out and counted. p-values as scipy.stats 1.10
 * (`spearmanr`, `pearsonr`, `kendalltau`); undefined correlations (n < 3, constant column) have null statistics
 * and a reason, never NaN.
 *
 * Best per column: among evaluator rows with a defined statistic, the largest |value| (`best: 'absolute'`) or value
 * (`'signed'`); every cell within 1e-12 of it is marked (ties share the bold); a column with fewer than two
 * defined evaluator cells has no best; undefined cells and the human reference row are never best. Significance
 * (p < α) is independent of best.
 *
 * With `bootstrap`, every cell (and the reference row) gets a percentile interval from the same B item resamples
 * ({@link bootstrapIndices} over the items holding candidates, seeded): items, not candidates, are resampled, so
 * candidates of one dialogue context stay together.
 *
 * @throws RangeError on bad bootstrap settings (B < 1, level outside (0, 1))
 */
export function correlationTable(items: readonly DialogueItem[], options: CorrelationTableOptions = {}): CorrelationTable {
  const method = options.method ?? 'spearman';
  const alpha = options.alpha ?? 0.05;
  const bestRule = options.best ?? 'absolute';
  const data = correlationData(items, options);
  const level = options.bootstrap?.level ?? 0.95;
  if (options.bootstrap && !(level > 0 && level < 1)) throw new RangeError(`bootstrap level must be in (0, 1) (got ${level})`);
  const resamples = options.bootstrap && data.itemIds.length > 0 ? bootstrapIndices(data.itemIds.length, options.bootstrap.resamples, options.bootstrap.seed) : null;
  const names = displayNames(data.evaluatorIds, data.signatures);
  const pTest = options.pValue ?? 'cluster-jackknife';

  const makeRow = (evaluatorId: string, displayName: string): CorrelationRow => ({
    evaluatorId,
    displayName,
    kind: evaluatorKind(evaluatorId),
    cells: data.columns.map((col) => {
      const pairs = cellPairs(data, evaluatorId, col.key);
      const flat = resamplePairs(pairs, Array.from(pairs.x.keys()));
      const r = correlate(method, flat.x, flat.y);
      const p = pTest === 'cluster-jackknife' && r.statistic !== null ? cellJackknifeTest(method, pairs, r.statistic)?.pValue ?? null : r.pValue;
      const cell: CorrelationCell = {
        column: col.key,
        n: pairs.n,
        excluded: pairs.excluded,
        missingScore: pairs.missingScore,
        missingLabel: pairs.missingLabel,
        isReference: pairs.isReference,
        statistic: r.statistic,
        pValue: p,
        significant: p !== null && p < alpha,
        best: false,
      };
      if (pTest === 'cluster-jackknife') cell.pIndependent = r.pValue;
      if (pairs.warnings.size) cell.warnings = Object.fromEntries(pairs.warnings);
      if (r.undefinedReason) cell.undefinedReason = r.undefinedReason;
      if (pTest === 'cluster-jackknife' && r.statistic !== null) cell.pMethod = 'cluster-jackknife';
      else if ('pMethod' in r && r.pMethod) cell.pMethod = r.pMethod;
      return cell;
    }),
  });

  let rows = data.evaluatorIds
    .map((id) => makeRow(id, names.get(id) as string))
    .sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind) || a.displayName.localeCompare(b.displayName, 'en', { numeric: true }) || a.evaluatorId.localeCompare(b.evaluatorId));
  let reference = makeRow(HUMAN_REFERENCE_ID, 'Laypeople–experts');
  // A column whose labelled responses are all their item's reference, left out of every evaluator row (the gold
  // responses of a release that rated them, with reference-based metrics only) has nothing to show: no column.
  const onlyReference = (k: number) => rows.length > 0 && reference.cells[k].n === 0 && rows.every((r) => r.cells[k].n === 0 && r.cells[k].excluded > 0 && (r.cells[k].isReference ?? 0) === r.cells[k].excluded);
  const keep = data.columns.map((_, k) => !onlyReference(k));
  if (keep.includes(false)) {
    data.columns = data.columns.filter((_, k) => keep[k]);
    rows = rows.map((r) => ({ ...r, cells: r.cells.filter((_, k) => keep[k]) }));
    reference = { ...reference, cells: reference.cells.filter((_, k) => keep[k]) };
  }
  const adjust = options.adjust && options.adjust !== 'none' ? options.adjust : undefined;
  if (adjust) adjustRows(rows, adjust, alpha);
  const bestMark = options.bestMark ?? 'separated';
  const minBestN = options.minBestN ?? 20;
  const bestInColumn = markBest(rows, bestRule, { mark: bestMark, minN: minBestN, alpha, separation: bestSeparation(data, method) });
  const dimension = tableDimension(data.spec);
  const interval = options.bootstrap?.interval ?? DEFAULT_INTERVAL;
  if (resamples) for (const task of intervalTasks(data, method, [reference, ...rows], resamples, level, interval)) task();
  return {
    method,
    human: data.human,
    humanRequested: options.human ?? 'auto',
    groupBy: options.groupBy ?? 'origin',
    best: bestRule,
    alpha,
    columns: data.columns,
    rows,
    reference,
    legend: evaluatorLegend(rows.map((r) => r.evaluatorId), data.signatures),
    items: data.itemIds.length,
    ...(options.bootstrap ? { bootstrap: { resamples: options.bootstrap.resamples, seed: options.bootstrap.seed, level, interval } } : {}),
    ...(adjust ? { adjust } : {}),
    bestMark,
    bestInColumn,
    minBestN,
    pTest,
    ...(dimension ? { dimension } : {}),
  };
}

/**
 * The cluster-jackknife t-test of a cell's correlation against 0 ({@link jackknifeTest}): the correlation with each
 * item (context) that holds a pair of the cell left out in turn, t with m − 1 degrees of freedom. Null when fewer
 * than two items hold pairs, or every leave-one-out value is the same.
 */
export function cellJackknifeTest(method: CorrelationMethod, pairs: Pick<CellPairs, 'x' | 'y'>, estimate: number): JackknifeTest | null {
  const jackknife = leaveOneItemOut(cellStatisticOfCounts(method, pairs), pairs.x.map((px) => px.length > 0));
  return jackknifeTest(estimate, jackknife);
}

/** Rows that take part in a column's family of tests and in the best mark: evaluators, not humans or baselines. */
export function isEvaluatorRow(r: Pick<CorrelationRow, 'kind' | 'evaluatorId'>): boolean {
  return r.kind !== 'human' && r.kind !== 'baseline' && !r.evaluatorId.startsWith('loo:');
}

/**
 * Adjusts the p-values of every column's evaluator rows for their number ({@link adjustPValues}; undefined cells
 * are not in the family) and re-reads significance from the adjusted p. Human and baseline rows keep their raw p.
 */
export function adjustRows(rows: readonly CorrelationRow[], method: PAdjustMethod, alpha: number): void {
  if (rows.length === 0) return;
  const family = rows.filter(isEvaluatorRow);
  for (let c = 0; c < rows[0].cells.length; c++) {
    const adjusted = adjustPValues(family.map((r) => r.cells[c]?.pValue ?? null), method);
    family.forEach((r, k) => {
      const cell = r.cells[c];
      if (!cell) return;
      cell.pAdjusted = adjusted[k];
      cell.significant = adjusted[k] !== null && adjusted[k] < alpha;
    });
  }
}

/** One closure per cell that computes and stores its bootstrap interval. */
function intervalTasks(data: CorrelationData, method: CorrelationMethod, rows: readonly CorrelationRow[], resamples: readonly Int32Array[], level: number, interval: IntervalMethod): (() => void)[] {
  return rows.flatMap((row) =>
    row.cells.map((cell) => () => {
      cell.ci = cellInterval(method, cellPairs(data, row.evaluatorId, cell.column), resamples, level, interval);
    }),
  );
}

/**
 * {@link correlationTable} for interactive use: the same table, but the bootstrap intervals are computed cell by
 * cell, yielding to the event loop between cells (so an editor stays responsive) and stopping with an AbortError
 * as soon as `signal` aborts (e.g. the document changed again).
 */
export async function correlationTableAsync(items: readonly DialogueItem[], options: CorrelationTableOptions = {}, signal?: AbortSignal): Promise<CorrelationTable> {
  const table = correlationTable(items, { ...options, bootstrap: undefined });
  if (!options.bootstrap) return table;
  const level = options.bootstrap.level ?? 0.95;
  if (!(level > 0 && level < 1)) throw new RangeError(`bootstrap level must be in (0, 1) (got ${level})`);
  const data = correlationData(items, options);
  if (data.itemIds.length === 0) return table;
  const resamples = bootstrapIndices(data.itemIds.length, options.bootstrap.resamples, options.bootstrap.seed);
  const interval = options.bootstrap.interval ?? DEFAULT_INTERVAL;
  for (const task of intervalTasks(data, table.method, [table.reference, ...table.rows], resamples, level, interval)) {
    signal?.throwIfAborted();
    await new Promise<void>((resolve) => setImmediate(resolve));
    signal?.throwIfAborted();
    task();
  }
  return { ...table, bootstrap: { resamples: options.bootstrap.resamples, seed: options.bootstrap.seed, level, interval } };
}

/** The test of the best cell against the runner-up: two-sided p and the responses both scored, or null (untestable). */
export type SeparationTest = (best: CorrelationRow, runnerUp: CorrelationRow, column: string, rule: BestRule) => { n: number; pValue: number | null } | null;

/**
 * The separation test of {@link markBest} on a table's data: on the column's responses both evaluators scored and
 * the humans labelled, the cluster-jackknife t-test ({@link jackknifeTest}, m − 1 degrees of freedom over the items
 * holding such responses) of r(best, H) − r(runner-up, H) = 0, by the table's method. A test of two dependent
 * correlations that respects the dialogue contexts: Williams' t and Steiger's z treat the responses as independent and
 * rejected a true null 7–8 % of the time at 5 % in the coverage study (docs/meta-evaluation.md#coverage), the
 * jackknife 4–6 %. Under `best: absolute` the runner-up's sign is aligned with the best's (|r| is compared).
 */
export function bestSeparation(data: CorrelationData, method: CorrelationMethod): SeparationTest {
  return (best, runnerUp, column, rule) => {
    const m = data.itemIds.length;
    const a: number[][] = Array.from({ length: m }, () => []);
    const b: number[][] = Array.from({ length: m }, () => []);
    const h: number[][] = Array.from({ length: m }, () => []);
    let n = 0;
    for (const o of data.observations) {
      if (!o.groups.includes(column) || o.human === null) continue;
      if (o.leftOutAsReference.has(best.evaluatorId) || o.leftOutAsReference.has(runnerUp.evaluatorId)) continue;
      const va = o.scores.get(best.evaluatorId);
      const vb = o.scores.get(runnerUp.evaluatorId);
      if (va == null || vb == null) continue;
      a[o.item].push(va);
      b[o.item].push(vb);
      h[o.item].push(o.human);
      n++;
    }
    const fa = cellStatisticOfCounts(method, { x: a, y: h });
    const fb = cellStatisticOfCounts(method, { x: b, y: h });
    const ones = Int32Array.from(a, (xs) => (xs.length ? 1 : 0));
    const ra = fa(ones);
    const rb = fb(ones);
    if (ra === null || rb === null) return null;
    // |r| compared: the difference of absolute values, computed with the full-data signs on every leave-one-out.
    const sa = rule === 'absolute' && ra < 0 ? -1 : 1;
    const sb = rule === 'absolute' && rb < 0 ? -1 : 1;
    const diff = (counts: Int32Array) => {
      const x = fa(counts);
      const y = fb(counts);
      return x === null || y === null ? null : sa * x - sb * y;
    };
    const jackknife = leaveOneItemOut(diff, Array.from(ones, (u) => u === 1));
    return { n, pValue: jackknifeTest(sa * ra - sb * rb, jackknife)?.pValue ?? null };
  };
}

/**
 * Marks the best cell of every column among the evaluator rows (not the human or baseline rows; undefined cells never)
 * and says why per column. The candidate is the largest |value| (`absolute`) or value (`signed`); the runner-up the
 * next row. Under `mark: 'separated'` (the default of every table) the best is marked only when its cell has at
 * least `minN` responses (default 20), it is not tied with the runner-up (within 1e-12), and `separation` gives
 * p < α on at least `minN` common responses: a bold cell then means "better than the rest, as far as these data
 * tell", not "largest by noise". Under `mark: 'largest'` (the papers' bold; the only rule before issue 40) every
 * cell within 1e-12 of the largest is marked, as long as the column has two defined evaluator cells.
 * Exported for pinned, merged tables.
 */
export function markBest(rows: readonly CorrelationRow[], rule: BestRule, options: { mark?: BestMark; minN?: number; alpha?: number; separation?: SeparationTest } = {}): BestInColumn[] {
  const mark = options.mark ?? (options.separation ? 'separated' : 'largest');
  const minN = options.minN ?? 20;
  const alpha = options.alpha ?? 0.05;
  const out: BestInColumn[] = [];
  if (rows.length === 0) return out;
  const width = rows[0].cells.length;
  for (let c = 0; c < width; c++) {
    const score = (cell: CorrelationCell | undefined) => (cell?.statistic == null ? null : rule === 'absolute' ? Math.abs(cell.statistic) : cell.statistic);
    const defined = rows.filter((r) => isEvaluatorRow(r) && score(r.cells[c]) !== null).sort((x, y) => (score(y.cells[c]) as number) - (score(x.cells[c]) as number));
    for (const r of rows) if (r.cells[c]) r.cells[c].best = false;
    const column = rows.find((r) => r.cells[c])?.cells[c]?.column ?? String(c);
    if (defined.length < 2) {
      out.push({ column, best: defined[0]?.evaluatorId ?? null, runnerUp: null, n: null, pValue: null, marked: false, reason: 'one-cell' });
      continue;
    }
    const [best, runnerUp] = defined;
    const top = score(best.cells[c]) as number;
    const tied = (score(runnerUp.cells[c]) as number) >= top - 1e-12;
    if (mark === 'largest') {
      for (const r of defined) if ((score(r.cells[c]) as number) >= top - 1e-12) r.cells[c].best = true;
      out.push({ column, best: best.evaluatorId, runnerUp: runnerUp.evaluatorId, n: null, pValue: null, marked: true, reason: 'largest' });
      continue;
    }
    const entry: BestInColumn = { column, best: best.evaluatorId, runnerUp: runnerUp.evaluatorId, n: null, pValue: null, marked: false, reason: 'untestable' };
    out.push(entry);
    if (tied) {
      entry.reason = 'tie';
      continue;
    }
    if (best.cells[c].n < minN) {
      entry.reason = 'too-few';
      continue;
    }
    const test = options.separation?.(best, runnerUp, column, rule) ?? null;
    if (test === null || test.pValue === null) continue;
    entry.n = test.n;
    entry.pValue = test.pValue;
    if (test.n < minN) entry.reason = 'too-few';
    else if (test.pValue < alpha) {
      entry.reason = 'separated';
      entry.marked = true;
      best.cells[c].best = true;
    } else entry.reason = 'not-separated';
  }
  return out;
}
