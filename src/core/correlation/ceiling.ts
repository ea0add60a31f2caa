/**
 * The human ceiling: how well one annotator of a group agrees with the rest of the group, and every evaluator's
 * agreement with the same targets, so a judge is compared with a human on equal terms.
 *
 * Leave-one-annotator-out (one annotator against the rest of the group, the alt-test's leave-one-out design,
 * Calderon et al. 2025 §3): for each annotator a of the group and each candidate a
 * labelled that at least one other member labelled, the target is the rest's score r_{−a}(u) = the share of the
 * other members who said coherent. The annotator's agreement is corr(a's label, r_{−a}) over a's candidates; an
 * evaluator's is corr(its score, r_{−a}) over the same candidates (those it scored). The ceiling is the mean over
 * annotators (each weighted once); the evaluator's figure is the mean over the same annotators. Intervals resample
 * dialogue items (all their candidates together) and recompute every annotator's correlation.
 */
import { candidateGroups } from '../dialogue/groupBy';
import { holdsLabel, scaleValue, type HumanScoreSpec } from '../rubric/labelValues';
import { correlate, tableSpec, type CorrelationCell, type CorrelationMethod, type CorrelationRow, type CorrelationTable, type CorrelationTableOptions } from './correlationTable';
import { displayNames, evaluatorKind } from '../evaluators/evaluatorNames';
import { isReferenceCandidate } from '../dialogue/reference';
import type { Candidate, DialogueItem } from '../dialogue/types';
import { isReferenceBasedEvaluator } from '../metrics';
import { DEFAULT_GROUP_RULES, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';
import { bootstrapIndices, bootstrapInterval, DEFAULT_INTERVAL, type BootstrapInterval, type IntervalMethod } from '../stats/bootstrap';

/**
 * True when a reference-based metric scored the item's own reference (the candidate's text is the reference text):
 * a self-score (1 for BLEU-4), never a measurement, so every analysis here leaves it out.
 */
export function isReferenceSelfScore(item: Pick<DialogueItem, 'reference'>, c: Pick<Candidate, 'text'>, evaluatorId: string): boolean {
  return isReferenceBasedEvaluator(evaluatorId) && isReferenceCandidate(item, c);
}

/**
 * A usable score of an evaluator on a candidate (status ok, finite number), else null; null too for a
 * reference-based metric's score of the reference itself ({@link isReferenceSelfScore}).
 */
export function usableScore(item: Pick<DialogueItem, 'reference'>, c: Candidate, evaluatorId: string): number | null {
  if (isReferenceSelfScore(item, c, evaluatorId)) return null;
  const s = c.scores?.[evaluatorId];
  return s && s.status === 'ok' && typeof s.value === 'number' && Number.isFinite(s.value) ? s.value : null;
}

/** One annotator's leave-one-out comparison (the annotator itself, or an evaluator on that annotator's targets). */
export interface LeaveOneOutCell {
  annotator: string;
  /** Pairs correlated. */
  n: number;
  statistic: number | null;
  pValue: number | null;
  undefinedReason?: string;
}

/** A row of the ceiling table: the group's own annotators (the ceiling) or one evaluator. */
export interface CeilingRow {
  /** `human:ceiling:<group>` for the ceiling, else the evaluator id. */
  id: string;
  displayName: string;
  kind: 'ceiling' | 'evaluator';
  perAnnotator: LeaveOneOutCell[];
  /** Mean over annotators with a defined correlation; null when none. */
  mean: number | null;
  /** Annotators whose correlation is defined (the mean's terms). */
  annotators: number;
  /** Pairs over all annotators. */
  n: number;
  ci?: BootstrapInterval;
  /** Evaluator rows: mean − ceiling mean on the same resamples (negative: below the human ceiling). */
  difference?: { value: number | null; ci?: BootstrapInterval };
}

/** The ceiling table of one group. */
export interface CeilingTable {
  group: HumanGroup;
  method: CorrelationMethod;
  /** Dialogue items (bootstrap clusters). */
  items: number;
  /** The ceiling first, then one row per evaluator. */
  rows: CeilingRow[];
  bootstrap?: { resamples: number; seed: number | string; level: number; interval?: IntervalMethod };
}

/** Options of {@link leaveOneOutCeiling}. */
export interface CeilingOptions {
  /** Default `experts`. */
  group?: HumanGroup;
  groupRules?: GroupRules;
  /** Default `spearman` (as ICMI 2023). */
  method?: CorrelationMethod;
  /** Evaluator ids to compare (exact ids). */
  evaluators?: readonly string[];
  bootstrap?: { resamples: number; seed: number | string; level?: number; interval?: IntervalMethod };
  /**
   * The dimension whose labels are compared (default: the MI preset's `coherent`): an annotator's own value
   * against the mean value of the rest of the group (for binary, the share who said yes).
   */
  spec?: HumanScoreSpec;
}

interface Entry {
  /** The annotator's label (1 coherent, 0 incoherent). */
  label: number;
  /** Mean label of the rest of the group on the same candidate. */
  rest: number;
  /** Evaluator scores by evaluator index (null: no usable score). */
  scores: (number | null)[];
}

/** entries[annotator][item] = that annotator's entries on the item's candidates. */
type Entries = Map<string, Entry[][]>;

function collect(items: readonly DialogueItem[], group: HumanGroup, rules: GroupRules, evaluators: readonly string[], spec: HumanScoreSpec): Entries {
  const keep = inGroup(group, rules);
  const entries: Entries = new Map();
  items.forEach((item, i) => {
    for (const c of item.candidates) {
      const labels = c.annotations.filter((a) => holdsLabel(a, spec) && keep(a));
      if (labels.length < 2) continue;
      const value = (a: (typeof labels)[number]) => scaleValue(a, spec.dimension) as number;
      const total = labels.reduce((s, a) => s + value(a), 0);
      const scores = evaluators.map((id) => usableScore(item, c, id));
      for (const a of labels) {
        const own = value(a);
        let per = entries.get(a.annotator);
        if (!per) entries.set(a.annotator, (per = items.map(() => [])));
        per[i].push({ label: own, rest: (total - own) / (labels.length - 1), scores });
      }
    }
  });
  return new Map([...entries].sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })));
}

