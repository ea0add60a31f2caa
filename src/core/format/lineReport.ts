/**
 * One report per line that needs the user's attention: why it is not an item, and what VS Code would do to its
 * bytes. The editor shows these as diagnostics (one per line, all reasons in one message) and asks before a save
 * that would change a problem line ({@link problemLinesChangedBySave}).
 *
 * What VS Code does to a file it opens as UTF-8 (the default; from VS Code's sources: the text buffer builder,
 * `src/vs/editor/common/model/pieceTreeTextBuffer/pieceTreeTextBufferBuilder.ts` `_getEOL` and `create`, and its
 * encoding detection, which looks for NUL bytes in the first `ZERO_BYTE_DETECTION_BUFFER_MAX_LEN` = 512 bytes):
 * - bytes that are not UTF-8 are decoded as U+FFFD (one per maximal ill-formed subsequence, WHATWG Encoding
 *   Standard), and a save writes U+FFFD (EF BF BD) in their place;
 * - a lone CR is a line break, and every line break is normalised on open to the file's majority ending: CRLF if
 *   lone CRs plus CRLFs are more than half of all breaks, else LF; a save writes that ending everywhere;
 * - a leading BOM is dropped from the text and written again on save; a BOM elsewhere and NUL bytes are kept;
 * - a NUL byte among the first 512 bytes can make VS Code take the file for binary and not open it as text.
 * Pure TypeScript, no Node imports.
 */
import { encodeUtf8, loneCrOffsets, splitByteLines, startsWithBom } from './bytes';
import { parseDocument, type DialogueDocument, type LineProblem, type ParsedLine } from './jsonl';

/** What VS Code does to a line: `invalidUtf8`, `loneCr` and `eol` change its bytes on save; `binary` is on open. */
export type VsCodeEffectCode = 'invalidUtf8' | 'loneCr' | 'eol' | 'binary';

/** One thing VS Code does to a line's bytes. */
export interface VsCodeEffect {
  code: VsCodeEffectCode;
  message: string;
}

/** Everything about one line that needs attention. */
export interface LineReport {
  file: string;
  /** 1-based line number, as the problems give it (from bytes: lines counted by LF). */
  line: number;
  /** 1-based line where VS Code shows the line's start (VS Code also breaks lines at a lone CR). */
  editorLine: number;
  /** How many VS Code lines the line spans (1 + its lone CRs). */
  editorLineCount: number;
  /** From bytes: offset of the line's first byte in the file, and its length without the line ending. */
  byteOffset?: number;
  byteLength?: number;
  /** `invalid`: not an item, kept as it is by every job; `item` and `blank` lines are reported only for VS Code effects. */
  kind: ParsedLine['kind'];
  /** Why the line is not an item (empty for items and blank lines). */
  problems: LineProblem[];
  /** What VS Code would do to the line's bytes (empty: it keeps them). */
  inVsCode: VsCodeEffect[];
  /** All of it in one sentence, for a diagnostic. */
  message: string;
}

const EOL_NAME = { '\n': 'LF', '\r\n': 'CRLF', '\r': 'CR', '': '' } as const;

/**
 * The line ending VS Code gives the whole file on open (pieceTreeTextBufferBuilder `_getEOL`): CRLF when lone CRs
 * plus CRLFs are more than half of all line breaks, else LF; `undefined` when the file has no line break.
 */
export function vsCodeLineEnding(doc: DialogueDocument): '\n' | '\r\n' | undefined {
  let cr = 0;
  let lf = 0;
  let crlf = 0;
  for (const { raw } of doc.lines) {
    cr += raw.bytes ? loneCrOffsets(raw.bytes).length : 0;
    if (raw.eol === '\n') lf++;
    else if (raw.eol === '\r\n') crlf++;
    else if (raw.eol === '\r') cr++;
  }
  const total = cr + lf + crlf;
  if (total === 0) return undefined;
  return cr + crlf > total / 2 ? '\r\n' : '\n';
}

