import type { Annotation, Candidate, DialogueItem } from '../model/types';

/**
 * Returns a copy of `item` in which `annotator`'s coherence label on candidate `candidateId` is `coherent`
 * (`undefined` removes that label). Other annotators' labels, other fields of the annotation and every
 * unknown field are kept. The input is not modified.
 *
 * @throws Error if the candidate does not exist or `annotator` is empty.
 */
export function setCoherence(
  item: DialogueItem,
  candidateId: string,
  annotator: string,
  coherent: boolean | undefined,
  now: Date = new Date(),
): DialogueItem {
  if (!annotator.trim()) throw new Error('an annotator id is required to label a candidate');
  const next: DialogueItem = structuredClone(item);
  const candidate = next.candidates.find((c) => c.id === candidateId);
  if (!candidate) throw new Error(`item "${item.id}" has no candidate "${candidateId}"`);
  let ann = candidate.annotations.find((a) => a.annotator === annotator);
  if (!ann) {
    ann = { annotator };
    candidate.annotations.push(ann);
  }
  if (coherent === undefined) delete ann.coherent;
  else ann.coherent = coherent;
  ann.updatedAt = now.toISOString();
  return next;
}

/** The annotation of `annotator` on a candidate, if any. */
export function annotationOf(candidate: Candidate, annotator: string): Annotation | undefined {
  return candidate.annotations.find((a) => a.annotator === annotator);
}

/**
 * Coherence score of a candidate (ICMI 2023 §2.1): the number of annotators who said it is coherent.
 * Returns `null` when no annotator has given a coherence label, so unlabelled candidates are left out of
 * correlations rather than counted as 0.
 *
 * @param include - restrict to these annotations (e.g. the experts': `inGroup('experts')` from `./groups`); all when omitted
 */
export function coherenceScore(candidate: Candidate, include?: (a: Annotation) => boolean): number | null {
  const labelled = candidate.annotations.filter((a) => typeof a.coherent === 'boolean' && (!include || include(a)));
  if (labelled.length === 0) return null;
  return labelled.filter((a) => a.coherent).length;
}
