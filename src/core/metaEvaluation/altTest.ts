/**
 * The alternative annotator test ("alt-test"; Calderon, Reichart & Dror, ACL 2025, "The Alternative Annotator
 * Test for LLM-as-a-Judge: How to Statistically Justify Replacing Human Annotators with LLMs", §3): can an
 * evaluator (an LLM judge, a metric turned into labels) replace an annotator of this group?
 *
 * For each annotator h_j (leave one out): on the instances h_j labelled, score how well the evaluator f and h_j
 * each agree with the *other* annotators' labels (alignment S, e.g. accuracy); W^f_i = 1 when S(f) ≥ S(h_j),
 * W^h_i = 1 when S(h_j) ≥ S(f). ρ^f_j, ρ^h_j are their means (the advantage probabilities). A one-sided paired
 * t-test of H0: ρ^h_j − ρ^f_j ≥ ε against H1: ρ^h_j − ρ^f_j < ε on d_i = W^h_i − W^f_i, where ε is the
 * cost–benefit margin granted to the evaluator. The Benjamini–Yekutieli procedure (FDR level q) decides which H0
 * are rejected ("the evaluator wins against h_j"); the winning rate ω is the share of annotators won against, and
 * the evaluator passes when ω ≥ 0.5. The average advantage probability ρ = mean_j ρ^f_j compares evaluators.
 *
 * Reproduces the paper's reference implementation (public repository nitaytech/AltTest, `alt_test` in
 * alt_test_example.ipynb; run as the parity reference by scripts/parity/meta_evaluation_reference.py, never a
 * dependency): the same instance filters, scoring functions, t-test (scipy `ttest_1samp(…, alternative='less')`)
 * and BY procedure.
 */
