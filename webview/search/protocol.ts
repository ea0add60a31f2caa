/**
 * The typed message protocol between the extension host and the prompt search leaderboard webview, on the shared
 * message layer (webview/shared/messages.ts). Both sides compile against these definitions; nothing else crosses
 * the boundary.
 */
import type { Protocol } from '../shared/messages';
import type { CrossFit, LeaderboardRow } from '../../src/core/judges/searchReport';

/** The report's header as the panel shows it. */
export interface LeaderboardSummary {
  /** How the labelled items were split, e.g. `dev/held-out by context, seed 0: 8 + 7 contexts`. */
  split: string;
  human: string;
  /** With a rubric dimension: how the target is named, e.g. `mean rating of Overall (dimension "Overall", all)`; absent: the share saying coherent. */
  target?: string;
  /** Development − held-out rho of the chosen variant. */
  optimismGap: number | null;
  calls: number;
  cacheHits: number;
  /** What was shown before the run. */
  estimate: { judgements: number; cost: number | null } | null;
  crossFit: CrossFit | null;
}

/** The leaderboard the panel shows. */
export interface LeaderboardView {
  /** The report file (workspace-relative), or null when no dialogue file is active. */
  report: string | null;
  /** Why there is nothing to show (no report yet, a bad report). */
  error: string | null;
  summary: LeaderboardSummary | null;
  rows: LeaderboardRow[];
}

export interface SearchProtocol extends Protocol {
  toWebview: { leaderboard: LeaderboardView };
  toHost: {
    ready: Record<string, never>;
    refresh: Record<string, never>;
    /** A variant was clicked: open its assembled prompt in the prompt preview (`index` into the report's entries). */
    open: { index: number };
  };
  requests: Record<string, never>;
}
