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
import type { DialogueItem } from '../dialogue/types';
import { DEFAULT_GROUP_RULES, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';
import { benjaminiYekutieli } from '../stats/multipleTesting';
import { oneSampleTTest } from '../stats/tTest';
import { usableScore } from '../correlation/ceiling';
import { matchRateThreshold } from './majorityLabel';

/** Alignment scoring S(prediction, others' annotations): share of equal labels, or −RMSE for numeric ratings. */
export type AltTestScoring = 'accuracy' | 'negRmse';

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
  /** t of the one-sided test against ε (±Infinity when every d_i is equal; null when undefined). */
  t: number | null;
  df: number;
  /** p-value of H0: ρ^h_j − ρ^f_j ≥ ε. */
  pValue: number | null;
  /** H0 rejected by the BY procedure: the evaluator wins against this annotator. */
  rejected: boolean;
  /** The BY threshold this annotator's p-value was compared with. */
  threshold: number | null;
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
  parameters: Required<AltTestOptions> & { correction: 'Benjamini–Yekutieli'; criterion: 'winning rate ≥ 0.5' };
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
    correction: 'Benjamini–Yekutieli' as const,
    criterion: 'winning rate ≥ 0.5' as const,
  };
  if (!(parameters.epsilon >= 0 && parameters.epsilon < 1)) throw new RangeError(`epsilon must be in [0, 1), got ${parameters.epsilon}`);
  if (!(parameters.alpha > 0 && parameters.alpha < 1)) throw new RangeError(`alpha (the FDR level) must be in (0, 1), got ${parameters.alpha}`);
  const score = parameters.scoring === 'accuracy' ? accuracy : negRmse;
  if (parameters.scoring === 'negRmse') {
    const bad = [...Object.values(evaluator), ...Object.values(humans).flatMap((h) => Object.values(h))].find((v) => typeof v !== 'number' || !Number.isFinite(v));
    if (bad !== undefined) throw new RangeError(`negRmse scoring needs numeric annotations, got ${JSON.stringify(bad)}`);
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
    tested.push({ annotator: h, instances: instances.length, evaluatorAdvantage: wf / instances.length, humanAdvantage: wh / instances.length, meanDifference: t.mean, t: t.statistic, df: t.df, pValue: t.pValue });
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
}

/** The alt-test of one evaluator of a dialogue file, with the threshold it used. */
export interface EvaluatorAltTest {
  evaluatorId: string;
  group: HumanGroup;
  threshold: number | null;
  thresholdRule: string;
  /** Share of the group's coherence labels that say coherent (the match-rate target). */
  coherentShare: number | null;
  result: AltTestResult;
}

/**
 * The alt-test of an evaluator on the coherence labels of a group in dialogue items: instances are candidates
 * (`<item id>/<candidate id>`), annotators the group's members, the evaluator's label its score at the threshold.
 * Scores a reference-based metric gave the reference itself are left out (`usableScore`).
 */
export function evaluatorAltTest(items: readonly DialogueItem[], evaluatorId: string, options: EvaluatorAltTestOptions = {}): EvaluatorAltTest {
  const group = options.group ?? 'experts';
  const keep = inGroup(group, options.groupRules ?? DEFAULT_GROUP_RULES);
  const humans: Record<string, Record<string, boolean>> = {};
  const scores: Record<string, number> = {};
  let coherent = 0;
  let labels = 0;
  for (const it of items) {
    for (const c of it.candidates) {
      const key = `${it.id}/${c.id}`;
      for (const a of c.annotations) {
        if (typeof a.coherent !== 'boolean' || !keep(a)) continue;
        (humans[a.annotator] ??= {})[key] = a.coherent;
        labels++;
        if (a.coherent) coherent++;
      }
      const s = usableScore(it, c, evaluatorId);
      if (s !== null) scores[key] = s;
    }
  }
  const sortedHumans = Object.fromEntries(Object.entries(humans).sort(([a], [b]) => a.localeCompare(b, 'en', { numeric: true })));
  const coherentShare = labels ? coherent / labels : null;
  const values = Object.values(scores);
  let threshold: number | null;
  let thresholdRule: string;
  if (typeof options.threshold === 'number') {
    threshold = options.threshold;
    thresholdRule = 'given';
  } else {
    threshold = values.length && coherentShare !== null ? matchRateThreshold(values, coherentShare) : null;
    thresholdRule = `match-rate: the evaluator calls ${threshold === null ? '–' : `${((values.filter((v) => v >= (threshold as number)).length / values.length) * 100).toFixed(1)}%`} coherent, the ${group}' labels ${coherentShare === null ? '–' : `${(coherentShare * 100).toFixed(1)}%`}`;
  }
  const evaluator: Record<string, boolean> = {};
  if (threshold !== null) for (const [k, v] of Object.entries(scores)) evaluator[k] = v >= threshold;
  return { evaluatorId, group, threshold, thresholdRule, coherentShare, result: altTest(sortedHumans, evaluator, options) };
}
