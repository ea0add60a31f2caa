/**
 * Rewriting a whole dialogue file between the long form and the compact form (`compactScores.ts`;
 * `reflect-eval compact`; docs/format.md, "Compact files"). Lines that are not items are kept byte for byte.
 */
import { encodeUtf8 } from './bytes';
import { buildHeader, compactScore, formatHeader, type CompactOptions, type EvaluatorEntry, type FileHeader } from './compactScores';
import { documentBytes, documentItems, serializeItem, type DialogueDocument, type LineEdit } from './jsonl';

/** What a rewrite did. */
export interface CompactResult {
  /** The file's new bytes. */
  bytes: Uint8Array;
  /** Evaluators the header lists (0 after expanding). */
  evaluators: number;
  /** Scores written under an alias. */
  compactScores: number;
  /** Scores left in the long form (they differ from their evaluator's shared fields). */
  longScores: number;
  /** Raw replies of parsed scores dropped (kept in the reply cache). */
  rawDropped: number;
  /** Scores whose own time was dropped (the evaluator keeps its latest). */
  timesDropped: number;
}

const BOM = '\uFEFF';

/**
 * The file with a header listing every evaluator and each score under its alias (a file that has a header gets a
 * new one). Each score's time and each parsed score's raw reply are dropped unless `options` keeps them; nothing
 * else changes: reading the result gives the same items, those fields aside.
 *
 * @param doc - the file, read from bytes (`readDialogueFile`) or text
 */
export function compactDocument(doc: DialogueDocument, options: CompactOptions = {}): CompactResult {
  const items = documentItems(doc);
  // Fields of an earlier header that ReflectEval does not know are kept.
  const { evaluators: _evaluators, format: _format, version: _version, ...extra } = doc.header ?? ({} as Partial<FileHeader>);
  const { header, items: trimmed } = buildHeader(items, options, extra);
  let rawDropped = 0;
  let timesDropped = 0;
  let compactScores = 0;
  let longScores = 0;
  const entries = new Map<string, EvaluatorEntry>(header.evaluators.map((e) => [e.id, e]));
  const edits: LineEdit[] = trimmed.map((item, i) => {
    items[i].candidates.forEach((c, ci) => {
      for (const [id, s] of Object.entries(c.scores ?? {})) {
        const t = trimmed[i].candidates[ci].scores[id];
        if (s?.raw !== undefined && t?.raw === undefined) rawDropped++;
        if (s?.at !== undefined && t?.at !== s.at) timesDropped++;
        // As serializeItem decides: under an alias when the header can say the score exactly.
        const entry = entries.get(id);
        if (t !== undefined && entry && compactScore(t, entry) !== undefined) compactScores++;
        else longScores++;
      }
    });
    const line = doc.itemLines[i];
    const text = serializeItem(item, header);
    return { line, oldText: doc.lines[line].raw.text, newText: text };
  });
  const headerText = formatHeader(header);
  const first = doc.lines[0];
  const bom = first?.raw.text.startsWith(BOM) ?? false;
  let bytes: Uint8Array;
  if (first?.kind === 'header') {
    bytes = documentBytes(doc, [{ line: 0, oldText: first.raw.text, newText: (bom ? BOM : '') + headerText }, ...edits]);
  } else {
    // The header goes first; a byte order mark moves with the start of the file. Item lines are written without
    // one; a first line that is not an item keeps its bytes but the mark's three.
    const eol = first && first.raw.eol !== '' ? first.raw.eol : '\n';
    let rest = documentBytes(doc, edits);
    if (bom && rest[0] === 0xef && rest[1] === 0xbb && rest[2] === 0xbf) rest = rest.subarray(3);
    const head = encodeUtf8((bom ? BOM : '') + headerText + eol);
    bytes = new Uint8Array(head.length + rest.length);
    bytes.set(head, 0);
    bytes.set(rest, head.length);
  }
  return { bytes, evaluators: header.evaluators.length, compactScores, longScores, rawDropped, timesDropped };
}

/**
 * The file in the long form: the header line removed and every score under its full id, as ReflectEval 0.1 and any
 * JSONL tool read it. Lines that are not items are kept byte for byte; a file without a header comes back unchanged.
 */
export function expandDocument(doc: DialogueDocument): CompactResult {
  const none = { evaluators: 0, compactScores: 0, longScores: 0, rawDropped: 0, timesDropped: 0 };
  const first = doc.lines[0];
  if (first?.kind !== 'header') return { bytes: documentBytes(doc), ...none };
  const items = documentItems(doc);
  let longScores = 0;
  const edits: LineEdit[] = items.map((item, i) => {
    longScores += item.candidates.reduce((n, c) => n + Object.keys(c.scores ?? {}).length, 0);
    const line = doc.itemLines[i];
    return { line, oldText: doc.lines[line].raw.text, newText: serializeItem(item) };
  });
  const bom = first.raw.text.startsWith(BOM);
  const all = documentBytes(doc, [{ line: 0, oldText: first.raw.text, newText: '' }, ...edits]);
  // Drop the (now empty) header line and its line ending; a byte order mark stays at the start of the file.
  const cut = first.raw.eol.length;
  const rest = all.subarray(cut);
  if (!bom) return { bytes: rest, ...none, longScores };
  const head = encodeUtf8(BOM);
  const bytes = new Uint8Array(head.length + rest.length);
  bytes.set(head, 0);
  bytes.set(rest, head.length);
  return { bytes, ...none, longScores };
}
