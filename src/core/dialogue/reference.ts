/**
 * Which candidate is the item's own reference: the rule every metric and every analysis follows, so the reference is
 * never scored against itself (docs/metrics.md).
 */
import type { Candidate, DialogueItem } from './types';

/**
 * True when `candidate`'s text is the item's reference text (ignoring surrounding whitespace), whoever wrote it: the
 * human response of an annotation table imported with `--reference`, or a model output that repeats the reference.
 * A reference-based evaluator's score of such a candidate is the reference scored against itself (BLEU 1, METEOR
 * ≈ 1): it says nothing about the candidate and would dominate any correlation. So metrics do not score it, and
 * every analysis — the correlation table, the ceiling, the alt-test, the majority label, length bias — leaves such a
 * score out the same way (issue 39 item 6).
 */
export function isReferenceCandidate(item: Pick<DialogueItem, 'reference'>, candidate: Pick<Candidate, 'text'>): boolean {
  const ref = item.reference?.text;
  return typeof ref === 'string' && candidate.text.trim() === ref.trim();
}

/** `Score.reason` of a candidate a reference-based metric left out because it is the reference. */
export const IS_REFERENCE_REASON = 'is-reference';
