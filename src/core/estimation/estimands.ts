/**
 * What is estimated, candidate by candidate (docs/estimation.md §1): each estimand turns one annotator group's labels
 * on a candidate into a short vector F (its *outcome*), and the pool's value is a smooth function of the pool totals
 * of F — a mean (coherence rate) or a ratio of two totals (an error category's share among incoherent candidates; a
 * mean rating over the candidates that have one). The outcomes a candidate can have are finitely many *levels*,
 * enumerated from the labels a candidate can carry, which is what the planner's working model predicts.
 *
 * The rules are the first study's (Wu et al., GEM 2022, §5.2–5.3) as `agreement/firstStudy.ts` applies them: a
 * majority vote is a value more than half of the group's votes agree on; an incoherent candidate's error is the
 * majority vote of its annotators' consensus-adjusted most evident errors after merging
 * (`labels/scheme.ts`). Ordinal or numeric dimensions plug in through {@link RATING_DIMENSIONS}.
 */
import type { Annotation } from '../dialogue/types';
import type { EstimandSpec } from '../design/planRecord';
import { MI_RUBRIC } from '../rubric/presets';
import type { NumericDimension, OrdinalDimension, Rubric } from '../rubric/rubric';
import { consensusAdjustedMostEvidentErrors, ERROR_LABELS, majorityVote, MERGED_ERROR_CATEGORIES, mergedErrorLabel } from '../labels/scheme';

/**
 * An ordinal or numeric label dimension whose mean can be estimated (`rating-mean`): the values an annotation can
 * take and how to read one. The rubric dimensions plug in here.
 */
export interface RatingDimension {
  id: string;
  /** Readable name, e.g. `empathy (MI statement agreement, 1–5)`. */
  name: string;
  /** Every value a rating can take, ascending (finite: the planner enumerates the means a candidate can have). */
  values: readonly number[];
  /** The annotation's rating, or undefined when it gave none (or the dimension does not apply to its answer). */
  read(a: Annotation): number | undefined;
}

/** The dimensions `rating-mean` knows: the MI labelling scheme's empathy statement (first study §4.2.3), asked when coherent. */
export const RATING_DIMENSIONS: Readonly<Record<string, RatingDimension>> = {
  empathy: {
    id: 'empathy',
    name: 'empathy (MI statement agreement, 1–5; rated when coherent)',
    values: [1, 2, 3, 4, 5],
    read: (a) => (a.coherent === true && typeof a.empathy === 'number' && Number.isInteger(a.empathy) && a.empathy >= 1 && a.empathy <= 5 ? a.empathy : undefined),
  },
};

/** Categories of `error-share`: the merged categories and `noMajority` (GEM 2022 Figure 4). */
export const ERROR_SHARE_CATEGORIES: readonly string[] = [...MERGED_ERROR_CATEGORIES, 'noMajority'];

/** One possible outcome of a candidate. */
export interface EstimandLevel {
  /** The outcome vector F (length {@link EstimandScale.dim}). */
  features: number[];
  /** Short readable form, e.g. `coherent`, `2/3`, `parroting`, `rated 4.33`. */
  label: string;
}

/** How an estimand's outcomes combine into the pool's value. */
export interface EstimandScale {
  /** Length of F: 1 for a mean, 2 for a ratio (numerator, denominator). */
  dim: 1 | 2;
  /** `mean`: Σ F / N; `ratio`: Σ F₀ / Σ F₁. */
  form: 'mean' | 'ratio';
  levels: EstimandLevel[];
  /** The value's range. */
  bounds: [number, number];
}

