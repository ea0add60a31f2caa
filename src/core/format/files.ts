/**
 * Reading and updating dialogue files on disk (CLI side; the extension edits through VS Code's TextDocument).
 *
 * A file is read as bytes and written as bytes: every line that is not an item the job changed — a malformed line,
 * a line that is not UTF-8, a blank line, any line ending — is written back exactly as it was read, and a job that
 * changes no item does not write the file at all (docs/format.md, "Guarantees").
 */
import { chmodSync, existsSync, readFileSync, realpathSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import type { DialogueItem } from '../dialogue/types';
import { documentBytes, documentItems, headerEditFor, itemEdit, parseDocument, serializeItem, type DialogueDocument, type LineEdit } from './jsonl';

/**
 * Reads and parses a dialogue file as bytes (lines end at LF or CRLF; each line decoded strictly as UTF-8);
 * problems are reported on the document, not thrown. The document keeps the bytes and the file's absolute path.
 */
export function readDialogueFile(path: string): DialogueDocument {
  const bytes = readFileSync(path);
  return { ...parseDocument(bytes, basename(path)), path: resolve(path) };
}

/**
 * Line edits turning the document's items into `items` (same length and order); unchanged items give no edit. In a
 * compact file, evaluators the header does not list yet are added to it (one more edit, of the header line), so a
 * job's new scores are written compactly too.
 */
export function editsFor(doc: DialogueDocument, items: readonly DialogueItem[]): LineEdit[] {
  const current = documentItems(doc);
  if (items.length !== current.length) throw new RangeError(`${doc.file}: expected ${current.length} items, got ${items.length}`);
  const changed = items.flatMap((item, i) => (item !== current[i] && serializeItem(item) !== serializeItem(current[i]) ? [i] : []));
  const { header, edit } = headerEditFor(doc, changed.map((i) => items[i]));
  // An item equal but for the order of its fields (a score read from a compact file, then written again by a job)
  // can come out as the line it already is: no edit, so a job that changes nothing writes nothing.
  const lines = changed.map((i) => itemEdit(doc, i, items[i], header)).filter((e) => e.newText !== e.oldText);
  return [...(edit && lines.length ? [edit] : []), ...lines];
}

/** Whether two paths name the same file (after resolving symbolic links, when both exist). */
export function sameFile(a: string, b: string): boolean {
  if (resolve(a) === resolve(b)) return true;
  if (!existsSync(a) || !existsSync(b)) return false;
  const sa = statSync(a);
  const sb = statSync(b);
  return sa.dev === sb.dev && sa.ino === sb.ino;
}

/**
 * Writes `items` back into the file of `doc` (or to `outPath`), re-encoding only the lines of items that
 * changed; every other line (malformed, not UTF-8, blank) and every line ending is written as the bytes it was
 * read from. Writes atomically (temp file + rename). When no item changed and `outPath` is the file `doc` was read
 * from, nothing is written (the file, its mtime included, is left alone); to another path the unchanged bytes are
 * written.
 *
 * @param items - the document's items, same length and order as `documentItems(doc)`
 * @returns the number of items whose lines were rewritten
 * @throws RangeError if `items` does not match the document's items in number
 */
export function writeItemsBack(doc: DialogueDocument, items: readonly DialogueItem[], outPath: string): number {
  const edits = editsFor(doc, items);
  if (edits.length === 0 && doc.path !== undefined && sameFile(doc.path, outPath)) return 0;
  writeTextAtomic(outPath, documentBytes(doc, edits));
  return edits.length;
}

/**
 * Writes a file via a temporary sibling and a rename, so a reader sees the old or the new file, never half of
 * one. Text is written as UTF-8; bytes as they are. An existing file keeps its permissions, and a symbolic link
 * keeps pointing where it did (the file it points to is replaced).
 */
export function writeTextAtomic(path: string, content: string | Uint8Array): void {
  const target = existsSync(path) ? realpathSync(path) : path;
  const tmp = `${target}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, content);
    if (existsSync(target)) chmodSync(tmp, statSync(target).mode & 0o7777);
    renameSync(tmp, target);
  } catch (err) {
    if (existsSync(tmp)) unlinkSync(tmp);
    throw err;
  }
}

/** @throws Error if `path` exists and `force` is not set. */
export function assertWritable(path: string, force = false): void {
  if (existsSync(path) && !force) throw new Error(`${path} exists; pass --force to overwrite it`);
}
