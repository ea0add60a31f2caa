/**
 * Merging unsaved labels into a file that changed on disk (issue 14, "merge instead of overwrite").
 *
 * While labels are unsaved in the editor, a job (the CLI, another window) may rewrite the file: new scores, new
 * candidates, other annotators' labels. Rather than choosing between the two versions, the editor keeps its
 * unsaved labels as {@link LabelFieldChange}s — item id, candidate id, annotator, field, value before → after —
 * and re-applies them on top of what is on disk now, item by item ({@link rebaseLabelOperations}). A field the
 * job did not touch takes the label's value; a field changed on both sides to different values is a
 * {@link LabelConflict} that carries both values; a label whose item or candidate is gone from disk is reported,
 * never dropped silently.
 *
 * Pure: no I/O; inputs are not modified (items are copied along the path to a changed annotation).
 */
import type { Annotation, DialogueItem } from '../dialogue/types';
import { documentItems, parseDocument, replaceItemsById } from '../format/jsonl';

/** Annotation fields that are bookkeeping, not labels: never a conflict on their own. */
const BOOKKEEPING = new Set(['annotator', 'updatedAt']);

/** One unsaved change to one field of one annotator's annotation of one candidate. `undefined`: the field is absent. */
export interface LabelFieldChange {
  itemId: string;
  candidateId: string;
  annotator: string;
  /** An annotation field: `coherent`, `errors`, `mostEvidentError`, `otherText`, `empathy`, `stashed`, `updatedAt`, or any other. */
  field: string;
  before: unknown;
  after: unknown;
}

/** Unsaved changes found by {@link labelChanges}. */
export interface PendingLabelChanges {
  /** Changes to annotations, field by field, in item and candidate order. */
  changes: LabelFieldChange[];
  /**
   * Unsaved changes that are not labels (an item's text, candidates or scores; items added or removed; lines that
   * are not items), described for a message. They cannot be merged; when there are any, the caller must not replace
   * the document.
   */
  other: string[];
}

/** A label changed on both sides: the unsaved label and the file on disk disagree on some fields. */
export interface LabelConflict {
  kind: 'field';
  itemId: string;
  candidateId: string;
  annotator: string;
  /** The label fields changed on both sides to different values. */
  fields: string[];
  /** The annotation before the unsaved changes (undefined: there was none). */
  base: Annotation | undefined;
  /** The unsaved annotation as merged (the disk's annotation with every unsaved change applied); what the merged item holds. */
  mine: Annotation;
  /** The annotation on disk now (undefined: none). */
  disk: Annotation | undefined;
}

/** Unsaved labels that have nowhere to go: their item, or their candidate, is not in the file on disk. */
export interface LabelOrphan {
  kind: 'itemMissing' | 'candidateMissing';
  itemId: string;
  candidateId: string;
  annotator: string;
  /** The unsaved annotation (its changes applied to what it was before). */
  mine: Annotation | undefined;
  changes: LabelFieldChange[];
}

