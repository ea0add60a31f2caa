/**
 * Generated labelling pools for the planner's tests (not real data): items of 10 candidates, a latent quality z,
 * three expert coherence labels per candidate drawn as Bernoulli(logistic(z + noise)), and evaluators that see z
 * through noise. `copies` makes evaluators of equal quality: the human score plus independent noise of equal size.
 */
import seedrandom from 'seedrandom';
import type { DialogueItem } from '../../../src/core/dialogue/types';

export function gaussian(rng: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
}

export interface GeneratedPoolOptions {
  candidates: number;
  /** Evaluator e's score is signal[e]·z + N(0, 1). */
  signal?: number[];
  /** Evaluators `copy0`, `copy1`, …: the experts' coherence score + N(0, noise²). */
  copies?: { count: number; noise: number };
  seed: string;
}

export function generatedPool(o: GeneratedPoolOptions): DialogueItem[] {
  const rng = seedrandom.alea(o.seed);
  const items: DialogueItem[] = [];
  for (let i = 0; i < o.candidates; i++) {
    if (i % 10 === 0) items.push({ id: `item-${i / 10}`, context: [{ speaker: 'client', text: `context ${i / 10}` }], candidates: [] } as unknown as DialogueItem);
    const z = gaussian(rng) * 1.5 + 0.8;
    const annotations = [1, 2, 3].map((a) => ({ annotator: `Expert ${a}`, group: 'expert', coherent: rng() < 1 / (1 + Math.exp(-(z + gaussian(rng) * 0.7))) }));
    const y = annotations.filter((a) => a.coherent).length;
    const scores: Record<string, { value: number; status: 'ok' }> = {};
    (o.signal ?? []).forEach((s, e) => (scores[`metric:gen${e}.score@test`] = { value: s * z + gaussian(rng), status: 'ok' }));
    for (let e = 0; e < (o.copies?.count ?? 0); e++) scores[`metric:copy${e}.score@test`] = { value: y + gaussian(rng) * (o.copies as { noise: number }).noise, status: 'ok' };
    items[items.length - 1].candidates.push({ id: `c${i}`, text: `candidate ${i}`, origin: { kind: 'model' }, annotations, scores } as never);
  }
  return items;
}

/** For the working models' tests: N candidates on two rank coordinates in (0, 1), and a human score in 0..3 that rises with their sum. */
export function monotonePool(n: number, seed: string): { coords: Float64Array[]; y: number[] } {
  const rng = seedrandom.alea(seed);
  const coords = [Float64Array.from({ length: n }, () => rng()), Float64Array.from({ length: n }, () => rng())];
  const y = Array.from({ length: n }, (_, i) => Math.min(3, Math.max(0, Math.round(1.5 + 2.5 * (coords[0][i] + coords[1][i] - 1) + 0.8 * gaussian(rng)))));
  return { coords, y };
}
