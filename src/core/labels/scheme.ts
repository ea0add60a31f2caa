/**
 * The first study's derived labels (Wu et al., "In-Context Non-Expert Evaluation of Reflection Generation for
 * Counselling Conversations", GEM 2022, §5.1–5.3): most-evident-error (MEE) filling, consensus-adjusted MEE,
 * category merging and majority votes. Pure functions over `Annotation`s; they never modify their input.
 */
import type { Annotation, ErrorCategory, LikertAgreement } from '../dialogue/types';

/** The error categories in the order the first study lists them (§4.1.3), then `other`. */
export const ERROR_CATEGORIES: readonly ErrorCategory[] = ['malformed', 'dialogueContradicting', 'parroting', 'offTopic', 'onTopicButUnverifiable', 'other'];

/** Error categories after merging (§5.1): the three hallucination categories become `hallucinatory`. */
export type MergedErrorCategory = 'malformed' | 'parroting' | 'hallucinatory' | 'other';

/** Merged categories in display order. */
export const MERGED_ERROR_CATEGORIES: readonly MergedErrorCategory[] = ['malformed', 'parroting', 'hallucinatory', 'other'];

/** Display names, as the papers write them. */
export const ERROR_LABELS: Readonly<Record<ErrorCategory | MergedErrorCategory, string>> = {
  malformed: 'Malformed',
  dialogueContradicting: 'Dialogue-contradicting',
  parroting: 'Parroting',
  offTopic: 'Off-topic',
  onTopicButUnverifiable: 'On-topic but unverifiable',
  other: 'Other',
  hallucinatory: 'Hallucinatory',
};

/** Empathy statement agreement after merging (§5.1): {1, 2} → disagree, 3 stays, {4, 5} → agree. */
export type MergedLikert = 'disagree' | 'neutral' | 'agree';

/** Merged Likert levels in scale order. */
export const MERGED_LIKERT: readonly MergedLikert[] = ['disagree', 'neutral', 'agree'];

/**
 * Category merging of §5.1: Dialogue-contradicting, Off-topic and On-topic but unverifiable are all
 * manifestations of hallucination (§4.1.3), so they become `hallucinatory`; the others are unchanged.
 */
export function mergeErrorCategory(e: ErrorCategory): MergedErrorCategory {
  return e === 'dialogueContradicting' || e === 'offTopic' || e === 'onTopicButUnverifiable' ? 'hallucinatory' : e;
}

/**
 * Likert merging of §5.1: {disagree (1), somewhat disagree (2)} → `disagree`, neither (3) → `neutral`,
 * {somewhat agree (4), agree (5)} → `agree`.
 *
 * @throws RangeError if `v` is not 1–5
 */
export function mergeLikert(v: LikertAgreement): MergedLikert {
  if (v === 1 || v === 2) return 'disagree';
  if (v === 3) return 'neutral';
  if (v === 4 || v === 5) return 'agree';
  throw new RangeError(`a Likert agreement must be 1–5, got ${String(v)}`);
}

/**
 * MEE filling (§5.1): "if Malformed is chosen as the only error of a particular response, it is automatically
 * deemed the MEE, too". Returns the annotation's `mostEvidentError` when set, else its only error, else
 * `undefined` (coherent, unlabelled, no error chosen, or several errors without an MEE).
 */
export function filledMostEvidentError(a: Pick<Annotation, 'coherent' | 'errors' | 'mostEvidentError'>): ErrorCategory | undefined {
  if (a.coherent !== false) return undefined;
  if (a.mostEvidentError) return a.mostEvidentError;
  const errors = [...new Set(a.errors ?? [])];
  return errors.length === 1 ? errors[0] : undefined;
}

/** One annotator's error label as the derived statistics see it: the error set and the (filled) MEE. */
export interface ErrorLabel<C extends string> {
  /** The chosen errors, without repeats; empty when coherent or unlabelled. */
  errors: C[];
  /** The filled MEE, or undefined. */
  mostEvidentError?: C;
  /** True when the annotator said the response is incoherent. */
  incoherent: boolean;
}

/** The error label of an annotation, with its filled MEE (§5.1), on the original categories. */
export function errorLabel(a: Annotation): ErrorLabel<ErrorCategory> {
  const incoherent = a.coherent === false;
  return { errors: incoherent ? [...new Set(a.errors ?? [])] : [], mostEvidentError: filledMostEvidentError(a), incoherent };
}

