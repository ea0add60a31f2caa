/**
 * The dialogue editor's item list navigation, host side (issue 18 item 3; the plan order: issue 16 item 3): turns
 * the webview's filter and order into the list of items it shows, the disagreement marks on a candidate, "next
 * unlabelled", and how the labelling progress reads in the status bar. The rules are core's
 * (src/core/navigation/itemNavigation.ts, src/core/planning/planView.ts); this module only applies them to a
 * document's items. No `vscode` import: the editor controller (editor/controller.ts) uses it, under unit test.
 */
import { annotatorDisagreement, blindSafeFilter, describeJudgeHumanDisagreement, filterItems, judgeHumanDisagreements, labelProgress, nextUnlabelled, originGroups, type ItemFilter, type LabelProgress, type ListPosition } from '../core/navigation/itemNavigation';
import type { ScoreScale } from '../core/navigation/scoreSummary';
import type { DialogueItem } from '../core/dialogue/types';
import { blindCandidateId, blindOrder, candidateIdOfView, type ItemView } from '../core/labels/annotatorView';
import type { CandidateMarks, ListOrder, NavigatorState } from '../../webview/editor/protocol';

/** The labelling plan's order and state line for an item list (labelPlan.ts `editorPlanState`): null when there is no plan. */
export type PlanState = { order: number[]; view: { text: string; title: string } } | { error: string } | null;

/** What an editor's item list is filtered and sorted by (the webview's choice). */
export interface ListSettings {
  filter: ItemFilter;
  order: ListOrder;
}

/** Evaluator names and scales of the document (the editor's cache). */
export interface EvaluatorInfo {
  names: ReadonlyMap<string, string>;
  scales: ReadonlyMap<string, ScoreScale | undefined>;
}

/**
 * The item list's state for the webview, and the file indices it lists (for "next unlabelled"). In blind mode the
 * origin and judge-vs-humans filters are dropped (and reported), and the plan's estimate is hidden. `known`: the
 * origin groups and progress of `items` when the caller already has them (after an edit in place, issue 19 item 3).
 */
export function navigatorState(
  items: readonly DialogueItem[],
  list: ListSettings,
  opts: { annotator: string | null; blind: boolean; info: EvaluatorInfo; plan: (items: readonly DialogueItem[], blind: boolean, names: ReadonlyMap<string, string>) => PlanState; known?: { origins?: string[]; progress?: LabelProgress } },
): { state: NavigatorState; listed: number[] } {
  const { filter, dropped } = blindSafeFilter(list.filter, opts.blind);
  const ctx = { annotator: opts.annotator, blind: opts.blind, scales: opts.info.scales };
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
      progress: opts.known?.progress ?? labelProgress(items, opts.annotator),
      plan,
    },
    listed,
  };
}

/**
 * Disagreement marks on the candidates of one item view, by the id the view shows them under: annotators who
 * disagree, and (not in blind mode) judges on the other side of their scale's midpoint from the human majority.
 */
export function candidateMarks(item: DialogueItem, view: ItemView, opts: { blind: boolean; annotator: string | null; info: EvaluatorInfo }): Record<string, CandidateMarks> {
  const out: Record<string, CandidateMarks> = {};
  for (const cv of view.candidates) {
    const c = item.candidates.find((x) => x.id === (candidateIdOfView(item, cv.id, opts.annotator ?? '') ?? cv.id));
    if (!c) continue;
    const marks: CandidateMarks = {};
    const a = annotatorDisagreement(c);
    if (a) marks.annotatorsDisagree = `Annotators disagree: coherent ${a.coherent.join(', ')} · incoherent ${a.incoherent.join(', ')}`;
    if (!opts.blind) {
      const j = judgeHumanDisagreements(c, opts.info.scales);
      if (j.length) marks.judgeHumansDisagree = `Judge and humans disagree (the judge’s score is on the other side of its scale’s midpoint from the human majority):\n${j.map((d) => describeJudgeHumanDisagreement(d, (id) => opts.info.names.get(id) ?? id)).join('\n')}`;
    }
    if (marks.annotatorsDisagree || marks.judgeHumansDisagree) out[cv.id] = marks;
  }
  return out;
}

/**
 * Where "next unlabelled" goes from a shown position: the item index and the id the view shows the candidate
 * under (blind ids in blind mode), or a message when every listed candidate is labelled.
 */
export function nextUnlabelledTarget(items: readonly DialogueItem[], listed: readonly number[], from: { index: number; candidateId: string | null }, opts: { annotator: string; blind: boolean }): { index: number; candidateId: string } | { message: string } {
  const item = items[from.index];
  const real = item && from.candidateId ? (candidateIdOfView(item, from.candidateId, opts.annotator) ?? null) : null;
  const start: ListPosition = { itemIndex: from.index, candidateId: real };
  const order = opts.blind ? (it: DialogueItem) => blindOrder(it.id, it.candidates.map((c) => c.id), opts.annotator) : undefined;
  const next = nextUnlabelled(items, listed, start, opts.annotator, order);
  if (next && next.candidateId) {
    const shown = opts.blind ? blindCandidateId(items[next.itemIndex].id, next.candidateId, opts.annotator) : next.candidateId;
    return { index: next.itemIndex, candidateId: shown };
  }
  const elsewhere = listed.length < items.length ? nextUnlabelled(items, items.map((_, i) => i), null, opts.annotator) : null;
  return { message: `You have labelled every candidate of the ${listed.length} listed item${listed.length === 1 ? '' : 's'}${elsewhere ? '; items the filter hides still have unlabelled candidates' : ''}.` };
}

/** How progress reads in the status bar: `$(checklist) 12/40 labelled`, with every annotator in the tooltip. */
export function progressStatusText(progress: LabelProgress, annotator: string | null): { text: string; tooltip: string } {
  const others = progress.annotators.map((a) => `${a.annotator}${a.annotator === annotator ? ' (you)' : ''}: ${a.labelled}/${progress.candidates}`);
  const text = annotator ? `$(checklist) ${progress.mine}/${progress.candidates} labelled` : `$(checklist) no annotator set`;
  const tooltip = [`Labelled (coherence answered) / candidates in this file`, ...others, '', 'Click: next unlabelled candidate'].join('\n');
  return { text, tooltip };
}