/** Per annotator: the human's and each evaluator's correlation with the rest, on the items in `draw` (with repeats). */
function correlations(entries: Entries, draw: ArrayLike<number>, evaluators: number, method: CorrelationMethod): { human: LeaveOneOutCell[]; evaluators: LeaveOneOutCell[][] } {
  const human: LeaveOneOutCell[] = [];
  const evals: LeaveOneOutCell[][] = Array.from({ length: evaluators }, () => []);
  for (const [annotator, per] of entries) {
    const x: number[] = [];
    const y: number[] = [];
    const ex: number[][] = Array.from({ length: evaluators }, () => []);
    const ey: number[][] = Array.from({ length: evaluators }, () => []);
    for (let d = 0; d < draw.length; d++) {
      for (const e of per[draw[d]]) {
        x.push(e.label);
        y.push(e.rest);
        e.scores.forEach((s, k) => {
          if (s === null) return;
          ex[k].push(s);
          ey[k].push(e.rest);
        });
      }
    }
    const cell = (a: number[], b: number[]): LeaveOneOutCell => {
      const r = correlate(method, a, b);
      return { annotator, n: a.length, statistic: r.statistic, pValue: r.pValue, ...(r.undefinedReason ? { undefinedReason: r.undefinedReason } : {}) };
    };
    human.push(cell(x, y));
    for (let k = 0; k < evaluators; k++) evals[k].push(cell(ex[k], ey[k]));
  }
  return { human, evaluators: evals };
}

function meanOf(cells: readonly LeaveOneOutCell[]): number | null {
  const d = cells.filter((c) => c.statistic !== null);
  return d.length ? d.reduce((s, c) => s + (c.statistic as number), 0) / d.length : null;
}

/**
 * The leave-one-annotator-out ceiling of a group and the given evaluators' agreement with the same targets.
 * Annotators with fewer than 3 pairs or a constant column have an undefined correlation and do not count in the mean.
 */
