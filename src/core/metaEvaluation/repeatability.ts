/**
 * Judge repeatability: given K replies of a judge per candidate (the same prompt asked K times), how stable is its
 * verdict? Krippendorff's alpha across repeats (repeats as coders: 1 when every candidate gets the same reply each
 * time), the share of candidates whose reply changes, the verdict flip rate at a threshold (the probability that
 * two repeats fall on opposite sides of it), the spread per candidate, the "mean of K" evaluator, and a correlation
 * interval from a two-stage bootstrap (items, then repeats within each candidate; Davison & Hinkley 1997, §3.8,
 * "hierarchical data"), so the interval carries the judge's own sampling noise as well as the choice of items.
 */
import { correlate, type CorrelationMethod } from '../correlation/correlationTable';
import { bootstrapStatistic, clusterResamples, pick } from '../stats/clusterBootstrap';
import { bootstrapInterval, DEFAULT_INTERVAL, percentileInterval, percentileSorted, type BootstrapInterval, type IntervalMethod } from '../stats/bootstrap';
import seedrandom from 'seedrandom';
import { krippendorffAlpha, type KrippendorffAlphaResult, type MeasurementLevel } from '../agreement/krippendorffAlpha';

/** `replies[i][r]`: the judge's score for candidate i on repeat r, or null (unparsable, failed). */
export type RepeatReplies = readonly (readonly (number | null)[])[];

/** Spread of one candidate's usable replies. */
export interface CandidateSpread {
  /** Usable replies. */
  replies: number;
  mean: number | null;
  /** Sample standard deviation (n − 1), null with fewer than 2 replies. */
  sd: number | null;
  /** max − min, null without replies. */
  range: number | null;
  /** Distinct reply values. */
  distinct: number;
  /** Usable replies ≥ threshold (when a threshold is given). */
  aboveThreshold?: number;
}

/** Options of {@link repeatability}. */
export interface RepeatabilityOptions {
  /**
   * Verdict threshold: reply ≥ threshold is the favourable verdict (coherent). One number, or one per candidate
   * (e.g. each candidate's human median on the judge's scale: the flip rate across the humans' median).
   */
  threshold?: number | readonly number[];
  /** Alpha's level of measurement (default `interval`; `ordinal` for a 1–5 rating scale read as ranks). */
  level?: MeasurementLevel;
  /** Bootstrap over candidates (or their clusters, e.g. dialogue items). */
  bootstrap?: { resamples: number; seed: number | string; level?: number; clusters?: readonly (string | number)[] };
}

/** Repeatability of one judge variant. */
export interface RepeatabilityResult {
  candidates: number;
  /** K: the largest number of repeats of a candidate. */
  repeats: number;
  /** Alpha across repeats (units: candidates; coders: repeats). */
  alpha: KrippendorffAlphaResult;
  /** Share of candidates (with ≥ 2 usable replies) whose replies are not all equal. */
  changedShare: number | null;
  /**
   * Mean over candidates (with ≥ 2 usable replies) of the pairwise flip probability 2·a(m − a)/(m(m − 1)), a of the
   * m replies ≥ threshold: the chance that two repeats give opposite verdicts. Unbiased for 2p(1 − p), p the
   * candidate's chance of a favourable verdict, whatever K; null without a threshold.
   */
  flipRate: number | null;
  /** Share of candidates whose verdict differs between at least two repeats (grows with K); null without a threshold. */
  verdictChangedShare: number | null;
  /** Mean of the per-candidate standard deviations (candidates with ≥ 2 replies). */
  meanSd: number | null;
  spread: CandidateSpread[];
  ci?: { alpha: BootstrapInterval; changedShare: BootstrapInterval; flipRate?: BootstrapInterval; meanSd: BootstrapInterval };
}

