/**
 * The agreement-coefficients table: for each label the annotators gave (coherence, each error category, the most
 * evident error, empathy), Fleiss' kappa, Krippendorff's alpha and Gwet's AC1 side by side, with ICCs for the
 * empathy ratings and seeded percentile bootstrap intervals over dialogue items. One table per annotator group and,
 * with `by`, per value of any item or candidate field (the papers report agreement per annotation stage).
 */
import type { Annotation, DialogueItem, ErrorCategory } from '../dialogue/types';
import { DEFAULT_GROUP_RULES, type GroupRules, type HumanGroup } from '../labels/groups';
import { ERROR_CATEGORIES, ERROR_LABELS, filledMostEvidentError } from '../labels/scheme';
import { DEFAULT_INTERVAL, type BootstrapInterval, type IntervalMethod } from '../stats/bootstrap';
import { bootstrapStatistic, pick, type CoefficientBootstrap } from '../stats/clusterBootstrap';
import { fleissKappa } from './fleiss';
import { gwetAC1, type GwetAC1Result } from './gwetAC1';
import { icc, type IccForm } from './icc';
import { itemsBy } from '../dialogue/groupBy';
import { krippendorffAlpha, type KrippendorffAlphaResult, type MeasurementLevel } from './krippendorffAlpha';
import { labelMatrix, type LabelMatrix, type LabelMatrixOptions } from './labelData';
import { isAsked, labelValue } from '../rubric/labelValues';
import { MI_PRESET } from '../rubric/presets';
import { dimensionNamed, dimensionTitle, type Dimension, type Rubric } from '../rubric/rubric';
import { valueCounts, type RatingValue } from './reliabilityData';

/** Bootstrap settings of the table (the clusters are the dialogue items). */
export interface TableBootstrap {
  resamples: number;
  seed: number | string;
  /** Default 0.95. */
  level?: number;
  /** How the bounds are read off the resamples (default: the stats default, `DEFAULT_INTERVAL`). */
  interval?: IntervalMethod;
}

/** Fleiss' kappa over the units with the modal number of ratings (Fleiss' model needs n ratings per unit). */
export interface FleissCell {
  kappa: number | null;
  undefinedReason?: string;
  /** Units used: those with exactly `raters` ratings. */
  subjects: number;
  /** n: ratings per unit (the most common number; the larger on a tie). */
  raters: number | null;
  /** Units left out for another number of ratings. */
  leftOut: number;
  ci?: BootstrapInterval;
}

/** ICCs of a rating row: one-way when raters differ between units, two-way when the same raters rated every unit. */
export interface IccCell {
  model: 'one-way' | 'two-way';
  /** ICC(1,1) or ICC(2,1). */
  single: { form: IccForm; value: number | null; ci?: BootstrapInterval };
  /** ICC(1,k) or ICC(2,k). */
  average: { form: IccForm; value: number | null; ci?: BootstrapInterval };
  subjects: number;
  raters: number;
  undefinedReason?: string;
}

/** One label's coefficients. */
export interface CoefficientRow {
  /**
   * MI preset: `coherence`, `error:<category>`, `mostEvidentError`, `empathy`; another rubric: the dimension's name,
   * `<name>:<option>` per option of a multi-select, and its most-evident field's name.
   */
  key: string;
  label: string;
  /** Krippendorff's level of measurement used. */
  level: MeasurementLevel;
  /** Categories (q of AC1; the value domain of alpha). */
  categories: string[];
  /** Units with at least one value of this label. */
  units: number;
  /** Fleiss' kappa and Gwet's AC1 need categories: undefined for a numeric dimension (alpha at the interval level and the ICCs say it). */
  fleiss: FleissCell;
  alpha: KrippendorffAlphaResult;
  ac1: GwetAC1Result;
  icc?: IccCell;
}

