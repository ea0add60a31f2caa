/**
 * The dialogue editor's item list navigation, host side (issue 18 item 3; the plan order: issue 16 item 3): turns
 * the webview's filter and order into the list of items it shows, the disagreement marks on a candidate, "next
 * unlabelled", and how the labelling progress reads in the status bar. The rules are core's
 * (src/core/navigation/itemNavigation.ts, src/core/planning/planView.ts); this module only applies them to a
 * document's items. No `vscode` import: the editor controller (editor/controller.ts) uses it, under unit test.
 */
import { COHERENCE_SCOPE, blindSafeFilter, candidatePasses, candidateSequence, describeDisagreement, describeJudgeHumanDisagreement, filterItems, isDue, judgeHumanDisagreements, labelProgress, nextInSequence, nextToLabel, originGroups, type ItemFilter, type LabelProgress, type LabelScope, type LabellingRule, type ListPosition, type PlannedCandidate } from '../core/navigation/itemNavigation';
import { MI_RUBRIC } from '../core/rubric/presets';
import { dimensionTitle, type Rubric } from '../core/rubric/rubric';
import type { ScoreScale } from '../core/navigation/scoreSummary';
import type { DialogueItem } from '../core/dialogue/types';
import { blindCandidateId, blindOrder, candidateIdOfView, type ItemView } from '../core/labels/annotatorView';
import type { CandidateMarks, ListOrder, NavigatorState } from '../../webview/editor/protocol';

/** The labelling plan's order and state line for an item list (labelPlan.ts `editorPlanState`): null when there is no plan. */
export type PlanState = { order: number[]; view: { text: string; title: string }; candidates?: (PlannedCandidate & { status: 'drawn' | 'waiting' | 'provisional' })[] } | { error: string } | null;

/** The plan's candidates the list follows (plan order only): `U` goes to them in this order, and the drawn ones are marked. */
export type ListPlan = readonly (PlannedCandidate & { status: 'drawn' | 'waiting' | 'provisional' })[];

/** The candidates of a list in its current order ({@link candidateSequence}): blind mode's shuffled candidates, the plan's candidates first. */
function sequenceOf(items: readonly DialogueItem[], listed: readonly number[], opts: { annotator: string | null; blind: boolean; planned?: ListPlan }): ListPosition[] {
  const candidateOrder = opts.blind && opts.annotator ? (it: DialogueItem) => blindOrder(it.id, it.candidates.map((c) => c.id), opts.annotator!) : undefined;
  return candidateSequence(items, listed, { candidateOrder, planned: opts.planned });
}

/** The rule for `U` with a list's filter and search (blind mode's hidden filters dropped). */
function ruleOf(opts: { annotator: string | null; blind: boolean; scope?: LabelScope; filter?: ItemFilter; scales?: EvaluatorInfo['scales'] }): LabellingRule {
  const filter = opts.filter ? blindSafeFilter(opts.filter, opts.blind).filter : undefined;
  const ctx = { annotator: opts.annotator, blind: opts.blind, scales: opts.scales ?? new Map(), scope: opts.scope };
  const active = filter && Object.values(filter).some((v) => v !== undefined && v !== false && v !== '');
  return { annotator: opts.annotator, scope: opts.scope, ...(active ? { passes: (item: DialogueItem, c: DialogueItem['candidates'][number]) => candidatePasses(item, c, filter!, ctx) } : {}) };
}

/** What an editor's item list is filtered and sorted by, and the current dimension (the webview's choice). */
export interface ListSettings {
  filter: ItemFilter;
  order: ListOrder;
  /** The current dimension (absent: the rubric's primary). */
  dimension?: string;
}

/**
 * The rubric and current dimension an editor counts "labelled" in: the list's dimension when the rubric has it, else
 * the rubric's primary. The MI preset's coherence answer is core's `COHERENCE_SCOPE` itself (the rule before rubrics,
 * unchanged); undefined without a usable rubric.
 */
