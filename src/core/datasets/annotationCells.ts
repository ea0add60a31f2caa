/**
 * How an annotation's labels are written as cells of the long annotation table, shared by the exporter (which
 * writes them) and the importer (which records where a table wrote them differently, so that an imported table
 * exports back byte for byte).
 *
 * A table has a **style**: how it spells Yes and No, and what it writes in an error column the annotator did not
 * mark on an incoherent row. The ACL 2023 release writes `Yes` for a chosen error and leaves the others *empty*
 * (`No,,,Yes,,`); ReflectEval's own default is `No` (`No,No,No,Yes,No,No`). The importer detects the style of a
 * table (`provenance.tableStyle`, only the parts that differ from the default) and keeps any cell that differs
 * from what the style would write in `annotation.tableCells` (keyed by the canonical column name); the exporter
 * writes such a cell back verbatim as long as it still means what the annotation says (a label changed in the
 * editor is written the canonical way).
 */
import { ERROR_LABELS } from '../labels/scheme';
import type { Annotation } from '../dialogue/types';
import { ERROR_COLUMNS, parseErrorCategory, parseLikert, parseYesNo } from './annotationColumns';

/** Spellings of a table: Yes, No, and the cell of an error not chosen on an incoherent row. */
export interface TableStyle {
  yes: string;
  no: string;
  /** What an error column holds on an incoherent row when that error was not chosen (the release: empty). */
  unmarkedError: string;
}

/** ReflectEval's own spellings. */
export const DEFAULT_TABLE_STYLE: Readonly<TableStyle> = { yes: 'Yes', no: 'No', unmarkedError: 'No' };

/** The label columns, by canonical name (the release's names, and the optional columns' keys). */
export const LABEL_COLUMNS = ['coherent_and_context_consistent', ...Object.keys(ERROR_COLUMNS), 'other', 'most_evident_error', 'empathy', 'annotator_group'] as const;

/** The full style of an item: the default overridden by the parts stored in `provenance.tableStyle`. */
export function tableStyleOf(stored: unknown): TableStyle {
  const s = stored && typeof stored === 'object' ? (stored as Partial<TableStyle>) : {};
  const pick = (k: keyof TableStyle) => (typeof s[k] === 'string' ? s[k] : undefined);
  return { yes: pick('yes') ?? DEFAULT_TABLE_STYLE.yes, no: pick('no') ?? DEFAULT_TABLE_STYLE.no, unmarkedError: pick('unmarkedError') ?? DEFAULT_TABLE_STYLE.unmarkedError };
}

/** The parts of `style` that differ from {@link DEFAULT_TABLE_STYLE} (what is stored), or undefined when none. */
export function storedTableStyle(style: TableStyle): Partial<TableStyle> | undefined {
  const out: Partial<TableStyle> = {};
  for (const k of Object.keys(DEFAULT_TABLE_STYLE) as (keyof TableStyle)[]) if (style[k] !== DEFAULT_TABLE_STYLE[k]) out[k] = style[k];
  return Object.keys(out).length ? out : undefined;
}

/**
 * The cell the exporter writes for `column` (a name of {@link LABEL_COLUMNS}) of one annotation under `style`:
 * coherence Yes/No; an error column (and `other`) Yes/unmarked when the annotator said incoherent and recorded
 * errors, else empty; the MEE as the paper names it; empathy 1–5; the annotator group as stored.
 */
export function labelCell(column: string, ann: Annotation | undefined, style: TableStyle): string {
  if (!ann) return '';
  const incoherent = ann.coherent === false;
  switch (column) {
    case 'coherent_and_context_consistent':
      return ann.coherent === undefined ? '' : ann.coherent ? style.yes : style.no;
    case 'most_evident_error':
      return ann.mostEvidentError ? ERROR_LABELS[ann.mostEvidentError] : '';
    case 'empathy':
      return ann.empathy !== undefined ? String(ann.empathy) : '';
    case 'annotator_group':
      return ann.group ?? '';
    case 'other':
      return incoherent && ann.errors ? (ann.errors.includes('other') ? style.yes : style.unmarkedError) : '';
    default: {
      const cat = ERROR_COLUMNS[column];
      if (!cat) return '';
      return incoherent && ann.errors ? (ann.errors.includes(cat) ? style.yes : style.unmarkedError) : '';
    }
  }
}

function safely<T>(read: () => T): T | Error {
  try {
    return read();
  } catch (err) {
    return err as Error;
  }
}

/**
 * True when the cell `raw` says what `canonical` (from {@link labelCell}) says, as the importer reads it: the
 * same coherence answer; for an error column, marked (Yes) or not (No, empty); the same MEE, empathy, group.
 * A cell the importer would reject is never the same.
 */
export function sameLabelMeaning(column: string, raw: string, canonical: string): boolean {
  // An empty group cell makes the importer derive the group from the annotator's name again.
  if (column === 'annotator_group' && raw.trim() === '') return true;
  const read = column === 'most_evident_error' ? parseErrorCategory : column === 'empathy' ? parseLikert : column === 'annotator_group' ? (v: string) => v.trim() : parseYesNo;
  const a = safely(() => read(raw));
  const b = safely(() => read(canonical));
  if (a instanceof Error || b instanceof Error) return false;
  if (column === 'coherent_and_context_consistent' || read !== parseYesNo) return a === b;
  return (a === true) === (b === true);
}

/** Counts spellings; the most common one wins, `fallback` on a tie with it or when none was counted, else the first seen. */
export class SpellingCount {
  private readonly counts = new Map<string, number>();
  add(v: string): void {
    this.counts.set(v, (this.counts.get(v) ?? 0) + 1);
  }
  mostCommon(fallback: string): string {
    let best = fallback;
    let n = this.counts.get(fallback) ?? 0;
    for (const [v, c] of this.counts) if (c > n) [best, n] = [v, c];
    return best;
  }
}
