/**
 * Label operations on one annotator's annotation of one candidate, for any rubric (src/core/rubric/): set a
 * dimension's value, choose or unchoose an option of a multi-select, mark its most evident option. The MI preset's
 * operations (the first study's scheme, Wu et al., GEM 2022, §4.1.3 and §4.2.3: "Is the response coherent and
 * consistent with the dialogue?" If No: which errors, and when several the most evident one (MEE); if Yes: agreement
 * with the MI empathy statement on a 5-point Likert scale) are the same operations on the preset's dimensions, under
 * the names they always had (`coherence`, `toggleError`, `mostEvidentError`, `empathy`, `otherText`); the bytes they
 * write are those of ReflectEval before rubrics (checked against a frozen copy, test/core/labels/oracle/).
 *
 * Every operation is pure and copy-on-write: it returns a new item in which only the path to the changed
 * annotation is new (the item, its `candidates` array, that candidate, its `annotations` array, the annotation);
 * everything else is shared with the input, which is never modified. An operation that changes nothing returns
 * its input unchanged (same object), so no edit is made. Other annotators' labels and unknown fields are kept.
 *
 * **A dimension is asked when its rubric condition holds** (`when`: an earlier dimension equals a value, or a
 * multi-select includes one). Giving a value to a dimension that is not asked first answers what it is asked under
 * (an MI error answers No; an empathy rating answers Yes; a multi-select's option is chosen for a dimension asked
 * when it is included).
 *
 * **Labels that stop applying are stashed, never dropped.** When a dimension's value changes, the dimensions asked
 * under it (and under those) are brought in line, in three steps over them in rubric order: (1) those no longer
 * asked move their values into the annotation's `stashed` field; (2) those asked now and not before get their
 * stashed values back where they have none (an active value wins over a stashed one, which then stays stashed),
 * together with everything stashed under them; (3) what of that is still not asked is stashed again. So pressing
 * Yes on an incoherent candidate and No again gives back the errors, MEE and free text; unchoosing `other` stashes
 * `otherText` and choosing it again brings it back. Clearing a dimension stashes what is asked under it.
 */
import { ERROR_CATEGORIES } from './scheme';
import { MI_RUBRIC } from '../rubric/presets';
import { labelProblem, type LabelValue } from '../rubric/labelValues';
import type { Dimension, MultiSelectDimension, Rubric } from '../rubric/rubric';
import type { Annotation, Candidate, DialogueItem, ErrorCategory, LikertAgreement } from '../dialogue/types';

/** One change to one dimension of a rubric, as the editor's keys and controls produce it (any rubric). */
export type DimensionOp =
  /**
   * Give `dimension` a value (a multi-select: its whole list), answering what it is asked under first; `null`
   * clears it (and stashes what is asked under it). Text that is blank clears too.
   */
  | { kind: 'set'; dimension: string; value: LabelValue | null }
  /** Choose or unchoose one option of a multi-select (choosing answers what it is asked under). */
  | { kind: 'toggle'; dimension: string; option: string }
  /** Mark a multi-select's most evident option (choosing it if needed); `null` removes the mark. */
  | { kind: 'mostEvident'; dimension: string; option: string | null };

/** The MI preset's operations, as they were before rubrics (the same as {@link DimensionOp}s on the preset's dimensions). */
export type MiLabelOp =
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

/** One change to an annotator's annotation. */
export type LabelOp = MiLabelOp | DimensionOp;

/** Where an annotation stands in the MI scheme, for progress displays. */
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

function isErrorCategory(e: unknown): e is ErrorCategory {
  return (ERROR_CATEGORIES as readonly unknown[]).includes(e);
}

/**
 * An MI operation as the operation on the preset's dimensions it is.
 *
 * @throws RangeError for an empathy value that is not an integer 1–5, or an unknown error category
 */
export function dimensionOpOf(op: LabelOp): DimensionOp {
  switch (op.kind) {
    case 'set':
    case 'toggle':
    case 'mostEvident':
      return op;
    case 'coherence':
      return { kind: 'set', dimension: 'coherent', value: op.coherent };
    case 'toggleError':
      if (!isErrorCategory(op.error)) throw new RangeError(`unknown error category "${String(op.error)}"`);
      return { kind: 'toggle', dimension: 'errors', option: op.error };
    case 'mostEvidentError':
      if (op.error !== null && !isErrorCategory(op.error)) throw new RangeError(`unknown error category "${String(op.error)}"`);
      return { kind: 'mostEvident', dimension: 'errors', option: op.error };
    case 'empathy':
      if (op.value !== null && (!Number.isInteger(op.value) || op.value < 1 || op.value > 5)) throw new RangeError(`empathy must be an integer 1–5, got ${String(op.value)}`);
      return { kind: 'set', dimension: 'empathy', value: op.value };
    case 'otherText':
      return { kind: 'set', dimension: 'otherText', value: op.text };
    default:
      throw new RangeError(`unknown label operation ${JSON.stringify(op)}`);
  }
}