export function scopeOf(rubric: Rubric | null, list: Pick<ListSettings, 'dimension'>): LabelScope | undefined {
  if (!rubric) return undefined;
  const dimension = list.dimension && rubric.dimensions.some((d) => d.name === list.dimension) ? list.dimension : rubric.primary;
  return rubric === MI_RUBRIC && dimension === MI_RUBRIC.primary ? COHERENCE_SCOPE : { rubric, dimension };
}

/** Evaluator names and scales of the document (the editor's cache). */
export interface EvaluatorInfo {
  names: ReadonlyMap<string, string>;
  scales: ReadonlyMap<string, ScoreScale | undefined>;
}

/** Whether a scope is the MI preset's coherence answer (or none): "labelled" then reads as it always did. */
export function isCoherenceScope(scope: LabelScope | undefined): boolean {
  return !scope || (scope.rubric === MI_RUBRIC && scope.dimension === MI_RUBRIC.primary);
}

/**
 * The item list's state for the webview, and the file indices it lists (for "next unlabelled"). In blind mode the
 * origin and judge-vs-humans filters are dropped (and reported), and the plan's estimate is hidden. `known`: the
 * origin groups and progress of `items` when the caller already has them (after an edit in place, issue 19 item 3).
 */
export function navigatorState(
  items: readonly DialogueItem[],
  list: ListSettings,
  opts: { annotator: string | null; blind: boolean; info: EvaluatorInfo; plan: (items: readonly DialogueItem[], blind: boolean, names: ReadonlyMap<string, string>) => PlanState; known?: { origins?: string[]; progress?: LabelProgress }; scope?: LabelScope },
): { state: NavigatorState; listed: number[]; planned: ListPlan | undefined } {
  const { filter, dropped } = blindSafeFilter(list.filter, opts.blind);
  const ctx = { annotator: opts.annotator, blind: opts.blind, scales: opts.info.scales, scope: opts.scope };
  const filtered = filterItems(items, filter, ctx);
  const all = items.map((_, i) => i);
  let ordered = all;
  let plan: NavigatorState['plan'] = null;
  let planned: ListPlan | undefined;
  if (list.order === 'plan') {
    const p = opts.plan(items, opts.blind, opts.info.names);
    if (!p) plan = { error: 'No labelling plan for this file yet: run “ReflectEval: Plan Labels…”.' };
    else if ('error' in p) plan = { error: p.error };
    else {
      ordered = p.order;
      planned = p.candidates;
      plan = { text: p.view.text, title: p.view.title };
    }
  }
  const keep = new Set(filtered);
  const listed = filtered.length === items.length ? ordered : ordered.filter((i) => keep.has(i));
  const unchanged = listed.length === items.length && listed.every((v, i) => v === i);
  // Labels to go by the rule for U (the filters and search, the current dimension), over the listed candidates.
  const rule = ruleOf({ annotator: opts.annotator, blind: opts.blind, scope: opts.scope, filter, scales: opts.info.scales });
  // The count does not depend on the order: `isDue` (what nextToLabel counts) over the listed items' candidates,
  // without building the sequence (blind mode's shuffles cost more than the count in a 5,000-item file).
  let toGo: number | null = null;
  if (opts.annotator) {
    toGo = 0;
    for (const i of listed) for (const c of items[i].candidates) if (isDue(items[i], c, rule)) toGo++;
  }
  return {
    state: {
      shown: unchanged ? null : listed,
      filter,
      order: list.order,
      origins: opts.blind ? [] : (opts.known?.origins ?? originGroups(items)),
      blind: opts.blind,
      dropped,
      progress: opts.known?.progress ?? labelProgress(items, opts.annotator, opts.scope),
      plan,
      dimension: opts.scope?.dimension ?? MI_RUBRIC.primary,
      dimensions: (opts.scope?.rubric ?? MI_RUBRIC).dimensions.map((d) => ({ name: d.name, title: dimensionTitle(d) })),
      toGo,
      filtered: !!rule.passes,
      drawn: planned ? planned.filter((x) => x.status === 'drawn').length : null,
    },
    listed,
    planned,
  };
}

