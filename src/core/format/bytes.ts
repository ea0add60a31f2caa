/**
 * Byte-level reading of line-oriented files: lines split on bytes, strict UTF-8 decoding per line, and where a line
 * is not UTF-8, which bytes are not (as a decoder that replaces errors would see them).
 *
 * Line endings: a line ends at LF (0x0A); a CR (0x0D) right before that LF belongs to the line ending (CRLF). A CR
 * anywhere else ("lone CR") is part of the line's content, as JSON Lines reads it (jsonlines.org: "each line is
 * terminated by \n or \r\n"). Pure TypeScript, no Node imports (the extension host uses it too).
 */

/** One line of a file as bytes. */
export interface ByteLine {
  /** Offset of the line's first byte in the file. */
  start: number;
  /** Offset just past the line's content (before its line ending). */
  end: number;
  /** The line ending after the content: LF, CRLF, or none (a last line without one). */
  eol: '\n' | '\r\n' | '';
}

/** A run of bytes that is not UTF-8, as one U+FFFD would replace it. Offsets are relative to the decoded range. */
export interface Utf8Error {
  offset: number;
  length: number;
}

const LF = 0x0a;
const CR = 0x0d;

/**
 * Splits bytes into lines: at every LF, with a CR just before it counted as part of a CRLF line ending. A final
 * empty line after the last LF is not a line (an empty input has no lines).
 */
export function splitByteLines(bytes: Uint8Array): ByteLine[] {
  const lines: ByteLine[] = [];
  let start = 0;
  for (let lf = bytes.indexOf(LF); lf >= 0; lf = bytes.indexOf(LF, start)) {
    const crlf = lf > start && bytes[lf - 1] === CR;
    lines.push({ start, end: crlf ? lf - 1 : lf, eol: crlf ? '\r\n' : '\n' });
    start = lf + 1;
  }
  if (start < bytes.length) lines.push({ start, end: bytes.length, eol: '' });
  return lines;
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const lossyDecoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * Decodes UTF-8 strictly (a BOM is kept as U+FEFF).
 *
 * @returns the text, or `undefined` if the bytes are not UTF-8 (including surrogates encoded as bytes, "WTF-8")
 */
export function decodeUtf8Strict(bytes: Uint8Array): string | undefined {
  try {
    return strictDecoder.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Decodes UTF-8, replacing every error with U+FFFD as the WHATWG Encoding Standard says (and VS Code does). */
export function decodeUtf8Lossy(bytes: Uint8Array): string {
  return lossyDecoder.decode(bytes);
}

/** Encodes text as UTF-8 (a lone surrogate becomes U+FFFD, as every UTF-8 encoder writes it). */
export function encodeUtf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * The runs of bytes that are not UTF-8, each as one replacement character would cover it: the WHATWG Encoding
 * Standard's UTF-8 decoder (§ 9.1.1, "maximal subparts" as in Unicode 15 § 3.9, U+FFFD substitution), so
 * `errors.length` is the number of U+FFFD that {@link decodeUtf8Lossy} (and VS Code) put in their place.
 *
 * @returns errors in byte order; empty when the bytes are UTF-8
 */
export function utf8Errors(bytes: Uint8Array): Utf8Error[] {
  const errors: Utf8Error[] = [];
  let needed = 0;
  let seen = 0;
  let lower = 0x80;
  let upper = 0xbf;
  let seqStart = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (needed === 0) {
      if (b <= 0x7f) continue;
      seqStart = i;
      if (b >= 0xc2 && b <= 0xdf) needed = 1;
      else if (b >= 0xe0 && b <= 0xef) {
        if (b === 0xe0) lower = 0xa0;
        if (b === 0xed) upper = 0x9f;
        needed = 2;
      } else if (b >= 0xf0 && b <= 0xf4) {
        if (b === 0xf0) lower = 0x90;
        if (b === 0xf4) upper = 0x8f;
        needed = 3;
      } else errors.push({ offset: i, length: 1 });
      continue;
    }
    if (b < lower || b > upper) {
      // The sequence so far is one error; this byte starts afresh.
      errors.push({ offset: seqStart, length: i - seqStart });
      needed = seen = 0;
      lower = 0x80;
      upper = 0xbf;
      i--;
      continue;
    }
    lower = 0x80;
    upper = 0xbf;
    if (++seen === needed) needed = seen = 0;
  }
  if (needed !== 0) errors.push({ offset: seqStart, length: bytes.length - seqStart });
  return errors;
}

/** Offsets (relative to `bytes`) of every lone CR: a CR not followed by LF. */
export function loneCrOffsets(bytes: Uint8Array): number[] {
  const out: number[] = [];
  for (let i = bytes.indexOf(CR); i >= 0; i = bytes.indexOf(CR, i + 1)) if (bytes[i + 1] !== LF) out.push(i);
  return out;
}

/** Whether `bytes` starts with the UTF-8 byte order mark EF BB BF. */
export function startsWithBom(bytes: Uint8Array): boolean {
  return bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
}

/** Concatenates byte arrays into one. */
export function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Whether two byte arrays hold the same bytes. */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
