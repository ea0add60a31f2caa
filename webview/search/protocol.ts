/**
 * The typed message protocol between the extension host and the prompt search leaderboard webview. Both sides
 * compile against these definitions; nothing else crosses the boundary.
 */
import type { CrossFit, LeaderboardRow } from '../../src/core/judges/searchReport';

/** The report's header as the panel shows it. */
export interface LeaderboardSummary {
  /** How the labelled items were split, e.g. `dev/held-out by context, seed 0: 8 + 7 contexts`. */
  split: string;
  human: string;
  /** Development − held-out rho of the chosen variant. */
  optimismGap: number | null;
  calls: number;
  cacheHits: number;
  /** What was shown before the run. */
  estimate: { judgements: number; cost: number | null } | null;
  crossFit: CrossFit | null;
}

export type SearchHostMessage = {
  type: 'leaderboard';
  /** The report file (workspace-relative), or null when no dialogue file is active. */
  report: string | null;
  /** Why there is nothing to show (no report yet, a bad report). */
  error: string | null;
  summary: LeaderboardSummary | null;
  rows: LeaderboardRow[];
};

export type SearchWebviewMessage =
  | { type: 'ready' }
  | { type: 'refresh' }
  /** A variant was clicked: open its assembled prompt in the prompt preview (`index` into the report's entries). */
  | { type: 'open'; index: number };
