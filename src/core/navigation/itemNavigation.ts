/**
 * Finding one's way in a dialogue file (issue 18 item 3): the dialogue editor's item filters (free text, origin,
 * labelled / unlabelled by the viewing annotator, annotators disagree, judge and humans disagree), "next
 * unlabelled", and labelling progress per annotator. Pure: the editor and any other program compute the same
 * lists from the same items.
 *
 * "Labelled" means one thing throughout: the annotator gave a value for the **current dimension** of the study's
 * rubric (issue 39 item 3; {@link LabelScope}) — by default its primary dimension, which for the MI preset is the
 * coherence answer (yes or no), the label every coherence score, correlation and agreement statistic counts (ICMI
 * 2023 §2.1). A dimension asked only under another answer (MI: empathy after Yes) counts where it is asked or still
 * could be (`needsLabel`, labels/annotate.ts); where an answer rules it out, nothing is missing.
 */
import type { Annotation, Candidate, DialogueItem } from '../dialogue/types';
import { couldBeAsked, labelValueOf, needsLabel } from '../labels/annotate';
import { MI_RUBRIC } from '../rubric/presets';
import { dimensionTitle, type Dimension, type Rubric } from '../rubric/rubric';
import { candidateGroups } from '../dialogue/groupBy';
import { evaluatorKind } from '../evaluators/evaluatorNames';
import type { ScoreScale } from './scoreSummary';

/** The rubric and the dimension "labelled" is about (the MI preset's `coherent` when none is given). */
export interface LabelScope {
  rubric: Rubric;
  dimension: string;
}

/** The MI preset's coherence answer: what "labelled" meant before rubrics. */
export const COHERENCE_SCOPE: LabelScope = { rubric: MI_RUBRIC, dimension: 'coherent' };

/** The dimension of a scope. @throws RangeError when the rubric has no such dimension */
export function scopeDimension(scope: LabelScope): Dimension {
  const d = scope.rubric.dimensions.find((x) => x.name === scope.dimension);
  if (!d) throw new RangeError(`the rubric ${scope.rubric.name} has no dimension "${scope.dimension}"`);
  return d;
}

/** What the item list is filtered by; absent fields do not filter. */
export interface ItemFilter {
  /** Words that must all occur (ignoring case) in the item's context, id or candidate texts (and the reference when not blind). */
  text?: string;
  /** A candidate's origin group as the correlation table names it ({@link candidateGroups} with `origin`: `GPT-2`, `human`, a model…). */
  origin?: string;
  /** A candidate the viewing annotator has (`labelled`) or has not (`unlabelled`) labelled in the current dimension. */
  mine?: 'labelled' | 'unlabelled';
  /** A candidate whose values in the current dimension differ between annotators ({@link dimensionDisagreement}; MI: the coherence answers). */
  annotatorsDisagree?: boolean;
  /** A candidate on which a judge and the human majority disagree ({@link judgeHumanDisagreements}). */
  judgeHumansDisagree?: boolean;
}

/** Filters that would reveal what blind mode hides (origins, scores): not offered, and dropped, in blind mode. */
export const BLIND_HIDDEN_FILTERS: readonly (keyof ItemFilter)[] = ['origin', 'judgeHumansDisagree'];

/** What filtering needs besides the filter. */
export interface FilterContext {
  /** The viewing annotator (null: not set; `mine` then matches nothing for `labelled` and every candidate for `unlabelled`). */
  annotator: string | null;
  /** Blind mode: the reference's text is not searched, and {@link BLIND_HIDDEN_FILTERS} must not be set. */
  blind: boolean;
  /** Each judge's scale by evaluator id (e.g. `evaluatorScale` with the prompt library's requests); judges without a finite scale are never counted as disagreeing. */
  scales: ReadonlyMap<string, ScoreScale | undefined>;
  /** The rubric and current dimension ({@link COHERENCE_SCOPE} when absent). */
  scope?: LabelScope;
}

/**
 * Whether `annotator` has labelled `candidate` in the scope's dimension (the coherence answer by default): a valid
 * value where the dimension is asked, or nothing needed because an answer rules the dimension out. The first
 * annotation of the annotator is theirs (as the editor shows it).
 */