/**
 * The error label after category merging: errors and MEE mapped by {@link mergeErrorCategory}. An MEE that was
 * missing (several errors, none marked most evident) is filled when the merged error set has a single element,
 * which is the same filling rule applied to the merged scheme.
 */
export function mergedErrorLabel(a: Annotation): ErrorLabel<MergedErrorCategory> {
  const l = errorLabel(a);
  const errors = [...new Set(l.errors.map(mergeErrorCategory))];
  const mee = l.mostEvidentError ? mergeErrorCategory(l.mostEvidentError) : errors.length === 1 && l.incoherent ? errors[0] : undefined;
  return { errors, mostEvidentError: mee, incoherent: l.incoherent };
}

/**
 * Consensus-adjusted MEE (§5.1), for the annotations of one response: "replaces the MEE of an annotation with a
 * common error found by all 3 annotators, where applicable … If such a consensus error does not exist,
 * consensus-adjusted MEE for each annotator simply takes the original MEE as the default."
 *
 * Exact rule implemented (decisions where the paper is silent are marked *):
 * 1. The common errors C are the intersection of every annotation's error set. C is empty, so there is no
 *    consensus, when any annotation is not incoherent (a coherent annotator chose no error)*.
 * 2. |C| = 1: every annotation's consensus-adjusted MEE is that error.
 * 3. |C| ≥ 2*: the common error that most annotations already give as their MEE is used for all, when it is
 *    unique; on a tie (or when no MEE falls in C) every annotation keeps its own MEE.
 * 4. Otherwise each annotation keeps its own (filled) MEE, which may be undefined.
 *
 * Works on original or merged labels alike (pass {@link errorLabel} or {@link mergedErrorLabel} results); with
 * merging, the consensus is sought among the merged categories.
 *
 * @param labels - the error labels of one response's annotators (order kept in the result)
 * @returns the consensus-adjusted MEE of each annotation, in input order
 */
export function consensusAdjustedMostEvidentErrors<C extends string>(labels: readonly ErrorLabel<C>[]): (C | undefined)[] {
  const own = labels.map((l) => l.mostEvidentError);
  if (labels.length === 0 || labels.some((l) => !l.incoherent || l.errors.length === 0)) return own;
  let common = new Set(labels[0].errors);
  for (const l of labels.slice(1)) common = new Set(l.errors.filter((e) => common.has(e)));
  if (common.size === 0) return own;
  if (common.size === 1) {
    const [only] = common;
    return labels.map(() => only);
  }
  const votes = new Map<C, number>();
  for (const m of own) if (m !== undefined && common.has(m)) votes.set(m, (votes.get(m) ?? 0) + 1);
  const ranked = [...votes.entries()].sort((a, b) => b[1] - a[1]);
  if (ranked.length === 0 || (ranked.length > 1 && ranked[0][1] === ranked[1][1])) return own;
  return labels.map(() => ranked[0][0]);
}

/** Outcome of a majority vote. */
export interface MajorityVote<T> {
  /** The value more than half of the votes cast agree on, or `null` when there is none. */
  value: T | null;
  /** Votes for `value` (for `null`: the largest number of votes any value got). */
  count: number;
  /** Votes cast (undefined votes are not counted). */
  total: number;
}

/**
 * Majority vote (§5.2–5.3): the value chosen by strictly more than half of the votes cast; `null` ("no majority
 * vote") when no value has that, e.g. a 3–3 tie among six annotators or 1–1–1 among three. Undefined votes
 * (an annotator who gave no value) are not cast. With three annotators who all vote this equals "at least 2 of 3",
 * the first study's setting.
 *
 * @param votes - one vote per annotator; compared with `===`
 */
export function majorityVote<T>(votes: readonly (T | undefined)[]): MajorityVote<T> {
  const counts = new Map<T, number>();
  let total = 0;
  for (const v of votes) {
    if (v === undefined) continue;
    total++;
    counts.set(v, (counts.get(v) ?? 0) + 1);
  }
  let best: T | null = null;
  let bestCount = 0;
  for (const [v, c] of counts) {
    if (c > bestCount) {
      best = v;
      bestCount = c;
    }
  }
  return { value: bestCount * 2 > total ? best : null, count: bestCount, total };
}
