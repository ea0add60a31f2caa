/**
 * Reading an annotation's labels through a rubric: the value a dimension holds, whether a dimension is asked, a
 * label that breaks the rubric (named, never read as a default), and the human score of a candidate on a
 * dimension — what every analysis correlates an evaluator with (ICMI 2023 §2.1 for coherence: the number of
 * annotators who said coherent; the mean rating for ordinal and numeric dimensions).
 */
import type { Annotation, Candidate } from '../dialogue/types';
import { MI_PRESET } from './presets';
import { scaleRange, type BinaryDimension, type Dimension, type NumericDimension, type OrdinalDimension, type Rubric } from './rubric';

/** A label value as a rubric types it: binary → boolean, ordinal and numeric → number, categorical and text → string, multi-select → strings. */
export type LabelValue = boolean | number | string | string[];

/** A scale dimension: its values are numbers (binary: no = 0, yes = 1). */
export type ScaleDimension = BinaryDimension | OrdinalDimension | NumericDimension;

/**
 * Why a stored value is not a value of the dimension, or null when it is one (or when nothing is stored).
 * Binary: `true`/`false`; ordinal: one of the points; numeric: a finite number in [min, max] (on the step grid when
 * there is one); categorical: one of the options; multi-select: a non-empty list of distinct options; text: a string.
 */
export function labelProblem(value: unknown, d: Dimension): string | null {
  if (value === undefined) return null;
  const got = JSON.stringify(value);
  switch (d.type) {
    case 'binary':
      return typeof value === 'boolean' ? null : `must be true or false, got ${got}`;
    case 'ordinal':
      return d.points.some((p) => p.value === value) ? null : `must be one of ${d.points.map((p) => p.value).join(', ')}, got ${got}`;
    case 'numeric': {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < d.min || value > d.max) return `must be a number from ${d.min} to ${d.max}, got ${got}`;
      if (d.step !== undefined) {
        const k = (value - d.min) / d.step;
        if (Math.abs(k - Math.round(k)) > 1e-9) return `must be ${d.min} plus a multiple of ${d.step}, got ${got}`;
      }
      return null;
    }
    case 'categorical':
      return d.options.some((o) => o.value === value) ? null : `must be one of ${d.options.map((o) => JSON.stringify(o.value)).join(', ')}, got ${got}`;
    case 'multiSelect': {
      if (!Array.isArray(value) || value.length === 0) return `must be a non-empty list of ${d.options.map((o) => JSON.stringify(o.value)).join(', ')}, got ${got}`;
      const unknown = value.find((v) => !d.options.some((o) => o.value === v));
      if (unknown !== undefined) return `has no option ${JSON.stringify(unknown)} (options: ${d.options.map((o) => JSON.stringify(o.value)).join(', ')})`;
      return new Set(value).size === value.length ? null : `lists an option twice: ${got}`;
    }
    case 'text':
      return typeof value === 'string' ? null : `must be a string, got ${got}`;
  }
}

/** The value an annotation holds for `d`, or undefined when it holds none or one the dimension cannot take. */
export function labelValue(a: Annotation, d: Dimension): LabelValue | undefined {
  const v = a[d.name];
  return v === undefined || labelProblem(v, d) !== null ? undefined : (v as LabelValue);
}

/** The number a scale label stands for (binary: no = 0, yes = 1), or undefined. */
export function scaleValue(a: Annotation, d: ScaleDimension): number | undefined {
  const v = labelValue(a, d);
  return typeof v === 'boolean' ? (v ? 1 : 0) : typeof v === 'number' ? v : undefined;
}

/**
 * Whether `d` is asked of this annotation: it has no condition, or the condition's dimension holds the value (or,
 * a multi-select, includes it) — and that dimension is asked too.
 */
export function isAsked(a: Annotation, d: Dimension, rubric: Rubric): boolean {
  if (!d.when) return true;
  const on = rubric.dimensions.find((x) => x.name === d.when!.dimension);
  if (!on || !isAsked(a, on, rubric)) return false;
  const v = labelValue(a, on);
  return d.when.includes !== undefined ? Array.isArray(v) && v.includes(d.when.includes) : v === d.when.equals;
}