/** An estimand, interpreted. */
export interface Estimand {
  spec: EstimandSpec;
  /** e.g. `coherence rate (majority vote)`. */
  name: string;
  /** Whether an annotation carries the label the estimand reads (a coherence label; a rubric dimension's rating). */
  labelled(a: Annotation): boolean;
  /** The outcome F of a candidate from a group's annotations (those {@link labelled}), or null with none. */
  outcome(annotations: readonly Annotation[]): number[] | null;
  /**
   * What another group's labels on a candidate predict beyond their outcome (its features after the outcome): the
   * share of "coherent" labels for the MI estimands (finer than a majority vote), nothing for a rubric dimension.
   */
  predictorExtra(annotations: readonly Annotation[]): number[];
  /**
   * The outcomes a candidate can have when it carries between `minLabels` and `maxLabels` of the group's labels.
   *
   * @throws RangeError on label counts that are not integers with 1 ≤ minLabels ≤ maxLabels
   */
  scale(minLabels: number, maxLabels: number): EstimandScale;
}

const key = (f: readonly number[]) => f.map((v) => Math.round(v * 1e9) / 1e9).join(',');

/** The index of an outcome among a scale's levels, or −1. */
export function levelIndex(scale: EstimandScale, features: readonly number[]): number {
  const k = key(features);
  return scale.levels.findIndex((l) => key(l.features) === k);
}

function checkCounts(minLabels: number, maxLabels: number): void {
  if (!(Number.isInteger(minLabels) && Number.isInteger(maxLabels) && minLabels >= 1 && maxLabels >= minLabels)) throw new RangeError(`label counts must be integers with 1 ≤ min ≤ max (got ${minLabels}, ${maxLabels})`);
}

const coherenceVotes = (annotations: readonly Annotation[]) => annotations.filter((a) => typeof a.coherent === 'boolean');

/** What every MI estimand reads: the coherence label, and the share of "coherent" among another group's labels. */
const COHERENCE_LABELS = {
  labelled: (a: Annotation) => typeof a.coherent === 'boolean',
  predictorExtra: (anns: readonly Annotation[]) => [anns.filter((a) => a.coherent).length / anns.length],
};

/** Majority coherence of a candidate: 1 coherent, 0 incoherent, 0.5 when the votes tie; null without votes. */
export function majorityCoherence(annotations: readonly Annotation[]): number | null {
  const votes = coherenceVotes(annotations);
  if (votes.length === 0) return null;
  const v = majorityVote(votes.map((a) => (a.coherent ? 'coherent' : 'incoherent'))).value;
  return v === 'coherent' ? 1 : v === 'incoherent' ? 0 : 0.5;
}

/** The majority-voted consensus-adjusted most evident error (merged) of a majority-incoherent candidate, `noMajority`, or null when the majority does not say incoherent. */
export function majorityError(annotations: readonly Annotation[]): string | null {
  const votes = coherenceVotes(annotations);
  if (majorityCoherence(votes) !== 0) return null;
  const mees = consensusAdjustedMostEvidentErrors(votes.map(mergedErrorLabel));
  return majorityVote(mees).value ?? 'noMajority';
}

/**
 * A rubric dimension as a rating `rating-mean` can estimate: its ratings are the annotation's number under the
 * dimension's name, one of `values` (the ordinal points, or a numeric dimension's grid).
 *
 * @throws RangeError when `values` is empty, not ascending, or not finite
 */
function rubricRating(name: string, values: readonly number[]): RatingDimension {
  if (!(values.length > 0 && values.every((v, i) => Number.isFinite(v) && (i === 0 || v > values[i - 1])))) throw new RangeError(`rating-mean: the values of ${name} must be finite numbers in ascending order (got ${JSON.stringify(values)})`);
  const allowed = new Set(values);
  return {
    id: name,
    name,
    values,
    read: (a) => {
      const v = a[name];
      return typeof v === 'number' && allowed.has(v) ? v : undefined;
    },
  };
}

/**
 * The estimand of a spec.
 *
 * @throws RangeError on an unknown kind, aggregate, error category or rating dimension (naming the known ones)
 */
