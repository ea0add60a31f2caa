/**
 * The typed message protocol between the extension host and the correlation panel webview. Both sides compile against these
 * definitions; nothing else crosses the boundary.
 */

/** One evaluator row as shown in the panel. */
export interface CorrelationRowView {
  evaluatorId: string;
  n: number;
  excluded: number;
  rho: number | null;
  pValue: number | null;
  undefinedReason?: string;
}

export type CorrelationHostMessage =
  | { type: 'table'; file: string | null; rows: CorrelationRowView[]; labelledCandidates: number; totalCandidates: number };

export type CorrelationWebviewMessage = { type: 'ready' };