/**
 * The MI preset's name for an operation on its dimensions (what the editor sends for the preset, as before
 * rubrics), or the operation itself when it has none.
 */
export function miLabelOpOf(op: LabelOp): LabelOp {
  if (op.kind === 'set') {
    if (op.dimension === 'coherent' && (op.value === null || typeof op.value === 'boolean')) return { kind: 'coherence', coherent: op.value };
    if (op.dimension === 'empathy' && (op.value === null || typeof op.value === 'number')) return { kind: 'empathy', value: op.value as LikertAgreement | null };
    if (op.dimension === 'otherText' && (op.value === null || typeof op.value === 'string')) return { kind: 'otherText', text: op.value ?? '' };
  }
  if (op.kind === 'toggle' && op.dimension === 'errors' && isErrorCategory(op.option)) return { kind: 'toggleError', error: op.option };
  if (op.kind === 'mostEvident' && op.dimension === 'errors' && (op.option === null || isErrorCategory(op.option))) return { kind: 'mostEvidentError', error: op.option };
  return op;
}

/** The annotation fields a dimension's value lives in: its name, and a multi-select's most-evident field. */
export function fieldsOf(d: Dimension): string[] {
  return d.type === 'multiSelect' && d.mostEvident ? [d.name, d.mostEvident.name] : [d.name];
}

/**
 * Whether `d` is asked of `a` as the annotation stands, read from the stored values as they are (the condition's
 * dimension holds the value, or a multi-select's list includes it, and that dimension is asked too).
 */
export function conditionHolds(a: Annotation | undefined, d: Dimension, rubric: Rubric): boolean {
  if (!d.when) return true;
  const on = rubric.dimensions.find((x) => x.name === d.when!.dimension);
  if (!on || !conditionHolds(a, on, rubric)) return false;
  const v = a?.[on.name];
  return d.when.includes !== undefined ? Array.isArray(v) && v.includes(d.when.includes) : v === d.when.equals;
}

/** The dimensions asked under `d`, directly or through others, in rubric order. */
function askedUnder(rubric: Rubric, d: Dimension): Dimension[] {
  const names = new Set([d.name]);
  const out: Dimension[] = [];
  for (const x of rubric.dimensions) {
    if (x.when && names.has(x.when.dimension)) {
      names.add(x.name);
      out.push(x);
    }
  }
  return out;
}

type Stash = Record<string, unknown>;

/** Moves the present `keys` of `a` into `a.stashed` (mutates `a`, a private copy). A newer value replaces a stashed one. */
function stash(a: Annotation, keys: readonly string[]): void {
  for (const k of keys) {
    if (a[k] === undefined) continue;
    a.stashed = { ...a.stashed, [k]: a[k] } as Annotation['stashed'];
    delete a[k];
  }
  if (a.stashed && Object.keys(a.stashed).length === 0) delete a.stashed;
}

/** Moves stashed `keys` back into `a` where `a` has no active value (mutates `a`, a private copy). */
function unstash(a: Annotation, keys: readonly string[]): void {
  if (!a.stashed) return;
  const rest: Stash = { ...a.stashed };
  for (const k of keys) {
    if (rest[k] === undefined || a[k] !== undefined) continue;
    a[k] = rest[k];
    delete rest[k];
  }
  if (Object.keys(rest).length === 0) delete a.stashed;
  else a.stashed = rest as Annotation['stashed'];
}

/** One operation's work on a private copy of an annotation under a rubric. */
class Editor {
  constructor(
    private readonly a: Annotation,
    private readonly rubric: Rubric,
  ) {}

  private dim(name: string): Dimension {
    const d = this.rubric.dimensions.find((x) => x.name === name);
    if (!d) throw new RangeError(`the rubric ${this.rubric.name} has no dimension "${name}"`);
    return d;
  }

  private multi(name: string): MultiSelectDimension {
    const d = this.dim(name);
    if (d.type !== 'multiSelect') throw new RangeError(`${name} is ${d.type}, not a multi-select`);
    return d;
  }

