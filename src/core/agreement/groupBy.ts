/**
 * Grouping items' candidates by any item or candidate field (`reflect-eval agreement --by <field>`): the papers
 * report agreement per annotation stage (ACL 2023: GPT-2 stage, GPT-3 stage), never pooled over stages.
 */
import { candidateGroups } from '../analysis/correlationTable';
import type { Candidate, DialogueItem } from '../dialogue/types';

/** Short names for item fields: `stage` (imported annotation tables), `transcript`, `dataset`. */
export const ITEM_FIELD_ALIASES: Readonly<Record<string, string>> = {
  stage: 'provenance.stage',
  transcript: 'provenance.transcriptId',
  dataset: 'provenance.dataset',
  item: 'id',
};

function pathValue(obj: unknown, path: readonly string[]): unknown {
  let v: unknown = obj;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

function label(v: unknown): string | null {
  if (v === undefined || v === null || v === '') return null;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/**
 * The group keys of a candidate of an item under `by`:
 * - `item.<path>`: a dotted path into the item (`item.provenance.stage`);
 * - an alias of {@link ITEM_FIELD_ALIASES} (`stage` → `item.provenance.stage`);
 * - otherwise the candidate's groups as the correlation table reads them (`origin`, `model`, `strategy`,
 *   `source`, `kind`, or a dotted candidate path; see `candidateGroups`), and when the candidate has no such field,
 *   the same path in the item, then in the item's provenance.
 * A candidate with no value is in the group `(none)`.
 */
export function unitGroups(item: DialogueItem, candidate: Candidate, by: string): string[] {
  const alias = ITEM_FIELD_ALIASES[by];
  const itemPath = by.startsWith('item.') ? by.slice('item.'.length) : alias;
  if (itemPath !== undefined) return [label(pathValue(item, itemPath.split('.'))) ?? '(none)'];
  const fromCandidate = candidateGroups(candidate, by);
  if (fromCandidate.some((g) => g !== '(none)')) return fromCandidate;
  const path = by.split('.');
  return [label(pathValue(item, path)) ?? label(pathValue(item.provenance, path)) ?? '(none)'];
}

/** One group: its key and the items restricted to its candidates (items left without candidates are dropped). */
export interface ItemGroup {
  key: string;
  items: DialogueItem[];
  candidates: number;
}

/**
 * The items split by `by` (see {@link unitGroups}), groups in order of first appearance. A candidate in several
 * groups (an exact duplicate produced by two models) is in each. Items are shallow copies with a filtered
 * `candidates` array; nothing is modified.
 */
export function itemsBy(items: readonly DialogueItem[], by: string): ItemGroup[] {
  const groups = new Map<string, Map<DialogueItem, Candidate[]>>();
  for (const item of items) {
    for (const c of item.candidates) {
      for (const g of unitGroups(item, c, by)) {
        let m = groups.get(g);
        if (!m) groups.set(g, (m = new Map()));
        let l = m.get(item);
        if (!l) m.set(item, (l = []));
        l.push(c);
      }
    }
  }
  return [...groups].map(([key, m]) => {
    const its = [...m].map(([item, candidates]) => ({ ...item, candidates }));
    return { key, items: its, candidates: its.reduce((s, i) => s + i.candidates.length, 0) };
  });
}
