/**
 * The MI label operations exactly as they were before rubrics (src/core/labels/annotate.ts at 0c71e34), frozen as
 * the oracle the generic operations are checked against byte for byte (annotateRubric.test.ts). Not used by the
 * program.
 */
import { ERROR_CATEGORIES } from '../../../../src/core/labels/scheme';
import type { Annotation, Candidate, DialogueItem, ErrorCategory, LikertAgreement, StashedLabels } from '../../../../src/core/dialogue/types';

/** One change to an annotator's annotation, as the editor's keys and buttons produce it. */
export type LabelOp =
  /** Answer the coherence question; `null` clears the answer (everything else is stashed). */
  | { kind: 'coherence'; coherent: boolean | null }
  /** Choose or unchoose an error (implies `coherent: false`). */
  | { kind: 'toggleError'; error: ErrorCategory }
  /** Mark the MEE (choosing that error if needed; implies `coherent: false`); `null` removes the mark. */
  | { kind: 'mostEvidentError'; error: ErrorCategory | null }
  /** Agreement with the empathy statement, 1–5 (implies `coherent: true`); `null` clears it. */
  | { kind: 'empathy'; value: LikertAgreement | null }
  /** Free text of the `other` error; non-blank text chooses `other` (implies `coherent: false`). */
  | { kind: 'otherText'; text: string };

/** Where an annotation stands in the scheme, for progress displays. */
export type LabelStatus =
  /** No coherence answer. */
  | 'unlabelled'
  /** Coherent, but no empathy answer yet. */
  | 'needsEmpathy'
  /** Incoherent, but no error chosen. */
  | 'needsErrors'
  /** Incoherent with several errors and none marked most evident. */
  | 'needsMostEvidentError'
  | 'complete';

const ERROR_KEYS = ['errors', 'mostEvidentError', 'otherText'] as const;
const EMPATHY_KEYS = ['empathy'] as const;
type StashKey = keyof StashedLabels;

function isErrorCategory(e: unknown): e is ErrorCategory {
  return (ERROR_CATEGORIES as readonly unknown[]).includes(e);
}

/** Moves the present `keys` of `a` into `a.stashed` (mutates `a`, a private copy). A newer value replaces a stashed one. */
function stash(a: Annotation, keys: readonly StashKey[]): void {
  for (const k of keys) {
    if (a[k] === undefined) continue;
    a.stashed = { ...a.stashed, [k]: a[k] };
    delete a[k];
  }
  if (a.stashed && Object.keys(a.stashed).length === 0) delete a.stashed;
}

/** Moves stashed `keys` back into `a` where `a` has no active value (mutates `a`, a private copy). */
function unstash(a: Annotation, keys: readonly StashKey[]): void {
  if (!a.stashed) return;
  const rest: StashedLabels = { ...a.stashed };
  for (const k of keys) {
    if (rest[k] === undefined || a[k] !== undefined) continue;
    (a as Record<string, unknown>)[k] = rest[k];
    delete rest[k];
  }
  if (Object.keys(rest).length === 0) delete a.stashed;
  else a.stashed = rest;
}

function withCoherence(a: Annotation, coherent: boolean | undefined): void {
  if (coherent === undefined) {
    delete a.coherent;
    stash(a, [...ERROR_KEYS, ...EMPATHY_KEYS]);
  } else if (coherent) {
    a.coherent = true;
    stash(a, ERROR_KEYS);
    unstash(a, EMPATHY_KEYS);
  } else {
    a.coherent = false;
    stash(a, EMPATHY_KEYS);
    unstash(a, ERROR_KEYS);
    // `otherText` applies only while `other` is chosen.
    if (!a.errors?.includes('other')) stash(a, ['otherText']);
  }
}

function ensureIncoherent(a: Annotation): void {
  if (a.coherent !== false) withCoherence(a, false);
}

function addError(a: Annotation, error: ErrorCategory): void {
  const errors = new Set(a.errors ?? []);
  errors.add(error);
  a.errors = ERROR_CATEGORIES.filter((e) => errors.has(e));
  if (error === 'other') unstash(a, ['otherText']);
}

function removeError(a: Annotation, error: ErrorCategory): void {
  const errors = (a.errors ?? []).filter((e) => e !== error);
  if (errors.length) a.errors = errors;
  else delete a.errors;
  if (a.mostEvidentError === error) delete a.mostEvidentError;
  if (error === 'other') stash(a, ['otherText']);
}

/**
 * Applies one {@link LabelOp} to an annotation (or to none yet) and returns the new annotation; `previous` is
 * not modified. The rules are those of the module comment: active fields always fit the coherence answer,
 * labels that stop applying are stashed and come back when they apply again. `updatedAt` is set to `now` when
 * anything changed; when nothing changed `previous` itself is returned.
 *
 * @param previous - the annotator's current annotation, or `undefined` when they have none on this candidate
 * @throws RangeError for an empathy value that is not an integer 1–5, or an unknown error category
 */
