/**
 * The dialogue editor's item list navigation, host side (issue 18 item 3; the plan order: issue 16 item 3): turns
 * the webview's filter and order into the list of items it shows, the disagreement marks on a candidate, "next
 * unlabelled", and how the labelling progress reads in the status bar. The rules are core's
 * (src/core/navigation/itemNavigation.ts, src/core/planning/planView.ts); this module only applies them to a
 * document's items. No `vscode` import: the editor controller (editor/controller.ts) uses it, under unit test.
 */
import { COHERENCE_SCOPE, blindSafeFilter, candidatePasses, describeDisagreement, describeJudgeHumanDisagreement, filterItems, judgeHumanDisagreements, labelProgress, nextUnlabelled, originGroups, type ItemFilter, type LabelProgress, type LabelScope, type ListPosition } from '../core/navigation/itemNavigation';
import { MI_RUBRIC } from '../core/rubric/presets';
import { dimensionTitle, type Rubric } from '../core/rubric/rubric';
import type { ScoreScale } from '../core/navigation/scoreSummary';
import type { DialogueItem } from '../core/dialogue/types';
import { blindCandidateId, blindOrder, candidateIdOfView, type ItemView } from '../core/labels/annotatorView';
import type { CandidateMarks, ListOrder, NavigatorState } from '../../webview/editor/protocol';

/** The labelling plan's order and state line for an item list (labelPlan.ts `editorPlanState`): null when there is no plan. */
export type PlanState = { order: number[]; view: { text: string; title: string } } | { error: string } | null;

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
): { state: NavigatorState; listed: number[] } {
  const { filter, dropped } = blindSafeFilter(list.filter, opts.blind);
  const ctx = { annotator: opts.annotator, blind: opts.blind, scales: opts.info.scales, scope: opts.scope };
  const filtered = filterItems(items, filter, ctx);
  const all = items.map((_, i) => i);
  let ordered = all;
  let plan: NavigatorState['plan'] = null;
  if (list.order === 'plan') {
    const p = opts.plan(items, opts.blind, opts.info.names);
    if (!p) plan = { error: 'No labelling plan for this file yet: run “ReflectEval: Plan Labels…”.' };
    else if ('error' in p) plan = { error: p.error };
    else {
      ordered = p.order;
      plan = { text: p.view.text, title: p.view.title };
    }
  }
  const keep = new Set(filtered);
  const listed = filtered.length === items.length ? ordered : ordered.filter((i) => keep.has(i));
  const unchanged = listed.length === items.length && listed.every((v, i) => v === i);
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
    },
    listed,
  };
}

/**
 * Disagreement marks on the candidates of one item view, by the id the view shows them under: annotators who
 * disagree, and (not in blind mode) judges on the other side of their scale's midpoint from the human majority.
 */
export function candidateMarks(item: DialogueItem, view: ItemView, opts: { blind: boolean; annotator: string | null; info: EvaluatorInfo; scope?: LabelScope }): Record<string, CandidateMarks> {
  const out: Record<string, CandidateMarks> = {};
  for (const cv of view.candidates) {
    const c = item.candidates.find((x) => x.id === (candidateIdOfView(item, cv.id, opts.annotator ?? '') ?? cv.id));
    if (!c) continue;
    const marks: CandidateMarks = {};
    const a = describeDisagreement(c, opts.scope);
    if (a) marks.annotatorsDisagree = a;
    if (!opts.blind) {
      const j = judgeHumanDisagreements(c, opts.info.scales);
      if (j.length) marks.judgeHumansDisagree = `Judge and humans disagree (the judge’s score is on the other side of its scale’s midpoint from the human majority):\n${j.map((d) => describeJudgeHumanDisagreement(d, (id) => opts.info.names.get(id) ?? id)).join('\n')}`;
    }
    if (marks.annotatorsDisagree || marks.judgeHumansDisagree) out[cv.id] = marks;
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
  opts: { annotator: string; blind: boolean; scope?: LabelScope; filter?: ItemFilter; scales?: EvaluatorInfo['scales'] },
): { index: number; candidateId: string } | { message: string } {
  const item = items[from.index];
  const real = item && from.candidateId ? (candidateIdOfView(item, from.candidateId, opts.annotator) ?? null) : null;
  const start: ListPosition = { itemIndex: from.index, candidateId: real };
  const order = opts.blind ? (it: DialogueItem) => blindOrder(it.id, it.candidates.map((c) => c.id), opts.annotator) : undefined;
  const filter = opts.filter ? blindSafeFilter(opts.filter, opts.blind).filter : undefined;
  const ctx = { annotator: opts.annotator, blind: opts.blind, scales: opts.scales ?? new Map(), scope: opts.scope };
  const passes = filter ? (item: DialogueItem, c: DialogueItem['candidates'][number]) => candidatePasses(item, c, filter, ctx) : undefined;
  const next = nextUnlabelled(items, listed, start, opts.annotator, order, { scope: opts.scope, passes });
  if (next && next.candidateId) {
    const shown = opts.blind ? blindCandidateId(items[next.itemIndex].id, next.candidateId, opts.annotator) : next.candidateId;
    return { index: next.itemIndex, candidateId: shown };
  }
  const elsewhere = listed.length < items.length || passes ? nextUnlabelled(items, items.map((_, i) => i), null, opts.annotator, undefined, { scope: opts.scope }) : null;
  const what = !isCoherenceScope(opts.scope) && opts.scope ? ` in ${dimensionTitle(opts.scope.rubric.dimensions.find((d) => d.name === opts.scope!.dimension) ?? { name: opts.scope.dimension })}` : '';
  return { message: `You have labelled every candidate of the ${listed.length} listed item${listed.length === 1 ? '' : 's'}${what}${elsewhere ? '; candidates the filter or search hides still have none' : ''}.` };
}

/**
 * How progress reads in the status bar: `$(checklist) 12/40 labelled` (outside the MI preset's coherence answer,
 * with the dimension: `12/40 fluency`), with every annotator and the viewing annotator's progress per dimension in
 * the tooltip, and (`extra`) lines of the team's progress.
 */
export function progressStatusText(progress: LabelProgress, annotator: string | null, extra: { packet?: { assigned: number } | null; team?: string[]; scope?: LabelScope } = {}): { text: string; tooltip: string } {
  const others = progress.annotators.map((a) => `${a.annotator}${a.annotator === annotator ? ' (you)' : ''}: ${a.labelled}/${progress.candidates}`);
  const coherence = isCoherenceScope(extra.scope);
  const dim = progress.dimensions?.find((d) => d.dimension === progress.dimension);
  const what = coherence ? 'labelled' : (dim?.title ?? progress.dimension ?? 'labelled');
  const text = annotator ? `$(checklist) ${progress.mine}/${progress.candidates} ${what}${extra.packet ? ' (packet)' : ''}` : `$(checklist) no annotator set`;
  const head = coherence ? 'Labelled (coherence answered) / candidates in this file' : `Labelled in ${what} / candidates in this file`;
  const perDimension = annotator && progress.dimensions?.length ? ['', `You, per dimension (labelled / asked):`, ...progress.dimensions.map((d) => `  ${d.title}: ${d.labelled}/${d.asked}`)] : [];
  const packet = extra.packet ? ['', `A team packet: ${extra.packet.assigned} candidates assigned to ${annotator ?? 'you'}`] : [];
  const team = extra.team?.length ? ['', ...extra.team] : [];
  const tooltip = [head, ...others, ...perDimension, ...packet, ...team, '', 'Click: next unlabelled candidate'].join('\n');
  return { text, tooltip };
}