function stats(reps: readonly (number | null)[], threshold: number | undefined): CandidateSpread {
  const v = reps.filter((x): x is number => x !== null && Number.isFinite(x));
  const n = v.length;
  const mean = n ? v.reduce((s, x) => s + x, 0) / n : null;
  const sd = n > 1 ? Math.sqrt(v.reduce((s, x) => s + (x - (mean as number)) ** 2, 0) / (n - 1)) : null;
  return {
    replies: n,
    mean,
    sd,
    range: n ? Math.max(...v) - Math.min(...v) : null,
    distinct: new Set(v).size,
    ...(threshold !== undefined ? { aboveThreshold: v.filter((x) => x >= threshold).length } : {}),
  };
}

function summary(spread: readonly CandidateSpread[]): { changedShare: number | null; flipRate: number | null; verdictChangedShare: number | null; meanSd: number | null } {
  const multi = spread.filter((s) => s.replies >= 2);
  if (multi.length === 0) return { changedShare: null, flipRate: null, verdictChangedShare: null, meanSd: null };
  const withT = multi.filter((s) => s.aboveThreshold !== undefined);
  const flip = (s: CandidateSpread) => (2 * (s.aboveThreshold as number) * (s.replies - (s.aboveThreshold as number))) / (s.replies * (s.replies - 1));
  return {
    changedShare: multi.filter((s) => s.distinct > 1).length / multi.length,
    flipRate: withT.length ? withT.reduce((a, s) => a + flip(s), 0) / withT.length : null,
    verdictChangedShare: withT.length ? withT.filter((s) => (s.aboveThreshold as number) > 0 && (s.aboveThreshold as number) < s.replies).length / withT.length : null,
    meanSd: multi.reduce((a, s) => a + (s.sd as number), 0) / multi.length,
  };
}

/**
 * Repeatability statistics of K replies per candidate.
 *
 * @throws RangeError when a per-candidate threshold list has the wrong length
 */
export function repeatability(replies: RepeatReplies, options: RepeatabilityOptions = {}): RepeatabilityResult {
  const K = replies.reduce((m, r) => Math.max(m, r.length), 0);
  const t = options.threshold;
  if (Array.isArray(t) && t.length !== replies.length) throw new RangeError(`${t.length} thresholds for ${replies.length} candidates`);
  const thresholdOf = (i: number): number | undefined => (t === undefined ? undefined : typeof t === 'number' ? t : (t as readonly number[])[i]);
  const spread = replies.map((r, i) => stats(r, thresholdOf(i)));
  const data = replies.map((r) => Array.from({ length: K }, (_, j) => (r[j] === undefined || r[j] === null || !Number.isFinite(r[j] as number) ? null : (r[j] as number))));
  const level = options.level ?? 'interval';
  const result: RepeatabilityResult = {
    candidates: replies.length,
    repeats: K,
    alpha: krippendorffAlpha(data, { level }),
    ...summary(spread),
    spread,
  };
  if (options.bootstrap && replies.length > 0) {
    const settings = { ...options.bootstrap, level: options.bootstrap.level ?? 0.95 };
    const values = result.alpha.values;
    result.ci = {
      alpha: bootstrapStatistic(replies.length, (idx) => krippendorffAlpha(pick(data, idx), { level, values }).alpha, settings),
      changedShare: bootstrapStatistic(replies.length, (idx) => summary(pick(spread, idx)).changedShare, settings),
      meanSd: bootstrapStatistic(replies.length, (idx) => summary(pick(spread, idx)).meanSd, settings),
      ...(t !== undefined ? { flipRate: bootstrapStatistic(replies.length, (idx) => summary(pick(spread, idx)).flipRate, settings) } : {}),
    };
  }
  return result;
}

/** The "mean of K" evaluator: each candidate's mean usable reply, or null when it has none. */
export function meanOfRepeats(replies: RepeatReplies): (number | null)[] {
  return replies.map((r) => stats(r, undefined).mean);
}