export function isLabelledBy(candidate: Pick<Candidate, 'annotations'>, annotator: string | null, scope: LabelScope = COHERENCE_SCOPE): boolean {
  if (!annotator) return false;
  if (scope === COHERENCE_SCOPE) return candidate.annotations.some((a) => a.annotator === annotator && typeof a.coherent === 'boolean');
  const a = candidate.annotations.find((x) => x.annotator === annotator);
  return !needsLabel(a, scopeDimension(scope), scope.rubric);
}

/** Whether `a` holds a value for the scope's dimension where it is asked (what progress counts). */
function holdsValue(a: Annotation, scope: LabelScope, d: Dimension): boolean {
  if (scope === COHERENCE_SCOPE) return typeof a.coherent === 'boolean';
  return couldBeAsked(a, d, scope.rubric) && labelValueOf(a, d) !== undefined;
}

/**
 * The annotators by value in the scope's dimension, when at least two annotators gave different values (a
 * multi-select's lists compared whole); null otherwise. Annotations where the dimension is not asked do not count.
 */
export function dimensionDisagreement(candidate: Pick<Candidate, 'annotations'>, scope: LabelScope): { value: string; annotators: string[] }[] | null {
  const d = scopeDimension(scope);
  const by = new Map<string, string[]>();
  for (const a of candidate.annotations) {
    if (!holdsValue(a, scope, d)) continue;
    const v = labelValueOf(a, d);
    const key = typeof v === 'string' ? v : JSON.stringify(v);
    by.set(key, [...(by.get(key) ?? []), a.annotator]);
  }
  return by.size >= 2 ? [...by].map(([value, annotators]) => ({ value, annotators })) : null;
}

/** How a disagreement reads on hover: `Annotators disagree: coherent …` for the coherence answer, else by value. */
export function describeDisagreement(candidate: Pick<Candidate, 'annotations'>, scope: LabelScope = COHERENCE_SCOPE): string | null {
  if (scope.rubric === MI_RUBRIC && scope.dimension === 'coherent') {
    const a = annotatorDisagreement(candidate);
    return a ? `Annotators disagree: coherent ${a.coherent.join(', ')} · incoherent ${a.incoherent.join(', ')}` : null;
  }
  const groups = dimensionDisagreement(candidate, scope);
  return groups ? `Annotators disagree on ${dimensionTitle(scopeDimension(scope))}: ${groups.map((g) => `${g.value} ${g.annotators.join(', ')}`).join(' · ')}` : null;
}

/**
 * The annotators who said coherent and incoherent, when both lists are non-empty (at least two annotators gave
 * different coherence answers); null otherwise.
 */
export function annotatorDisagreement(candidate: Pick<Candidate, 'annotations'>): { coherent: string[]; incoherent: string[] } | null {
  const coherent = candidate.annotations.filter((a) => a.coherent === true).map((a) => a.annotator);
  const incoherent = candidate.annotations.filter((a) => a.coherent === false).map((a) => a.annotator);
  return coherent.length && incoherent.length ? { coherent, incoherent } : null;
}

/** The side of the coherence question a judgement falls on. */
export type CoherenceSide = 'coherent' | 'incoherent';

/**
 * The human majority's coherence answer: `coherent` when strictly more annotators (any group) said coherent than
 * incoherent, `incoherent` when strictly fewer, null on a tie or without answers.
 */
export function humanMajority(candidate: Pick<Candidate, 'annotations'>): { side: CoherenceSide | null; coherent: number; incoherent: number } {
  const coherent = candidate.annotations.filter((a) => a.coherent === true).length;
  const incoherent = candidate.annotations.filter((a) => a.coherent === false).length;
  return { side: coherent > incoherent ? 'coherent' : incoherent > coherent ? 'incoherent' : null, coherent, incoherent };
}

/**
 * The side of a judge's score: above the midpoint (min + max) / 2 of its scale is `coherent`, below it
 * `incoherent`, exactly on it null. Every bundled request scores higher for more coherent (rating 1–5, scoring
 * 0–100, yes/no 1/0, error categories 1 = none apply), so the rule holds for each.
 *
 * @returns null as well when the scale is unknown or not finite at both ends, or the value is not finite
 */
