/**
 * The evaluator × human correlation table (Wu et al., ICMI 2023 §3: Spearman's correlation between an
 * evaluator's scores and the coherence score, i.e. the number of annotators who said "coherent").
 */
import { coherenceScore } from '../labels/annotate';
import type { Annotation, DialogueItem } from '../model/types';
import { spearmanRho, type CorrelationResult } from '../stats/correlation';

/** One row: an evaluator against the human coherence score. */
export interface CorrelationRow {
  evaluatorId: string;
  /** Candidates with both an `ok` score from this evaluator and at least one coherence label. */
  n: number;
  /** Candidates that have a score (any status) but were left out: no label, or a score that is not `ok`. */
  excluded: number;
  result: CorrelationResult;
}

/** Options of {@link correlationTable}. */
export interface CorrelationTableOptions {
  /** Which annotators count toward the coherence score (default: all). */
  annotators?: (a: Annotation) => boolean;
}

/**
 * For every evaluator id found on any candidate, Spearman's rho between its scores and the human coherence
 * score over the candidates that have both, with n and the two-sided p-value (Student's t, n − 2 df, as
 * scipy.stats.spearmanr). Rows are sorted by evaluator id.
 */
export function correlationTable(items: readonly DialogueItem[], options: CorrelationTableOptions = {}): CorrelationRow[] {
  const pairs = new Map<string, { x: number[]; y: number[]; excluded: number }>();
  for (const item of items) {
    for (const c of item.candidates) {
      const human = coherenceScore(c, options.annotators);
      for (const [id, score] of Object.entries(c.scores ?? {})) {
        let p = pairs.get(id);
        if (!p) pairs.set(id, (p = { x: [], y: [], excluded: 0 }));
        if (human === null || score.status !== 'ok' || typeof score.value !== 'number') {
          p.excluded++;
          continue;
        }
        p.x.push(score.value);
        p.y.push(human);
      }
    }
  }
  return [...pairs.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([evaluatorId, p]) => ({ evaluatorId, n: p.x.length, excluded: p.excluded, result: spearmanRho(p.x, p.y) }));
}

/** Formats a number to 3 decimals, or the reason it is undefined. */
function cell(v: number | null, reason?: string): string {
  return v === null ? `undefined (${reason ?? 'n/a'})` : v.toFixed(3);
}

/** The table as aligned plain text (for the CLI). */
export function formatCorrelationTable(rows: CorrelationRow[]): string {
  const header = ['evaluator', 'n', 'excluded', 'spearman rho', 'p'];
  const body = rows.map((r) => [
    r.evaluatorId,
    String(r.n),
    String(r.excluded),
    cell(r.result.statistic, r.result.undefinedReason),
    r.result.pValue === null ? '' : r.result.pValue < 1e-4 ? r.result.pValue.toExponential(2) : r.result.pValue.toFixed(4),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => r[i].length)));
  const line = (cols: string[]) => cols.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
