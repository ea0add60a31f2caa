/**
 * Finding one's way in a dialogue file (issue 18 item 3): the dialogue editor's item filters (free text, origin,
 * labelled / unlabelled by the viewing annotator, annotators disagree, judge and humans disagree), "next
 * unlabelled", and labelling progress per annotator. Pure: the editor and any other program compute the same
 * lists from the same items.
 *
 * "Labelled" means one thing throughout: the annotator gave a coherence answer (yes or no) — the label every
 * coherence score, correlation and agreement statistic counts (ICMI 2023 §2.1). Empathy, errors and the most evident
 * error are not needed for it.
 */
import type { Candidate, DialogueItem } from '../dialogue/types';
import { candidateGroups } from '../dialogue/groupBy';
import { evaluatorKind } from '../evaluators/evaluatorNames';
import type { ScoreScale } from './scoreSummary';

/** What the item list is filtered by; absent fields do not filter. */
export interface ItemFilter {
  /** Words that must all occur (ignoring case) in the item's context, id or candidate texts (and the reference when not blind). */
  text?: string;
  /** A candidate's origin group as the correlation table names it ({@link candidateGroups} with `origin`: `GPT-2`, `human`, a model…). */
  origin?: string;
  /** A candidate the viewing annotator has (`labelled`) or has not (`unlabelled`) given a coherence answer. */
  mine?: 'labelled' | 'unlabelled';
  /** A candidate whose coherence answers differ between annotators ({@link annotatorDisagreement}). */
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
}

/** Whether `annotator` gave `candidate` a coherence answer. */
export function isLabelledBy(candidate: Pick<Candidate, 'annotations'>, annotator: string | null): boolean {
  if (!annotator) return false;
  return candidate.annotations.some((a) => a.annotator === annotator && typeof a.coherent === 'boolean');
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
  if (filter.mine !== undefined && isLabelledBy(candidate, ctx.annotator) !== (filter.mine === 'labelled')) return false;
  if (filter.annotatorsDisagree && !annotatorDisagreement(candidate)) return false;
  if (filter.judgeHumansDisagree && judgeHumanDisagreements(candidate, ctx.scales).length === 0) return false;
  return true;
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

/** Labelling progress of a file. */
export interface LabelProgress {
  /** Candidates in the file (the total every annotator's count is out of). */
  candidates: number;
  /** Candidates the viewing annotator labelled, or null without an annotator. */
  mine: number | null;
  /** Every annotator with at least one coherence answer (and the viewing one), by labelled count descending, then id. */
  annotators: { annotator: string; labelled: number }[];
}

/** Labelled / total for the viewing annotator and for every annotator of `items` (see the module comment for "labelled"). */
export function labelProgress(items: readonly DialogueItem[], annotator: string | null): LabelProgress {
  let candidates = 0;
  const counts = new Map<string, number>();
  if (annotator) counts.set(annotator, 0);
  for (const it of items) {
    for (const c of it.candidates) {
      candidates++;
      const seen = new Set<string>();
      for (const a of c.annotations) {
        if (typeof a.coherent !== 'boolean' || seen.has(a.annotator)) continue;
        seen.add(a.annotator);
        counts.set(a.annotator, (counts.get(a.annotator) ?? 0) + 1);
      }
    }
  }
  const annotators = [...counts].map(([a, labelled]) => ({ annotator: a, labelled })).sort((x, y) => y.labelled - x.labelled || x.annotator.localeCompare(y.annotator));
  return { candidates, mine: annotator ? (counts.get(annotator) ?? 0) : null, annotators };
}

/** A position in the item list: an item (file index) and a candidate (real id), or null for "before its first candidate". */
export interface ListPosition {
  itemIndex: number;
  candidateId: string | null;
}

/**
 * "Next unlabelled": the first candidate after `from` that `annotator` has not labelled, going through the
 * candidates of each item in display order (`candidateOrder`: blind mode's shuffled order, else file order) and
 * the items in list order (`order`: file indices as the list shows them, filtered or sorted), wrapping around
 * past the end of the list (and so back to earlier candidates of `from`'s own item last).
 *
 * @param order - file indices of the items in the list; an item not in it is treated as being before the first
 * @returns null when every candidate of the listed items is labelled (or no annotator is set), else the position
 */
export function nextUnlabelled(items: readonly DialogueItem[], order: readonly number[], from: ListPosition | null, annotator: string | null, candidateOrder: (item: DialogueItem) => readonly string[] = (it) => it.candidates.map((c) => c.id)): ListPosition | null {
  if (!annotator || order.length === 0) return null;
  const at = from ? order.indexOf(from.itemIndex) : -1;
  const unlabelledIn = (index: number, after: string | null): string | null => {
    const item = items[index];
    if (!item) return null;
    const ids = candidateOrder(item);
    const byId = new Map(item.candidates.map((c) => [c.id, c]));
    const start = after === null ? 0 : ids.indexOf(after) + 1;
    for (let k = start; k < ids.length; k++) {
      const c = byId.get(ids[k]);
      if (c && !isLabelledBy(c, annotator)) return ids[k];
    }
    return null;
  };
  if (at >= 0 && from) {
    const here = unlabelledIn(order[at], from.candidateId);
    if (here) return { itemIndex: order[at], candidateId: here };
  }
  for (let step = 1; step <= order.length; step++) {
    const pos = at < 0 ? step - 1 : (at + step) % order.length;
    const id = unlabelledIn(order[pos], null);
    if (id) return { itemIndex: order[pos], candidateId: id };
  }
  return null;
}

/**
 * {@link labelProgress} after some items were replaced, from the progress before: the replaced items' counts are
 * taken out and their new versions' counts put in (an annotator left with no label drops out, except the viewing
 * one), so a label edit in a 5,000-item file costs the edited items' work. Equal to `labelProgress` of the whole
 * new list of items.
 *
 * @param previous - `labelProgress(itemsBefore, annotator)` with the same `annotator`
 * @param before - the replaced items as they were (each once)
 * @param after - their new versions
 */
export function labelProgressAfter(previous: LabelProgress, before: readonly DialogueItem[], after: readonly DialogueItem[], annotator: string | null): LabelProgress {
  const counts = new Map(previous.annotators.map((a) => [a.annotator, a.labelled]));
  const out = labelProgress(before, null);
  const inn = labelProgress(after, null);
  for (const a of out.annotators) counts.set(a.annotator, (counts.get(a.annotator) ?? 0) - a.labelled);
  for (const a of inn.annotators) counts.set(a.annotator, (counts.get(a.annotator) ?? 0) + a.labelled);
  if (annotator && !counts.has(annotator)) counts.set(annotator, 0);
  const annotators = [...counts]
    .filter(([a, n]) => n > 0 || a === annotator)
    .map(([a, labelled]) => ({ annotator: a, labelled }))
    .sort((x, y) => y.labelled - x.labelled || x.annotator.localeCompare(y.annotator));
  return { candidates: previous.candidates - out.candidates + inn.candidates, mine: annotator ? (counts.get(annotator) ?? 0) : null, annotators };
}