import type { Annotation, DialogueItem } from '../dialogue/types';
import { DEFAULT_GROUP_RULES, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';
import { benjaminiYekutieli } from '../stats/multipleTesting';
import { oneSampleTTest } from '../stats/tTest';
import { jackknifeTest } from '../stats/clusterBootstrap';
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import { usableScore } from '../correlation/ceiling';
import seedrandom from 'seedrandom';
import { matchRateThreshold } from './majorityLabel';
import { holdsLabel, humanScoreSpec, scaleValue, type HumanScoreSpec } from '../rubric/labelValues';
import { MI_RUBRIC } from '../rubric/presets';
import { scaleRange } from '../rubric/rubric';

/**
 * Alignment scoring S(prediction, others' annotations): share of equal labels (`accuracy`), or for numeric ratings
 * the negative root mean squared error (`negRmse`, the reference's `neg_rmse`; it orders predictions exactly as the
 * negative mean squared error does) or the negative mean absolute error (`negMae`) — the paper's alignment scores for
 * continuous annotations (Calderon et al. 2025 §3.2).
 */
export type AltTestScoring = 'accuracy' | 'negRmse' | 'negMae';

/** The scorings `alt-test --scoring` takes. */
export const ALT_TEST_SCORINGS: readonly AltTestScoring[] = ['accuracy', 'negRmse', 'negMae'];

/** Options of {@link altTest}; the defaults are the reference implementation's. */
export interface AltTestOptions {
  /** ε, the cost–benefit margin in [0, 1). Default 0.2 (the paper's suggestion for expert annotators; 0.15 skilled, 0.1 crowd). */
  epsilon?: number;
  /** q, the FDR level of the Benjamini–Yekutieli procedure. Default 0.05. */
  alpha?: number;
  /** Default `accuracy`. */
  scoring?: AltTestScoring;
  /** Instances need at least this many human annotations (the left-out one included). Default 2. */
  minHumansPerInstance?: number;
  /** Annotators with fewer usable instances are skipped (the t-test's normality needs ~30). Default 30. */
  minInstancesPerHuman?: number;
  /**
   * An annotator whose differences d_i are all equal (no variance: typically an annotator and an evaluator that give
   * the same label to every instance) has no t-test. `untested` (default): t and p are null, the annotator counts
   * among those tested but is never won against, and `zeroVariance` says why. `reference`: as the reference
   * implementation and scipy, t = ±∞ and p = 0 or 1 (for parity with AltTest).
   */
  zeroVariance?: 'untested' | 'reference';
  /**
   * The cluster (dialogue context) of each instance. With it, each annotator's test is the cluster-jackknife t-test
   * of mean d < ε over the contexts of the annotator's instances (m − 1 df), which holds its level when instances of
   * one context are alike; without it (and with `test: 't'`) the reference's one-sample t-test over instances.
   */
  clusters?: Readonly<Record<string, string | number>>;
  /** `t` (the paper's; default without clusters) or `cluster-jackknife` (default with clusters). */
  test?: 't' | 'cluster-jackknife';
}

/** One annotator's leave-one-out comparison. */
export interface AltTestAnnotator {
  annotator: string;
  /** Instances compared (labelled by the annotator, by the evaluator and by ≥ minHumansPerInstance humans). */
  instances: number;
  /** ρ^f_j: share of instances where the evaluator aligned with the others at least as well as the annotator. */
  evaluatorAdvantage: number;
  /** ρ^h_j: share of instances where the annotator aligned at least as well as the evaluator. */
  humanAdvantage: number;
  /** Mean of d_i = W^h_i − W^f_i (= ρ^h_j − ρ^f_j). */
  meanDifference: number;
  /**
   * t of the one-sided test against ε; null when undefined: every d_i equal (see `zeroVariance`; ±Infinity with the
   * option `zeroVariance: 'reference'`) or fewer than 2 instances.
   */
  t: number | null;
  df: number;
  /** p-value of H0: ρ^h_j − ρ^f_j ≥ ε. */
  pValue: number | null;
  /** The test: the reference's one-sample t over instances, or the cluster-jackknife t over contexts (df = contexts − 1). */
  test: 't' | 'cluster-jackknife';
  /** H0 rejected by the BY procedure: the evaluator wins against this annotator. */
  rejected: boolean;
  /** The BY threshold this annotator's p-value was compared with. */
  threshold: number | null;
  /**
   * Every d_i equals `difference` (no variance): the one-sided t-test divides by a zero standard deviation, so it
   * has no answer (scipy prints t = −∞, p = 0 when the difference is below ε). With the default
   * `zeroVariance: 'untested'` the annotator is not won against.
   */
  zeroVariance?: { difference: number };
}

/** The alt-test's verdict and every number it rests on. */
export interface AltTestResult {
  /** ω: share of the tested annotators whose H0 was rejected; null when no annotator could be tested. */
  winningRate: number | null;
  /** ω ≥ 0.5 (the paper's criterion): the evaluator can replace an annotator of this group. */
  passed: boolean;
  /** ρ: mean over tested annotators of ρ^f_j; null when none was tested. */
  advantageProbability: number | null;
  annotators: AltTestAnnotator[];
  /** Annotators not tested, with the reason (too few instances). */
  skipped: { annotator: string; instances: number; reason: string }[];
  /** Instances dropped for fewer than minHumansPerInstance annotations or no evaluator label. */
  droppedInstances: number;
  parameters: Required<Omit<AltTestOptions, 'clusters'>> & { correction: 'Benjamini–Yekutieli'; criterion: 'winning rate ≥ 0.5' };
}

/**
 * One-sided cluster-jackknife test of mean(d) < ε: the mean with each cluster's instances left out in turn,
 * SE² = (G − 1)/G · Σ (θ₍ᵢ₎ − θ̄)², t = (mean − ε)/SE with G − 1 df, p = T_{G−1}(t) (`jackknifeTest`'s variance).
 * Null t and p with fewer than 2 clusters or no spread between them.
 */
function clusterMeanTest(d: readonly number[], clusters: readonly (string | number)[], epsilon: number): { t: number | null; df: number; p: number | null } {
  const sums = new Map<string | number, { s: number; n: number }>();
  let total = 0;
  d.forEach((v, k) => {
    const e = sums.get(clusters[k]) ?? { s: 0, n: 0 };
    e.s += v;
    e.n++;
    sums.set(clusters[k], e);
    total += v;
  });
  const g = sums.size;
  const mean = total / d.length;
  const jack = [...sums.values()].map((e) => (d.length - e.n > 0 ? (total - e.s) / (d.length - e.n) : null));
  const test = jackknifeTest(mean, jack, epsilon);
  if (!test || test.statistic === null || g < 2) return { t: null, df: Math.max(0, g - 1), p: null };
  return { t: test.statistic, df: test.df, p: tCdf(test.statistic, test.df) };
}

/** The reference's `accuracy`: mean of [pred = a] over the others' annotations. */
function accuracy(pred: unknown, others: readonly unknown[]): number {
  let s = 0;
  for (const a of others) s += pred === a ? 1 : 0;
  return s / others.length;
}

/** The reference's `neg_rmse`: −√(mean (pred − a)²). */
function negRmse(pred: unknown, others: readonly unknown[]): number {
  let s = 0;
  for (const a of others) s += ((pred as number) - (a as number)) ** 2;
  return -Math.sqrt(s / others.length);
}

/** −mean |pred − a|: the negative mean absolute error. */
function negMae(pred: unknown, others: readonly unknown[]): number {
  let s = 0;
  for (const a of others) s += Math.abs((pred as number) - (a as number));
  return -s / others.length;
}

/**
 * The alt-test of an evaluator against a group of annotators.
 *
 * @param humans - per annotator, per instance id, the annotation (labels compared with `===`, or numbers for negRmse);
 *   annotators are tested in this object's key order
 * @param evaluator - per instance id, the evaluator's annotation on the same scale
 * @throws RangeError on ε outside [0, 1), q outside (0, 1), or a non-numeric value under negRmse
 */
export function altTest<V extends string | number | boolean>(humans: Readonly<Record<string, Readonly<Record<string, V>>>>, evaluator: Readonly<Record<string, V>>, options: AltTestOptions = {}): AltTestResult {
  const parameters = {
    epsilon: options.epsilon ?? 0.2,
    alpha: options.alpha ?? 0.05,
    scoring: options.scoring ?? 'accuracy',
    minHumansPerInstance: options.minHumansPerInstance ?? 2,
    minInstancesPerHuman: options.minInstancesPerHuman ?? 30,
    zeroVariance: options.zeroVariance ?? 'untested',
    test: options.test ?? (options.clusters ? ('cluster-jackknife' as const) : ('t' as const)),
    correction: 'Benjamini–Yekutieli' as const,
    criterion: 'winning rate ≥ 0.5' as const,
  };
  if (!(parameters.epsilon >= 0 && parameters.epsilon < 1)) throw new RangeError(`epsilon must be in [0, 1), got ${parameters.epsilon}`);
  if (!(parameters.alpha > 0 && parameters.alpha < 1)) throw new RangeError(`alpha (the FDR level) must be in (0, 1), got ${parameters.alpha}`);
  const score = parameters.scoring === 'accuracy' ? accuracy : parameters.scoring === 'negMae' ? negMae : negRmse;
  if (parameters.test === 'cluster-jackknife' && !options.clusters) throw new RangeError('the cluster-jackknife test needs the instances\' clusters (options.clusters)');
  if (parameters.scoring !== 'accuracy') {
    const bad = [...Object.values(evaluator), ...Object.values(humans).flatMap((h) => Object.values(h))].find((v) => typeof v !== 'number' || !Number.isFinite(v));
    if (bad !== undefined) throw new RangeError(`${parameters.scoring} scoring needs numeric annotations, got ${JSON.stringify(bad)}`);
  }
  const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
  // Who labelled each instance, in annotator order.
  const byInstance = new Map<string, string[]>();
  for (const [h, anns] of Object.entries(humans)) {
    for (const i of Object.keys(anns)) {
      let l = byInstance.get(i);
      if (!l) byInstance.set(i, (l = []));
      l.push(h);
    }
  }
  const keep = new Set([...byInstance].filter(([i, hs]) => hs.length >= parameters.minHumansPerInstance && has(evaluator, i)).map(([i]) => i));
  const tested: Omit<AltTestAnnotator, 'rejected' | 'threshold'>[] = [];
  const skipped: AltTestResult['skipped'] = [];
  for (const [h, anns] of Object.entries(humans)) {
    const instances = Object.keys(anns).filter((i) => keep.has(i));
    if (instances.length < parameters.minInstancesPerHuman) {
      skipped.push({ annotator: h, instances: instances.length, reason: `${instances.length} instances < ${parameters.minInstancesPerHuman}` });
      continue;
    }
    const d: number[] = [];
    let wf = 0;
    let wh = 0;
    for (const i of instances) {
      const others = (byInstance.get(i) as string[]).filter((o) => o !== h).map((o) => humans[o][i]);
      const sh = score(anns[i], others);
      const sf = score(evaluator[i], others);
      const f = sf >= sh ? 1 : 0;
      const hh = sh >= sf ? 1 : 0;
      wf += f;
      wh += hh;
      d.push(hh - f);
    }
    const t = oneSampleTTest(d, parameters.epsilon, 'less');
    const flat = d.length >= 2 && d.every((v) => v === d[0]);
    const untested = flat && parameters.zeroVariance === 'untested';
    let stat = untested ? null : t.statistic;
    let df = t.df;
    let pValue = untested ? null : t.pValue;
    if (parameters.test === 'cluster-jackknife' && !flat) {
      const jk = clusterMeanTest(d, instances.map((i) => options.clusters?.[i] ?? i), parameters.epsilon);
      stat = jk.t;
      df = jk.df;
      pValue = jk.p;
    }
    tested.push({
      annotator: h,
      instances: instances.length,
      evaluatorAdvantage: wf / instances.length,
      humanAdvantage: wh / instances.length,
      meanDifference: t.mean,
      t: stat,
      df,
      pValue,
      test: parameters.test,
      ...(flat ? { zeroVariance: { difference: d[0] } } : {}),
    });
  }
  const by = benjaminiYekutieli(tested.map((a) => a.pValue), parameters.alpha);
  const annotators = tested.map((a, j) => ({ ...a, rejected: by.rejected[j], threshold: by.thresholds[j] }));
  const wins = annotators.filter((a) => a.rejected).length;
  const winningRate = annotators.length ? wins / annotators.length : null;
  const advantageProbability = annotators.length ? annotators.reduce((s, a) => s + a.evaluatorAdvantage, 0) / annotators.length : null;
  return { winningRate, passed: winningRate !== null && winningRate >= 0.5, advantageProbability, annotators, skipped, droppedInstances: byInstance.size - keep.size, parameters };
}

/** Options of {@link evaluatorAltTest}. */
export interface EvaluatorAltTestOptions extends AltTestOptions {
  /** The annotator group the evaluator would replace. Default `experts`. */
  group?: HumanGroup;
  groupRules?: GroupRules;
  /**
   * How scores become coherence labels (score ≥ threshold → coherent): a number, or `match-rate` (default): the
   * threshold at which the evaluator calls "coherent" as often as the group's annotators do ({@link matchRateThreshold}).
   */
  threshold?: number | 'match-rate';
  /** The trivial baselines beside the evaluator (default on, 20 draws of the random one, seed 1); false: none. */
  baselines?: boolean | { draws?: number; seed?: number | string };
  /** The evaluator's name in the verdict (default its id). */
  displayName?: string;
  /**
   * The rubric dimension whose labels the evaluator would give (default: the MI preset's `coherent`). Binary: score ≥
   * threshold → yes, as for coherence. Ordinal or numeric: the annotators' ratings, the evaluator's scores made ratings
   * by `calibration`, scored by accuracy (default for ordinal), negRmse (default for numeric) or negMae.
   */
  spec?: HumanScoreSpec;
  /**
   * How scores become ratings on an ordinal or numeric dimension: `match-distribution` (default) — the response with
   * the k-th smallest score takes the group's pooled rating at the same quantile (the match-rate rule for more than two
   * points; tied scores share one rating); `identity` — the score is the rating (a judge asked on the dimension's scale;
   * a score outside the scale is an error).
   */
  calibration?: RatingCalibration;
}

/** How an evaluator's scores become ratings (see {@link EvaluatorAltTestOptions.calibration}). */
export type RatingCalibration = 'match-distribution' | 'identity';

/**
 * Something that makes an evaluator's alt-test say nothing about the evaluator:
 * - `constant-at-cut`: at its threshold the evaluator gives every instance the same label — it *is* the
 *   always-coherent (or always-incoherent) baseline;
 * - `cut-cannot-match`: the match-rate threshold cannot bring the evaluator's share of "coherent" near the group's,
 *   because many responses share one score (ties, e.g. BLEU-4's zeros).
 */
export interface TrivialFinding {
  kind: 'constant-at-cut' | 'cut-cannot-match';
  /** The sentence every output prints. */
  text: string;
}

/** The alt-test of one evaluator of a dialogue file, with the threshold it used. */
export interface EvaluatorAltTest {
  evaluatorId: string;
  group: HumanGroup;
  threshold: number | null;
  thresholdRule: string;
  /** Share of the group's coherence labels that say coherent (the match-rate target). */
  coherentShare: number | null;
  /** Share of the evaluator's labels (score ≥ threshold) that say coherent. */
  evaluatorCoherentShare: number | null;
  result: AltTestResult;
  /** What makes this result trivial, if anything (named in the verdict). */
  trivial: TrivialFinding[];
  /** The trivial baselines on the same instances, annotators and settings ({@link altTestBaselines}). */
  baselines: AltTestBaseline[];
  /** The verdict in one plain sentence: pass or fail, and whether a trivial baseline does as well. */
  verdict: string;
  /** The dimension, when it is not the MI preset's coherence. */
  dimension?: string;
  /** Ordinal and numeric dimensions: how scores became ratings. */
  calibration?: RatingCalibration;
}

/** Largest share of the scores held by one value, and that value. */
function largestTie(values: readonly number[]): { value: number; share: number } {
  const counts = new Map<number, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  let best = { value: NaN, share: 0 };
  for (const [v, n] of counts) if (n / values.length > best.share) best = { value: v, share: n / values.length };
  return best;
}

const pct = (x: number) => `${(x * 100).toFixed(1)} %`;

/**
 * The verdict of an alt-test in one sentence (what the text, Markdown and LaTeX titles, the JSON and the panel's data
 * print): PASSES or FAILS with ω and ρ; then, plainly, the trivial findings; and when the evaluator passes, whether a
 * trivial baseline passes too (then the pass says nothing about the evaluator).
 */
export function altTestVerdict(name: string, result: AltTestResult, trivial: readonly TrivialFinding[] = [], baselines: readonly AltTestBaseline[] = []): string {
  if (result.winningRate === null) return 'no annotator could be tested';
  const head = `${result.passed ? 'PASSES' : 'FAILS'}: winning rate ω = ${result.winningRate.toFixed(3)} (criterion ω ≥ 0.5), advantage probability ρ = ${result.advantageProbability === null ? '–' : result.advantageProbability.toFixed(3)}`;
  const parts: string[] = [head];
  for (const t of trivial) parts.push(t.text);
  const passing = baselines.filter((b) => b.passed);
  if (result.passed && passing.length) parts.push(`a trivial baseline passes too (${passing.map((b) => b.description).join('; ')}), so this pass does not show that ${name} can replace an annotator`);
  else if (result.passed && baselines.length) parts.push('no trivial baseline passes');
  const flat = result.annotators.filter((a) => a.zeroVariance && a.pValue === null);
  if (flat.length) parts.push(`${flat.map((a) => a.annotator).join(', ')}: every difference d is ${flat[0].zeroVariance?.difference}, so there is no variance and no t-test (scipy would print t = −∞, p = 0); not counted as won`);
  return parts.join(' — ');
}

/**
 * The alt-test's instances from dialogue items, shared by the label and the rating test: per annotator of the group
 * (sorted by id, numerically), their value on each candidate (`<item id>/<candidate id>`) they labelled in the
 * dimension; the evaluator's usable score on each candidate; the item of each candidate (the clusters); and every
 * human value in item order.
 */
function collectInstances<V>(items: readonly DialogueItem[], evaluatorId: string, spec: HumanScoreSpec, keep: (a: Annotation) => boolean, value: (a: Annotation) => V): { humans: Record<string, Record<string, V>>; scores: Record<string, number>; clusters: Record<string, string>; pooled: V[] } {
  const humans: Record<string, Record<string, V>> = {};
  const scores: Record<string, number> = {};
  const clusters: Record<string, string> = {};
  const pooled: V[] = [];
  for (const it of items) {
    for (const c of it.candidates) {
      const key = `${it.id}/${c.id}`;
      clusters[key] = it.id;
      for (const a of c.annotations) {
        if (!holdsLabel(a, spec) || !keep(a)) continue;
        const v = value(a);
        (humans[a.annotator] ??= {})[key] = v;
        pooled.push(v);
      }
      const s = usableScore(it, c, evaluatorId);
      if (s !== null) scores[key] = s;
    }
  }
  const sorted = Object.fromEntries(Object.entries(humans).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })));
  return { humans: sorted, scores, clusters, pooled };
}

