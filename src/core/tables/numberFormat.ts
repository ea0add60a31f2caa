/**
 * Number formatting shared by the exports and the panel's webview (no dependencies, so the webview can bundle it).
 */

/**
 * A number to `digits` decimals (default 3, as the paper) that never reads `-0.000`: a value that rounds to zero
 * prints as `0.000` whatever its sign (a correlation of −0.0001 is no evidence of a negative association).
 */
export function formatNumber(v: number, digits = 3): string {
  const s = v.toFixed(digits);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
}

/**
 * Why a correlation is undefined (`CorrelationCell.undefinedReason`): fewer than three responses, a constant input,
 * or a configuration a side-by-side table does not hold.
 */
export type UndefinedReason = 'too-few' | 'constant-input' | 'not-in-configuration';

/** What the formatters read of a table cell (a correlation, a coefficient): its value, why it is undefined, its interval. */
export interface StatisticCell {
  statistic: number | null;
  undefinedReason?: UndefinedReason;
  ci?: { lower: number | null; upper: number | null; shortfall?: unknown };
}

/**
 * The mark beside an interval computed from fewer dialogue contexts than its method covers at (the coverage study,
 * docs/meta-evaluation.md#coverage): a note under the table says by how much it is too narrow.
 */
export const SHORTFALL_MARK = '‡';

/** The short phrase an undefined cell shows instead of a number: says what the data are like, not an error code. */
export const UNDEFINED_PHRASES: Record<UndefinedReason, string> = {
  'too-few': 'too few',
  'constant-input': 'all scores equal',
  'not-in-configuration': '—',
};

/** The short phrase for an undefined cell ({@link UNDEFINED_PHRASES}); `undefined (<reason>)` for other reasons. */
export function undefinedPhrase(reason: string | undefined): string {
  if (!reason) return 'undefined';
  return Object.hasOwn(UNDEFINED_PHRASES, reason) ? UNDEFINED_PHRASES[reason as UndefinedReason] : `undefined (${reason})`;
}

/** Why a cell is undefined, in a sentence, for a tooltip or a table's legend. */
export function undefinedExplanation(reason: string | undefined): string {
  switch (reason) {
    case 'too-few':
      return 'Undefined: fewer than 3 responses have both a usable score and a human label in this column.';
    case 'constant-input':
      return "Undefined: the evaluator's scores, or the human coherence scores, are the same for every response in this column, so no correlation exists (scipy gives nan).";
    case 'not-in-configuration':
      return 'This evaluator is not in this configuration.';
    default:
      return 'Undefined.';
  }
}

/** A correlation to 3 decimals (as the paper, never `-0.000`), or a short phrase saying why it is undefined — never NaN. */
export function formatStatistic(cell: Pick<StatisticCell, 'statistic' | 'undefinedReason'>): string {
  if (cell.undefinedReason === 'not-in-configuration') return '—';
  return cell.statistic === null ? undefinedPhrase(cell.undefinedReason) : formatNumber(cell.statistic);
}

/** A p-value: 4 decimals, or 2 significant digits in exponent form below 1e-4; empty when undefined. */
export function formatP(p: number | null): string {
  if (p === null) return '';
  return p < 1e-4 ? p.toExponential(2) : p.toFixed(4);
}

/** `[lower, upper]` to 3 decimals, `[undefined]` when too few resamples were defined, empty without bootstrap. */
export function formatInterval(cell: Pick<StatisticCell, 'ci'>): string {
  if (!cell.ci) return '';
  return cell.ci.lower === null || cell.ci.upper === null ? '[undefined]' : `[${formatNumber(cell.ci.lower)}, ${formatNumber(cell.ci.upper)}]${cell.ci.shortfall ? SHORTFALL_MARK : ''}`;
}
