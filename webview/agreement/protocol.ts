/**
 * The typed message protocol between the extension host and the agreement & error analyses panel webview, on the
 * shared message layer (webview/shared/messages.ts). Both sides compile against these definitions; nothing else
 * crosses the boundary.
 */
import type { Protocol } from '../shared/messages';
import type { FirstStudyAnalysis } from '../../src/core/agreement/firstStudy';
import type { FirstStudyTable } from '../../src/core/agreement/firstStudyCsv';

/** The analysis as the panel shows it: `firstStudyAnalysis`'s result without the per-response list. */
export type AnalysisView = Omit<FirstStudyAnalysis, 'responses'>;

/** Tables the panel exports as CSV (the tidy layout of `reflect-eval agreement --csv`, restricted to one part). */
export type ExportableTable = Extract<FirstStudyTable, 'agreement' | 'group-coherence' | 'coherence-rate' | 'error-distribution'> | 'error-categories';

/**
 * One error-category judge against the majority error labels of the experts (`errorCategoryAgreement`, the table
 * `reflect-eval agreement --errors-vs <judge> --bootstrap` prints): cells as the text export prints them.
 */
export interface ErrorCategoryTableView {
  evaluatorId: string;
  /** The judge's readable name (the legend's). */
  name: string;
  title: string;
  columns: string[];
  /** One row per category, then the most evident error; `rowKeys` name them (`malformed`, …, `mostEvidentError`). */
  cells: string[][];
  rowKeys: string[];
  /** Cohen's kappa of each row, unrounded (null when undefined). */
  kappas: (number | null)[];
  notes: string[];
}

/** A dimension of the study's rubric the agreement picker offers (any but free text). */
export interface RubricDimensionChoice {
  name: string;
  title: string;
  type: string;
}

/**
 * The agreement of one rubric dimension on a study with its own rubric (`reflect-eval agreement <file> --dimension
 * <name>`): per annotator group, the table as the text export prints it and each row's unrounded coefficients.
 */
export interface DimensionAgreementView {
  dimension: string;
  type: string;
  tables: {
    group: string;
    title: string;
    columns: string[];
    cells: string[][];
    notes: string[];
    rows: {
      key: string;
      level: string;
      /** The coefficient that fits the row's level: Fleiss' kappa (nominal) or Krippendorff's alpha (ordinal, interval). */
      headline: { name: string; value: number | null };
      kappa: number | null;
      alpha: number | null;
      ac1: number | null;
      iccSingle: number | null;
      iccAverage: number | null;
    }[];
  }[];
}

/** The analysis of the active dialogue file, as the panel shows it. */
export interface AnalysisMessage {
  /** Workspace-relative path of the dialogue file, or null when no dialogue editor is open. */
  file: string | null;
  analysis: AnalysisView | null;
  /** Error-category judges in the file against the experts' error labels (empty when there is none). */
  errorCategories: ErrorCategoryTableView[];
  /** The command line that prints the same numbers. */
  cli: string | null;
  /** Why there is no analysis (e.g. a file that cannot be read). */
  error?: string;
  /**
   * A study with a rubric of its own (not the MI preset): its dimensions for the picker and the picked one's
   * coefficients; then `analysis` (the first study's coherence analyses) is null.
   */
  rubric?: { name: string; primary: string; dimensions: RubricDimensionChoice[] };
  dimension?: DimensionAgreementView;
}

export interface AgreementProtocol extends Protocol {
  toWebview: { analysis: AnalysisMessage };
  /** `exportCsv`: write one part of the analysis as CSV where the user picks. */
  toHost: { ready: Record<string, never>; exportCsv: { table: ExportableTable }; pickDimension: { dimension: string } };
  requests: Record<string, never>;
}