/**
 * Marks on the candidates of one item view, by the id the view shows them under: annotators who disagree, (not in
 * blind mode) judges on the other side of their scale's midpoint from the human majority, a candidate that does not
 * match the list's filters and search (`unmatched`: dimmed, `U` skips it), and one the plan has drawn (`drawn`, with
 * its rank among the drawn; plan order only).
 */
export function candidateMarks(item: DialogueItem, view: ItemView, opts: { blind: boolean; annotator: string | null; info: EvaluatorInfo; scope?: LabelScope; filter?: ItemFilter; planned?: ListPlan }): Record<string, CandidateMarks> {
  const out: Record<string, CandidateMarks> = {};
  const rule = ruleOf({ annotator: opts.annotator, blind: opts.blind, scope: opts.scope, filter: opts.filter, scales: opts.info.scales });
  const drawn = (opts.planned ?? []).filter((x) => x.status === 'drawn');
  const drawnAt = new Map(drawn.filter((x) => x.itemId === item.id).map((x) => [x.candidateId, drawn.indexOf(x)]));
  for (const cv of view.candidates) {
    const c = item.candidates.find((x) => x.id === (candidateIdOfView(item, cv.id, opts.annotator ?? '') ?? cv.id));
    if (!c) continue;
    const marks: CandidateMarks = {};
    if (rule.passes && !rule.passes(item, c)) marks.unmatched = 'Does not match the filters or search: next unlabelled skips it';
    const k = drawnAt.get(c.id);
    if (k !== undefined) marks.drawn = `Drawn by the plan: label it (${k + 1} of ${drawn.length} drawn; next unlabelled goes to them in the plan’s order)`;
    const a = describeDisagreement(c, opts.scope);
    if (a) marks.annotatorsDisagree = a;
    if (!opts.blind) {
      const j = judgeHumanDisagreements(c, opts.info.scales);
      if (j.length) marks.judgeHumansDisagree = `Judge and humans disagree (the judge’s score is on the other side of its scale’s midpoint from the human majority):\n${j.map((d) => describeJudgeHumanDisagreement(d, (id) => opts.info.names.get(id) ?? id)).join('\n')}`;
    }
    if (Object.keys(marks).length) out[cv.id] = marks;
  }
  return out;
}

/**
 * Where "next unlabelled" goes from a shown position (issue 41 item 3's rule for `U`: the next candidate, in the
 * list's order, that passes the filters and search and that the annotator has not labelled in the current
 * dimension): the item index and the id the view shows the candidate under (blind ids in blind mode), or a message
 * when every listed candidate is labelled.
 */
export function nextUnlabelledTarget(
  items: readonly DialogueItem[],
  listed: readonly number[],
  from: { index: number; candidateId: string | null },
  opts: { annotator: string; blind: boolean; scope?: LabelScope; filter?: ItemFilter; scales?: EvaluatorInfo['scales']; planned?: ListPlan },
): { index: number; candidateId: string } | { message: string } {
  const start = realPosition(items, from, opts.annotator);
  const rule = ruleOf(opts);
  const { next } = nextToLabel(items, sequenceOf(items, listed, opts), start, rule);
  if (next && next.candidateId) return { index: next.itemIndex, candidateId: shownId(items, next, opts) };
  const elsewhere = listed.length < items.length || rule.passes ? nextToLabel(items, sequenceOf(items, items.map((_, i) => i), { ...opts, planned: undefined }), null, { annotator: opts.annotator, scope: opts.scope }).toGo > 0 : false;
  const what = !isCoherenceScope(opts.scope) && opts.scope ? ` in ${dimensionTitle(opts.scope.rubric.dimensions.find((d) => d.name === opts.scope!.dimension) ?? { name: opts.scope.dimension })}` : '';
  return { message: `You have labelled every candidate of the ${listed.length} listed item${listed.length === 1 ? '' : 's'}${what}${elsewhere ? '; candidates the filter or search hides still have none' : ''}.` };
}

