/**
 * Number formatting shared by the exports and the panel's webview (no dependencies, so the webview can bundle it).
 */
import type { CorrelationCell } from './correlationTable';

/** A correlation to 3 decimals (as the paper), or `undefined (<reason>)` — never NaN. */
export function formatStatistic(cell: Pick<CorrelationCell, 'statistic' | 'undefinedReason'>): string {
  if (cell.undefinedReason === 'not-in-configuration') return '—';
  return cell.statistic === null ? `undefined (${cell.undefinedReason ?? 'n/a'})` : cell.statistic.toFixed(3);
}

/** A p-value: 4 decimals, or 2 significant digits in exponent form below 1e-4; empty when undefined. */
export function formatP(p: number | null): string {
  if (p === null) return '';
  return p < 1e-4 ? p.toExponential(2) : p.toFixed(4);
}

/** `[lower, upper]` to 3 decimals, `[undefined]` when too few resamples were defined, empty without bootstrap. */
export function formatInterval(cell: Pick<CorrelationCell, 'ci'>): string {
  if (!cell.ci) return '';
  return cell.ci.lower === null || cell.ci.upper === null ? '[undefined]' : `[${cell.ci.lower.toFixed(3)}, ${cell.ci.upper.toFixed(3)}]`;
}