export function judgeSide(value: number, scale: ScoreScale | undefined): CoherenceSide | null {
  if (!scale || !Number.isFinite(scale.min) || !Number.isFinite(scale.max) || !Number.isFinite(value)) return null;
  const mid = (scale.min + scale.max) / 2;
  return value > mid ? 'coherent' : value < mid ? 'incoherent' : null;
}

/** One judge whose score falls on the other side of its scale's midpoint from the human majority. */
export interface JudgeHumanDisagreement {
  evaluatorId: string;
  value: number;
  scale: ScoreScale;
  midpoint: number;
  judge: CoherenceSide;
  humans: CoherenceSide;
  /** Human coherence answers: coherent / incoherent counts. */
  coherent: number;
  incoherent: number;
}

/**
 * "Judge and humans disagree" on a candidate: every judge (`judge:` evaluator id) with a usable score (status `ok`,
 * finite value) and a finite scale whose side ({@link judgeSide}) is the opposite of the human majority's
 * ({@link humanMajority}). A score on the midpoint, a tied or absent human majority, or an unknown scale is no
 * disagreement. Metrics are not judges and are never counted.
 *
 * @returns the disagreeing judges, in the candidate's score order (empty: none)
 */
export function judgeHumanDisagreements(candidate: Pick<Candidate, 'annotations' | 'scores'>, scales: ReadonlyMap<string, ScoreScale | undefined>): JudgeHumanDisagreement[] {
  const human = humanMajority(candidate);
  if (!human.side) return [];
  const out: JudgeHumanDisagreement[] = [];
  for (const [id, s] of Object.entries(candidate.scores ?? {})) {
    if (evaluatorKind(id) !== 'judge' || s.status !== 'ok' || typeof s.value !== 'number') continue;
    const scale = scales.get(id);
    const side = judgeSide(s.value, scale);
    if (!side || side === human.side || !scale) continue;
    out.push({ evaluatorId: id, value: s.value, scale, midpoint: (scale.min + scale.max) / 2, judge: side, humans: human.side, coherent: human.coherent, incoherent: human.incoherent });
  }
  return out;
}

/** How a disagreement reads on hover, e.g. `judge 1 (1–5, midpoint 3: incoherent) vs humans 2 coherent, 1 incoherent`; `name` gives the judge's readable name. */
export function describeJudgeHumanDisagreement(d: JudgeHumanDisagreement, name: (id: string) => string = (id) => id): string {
  return `${name(d.evaluatorId)}: ${d.value} on ${d.scale.min}–${d.scale.max} (midpoint ${d.midpoint}: ${d.judge}) vs the human majority ${d.humans} (${d.coherent} coherent, ${d.incoherent} incoherent)`;
}

