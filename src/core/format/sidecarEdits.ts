/**
 * The dialogue editor's labels in sidecar files (issue 44 item 1): what an edit of a study's items changes, when the
 * study keeps some annotators' labels in `<study>.labels/<annotator>.jsonl` — the study's lines to replace (inline
 * labels, everything else) and the sidecars to write (`labelWrites`, the routing every CLI job uses) — and the view
 * of the study the editor shows: its parse with the sidecars laid over its items (`overlayLabels`). Pure: the
 * editor's document (src/extension/dialogueDocument.ts) holds the text and the sidecars' bytes, and applies both as
 * one step of its undo stack.
 */
import type { DialogueItem } from '../dialogue/types';
import { documentItems, headerEditFor, serializeItem, type DialogueDocument } from './jsonl';
import { labelWrites, overlayLabels, type LabelOverlay, type LabelSidecars, type SidecarWrite } from './labelSidecars';

/** A study's parse and the same parse with its sidecars' labels laid over its items. */
export interface SidecarView {
  /** The parse the editor shows: each item line's `item` with the sidecars' annotations (the text's parse when there are none). */
  doc: DialogueDocument;
  overlay: LabelOverlay;
}

/**
 * The parse the editor shows for a study and its sidecars: the study's own parse with each item line's `item`
 * replaced by the overlay's (lines, raw text, problems and item lines as parsed). Without sidecars, the parse itself.
 *
 * @param doc - the study's text, parsed
 * @param sidecars - its labels folder as read, or undefined when it has none
 */
export function sidecarView(doc: DialogueDocument, sidecars: LabelSidecars | undefined): SidecarView {
  const overlay = overlayLabels(doc, sidecars);
  if (!sidecars) return { doc, overlay };
  const lines = doc.lines.slice();
  doc.itemLines.forEach((line, i) => {
    const entry = doc.lines[line];
    if (entry.kind === 'item' && overlay.items[i] !== entry.item) lines[line] = { ...entry, item: overlay.items[i] };
  });
  return { doc: { ...doc, lines }, overlay };
}

/** One whole line of the study to replace: its 0-based line, its text as parsed (`raw`), its new text. */
export interface StudyLineEdit {
  line: number;
  raw: string;
  text: string;
}

/** What an edit of a study's items changes: the study's lines and the sidecars. */
export interface SidecarEdit {
  lines: StudyLineEdit[];
  sidecars: SidecarWrite[];
  /** 0-based lines of the items whose labels (inline or in a sidecar) changed. */
  itemLines: number[];
}

/**
 * Routes an edit of a study's items (as the editor shows them, sidecars laid over) to the study's lines and its
 * sidecars: an annotator's label goes where their labels are kept (`labelWrites`: their sidecar when they have one,
 * inline when they have inline labels and no sidecar, a new sidecar in a study that keeps labels in sidecars for an
 * annotator who has neither). Lines of the study whose item keeps its inline labels are not replaced; a sidecar's
 * unchanged lines keep their bytes.
 *
 * @param doc - the study's text, parsed (inline labels only)
 * @param overlay - `overlayLabels(doc, sidecars)`
 * @param update - the new item for an item, or undefined to leave it
 * @throws LabelWriteError (nothing to apply) when a label cannot be written where it belongs (e.g. over a conflict)
 */
export function routeItemEdit(doc: DialogueDocument, overlay: LabelOverlay, update: (item: DialogueItem) => DialogueItem | undefined): SidecarEdit {
  const changed: number[] = [];
  const next = overlay.items.map((it, i) => {
    const u = update(it);
    if (u === undefined || u === it) return it;
    changed.push(i);
    return u;
  });
  if (changed.length === 0) return { lines: [], sidecars: [], itemLines: [] };
  const { studyItems, sidecars } = labelWrites(overlay, next);
  const inline = documentItems(doc);
  const updated = changed.filter((i) => studyItems[i] !== inline[i]);
  const { header, edit: headerEdit } = headerEditFor(doc, updated.map((i) => studyItems[i]));
  const lines: StudyLineEdit[] = headerEdit ? [{ line: headerEdit.line, raw: headerEdit.oldText, text: headerEdit.newText }] : [];
  for (const i of updated) {
    const line = doc.itemLines[i];
    const raw = doc.lines[line].raw.text;
    const text = serializeItem(studyItems[i], header);
    if (text !== raw) lines.push({ line, raw, text });
  }
  return { lines, sidecars, itemLines: changed.map((i) => doc.itemLines[i]) };
}