/** A shown position (blind ids in blind mode) as a real one. */
function realPosition(items: readonly DialogueItem[], from: { index: number; candidateId: string | null }, annotator: string): ListPosition {
  const item = items[from.index];
  return { itemIndex: from.index, candidateId: item && from.candidateId ? (candidateIdOfView(item, from.candidateId, annotator) ?? null) : null };
}

/** The id a view shows a real candidate under (its blind id in blind mode). */
function shownId(items: readonly DialogueItem[], p: ListPosition, opts: { annotator: string; blind: boolean }): string {
  return opts.blind ? blindCandidateId(items[p.itemIndex].id, p.candidateId!, opts.annotator) : p.candidateId!;
}

/**
 * F3 / Enter in the search field (Shift: back): the next candidate in the list's current order that passes the
 * filters and search, labelled or not, wrapping around; a message when the filters and search are off or nothing
 * matches.
 */
export function nextMatchTarget(
  items: readonly DialogueItem[],
  listed: readonly number[],
  from: { index: number; candidateId: string | null },
  direction: 1 | -1,
  opts: { annotator: string; blind: boolean; scope?: LabelScope; filter?: ItemFilter; scales?: EvaluatorInfo['scales']; planned?: ListPlan },
): { index: number; candidateId: string } | { message: string } {
  const rule = ruleOf(opts);
  if (!rule.passes) return { message: 'Type a search or set a filter first: F3 goes to the next candidate that matches.' };
  const next = nextInSequence(items, sequenceOf(items, listed, opts), realPosition(items, from, opts.annotator), rule.passes, direction);
  if (!next || !next.candidateId) return { message: 'No candidate matches the filters and search.' };
  return { index: next.itemIndex, candidateId: shownId(items, next, opts) };
}

/**
 * How progress reads in the status bar: `$(checklist) 12/40 labelled` (outside the MI preset's coherence answer,
 * with the dimension: `12/40 fluency`), with every annotator and the viewing annotator's progress per dimension in
 * the tooltip, and (`extra`) lines of the team's progress.
 */
export function progressStatusText(progress: LabelProgress, annotator: string | null, extra: { packet?: { assigned: number } | null; team?: string[]; scope?: LabelScope; toGo?: { count: number | null; filtered: boolean } } = {}): { text: string; tooltip: string } {
  const others = progress.annotators.map((a) => `${a.annotator}${a.annotator === annotator ? ' (you)' : ''}: ${a.labelled}/${progress.candidates}`);
  const coherence = isCoherenceScope(extra.scope);
  const dim = progress.dimensions?.find((d) => d.dimension === progress.dimension);
  const what = coherence ? 'labelled' : (dim?.title ?? progress.dimension ?? 'labelled');
  // With filters or search on, the candidates to go by the rule for U (what the button and U reach), beside the file's count.
  const filteredToGo = annotator && extra.toGo?.filtered && extra.toGo.count !== null ? ` · ${extra.toGo.count} to go (filtered)` : '';
  const text = annotator ? `$(checklist) ${progress.mine}/${progress.candidates} ${what}${extra.packet ? ' (packet)' : ''}${filteredToGo}` : `$(checklist) no annotator set`;
  const head = coherence ? 'Labelled (coherence answered) / candidates in this file' : `Labelled in ${what} / candidates in this file`;
  const perDimension = annotator && progress.dimensions?.length ? ['', `You, per dimension (labelled / asked):`, ...progress.dimensions.map((d) => `  ${d.title}: ${d.labelled}/${d.asked}`)] : [];
  const packet = extra.packet ? ['', `A team packet: ${extra.packet.assigned} candidates assigned to ${annotator ?? 'you'}`] : [];
  const team = extra.team?.length ? ['', ...extra.team] : [];
  const toGo = annotator && extra.toGo && extra.toGo.count !== null ? ['', `To go: ${extra.toGo.count} candidate${extra.toGo.count === 1 ? '' : 's'} you have not labelled${extra.toGo.filtered ? ' that match the filters and search' : ''} in the listed items`] : [];
  const tooltip = [head, ...others, ...perDimension, ...packet, ...team, ...toGo, '', 'Click: next unlabelled candidate'].join('\n');
  return { text, tooltip };
}
