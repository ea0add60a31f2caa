/**
 * A quick look at a dialogue file's bytes for what VS Code would change on a save (issue 19 item 3: opening a 45 MB
 * file must not parse and validate every line a second time just to learn that nothing is at stake).
 */
import { isUtf8 } from 'node:buffer';

/**
 * Whether no line of `bytes` has an effect VS Code's text model would have on it (lineReport.ts `effectsOf`): the
 * bytes are all UTF-8, hold no CR at all (so no lone CR, and no CRLF that could mix with LF line endings), and no
 * NUL byte in the first 512 bytes. When true, `problemLines(parseDocument(bytes))` has no line with a non-empty
 * `inVsCode`; when false, parse to find out (a CRLF file is false without having any such line).
 */
export function bytesVsCodeKeeps(bytes: Uint8Array): boolean {
  if (bytes.indexOf(13) >= 0) return false;
  if (bytes.subarray(0, 512).indexOf(0) >= 0) return false;
  // Validates without decoding (a 45 MB file took ~0.7 s to decode into a string that was thrown away).
  return isUtf8(bytes);
}