/**
 * The alt-test of an evaluator on the coherence labels of a group in dialogue items: instances are candidates
 * (`<item id>/<candidate id>`), annotators the group's members, the evaluator's label its score at the threshold.
 * Scores a reference-based metric gave the reference itself are left out (`usableScore`).
 */
export function evaluatorAltTest(items: readonly DialogueItem[], evaluatorId: string, options: EvaluatorAltTestOptions = {}): EvaluatorAltTest {
  const spec = options.spec ?? humanScoreSpec(MI_RUBRIC);
  if (spec.dimension.type !== 'binary') return ratingAltTest(items, evaluatorId, spec, options);
  const named = spec.rubric.name !== MI_RUBRIC.name || spec.dimension.name !== 'coherent' ? { dimension: spec.dimension.name } : {};
  const yesWord = named.dimension ? `yes (${named.dimension})` : 'coherent';
  const noWord = named.dimension ? `no (${named.dimension})` : 'incoherent';
  const group = options.group ?? 'experts';
  const keep = inGroup(group, options.groupRules ?? DEFAULT_GROUP_RULES);
  const { humans: sortedHumans, scores, clusters, pooled } = collectInstances(items, evaluatorId, spec, keep, (a) => scaleValue(a, spec.dimension) === 1);
  const coherentShare = pooled.length ? pooled.filter(Boolean).length / pooled.length : null;
  const values = Object.values(scores);
  let threshold: number | null;
  let thresholdRule: string;
  if (typeof options.threshold === 'number') {
    threshold = options.threshold;
    thresholdRule = 'given';
  } else {
    threshold = values.length && coherentShare !== null ? matchRateThreshold(values, coherentShare) : null;
    thresholdRule = `match-rate: the evaluator calls ${threshold === null ? '–' : `${((values.filter((v) => v >= (threshold as number)).length / values.length) * 100).toFixed(1)}%`} ${yesWord}, the ${group}' labels ${coherentShare === null ? '–' : `${(coherentShare * 100).toFixed(1)}%`}`;
  }
  const evaluator: Record<string, boolean> = {};
  if (threshold !== null) for (const [k, v] of Object.entries(scores)) evaluator[k] = v >= threshold;
  // The dialogue items are the clusters of the per-annotator tests (unless the reference's t-test is asked for).
  const testOptions: AltTestOptions = { ...options, ...(options.test === 't' ? {} : { clusters }) };
  const result = altTest(sortedHumans, evaluator, testOptions);
  const calls = Object.values(evaluator);
  const evaluatorCoherentShare = calls.length ? calls.filter(Boolean).length / calls.length : null;
  const name = options.displayName ?? evaluatorId;
  const trivial: TrivialFinding[] = [];
  if (threshold !== null && calls.length > 0 && (evaluatorCoherentShare === 0 || evaluatorCoherentShare === 1)) {
    const all = evaluatorCoherentShare === 1 ? yesWord : noWord;
    trivial.push({ kind: 'constant-at-cut', text: `${name} is constant at this cut: score ≥ ${Number(threshold.toPrecision(4))} calls every response ${all}, so it is the always-${all} baseline` });
  } else if (typeof options.threshold !== 'number' && threshold !== null && coherentShare !== null && evaluatorCoherentShare !== null && Math.abs(evaluatorCoherentShare - coherentShare) > Math.max(0.05, 2 / values.length)) {
    const tie = largestTie(values);
    trivial.push({
      kind: 'cut-cannot-match',
      text: `no cut of ${name} reaches the ${group}' ${pct(coherentShare)} ${yesWord}: ${pct(tie.share)} of its scores are tied at ${Number(tie.value.toPrecision(4))}, so the nearest cut calls ${pct(evaluatorCoherentShare)} ${yesWord}`,
    });
  }
  const wantBaselines = options.baselines ?? true;
  const baselines = wantBaselines && calls.length
    ? altTestBaselines(sortedHumans, evaluator, { ...testOptions, ...(typeof wantBaselines === 'object' ? wantBaselines : {}), labelName: (v) => (v ? yesWord : noWord) })
    : [];
  return { evaluatorId, group, threshold, thresholdRule, coherentShare, evaluatorCoherentShare, result, trivial, baselines, verdict: altTestVerdict(name, result, trivial, baselines), ...named };
}

