/**
 * Export of dialogue items as a long annotation table in the layout of the Wu et al. ACL 2023 release (see
 * `layout.ts` and docs/annotations.md).
 */
import { stringify } from 'csv-stringify/sync';
import { decodingStrategy } from '../dialogue/strategy';
import { annotatorGroup } from '../labels/groups';
import { candidateOrigins, type Annotation, type Candidate, type CandidateOrigin, type DialogueItem } from '../dialogue/types';
import { labelCell, sameLabelMeaning, tableStyleOf } from './annotationCells';
import { ANNOTATION_TABLE_COLUMNS, DEFAULT_EXPERT_PREFIX, OPTIONAL_COLUMNS, normaliseHeader, pythonJsonString, type OptionalColumn } from './annotationColumns';

/** Options of {@link exportAnnotationTable}. */
export interface AnnotationExportOptions {
  /**
   * Expert prefix the importer will use: an `annotator_group` column is written only when some annotation's
   * group differs from what this prefix says (default `Expert`).
   */
  expertPrefix?: string;
  /** Line ending (default `\n`). */
  eol?: '\n' | '\r\n';
}

/** What {@link exportAnnotationTable} wrote. */
export interface AnnotationExportResult {
  csv: string;
  columns: string[];
  /** Data rows written (header excluded). */
  rows: number;
}

type Extra = Record<string, string> | undefined;

function extraOf(x: { [key: string]: unknown }): Record<string, string> {
  const e = x.extraColumns;
  if (!e || typeof e !== 'object') return {};
  return Object.fromEntries(Object.entries(e as Record<string, unknown>).map(([k, v]) => [k, v === null || v === undefined ? '' : String(v)]));
}

/** The `reflection_source` of one origin: its `source`, `Human` for an unnamed human, else its strategy label. */
export function sourceOf(origin: CandidateOrigin): string {
  if (origin.source?.trim()) return origin.source.trim();
  if (origin.kind === 'human') return 'Human';
  return decodingStrategy(origin).label;
}

/** The dialogue context as the release writes it: a JSON list of one-key objects, as Python's json.dumps. */
export function contextJson(item: DialogueItem): string {
  return `[${item.context.map((t) => `{${pythonJsonString(t.speaker)}: ${pythonJsonString(t.text)}}`).join(', ')}]`;
}

/**
 * Writes items as the release's long table: one row per (candidate, annotation), in item, candidate and
 * annotation order. Columns: the release's twelve; then, only when some annotation needs them,
 * `most_evident_error`, `other`, `other_text`, `empathy` and `annotator_group`; then every `extraColumns`
 * name. When every item was imported from tables with the same header (`provenance.tableColumns`), that header's
 * order and spellings are used, so an imported table comes back with its own columns.
 *
 * - `annomi_dialogue_id`: `provenance.transcriptId`, else the item id; `stage`: `provenance.stage` or empty.
 * - `reflection_source`: the origin's `source` (else `Human` or the decoding strategy label); a candidate with
 *   exact duplicates lists every origin's source joined by ` | `, which the importer reads back as
 *   `duplicateOrigins`.
 * - Labels: Yes/No; error columns are empty unless the annotator said incoherent (then Yes, or the table's cell
 *   for an error not chosen — `No` by default, empty in the release — or empty when no errors were recorded); the
 *   MEE as the paper names it ("On-topic but unverifiable"). Spellings follow the item's `provenance.tableStyle`
 *   and the annotation's `tableCells` (see `cells.ts`), so an imported table comes back byte for byte.
 * - A candidate without annotations gets one row with an empty `annotator`; an item without candidates one row
 *   with empty `reflection_source`, `reflection` and `annotator`; so nothing is lost on a round trip through
 *   {@link importAnnotationTable}. Fields the layout has no place for (decoding settings, scores, cluster,
 *   timestamps, context turn codes) are not written.
 */