  apply(op: DimensionOp): void {
    switch (op.kind) {
      case 'set': {
        const d = this.dim(op.dimension);
        const blank = op.value === null || (d.type === 'text' && typeof op.value === 'string' && !op.value.trim());
        if (blank) return this.clear(d);
        const problem = labelProblem(op.value, d);
        if (problem) throw new RangeError(`${d.name} ${problem}`);
        return this.set(d, d.type === 'multiSelect' ? this.ordered(d, op.value as string[]) : op.value!);
      }
      case 'toggle': {
        const d = this.multi(op.dimension);
        this.option(d, op.option);
        this.ensureAsked(d);
        const chosen = (this.a[d.name] as string[] | undefined) ?? [];
        this.change(d, () => (chosen.includes(op.option) ? this.remove(d, op.option) : this.add(d, op.option)));
        return;
      }
      case 'mostEvident': {
        const d = this.multi(op.dimension);
        if (!d.mostEvident) throw new RangeError(`${d.name} has no most evident option`);
        if (op.option === null) {
          delete this.a[d.mostEvident.name];
          return;
        }
        this.option(d, op.option);
        this.ensureAsked(d);
        const chosen = (this.a[d.name] as string[] | undefined) ?? [];
        if (!chosen.includes(op.option)) this.change(d, () => this.add(d, op.option!));
        this.a[d.mostEvident.name] = op.option;
        return;
      }
    }
  }

  private option(d: MultiSelectDimension, option: string): void {
    if (!d.options.some((o) => o.value === option)) throw new RangeError(`${d.name} has no option "${String(option)}"`);
  }

  /** The options of `d` in `values`, in the options' order (what a multi-select stores). */
  private ordered(d: MultiSelectDimension, values: readonly string[]): string[] {
    const set = new Set(values);
    return d.options.map((o) => o.value).filter((v) => set.has(v));
  }

  private add(d: MultiSelectDimension, option: string): void {
    this.a[d.name] = this.ordered(d, [...((this.a[d.name] as string[] | undefined) ?? []), option]);
  }

  private remove(d: MultiSelectDimension, option: string): void {
    const rest = ((this.a[d.name] as string[] | undefined) ?? []).filter((v) => v !== option);
    if (rest.length) this.a[d.name] = rest;
    else delete this.a[d.name];
    if (d.mostEvident && this.a[d.mostEvident.name] === option) delete this.a[d.mostEvident.name];
  }

  /** Answers what `d` is asked under, when it is not asked. */
  private ensureAsked(d: Dimension): void {
    if (!d.when || conditionHolds(this.a, d, this.rubric)) return;
    const on = this.dim(d.when.dimension);
    const w = d.when;
    if (w.includes !== undefined) {
      const m = on as MultiSelectDimension;
      this.ensureAsked(m);
      if (!((this.a[m.name] as string[] | undefined) ?? []).includes(w.includes)) this.change(m, () => this.add(m, w.includes!));
    } else this.set(on, w.equals!);
  }

  private set(d: Dimension, value: LabelValue): void {
    this.ensureAsked(d);
    if (JSON.stringify(this.a[d.name]) === JSON.stringify(value)) return;
    this.change(d, () => {
      this.a[d.name] = value;
      // A multi-select's list replaced: a most evident option no longer chosen is no longer marked.
      if (d.type === 'multiSelect' && d.mostEvident && !(value as string[]).includes(this.a[d.mostEvident.name] as string)) delete this.a[d.mostEvident.name];
    });
  }

  private clear(d: Dimension): void {
    if (d.type === 'multiSelect' && d.mostEvident && this.a[d.name] === undefined) delete this.a[d.mostEvident.name];
    if (this.a[d.name] === undefined) return;
    this.change(d, () => {
      for (const f of fieldsOf(d)) delete this.a[f];
    });
  }

  /** Changes `d`'s value with `edit`, then brings the dimensions asked under it in line (module comment). */
  private change(d: Dimension, edit: () => void): void {
    const under = askedUnder(this.rubric, d);
    const before = under.map((x) => conditionHolds(this.a, x, this.rubric));
    edit();
    if (under.length === 0) return;
    const stashUnasked = () => {
      for (const x of under) if (!conditionHolds(this.a, x, this.rubric)) stash(this.a, fieldsOf(x));
    };
    stashUnasked();
    const restored = new Set<string>();
    under.forEach((x, i) => {
      if ((conditionHolds(this.a, x, this.rubric) && !before[i]) || restored.has(x.when!.dimension)) {
        unstash(this.a, fieldsOf(x));
        restored.add(x.name);
      }
    });
    stashUnasked();
  }
}