export function estimandOf(spec: EstimandSpec): Estimand {
  if (spec.kind === 'coherence-rate') {
    if (spec.aggregate === 'majority') {
      return {
        spec,
        ...COHERENCE_LABELS,
        name: 'coherence rate (majority vote)',
        outcome: (anns) => {
          const m = majorityCoherence(anns);
          return m === null ? null : [m];
        },
        scale: (lo, hi) => {
          checkCounts(lo, hi);
          let even = false;
          for (let c = lo; c <= hi; c++) if (c % 2 === 0) even = true;
          const levels: EstimandLevel[] = [{ features: [0], label: 'incoherent' }, ...(even ? [{ features: [0.5], label: 'tie' }] : []), { features: [1], label: 'coherent' }];
          return { dim: 1, form: 'mean', levels, bounds: [0, 1] };
        },
      };
    }
    if (spec.aggregate === 'mean') {
      return {
        spec,
        ...COHERENCE_LABELS,
        name: 'coherence rate (share of labels)',
        outcome: (anns) => {
          const votes = coherenceVotes(anns);
          return votes.length ? [votes.filter((a) => a.coherent).length / votes.length] : null;
        },
        scale: (lo, hi) => {
          checkCounts(lo, hi);
          const values = new Map<string, { v: number; label: string }>();
          for (let c = lo; c <= hi; c++) for (let j = 0; j <= c; j++) if (!values.has(key([j / c]))) values.set(key([j / c]), { v: j / c, label: `${j}/${c}` });
          const levels = [...values.values()].sort((a, b) => a.v - b.v).map((x) => ({ features: [x.v], label: x.label }));
          return { dim: 1, form: 'mean', levels, bounds: [0, 1] };
        },
      };
    }
    throw new RangeError(`coherence-rate: aggregate must be majority or mean (got ${String((spec as { aggregate?: unknown }).aggregate)})`);
  }
  if (spec.kind === 'error-share') {
    const category = spec.category;
    if (!ERROR_SHARE_CATEGORIES.includes(category)) throw new RangeError(`error-share: category must be one of ${ERROR_SHARE_CATEGORIES.join(', ')} (got ${String(category)})`);
    const label = category === 'noMajority' ? 'no majority error' : ERROR_LABELS[category as keyof typeof ERROR_LABELS];
    return {
      spec,
      ...COHERENCE_LABELS,
      name: `share of ${label} among incoherent (majority MEE)`,
      outcome: (anns) => {
        if (coherenceVotes(anns).length === 0) return null;
        const e = majorityError(anns);
        return e === null ? [0, 0] : [e === category ? 1 : 0, 1];
      },
      scale: (lo, hi) => {
        checkCounts(lo, hi);
        return {
          dim: 2,
          form: 'ratio',
          levels: [
            { features: [0, 0], label: 'not incoherent' },
            { features: [0, 1], label: 'incoherent, another error' },
            { features: [1, 1], label: `incoherent, ${label}` },
          ],
          bounds: [0, 1],
        };
      },
    };
  }
  if (spec.kind === 'rating-mean') {
    const builtIn = spec.values === undefined ? RATING_DIMENSIONS[spec.dimension] : undefined;
    const dim = builtIn ?? (spec.values !== undefined ? rubricRating(spec.dimension, spec.values) : undefined);
    if (!dim) throw new RangeError(`rating-mean: dimension must be one of ${Object.keys(RATING_DIMENSIONS).join(', ')} or an ordinal or numeric dimension of the study's rubric (got ${String(spec.dimension)})`);
    const lo0 = dim.values[0];
    const hi0 = dim.values[dim.values.length - 1];
    const labels = builtIn ? COHERENCE_LABELS : { labelled: (a: Annotation) => dim.read(a) !== undefined, predictorExtra: () => [] };
    return {
      spec,
      ...labels,
      name: `mean ${dim.name}`,
      outcome: (anns) => {
        const votes = anns.filter(labels.labelled);
        if (votes.length === 0) return null;
        const ratings = votes.map((a) => dim.read(a)).filter((v): v is number => v !== undefined);
        if (ratings.length === 0) return [0, 0];
        return [ratings.reduce((a, b) => a + b, 0) / ratings.length, 1];
      },
      scale: (lo, hi) => {
        checkCounts(lo, hi);
        // every mean of 1..hi ratings: sums of c values from the dimension's values, over c
        const means = new Map<string, number>();
        let sums = new Set<number>([0]);
        for (let c = 1; c <= hi; c++) {
          const next = new Set<number>();
          for (const s of sums) for (const v of dim.values) next.add(Math.round((s + v) * 1e9) / 1e9);
          sums = next;
          for (const s of sums) means.set(key([s / c]), s / c);
        }
        const levels: EstimandLevel[] = [{ features: [0, 0], label: 'no rating' }, ...[...means.values()].sort((a, b) => a - b).map((m) => ({ features: [m, 1], label: `rated ${Math.round(m * 100) / 100}` }))];
        return { dim: 2, form: 'ratio', levels, bounds: [lo0, hi0] };
      },
    };
  }
  throw new RangeError(`estimand kind must be coherence-rate, error-share or rating-mean (got ${String((spec as { kind?: unknown }).kind)})`);
}

