/**
 * Made-up labelled dialogue items for tests of the prompt search and its report (not real data): `contexts` items of
 * `candidates` candidates each, candidate j of item i labelled coherent by `yes(i, j)` of 3 experts (`Expert 1–3`).
 */
import type { Annotation, DialogueItem, Turn } from '../../src/core/dialogue/types';

export interface LabelledItemsOptions {
  contexts: number;
  candidates: number;
  /** How many of the 3 experts say candidate j of item i is coherent (0–3). */
  yes: (i: number, j: number) => number;
  /** The turns of item i (default: the therapist asks how week i was, the client says it was hard). */
  context?: (i: number) => Turn[];
  /** The text of candidate j of item i (default `resp-i-j`). */
  text?: (i: number, j: number, yes: number) => string;
}

export function labelledItems(o: LabelledItemsOptions): DialogueItem[] {
  const context = o.context ?? ((i: number): Turn[] => [
    { speaker: 'therapist', text: `How was week ${i}?` },
    { speaker: 'client', text: `Week ${i} was hard.` },
  ]);
  const text = o.text ?? ((i: number, j: number) => `resp-${i}-${j}`);
  return Array.from({ length: o.contexts }, (_, i) => ({
    id: `item${i}`,
    context: context(i),
    candidates: Array.from({ length: o.candidates }, (_, j) => {
      const yes = o.yes(i, j);
      const annotations: Annotation[] = [1, 2, 3].map((e) => ({ annotator: `Expert ${e}`, coherent: e <= yes }));
      return { id: `c${j}`, text: text(i, j, yes), origin: { kind: 'model' as const }, annotations, scores: {} };
    }),
  }));
}
