/**
 * The text of a dialogue file as the dialogue editor holds it (issue 19 item 3: the editor reads its file itself, as
 * a `CustomEditorProvider`, instead of waiting for VS Code's text model, which took ~5 s for a 45 MB file).
 *
 * The text is what VS Code's text model would hold for the same bytes, so line numbers, problem lines and the
 * byte-preserving save behave as they did over a `TextDocument`: lines end at LF, CRLF or a lone CR; every line
 * ending is normalised to the file's (`vsCodeLineEnding`); bytes that are not UTF-8 decode to U+FFFD; a leading BOM
 * is not part of the text but is written back. Pure TypeScript: the extension host and the tests use it.
 */
import { Buffer } from 'node:buffer';
import { bytesVsCodeKeeps } from './vsCodeSafe';
import { encodeUtf8, startsWithBom } from './bytes';
import { vsCodeText } from './lineReport';
import type { RawLine } from './jsonl';

/** One whole line's new text (0-based line; no line break in `text`). */
export interface LineReplacement {
  line: number;
  text: string;
}

/** Lines of text with one line ending, and whether the file began with a BOM. */
export class LineText {
  private textCache: string | undefined;

  /**
   * @param lines - the lines, without line endings; a text ending in a line break has a last empty line (as in VS Code)
   * @param eol - the line ending between lines
   * @param bom - whether the file's bytes begin with a UTF-8 BOM (written back by {@link toBytes})
   */
  constructor(
    private lines: string[],
    readonly eol: '\n' | '\r\n',
    readonly bom: boolean,
  ) {
    if (lines.length === 0) this.lines = [''];
  }

  /**
   * The text VS Code would show for a file's bytes (lineReport.ts `vsCodeText`). A file that is UTF-8 with no CR
   * (the usual case, `bytesVsCodeKeeps`) is decoded without parsing its lines.
   *
   * @param bytes - the whole file
   */
  static fromBytes(bytes: Uint8Array): LineText {
    const bom = startsWithBom(bytes);
    if (bytesVsCodeKeeps(bytes)) {
      const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8', bom ? 3 : 0);
      return new LineText(text.split('\n'), '\n', bom);
    }
    const text = vsCodeText(bytes);
    const eol = text.includes('\r\n') ? '\r\n' : '\n';
    return new LineText(text.split(eol), eol, bom);
  }

  /** Number of lines (at least 1). */
  get lineCount(): number {
    return this.lines.length;
  }

  /**
   * One line's text, without its line ending.
   *
   * @throws RangeError when `line` is not in 0 … lineCount − 1
   */
  line(line: number): string {
    if (!(line >= 0 && line < this.lines.length)) throw new RangeError(`line ${line} is not in 0 … ${this.lines.length - 1}`);
    return this.lines[line];
  }

  /** The whole text, lines joined by the line ending (no BOM). Cached until the next change. */
  getText(): string {
    return (this.textCache ??= this.lines.join(this.eol));
  }

  /**
   * Replaces whole lines (the line count does not change).
   *
   * @returns the replacements that undo this one (each line's text before)
   * @throws RangeError for a line out of range or a text with a line break (nothing is changed then)
   */
  replaceLines(edits: readonly LineReplacement[]): LineReplacement[] {
    for (const e of edits) {
      this.line(e.line);
      if (/[\r\n]/.test(e.text)) throw new RangeError(`the new text of line ${e.line} has a line break`);
    }
    const inverse = edits.map((e) => ({ line: e.line, text: this.lines[e.line] }));
    for (const e of edits) this.lines[e.line] = e.text;
    this.textCache = undefined;
    // Undone in reverse order, so a line replaced twice in one edit gets its first text back.
    return inverse.reverse();
  }

  /**
   * The lines as `splitLines` (jsonl.ts) splits {@link getText}, without joining them: each with the line ending,
   * the last without, and no last empty line after a final line break.
   */
  rawLines(): RawLine[] {
    const n = this.lines[this.lines.length - 1] === '' ? this.lines.length - 1 : this.lines.length;
    const out: RawLine[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = { text: this.lines[i], eol: i < this.lines.length - 1 ? this.eol : '' };
    return out;
  }

  /** The bytes a save writes: the BOM if the file had one, then the text as UTF-8. */
  toBytes(): Uint8Array {
    const text = encodeUtf8(this.getText());
    if (!this.bom) return text;
    const out = new Uint8Array(text.length + 3);
    out.set([0xef, 0xbb, 0xbf]);
    out.set(text, 3);
    return out;
  }
}