/** The coefficients of one annotator group on one set of items. */
export interface CoefficientTable {
  group: HumanGroup;
  /** Annotators of the group with at least one coherence label. */
  annotators: string[];
  /** Candidates with at least one coherence label from the group. */
  units: number;
  /** Dialogue items they belong to (the bootstrap's clusters). */
  items: number;
  rows: CoefficientRow[];
  /** Error categories nobody in these items chose: no row (their agreement is vacuous). */
  neverChosen: ErrorCategory[];
  bootstrap?: Required<TableBootstrap>;
}

/** Options of {@link agreementCoefficients}. */
export interface CoefficientTableOptions {
  group?: HumanGroup;
  groupRules?: GroupRules;
  bootstrap?: TableBootstrap;
  /** The study's rubric (default: the MI preset, whose table is the first study's). */
  rubric?: Rubric;
}

function modal(ns: number[]): number | null {
  const f = new Map<number, number>();
  for (const n of ns) f.set(n, (f.get(n) ?? 0) + 1);
  let best: number | null = null;
  let bf = 0;
  for (const [n, c] of f) if (c > bf || (c === bf && best !== null && n > best)) [best, bf] = [n, c];
  return best;
}

function fleissCell(m: LabelMatrix<RatingValue>, categories: readonly RatingValue[], boot?: CoefficientBootstrap): FleissCell {
  const counts = valueCounts(m.data, categories);
  const totals = counts.map((r) => r.reduce((s, c) => s + c, 0));
  const n = modal(totals.filter((t) => t > 0));
  const used = counts.filter((_, u) => totals[u] === n);
  const clusters = m.clusters.filter((_, u) => totals[u] === n);
  const leftOut = totals.filter((t) => t > 0 && t !== n).length;
  if (n === null || n < 2 || used.length === 0) return { kappa: null, undefinedReason: n === null ? 'no subjects' : 'fewer than 2 ratings per unit', subjects: used.length, raters: n, leftOut };
  const k = fleissKappa(used);
  const cell: FleissCell = { kappa: k.kappa, ...(k.undefinedReason ? { undefinedReason: k.undefinedReason } : {}), subjects: used.length, raters: n, leftOut };
  if (boot) cell.ci = bootstrapStatistic(used.length, (idx) => fleissKappa(pick(used, idx)).kappa, { family: 'agreement', ...boot, clusters });
  return cell;
}

function iccCell(m: LabelMatrix<number>, boot?: CoefficientBootstrap): IccCell | undefined {
  const rows = m.data.map((r, u) => ({ values: r.filter((v): v is number => v !== null), cols: r.map((v, j) => (v === null ? -1 : j)).filter((j) => j >= 0).join(','), cluster: m.clusters[u] }));
  const n = modal(rows.map((r) => r.values.length).filter((l) => l > 0));
  if (n === null) return undefined;
  const complete = rows.filter((r) => r.values.length === n);
  const sameRaters = complete.every((r) => r.cols === complete[0].cols);
  const model = sameRaters ? 'two-way' : 'one-way';
  const [single, average]: [IccForm, IccForm] = sameRaters ? ['ICC2', 'ICC2k'] : ['ICC1', 'ICC1k'];
  if (n < 2) return { model, single: { form: single, value: null }, average: { form: average, value: null }, subjects: complete.length, raters: n, undefinedReason: 'fewer than 2 ratings per unit' };
  const r = icc(complete.map((c) => c.values), boot ? { bootstrap: { ...boot, clusters: complete.map((c) => c.cluster) }, bootstrapForms: [single, average] } : {});
  return {
    model,
    single: { form: single, value: r.icc[single], ...(r.ci?.[single] ? { ci: r.ci[single] } : {}) },
    average: { form: average, value: r.icc[average], ...(r.ci?.[average] ? { ci: r.ci[average] } : {}) },
    subjects: r.subjects,
    raters: r.raters,
    ...(r.undefinedReason ? { undefinedReason: r.undefinedReason } : {}),
  };
}

/** Why Fleiss' kappa and AC1 are undefined on a numeric dimension. */
export const NOT_CATEGORIES = 'numeric';

