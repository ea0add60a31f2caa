/**
 * Incremental re-parsing of a dialogue document after edits that replace text within lines (issue 19 item 3: a
 * label key in a 45 MB file must not re-split and re-hash the whole text). The editor's label edits replace whole
 * item lines without adding or removing lines; {@link reparseLines} re-parses only those lines and keeps the rest
 * of the parse (the same `itemLines` and `problems` arrays, so a caller can tell by identity that no item moved
 * and no problem appeared). Anything else — a line break typed or deleted, an item's id changed, a line becoming
 * or ceasing to be an item — is structural: the caller parses the whole text (`parseDocument` with `previous`).
 */
import type { DialogueItem } from '../dialogue/types';
import { parseLine, type DialogueDocument, type ParsedLine } from './jsonl';

/** A text change as VS Code reports it (`TextDocumentContentChangeEvent`), reduced to what matters here. */
export interface TextChange {
  /** The replaced range, in lines of the document before the change (0-based). */
  range: { start: { line: number }; end: { line: number } };
  /** The inserted text. */
  text: string;
}

/**
 * The lines a set of changes touched, when every change stays within one line and inserts no line break (so the
 * line count and every line ending are as before); otherwise undefined (a structural change).
 *
 * @returns 0-based line numbers, ascending and unique
 */
export function changedLinesInPlace(changes: readonly TextChange[]): number[] | undefined {
  const lines = new Set<number>();
  for (const c of changes) {
    if (c.range.start.line !== c.range.end.line || /[\r\n]/.test(c.text)) return undefined;
    lines.add(c.range.start.line);
  }
  return [...lines].sort((a, b) => a - b);
}

/**
 * `previous` with the given lines re-parsed from their new text, or undefined when the result would not have the
 * same items at the same lines: a line that was not an item (blank, invalid or a duplicate id), a new text that is
 * not a valid item, or an item whose id changed. Lines keep their line endings. Unchanged lines (and their items)
 * are shared with `previous`, as `parseDocument(text, file, previous)` shares them.
 *
 * @param previous - a parse of the document's text (not of bytes: a byte parse keeps bytes this cannot update)
 * @param changed - each changed line (0-based) with its whole new text, without its line ending
 * @returns a document whose `itemLines` and `problems` are `previous`'s own arrays, or undefined (parse it all)
 */
export function reparseLines(previous: DialogueDocument, changed: readonly { line: number; text: string }[]): DialogueDocument | undefined {
  if (previous.bytes) return undefined;
  let lines: ParsedLine[] | undefined;
  for (const { line, text } of changed) {
    const old = previous.lines[line];
    if (!old || old.kind !== 'item') return undefined;
    if (old.raw.text === text) continue;
    const next = parseLine({ text, eol: old.raw.eol }, previous.file, line, previous.header);
    if (next.kind !== 'item' || next.item.id !== old.item.id) return undefined;
    lines ??= [...previous.lines];
    lines[line] = next;
  }
  return lines ? { ...previous, lines } : previous;
}

/**
 * The index (in file order) of the item on a line, by binary search of the document's `itemLines`.
 *
 * @returns the item index, or -1 when the line holds no item
 */
export function itemIndexOfLine(itemLines: readonly number[], line: number): number {
  let lo = 0;
  let hi = itemLines.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (itemLines[mid] === line) return mid;
    if (itemLines[mid] < line) lo = mid + 1;
    else hi = mid - 1;
  }
  return -1;
}

/**
 * Whether two versions of an item name the same evaluators with the same signatures, in the same order (so the
 * evaluator names and scales computed over a file stay valid when one replaces the other).
 */
export function sameEvaluators(a: DialogueItem, b: DialogueItem): boolean {
  const key = (it: DialogueItem) => JSON.stringify(it.candidates.map((c) => Object.entries(c.scores).map(([id, s]) => [id, (s as { signature?: unknown } | undefined)?.signature ?? null])));
  return key(a) === key(b);
}

/** Whether two versions of an item have the same title parts (id, context and provenance are what titles read). */
export function sameTitleInputs(a: DialogueItem, b: DialogueItem): boolean {
  return a.id === b.id && JSON.stringify(a.context) === JSON.stringify(b.context) && JSON.stringify(a.provenance ?? null) === JSON.stringify(b.provenance ?? null);
}

/** Whether two versions of an item have the same candidates' origins (what the origin groups of a file come from). */
export function sameOrigins(a: DialogueItem, b: DialogueItem): boolean {
  const key = (it: DialogueItem) => JSON.stringify(it.candidates.map((c) => [c.origin, c.duplicateOrigins ?? null]));
  return key(a) === key(b);
}