/** How the labels of several annotators become one human score (`--human-score`). */
export type HumanScoreRule = 'count' | 'majority' | 'mean' | 'median';

/** The rule a dimension uses when none is asked for: binary counts yes answers (ICMI 2023 §2.1), scales take the mean. */
export function defaultHumanScoreRule(d: ScaleDimension): HumanScoreRule {
  return d.type === 'binary' ? 'count' : 'mean';
}

/**
 * The human score of a candidate on a scale dimension from the annotations `include` accepts (all when omitted):
 * - `count` (binary only): how many said yes — ICMI 2023's coherence score, 0…n;
 * - `majority` (binary only): 1 when more said yes than no, 0 when more said no, null on a tie;
 * - `mean`: the mean value (a binary's share of yes);
 * - `median`: the median value (the mean of the middle two for an even count).
 * Only annotations where the dimension is asked and holds a valid value count; null when none does, so an
 * unlabelled candidate is left out of an analysis rather than counted as 0.
 *
 * @throws RangeError for `count`/`majority` on a dimension that is not binary
 */
export function humanScore(candidate: Pick<Candidate, 'annotations'>, d: ScaleDimension, rubric: Rubric, rule: HumanScoreRule = defaultHumanScoreRule(d), include?: (a: Annotation) => boolean): number | null {
  if ((rule === 'count' || rule === 'majority') && d.type !== 'binary') throw new RangeError(`human score "${rule}" needs a binary dimension; ${d.name} is ${d.type} (use mean or median)`);
  const values: number[] = [];
  for (const a of candidate.annotations) {
    if (include && !include(a)) continue;
    if (!isAsked(a, d, rubric)) continue;
    const v = scaleValue(a, d);
    if (v !== undefined) values.push(v);
  }
  if (values.length === 0) return null;
  const yes = values.reduce((s, v) => s + v, 0);
  switch (rule) {
    case 'count':
      return yes;
    case 'majority':
      return yes * 2 > values.length ? 1 : yes * 2 < values.length ? 0 : null;
    case 'mean':
      return yes / values.length;
    case 'median': {
      const s = [...values].sort((x, y) => x - y);
      const m = s.length >> 1;
      return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
    }
  }
}

/** The range a human score under `rule` can take (count: 0…annotators; the others: the dimension's range). */
export function humanScoreRange(d: ScaleDimension, rule: HumanScoreRule, annotators: number): { min: number; max: number } {
  return rule === 'count' ? { min: 0, max: annotators } : rule === 'majority' ? { min: 0, max: 1 } : scaleRange(d);
}

/** A label that breaks the rubric: where it is (item, candidate, annotator, field) and why. */
export interface LabelIssue {
  itemId: string;
  candidateId: string;
  annotator: string;
  field: string;
  message: string;
}

/**
 * Every stored label of `items` that is not a value its dimension can take (see {@link labelProblem}) — checked
 * before an analysis, so a value outside the scale is named, not read as missing or as a default.
 */
export function labelIssues(items: readonly { id: string; candidates: readonly Pick<Candidate, 'id' | 'annotations'>[] }[], rubric: Rubric): LabelIssue[] {
  const out: LabelIssue[] = [];
  for (const it of items) {
    for (const c of it.candidates) {
      for (const a of c.annotations) {
        for (const d of rubric.dimensions) {
          const problem = labelProblem(a[d.name], d);
          if (problem) out.push({ itemId: it.id, candidateId: c.id, annotator: a.annotator, field: d.name, message: problem });
          if (d.type === 'multiSelect' && d.mostEvident && a[d.mostEvident.name] !== undefined) {
            const m = a[d.mostEvident.name];
            if (!d.options.some((o) => o.value === m)) out.push({ itemId: it.id, candidateId: c.id, annotator: a.annotator, field: d.mostEvident.name, message: `must be one of ${d.name}'s options, got ${JSON.stringify(m)}` });
          }
        }
      }
    }
  }
  return out;
}