export function leaveOneOutCeiling(items: readonly DialogueItem[], options: CeilingOptions = {}): CeilingTable {
  const group = options.group ?? 'experts';
  const method = options.method ?? 'spearman';
  const evaluators = [...(options.evaluators ?? [])];
  const entries = collect(items, group, options.groupRules ?? DEFAULT_GROUP_RULES, evaluators, options.spec ?? tableSpec({}));
  const all = Int32Array.from(items.map((_, i) => i));
  const point = correlations(entries, all, evaluators.length, method);
  const names = displayNames(evaluators);
  const humanMean = meanOf(point.human);
  const rows: CeilingRow[] = [
    {
      id: `human:ceiling:${group}`,
      displayName: `${group === 'experts' ? 'Expert' : group === 'laypeople' ? 'Layperson' : 'Annotator'} vs rest of ${group} (ceiling)`,
      kind: 'ceiling',
      perAnnotator: point.human,
      mean: humanMean,
      annotators: point.human.filter((c) => c.statistic !== null).length,
      n: point.human.reduce((s, c) => s + c.n, 0),
    },
    ...evaluators.map((id, k): CeilingRow => {
      const mean = meanOf(point.evaluators[k]);
      return {
        id,
        displayName: names.get(id) ?? id,
        kind: 'evaluator',
        perAnnotator: point.evaluators[k],
        mean,
        annotators: point.evaluators[k].filter((c) => c.statistic !== null).length,
        n: point.evaluators[k].reduce((s, c) => s + c.n, 0),
        difference: { value: mean === null || humanMean === null ? null : mean - humanMean },
      };
    }),
  ];
  const table: CeilingTable = { group, method, items: items.length, rows };
  if (options.bootstrap && items.length > 0) {
    const level = options.bootstrap.level ?? 0.95;
    const h: (number | null)[] = [];
    const e: (number | null)[][] = evaluators.map(() => []);
    const diff: (number | null)[][] = evaluators.map(() => []);
    for (const draw of bootstrapIndices(items.length, options.bootstrap.resamples, options.bootstrap.seed)) {
      const r = correlations(entries, draw, evaluators.length, method);
      const hm = meanOf(r.human);
      h.push(hm);
      r.evaluators.forEach((cells, k) => {
        const m = meanOf(cells);
        e[k].push(m);
        diff[k].push(m === null || hm === null ? null : m - hm);
      });
    }
    const interval = options.bootstrap.interval ?? DEFAULT_INTERVAL;
    // The clusters are the items holding a pair; BCa's jackknife leaves each out in turn.
    const used = items.map((_, i) => [...entries.values()].some((per) => per[i].length > 0));
    const m = used.filter(Boolean).length;
    const bca = interval === 'bca' || interval === 'expanded-bca';
    const jh: (number | null)[] = [];
    const je: (number | null)[][] = evaluators.map(() => []);
    const jd: (number | null)[][] = evaluators.map(() => []);
    if (bca) {
      used.forEach((u, leave) => {
        if (!u) return;
        const r = correlations(entries, Int32Array.from(items.map((_, i) => i).filter((i) => i !== leave)), evaluators.length, method);
        const hm = meanOf(r.human);
        jh.push(hm);
        r.evaluators.forEach((cells, k) => {
          const mk = meanOf(cells);
          je[k].push(mk);
          jd[k].push(mk === null || hm === null ? null : mk - hm);
        });
      });
    }
    const ci = (stats: (number | null)[], estimate: number | null, jackknife: (number | null)[]) => bootstrapInterval(stats, { level, method: interval, clusters: m, family: 'ceiling', ...(bca ? { estimate, jackknife } : {}) });
    rows[0].ci = ci(h, humanMean, jh);
    evaluators.forEach((_, k) => {
      rows[k + 1].ci = ci(e[k], rows[k + 1].mean, je[k]);
      rows[k + 1].difference!.ci = ci(diff[k], rows[k + 1].difference!.value, jd[k]);
    });
    table.bootstrap = { resamples: options.bootstrap.resamples, seed: options.bootstrap.seed, level, interval };
  }
  return table;
}

/** Options of {@link ceilingRows}: the correlation table's column grouping. */
export interface CeilingRowsOptions extends CeilingOptions {
  /** As the correlation table's `groupBy` (default `origin`). */
  groupBy?: string;
  /** Add the `all` column last (default true). */
  includeAll?: boolean;
  /** Column keys to produce, in order (default: every group with labelled responses, then `all`). */
  columns?: readonly string[];
}