export function applyLabelOpToAnnotation(previous: Annotation | undefined, annotator: string, op: LabelOp, now: Date = new Date()): Annotation {
  const a: Annotation = previous ? { ...previous, ...(previous.stashed ? { stashed: { ...previous.stashed } } : {}) } : { annotator };
  if (a.errors) a.errors = [...a.errors];
  switch (op.kind) {
    case 'coherence':
      if (op.coherent === null) {
        if (a.coherent !== undefined) withCoherence(a, undefined);
      } else if (a.coherent !== op.coherent) withCoherence(a, op.coherent);
      break;
    case 'toggleError':
      if (!isErrorCategory(op.error)) throw new RangeError(`unknown error category "${String(op.error)}"`);
      ensureIncoherent(a);
      if (a.errors?.includes(op.error)) removeError(a, op.error);
      else addError(a, op.error);
      break;
    case 'mostEvidentError':
      if (op.error === null) {
        delete a.mostEvidentError;
        break;
      }
      if (!isErrorCategory(op.error)) throw new RangeError(`unknown error category "${String(op.error)}"`);
      ensureIncoherent(a);
      if (!a.errors?.includes(op.error)) addError(a, op.error);
      a.mostEvidentError = op.error;
      break;
    case 'empathy':
      if (op.value === null) {
        delete a.empathy;
        break;
      }
      if (!Number.isInteger(op.value) || op.value < 1 || op.value > 5) throw new RangeError(`empathy must be an integer 1–5, got ${String(op.value)}`);
      if (a.coherent !== true) withCoherence(a, true);
      a.empathy = op.value;
      break;
    case 'otherText':
      if (op.text.trim()) {
        ensureIncoherent(a);
        if (!a.errors?.includes('other')) addError(a, 'other');
        a.otherText = op.text;
      } else delete a.otherText;
      break;
    default:
      throw new RangeError(`unknown label operation ${JSON.stringify(op)}`);
  }
  const { updatedAt: _before, ...restBefore } = previous ?? { annotator };
  const { updatedAt: _after, ...restAfter } = a;
  if (previous && JSON.stringify(restBefore) === JSON.stringify(restAfter)) return previous;
  if (!previous && Object.keys(restAfter).length === 1) return a; // nothing but the annotator: the caller adds nothing
  a.updatedAt = now.toISOString();
  return a;
}

/**
 * Returns `item` with `annotator`'s annotation on candidate `candidateId` replaced by `update(current)`
 * (copy-on-write; the input is not modified). When `update` returns the current annotation itself, `item` is
 * returned unchanged. An annotation holding nothing but the annotator id is not added.
 *
 * @throws Error if the candidate does not exist or `annotator` is blank
 */
export function updateAnnotation(item: DialogueItem, candidateId: string, annotator: string, update: (current: Annotation | undefined) => Annotation): DialogueItem {
  if (!annotator.trim()) throw new Error('an annotator id is required to label a candidate');
  const ci = item.candidates.findIndex((c) => c.id === candidateId);
  if (ci < 0) throw new Error(`item "${item.id}" has no candidate "${candidateId}"`);
  const candidate = item.candidates[ci];
  const ai = candidate.annotations.findIndex((a) => a.annotator === annotator);
  const current = ai >= 0 ? candidate.annotations[ai] : undefined;
  const next = update(current);
  if (next === current) return item;
  if (ai < 0 && Object.keys(next).every((k) => k === 'annotator')) return item;
  const annotations = ai >= 0 ? candidate.annotations.map((a, i) => (i === ai ? next : a)) : [...candidate.annotations, next];
  const candidates = item.candidates.map((c, i) => (i === ci ? { ...c, annotations } : c));
  return { ...item, candidates };
}

/**
 * Applies one {@link LabelOp} to `annotator`'s annotation of a candidate; see {@link applyLabelOpToAnnotation}
 * for the rules and {@link updateAnnotation} for copy-on-write.
 *
 * @throws Error if the candidate does not exist or `annotator` is blank; RangeError for an invalid value
 */
export function applyLabelOp(item: DialogueItem, candidateId: string, annotator: string, op: LabelOp, now: Date = new Date()): DialogueItem {
  return updateAnnotation(item, candidateId, annotator, (a) => applyLabelOpToAnnotation(a, annotator, op, now));
}

/**
 * Returns a copy of `item` in which `annotator`'s coherence label on candidate `candidateId` is `coherent`
 * (`undefined` clears the answer). Labels that stop applying are stashed, not dropped (module comment): Yes
 * stashes errors, MEE and `otherText` and restores a stashed empathy answer; No does the converse; clearing
 * stashes both. Other annotators' labels and unknown fields are kept; the input is not modified.
 *
 * @throws Error if the candidate does not exist or `annotator` is blank.
 */