export function exportAnnotationTable(items: readonly DialogueItem[], options: AnnotationExportOptions = {}): AnnotationExportResult {
  const rules = { expertPrefix: options.expertPrefix ?? DEFAULT_EXPERT_PREFIX };
  const anns = items.flatMap((i) => i.candidates.flatMap((c) => c.annotations));
  const groupDiffers = (a: Annotation) => {
    if (!a.group) return false;
    const byPrefix = a.annotator.toLowerCase().startsWith(rules.expertPrefix.toLowerCase()) ? 'expert' : 'layperson';
    return annotatorGroup(a) !== byPrefix;
  };
  const need: Record<OptionalColumn, boolean> = {
    most_evident_error: anns.some((a) => a.mostEvidentError !== undefined),
    other: anns.some((a) => a.coherent === false && a.errors?.includes('other')),
    other_text: anns.some((a) => typeof a.otherText === 'string' && a.otherText !== ''),
    empathy: anns.some((a) => a.empathy !== undefined),
    annotator_group: anns.some(groupDiffers),
  };

  // extra columns, in first-seen order over items, candidates, annotations
  const extraNames: string[] = [];
  const addExtra = (e: Record<string, string>) => {
    for (const k of Object.keys(e)) if (!extraNames.includes(k)) extraNames.push(k);
  };
  for (const i of items) {
    addExtra(extraOf(i));
    for (const c of i.candidates) {
      addExtra(extraOf(c));
      for (const a of c.annotations) addExtra(extraOf(a));
    }
  }

  // column layout: a shared imported header if there is one, else canonical
  const headers = items.map((i) => (Array.isArray(i.provenance?.tableColumns) ? (i.provenance!.tableColumns as string[]).join('\u0000') : ''));
  const shared = headers.length > 0 && headers.every((h) => h && h === headers[0]) ? (items[0].provenance!.tableColumns as string[]) : undefined;
  // column name → what it holds
  type Role = { kind: 'standard'; col: string } | { kind: 'optional'; col: OptionalColumn } | { kind: 'extra'; name: string };
  const layout: { header: string; role: Role }[] = [];
  const placed = new Set<string>();
  if (shared) {
    for (const h of shared) {
      const n = normaliseHeader(h);
      if ((ANNOTATION_TABLE_COLUMNS as readonly string[]).includes(n) && !placed.has(n)) {
        layout.push({ header: h, role: { kind: 'standard', col: n } });
        placed.add(n);
        continue;
      }
      const opt = (Object.entries(OPTIONAL_COLUMNS) as [OptionalColumn, readonly string[]][]).find(([k, aliases]) => aliases.includes(n) && !placed.has(k));
      if (opt && !extraNames.includes(h)) {
        layout.push({ header: h, role: { kind: 'optional', col: opt[0] } });
        placed.add(opt[0]);
        continue;
      }
      layout.push({ header: h, role: { kind: 'extra', name: h } });
      placed.add(`extra:${h}`);
    }
  }
  for (const c of ANNOTATION_TABLE_COLUMNS) if (!placed.has(c)) layout.push({ header: c, role: { kind: 'standard', col: c } });
  for (const k of Object.keys(OPTIONAL_COLUMNS) as OptionalColumn[]) if (need[k] && !placed.has(k)) layout.push({ header: k, role: { kind: 'optional', col: k } });
  for (const name of extraNames) if (!placed.has(`extra:${name}`)) layout.push({ header: name, role: { kind: 'extra', name } });

  const records: string[][] = [];
  const write = (item: DialogueItem, cand: Candidate | undefined, ann: Annotation | undefined) => {
    const itemExtra = extraOf(item);
    const candExtra: Extra = cand ? extraOf(cand) : undefined;
    const annExtra: Extra = ann ? extraOf(ann) : undefined;
    const style = tableStyleOf(item.provenance?.tableStyle);
    const kept = ann?.tableCells && typeof ann.tableCells === 'object' ? (ann.tableCells as Record<string, unknown>) : undefined;
    /** A label cell: as the table wrote it on import when that still says what the annotation says, else canonical. */
    const label = (col: string): string => {
      const canonical = labelCell(col, ann, style);
      const raw = kept?.[col];
      return typeof raw === 'string' && raw !== canonical && sameLabelMeaning(col, raw, canonical) ? raw : canonical;
    };
    const value = (role: Role): string => {
      if (role.kind === 'extra') return annExtra?.[role.name] ?? candExtra?.[role.name] ?? itemExtra[role.name] ?? '';
      if (role.kind === 'optional') return role.col === 'other_text' ? (ann?.otherText ?? '') : label(role.col);
      switch (role.col) {
        case 'annomi_dialogue_id':
          return String(item.provenance?.transcriptId ?? item.id);
        case 'stage':
          return typeof item.provenance?.stage === 'string' ? item.provenance.stage : '';
        case 'dialogue_context':
          return contextJson(item);
        case 'reflection_source':
          return cand ? candidateOrigins(cand).map(sourceOf).join(' | ') : '';
        case 'reflection':
          return cand?.text ?? '';
        case 'annotator':
          return ann?.annotator ?? '';
        default:
          return label(role.col); // coherence and the error columns
      }
    };
    records.push(layout.map((l) => value(l.role)));
  };
  for (const item of items) {
    if (item.candidates.length === 0) write(item, undefined, undefined);
    for (const c of item.candidates) {
      if (c.annotations.length === 0) write(item, c, undefined);
      for (const a of c.annotations) write(item, c, a);
    }
  }
  const columns = layout.map((l) => l.header);
  const csv = stringify([columns, ...records], { record_delimiter: options.eol === '\r\n' ? 'windows' : 'unix' });
  return { csv, columns, rows: records.length };
}