/** A correlation with a two-stage bootstrap interval. */
export interface TwoStageCorrelation {
  method: CorrelationMethod;
  /** Candidates with a mean of K and a human score. */
  n: number;
  /** corr(mean of K, human) on the observed replies. */
  statistic: number | null;
  pValue: number | null;
  /**
   * Two-stage interval: items (clusters) and, within each drawn candidate, its replies with replacement; the
   * bounds (read at Hesterberg's expanded probabilities by default, plain percentiles with `interval: 'percentile'`
   * or `'bca'`) are recentred on the estimate (shifted by θ̂ − median θ*), because drawing replies again adds
   * their noise a second time and so attenuates every replicate correlation towards 0. The width is kept, which
   * overstates the variance (Davison & Hinkley 1997, §3.8: the two-stage scheme is conservative). Bounds clipped to
   * [−1, 1].
   */
  ci: BootstrapInterval;
  /** The same replicates' plain percentile interval, before recentring (attenuated towards 0). */
  uncentredCi: BootstrapInterval;
  /** The item-only interval (replies fixed), to show how much the judge's own noise widens it. */
  itemOnlyCi: BootstrapInterval;
}

/**
 * Correlation of the mean-of-K evaluator with a human score, with a two-stage percentile bootstrap: stage 1 draws
 * clusters (items) with replacement ({@link clusterResamples}, the same draws as the item-only interval); stage 2
 * draws, for every drawn candidate, m of its m usable replies with replacement (seedrandom seeded with
 * `${seed}/repeats`), and averages them. Candidates without a human score or reply are left out.
 */
export function twoStageCorrelation(
  replies: RepeatReplies,
  human: readonly (number | null)[],
  options: { method?: CorrelationMethod; resamples: number; seed: number | string; level?: number; clusters?: readonly (string | number)[]; interval?: IntervalMethod },
): TwoStageCorrelation {
  if (human.length !== replies.length) throw new RangeError(`${human.length} human scores for ${replies.length} candidates`);
  const method = options.method ?? 'spearman';
  const keep: number[] = [];
  replies.forEach((r, i) => {
    if (human[i] !== null && r.some((x) => x !== null && Number.isFinite(x))) keep.push(i);
  });
  const reps = keep.map((i) => replies[i].filter((x): x is number => x !== null && Number.isFinite(x)));
  const h = keep.map((i) => human[i] as number);
  const means = reps.map((r) => r.reduce((s, x) => s + x, 0) / r.length);
  const point = correlate(method, means, h);
  const clusters = options.clusters ? keep.map((i) => options.clusters![i]) : undefined;
  const draws = keep.length ? clusterResamples(keep.length, { resamples: options.resamples, seed: options.seed, clusters }) : [];
  const rng = seedrandom(`${String(options.seed)}/repeats`);
  const level = options.level ?? 0.95;
  const two: (number | null)[] = [];
  const one: (number | null)[] = [];
  for (const draw of draws) {
    const x: number[] = [];
    const y: number[] = [];
    const xo: number[] = [];
    for (const u of draw) {
      const r = reps[u];
      let s = 0;
      for (let j = 0; j < r.length; j++) s += r[Math.floor(rng() * r.length)];
      x.push(s / r.length);
      xo.push(means[u]);
      y.push(h[u]);
    }
    two.push(correlate(method, x, y).statistic);
    one.push(correlate(method, xo, y).statistic);
  }
  const uncentred = percentileInterval(two, level);
  const defined = two.filter((v): v is number => v !== null).sort((a, b) => a - b);
  const shift = point.statistic !== null && defined.length ? point.statistic - percentileSorted(defined, 50) : 0;
  const clip = (v: number | null) => (v === null ? null : Math.max(-1, Math.min(1, v + shift)));
  // The recentred bounds: of the percentile interval, or (the default) at Hesterberg's expanded probabilities over
  // the clusters drawn, like every other interval (BCa has no meaning for recentred replicates).
  const interval = options.interval ?? DEFAULT_INTERVAL;
  const expanded = interval === 'expanded-percentile' || interval === 'expanded-bca';
  const m = new Set(clusters ?? keep.map((_, u) => u)).size;
  const read = expanded ? bootstrapInterval(two, { level, method: 'expanded-percentile', clusters: m }) : uncentred;
  const ci = point.statistic === null ? read : { ...read, lower: clip(read.lower), upper: clip(read.upper) };
  return { method, n: keep.length, statistic: point.statistic, pValue: point.pValue, ci, uncentredCi: uncentred, itemOnlyCi: percentileInterval(one, level) };
}
