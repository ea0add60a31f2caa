/**
 * The typed message protocol between the extension host and the agreement & error analyses panel webview. Both
 * sides compile against these definitions; nothing else crosses the boundary.
 */
import type { FirstStudyAnalysis } from '../../src/core/analysis/firstStudy';
import type { FirstStudyTable } from '../../src/core/analysis/firstStudyCsv';

/** The analysis as the panel shows it: `firstStudyAnalysis`'s result without the per-response list. */
export type AnalysisView = Omit<FirstStudyAnalysis, 'responses'>;

/** Tables the panel exports as CSV (the tidy layout of `reflect-eval agreement --csv`, restricted to one part). */
export type ExportableTable = Extract<FirstStudyTable, 'agreement' | 'group-coherence' | 'coherence-rate' | 'error-distribution'>;

export type AgreementHostMessage = {
  type: 'analysis';
  /** Workspace-relative path of the dialogue file, or null when no dialogue editor is open. */
  file: string | null;
  analysis: AnalysisView | null;
  /** The command line that prints the same numbers. */
  cli: string | null;
  /** Why there is no analysis (e.g. a file that cannot be read). */
  error?: string;
};

export type AgreementWebviewMessage = { type: 'ready' } | { type: 'exportCsv'; table: ExportableTable };
