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
  /** The outcome F of a candidate from a group's annotations (those with a coherence label), or null with none. */
  outcome(annotations: readonly Annotation[]): number[] | null;
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
 * The estimand of a spec.
 *
 * @throws RangeError on an unknown kind, aggregate, error category or rating dimension (naming the known ones)
 */
export function estimandOf(spec: EstimandSpec): Estimand {
  if (spec.kind === 'coherence-rate') {
    if (spec.aggregate === 'majority') {
      return {
        spec,
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
    const dim = RATING_DIMENSIONS[spec.dimension];
    if (!dim) throw new RangeError(`rating-mean: dimension must be one of ${Object.keys(RATING_DIMENSIONS).join(', ')} (got ${String(spec.dimension)})`);
    const lo0 = dim.values[0];
    const hi0 = dim.values[dim.values.length - 1];
    return {
      spec,
      name: `mean ${dim.name}`,
      outcome: (anns) => {
        const votes = coherenceVotes(anns);
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
 * (empathy), or `empathy` for `rating-mean:empathy`.
 *
 * @throws RangeError naming the accepted forms
 */
export function parseEstimand(text: string): EstimandSpec {
  const [kind, arg] = text.split(':', 2);
  let spec: EstimandSpec | null = null;
  if (kind === 'coherence-rate') spec = { kind, aggregate: arg === undefined || arg === 'majority' ? 'majority' : (arg as 'mean') };
  else if (kind === 'error-share' && arg) spec = { kind, category: arg };
  else if (kind === 'rating-mean' && arg) spec = { kind, dimension: arg };
  else if (kind in RATING_DIMENSIONS && arg === undefined) spec = { kind: 'rating-mean', dimension: kind };
  if (!spec) throw new RangeError(`estimand "${text}": use coherence-rate, coherence-rate:mean, error-share:<${ERROR_SHARE_CATEGORIES.join('|')}> or rating-mean:<${Object.keys(RATING_DIMENSIONS).join('|')}>`);
  estimandOf(spec); // validates the argument
  return spec;
}

/** The estimand as one would read it: the name of {@link estimandOf}. */
export function describeEstimand(spec: EstimandSpec): string {
  return estimandOf(spec).name;
}