/**
 * Scores made ratings by matching distributions: sorted by score, the response at (mid-)rank r of n takes the
 * pooled rating at quantile (r + ½)/n of `ratings` (sorted); responses with equal scores share the rating of their
 * mid-rank. With two points this is the match-rate threshold's rule.
 */
export function matchDistribution(scores: Readonly<Record<string, number>>, ratings: readonly number[]): Record<string, number> {
  const pooled = [...ratings].sort((a, b) => a - b);
  const entries = Object.entries(scores).sort((a, b) => a[1] - b[1]);
  const n = entries.length;
  const out: Record<string, number> = {};
  if (n === 0 || pooled.length === 0) return out;
  for (let i = 0; i < n; ) {
    let j = i;
    while (j + 1 < n && entries[j + 1][1] === entries[i][1]) j++;
    const q = ((i + j) / 2 + 0.5) / n;
    const rating = pooled[Math.min(pooled.length - 1, Math.floor(q * pooled.length))];
    for (let k = i; k <= j; k++) out[entries[k][0]] = rating;
    i = j + 1;
  }
  return out;
}

/** {@link evaluatorAltTest} on an ordinal or numeric dimension: ratings against ratings. */
function ratingAltTest(items: readonly DialogueItem[], evaluatorId: string, spec: HumanScoreSpec, options: EvaluatorAltTestOptions): EvaluatorAltTest {
  const group = options.group ?? 'experts';
  const keep = inGroup(group, options.groupRules ?? DEFAULT_GROUP_RULES);
  const { humans: sortedHumans, scores, clusters, pooled } = collectInstances(items, evaluatorId, spec, keep, (a) => scaleValue(a, spec.dimension) as number);
  const name = options.displayName ?? evaluatorId;
  const calibration = options.calibration ?? 'match-distribution';
  let evaluator: Record<string, number>;
  if (calibration === 'identity') {
    const { min, max } = scaleRange(spec.dimension);
    const off = Object.entries(scores).find(([, v]) => v < min || v > max);
    if (off) throw new RangeError(`${name} scores ${off[1]} on ${off[0]}, outside ${spec.dimension.name}'s scale ${min}–${max}: with --calibration identity its scores must be ratings on that scale (use match-distribution for any other score)`);
    evaluator = { ...scores };
  } else evaluator = matchDistribution(scores, pooled);
  const scoring = options.scoring ?? (spec.dimension.type === 'numeric' ? 'negRmse' : 'accuracy');
  const testOptions: AltTestOptions = { ...options, scoring, ...(options.test === 't' ? {} : { clusters }) };
  const result = altTest(sortedHumans, evaluator, testOptions);
  const values = Object.values(evaluator);
  const trivial: TrivialFinding[] = [];
  if (values.length > 0 && values.every((v) => v === values[0])) trivial.push({ kind: 'constant-at-cut', text: `${name} gives every response the same rating, ${values[0]}: it is a constant baseline` });
  const wantBaselines = options.baselines ?? true;
  const baselines = wantBaselines && values.length ? altTestBaselines(sortedHumans, evaluator, { ...testOptions, ...(typeof wantBaselines === 'object' ? wantBaselines : {}), labelName: (v) => String(v) }) : [];
  const thresholdRule =
    calibration === 'identity'
      ? `identity: the scores are ratings of ${spec.dimension.name}`
      : `match-distribution: the response with the k-th smallest score takes the ${group}' pooled rating of ${spec.dimension.name} at the same quantile`;
  return { evaluatorId, group, threshold: null, thresholdRule, coherentShare: null, evaluatorCoherentShare: null, result, trivial, baselines, verdict: altTestVerdict(name, result, trivial, baselines), dimension: spec.dimension.name, calibration };
}