export function setCoherence(item: DialogueItem, candidateId: string, annotator: string, coherent: boolean | undefined, now: Date = new Date()): DialogueItem {
  return applyLabelOp(item, candidateId, annotator, { kind: 'coherence', coherent: coherent ?? null }, now);
}

/**
 * Chooses `error` for `annotator`'s label of a candidate, or unchooses it when already chosen (first study
 * §4.2.3: "choose the applicable error category(ies)"). Choosing an error answers the coherence question with No
 * (stashing an empathy answer). Errors are kept in the order of `ERROR_CATEGORIES` (first study §4.1.3, then `other`; `./scheme`). Unchoosing the MEE
 * removes the MEE mark; unchoosing `other` stashes its free text.
 *
 * @throws Error if the candidate does not exist or `annotator` is blank
 */
export function toggleError(item: DialogueItem, candidateId: string, annotator: string, error: ErrorCategory, now: Date = new Date()): DialogueItem {
  return applyLabelOp(item, candidateId, annotator, { kind: 'toggleError', error }, now);
}

/**
 * Marks `error` as the most evident error (first study §4.2.3: "in the case of multiple categories being
 * selected, the annotators are required to choose the most evident one"), choosing it first if needed;
 * `undefined` removes the mark. A single chosen error needs no mark: {@link mostEvidentErrorOf} gives it.
 *
 * @throws Error if the candidate does not exist or `annotator` is blank
 */
export function setMostEvidentError(item: DialogueItem, candidateId: string, annotator: string, error: ErrorCategory | undefined, now: Date = new Date()): DialogueItem {
  return applyLabelOp(item, candidateId, annotator, { kind: 'mostEvidentError', error: error ?? null }, now);
}

/**
 * Sets the annotator's agreement with the MI empathy statement (first study §4.2.3; 1 disagree, 2 somewhat
 * disagree, 3 neither, 4 somewhat agree, 5 agree); `undefined` clears it. The statement is asked only of
 * coherent responses, so an answer also answers the coherence question with Yes (stashing errors).
 *
 * @throws Error if the candidate does not exist or `annotator` is blank; RangeError if `value` is not 1–5
 */
export function setEmpathy(item: DialogueItem, candidateId: string, annotator: string, value: LikertAgreement | undefined, now: Date = new Date()): DialogueItem {
  return applyLabelOp(item, candidateId, annotator, { kind: 'empathy', value: value ?? null }, now);
}

/**
 * Sets the free text of the `other` error category, verbatim; non-blank text also chooses `other` (and answers
 * No), blank text removes it.
 *
 * @throws Error if the candidate does not exist or `annotator` is blank
 */
export function setOtherText(item: DialogueItem, candidateId: string, annotator: string, text: string, now: Date = new Date()): DialogueItem {
  return applyLabelOp(item, candidateId, annotator, { kind: 'otherText', text }, now);
}

/** The annotation of `annotator` on a candidate, if any. */
export function annotationOf(candidate: Candidate, annotator: string): Annotation | undefined {
  return candidate.annotations.find((a) => a.annotator === annotator);
}

/**
 * The most evident error of an annotation as the annotator gave it: the marked one, or the only chosen error
 * (a single error is its own MEE, first study §5.1); `undefined` when coherent, unlabelled, no error chosen, or
 * several errors without a mark.
 */
export function mostEvidentErrorOf(a: Pick<Annotation, 'coherent' | 'errors' | 'mostEvidentError'> | undefined): ErrorCategory | undefined {
  if (!a || a.coherent !== false) return undefined;
  if (a.mostEvidentError) return a.mostEvidentError;
  return a.errors?.length === 1 ? a.errors[0] : undefined;
}

/** Where an annotation stands in the scheme (see {@link LabelStatus}). */
export function labelStatus(a: Annotation | undefined): LabelStatus {
  if (!a || typeof a.coherent !== 'boolean') return 'unlabelled';
  if (a.coherent) return a.empathy === undefined ? 'needsEmpathy' : 'complete';
  if (!a.errors?.length) return 'needsErrors';
  return mostEvidentErrorOf(a) ? 'complete' : 'needsMostEvidentError';
}

/**
 * Coherence score of a candidate (ICMI 2023 §2.1): the number of annotators who said it is coherent.
 * Returns `null` when no annotator has given a coherence label, so unlabelled candidates are left out of
 * correlations rather than counted as 0.
 *
 * @param include - restrict to these annotations (e.g. the experts': `inGroup('experts')` from `./groups`); all when omitted
 */
export function coherenceScore(candidate: Candidate, include?: (a: Annotation) => boolean): number | null {
  const labelled = candidate.annotations.filter((a) => typeof a.coherent === 'boolean' && (!include || include(a)));
  if (labelled.length === 0) return null;
  return labelled.filter((a) => a.coherent).length;
}
