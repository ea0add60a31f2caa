/**
 * Splitting a dialogue file into parts small enough for VS Code (which hands files over 50 MB to no extension, so
 * the dialogue editor cannot open them; issue 19 item 3). A part is a run of whole lines, byte for byte — items,
 * lines that are not items, invalid UTF-8, CR, NUL alike — so the parts joined in order (`cat part-*`) are the
 * original file again. A compact file's header line starts every part ({@link splitDialogueFile}).
 */

import { isHeaderLine } from './compactScores';

/** VS Code's limit on files it syncs to extensions (50 MB, `files.maxMemoryForLargeFilesMB` aside). */
export const VSCODE_EXTENSION_FILE_LIMIT = 50 * 1024 * 1024;

/** One part of a split. */
export interface SplitPart {
  bytes: Buffer;
  /** 1-based numbers of the file's first and last line in this part. */
  firstLine: number;
  lastLine: number;
  /** True when the part is one line longer than the limit (a line is never cut). */
  oversized: boolean;
}

/**
 * Splits a file's bytes after line feeds into parts of at most `maxBytes` each; a single line longer than that is a
 * part of its own (marked `oversized`). The parts' bytes joined in order equal `bytes`.
 *
 * @param maxBytes - positive
 * @throws RangeError for a maxBytes that is not a positive number
 */
export function splitLines(bytes: Buffer, maxBytes: number): SplitPart[] {
  if (!(maxBytes > 0)) throw new RangeError(`the part size must be positive (got ${maxBytes})`);
  const parts: SplitPart[] = [];
  let start = 0; // first byte of the current part
  let end = 0; // end of the last whole line in it
  let firstLine = 1;
  let linesInPart = 0;
  const close = () => {
    const part = bytes.subarray(start, end);
    parts.push({ bytes: part, firstLine, lastLine: firstLine + linesInPart - 1, oversized: linesInPart === 1 && part.length > maxBytes });
    start = end;
    firstLine += linesInPart;
    linesInPart = 0;
  };
  while (end < bytes.length) {
    const lf = bytes.indexOf(0x0a, end);
    const next = lf < 0 ? bytes.length : lf + 1;
    if (linesInPart > 0 && next - start > maxBytes) close();
    end = next;
    linesInPart++;
  }
  if (linesInPart > 0) close();
  return parts;
}

/** The file name of part `i` (1-based) of `n`: `study.dialogues.jsonl` → `study.part-01-of-03.dialogues.jsonl`. */
export function partFileName(fileName: string, i: number, n: number): string {
  const width = Math.max(2, String(n).length);
  const tag = `part-${String(i).padStart(width, '0')}-of-${String(n).padStart(width, '0')}`;
  const m = /^(.*?)((\.dialogues)?\.jsonl)$/i.exec(fileName);
  return m ? `${m[1]}.${tag}${m[2]}` : `${fileName}.${tag}.jsonl`;
}

/** The header line of a compact file (its bytes with the line ending), or undefined for a file without one. */
export function headerLineBytes(bytes: Buffer): Buffer | undefined {
  const lf = bytes.indexOf(0x0a);
  const line = bytes.subarray(0, lf < 0 ? bytes.length : lf + 1);
  let value: unknown;
  try {
    value = JSON.parse(line.toString('utf8').replace(/^\uFEFF/, ''));
  } catch {
    return undefined;
  }
  return isHeaderLine(value) ? line : undefined;
}

/**
 * {@link splitLines} for a dialogue file: a compact file's header line (`compactScores.ts`) starts every part, so
 * each part opens on its own; the other lines are split as `splitLines` does. Line numbers are the file's. Without a
 * header the parts are `splitLines`'s; with one, the file is the first part followed by every other part without
 * its first line (`tail -n +2`).
 *
 * @throws RangeError when the header alone does not leave room for a line
 */
export function splitDialogueFile(bytes: Buffer, maxBytes: number): { parts: SplitPart[]; header?: Buffer } {
  const header = headerLineBytes(bytes);
  if (!header) return { parts: splitLines(bytes, maxBytes) };
  if (!(maxBytes > header.length)) throw new RangeError(`the part size (${maxBytes} bytes) leaves no room beside the ${header.length}-byte header line`);
  const rest = splitLines(bytes.subarray(header.length), maxBytes - header.length);
  const parts = rest.map((p) => ({ ...p, bytes: Buffer.concat([header, p.bytes]), firstLine: p.firstLine + 1, lastLine: p.lastLine + 1 }));
  return { parts: parts.length ? parts : [{ bytes: header, firstLine: 1, lastLine: 1, oversized: false }], header };
}
