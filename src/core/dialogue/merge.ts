/**
 * Merging results computed on a snapshot of a file back into its current state, so that a long job
 * (generation, judging) never overwrites labels or edits made while it ran.
 */
import type { DialogueItem } from './types';

/**
 * `current` plus the candidates of `computed` that `snapshot` did not have (matched by id); a new candidate
 * whose id is meanwhile taken gets a fresh id. Returns `current` itself when nothing is new.
 */
export function mergeNewCandidates(current: DialogueItem, snapshot: DialogueItem, computed: DialogueItem): DialogueItem {
  const before = new Set(snapshot.candidates.map((c) => c.id));
  const added = computed.candidates.filter((c) => !before.has(c.id));
  if (added.length === 0) return current;
  const next = structuredClone(current);
  const taken = new Set(next.candidates.map((c) => c.id));
  for (const c of added) {
    let id = c.id;
    for (let k = 2; taken.has(id); k++) id = `${c.id}-${k}`;
    taken.add(id);
    next.candidates.push({ ...structuredClone(c), id });
  }
  return next;
}

/**
 * `current` with the scores under `evaluatorId` copied from `computed` (matched by candidate id).
 * Returns `current` itself when there is nothing to copy.
 */
export function mergeScores(current: DialogueItem, computed: DialogueItem, evaluatorId: string): DialogueItem {
  const byId = new Map(computed.candidates.map((c) => [c.id, c.scores[evaluatorId]]));
  if (![...byId.values()].some(Boolean)) return current;
  const next = structuredClone(current);
  let changed = false;
  for (const c of next.candidates) {
    const s = byId.get(c.id);
    if (s && JSON.stringify(c.scores[evaluatorId]) !== JSON.stringify(s)) {
      c.scores = { ...c.scores, [evaluatorId]: s };
      changed = true;
    }
  }
  return changed ? next : current;
}