function row<T extends RatingValue>(key: string, label: string, level: MeasurementLevel, m: LabelMatrix<T>, categories: readonly T[] | null, asked?: CoefficientBootstrap, withIcc = false): CoefficientRow {
  // Nothing to resample without a labelled unit (a file without this group's labels): no interval, never an abort.
  const boot = m.data.length > 0 ? asked : undefined;
  const bootstrap = boot ? { ...boot, clusters: m.clusters } : undefined;
  const units = m.data.filter((r) => r.some((v) => v !== null)).length;
  return {
    key,
    label,
    level,
    categories: (categories ?? []).map(String),
    units,
    fleiss: categories ? fleissCell(m as LabelMatrix<RatingValue>, categories, boot) : { kappa: null, undefinedReason: NOT_CATEGORIES, subjects: 0, raters: null, leftOut: 0 },
    alpha: krippendorffAlpha(m.data, { level, ...(categories ? { values: categories } : {}), ...(bootstrap ? { bootstrap } : {}) }),
    ac1: categories
      ? gwetAC1(m.data, { categories, ...(bootstrap ? { bootstrap } : {}) })
      : { ac1: null, undefinedReason: NOT_CATEGORIES, units, pairableUnits: 0, categories: [], observedAgreement: NaN, expectedAgreement: NaN, classificationProbabilities: [] },
    ...(withIcc ? { icc: iccCell(m as unknown as LabelMatrix<number>, boot) } : {}),
  };
}

/**
 * The rows of a rubric other than the MI preset, one per dimension in rubric order, at the level its type asks for
 * (Krippendorff 2011): binary and categorical nominal (Fleiss' kappa, alpha, AC1 over its options); ordinal at the
 * ordinal level over its points, with the ICCs of the ratings; numeric at the interval level with the ICCs (no
 * Fleiss or AC1: a number is not a category); a multi-select as one nominal yes/no row per option somebody chose,
 * and its most evident choice as a nominal row; free text has no agreement. A value counts only where the
 * dimension is asked.
 */
function rubricRows(items: readonly DialogueItem[], rubric: Rubric, lm: LabelMatrixOptions, boot?: CoefficientBootstrap): { rows: CoefficientRow[]; primary: LabelMatrix<RatingValue> } {
  const matrix = <T extends RatingValue>(value: (a: Annotation) => T | null | undefined) => labelMatrix(items, value, lm);
  const asked = (d: Dimension) => (a: Annotation) => (isAsked(a, d, rubric) ? labelValue(a, d) : undefined);
  const rows: CoefficientRow[] = [];
  for (const d of rubric.dimensions) {
    const title = dimensionTitle(d);
    const value = asked(d);
    if (d.type === 'binary') rows.push(row(d.name, title, 'nominal', matrix((a) => value(a) as boolean | undefined), [true, false], boot));
    else if (d.type === 'categorical') rows.push(row(d.name, title, 'nominal', matrix((a) => value(a) as string | undefined), d.options.map((o) => o.value), boot));
    else if (d.type === 'ordinal') rows.push(row(d.name, `${title} (${d.points[0].value}–${d.points[d.points.length - 1].value})`, 'ordinal', matrix((a) => value(a) as number | undefined), d.points.map((p) => p.value), boot, true));
    else if (d.type === 'numeric') rows.push(row(d.name, `${title} (${d.min}–${d.max})`, 'interval', matrix((a) => value(a) as number | undefined), null, boot, true));
    else if (d.type === 'multiSelect') {
      const chosen = new Set<string>();
      for (const it of items) for (const c of it.candidates) for (const a of c.annotations) for (const v of (value(a) as string[] | undefined) ?? []) chosen.add(v);
      for (const o of d.options.filter((o) => chosen.has(o.value))) {
        rows.push(row(`${d.name}:${o.value}`, `${title}: ${o.label ?? o.value}`, 'nominal', matrix((a) => (isAsked(a, d, rubric) ? ((labelValue(a, d) as string[] | undefined) ?? []).includes(o.value) : undefined) ? 'yes' : isAsked(a, d, rubric) ? 'no' : null), ['yes', 'no'], boot));
      }
      if (d.mostEvident) {
        const m = d.mostEvident;
        rows.push(row(m.name, m.title ?? m.name, 'nominal', matrix((a) => (isAsked(a, d, rubric) && typeof a[m.name] === 'string' ? (a[m.name] as string) : null)), d.options.map((o) => o.value).filter((v) => chosen.has(v)), boot));
      }
    }
  }
  return { rows, primary: matrix(asked(dimensionNamed(rubric, rubric.primary)!) as (a: Annotation) => RatingValue | undefined) };
}

