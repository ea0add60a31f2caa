/**
 * An estimate plan as the dialogue editor shows it (issue 43 item 4): the items in plan order (next to label first),
 * and per group its estimate, anytime interval and labels to go, recomputed after every label. A pure function of the
 * items and the plan's record ({@link estimatePlanView}), so the editor calls it on every change of the document; a
 * replay continues the last one when the labels it revealed are unchanged (`estimatePlan`), at the cost of the new
 * labels.
 *
 * Blind mode: the estimates and intervals move with each label an annotator makes, and the order and the draw
 * probabilities follow the predictors (laypeople's labels, evaluators' scores), so blind mode shows the order, the
 * counts and the labels to go, never an estimate, an interval or a probability.
 */
import type { DialogueItem } from '../dialogue/types';
import { planItemOrder } from '../design/planOrder';
import type { EstimatePlanRecord } from '../design/planRecord';
import type { GroupRules } from '../labels/groups';
import { estimatePlan, type EstimatePlanState } from './activePlan';

/** One group's line. */
export interface EstimateViewRow {
  key: string;
  /** e.g. `0.412 [0.31, 0.51] · about 12 labels to go` (blind: `about 12 labels to go`). */
  text: string;
  /** The estimate and interval (null in blind mode, and before there is one). */
  estimate: { value: number; lower: number | null; upper: number | null; exact: boolean } | null;
  candidates: number;
  labelled: number;
  labelsToGo: number | null;
  stopped: boolean;
}

/** The plan as the editor shows it. */
export interface EstimateView {
  /** One summary line, e.g. `experts' coherence rate per strategy · about 80 labels to go (± 0.1 in every group)`. */
  text: string;
  /** Longer text for a tooltip: what is estimated, with what, the counts, what the interval means. */
  title: string;
  rows: EstimateViewRow[];
  /** File indices of the items, next to label first (items holding the plan's next candidates), then the rest in file order. */
  itemOrder: number[];
  /** The candidates to label next (drawn first), without probabilities. */
  next: { itemId: string; candidateId: string; status: 'drawn' | 'waiting' | 'provisional' }[];
  labelsToGo: number | null;
  stopped: boolean;
  /** Whether any estimate is shown (false in blind mode). */
  estimateShown: boolean;
}

const fmt = (v: number | null | undefined) => (v === null || v === undefined ? '—' : v.toFixed(3).replace(/^-/, '−'));

/** The view of a plan's state (see the module comment). */
export function estimateView(state: EstimatePlanState, items: readonly Pick<DialogueItem, 'id'>[], options: { blind: boolean; next?: number }): EstimateView {
  const r = state.record;
  const level = `${Math.round(r.level * 1000) / 10} %`;
  const rows: EstimateViewRow[] = state.strata.map((s) => {
    const e = s.estimate;
    const stopped = s.stop !== null;
    const togo = stopped ? (s.stop?.reason === 'exhausted' ? 'every candidate labelled' : 'target reached') : s.labelsToGo === null ? 'labels to go: not known yet' : `about ${s.labelsToGo} labels to go`;
    const shown = !options.blind && e.value !== null;
    const est = shown ? (e.exact ? `${fmt(e.value)} (exact)` : `${fmt(e.value)} [${fmt(e.lower)}, ${fmt(e.upper)}]`) : options.blind ? '' : 'no estimate yet';
    return {
      key: s.key,
      text: [est, togo].filter(Boolean).join(' · '),
      estimate: shown ? { value: e.value as number, lower: e.lower, upper: e.upper, exact: e.exact } : null,
      candidates: s.candidates,
      labelled: s.start + s.planned,
      labelsToGo: stopped ? 0 : s.labelsToGo,
      stopped,
    };
  });
  const what = r.compare ? `${r.compare[0]} − ${r.compare[1]}: ${r.human}' ${state.estimand}` : `${r.human}' ${state.estimand}${r.by ? ` per ${r.by}` : ''}`;
  const goal = `± ${r.halfWidth} in every group`;
  const text = `${what} · ${state.stopped ? 'target reached: you can stop' : state.labelsToGo === null ? 'labels to go: not known yet' : `about ${state.labelsToGo} labels to go`} (${goal})`;
  const c = state.counts;
  const title = [
    `Estimate plan: ${what}, predicted by ${r.predictors.join(', ') || 'nothing (expert-only)'}; ${r.labelsPerCandidate} ${r.human} label${r.labelsPerCandidate === 1 ? '' : 's'} make a candidate labelled.`,
    `Pool: ${c.pool} candidates in ${c.items} items; labelled at the start ${c.start}, planned labels counted ${c.planned}, drawn and waiting ${c.drawn}, partly labelled ${c.partial}.`,
    options.blind ? 'Blind mode: estimates and intervals are hidden; the order is the plan’s.' : `Each group's interval is anytime-valid (${level}): it stays valid when you check it after every label.`,
    'Items are listed next to label first (docs/estimation.md).',
  ].join('\n');
  const index = new Map<string, number>();
  items.forEach((it, i) => {
    if (!index.has(it.id)) index.set(it.id, i);
  });
  const itemOrder: number[] = [];
  const seen = new Set<number>();
  for (const id of planItemOrder(state, items)) {
    const i = index.get(id);
    if (i !== undefined && !seen.has(i)) {
      seen.add(i);
      itemOrder.push(i);
    }
  }
  items.forEach((_, i) => {
    if (!seen.has(i)) itemOrder.push(i);
  });
  const next = state.order
    .filter((o) => !o.labelled)
    .slice(0, options.next ?? 10)
    .map((o) => ({ itemId: o.itemId, candidateId: o.candidateId, status: o.status }));
  return { text, title, rows, itemOrder, next, labelsToGo: state.stopped ? 0 : state.labelsToGo, stopped: state.stopped, estimateShown: !options.blind && rows.some((x) => x.estimate !== null) };
}

/**
 * The editor's entry point: replays the plan of `record` on `items` and returns its view. Call it after every label
 * (a continued replay costs what the new labels cost).
 *
 * @throws Error when the pool changed since the plan started (the editor should offer to start a new plan)
 */
export function estimatePlanView(items: readonly DialogueItem[], record: EstimatePlanRecord, options: { blind: boolean; next?: number; groupRules?: GroupRules }): EstimateView {
  return estimateView(estimatePlan(items, record, { ...(options.groupRules ? { groupRules: options.groupRules } : {}) }), items, options);
}
