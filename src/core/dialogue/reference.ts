/**
 * Which candidate is the item's own reference: the rule every metric and every analysis follows, so the reference is
 * never scored against itself (docs/metrics.md).
 */
import type { Candidate, DialogueItem } from './types';

/**
 * True when `candidate` is the item's reference itself: a human-written candidate (first origin of kind
 * `human`) whose text is the item's reference text (ignoring surrounding whitespace), as when an annotation table
 * is imported with `--reference` and the annotated human response is also the reference. Reference-based metrics
 * do not score such a candidate: it would be the reference scored against itself (BLEU 1, METEOR ≈ 1), a value
 * that says nothing about the candidate and that would dominate any correlation. A model output that happens to
 * equal the reference is scored as usual.
 */
export function isReferenceCandidate(item: Pick<DialogueItem, 'reference'>, candidate: Pick<Candidate, 'origin' | 'text'>): boolean {
  const ref = item.reference?.text;
  return typeof ref === 'string' && candidate.origin?.kind === 'human' && candidate.text.trim() === ref.trim();
}

/** `Score.reason` of a candidate a reference-based metric left out because it is the reference. */
export const IS_REFERENCE_REASON = 'is-reference';