/**
 * The coefficients table of one annotator group: every candidate with a coherence label from the group is a unit,
 * every annotator of the group a coder.
 * - **Coherent & consistent?** — nominal, categories coherent/incoherent;
 * - **Error: <category>** — per category the annotators chose at least once: did the annotator mark it (an
 *   annotation saying coherent marks none), nominal yes/no;
 * - **Most evident error** — the filled MEE of each incoherent label (GEM 2022 §5.1), missing otherwise; nominal
 *   over the categories chosen at least once;
 * - **Empathetic?** — the 1–5 Likert rating given with a coherent label; ordinal alpha, AC1 over 5 categories, and
 *   ICC(1,1)/ICC(1,k) (ICC(2,1)/ICC(2,k) when one set of raters rated every unit).
 *
 * Fleiss' kappa is computed over the units with the modal number of values (as Table 4), alpha and AC1 over every
 * unit with missing values allowed. Intervals resample dialogue items (all their candidates together).
 */
export function agreementCoefficients(items: readonly DialogueItem[], options: CoefficientTableOptions = {}): CoefficientTable {
  const group = options.group ?? 'all';
  const lm: LabelMatrixOptions = { group, groupRules: options.groupRules ?? DEFAULT_GROUP_RULES };
  const boot: CoefficientBootstrap | undefined = options.bootstrap
    ? { resamples: options.bootstrap.resamples, seed: options.bootstrap.seed, level: options.bootstrap.level ?? 0.95, interval: options.bootstrap.interval ?? DEFAULT_INTERVAL }
    : undefined;
  const bootRecord = boot ? { bootstrap: { resamples: boot.resamples, seed: boot.seed, level: boot.level ?? 0.95, interval: boot.interval ?? DEFAULT_INTERVAL } } : {};
  const rubric = options.rubric;
  if (rubric && rubric.name !== MI_PRESET) {
    const primary = dimensionNamed(rubric, rubric.primary)!;
    // A candidate is a unit when an annotator of the group gave the primary dimension a value.
    const { rows, primary: m } = rubricRows(items, rubric, { ...lm, labelled: (a) => isAsked(a, primary, rubric) && labelValue(a, primary) !== undefined }, boot);
    return {
      group,
      annotators: m.annotators,
      units: m.units.length,
      items: new Set(m.clusters).size,
      rows,
      neverChosen: [],
      ...bootRecord,
    };
  }
  const coherence = labelMatrix(items, (a) => (a.coherent ? 'coherent' : 'incoherent'), lm);
  const chosen = new Set<ErrorCategory>();
  for (const it of items) for (const c of it.candidates) for (const a of c.annotations) if (a.coherent === false) for (const e of a.errors ?? []) chosen.add(e);
  const collected = ERROR_CATEGORIES.filter((e) => chosen.has(e));
  const rows: CoefficientRow[] = [row('coherence', 'Coherent & consistent?', 'nominal', coherence, ['coherent', 'incoherent'], boot)];
  for (const e of collected) {
    const m = labelMatrix(items, (a: Annotation) => (a.coherent === false && (a.errors ?? []).includes(e) ? 'yes' : 'no'), lm);
    rows.push(row(`error:${e}`, `Error: ${ERROR_LABELS[e]}`, 'nominal', m, ['yes', 'no'], boot));
  }
  const mee = labelMatrix(items, (a) => filledMostEvidentError(a) ?? null, lm);
  rows.push(row('mostEvidentError', 'Most evident error', 'nominal', mee, collected, boot));
  const empathy = labelMatrix(items, (a) => (a.coherent === true && typeof a.empathy === 'number' ? a.empathy : null), lm);
  if (empathy.data.some((r) => r.some((v) => v !== null))) rows.push(row('empathy', 'Empathetic? (1–5)', 'ordinal', empathy, [1, 2, 3, 4, 5], boot, true));
  return {
    group,
    annotators: coherence.annotators,
    units: coherence.units.length,
    items: new Set(coherence.clusters).size,
    rows,
    neverChosen: ERROR_CATEGORIES.filter((e) => !chosen.has(e)),
    ...bootRecord,
  };
}

