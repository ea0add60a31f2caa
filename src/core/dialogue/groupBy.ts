/**
 * Grouping items' candidates by any item or candidate field (`reflect-eval agreement --by <field>`): the papers
 * report agreement per annotation stage (ACL 2023: GPT-2 stage, GPT-3 stage), never pooled over stages.
 */
import { candidateOrigins, type Candidate, type DialogueItem } from './types';

/** Short names for item fields: `stage` (imported annotation tables), `transcript`, `dataset`. */
export const ITEM_FIELD_ALIASES: Readonly<Record<string, string>> = {
  stage: 'provenance.stage',
  transcript: 'provenance.transcriptId',
  dataset: 'provenance.dataset',
  item: 'id',
};

/** Group keys accepted by {@link candidateGroups}, besides any dotted candidate field path. */
export const GROUP_KEYS = ['origin', 'model', 'strategy', 'source', 'kind', 'none'] as const;

/** The value at a dotted path of an object (`a.b.c`), or undefined. */
export function pathValue(obj: unknown, path: readonly string[]): unknown {
  let v: unknown = obj;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<string, unknown>)[p];
  }
  return v;
}

/** A field's value as a group key: `null` for a missing or empty value, JSON for an object. */
export function groupLabel(v: unknown): string | null {
  if (v === undefined || v === null || v === '') return null;
  return typeof v === 'object' ? JSON.stringify(v) : String(v);
}

/**
 * The groups (column keys) a candidate belongs to under `groupBy`:
 * - `origin` (default): the origin's `source` label, else its `model`, else its `kind` — e.g. `GPT-2` in an
 *   imported annotation table, `bundled:reflect-gpt2-tiny` for generated candidates, `human` for the reference;
 * - `model`: `origin.model`; `strategy`: `origin.decoding.strategy`; `source`: `origin.source`; `kind`: `origin.kind`;
 * - `none`: no groups (only the `all` column);
 * - any other string is a dotted path into the candidate, e.g. `origin.decoding.topP`, `cluster.representative`.
 *
 * Paths into the origin (`origin`, `model`, `strategy`, `source`, `kind`, `origin.…`) are read on every origin of
 * the candidate ({@link candidateOrigins}), so an exact duplicate produced by two models counts in both groups.
 * A candidate with no value is in the group `(none)`. The table shows a group as a column only when at least one
 * of its responses has a coherence label from anyone (so the gold references, never labelled, get no column).
 */
export function candidateGroups(candidate: Candidate, groupBy: string): string[] {
  if (groupBy === 'none') return [];
  const alias: Record<string, string> = { model: 'origin.model', strategy: 'origin.decoding.strategy', decoding: 'origin.decoding.strategy', source: 'origin.source', kind: 'origin.kind' };
  const path = alias[groupBy] ?? groupBy;
  const values = new Set<string>();
  if (path === 'origin' || path.startsWith('origin.')) {
    for (const o of candidateOrigins(candidate)) {
      const v = path === 'origin' ? groupLabel(o.source) ?? groupLabel(o.model) ?? groupLabel(o.kind) : groupLabel(pathValue(o, path.split('.').slice(1)));
      values.add(v ?? '(none)');
    }
  } else {
    values.add(groupLabel(pathValue(candidate, path.split('.'))) ?? '(none)');
  }
  return [...values];
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
  if (itemPath !== undefined) return [groupLabel(pathValue(item, itemPath.split('.'))) ?? '(none)'];
  const fromCandidate = candidateGroups(candidate, by);
  if (fromCandidate.some((g) => g !== '(none)')) return fromCandidate;
  const path = by.split('.');
  return [groupLabel(pathValue(item, path)) ?? groupLabel(pathValue(item.provenance, path)) ?? '(none)'];
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