function effectsOf(doc: DialogueDocument, index: number, eol: '\n' | '\r\n' | undefined): VsCodeEffect[] {
  const { raw } = doc.lines[index];
  const effects: VsCodeEffect[] = [];
  if (raw.utf8Errors?.length) {
    const bytes = raw.utf8Errors.reduce((n, e) => n + e.length, 0);
    const chars = raw.utf8Errors.length;
    effects.push({
      code: 'invalidUtf8',
      message: `a save from VS Code would replace ${bytes} byte${bytes === 1 ? '' : 's'} that are not UTF-8 with ${chars} U+FFFD (${chars * 3} bytes)`,
    });
  }
  const crs = raw.bytes ? loneCrOffsets(raw.bytes) : [];
  if (crs.length) {
    effects.push({
      code: 'loneCr',
      message: `VS Code would split this line at its lone CR${crs.length === 1 ? '' : 's'} (byte ${crs.join(', ')} of the line) into ${crs.length + 1} lines and write ${EOL_NAME[eol ?? '\n']} there`,
    });
  }
  if (eol && raw.eol !== '' && raw.eol !== eol) {
    effects.push({ code: 'eol', message: `a save from VS Code would end this line with ${EOL_NAME[eol]} instead of ${EOL_NAME[raw.eol]} (the file's majority line ending)` });
  }
  if (raw.bytes && raw.byteOffset !== undefined && raw.byteOffset < 512) {
    const nul = raw.bytes.subarray(0, 512 - raw.byteOffset).indexOf(0);
    if (nul >= 0) effects.push({ code: 'binary', message: `a NUL byte at file offset ${raw.byteOffset + nul}, in the first 512 bytes: VS Code may take the file for binary and not open it as text` });
  }
  return effects;
}

function problemText(p: LineProblem): string {
  return p.field ? `${p.field}: ${p.message}` : p.message;
}

function reportOf(doc: DialogueDocument, index: number, editorLine: number, effects: VsCodeEffect[]): LineReport {
  const parsed = doc.lines[index];
  const problems = parsed.kind === 'invalid' ? parsed.problems : [];
  const crs = parsed.raw.bytes ? loneCrOffsets(parsed.raw.bytes).length : 0;
  const parts = [...problems.map(problemText), ...effects.map((e) => e.message)];
  return {
    file: doc.file,
    line: index + 1,
    editorLine,
    editorLineCount: 1 + crs,
    ...(parsed.raw.byteOffset !== undefined ? { byteOffset: parsed.raw.byteOffset, byteLength: parsed.raw.bytes?.length ?? 0 } : {}),
    kind: parsed.kind,
    problems,
    inVsCode: effects,
    message: parts.join('; '),
  };
}

/**
 * One report per line that is not an item (with all its problems), or that VS Code would change other than in
 * its line ending alone (a lone CR in an item or blank line), in line order. A line ending that VS Code's
 * normalisation would change is listed with the line's other effects; lines changed only there are counted by
 * {@link vsCodeLineEndingChanges} instead of reported one by one.
 *
 * @param doc - best read from bytes (`parseDocument(bytes)`): from text, nothing about bytes can be said
 */
export function lineReports(doc: DialogueDocument): LineReport[] {
  const eol = vsCodeLineEnding(doc);
  const reports: LineReport[] = [];
  let editorLine = 1;
  doc.lines.forEach((parsed, i) => {
    const effects = effectsOf(doc, i, eol);
    if (parsed.kind === 'invalid' || effects.some((e) => e.code !== 'eol')) reports.push(reportOf(doc, i, editorLine, effects));
    editorLine += 1 + (parsed.raw.bytes ? loneCrOffsets(parsed.raw.bytes).length : 0);
  });
  return reports;
}

/**
 * How many line endings a save from VS Code would rewrite by its normalisation (lone CRs not counted: they are
 * reported per line), and to what.
 */
