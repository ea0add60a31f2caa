/**
 * A response list (issue 41 item 4): the responses behind one correlation — a table cell or a plot point of the
 * correlation panel — as the dialogue editor walks them: in a fixed order, one position at a time with J/K, until
 * Escape returns to the item the user was on. Pure: the panel builds the list (src/extension/correlationPanel.ts),
 * the editor's webview moves through it (webview/editor/main.ts).
 */

/** One response of the list: where it is in the file and the two numbers the correlation pairs for it. */
export interface ResponseListEntry {
  /** The item's index in the file (0-based). */
  index: number;
  itemId: string;
  /** The candidate's id as the editor shows it (opaque in blind mode). */
  candidateId: string;
  /** The evaluator's score (x of the correlation). */
  score: number;
  /** The human score on the table's dimension (y of the correlation; for coherence, how many said coherent). */
  human: number;
}

/** The list the editor shows: what it is (one line) and its responses in walking order. */
export interface ResponseList {
  /** e.g. `BLEU-4 × coherent, GPT-2` — the evaluator, the human score and the column. */
  title: string;
  /** The evaluator's readable name, for the banner's numbers. */
  evaluator: string;
  entries: ResponseListEntry[];
  /** The position (0-based) shown first. */
  start: number;
}

/**
 * The responses in walking order: the evaluator's score from highest to lowest, ties by the item's place in the
 * file and then the candidate id, so the same cell always gives the same list. Returns a new array.
 */
export function responseListOrder<T extends Pick<ResponseListEntry, 'index' | 'candidateId' | 'score'>>(entries: readonly T[]): T[] {
  return [...entries].sort((a, b) => b.score - a.score || a.index - b.index || (a.candidateId < b.candidateId ? -1 : a.candidateId > b.candidateId ? 1 : 0));
}

/**
 * The position of the response at (item `index`, `candidateId`), or -1 when the list does not have it.
 */
export function responsePosition(list: Pick<ResponseList, 'entries'>, index: number, candidateId: string | null): number {
  return candidateId === null ? -1 : list.entries.findIndex((e) => e.index === index && e.candidateId === candidateId);
}

/**
 * The position after a move of `delta` (J: +1, K: −1) from the response shown (`at`), or from `last` (the
 * position shown last) when the user has focused a candidate outside the list meanwhile. Null past either end
 * (the list does not wrap: the user is told they are at its end).
 *
 * @param at - the position of the focused response, or -1 when it is not in the list
 * @param last - the position shown last (0 ≤ last < length)
 */
export function stepResponse(length: number, at: number, last: number, delta: 1 | -1): number | null {
  if (length === 0) return null;
  // Off the list (another candidate focused): J/K go back to it, at the response shown last.
  if (at < 0) return Math.min(length - 1, Math.max(0, last));
  const next = at + delta;
  return next >= 0 && next < length ? next : null;
}

/**
 * The banner's line for position `at` of `list`: what the list is, where in it, the two numbers, the keys.
 * `blind`: without the two numbers (blind mode hides scores and what others said).
 */
export function responseListBanner(list: ResponseList, at: number, blind = false): string {
  const n = list.entries.length;
  const e = list.entries[at];
  const where = e ? ` · ${at + 1} of ${n}${blind ? '' : `: ${list.evaluator} ${formatScore(e.score)}, human ${formatScore(e.human)}`}` : '';
  return `${list.title}: ${n} response${n === 1 ? '' : 's'}${where} — J/K move, Esc returns`;
}

function formatScore(v: number): string {
  return Number.isInteger(v) ? String(v) : Math.abs(v) < 1e-3 && v !== 0 ? v.toExponential(2) : v.toFixed(3);
}
