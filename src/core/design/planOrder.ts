/**
 * A plan's order of candidates as both planners give it (the Spearman planner's and the estimate planner's): drawn
 * candidates first (label these), then the provisional order of the rest; and the item ids in that order, for an
 * item list (the dialogue editor's "plan" order).
 */
import type { DialogueItem } from '../dialogue/types';

/** Where a candidate stands in the plan. */
export type PlanEntryStatus =
  /** Drawn by the design and not yet labelled by the whole group: label it now. */
  | 'drawn'
  /** Drawn and fully labelled, but counted only once the earlier drawn candidates are (labels enter in draw order). */
  | 'waiting'
  /** Not drawn yet: where the design would put it if the labels come in as the model expects (may change). */
  | 'provisional';

/** One unlabelled (or drawn, waiting) candidate in the plan's order. */
export interface PlanEntry {
  itemId: string;
  candidateId: string;
  status: PlanEntryStatus;
  /** Group labels it has (out of labelsPerCandidate). */
  groupLabels: number;
  /** Fully labelled already (outside the plan, or waiting): needs no more labels. */
  labelled: boolean;
  /** For drawn candidates: the probability it was drawn with. */
  probability?: number;
}

/**
 * Item ids in plan order, for an item list: first the items holding candidates to label (by their earliest
 * candidate in the plan's `order` that still needs labels), then the other items in their file order.
 * Carries no score or origin (blind mode can show it as is; see docs/labelling-plan.md on what the order implies).
 */
export function planItemOrder(plan: { order: readonly PlanEntry[] }, items: readonly Pick<DialogueItem, 'id'>[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const o of plan.order) {
    if (o.labelled || seen.has(o.itemId)) continue;
    seen.add(o.itemId);
    out.push(o.itemId);
  }
  for (const it of items) if (!seen.has(it.id)) out.push(it.id);
  return out;
}