/**
 * Applies one {@link LabelOp} to an annotation (or to none yet) and returns the new annotation; `previous` is
 * not modified. The rules are those of the module comment. `updatedAt` is set to `now` when anything changed; when
 * nothing changed `previous` itself is returned.
 *
 * @param previous - the annotator's current annotation, or `undefined` when they have none on this candidate
 * @param rubric - the study's rubric (the MI preset when omitted); an MI operation names the preset's dimensions
 * @throws RangeError for a value the dimension cannot take (an empathy value that is not an integer 1–5, an
 *   unknown error category), a dimension the rubric does not have, or an option a multi-select does not have
 */
export function applyLabelOpToAnnotation(previous: Annotation | undefined, annotator: string, op: LabelOp, now: Date = new Date(), rubric: Rubric = MI_RUBRIC): Annotation {
  const dop = dimensionOpOf(op);
  const a: Annotation = previous ? { ...previous, ...(previous.stashed ? { stashed: { ...previous.stashed } } : {}) } : { annotator };
  for (const [k, v] of Object.entries(a)) if (Array.isArray(v)) a[k] = [...v];
  new Editor(a, rubric).apply(dop);
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
 * Applies one {@link LabelOp} to `annotator`'s annotation of a candidate under `rubric` (the MI preset when
 * omitted); see {@link applyLabelOpToAnnotation} for the rules and {@link updateAnnotation} for copy-on-write.
 *
 * @throws Error if the candidate does not exist or `annotator` is blank; RangeError for an invalid value
 */
export function applyLabelOp(item: DialogueItem, candidateId: string, annotator: string, op: LabelOp, now: Date = new Date(), rubric: Rubric = MI_RUBRIC): DialogueItem {
  return updateAnnotation(item, candidateId, annotator, (a) => applyLabelOpToAnnotation(a, annotator, op, now, rubric));
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

/** Where an annotation stands under any rubric: nothing answered, some of what is asked, or all of it. */
export type RubricStatus = 'unlabelled' | 'partial' | 'complete';

/**
 * Which asked dimensions of an annotation still need an answer, and where it stands: a dimension is needed when it
 * is asked ({@link conditionHolds}) and is not free text (text is optional: a rationale, the "Other" error's
 * description); a multi-select with a most-evident field needs the mark once several options are chosen (a single
 * one is its own). For the MI preset `complete` is {@link labelStatus}'s `complete` and `unlabelled` its
 * `unlabelled` (test/core/labels/annotateRubric.test.ts).
 */
export function rubricStatus(a: Annotation | undefined, rubric: Rubric): { status: RubricStatus; missing: string[] } {
  const missing: string[] = [];
  let answered = 0;
  for (const d of rubric.dimensions) {
    if (d.type === 'text' || !conditionHolds(a, d, rubric)) continue;
    const v = a?.[d.name];
    const has = v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0);
    if (has) answered++;
    const marked = d.type !== 'multiSelect' || !d.mostEvident || !Array.isArray(v) || v.length <= 1 || !!a?.[d.mostEvident.name];
    if (!has || !marked) missing.push(d.name);
  }
  return { status: answered === 0 ? 'unlabelled' : missing.length ? 'partial' : 'complete', missing };
}

/**
 * Whether `annotator`'s annotation of a candidate needs a value for `d`: `d` is asked and has none, or it could
 * still be asked (what it is asked under has no answer yet). A dimension ruled out by an answer needs nothing.
 * "Labelled in a dimension" (progress, the filters, "next unlabelled") is its negation for a dimension that can be
 * asked; for the MI preset's `coherent` it is "gave a coherence answer", as before rubrics.
 */
export function needsLabel(a: Annotation | undefined, d: Dimension, rubric: Rubric): boolean {
  return couldBeAsked(a, d, rubric) && labelValueOf(a, d) === undefined;
}

/** Whether `d` is asked, or would be once what it is asked under is answered (no answer on the way rules it out). */
export function couldBeAsked(a: Annotation | undefined, d: Dimension, rubric: Rubric): boolean {
  if (!d.when) return true;
  const on = rubric.dimensions.find((x) => x.name === d.when!.dimension);
  if (!on || !couldBeAsked(a, on, rubric)) return false;
  const v = a?.[on.name];
  if (v === undefined || v === null) return true;
  return d.when.includes !== undefined ? Array.isArray(v) && v.includes(d.when.includes) : v === d.when.equals;
}

/** The valid value `a` holds for `d` (binary, ordinal, numeric, categorical, multi-select, non-blank text), or undefined. */
export function labelValueOf(a: Annotation | undefined, d: Dimension): LabelValue | undefined {
  const v = a?.[d.name];
  if (v === undefined || labelProblem(v, d) !== null) return undefined;
  if (d.type === 'text' && !(v as string).trim()) return undefined;
  return v as LabelValue;
}