export function vsCodeLineEndingChanges(doc: DialogueDocument): { eol: '\n' | '\r\n'; lines: number } | undefined {
  const eol = vsCodeLineEnding(doc);
  if (!eol) return undefined;
  const lines = doc.lines.filter((l) => l.raw.eol !== '' && l.raw.eol !== eol).length;
  return lines ? { eol, lines } : undefined;
}

/** Bytes as a string of one character (U+0000–U+00FF) per byte: equal strings, equal bytes. */
function byteString(bytes: Uint8Array): string {
  let out = '';
  for (let i = 0; i < bytes.length; i += 8192) out += String.fromCharCode(...bytes.subarray(i, i + 8192));
  return out;
}

/**
 * Which problem lines (`invalid` lines: not an item) a save of `savedText` would change: a problem line is kept
 * when its exact bytes, line ending included, are a whole line of the saved file, in the same order as the
 * problem lines before it. Use it before a save from VS Code to ask first.
 *
 * @param fileBytes - the file's bytes on disk
 * @param savedText - the text VS Code would save, as `TextDocument.getText()` gives it (without the BOM: when the
 *   file starts with one, VS Code writes it again, so it is added here)
 * @param file - the file name used in the reports
 * @returns reports of the problem lines that would change (their `inVsCode` says why, when VS Code is the cause),
 *   in line order; empty when every problem line would be kept byte for byte
 */
export function problemLinesChangedBySave(fileBytes: Uint8Array, savedText: string, file = ''): LineReport[] {
  const doc = parseDocument(fileBytes, file);
  const problemLines = doc.lines.flatMap((l, i) => (l.kind === 'invalid' ? [i] : []));
  if (problemLines.length === 0) return [];
  const bom = startsWithBom(fileBytes) && !savedText.startsWith('\uFEFF') ? '\uFEFF' : '';
  const saved = encodeUtf8(bom + savedText);
  const where = new Map<string, number[]>();
  splitByteLines(saved).forEach((l, i) => {
    const key = byteString(saved.subarray(l.start, l.end + l.eol.length));
    const at = where.get(key);
    if (at) at.push(i);
    else where.set(key, [i]);
  });
  const reports = lineReports(doc);
  const reportAt = new Map(reports.map((r) => [r.line - 1, r]));
  const changed: LineReport[] = [];
  let next = 0;
  for (const i of problemLines) {
    const { raw } = doc.lines[i];
    const lineBytes = raw.bytes && raw.byteOffset !== undefined ? fileBytes.subarray(raw.byteOffset, raw.byteOffset + raw.bytes.length + raw.eol.length) : encodeUtf8(raw.text + raw.eol);
    const at = where.get(byteString(lineBytes));
    const found = at ? firstAtLeast(at, next) : undefined;
    if (found !== undefined) next = found + 1;
    else changed.push(reportAt.get(i)!);
  }
  return changed;
}

/** The first element of ascending `sorted` that is ≥ `min`. */
function firstAtLeast(sorted: number[], min: number): number | undefined {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid] < min) lo = mid + 1;
    else hi = mid;
  }
  return sorted[lo];
}

/**
 * The text VS Code would hold for a file, and so save if nothing is edited: each line decoded as VS Code decodes
 * it, lone CRs and line endings normalised as it normalises them, a leading BOM dropped. For tests and for showing
 * the user what a save would write.
 */
export function vsCodeText(fileBytes: Uint8Array): string {
  const doc = parseDocument(fileBytes, '');
  const eol = vsCodeLineEnding(doc) ?? '\n';
  let text = doc.lines.map((l) => l.raw.text.replace(/\r/g, eol) + (l.raw.eol ? eol : '')).join('');
  if (startsWithBom(fileBytes)) text = text.slice(1);
  return text;
}


/**
 * One message per line that is not an item, with all its reasons: `file:line: reason; reason (line kept as it is)`
 * — what the CLI prints when it opens a file.
 */
