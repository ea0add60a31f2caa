/**
 * Adding generated responses to an item: an exact duplicate of a response already in the item (same text,
 * character for character) is kept once, with every origin that produced it listed in `duplicateOrigins`
 * (the first study removes duplicates before annotation, §4.1.1; it also removes responses differing in casing
 * or punctuation only, which ReflectEval leaves to semantic clustering).
 */
import { isDeepStrictEqual } from 'node:util';
import { candidateOrigins, type Candidate, type CandidateOrigin, type DialogueItem } from '../dialogue/types';

/** A generated response and how it was made. */
export interface GeneratedCandidate {
  text: string;
  origin: CandidateOrigin;
}

/**
 * True when two origins describe the same generation: everything equal except `createdAt` and the beam score
 * (an output, whose last bits may differ between machines; the beam rank is compared).
 */
export function sameOrigin(a: CandidateOrigin, b: CandidateOrigin): boolean {
  const strip = ({ createdAt: _t, ...rest }: CandidateOrigin) => {
    if (rest.decoding && 'beamScore' in rest.decoding) {
      const { beamScore: _s, ...decoding } = rest.decoding;
      return { ...rest, decoding };
    }
    return rest;
  };
  return isDeepStrictEqual(strip(a), strip(b));
}

/** What {@link addGeneratedCandidates} did. */
export interface AddResult {
  item: DialogueItem;
  /** New candidates. */
  added: number;
  /** Responses equal to a candidate's text, recorded as further origins of that candidate. */
  duplicates: number;
  /** Responses whose text and origin were already in the item (e.g. a re-run with the same seed): nothing to do. */
  unchanged: number;
}

function freshId(taken: Set<string>, prefix: string): string {
  let n = 1;
  while (taken.has(`${prefix}${n}`)) n++;
  const id = `${prefix}${n}`;
  taken.add(id);
  return id;
}

/**
 * Adds generated responses to a copy of `item` (the input is untouched; `item` itself is returned when nothing
 * changes). For each response, in order: if a candidate has exactly this text, the origin is appended to that
 * candidate's `duplicateOrigins` unless the same origin (ignoring `createdAt`) is already listed; otherwise a new
 * candidate `<idPrefix><n>` is added with no labels or scores.
 */
export function addGeneratedCandidates(item: DialogueItem, generated: readonly GeneratedCandidate[], idPrefix = 'g'): AddResult {
  let next: DialogueItem | undefined;
  const result = { added: 0, duplicates: 0, unchanged: 0 };
  const byText = new Map<string, Candidate>();
  for (const c of item.candidates) if (!byText.has(c.text)) byText.set(c.text, c);
  const taken = new Set(item.candidates.map((c) => c.id));
  for (const g of generated) {
    const existing = byText.get(g.text);
    if (existing && candidateOrigins(existing).some((o) => sameOrigin(o, g.origin))) {
      result.unchanged++;
      continue;
    }
    next ??= structuredClone(item);
    if (existing) {
      const target = next.candidates.find((c) => c.id === existing.id) as Candidate;
      target.duplicateOrigins = [...(target.duplicateOrigins ?? []), structuredClone(g.origin)];
      byText.set(g.text, target);
      result.duplicates++;
    } else {
      const candidate: Candidate = { id: freshId(taken, idPrefix), text: g.text, origin: structuredClone(g.origin), annotations: [], scores: {} };
      next.candidates.push(candidate);
      byText.set(g.text, candidate);
      result.added++;
    }
  }
  return { item: next ?? item, ...result };
}
