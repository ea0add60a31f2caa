/**
 * Judge repeatability on a dialogue file: for every judge variant whose scores keep K replies (`judge --repeats K`),
 * the statistics of `repeatability.ts` — alpha across repeats, the share of candidates whose reply changes, the
 * verdict flip rate at the humans' rate, the per-candidate spread — and the correlation of the mean of K with the
 * human coherence score, its interval resampling repeats as well as items (two-stage bootstrap).
 */
import { displayNames, evaluatorSignatures } from '../evaluators/evaluatorNames';
import { resolveHuman, type CorrelationMethod, type HumanChoice } from '../correlation/correlationTable';
import type { DialogueItem } from '../dialogue/types';
import { coherenceScore } from '../labels/annotate';
import { DEFAULT_GROUP_RULES, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';
import type { PlainTable } from './metaEvaluationExport';
import { matchRateThreshold } from './majorityLabel';
import { repeatability, twoStageCorrelation, type RepeatReplies, type RepeatabilityResult, type TwoStageCorrelation } from './repeatability';
import type { IntervalMethod } from '../stats/bootstrap';

/** One judge variant's repeatability on a file. */
export interface RepeatabilityRow {
  evaluatorId: string;
  displayName: string;
  /** The verdict threshold used (reply ≥ threshold: coherent) and how it was chosen. */
  threshold: number | null;
  thresholdRule: 'given' | 'humans-rate' | 'none';
  result: RepeatabilityResult;
  correlation: TwoStageCorrelation | null;
}

/** Options of {@link repeatabilityTable}. */
export interface RepeatabilityTableOptions {
  /** Whose coherence labels (default `auto`: experts when any expert label exists). */
  human?: HumanChoice;
  groupRules?: GroupRules;
  /** Verdict threshold on the judge's scale; default: the one at which the mean of K calls "coherent" as often as the humans' majority does. */
  threshold?: number;
  method?: CorrelationMethod;
  /** Bootstrap over items (clusters), and over repeats within candidates for the correlation. */
  bootstrap?: { resamples: number; seed: number | string; level?: number; interval?: IntervalMethod };
}

/** The ids of judge variants whose scores keep more than one reply. */
export function repeatedEvaluators(items: readonly DialogueItem[]): string[] {
  const ids = new Set<string>();
  for (const it of items) for (const c of it.candidates) for (const [id, s] of Object.entries(c.scores)) if (Array.isArray(s?.repeats) && (s.repeats as unknown[]).length > 1) ids.add(id);
  return [...ids].sort();
}

/**
 * Repeatability of every repeated judge variant of a file (or of `evaluatorIds`).
 *
 * @throws RangeError from the statistics on impossible options (a bootstrap level outside (0, 1))
 */
export function repeatabilityTable(items: readonly DialogueItem[], options: RepeatabilityTableOptions & { evaluatorIds?: readonly string[] } = {}): { human: HumanGroup; rows: RepeatabilityRow[] } {
  const rules = options.groupRules ?? DEFAULT_GROUP_RULES;
  const human = resolveHuman(items, options.human ?? 'auto', rules);
  const filter = inGroup(human, rules);
  const ids = options.evaluatorIds ?? repeatedEvaluators(items);
  const names = displayNames(ids, evaluatorSignatures(items));
  const rows: RepeatabilityRow[] = [];
  for (const id of ids) {
    const replies: (number | null)[][] = [];
    const humans: (number | null)[] = [];
    const clusters: string[] = [];
    const majority: boolean[] = [];
    for (const it of items) {
      for (const c of it.candidates) {
        const s = c.scores[id];
        if (!s) continue;
        const reps = Array.isArray(s.repeats) ? (s.repeats as { value: number | null; status: string }[]) : [{ value: s.value, status: s.status }];
        replies.push(reps.map((r) => (r.status === 'ok' && typeof r.value === 'number' ? r.value : null)));
        const h = coherenceScore(c, filter);
        humans.push(h);
        clusters.push(it.id);
        const n = c.annotations.filter((a) => filter(a) && typeof a.coherent === 'boolean').length;
        if (h !== null && n > 0 && 2 * h !== n) majority.push(2 * h > n);
      }
    }
    const means = (replies as RepeatReplies).map((r) => {
      const ok = r.filter((x): x is number => x !== null);
      return ok.length ? ok.reduce((a, b) => a + b, 0) / ok.length : null;
    });
    let threshold: number | null = options.threshold ?? null;
    let thresholdRule: RepeatabilityRow['thresholdRule'] = options.threshold !== undefined ? 'given' : 'none';
    const usable = means.filter((m): m is number => m !== null);
    if (threshold === null && majority.length > 0 && usable.length > 0) {
      threshold = matchRateThreshold(usable, majority.filter(Boolean).length / majority.length);
      thresholdRule = 'humans-rate';
    }
    const bootstrap = options.bootstrap ? { ...options.bootstrap, clusters } : undefined;
    const result = repeatability(replies, { ...(threshold !== null ? { threshold } : {}), ...(bootstrap ? { bootstrap } : {}) });
    const correlation = options.bootstrap && humans.some((h) => h !== null) ? twoStageCorrelation(replies, humans, { method: options.method, ...options.bootstrap, clusters }) : null;
    rows.push({ evaluatorId: id, displayName: names.get(id) ?? id, threshold, thresholdRule, result, correlation });
  }
  return { human, rows };
}

/** The table as rows for the exports (`renderTable`). */
export function repeatabilityTablePlain(t: { human: HumanGroup; rows: RepeatabilityRow[] }): PlainTable {
  return {
    title: `Judge repeatability (correlation of the mean of K with the ${t.human}' coherence score)`,
    columns: ['judge variant', 'K', 'n', "alpha across repeats", 'reply changes', 'threshold', 'flip rate', 'verdict changes', 'mean SD', 'rho (mean of K)'],
    rows: t.rows.map((r) => [
      r.displayName,
      r.result.repeats,
      r.result.candidates,
      { value: r.result.alpha.alpha, ci: r.result.ci?.alpha },
      { value: r.result.changedShare, ci: r.result.ci?.changedShare },
      r.threshold === null ? null : `${r.threshold}${r.thresholdRule === 'humans-rate' ? ' (humans\' rate)' : ''}`,
      { value: r.result.flipRate, ci: r.result.ci?.flipRate },
      r.result.verdictChangedShare,
      { value: r.result.meanSd, ci: r.result.ci?.meanSd },
      r.correlation ? { value: r.correlation.statistic, ci: r.correlation.ci } : null,
    ]),
    notes: [
      'alpha: Krippendorff\'s alpha with repeats as coders (1: every candidate gets the same reply each time). Flip rate: the chance that two repeats fall on opposite sides of the threshold, averaged over candidates.',
      'The threshold, unless given, is where the mean of K calls "coherent" as often as the humans\' majority does. The correlation interval resamples items, then each candidate\'s replies (two-stage bootstrap, recentred; docs/meta-evaluation.md).',
    ],
  };
}