export function problemLineMessages(doc: DialogueDocument): string[] {
  return lineReports(doc)
    .filter((r) => r.kind === 'invalid')
    .map((r) => `${r.file}:${r.line}: ${r.problems.map((p) => `${p.field ? `${p.field}: ` : ''}${p.message}`).join('; ')} (line kept as it is)`);
}

/**
 * One line that needs attention, as the editor shows it: a diagnostic in the Problems panel (one per line, all its
 * reasons in one message, the range covering the line) and an entry of the editor's banner that jumps to it.
 */
export interface ProblemLine {
  /** 1-based line number as the file counts lines (LF). */
  line: number;
  /** 1-based line where VS Code shows the line's start, and how many VS Code lines it spans. */
  editorLine: number;
  editorLineCount: number;
  /** `error`: the line is not an item (kept as it is, left out of every job); `warning`: an item VS Code would change. */
  severity: 'error' | 'warning';
  /** Every reason, in order: why the line is not an item, then what VS Code would do to its bytes. */
  reasons: string[];
  /** What VS Code would do to the line's bytes (only known when read from bytes). */
  inVsCode: VsCodeEffectCode[];
  /** The reasons in one sentence, ending with what happens to the line. */
  message: string;
}

/**
 * The lines of a document that need attention, one entry per line with all its reasons (never one per problem: a
 * line with three schema errors is one entry), in line order — from {@link lineReports}.
 *
 * @param doc - parsed from the editor's text (what the user sees now) or from the file's bytes (adds what VS Code
 *   would do to them)
 */
export function problemLines(doc: DialogueDocument): ProblemLine[] {
  return lineReports(doc).map((r) => {
    const reasons = [...r.problems.map(problemText), ...r.inVsCode.map((e) => e.message)];
    const invalid = r.kind === 'invalid';
    return {
      line: r.line,
      editorLine: r.editorLine,
      editorLineCount: r.editorLineCount,
      severity: invalid ? 'error' : 'warning',
      reasons,
      inVsCode: r.inVsCode.map((e) => e.code),
      message: `${reasons.join('; ')}${invalid && !r.problems.some((p) => p.code === 'duplicateId') ? ' (not an item: the line is kept as it is and left out of every job)' : ''}`,
    };
  });
}

/**
 * Problem lines of an editor's document: those its text shows, with what the file's bytes said about lines the
 * editor still shows as they were read (bytes that are not UTF-8, lone CRs: the text alone cannot tell).
 *
 * @param diskByText - problem lines read from the file's bytes ({@link problemLines} of `parseDocument(bytes)`) that
 *   the text cannot show (`inVsCode` not empty), keyed by the editor's text of their first line when they were read
 * @param lineCount - lines of the editor's text now; `lineText(i)` the text of its 0-based line `i`
 * @returns one entry per line, in line order, `editorLine` where the line is now; a line read from bytes that spans
 *   several editor lines (lone CRs) is one entry covering them
 */
export function withDiskProblems(fromText: readonly ProblemLine[], diskByText: ReadonlyMap<string, ProblemLine>, lineCount: number, lineText: (i: number) => string): ProblemLine[] {
  if (diskByText.size === 0) return [...fromText];
  const merged = new Map<number, ProblemLine>();
  const covered = new Set<number>();
  for (let i = 0; i < lineCount; i++) {
    if (covered.has(i + 1)) continue;
    const hit = diskByText.get(lineText(i));
    if (!hit) continue;
    merged.set(i + 1, { ...hit, editorLine: i + 1 });
    for (let k = 1; k < hit.editorLineCount; k++) covered.add(i + 1 + k);
  }
  for (const l of fromText) if (!merged.has(l.editorLine) && !covered.has(l.editorLine)) merged.set(l.editorLine, l);
  return [...merged.values()].sort((a, b) => a.editorLine - b.editorLine);
}