/** Drops a group's table whose annotators are exactly those of another table kept before it or of `all`. */
function dropRepeats(tables: CoefficientTable[]): CoefficientTable[] {
  const key = (t: CoefficientTable) => `${t.units}\u0000${t.annotators.join('\u0000')}`;
  const all = tables.find((t) => t.group === 'all');
  const seen = new Set<string>();
  return tables.filter((t) => {
    if (t !== all && all && key(t) === key(all)) return false;
    if (seen.has(key(t))) return false;
    seen.add(key(t));
    return true;
  });
}

/** Coefficient tables per value of a field and per annotator group. */
export interface GroupedCoefficientTables {
  /** The field grouped by, or null for one group of every candidate (`all`). */
  by: string | null;
  groups: { key: string; candidates: number; tables: CoefficientTable[] }[];
}

/**
 * {@link agreementCoefficients} for each annotator group (default experts, laypeople, all) and, when `by` is given,
 * for each value of that field (see `unitGroups`: `stage`, `source`, `item.<path>`, a candidate path…). Groups of
 * annotators with no labels in a part are omitted from that part.
 */
export function agreementCoefficientsBy(items: readonly DialogueItem[], by: string | null, options: Omit<CoefficientTableOptions, 'group'> & { groups?: readonly HumanGroup[] } = {}): GroupedCoefficientTables {
  const parts = by ? itemsBy(items, by) : [{ key: 'all', items: [...items], candidates: items.reduce((s, i) => s + i.candidates.length, 0) }];
  const humanGroups = options.groups ?? (['experts', 'laypeople', 'all'] as const);
  return {
    by,
    groups: parts.map((p) => ({
      key: p.key,
      candidates: p.candidates,
      // A group whose annotators are all of `all` (every annotator is a layperson, say) would repeat its table.
      tables: dropRepeats(humanGroups.map((g) => agreementCoefficients(p.items, { ...options, group: g })).filter((t) => t.units > 0)),
    })),
  };
}

/**
 * The coefficient rows of one rubric dimension (issue 39 item 4: `agreement --dimension`, the agreement panel's
 * picker): its own row (binary and categorical nominal, ordinal at the ordinal level with the ICCs, numeric at the
 * interval level with the ICCs), or a multi-select's option rows and its most-evident row. Tables and parts keep
 * their order; every other row is left out.
 *
 * @throws Error naming the rubric's dimensions that have agreement when `name` is not one of them, or is free text
 */
export function dimensionCoefficients(g: GroupedCoefficientTables, rubric: Rubric, name: string): GroupedCoefficientTables {
  const d = dimensionNamed(rubric, name);
  const agreeable = rubric.dimensions.filter((x) => x.type !== 'text').map((x) => JSON.stringify(x.name)).join(', ') || 'none';
  if (!d) throw new Error(`the rubric "${rubric.name}" has no dimension ${JSON.stringify(name)}; its dimensions with agreement: ${agreeable}`);
  if (d.type === 'text') throw new Error(`dimension ${JSON.stringify(name)} is free text: it has no agreement coefficient (${agreeable} have)`);
  const keep = (key: string) => key === d.name || (d.type === 'multiSelect' && (key.startsWith(`${d.name}:`) || key === d.mostEvident?.name));
  return { by: g.by, groups: g.groups.map((p) => ({ ...p, tables: p.tables.map((t) => ({ ...t, rows: t.rows.filter((r) => keep(r.key)) })) })) };
}
