/**
 * Reading and updating dialogue files on disk (CLI side; the extension edits through VS Code's TextDocument).
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { DialogueItem } from '../dialogue/types';
import { applyLineEdits, documentItems, itemEdit, parseDocument, serializeItem, type DialogueDocument, type LineEdit } from './jsonl';

/** Reads and parses a dialogue file; problems are reported on the document, not thrown. */
export function readDialogueFile(path: string): DialogueDocument {
  return parseDocument(readFileSync(path, 'utf8'), basename(path));
}

/** Line edits turning the document's items into `items` (same length and order); unchanged items give no edit. */
export function editsFor(doc: DialogueDocument, items: readonly DialogueItem[]): LineEdit[] {
  const current = documentItems(doc);
  if (items.length !== current.length) throw new RangeError(`${doc.file}: expected ${current.length} items, got ${items.length}`);
  const edits: LineEdit[] = [];
  items.forEach((item, i) => {
    if (serializeItem(item) !== serializeItem(current[i])) edits.push(itemEdit(doc, i, item));
  });
  return edits;
}

/**
 * Writes `items` back into the file of `doc` (or to `outPath`), changing only the lines of items that
 * changed; malformed and blank lines are kept verbatim. Writes atomically (temp file + rename).
 */
export function writeItemsBack(doc: DialogueDocument, items: readonly DialogueItem[], outPath: string): number {
  const edits = editsFor(doc, items);
  const text = applyLineEdits(doc, edits);
  writeTextAtomic(outPath, text);
  return edits.length;
}

/** Writes a file via a temporary sibling and a rename. */
export function writeTextAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

/** @throws Error if `path` exists and `force` is not set. */
export function assertWritable(path: string, force = false): void {
  if (existsSync(path) && !force) throw new Error(`${path} exists; pass --force to overwrite it`);
}