/**
 * The dimension an analysis correlates with and how several annotators' labels on it become one human score
 * (`--dimension <name>`, `--human-score <rule>`): what every analysis takes (issue 39 item 4).
 */
export interface HumanScoreSpec {
  rubric: Rubric;
  dimension: ScaleDimension;
  rule: HumanScoreRule;
}

/** The rules `--human-score` accepts. */
export const HUMAN_SCORE_RULES: readonly HumanScoreRule[] = ['mean', 'median', 'count', 'majority'];

/**
 * The dimension `name` of `rubric` (default: the rubric's primary — `coherent` in the MI preset) under `rule`
 * (default {@link defaultHumanScoreRule}: count for binary, mean for ordinal and numeric).
 *
 * @throws Error naming the rubric's scale dimensions when `name` is not one of its dimensions or is not binary,
 *   ordinal or numeric (a categorical, multi-select or text dimension has no score to correlate)
 * @throws RangeError for `count`/`majority` on a dimension that is not binary
 */
export function humanScoreSpec(rubric: Rubric, name?: string, rule?: HumanScoreRule): HumanScoreSpec {
  const want = name ?? rubric.primary;
  const scales = rubric.dimensions.filter((d): d is ScaleDimension => d.type === 'binary' || d.type === 'ordinal' || d.type === 'numeric');
  const d = rubric.dimensions.find((x) => x.name === want);
  const list = scales.map((s) => JSON.stringify(s.name)).join(', ') || 'none';
  if (!d) throw new Error(`the rubric "${rubric.name}" has no dimension ${JSON.stringify(want)}; its binary, ordinal and numeric dimensions: ${list}`);
  if (d.type !== 'binary' && d.type !== 'ordinal' && d.type !== 'numeric') throw new Error(`dimension ${JSON.stringify(want)} is ${d.type}: it has no score to correlate; the rubric's binary, ordinal and numeric dimensions: ${list}`);
  const r = rule ?? defaultHumanScoreRule(d);
  if ((r === 'count' || r === 'majority') && d.type !== 'binary') throw new RangeError(`human score "${r}" needs a binary dimension; ${d.name} is ${d.type} (use mean or median)`);
  return { rubric, dimension: d, rule: r };
}

/**
 * Whether `spec` is the seeds' human score — the MI preset's `coherent`, counted (ICMI 2023 §2.1): then every table
 * keeps the wording and columns it has always had; any other dimension or rule names itself.
 */
export function isCoherenceCount(spec: HumanScoreSpec): boolean {
  return spec.rubric.name === MI_PRESET && spec.dimension.name === 'coherent' && spec.rule === 'count';
}

/** Whether an annotation holds a label of the spec's dimension that counts (asked, and a valid value). */
export function holdsLabel(a: Annotation, spec: HumanScoreSpec): boolean {
  return isAsked(a, spec.dimension, spec.rubric) && scaleValue(a, spec.dimension) !== undefined;
}

/** The spec's human score of a candidate from the annotations `include` accepts ({@link humanScore}). */
export function specScore(c: Pick<Candidate, 'annotations'>, spec: HumanScoreSpec, include?: (a: Annotation) => boolean): number | null {
  return humanScore(c, spec.dimension, spec.rubric, spec.rule, include);
}

/** How a table names the human score: "mean rating of Overall", "number who said yes to Fluent", … */
export function humanScorePhrase(spec: HumanScoreSpec): string {
  const t = spec.dimension.title ?? spec.dimension.name;
  switch (spec.rule) {
    case 'count':
      return `number who said yes to ${t}`;
    case 'majority':
      return `majority answer (yes = 1) to ${t}`;
    case 'mean':
      return spec.dimension.type === 'binary' ? `share who said yes to ${t}` : `mean rating of ${t}`;
    case 'median':
      return `median rating of ${t}`;
  }
}
