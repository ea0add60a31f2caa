/**
 * The first study's analyses in one plain, JSON-serialisable object (Wu et al., "In-Context Non-Expert
 * Evaluation of Reflection Generation for Counselling Conversations", GEM 2022, §5.1–5.3; coherence scores from
 * Wu et al., ICMI 2023 §2.1). The analyses panel, `reflect-eval agreement` and the CSV export all read
 * {@link firstStudyAnalysis}'s result, so they show the same numbers.
 */
import { agreementTable, type AgreementTable } from './agreementTable';
import {
  ERROR_LABELS,
  MERGED_ERROR_CATEGORIES,
  consensusAdjustedMostEvidentErrors,
  majorityVote,
  mergedErrorLabel,
  type MergedErrorCategory,
} from '../labels/scheme';
import { coherenceScore } from '../labels/annotate';
import { DEFAULT_GROUP_RULES, annotatorGroup, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';
import { candidateOrigins, type Annotation, type Candidate, type DialogueItem } from '../dialogue/types';
import { spearmanRho, type CorrelationResult } from '../stats/correlation';
import { GROUND_TRUTH, decodingStrategy } from '../dialogue/strategy';

/** Version tag of the {@link FirstStudyAnalysis} shape; bumped on incompatible changes. */
export const FIRST_STUDY_SCHEMA = 'reflect-eval/first-study@1';

/** Options of {@link firstStudyAnalysis}. */
export interface FirstStudyOptions {
  /** How annotator ids map to expert / layperson (default: ids starting `Expert` are experts). */
  groupRules?: GroupRules;
  /** Whose labels make the majority votes of §5.2–5.3 (default `all`). */
  majorityGroup?: HumanGroup;
  /** A strategy is shown when it has at least this many majority-labelled responses (§5.2: 5). */
  minResponses?: number;
  /** Give a cluster's unlabelled members their representative's majority labels (§5.2; default true). */
  propagateClusters?: boolean;
  /** Ratings per subject for the kappas (default: the most common number of coherence labels per response). */
  raters?: number;
  /**
   * Groups to compute the agreement table for. Default: `all`, plus `laypeople` and `experts` when both groups
   * have labelled something.
   */
  agreementGroups?: HumanGroup[];
}

/** Coherence labels of one annotator group on one response: how many said coherent, of how many. */
export interface CoherenceCount {
  /** Annotators of the group who said coherent: the coherence score (ICMI 2023 §2.1). */
  coherent: number;
  /** Annotators of the group who gave a coherence label. */
  labelled: number;
}

/** Majority-vote coherence label (§5.2). */
export type MajorityCoherence = 'coherent' | 'incoherent' | 'noMajority' | 'unlabelled';

/** Majority-voted consensus-adjusted MEE with merging (§5.3), or `noMajority`. */
export type MajorityError = MergedErrorCategory | 'noMajority';

/** One response (candidate) with its labels as the analyses use them. */
export interface ResponseLabels {
  itemId: string;
  candidateId: string;
  /** The strategy label of every origin (first origin, then duplicate origins). */
  strategies: string[];
  /** Coherence scores per group. */
  coherence: { all: CoherenceCount; laypeople: CoherenceCount; experts: CoherenceCount };
  /** Majority vote over `majorityGroup`'s labels (own or propagated). */
  majority: MajorityCoherence;
  /** For majority-incoherent responses: the majority-voted consensus-adjusted MEE with merging; else null. */
  majorityError: MajorityError | null;
  /** Set when the labels came from this cluster representative (candidate id) rather than own annotations. */
  propagatedFrom?: string;
  /** Cluster id within the item, when clustered. */
  cluster?: string;
}

/** Coherence rate of one strategy (§5.2, Figure 3). */
export interface StrategyCoherenceRate {
  strategy: string;
  model: string;
  method?: string;
  params?: Record<string, number>;
  human: boolean;
  /** Responses of this strategy (each origin of a candidate counts once). */
  responses: number;
  /** Majority-vote-labelled responses: coherent + incoherent. */
  labelled: number;
  coherent: number;
  incoherent: number;
  /** Responses whose votes tied (possible with an even number of annotators). */
  noMajority: number;
  /** Responses without labels (own or propagated). */
  unlabelled: number;
  /** Of the labelled responses, those whose label was propagated from their cluster representative. */
  propagated: number;
  /** coherent / labelled, in [0, 1]; null when nothing is labelled. */
  rate: number | null;
  /** True when `labelled` ≥ `minResponses`, so the strategy is shown (Figure 3). */
  shown: boolean;
}

/** Distribution of majority-voted consensus-adjusted MEEs of one strategy (§5.3, Figure 4). */
export interface StrategyErrorDistribution {
  strategy: string;
  human: boolean;
  /** Majority-incoherent responses of this strategy. */
  incoherent: number;
  /** Counts per merged category and `noMajority`. */
  counts: Record<MajorityError, number>;
  /** counts / incoherent (each in [0, 1]; all 0 when incoherent is 0). */
  shares: Record<MajorityError, number>;
  /** True when `incoherent` ≥ `minResponses` (Figure 4). */
  shown: boolean;
}

/** Laypeople vs experts coherence scores for one strategy (ICMI 2023 §2.1, Table 2). */
export interface GroupCoherenceRow {
  /** Strategy label, or `all responses`. */
  strategy: string;
  /** Responses labelled by at least one layperson and one expert. */
  responses: number;
  /** Mean coherence score of laypeople / experts over those responses (null without responses). */
  meanLaypeople: number | null;
  meanExperts: number | null;
  /** Mean share of the group's annotators who said coherent (score / labelled). */
  meanShareLaypeople: number | null;
  meanShareExperts: number | null;
  /** Spearman's rho between the two groups' coherence scores, as in ICMI 2023 Table 2. */
  spearman: CorrelationResult;
}

/** Everything the first-study panel, CLI and CSV export show. Plain data: JSON.stringify-able as is. */
export interface FirstStudyAnalysis {
  schema: typeof FIRST_STUDY_SCHEMA;
  /** The options in effect. */
  options: { expertPrefix: string; majorityGroup: HumanGroup; minResponses: number; propagateClusters: boolean; raters: number | null };
  summary: {
    items: number;
    candidates: number;
    /** Candidates with at least one coherence label (any group). */
    labelledCandidates: number;
    annotations: number;
    annotators: { id: string; group: 'expert' | 'layperson'; annotations: number }[];
    /** Items with at least one clustered candidate. */
    clusteredItems: number;
  };
  /** Table 4, one table per annotator group. */
  agreement: AgreementTable[];
  /** Coherence scores by group (per response in `responses`), laypeople vs experts per strategy. */
  groupCoherence: GroupCoherenceRow[];
  /** §5.2 / Figure 3, every strategy (see `shown`), in first-seen order with the ground truth first. */
  coherenceRates: StrategyCoherenceRate[];
  /** §5.3 / Figure 4: categories in display order, then a row per strategy (see `shown`). */
  errorDistribution: { categories: { key: MajorityError; label: string }[]; rows: StrategyErrorDistribution[] };
  /** Cluster propagation (§5.2): responses that took their representative's label. */
  propagation: { enabled: boolean; clusters: number; propagatedResponses: number };
  responses: ResponseLabels[];
}

const NO_MAJORITY_LABEL = 'No majority vote';

/** Coherence score of one group (`coherenceScore` with an `inGroup` filter) and how many of the group labelled. */
function count(c: Candidate, keep: (a: Annotation) => boolean): CoherenceCount {
  return { coherent: coherenceScore(c, keep) ?? 0, labelled: c.annotations.filter((a) => typeof a.coherent === 'boolean' && keep(a)).length };
}

/** Own majority labels of a candidate from the annotations of `keep`. */
function ownLabels(c: Candidate, keep: (a: Annotation) => boolean): { majority: MajorityCoherence; majorityError: MajorityError | null } {
  const anns = c.annotations.filter((a) => typeof a.coherent === 'boolean' && keep(a));
  if (anns.length === 0) return { majority: 'unlabelled', majorityError: null };
  const vote = majorityVote(anns.map((a) => (a.coherent ? 'coherent' : 'incoherent')));
  const majority: MajorityCoherence = vote.value ?? 'noMajority';
  if (majority !== 'incoherent') return { majority, majorityError: null };
  const mees = consensusAdjustedMostEvidentErrors(anns.map(mergedErrorLabel));
  const mv = majorityVote(mees);
  return { majority, majorityError: mv.value ?? 'noMajority' };
}

function mean(xs: number[]): number | null {
  return xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : null;
}

/**
 * Runs the first study's analyses on labelled dialogue items.
 *
 * - **Agreement** (§5.1, Table 4): {@link agreementTable} for each group.
 * - **Coherence scores** (ICMI 2023 §2.1): per response, how many laypeople / experts said coherent; per
 *   strategy, their means and Spearman's rho between the groups.
 * - **Coherence rate per decoding strategy** (§5.2, Figure 3): each response gets the majority vote of
 *   `majorityGroup`'s coherence labels (strictly more than half; a tie is `noMajority`). A cluster
 *   representative's majority label is given to the members of its cluster that have no labels of their own
 *   (§5.2; members with their own labels keep them). Every origin of a candidate (`candidateOrigins`: first
 *   origin and exact duplicates) counts as one response of its strategy ({@link decodingStrategy}; the human
 *   reference is `ground truth`). rate = coherent / (coherent + incoherent); strategies with at least
 *   `minResponses` majority-labelled responses are `shown`.
 * - **MEE distribution per strategy** (§5.3, Figure 4): for majority-incoherent responses, the majority vote of
 *   the annotators' consensus-adjusted MEEs after merging into Malformed / Parroting / Hallucinatory / Other
 *   (annotators who said coherent cast no vote), or `noMajority`; propagated like the coherence label;
 *   strategies with at least `minResponses` majority-incoherent responses are `shown`.
 *
 * @param items - dialogue items (not modified)
 * @throws RangeError if `minResponses` is negative or `raters` is not an integer ≥ 2
 */
export function firstStudyAnalysis(items: readonly DialogueItem[], options: FirstStudyOptions = {}): FirstStudyAnalysis {
  const rules = options.groupRules ?? DEFAULT_GROUP_RULES;
  const majorityGroup = options.majorityGroup ?? 'all';
  const minResponses = options.minResponses ?? 5;
  if (!Number.isInteger(minResponses) || minResponses < 0) throw new RangeError(`minResponses must be a non-negative integer, got ${minResponses}`);
  const propagateClusters = options.propagateClusters ?? true;
  const isExpert = inGroup('experts', rules);
  const isLay = inGroup('laypeople', rules);
  const inMajority = inGroup(majorityGroup, rules);

  // summary
  const annotators = new Map<string, { id: string; group: 'expert' | 'layperson'; annotations: number }>();
  let candidates = 0;
  let labelledCandidates = 0;
  let annotations = 0;
  let clusteredItems = 0;
  for (const item of items) {
    if (item.candidates.some((c) => c.cluster)) clusteredItems++;
    for (const c of item.candidates) {
      candidates++;
      if (c.annotations.some((a) => typeof a.coherent === 'boolean')) labelledCandidates++;
      for (const a of c.annotations) {
        annotations++;
        const e = annotators.get(a.annotator) ?? { id: a.annotator, group: annotatorGroup(a, rules), annotations: 0 };
        e.annotations++;
        annotators.set(a.annotator, e);
      }
    }
  }

  // agreement
  const hasLay = [...annotators.values()].some((a) => a.group === 'layperson');
  const hasExpert = [...annotators.values()].some((a) => a.group === 'expert');
  const groups: HumanGroup[] = options.agreementGroups ?? (hasLay && hasExpert ? ['all', 'laypeople', 'experts'] : ['all']);
  const agreement = groups.map((group) => agreementTable(items, { group, groupRules: rules, raters: options.raters }));

  // per-response labels, with cluster propagation
  const responses: ResponseLabels[] = [];
  let clusters = 0;
  let propagatedResponses = 0;
  for (const item of items) {
    const own = new Map(item.candidates.map((c) => [c.id, ownLabels(c, inMajority)]));
    const reps = new Map<string, Candidate>();
    for (const c of item.candidates) if (c.cluster?.representative) reps.set(c.cluster.id, c);
    clusters += new Set(item.candidates.flatMap((c) => (c.cluster ? [c.cluster.id] : []))).size;
    for (const c of item.candidates) {
      let labels = own.get(c.id)!;
      let propagatedFrom: string | undefined;
      if (propagateClusters && labels.majority === 'unlabelled' && c.cluster && !c.cluster.representative) {
        const rep = reps.get(c.cluster.id);
        const repLabels = rep ? own.get(rep.id)! : undefined;
        if (rep && repLabels && (repLabels.majority === 'coherent' || repLabels.majority === 'incoherent')) {
          labels = repLabels;
          propagatedFrom = rep.id;
          propagatedResponses++;
        }
      }
      responses.push({
        itemId: item.id,
        candidateId: c.id,
        strategies: candidateOrigins(c).map((o) => decodingStrategy(o).label),
        coherence: { all: count(c, () => true), laypeople: count(c, isLay), experts: count(c, isExpert) },
        majority: labels.majority,
        majorityError: labels.majorityError,
        ...(propagatedFrom ? { propagatedFrom } : {}),
        ...(c.cluster ? { cluster: c.cluster.id } : {}),
      });
    }
  }

  // strategies, in first-seen order with the ground truth first
  const rates = new Map<string, StrategyCoherenceRate>();
  const errors = new Map<string, StrategyErrorDistribution>();
  const emptyCounts = (): Record<MajorityError, number> => Object.fromEntries([...MERGED_ERROR_CATEGORIES, 'noMajority'].map((k) => [k, 0])) as Record<MajorityError, number>;
  let r = 0;
  for (const item of items) {
    for (const c of item.candidates) {
      const labels = responses[r++];
      for (const origin of candidateOrigins(c)) {
        const s = decodingStrategy(origin);
        let rate = rates.get(s.label);
        if (!rate) {
          rate = {
            strategy: s.label,
            model: s.model,
            ...(s.method ? { method: s.method } : {}),
            ...(s.params ? { params: s.params } : {}),
            human: s.human,
            responses: 0,
            labelled: 0,
            coherent: 0,
            incoherent: 0,
            noMajority: 0,
            unlabelled: 0,
            propagated: 0,
            rate: null,
            shown: false,
          };
          rates.set(s.label, rate);
          errors.set(s.label, { strategy: s.label, human: s.human, incoherent: 0, counts: emptyCounts(), shares: emptyCounts(), shown: false });
        }
        rate.responses++;
        if (labels.majority === 'coherent' || labels.majority === 'incoherent') {
          rate.labelled++;
          rate[labels.majority]++;
          if (labels.propagatedFrom) rate.propagated++;
        } else rate[labels.majority]++;
        if (labels.majority === 'incoherent' && labels.majorityError) {
          const e = errors.get(s.label)!;
          e.incoherent++;
          e.counts[labels.majorityError]++;
        }
      }
    }
  }
  const order = (a: { human: boolean }, b: { human: boolean }) => Number(b.human) - Number(a.human);
  const coherenceRates = [...rates.values()].sort(order);
  for (const rate of coherenceRates) {
    rate.rate = rate.labelled ? rate.coherent / rate.labelled : null;
    rate.shown = rate.labelled >= minResponses && rate.labelled > 0;
  }
  const errorRows = [...errors.values()].sort(order);
  for (const e of errorRows) {
    for (const k of Object.keys(e.counts) as MajorityError[]) e.shares[k] = e.incoherent ? e.counts[k] / e.incoherent : 0;
    e.shown = e.incoherent >= minResponses && e.incoherent > 0;
  }

  // laypeople vs experts
  const groupRow = (strategy: string, rs: ResponseLabels[]): GroupCoherenceRow => {
    const both = rs.filter((x) => x.coherence.laypeople.labelled > 0 && x.coherence.experts.labelled > 0);
    const lay = both.map((x) => x.coherence.laypeople.coherent);
    const exp = both.map((x) => x.coherence.experts.coherent);
    return {
      strategy,
      responses: both.length,
      meanLaypeople: mean(lay),
      meanExperts: mean(exp),
      meanShareLaypeople: mean(both.map((x) => x.coherence.laypeople.coherent / x.coherence.laypeople.labelled)),
      meanShareExperts: mean(both.map((x) => x.coherence.experts.coherent / x.coherence.experts.labelled)),
      spearman: spearmanRho(lay, exp),
    };
  };
  const groupCoherence: GroupCoherenceRow[] = [groupRow('all responses', responses)];
  if (hasLay && hasExpert) {
    for (const rate of coherenceRates) groupCoherence.push(groupRow(rate.strategy, responses.filter((x) => x.strategies.includes(rate.strategy))));
  }

  return {
    schema: FIRST_STUDY_SCHEMA,
    options: { expertPrefix: rules.expertPrefix, majorityGroup, minResponses, propagateClusters, raters: options.raters ?? null },
    summary: {
      items: items.length,
      candidates,
      labelledCandidates,
      annotations,
      annotators: [...annotators.values()].sort((a, b) => a.group.localeCompare(b.group) || a.id.localeCompare(b.id, undefined, { numeric: true })),
      clusteredItems,
    },
    agreement,
    groupCoherence,
    coherenceRates,
    errorDistribution: {
      categories: [...MERGED_ERROR_CATEGORIES.map((k) => ({ key: k as MajorityError, label: ERROR_LABELS[k] })), { key: 'noMajority', label: NO_MAJORITY_LABEL }],
      rows: errorRows,
    },
    propagation: { enabled: propagateClusters, clusters, propagatedResponses },
    responses,
  };
}

export { GROUND_TRUTH };
