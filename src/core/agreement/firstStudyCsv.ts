/**
 * CSV export of a {@link FirstStudyAnalysis}: one tidy (long) table that every view exports the same way.
 */
import { stringify } from 'csv-stringify/sync';
import type { FirstStudyAnalysis } from './firstStudy';

/** Which part of the analysis a CSV row belongs to. */
export type FirstStudyTable = 'agreement' | 'group-coherence' | 'coherence-rate' | 'error-distribution' | 'response';

/** One cell of the analysis: `table`, the annotator `group` (or empty), the row and column names, the value. */
export interface FirstStudyCsvRow {
  table: FirstStudyTable;
  group: string;
  row: string;
  column: string;
  /** A number, a label, or null when undefined (written as an empty cell). */
  value: number | string | boolean | null;
}

/** Column names of the CSV, in order. */
export const FIRST_STUDY_CSV_COLUMNS = ['table', 'group', 'row', 'column', 'value'] as const;

/**
 * The analysis as long rows: `agreement` (kappa, subjects, raters per Table 4 row and group), `group-coherence`
 * (laypeople vs experts per strategy), `coherence-rate` (Figure 3), `error-distribution` (Figure 4: share and
 * count per category) and `response` (per-response coherence scores and majority labels).
 *
 * @param tables - restrict to these parts (default: all)
 */
export function firstStudyCsvRows(a: FirstStudyAnalysis, tables?: readonly FirstStudyTable[]): FirstStudyCsvRow[] {
  const want = (t: FirstStudyTable) => !tables || tables.includes(t);
  const out: FirstStudyCsvRow[] = [];
  const push = (table: FirstStudyTable, group: string, row: string, cells: Record<string, number | string | boolean | null>) => {
    for (const [column, value] of Object.entries(cells)) out.push({ table, group, row, column, value });
  };
  if (want('agreement')) {
    for (const t of a.agreement) for (const r of t.rows) push('agreement', t.group, r.label, { kappa: r.kappa, subjects: r.subjects, raters: r.raters });
  }
  if (want('group-coherence')) {
    for (const g of a.groupCoherence) {
      push('group-coherence', '', g.strategy, {
        responses: g.responses,
        meanLaypeople: g.meanLaypeople,
        meanExperts: g.meanExperts,
        spearmanRho: g.spearman.statistic,
        spearmanP: g.spearman.pValue,
      });
    }
  }
  const mg = a.options.majorityGroup;
  if (want('coherence-rate')) {
    for (const r of a.coherenceRates) {
      push('coherence-rate', mg, r.strategy, {
        responses: r.responses,
        labelled: r.labelled,
        coherent: r.coherent,
        incoherent: r.incoherent,
        noMajority: r.noMajority,
        propagated: r.propagated,
        rate: r.rate,
        shown: r.shown,
      });
    }
  }
  if (want('error-distribution')) {
    for (const r of a.errorDistribution.rows) {
      const cells: Record<string, number | boolean> = { incoherent: r.incoherent };
      for (const c of a.errorDistribution.categories) cells[c.label] = r.shares[c.key];
      for (const c of a.errorDistribution.categories) cells[`${c.label} (count)`] = r.counts[c.key];
      cells.shown = r.shown;
      push('error-distribution', mg, r.strategy, cells);
    }
  }
  if (want('response')) {
    for (const r of a.responses) {
      push('response', '', `${r.itemId}/${r.candidateId}`, {
        strategies: r.strategies.join('; '),
        laypeopleCoherent: r.coherence.laypeople.coherent,
        laypeopleLabelled: r.coherence.laypeople.labelled,
        expertsCoherent: r.coherence.experts.coherent,
        expertsLabelled: r.coherence.experts.labelled,
        majority: r.majority,
        majorityError: r.majorityError,
        propagatedFrom: r.propagatedFrom ?? null,
      });
    }
  }
  return out;
}

/** The analysis as CSV text (header `table,group,row,column,value`; numbers at full precision; null → empty). */
export function firstStudyCsv(a: FirstStudyAnalysis, tables?: readonly FirstStudyTable[]): string {
  const rows = firstStudyCsvRows(a, tables).map((r) => [r.table, r.group, r.row, r.column, r.value === null ? '' : String(r.value)]);
  return stringify([[...FIRST_STUDY_CSV_COLUMNS], ...rows]);
}
