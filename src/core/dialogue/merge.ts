/**
 * Merging results computed on a snapshot of a file back into its current state, so that a long job
 * (generation, judging) never overwrites labels or edits made while it ran.
 */
import type { DialogueItem } from './types';

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