/** Lower-cased words of a query (whitespace-separated; empty: no text filter). */
function words(text: string | undefined): string[] {
  return (text ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/** Whether an item's text holds every word (context turns, item id, candidate texts, and the reference unless blind). */
function textMatches(item: DialogueItem, terms: readonly string[], blind: boolean): boolean {
  if (terms.length === 0) return true;
  const hay = [item.id, ...item.context.map((t) => t.text), ...item.candidates.map((c) => c.text), ...(!blind && item.reference ? [item.reference.text] : [])].join('\n').toLowerCase();
  return terms.every((w) => hay.includes(w));
}

/** Whether a filter sets any candidate-level condition. */
function hasCandidateConditions(f: ItemFilter): boolean {
  return f.origin !== undefined || f.mine !== undefined || !!f.annotatorsDisagree || !!f.judgeHumansDisagree;
}

/**
 * Whether one candidate meets every candidate-level condition of `filter` (origin, mine, annotators disagree,
 * judge and humans disagree); the text condition is the item's.
 */
export function candidateMatches(candidate: Candidate, filter: ItemFilter, ctx: FilterContext): boolean {
  if (filter.origin !== undefined && !candidateGroups(candidate, 'origin').includes(filter.origin)) return false;
  const scope = ctx.scope ?? COHERENCE_SCOPE;
  if (filter.mine !== undefined && isLabelledBy(candidate, ctx.annotator, scope) !== (filter.mine === 'labelled')) return false;
  if (filter.annotatorsDisagree && !(scope === COHERENCE_SCOPE ? annotatorDisagreement(candidate) : dimensionDisagreement(candidate, scope))) return false;
  if (filter.judgeHumansDisagree && judgeHumanDisagreements(candidate, ctx.scales).length === 0) return false;
  return true;
}

/**
 * Whether one candidate passes the filter and search (issue 41 item 3, the rule "next unlabelled" follows): every
 * word of the search occurs in the item's context or id, this candidate's text, or (not blind) the reference; and
 * the candidate meets every candidate-level condition ({@link candidateMatches}).
 */
export function candidatePasses(item: DialogueItem, candidate: Candidate, filter: ItemFilter, ctx: FilterContext): boolean {
  const terms = words(filter.text);
  if (terms.length) {
    const hay = [item.id, ...item.context.map((t) => t.text), candidate.text, ...(!ctx.blind && item.reference ? [item.reference.text] : [])].join('\n').toLowerCase();
    if (!terms.every((w) => hay.includes(w))) return false;
  }
  return candidateMatches(candidate, filter, ctx);
}

/**
 * The indices (file order) of the items that pass `filter`: the item's text holds every word of `filter.text`,
 * and — when any candidate-level condition is set — one candidate meets all of them at once (so origin `GPT-2` and
 * `unlabelled` finds items with a GPT-2 candidate the annotator has not labelled).
 *
 * @throws RangeError when `ctx.blind` and a filter of {@link BLIND_HIDDEN_FILTERS} is set (it would reveal origins or scores)
 */
export function filterItems(items: readonly DialogueItem[], filter: ItemFilter, ctx: FilterContext): number[] {
  if (ctx.blind) {
    const hidden = BLIND_HIDDEN_FILTERS.filter((k) => filter[k] !== undefined && filter[k] !== false);
    if (hidden.length) throw new RangeError(`blind mode hides origins and scores: the ${hidden.join(' and ')} filter is not available`);
  }
  const terms = words(filter.text);
  const byCandidate = hasCandidateConditions(filter);
  const out: number[] = [];
  items.forEach((item, i) => {
    if (!textMatches(item, terms, ctx.blind)) return;
    if (byCandidate && !item.candidates.some((c) => candidateMatches(c, filter, ctx))) return;
    out.push(i);
  });
  return out;
}

/** A filter without what blind mode hides, and the names of the filters dropped. */
export function blindSafeFilter(filter: ItemFilter, blind: boolean): { filter: ItemFilter; dropped: (keyof ItemFilter)[] } {
  if (!blind) return { filter, dropped: [] };
  const out: ItemFilter = { ...filter };
  const dropped: (keyof ItemFilter)[] = [];
  for (const k of BLIND_HIDDEN_FILTERS) {
    if (out[k] !== undefined && out[k] !== false) dropped.push(k);
    delete out[k];
  }
  return { filter: out, dropped };
}

/** Every origin group of the file's candidates (as {@link candidateGroups} names them), sorted. */
export function originGroups(items: readonly DialogueItem[]): string[] {
  const all = new Set<string>();
  for (const it of items) for (const c of it.candidates) for (const g of candidateGroups(c, 'origin')) all.add(g);
  return [...all].sort((a, b) => a.localeCompare(b));
}

/** The viewing annotator's progress on one dimension of the rubric. */
export interface DimensionProgress {
  dimension: string;
  title: string;
  /** Candidates with a value where the dimension is asked. */
  labelled: number;
  /** Candidates where it is asked or could still be (labelled, plus those that need a label). */
  asked: number;
}

/** Labelling progress of a file. */
export interface LabelProgress {
  /** Candidates in the file (the total every annotator's count is out of). */
  candidates: number;
  /** Candidates the viewing annotator labelled in the current dimension, or null without an annotator. */
  mine: number | null;
  /** Every annotator with at least one label in the current dimension (and the viewing one), by labelled count descending, then id. */
  annotators: { annotator: string; labelled: number }[];
  /** The current dimension (absent: the MI preset's coherence answer). */
  dimension?: string;
  /** The viewing annotator's progress on every dimension of the rubric (absent without a rubric scope or annotator). */
  dimensions?: DimensionProgress[];
}

/**
 * Labelled / total for the viewing annotator and for every annotator of `items` in the scope's dimension (see the
 * module comment for "labelled"), and with a scope other than {@link COHERENCE_SCOPE} the viewing annotator's
 * progress on every dimension.
 */
export function labelProgress(items: readonly DialogueItem[], annotator: string | null, scope?: LabelScope): LabelProgress {
  const sc = scope ?? COHERENCE_SCOPE;
  const d = sc === COHERENCE_SCOPE ? undefined : scopeDimension(sc);
  // The MI preset's coherence answer counts as before rubrics (one number; its navigator message unchanged).
  const dims = scope && scope !== COHERENCE_SCOPE && annotator ? scope.rubric.dimensions : [];
  const perDim = dims.map(() => ({ labelled: 0, asked: 0 }));
  let candidates = 0;
  const counts = new Map<string, number>();
  if (annotator) counts.set(annotator, 0);
  for (const it of items) {
    for (const c of it.candidates) {
      candidates++;
      const seen = new Set<string>();
      for (const a of c.annotations) {
        if (seen.has(a.annotator) || !(d ? holdsValue(a, sc, d) : typeof a.coherent === 'boolean')) continue;
        seen.add(a.annotator);
        counts.set(a.annotator, (counts.get(a.annotator) ?? 0) + 1);
      }
      if (dims.length) {
        const mine = c.annotations.find((a) => a.annotator === annotator);
        dims.forEach((x, i) => {
          const has = !!mine && couldBeAsked(mine, x, sc.rubric) && labelValueOf(mine, x) !== undefined;
          if (has) perDim[i].labelled++;
          if (has || needsLabel(mine, x, sc.rubric)) perDim[i].asked++;
        });
      }
    }
  }
  const annotators = [...counts].map(([a, labelled]) => ({ annotator: a, labelled })).sort((x, y) => y.labelled - x.labelled || x.annotator.localeCompare(y.annotator));
  return {
    candidates,
    mine: annotator ? (counts.get(annotator) ?? 0) : null,
    annotators,
    ...(scope && scope !== COHERENCE_SCOPE ? { dimension: scope.dimension } : {}),
    ...(dims.length ? { dimensions: dims.map((x, i) => ({ dimension: x.name, title: dimensionTitle(x), ...perDim[i] })) } : {}),
  };
}

/** A position in the item list: an item (file index) and a candidate (real id), or null for "before its first candidate". */
export interface ListPosition {
  itemIndex: number;
  candidateId: string | null;
}

/** A position of a {@link candidateSequence}: `planned` when a plan names it. */
export type SequencePosition = ListPosition & { planned?: true };

/** A candidate a plan names, by ids (both planners' `order` entries fit: drawn first, then provisional). */
export interface PlannedCandidate {
  itemId: string;
  candidateId: string;
}

/**
 * The candidates in the current order, the sequence `U`, F3 and the "to go" count walk: with `planned` (the plan
 * order), first the planned candidates of listed items in the plan's order, then every other candidate of the listed
 * items; without it, the candidates of each listed item in display order (`candidateOrder`: blind mode's shuffled
 * order, else file order), the items in list order (`listed`: file indices, filtered or sorted). Each candidate once;
 * an item id held by two lines maps to its first line (as the plan's item order does).
 *
 * @param listed - file indices of the items in the list, in list order
 * @returns positions (file index, real candidate id) in the order they are reached; the plan's carry `planned: true`
 */
export function candidateSequence(
  items: readonly DialogueItem[],
  listed: readonly number[],
  options: { candidateOrder?: (item: DialogueItem) => readonly string[]; planned?: readonly PlannedCandidate[] } = {},
): SequencePosition[] {
  const order = options.candidateOrder ?? ((it: DialogueItem) => it.candidates.map((c) => c.id));
  const out: SequencePosition[] = [];
  const seen = new Set<string>();
  const add = (itemIndex: number, candidateId: string, planned = false) => {
    const key = `${itemIndex}\u0000${candidateId}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push(planned ? { itemIndex, candidateId, planned: true } : { itemIndex, candidateId });
  };
  if (options.planned?.length) {
    const isListed = new Set(listed);
    const index = new Map<string, number>();
    items.forEach((it, i) => {
      if (!index.has(it.id)) index.set(it.id, i);
    });
    for (const p of options.planned) {
      const i = index.get(p.itemId);
      if (i === undefined || !isListed.has(i) || !items[i].candidates.some((c) => c.id === p.candidateId)) continue;
      add(i, p.candidateId, true);
    }
  }
  for (const i of listed) {
    const item = items[i];
    if (item) for (const id of order(item)) add(i, id);
  }
  return out;
}

/**
 * The next position of `sequence` after `from` whose candidate `accepts` takes, wrapping around (so `from`'s own
 * candidate comes last); `direction` -1 walks backwards. From a position not in the sequence (a candidate id of
 * null, or one the sequence does not hold) the walk starts at the first position of `from`'s item, inclusive, or at
 * the sequence's start when the item is not in it.
 *
 * @returns the position, or null when no candidate of the sequence is accepted
 */
export function nextInSequence(
  items: readonly DialogueItem[],
  sequence: readonly ListPosition[],
  from: ListPosition | null,
  accepts: (item: DialogueItem, candidate: Candidate) => boolean,
  direction: 1 | -1 = 1,
): ListPosition | null {
  const n = sequence.length;
  if (n === 0) return null;
  let at = from && from.candidateId !== null ? sequence.findIndex((p) => p.itemIndex === from.itemIndex && p.candidateId === from.candidateId) : -1;
  let inclusive = false;
  if (at < 0) {
    inclusive = true;
    at = from ? sequence.findIndex((p) => p.itemIndex === from.itemIndex) : -1;
    if (at < 0) at = direction > 0 ? 0 : n - 1;
  }
  for (let k = inclusive ? 0 : 1; k < (inclusive ? n : n + 1); k++) {
    const pos = sequence[(((at + direction * k) % n) + n) % n];
    const item = items[pos.itemIndex];
    const c = item?.candidates.find((x) => x.id === pos.candidateId);
    if (item && c && accepts(item, c)) return pos;
  }
  return null;
}

/** What `U` asks of a candidate ({@link nextToLabel}). */
export interface LabellingRule {
  /** The viewing annotator (null: not set; nothing is due). */
  annotator: string | null;
  /** The rubric and current dimension (the MI preset's coherence answer when absent). */
  scope?: LabelScope;
  /** Whether a candidate passes the active filters and search ({@link candidatePasses}; all pass when absent). */
  passes?: (item: DialogueItem, candidate: Candidate) => boolean;
}

/** Whether a candidate is due under `rule`: it passes the filters and search and the annotator has not labelled it in the dimension. */
export function isDue(item: DialogueItem, candidate: Candidate, rule: LabellingRule): boolean {
  return !!rule.annotator && !isLabelledBy(candidate, rule.annotator, rule.scope) && (!rule.passes || rule.passes(item, candidate));
}

/**
 * **The one rule for `U`** (issue 41 item 3, which the rubric, estimate and team issues follow): the next candidate,
 * in the current order (`sequence` from {@link candidateSequence}: file order, the plan's, or another planner's),
 * that passes the active filters and search and that the current annotator has not labelled in the current
 * dimension ({@link isDue}); wrapping around past the end, so `from`'s own candidate comes last. `toGo` counts the
 * candidates of the sequence due under the same rule: the status bar's "to go" and the button's count. In a plan's
 * order the plan's candidates come first: from a candidate the plan does not name (one just labelled drops out of
 * the plan's order) `U` goes to the plan's first due candidate while there is one, not on from that candidate's
 * place in the rest of the list.
 *
 * @param sequence - the candidates in the current order (each once)
 * @param from - where the annotator is (null: before the first)
 * @returns the next due position (null when none is due, or no annotator is set) and the number due (0 …
 * `sequence.length`)
 */
export function nextToLabel(items: readonly DialogueItem[], sequence: readonly SequencePosition[], from: ListPosition | null, rule: LabellingRule): { next: ListPosition | null; toGo: number } {
  if (!rule.annotator) return { next: null, toGo: 0 };

  const due = (item: DialogueItem, c: Candidate) => isDue(item, c, rule);
  let toGo = 0;
  for (const p of sequence) {
    const item = items[p.itemIndex];
    const c = item?.candidates.find((x) => x.id === p.candidateId);
    if (item && c && due(item, c)) toGo++;
  }
  const plan = sequence.filter((p) => p.planned);
  const planKeys = new Set(plan.map((p) => `${p.itemIndex}\u0000${p.candidateId}`));
  const planFirst = from && plan.length && !planKeys.has(`${from.itemIndex}\u0000${from.candidateId}`) ? nextInSequence(items, plan, null, due) : null;
  const next = !toGo ? null : (planFirst ?? nextInSequence(items, sequence, from, due));
  return { next: next && { itemIndex: next.itemIndex, candidateId: next.candidateId }, toGo };
}

/**
 * "Next unlabelled" over items in list order: {@link nextToLabel} on the sequence of {@link candidateSequence}
 * without a plan (the candidates of each item in display order, `candidateOrder`, the items in `order`).
 *
 * @param order - file indices of the items in the list; an item not in it is treated as being before the first
 * @param options.scope - the rubric and current dimension (the MI preset's coherence answer when absent)
 * @param options.passes - whether a candidate passes the active filters and search (all pass when absent)
 * @returns null when no listed candidate is left (or no annotator is set), else the position
 */
export function nextUnlabelled(
  items: readonly DialogueItem[],
  order: readonly number[],
  from: ListPosition | null,
  annotator: string | null,
  candidateOrder: (item: DialogueItem) => readonly string[] = (it) => it.candidates.map((c) => c.id),
  options: { scope?: LabelScope; passes?: (item: DialogueItem, candidate: Candidate) => boolean } = {},
): ListPosition | null {
  return nextToLabel(items, candidateSequence(items, order, { candidateOrder }), from, { annotator, ...options }).next;
}

/**
 * {@link labelProgress} after some items were replaced, from the progress before: the replaced items' counts are
 * taken out and their new versions' counts put in (an annotator left with no label drops out, except the viewing
 * one), so a label edit in a 5,000-item file costs the edited items' work. Equal to `labelProgress` of the whole
 * new list of items.
 *
 * @param previous - `labelProgress(itemsBefore, annotator, scope)` with the same `annotator` and `scope`
 * @param before - the replaced items as they were (each once)
 * @param after - their new versions
 */
export function labelProgressAfter(previous: LabelProgress, before: readonly DialogueItem[], after: readonly DialogueItem[], annotator: string | null, scope?: LabelScope): LabelProgress {
  const counts = new Map(previous.annotators.map((a) => [a.annotator, a.labelled]));
  const out = labelProgress(before, annotator, scope);
  const inn = labelProgress(after, annotator, scope);
  for (const a of out.annotators) counts.set(a.annotator, (counts.get(a.annotator) ?? 0) - a.labelled);
  for (const a of inn.annotators) counts.set(a.annotator, (counts.get(a.annotator) ?? 0) + a.labelled);
  if (annotator && !counts.has(annotator)) counts.set(annotator, 0);
  const annotators = [...counts]
    .filter(([a, n]) => n > 0 || a === annotator)
    .map(([a, labelled]) => ({ annotator: a, labelled }))
    .sort((x, y) => y.labelled - x.labelled || x.annotator.localeCompare(y.annotator));
  const dimensions = previous.dimensions?.map((p, i) => ({
    ...p,
    labelled: p.labelled - (out.dimensions?.[i]?.labelled ?? 0) + (inn.dimensions?.[i]?.labelled ?? 0),
    asked: p.asked - (out.dimensions?.[i]?.asked ?? 0) + (inn.dimensions?.[i]?.asked ?? 0),
  }));
  return {
    candidates: previous.candidates - out.candidates + inn.candidates,
    mine: annotator ? (counts.get(annotator) ?? 0) : null,
    annotators,
    ...(previous.dimension !== undefined ? { dimension: previous.dimension } : {}),
    ...(dimensions ? { dimensions } : {}),
  };
}