/** What {@link rebaseLabelOperations} made of the unsaved changes. */
export interface RebaseResult {
  /** The disk's items, in order, with the unsaved labels applied (unchanged items are the same objects). */
  items: DialogueItem[];
  /** Ids of items that differ from the disk's. */
  changed: string[];
  /** Annotations changed on both sides: the merged item holds `mine`; the disk's value is in `disk`. */
  conflicts: LabelConflict[];
  /** Unsaved labels of items or candidates the disk no longer has (not in `items`). */
  orphans: LabelOrphan[];
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const keyOf = (c: Pick<LabelFieldChange, 'itemId' | 'candidateId' | 'annotator'>) => JSON.stringify([c.itemId, c.candidateId, c.annotator]);

/** Sets or removes (`undefined`) one field of a private copy. */
function setField(a: Annotation, field: string, value: unknown): void {
  if (value === undefined) delete (a as Record<string, unknown>)[field];
  else (a as Record<string, unknown>)[field] = value;
}

/** Applies changes' `after` values to `a` (or to a fresh annotation). */
function applyAfter(a: Annotation | undefined, annotator: string, changes: readonly LabelFieldChange[]): Annotation {
  const out: Annotation = a ? { ...a } : { annotator };
  for (const c of changes) setField(out, c.field, c.after);
  return out;
}

/**
 * The unsaved label changes that turn `base` (the items as last saved or read) into `current` (the items in the
 * editor): one {@link LabelFieldChange} per annotation field that differs. Everything else that differs (item or
 * candidate content, scores, items added, removed or reordered, lines that are not items) is listed in `other`.
 *
 * @param base - items as on disk when the editor last saved or loaded the file
 * @param current - the editor's items now
 * @param lines - optional texts of the lines that are not items, in base and now (a change to them is `other`)
 */
export function labelChanges(base: readonly DialogueItem[], current: readonly DialogueItem[], lines?: { base: readonly string[]; current: readonly string[] }): PendingLabelChanges {
  const changes: LabelFieldChange[] = [];
  const other: string[] = [];
  const baseById = new Map(base.map((it) => [it.id, it]));
  const currentIds = new Set(current.map((it) => it.id));
  for (const it of base) if (!currentIds.has(it.id)) other.push(`item "${it.id}" removed`);
  if (lines && !same(lines.base, lines.current)) other.push('lines that are not items changed');
  const order = (items: readonly DialogueItem[]) => items.map((it) => it.id).filter((id) => baseById.has(id) && currentIds.has(id));
  if (!same(order(base), order(current))) other.push('items reordered');
  for (const now of current) {
    const was = baseById.get(now.id);
    if (!was) {
      other.push(`item "${now.id}" added`);
      continue;
    }
    if (was === now) continue;
    const strip = (it: DialogueItem) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: undefined })) });
    if (!same(strip(was), strip(now))) {
      other.push(`item "${now.id}": changes other than labels`);
      continue;
    }
    now.candidates.forEach((c, ci) => {
      const wasAnnotations = was.candidates[ci].annotations;
      if (same(wasAnnotations, c.annotations)) return;
      const annotators = [...new Set([...wasAnnotations, ...c.annotations].map((a) => a.annotator))];
      for (const annotator of annotators) {
        const before = wasAnnotations.find((a) => a.annotator === annotator);
        const after = c.annotations.find((a) => a.annotator === annotator);
        const fields = [...new Set([...Object.keys(before ?? {}), ...Object.keys(after ?? {})])].filter((f) => f !== 'annotator');
        for (const field of fields) {
          const b = before?.[field];
          const a = after?.[field];
          if (!same(b, a)) changes.push({ itemId: now.id, candidateId: c.id, annotator, field, before: b, after: a });
        }
        if (before && !after && fields.length === 0) changes.push({ itemId: now.id, candidateId: c.id, annotator, field: 'annotator', before: annotator, after: undefined });
      }
    });
  }
  return { changes, other };
}

/**
 * Re-applies unsaved label changes on top of the items on disk, item by item. For each annotation (item,
 * candidate, annotator) the changes touch:
 *
 * - a field whose disk value is still the `before` value takes the `after` value; one already equal to `after`
 *   stays;
 * - a label field whose disk value is neither (changed on both sides, differently) is a conflict: the merged
 *   annotation takes the unsaved value (`mine`) and the conflict records the disk's (`disk`), so the user can pick;
 *   `updatedAt` alone never conflicts (the unsaved one is kept);
 * - an annotation whose item or candidate is not on disk is an orphan, reported with its unsaved value.
 *
 * An annotation whose only field left is `annotator` is removed (undoing a first label).
 *
 * @param diskItems - the items in the file now, in file order (not modified)
 * @param changes - from {@link labelChanges}
 */