/**
 * A trivial evaluator run through the same alt-test as a real one:
 * - labels (accuracy scoring): `always-majority` and `always-minority` (the group's most and least common label on
 *   every instance), `random-base-rate` (each instance's label drawn from the group's label shares, seeded);
 * - ratings (−RMSE scoring): `constant-mean` and `constant-median` (the group's mean and median rating on every
 *   instance), `marginal-draw` (each instance's rating drawn from the group's ratings, seeded).
 */
export type AltTestBaselineKind = 'always-majority' | 'always-minority' | 'random-base-rate' | 'constant-mean' | 'constant-median' | 'marginal-draw';

/** One trivial baseline's alt-test on the evaluator's instances, annotators and settings. */
export interface AltTestBaseline {
  kind: AltTestBaselineKind;
  /** What it says, e.g. `always "true"` or `random at the base rate (81.5 % true)`. */
  description: string;
  /** ω (for random baselines, the mean over the draws); null when no annotator could be tested. */
  winningRate: number | null;
  /** ρ (for random baselines, the mean over the draws). */
  advantageProbability: number | null;
  /** The verdict (for random baselines: more than half of the draws pass). */
  passed: boolean;
  /** Random baselines: draws made and how many passed. */
  draws?: number;
  passes?: number;
}

/** Options of {@link altTestBaselines}: the alt-test's own, and the random baselines' draws and seed. */
export interface AltTestBaselineOptions extends AltTestOptions {
  /** Draws of each random baseline (default 20). */
  draws?: number;
  /** Seed of the random baselines (default 1). */
  seed?: number | string;
  /** How a label reads in the baselines' descriptions (default: strings quoted, others as they are). */
  labelName?: (v: string | number | boolean) => string;
}

