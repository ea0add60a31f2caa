/**
 * The typed message protocol between the extension host and the correlation panel webview. Both sides compile against these
 * definitions; nothing else crosses the boundary.
 */
import type { EvaluatorComparison } from '../../src/core/correlation/compareEvaluators';
import type { StripPanel } from '../../src/core/correlation/forestPlot';
import type { BestRule, CorrelationMethod, CorrelationTable, HumanChoice } from '../../src/core/correlation/correlationTable';

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
}

export const DEFAULT_SETTINGS: PanelSettings = { method: 'spearman', human: 'auto', groupBy: 'origin', best: 'absolute', variant: '', intervals: false, resamples: 1000, seed: 1, ceiling: false };

/** A pinned configuration as the panel shows it. */
export interface PinView {
  label: string;
  settings: PanelSettings;
}

/** State of the bootstrap intervals of the table on screen. */
export type IntervalState = 'off' | 'computing' | 'done' | 'failed';

export type CorrelationHostMessage =
  | {
      type: 'table';
      file: string | null;
      /** Null when no dialogue file is active. */
      table: CorrelationTable | null;
      /** The settings this table was computed for. */
      settings: PanelSettings;
      /** The revision of the webview's change those settings came from (0 before any change): see `settingsSync.ts`. */
      settingsRev: number;
      pins: PinView[];
      /** Evaluators of the file (id, display name), for the comparison pickers. */
      evaluators: { id: string; name: string }[];
      /** Judge prompt variants present in the file (`body×request`). */
      variants: string[];
      labelledCandidates: number;
      totalCandidates: number;
      /** Milliseconds the host spent: parsing + table, and the intervals when computed. */
      timing: { tableMs: number; intervalsMs?: number; candidates: number };
      intervals: IntervalState;
      message?: string;
    }
  | { type: 'comparison'; comparisons: EvaluatorComparison[] | null; error?: string; ms: number }
  /** The responses behind one evaluator's row (current configuration), per column: for its strip plot. */
  | { type: 'strip'; evaluator: string; name: string; panels: StripPanel[] };

export type CorrelationWebviewMessage =
  | { type: 'ready' }
  /** A change of the controls; `rev` counts the changes this webview has sent (1, 2, …). */
  | { type: 'settings'; settings: PanelSettings; rev: number }
  | { type: 'pin'; label: string }
  | { type: 'unpin'; index: number }
  | { type: 'compare'; a: string; b: string }
  | { type: 'export'; format: 'md' | 'latex' | 'csv' }
  /** A forest-plot row was clicked: send that evaluator's strip plot data. */
  | { type: 'strip'; evaluator: string }
  /** A point was clicked: open that response in the dialogue editor. */
  | { type: 'open'; itemId: string; candidateId: string }
  /** A table cell was clicked: open its responses (evaluator × column, current configuration) in the dialogue editor. */
  | { type: 'openCell'; evaluator: string; column: string }
  /** Save the forest plot on screen: the SVG text, or a PNG (base64, drawn from that SVG on a canvas). */
  | { type: 'exportPlot'; format: 'svg' | 'png'; data: string };
