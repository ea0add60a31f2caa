/**
 * Whether a correlation table shows its laypeople–experts row — one rule for the text, CSV, LaTeX and Markdown exports
 * and the forest plot. A module of its own with no imports of value, so the webviews that draw the forest plot bundle
 * none of the exporters' dependencies (csv-stringify needs Node's Buffer, which a webview does not have).
 */
import type { CorrelationTable } from './correlationTable';

/**
 * Always for the MI preset's coherence count (as it always has); for any other dimension only when the data has both
 * groups on common responses (a table never prints a row the data does not have).
 */
export function showsReferenceRow(t: Pick<CorrelationTable, 'dimension' | 'reference'>): boolean {
  return !t.dimension || t.reference.cells.some((c) => c.n > 0);
}
