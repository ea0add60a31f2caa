/**
 * The typed message protocol between the extension host and the correlation panel webview, on the shared message
 * layer (webview/shared/messages.ts). Both sides compile against these definitions; nothing else crosses the boundary.
 */
import type { Protocol, RequestShape } from '../shared/messages';
import type { EvaluatorComparison } from '../../src/core/correlation/compareEvaluators';
import type { StripPanel } from '../../src/core/correlation/forestPlot';
import type { BestRule, CorrelationMethod, CorrelationTable, HumanChoice } from '../../src/core/correlation/correlationTable';
import type { TableSummary } from '../../src/core/correlation/tableSummary';

/** The controls of the panel: one configuration of the table. */
export interface PanelSettings {
  method: CorrelationMethod;
  human: HumanChoice;
  /** `origin` | `model` | `strategy` | `source` | `kind` | `none` | a candidate field path. */
  groupBy: string;
  best: BestRule;
  /** Judge prompt variant `<body>×<request>` to line judges up by (empty: every variant as its own row). */
  variant: string;
  /** Compute bootstrap intervals (after each change, debounced, cooperatively). */
  intervals: boolean;
  resamples: number;
  seed: number;
  /**
   * Show the human ceiling as the first rows (as `reflect-eval correlate --ceiling`): one annotator of the group
   * against the rest, and every evaluator against the same leave-one-out targets.
   */
  ceiling: boolean;
  /** The rubric dimension the human score is taken on, its name exactly (`--dimension`); '' = the rubric's primary. */
  dimension?: string;
  /** How the labels on it become one score (`--human-score`); '' = the dimension's default (count or mean). */
  humanScore?: '' | 'mean' | 'median' | 'count' | 'majority';
}

export const DEFAULT_SETTINGS: PanelSettings = { method: 'spearman', human: 'auto', groupBy: 'origin', best: 'absolute', variant: '', intervals: false, resamples: 1000, seed: 1, ceiling: false, dimension: '', humanScore: '' };

/** A dimension of the study's rubric the table can correlate with (binary, ordinal or numeric). */
export interface DimensionChoice {
  name: string;
  title: string;
  type: 'binary' | 'ordinal' | 'numeric';
}

/** A pinned configuration as the panel shows it. */
export interface PinView {
  label: string;
  settings: PanelSettings;
}

/** State of the bootstrap intervals of the table on screen. */
export type IntervalState = 'off' | 'computing' | 'done' | 'failed';

/**
 * The table of the active dialogue file for the current settings and pins. The settings the webview sent last are
 * in it once the message's `done.webview` reaches that `settings` message (webview/correlation/settingsSync.ts).
 */
export interface TableView {
  file: string | null;
  /** Null when no dialogue file is active. */
  table: CorrelationTable | null;
  /** The settings this table was computed for. */
  settings: PanelSettings;
  pins: PinView[];
  /** Evaluators of the file (id, display name), for the comparison pickers. */
  evaluators: { id: string; name: string }[];
  /** Judge prompt variants present in the file (`body×request`). */
  variants: string[];
  labelledCandidates: number;
  totalCandidates: number;
  /** The study's rubric (`mi-acl2023` for the preset), its primary dimension and the dimensions a table can take. */
  rubric?: { name: string; primary: string; dimensions: DimensionChoice[] };
  /** What the CLI prints for this table (its sentence and notes), the group used and its labelled responses, an automatic switch of group. */
  summary?: TableSummary;
  /** Milliseconds the host spent: parsing + table, and the intervals when computed. */
  timing: { tableMs: number; intervalsMs?: number; candidates: number };
  intervals: IntervalState;
  message?: string;
}

/** Two evaluators compared under the current configuration (or why not). */
export interface ComparisonView {
  comparisons: EvaluatorComparison[] | null;
  error?: string;
  ms: number;
}

/** The responses behind one evaluator's row (current configuration), per column: for its strip plot. */
export interface StripView {
  evaluator: string;
  name: string;
  panels: StripPanel[];
}

export interface CorrelationProtocol extends Protocol {
  toWebview: { table: TableView };
  toHost: {
    ready: Record<string, never>;
    /** A change of the controls. */
    settings: { settings: PanelSettings };
    pin: { label: string };
    unpin: { index: number };
    export: { format: 'md' | 'latex' | 'csv' };
    /** A point was clicked: open that response in the dialogue editor. */
    open: { itemId: string; candidateId: string };
    /**
     * A table cell, forest-plot point or strip-plot point was clicked: open its responses (evaluator × column,
     * current configuration) as a response list in the dialogue editor, at the response `at` (a strip point) or the first.
     */
    openCell: { evaluator: string; column: string; at?: { itemId: string; candidateId: string } };
    /** Save the forest plot on screen: the SVG text, or a PNG (base64, drawn from that SVG on a canvas). */
    exportPlot: { format: 'svg' | 'png'; data: string };
  };
  requests: {
    /** Compare two evaluators (a newer comparison withdraws the one still on its way); null when no file is active. */
    compare: RequestShape<{ a: string; b: string }, ComparisonView | null>;
    /** A forest-plot row was clicked: that evaluator's strip plot data (a newer click withdraws the older one); null when no file is active. */
    strip: RequestShape<{ evaluator: string }, StripView | null>;
  };
}