function defaultLabel(v: unknown): string {
  return typeof v === 'string' ? `"${v}"` : String(v);
}

/**
 * The trivial baselines of an alt-test (see {@link AltTestBaselineKind}) on exactly the instances the evaluator
 * labelled, against the same annotators with the same ε, q, scoring and filters: a pass reads against them. An
 * evaluator that passes only as often as always-majority is not evidence of anything.
 *
 * The group's shares are over every annotation of the instances kept. Random baselines draw instance by instance in
 * sorted instance order from seedrandom(`<seed>/<kind>/<draw>`).
 *
 * @param humans - as {@link altTest}
 * @param evaluator - the real evaluator's labels: its instances are the baselines' instances
 */
export function altTestBaselines<V extends string | number | boolean>(humans: Readonly<Record<string, Readonly<Record<string, V>>>>, evaluator: Readonly<Record<string, V>>, options: AltTestBaselineOptions = {}): AltTestBaseline[] {
  const draws = options.draws ?? 20;
  const label = options.labelName ?? defaultLabel;
  if (!(Number.isInteger(draws) && draws >= 1)) throw new RangeError(`draws must be a positive integer, got ${draws}`);
  const seed = String(options.seed ?? 1);
  const instances = Object.keys(evaluator).sort();
  const values: V[] = [];
  for (const anns of Object.values(humans)) for (const i of instances) if (Object.prototype.hasOwnProperty.call(anns, i)) values.push(anns[i]);
  if (values.length === 0 || instances.length === 0) return [];
  const constant = (v: V): Record<string, V> => Object.fromEntries(instances.map((i) => [i, v]));
  const run = (e: Record<string, V>) => altTest(humans, e, options);
  const once = (kind: AltTestBaselineKind, description: string, e: Record<string, V>): AltTestBaseline => {
    const r = run(e);
    return { kind, description, winningRate: r.winningRate, advantageProbability: r.advantageProbability, passed: r.passed };
  };
  const repeated = (kind: AltTestBaselineKind, description: string, draw: (rng: () => number) => V): AltTestBaseline => {
    const results = Array.from({ length: draws }, (_, d) => {
      const rng = seedrandom(`${seed}/${kind}/${d}`);
      return run(Object.fromEntries(instances.map((i) => [i, draw(rng)])));
    });
    const mean = (xs: (number | null)[]) => (xs.some((x) => x === null) ? null : (xs as number[]).reduce((a, b) => a + b, 0) / xs.length);
    const passes = results.filter((r) => r.passed).length;
    return { kind, description, winningRate: mean(results.map((r) => r.winningRate)), advantageProbability: mean(results.map((r) => r.advantageProbability)), passed: passes * 2 > draws, draws, passes };
  };
  if ((options.scoring ?? 'accuracy') !== 'accuracy') {
    const nums = (values as unknown as number[]).slice().sort((a, b) => a - b);
    const mean = nums.reduce((a, b) => a + b, 0) / nums.length;
    const mid = nums.length >> 1;
    const median = nums.length % 2 ? nums[mid] : (nums[mid - 1] + nums[mid]) / 2;
    return [
      once('constant-mean', `always the mean rating (${Number(mean.toPrecision(4))})`, constant(mean as V)),
      once('constant-median', `always the median rating (${median})`, constant(median as V)),
      repeated('marginal-draw', "a draw from the annotators' ratings", (rng) => nums[Math.floor(rng() * nums.length)] as V),
    ];
  }
  const counts = new Map<string, { value: V; n: number }>();
  for (const v of values) {
    const k = `${typeof v}:${String(v)}`;
    const e = counts.get(k);
    if (e) e.n++;
    else counts.set(k, { value: v, n: 1 });
  }
  const ranked = [...counts.values()].sort((a, b) => b.n - a.n || String(a.value).localeCompare(String(b.value)));
  const shares = ranked.map((r) => ({ value: r.value, share: r.n / values.length }));
  const out = [once('always-majority', `always ${label(ranked[0].value)} (${(shares[0].share * 100).toFixed(1)} % of the labels)`, constant(ranked[0].value))];
  if (ranked.length > 1) {
    const last = ranked[ranked.length - 1];
    out.push(once('always-minority', `always ${label(last.value)} (${((last.n / values.length) * 100).toFixed(1)} % of the labels)`, constant(last.value)));
  }
  out.push(
    repeated('random-base-rate', `random at the base rate (${shares.map((s) => `${(s.share * 100).toFixed(1)} % ${label(s.value)}`).join(', ')})`, (rng) => {
      let u = rng();
      for (const s of shares) {
        if (u < s.share) return s.value;
        u -= s.share;
      }
      return shares[shares.length - 1].value;
    }),
  );
  return out;
}