/**
 * The ceiling as rows for the correlation table (shown first): one {@link CorrelationRow} for the group's
 * leave-one-out ceiling (kind `human`, id `human:ceiling:<group>`) and one per evaluator measured against the same
 * leave-one-out targets (id `loo:<group>:<evaluator id>`), one cell per column: the mean over annotators, its
 * bootstrap interval, n = pairs; `pValue` is null (a mean of correlations has no t-test) so cells are never marked
 * significant or best.
 */
export function ceilingRows(items: readonly DialogueItem[], options: CeilingRowsOptions = {}): CorrelationRow[] {
  const groupBy = options.groupBy ?? 'origin';
  const keys = new Map<string, DialogueItem[]>();
  for (const it of items) {
    for (const c of it.candidates) {
      for (const g of candidateGroups(c, groupBy)) {
        let l = keys.get(g);
        if (!l) keys.set(g, (l = []));
        const last = l[l.length - 1];
        if (last && last.id === it.id) last.candidates.push(c);
        else l.push({ ...it, candidates: [c] });
      }
    }
  }
  const spec = options.spec ?? tableSpec({});
  const labelled = (its: DialogueItem[]) => its.some((i) => i.candidates.some((c) => c.annotations.some((a) => holdsLabel(a, spec))));
  let columns = options.columns ? [...options.columns] : [...keys.keys()].filter((k) => labelled(keys.get(k)!)).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  if (!options.columns && (options.includeAll ?? true)) columns = [...columns, 'all'];
  const tables = columns.map((col) => leaveOneOutCeiling(col === 'all' ? items : keys.get(col) ?? [], options));
  const evaluators = options.evaluators ?? [];
  const cell = (col: string, r: CeilingRow | undefined): CorrelationCell => ({
    column: col,
    n: r?.n ?? 0,
    excluded: 0,
    missingScore: 0,
    missingLabel: 0,
    statistic: r?.mean ?? null,
    pValue: null,
    ...(r?.mean === null || r === undefined ? { undefinedReason: 'too-few' as const } : {}),
    significant: false,
    best: false,
    ...(r?.ci ? { ci: r.ci } : {}),
  });
  const group = options.group ?? 'experts';
  const first = tables[0]?.rows[0];
  return [
    { evaluatorId: `human:ceiling:${group}`, displayName: first?.displayName ?? `ceiling (${group})`, kind: 'human', cells: columns.map((col, j) => cell(col, tables[j].rows[0])) },
    ...evaluators.map((id, k) => ({
      evaluatorId: `loo:${group}:${id}`,
      displayName: `${tables[0]?.rows[k + 1]?.displayName ?? id} vs rest of ${group}`,
      kind: evaluatorKind(id),
      cells: columns.map((col, j) => cell(col, tables[j].rows[k + 1])),
    })),
  ];
}

/**
 * The correlation table with the human ceiling as its first rows (`correlate --ceiling`, docs/meta-evaluation.md):
 * the group's leave-one-out ceiling, then each of the table's evaluators against the same leave-one-out targets,
 * in the table's columns, method and bootstrap. The table's own rows follow unchanged.
 *
 * @param table a table from `correlationTable(items, options)`
 * @param options the same options the table was built with; the group is the table's (`human` after `auto` is
 *   resolved: experts when the file has expert labels on the dimension, else all annotators), so `--human all`
 *   gives the ceiling of all annotators, never the experts'
 */
export function withCeilingRows(table: CorrelationTable, items: readonly DialogueItem[], options: CorrelationTableOptions = {}): CorrelationTable {
  const evaluators = table.rows.filter((r) => !r.evaluatorId.startsWith('average:')).map((r) => r.evaluatorId);
  const group = table.human;
  const rows = ceilingRows(items, {
    group,
    spec: tableSpec(options),
    method: table.method,
    groupBy: options.groupBy,
    columns: table.columns.map((c) => c.key),
    evaluators,
    ...(options.bootstrap ? { bootstrap: options.bootstrap } : {}),
  });
  const one = group === 'laypeople' ? 'one layperson' : group === 'experts' ? 'one expert' : 'one annotator';
  const [ceiling, ...vs] = rows;
  return { ...table, rows: [{ ...ceiling, displayName: `Ceiling: ${one} vs the rest` }, ...vs, ...table.rows] };
}
