/**
 * Reliability data from labelled dialogue items: one unit per candidate with labels from the chosen group, one
 * column per annotator, the dialogue item as the bootstrap cluster.
 */
import type { Annotation, DialogueItem } from '../dialogue/types';
import { DEFAULT_GROUP_RULES, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';
import type { RatingValue } from './reliabilityData';

/** Units × annotators values of one label. */
export interface LabelMatrix<T extends RatingValue> {
  /** `data[u][j]`: annotator j's value on unit u, or null. */
  data: (T | null)[][];
  /** Column order: annotator ids, sorted. */
  annotators: string[];
  /** Per unit: the candidate's `item id / candidate id`. */
  units: string[];
  /** Per unit: the dialogue item id (bootstrap cluster). */
  clusters: string[];
}

/** Options of {@link labelMatrix}. */
export interface LabelMatrixOptions {
  group?: HumanGroup;
  groupRules?: GroupRules;
  /** Which annotations make a candidate a unit (default: those with a coherence label, the MI preset's primary). */
  labelled?: (a: Annotation) => boolean;
}

/**
 * The matrix of `value(annotation)` over candidates that have at least one label from the group (a coherence label,
 * or what `options.labelled` accepts: the responses of the agreement table), one column per annotator of the group; `value` returning null/undefined
 * leaves the cell missing. An annotator's second annotation of the same candidate (not expected) throws.
 *
 * @throws Error naming the item and candidate on a repeated annotator
 */
export function labelMatrix<T extends RatingValue>(items: readonly DialogueItem[], value: (a: Annotation) => T | null | undefined, options: LabelMatrixOptions = {}): LabelMatrix<T> {
  const keep = inGroup(options.group ?? 'all', options.groupRules ?? DEFAULT_GROUP_RULES);
  const labelled = options.labelled ?? ((a: Annotation) => typeof a.coherent === 'boolean');
  const rows: { unit: string; cluster: string; byAnnotator: Map<string, T | null> }[] = [];
  const annotators = new Set<string>();
  for (const item of items) {
    for (const c of item.candidates) {
      const units = c.annotations.filter((a) => labelled(a) && keep(a));
      if (units.length === 0) continue;
      const byAnnotator = new Map<string, T | null>();
      for (const a of units) {
        if (byAnnotator.has(a.annotator)) throw new Error(`item ${item.id}, candidate ${c.id}: annotator "${a.annotator}" has two annotations`);
        const v = value(a);
        byAnnotator.set(a.annotator, v === undefined ? null : v);
        annotators.add(a.annotator);
      }
      rows.push({ unit: `${item.id}/${c.id}`, cluster: item.id, byAnnotator });
    }
  }
  const cols = [...annotators].sort();
  return {
    data: rows.map((r) => cols.map((a) => (r.byAnnotator.has(a) ? (r.byAnnotator.get(a) as T | null) : null))),
    annotators: cols,
    units: rows.map((r) => r.unit),
    clusters: rows.map((r) => r.cluster),
  };
}

/** The present values of each unit, in column order (the n ratings of Fleiss' layout). */
export function unitValues<T extends RatingValue>(data: readonly (readonly (T | null)[])[]): T[][] {
  return data.map((r) => r.filter((v): v is T => v !== null && v !== undefined));
}