/**
 * The estimand named on the command line: `coherence-rate` (majority vote), `coherence-rate:mean`,
 * `error-share:<category>` (malformed, parroting, hallucinatory, other, noMajority), `rating-mean:<dimension>`
 * (empathy in the MI preset; any ordinal dimension of the study's rubric, or a numeric one with a `step` and at most
 * 201 grid values), or `empathy` for `rating-mean:empathy`.
 *
 * @param rubric - the study's rubric (default the MI preset): a `rating-mean` of one of its ordinal or numeric
 *   dimensions records the dimension's values in the spec, so a plan replays without the rubric
 * @throws RangeError naming the accepted forms
 */
export function parseEstimand(text: string, rubric: Rubric = MI_RUBRIC): EstimandSpec {
  const [kind, arg] = text.split(':', 2);
  const mi = rubric.name === MI_RUBRIC.name;
  const ratings = rubric.dimensions.filter((d): d is OrdinalDimension | NumericDimension => d.type === 'ordinal' || d.type === 'numeric');
  let spec: EstimandSpec | null = null;
  if (kind === 'coherence-rate') spec = { kind, aggregate: arg === undefined || arg === 'majority' ? 'majority' : (arg as 'mean') };
  else if (kind === 'error-share' && arg) spec = { kind, category: arg };
  else if (kind === 'rating-mean' && arg) {
    const d = mi ? undefined : ratings.find((x) => x.name === arg);
    spec = d ? { kind, dimension: arg, values: ratingValues(d) } : mi ? { kind, dimension: arg } : null;
  } else if (mi && kind in RATING_DIMENSIONS && arg === undefined) spec = { kind: 'rating-mean', dimension: kind };
  const known = mi ? Object.keys(RATING_DIMENSIONS) : ratings.map((d) => d.name);
  if (!spec) throw new RangeError(`estimand "${text}": use coherence-rate, coherence-rate:mean, error-share:<${ERROR_SHARE_CATEGORIES.join('|')}> or rating-mean:<${known.join('|') || 'an ordinal or numeric dimension of the rubric'}>`);
  estimandOf(spec); // validates the argument
  return spec;
}

/** The values a rating of a rubric dimension takes: an ordinal's points, a numeric dimension's grid. @throws RangeError for a numeric dimension without a step or with more than 201 grid values */
function ratingValues(d: OrdinalDimension | NumericDimension): number[] {
  if (d.type === 'ordinal') return d.points.map((p) => p.value).sort((a, b) => a - b);
  const count = d.step ? Math.round((d.max - d.min) / d.step) + 1 : Infinity;
  if (!(count <= 201)) throw new RangeError(`rating-mean: numeric dimension ${d.name} needs a "step" giving at most 201 values between ${d.min} and ${d.max} (the planner enumerates the means a candidate can have)`);
  return Array.from({ length: count }, (_, i) => Math.round((d.min + i * d.step!) * 1e9) / 1e9);
}

/** The estimand as one would read it: the name of {@link estimandOf}. */
export function describeEstimand(spec: EstimandSpec): string {
  return estimandOf(spec).name;
}