export function rebaseLabelOperations(diskItems: readonly DialogueItem[], changes: readonly LabelFieldChange[]): RebaseResult {
  const groups = new Map<string, LabelFieldChange[]>();
  for (const c of changes) {
    const k = keyOf(c);
    const g = groups.get(k);
    if (g) g.push(c);
    else groups.set(k, [c]);
  }
  const byId = new Map(diskItems.map((it, i) => [it.id, i]));
  const items = [...diskItems];
  const changed = new Set<string>();
  const conflicts: LabelConflict[] = [];
  const orphans: LabelOrphan[] = [];
  for (const group of groups.values()) {
    const { itemId, candidateId, annotator } = group[0];
    const beforeOf = () => {
      const b: Annotation = { annotator };
      for (const c of group) setField(b, c.field, c.before);
      return Object.keys(b).length > 1 ? b : undefined;
    };
    const index = byId.get(itemId);
    const mineOrphan = () => {
      const m = applyAfter(beforeOf(), annotator, group);
      return Object.keys(m).some((k) => k !== 'annotator') ? m : undefined;
    };
    if (index === undefined) {
      orphans.push({ kind: 'itemMissing', itemId, candidateId, annotator, mine: mineOrphan(), changes: group });
      continue;
    }
    const item = items[index];
    const ci = item.candidates.findIndex((c) => c.id === candidateId);
    if (ci < 0) {
      orphans.push({ kind: 'candidateMissing', itemId, candidateId, annotator, mine: mineOrphan(), changes: group });
      continue;
    }
    const candidate = item.candidates[ci];
    const ai = candidate.annotations.findIndex((a) => a.annotator === annotator);
    const disk = ai >= 0 ? candidate.annotations[ai] : undefined;
    const merged: Annotation = disk ? { ...disk } : { annotator };
    const conflicting: string[] = [];
    for (const c of group) {
      if (c.field === 'annotator') continue;
      const now = disk?.[c.field];
      if (same(now, c.after)) continue;
      if (!same(now, c.before) && !BOOKKEEPING.has(c.field)) conflicting.push(c.field);
      setField(merged, c.field, c.after);
    }
    const keep = Object.keys(merged).some((k) => k !== 'annotator');
    if (same(merged, disk ?? { annotator }) && (keep || !disk)) continue;
    if (conflicting.length) conflicts.push({ kind: 'field', itemId, candidateId, annotator, fields: conflicting, base: beforeOf(), mine: merged, disk });
    const annotations = keep
      ? ai >= 0
        ? candidate.annotations.map((a, i) => (i === ai ? merged : a))
        : [...candidate.annotations, merged]
      : candidate.annotations.filter((_, i) => i !== ai);
    items[index] = { ...item, candidates: item.candidates.map((c, i) => (i === ci ? { ...c, annotations } : c)) };
    changed.add(itemId);
  }
  return { items, changed: [...changed], conflicts, orphans };
}

/** What {@link mergeLabelsIntoFile} made. */
export interface FileMergeResult extends RebaseResult {
  /** The file's bytes with the labels merged in; only changed item lines are re-encoded, every other byte is kept. */
  bytes: Uint8Array;
}

/**
 * {@link rebaseLabelOperations} on a file's bytes: parses `diskBytes`, merges the unsaved label changes into its
 * items and writes only the lines of changed items (`replaceItemsById`), so lines that are not items — malformed,
 * not UTF-8, blank — stay byte for byte.
 *
 * @param file - the file name used in problem reports
 */
export function mergeLabelsIntoFile(diskBytes: Uint8Array, changes: readonly LabelFieldChange[], file = ''): FileMergeResult {
  const result = rebaseLabelOperations(documentItems(parseDocument(diskBytes, file)), changes);
  const changed = new Set(result.changed);
  const { bytes } = replaceItemsById(diskBytes, result.items.filter((it) => changed.has(it.id)), file);
  return { ...result, bytes };
}
