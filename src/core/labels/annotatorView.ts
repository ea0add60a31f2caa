/**
 * What one annotator is shown of an item in the dialogue editor. The seeds' protocol shows annotators a context
 * and response candidates without saying where a candidate came from (first study §4.1.2: "we do not mention that
 * some response candidates came from models instead of humans"); blind mode does that: no origin, no scores, no
 * reference, and the candidates in an order shuffled per annotator. Outside the comparison view an annotator sees
 * only their own labels.
 */
import seedrandom from 'seedrandom';
import type { Annotation, CandidateOrigin, ClusterInfo, DialogueItem, Provenance, Reference, Score, Turn } from '../dialogue/types';

/** One candidate as an annotator sees it. */
export interface CandidateView {
  id: string;
  /** 1-based position in the displayed order. */
  position: number;
  text: string;
  /** Absent in blind mode, as are `duplicateOrigins`, `cluster` and `scores`. */
  origin?: CandidateOrigin;
  duplicateOrigins?: CandidateOrigin[];
  cluster?: ClusterInfo;
  scores?: Record<string, Score>;
  /** The viewing annotator's own annotation, if any. */
  mine?: Annotation;
  /** Every other annotator's annotation: only in the comparison view. */
  others?: Annotation[];
}

/** One item as an annotator sees it. */
export interface ItemView {
  id: string;
  context: Turn[];
  provenance?: Provenance;
  /** Absent in blind mode. */
  reference?: Reference;
  candidates: CandidateView[];
  blind: boolean;
  comparison: boolean;
  annotator: string | null;
}

/** How an item is shown. */
export interface ViewOptions {
  /** The viewing annotator (null: not set yet; nothing is "mine"). */
  annotator: string | null;
  /** Hide origins, scores and the reference; shuffle the candidates per annotator. */
  blind: boolean;
  /** Show every annotator's labels (others' read-only). */
  comparison: boolean;
}

/**
 * The blind-mode order of an item's candidates for one annotator: candidates sorted by a key drawn from
 * seedrandom (ARC4) seeded with `<annotator>\u0000<item id>\u0000<candidate id>`. The order is deterministic (the
 * same on every machine and every day for the same annotator), differs between annotators, and is a uniformly
 * random permutation; because each candidate's key depends only on its own id, adding candidates later does not
 * reorder the ones an annotator has already seen. Ties (probability ~2⁻⁵²) fall back to file order.
 *
 * @returns candidate ids in display order
 */
export function blindOrder(itemId: string, candidateIds: readonly string[], annotator: string): string[] {
  const keyed = candidateIds.map((id, i) => ({ id, i, key: seedrandom(`${annotator}\u0000${itemId}\u0000${id}`)() }));
  keyed.sort((a, b) => a.key - b.key || a.i - b.i);
  return keyed.map((k) => k.id);
}

/**
 * The id a candidate is shown under in blind mode: `blind-` and 12 hex digits of a hash of annotator, item and
 * candidate id. Real ids tell where a candidate came from (`ref` for the reference, `g…` for generated ones, the
 * source's slug for imported tables), so they are not sent to a blind view; {@link candidateIdOfView} maps back.
 */
export function blindCandidateId(itemId: string, candidateId: string, annotator: string): string {
  const r = seedrandom(`blind-id\u0000${annotator}\u0000${itemId}\u0000${candidateId}`);
  return `blind-${Math.floor(r() * 2 ** 24).toString(16).padStart(6, '0')}${Math.floor(r() * 2 ** 24).toString(16).padStart(6, '0')}`;
}

/**
 * The real id of the candidate a view calls `viewId`: the id itself when a candidate has it, else the candidate
 * whose {@link blindCandidateId} it is (a label typed in blind mode, also after blind mode was turned off).
 *
 * @returns undefined when no candidate of `item` matches
 */
export function candidateIdOfView(item: DialogueItem, viewId: string, annotator: string): string | undefined {
  if (item.candidates.some((c) => c.id === viewId)) return viewId;
  return item.candidates.find((c) => blindCandidateId(item.id, c.id, annotator) === viewId)?.id;
}

/**
 * The view of `item` for an annotator (see the module comment). Nothing a candidate's view leaves out is lost:
 * views are read-only renderings; labels are changed on the item itself (`./annotate`).
 */
export function annotatorView(item: DialogueItem, opts: ViewOptions): ItemView {
  const byId = new Map(item.candidates.map((c) => [c.id, c]));
  const order = opts.blind ? blindOrder(item.id, item.candidates.map((c) => c.id), opts.annotator ?? '') : item.candidates.map((c) => c.id);
  const candidates = order.map((id, i): CandidateView => {
    const c = byId.get(id)!;
    const mine = opts.annotator ? c.annotations.find((a) => a.annotator === opts.annotator) : undefined;
    const view: CandidateView = { id: opts.blind ? blindCandidateId(item.id, c.id, opts.annotator ?? '') : c.id, position: i + 1, text: c.text, ...(mine ? { mine } : {}) };
    if (!opts.blind) {
      view.origin = c.origin;
      if (c.duplicateOrigins) view.duplicateOrigins = c.duplicateOrigins;
      if (c.cluster) view.cluster = c.cluster;
      view.scores = c.scores;
    }
    if (opts.comparison) view.others = c.annotations.filter((a) => a.annotator !== opts.annotator);
    return view;
  });
  return {
    id: item.id,
    context: item.context,
    ...(item.provenance ? { provenance: item.provenance } : {}),
    ...(!opts.blind && item.reference ? { reference: item.reference } : {}),
    candidates,
    blind: opts.blind,
    comparison: opts.comparison,
    annotator: opts.annotator,
  };
}
