/**
 * The team's progress (issue 44 item 5): per annotator and per dimension, how many of the candidates they were
 * given (or, without packets, of the study's candidates) they have labelled, and the agreement so far wherever at
 * least two annotators labelled the same candidates — Krippendorff's α at the level the dimension's type asks for
 * (nominal for binary and categorical, ordinal for a Likert scale, interval for a number; Krippendorff 2011).
 */
import { krippendorffAlpha, type MeasurementLevel } from '../agreement/krippendorffAlpha';
import type { Candidate, DialogueItem } from '../dialogue/types';
import { isAsked, labelValue } from '../rubric/labelValues';
import type { Dimension, Rubric } from '../rubric/rubric';
import type { PacketManifest } from './packets';

/** One annotator's progress on one dimension. */
export interface DimensionProgress {
  dimension: string;
  /** Candidates where the dimension was asked and has a valid value. */
  labelled: number;
}

/** One annotator's progress. */
export interface AnnotatorProgress {
  annotator: string;
  /** Candidates they were given (by their packet), or every candidate of the study without packets. */
  assigned: number;
  /** Candidates with a value for the primary dimension. */
  labelled: number;
  dimensions: DimensionProgress[];
}

/** Agreement so far on one dimension. */
export interface DimensionAgreement {
  dimension: string;
  level: MeasurementLevel;
  /** Candidates labelled by at least two annotators on this dimension. */
  overlap: number;
  alpha: number | null;
  undefinedReason?: string;
}

/** The team's progress on a study. */
export interface TeamProgress {
  candidates: number;
  annotators: AnnotatorProgress[];
  agreement: DimensionAgreement[];
}

/** Krippendorff's level for a dimension type; undefined for free text and multi-select (no single value). */
export function measurementLevel(d: Dimension): MeasurementLevel | undefined {
  switch (d.type) {
    case 'binary':
    case 'categorical':
      return 'nominal';
    case 'ordinal':
      return 'ordinal';
    case 'numeric':
      return 'interval';
    default:
      return undefined;
  }
}

/**
 * Progress of every annotator (those named by the packets, then anyone else who labelled) and agreement per
 * dimension.
 *
 * @param manifests - the packets' manifests, when the study was handed out with `assign` (their `items` say who was given what)
 * @param skip - candidates that are never labelled (the item's reference), left out of the counts
 */
export function teamProgress(items: readonly DialogueItem[], rubric: Rubric, manifests: readonly PacketManifest[] = [], skip?: (item: DialogueItem, c: Candidate) => boolean): TeamProgress {
  const counted = items.flatMap((it) => it.candidates.filter((c) => !skip?.(it, c)).map((c) => ({ it, c })));
  const assigned = new Map<string, Set<string>>();
  for (const m of manifests) {
    const set = assigned.get(m.annotator) ?? new Set<string>();
    for (const map of Object.values(m.items)) for (const c of Object.values(map.candidates)) set.add(`${map.item}\u0000${c.id}`);
    assigned.set(m.annotator, set);
  }
  const names = [...assigned.keys()];
  for (const { c } of counted) for (const a of c.annotations) if (!names.includes(a.annotator)) names.push(a.annotator);
  const primary = rubric.dimensions.find((d) => d.name === rubric.primary)!;
  const annotators = names.map((annotator): AnnotatorProgress => {
    const given = assigned.get(annotator);
    const mine = counted.filter(({ it, c }) => !given || given.has(`${it.id}\u0000${c.id}`));
    const count = (d: Dimension) =>
      mine.filter(({ c }) => {
        const a = c.annotations.find((x) => x.annotator === annotator);
        return a !== undefined && isAsked(a, d, rubric) && labelValue(a, d) !== undefined;
      }).length;
    return { annotator, assigned: mine.length, labelled: count(primary), dimensions: rubric.dimensions.map((d) => ({ dimension: d.name, labelled: count(d) })) };
  });
  const agreement = rubric.dimensions.flatMap((d): DimensionAgreement[] => {
    const level = measurementLevel(d);
    if (!level) return [];
    const rows = counted.map(({ c }) =>
      names.map((n) => {
        const a = c.annotations.find((x) => x.annotator === n);
        const v = a && isAsked(a, d, rubric) ? labelValue(a, d) : undefined;
        return typeof v === 'boolean' || typeof v === 'number' || typeof v === 'string' ? v : null;
      }),
    );
    const pairable = rows.filter((r) => r.filter((v) => v !== null).length >= 2);
    const values = d.type === 'ordinal' ? d.points.map((p) => p.value) : d.type === 'categorical' ? d.options.map((o) => o.value) : undefined;
    const res = pairable.length > 0 ? krippendorffAlpha(pairable, { level, values }) : undefined;
    return [{ dimension: d.name, level, overlap: pairable.length, alpha: res?.alpha ?? null, ...(res?.undefinedReason ? { undefinedReason: res.undefinedReason } : res ? {} : { undefinedReason: 'no candidate labelled by two annotators yet' }) }];
  });
  return { candidates: counted.length, annotators, agreement };
}
