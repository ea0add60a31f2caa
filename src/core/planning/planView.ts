/**
 * The labelling plan as an item list shows it (issue 16 item 3): the items in plan order (next to label first) and
 * a short state line — estimate, interval, labels to go — that blind mode cuts down to what reveals no score.
 */
import type { DialogueItem } from '../dialogue/types';
import { siblingFile } from '../dialogue/siblingFile';
import { planItemOrder, type LabelPlan } from './planner';

/** Where a plan's record is kept beside a dialogue file: `<file without .dialogues.jsonl or .jsonl>.label-plan.json` (the CLI's default too, so both follow one plan). */
export function labelPlanRecordPath(file: string): string {
  return siblingFile(file, '.label-plan.json');
}

/**
 * File indices of `items` in plan order ({@link planItemOrder}: items holding candidates that still need labels, by
 * their earliest candidate in the plan's order, then the rest in file order).
 */
export function planListOrder(plan: Pick<LabelPlan, 'order'>, items: readonly Pick<DialogueItem, 'id'>[]): number[] {
  const index = new Map<string, number>();
  items.forEach((it, i) => {
    if (!index.has(it.id)) index.set(it.id, i);
  });
  const out: number[] = [];
  const seen = new Set<number>();
  for (const id of planItemOrder(plan, items)) {
    const i = index.get(id);
    if (i === undefined || seen.has(i)) continue;
    seen.add(i);
    out.push(i);
  }
  // Items sharing an id (a problem the Problems panel reports) keep their place after the first.
  items.forEach((_, i) => {
    if (!seen.has(i)) out.push(i);
  });
  return out;
}

/** A plan's state as the item list shows it. */
export interface PlanStateView {
  /** One line, e.g. `rho 0.412, 95 % interval [0.21, 0.58] · about 34 labels to go (target half-width 0.1)`. */
  text: string;
  /** Longer text for a tooltip: what is estimated, with whose labels, the counts. */
  title: string;
  /** Whether the estimate (and interval) is in `text` (false in blind mode and before there is one). */
  estimateShown: boolean;
  /** Labels to go (null: not predictable yet). */
  labelsToGo: number | null;
  stopped: boolean;
}

const fmt = (v: number | null | undefined, digits = 3) => (v === null || v === undefined ? '—' : v.toFixed(digits).replace(/^-/, '−'));

/**
 * The state line of a plan. Blind mode (`blind`) leaves out the estimate, its interval and the winner of a decision:
 * they are computed from evaluators' scores, and the running estimate moves with each label an annotator makes, so
 * watching it would tell how an evaluator scored the candidate just labelled (docs/labelling-plan.md). Counts and
 * labels to go stay.
 *
 * @param name - readable evaluator names (the legend's), by id
 */
export function planStateView(plan: LabelPlan, options: { blind: boolean; name?: (id: string) => string }): PlanStateView {
  const r = plan.record;
  const name = options.name ?? ((id: string) => id);
  const what = r.against ? `rho(${name(r.evaluator)}) − rho(${name(r.against)})` : `Spearman's rho of ${name(r.evaluator)}`;
  const goal = 'halfWidth' in plan.target ? `target half-width ${plan.target.halfWidth}` : 'target: decide A vs B';
  const e = plan.estimate;
  const level = `${Math.round(r.level * 1000) / 10} %`;
  const parts: string[] = [];
  let estimateShown = false;
  if (options.blind) parts.push('estimate hidden in blind mode');
  else if (e.exact) {
    parts.push(`${r.against ? 'difference' : 'rho'} ${fmt(e.value)} (exact)`);
    estimateShown = true;
  } else if (e.value === null) parts.push('no estimate yet');
  else {
    parts.push(`${r.against ? 'difference' : 'rho'} ${fmt(e.value)}, ${level} interval [${fmt(e.lower)}, ${fmt(e.upper)}]`);
    estimateShown = true;
  }
  const s = plan.stop;
  if (s) {
    const winner = s.winner === 'a' ? name(r.evaluator) : s.winner === 'b' ? name(r.against ?? '') : null;
    parts.push(s.reason === 'half-width' ? 'target reached: you can stop' : s.reason === 'decided' ? `decided${winner && !options.blind ? `: ${winner} agrees better` : ''}: you can stop` : 'every candidate labelled');
  } else parts.push(plan.labelsToGo === null ? 'labels to go: not known yet' : `about ${plan.labelsToGo} labels to go`);
  const c = plan.counts;
  const title = [
    `Labelling plan: ${what} with the ${r.human}' coherence score (${r.labelsPerCandidate} label${r.labelsPerCandidate === 1 ? '' : 's'} make a candidate labelled), ${goal}.`,
    `Pool: ${c.pool} candidates in ${c.items} items; labelled at the start ${c.start}, planned labels counted ${c.planned}, drawn and waiting for labels ${c.drawn}, partly labelled ${c.partial}.`,
    options.blind ? 'Blind mode: the estimate and its interval are hidden; the order is the plan’s.' : `The interval is anytime-valid (${level}); it stays valid when you check it after every label.`,
    'Items are listed next to label first (docs/labelling-plan.md).',
  ].join('\n');
  return { text: `${parts.join(' · ')} (${goal})`, title, estimateShown, labelsToGo: s ? 0 : plan.labelsToGo, stopped: !!s };
}
