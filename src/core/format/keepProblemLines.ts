/**
 * The byte-preserving path for a save from VS Code (issue 14 item 1): VS Code writes the text it decoded, so a
 * line with bytes that are not UTF-8 is saved with U+FFFD and a lone CR becomes a line break. Given the file's
 * bytes before the save and the text VS Code saved, this gives the bytes that keep every problem line as it was
 * and carry every change the text made to items — when the text's changes are item changes only; else it says
 * why not. The editor writes those bytes right after VS Code's save (src/extension/dialogueEditor.ts).
 * Pure TypeScript, no Node imports.
 */
import type { DialogueItem } from '../dialogue/types';
import { parseDocument, replaceItemsById, serializeItem, type ParsedLine } from './jsonl';
import { lineReports, problemLinesChangedBySave, vsCodeText, type LineReport } from './lineReport';

/** What {@link keepProblemLines} found. */
export type KeepProblemLinesResult =
  /** VS Code's save keeps every problem line byte for byte (or there is none): nothing to do. */
  | { kind: 'unchanged' }
  /**
   * `bytes` keep every problem line of the file before the save and hold the saved items: write them. `restored`
   * lists the lines the save had changed (as the file before the save numbers them): problem lines, and items
   * with a lone CR, which VS Code shows and saves as two lines.
   */
  | { kind: 'restore'; bytes: Uint8Array; restored: LineReport[]; itemsChanged: number }
  /**
   * The saved text changed more than items (a problem line edited, a line added or removed, a new item): it cannot
   * be merged into the old bytes without dropping one of the edits, so the save stands. `changed` lists the
   * problem lines it changed, `reason` says what else differs.
   */
  | { kind: 'edited'; changed: LineReport[]; reason: string };

/** Same line as VS Code shows it: the same text, or the same item however it is spaced. */
function sameLine(a: ParsedLine, b: ParsedLine): boolean {
  if (a.raw.text === b.raw.text) return true;
  return a.kind === 'item' && b.kind === 'item' && serializeItem(a.item) === serializeItem(b.item);
}

/**
 * The bytes to write after a save from VS Code so that problem lines keep their bytes.
 *
 * The result is `restore` only when VS Code, reading the returned bytes, shows the same lines as the text it just
 * saved (line for line: the same text, or the same item), so writing them loses no edit: item lines changed by the
 * save are re-encoded (compact JSON, UTF-8, the line's own ending: `replaceItemsById`), every other byte is the
 * old file's — problem lines, blank lines, untouched items, line endings, a leading BOM.
 *
 * @param fileBytes - the file's bytes before the save
 * @param savedText - the text VS Code saved (`TextDocument.getText()` at save; no BOM)
 * @param file - the file name used in reports
 */
export function keepProblemLines(fileBytes: Uint8Array, savedText: string, file = ''): KeepProblemLinesResult {
  // Problem lines the save changed, and items with a lone CR (VS Code split them into two lines: always changed).
  const split = lineReports(parseDocument(fileBytes, file)).filter((r) => r.kind !== 'invalid' && r.inVsCode.some((e) => e.code === 'loneCr'));
  const changed = [...problemLinesChangedBySave(fileBytes, savedText, file), ...split].sort((a, b) => a.line - b.line);
  if (changed.length === 0) return { kind: 'unchanged' };
  const saved = parseDocument(savedText.replace(/^\uFEFF/, ''), file);
  // A problem line can read as an item once VS Code has decoded it (U+FFFD in a string is valid JSON): as long as
  // its text is as VS Code showed it, it is that problem line, kept from the old bytes, not an item to write.
  const before = parseDocument(fileBytes, file);
  const problemTexts = new Set(before.lines.filter((l) => l.kind === 'invalid').flatMap((l) => l.raw.text.split('\r')));
  const items = saved.itemLines.filter((i) => !problemTexts.has(saved.lines[i].raw.text)).map((i) => (saved.lines[i] as { item: DialogueItem }).item);
  const merged = replaceItemsById(fileBytes, items, file);
  if (merged.missing.length > 0) {
    const ids = merged.missing.slice(0, 3).join(', ') + (merged.missing.length > 3 ? ', …' : '');
    return { kind: 'edited', changed, reason: `the saved text has item${merged.missing.length === 1 ? '' : 's'} that the file did not (${ids})` };
  }
  const shown = parseDocument(vsCodeText(merged.bytes), file);
  if (shown.lines.length !== saved.lines.length) {
    return { kind: 'edited', changed, reason: `the saved text has ${saved.lines.length} lines where the file, read by VS Code, has ${shown.lines.length}` };
  }
  const differs = saved.lines.findIndex((l, i) => !sameLine(l, shown.lines[i]));
  if (differs >= 0) return { kind: 'edited', changed, reason: `line ${differs + 1} of the saved text is not an item change of the file (a problem line was edited?)` };
  return { kind: 'restore', bytes: merged.bytes, restored: changed, itemsChanged: merged.changed };
}
