/**
 * Length bias: does an evaluator agree with the humans only because it rewards (or punishes) long responses?
 * For each evaluator: Spearman's ρ with response length, the humans' ρ with length on the same candidates, ρ with
 * the human score, and the partial Spearman correlation with the human score controlling for length (the first-order partial
 * correlation of the ranks; the length-controlled view of LLM-judge verbosity bias, e.g. Dubois et al. 2024), with item-bootstrap
 * intervals. Length is counted in whitespace tokens: the tokenization of the BLEU/METEOR variants ICMI 2023 uses,
 * independent of any model's vocabulary, so every evaluator is measured against the same length.
 */
import { correlate, resolveHuman, type HumanChoice } from '../correlation/correlationTable';
import { displayNames } from '../evaluators/evaluatorNames';
import type { DialogueItem } from '../dialogue/types';
import { humanScorePhrase, humanScoreSpec, isCoherenceCount, specScore, type HumanScoreSpec } from '../rubric/labelValues';
import { MI_RUBRIC } from '../rubric/presets';
import { DEFAULT_GROUP_RULES, inGroup, type GroupRules, type HumanGroup } from '../labels/groups';
import { DEFAULT_INTERVAL, type BootstrapInterval, type IntervalMethod } from '../stats/bootstrap';
import { bootstrapStatistic, pick } from '../stats/clusterBootstrap';
import type { CorrelationResult } from '../stats/correlation';
import { partialCorrelation, type PartialCorrelationResult } from '../stats/partialCorrelation';
import { usableScore } from '../correlation/ceiling';

/** Response length in whitespace tokens: the number of maximal runs of non-whitespace characters. */
export function whitespaceTokenCount(text: string): number {
  const t = text.trim();
  return t ? t.split(/\s+/u).length : 0;
}

/**
 * The flag rule: an evaluator's agreement with the humans is "mostly length" when |ρ(evaluator, human)| ≥ 0.1 and
 * the partial correlation controlling for length keeps less than half of it (|ρ_partial| < 0.5·|ρ|) or changes
 * sign. Below 0.1 there is too little agreement to attribute.
 */
export const LENGTH_FLAG = { minAbsCorrelation: 0.1, keptShare: 0.5 } as const;

/** One evaluator's length-bias figures. */
export interface LengthBiasRow {
  evaluatorId: string;
  displayName: string;
  /** Candidates with a usable score and a human label. */
  n: number;
  /** ρ(evaluator score, length). */
  evaluatorLength: CorrelationResult;
  /** ρ(human score, length) on the same candidates. */
  humanLength: CorrelationResult;
  /** ρ(evaluator score, human score). */
  evaluatorHuman: CorrelationResult;
  /** Partial Spearman ρ(evaluator, human · length). */
  partial: PartialCorrelationResult;
  /** Agreement mostly explained by length ({@link LENGTH_FLAG}). */
  flagged: boolean;
  ci?: { evaluatorLength: BootstrapInterval; partial: BootstrapInterval };
}

/** The length-bias table. */
export interface LengthBiasTable {
  human: HumanGroup;
  tokenizer: 'whitespace';
  /** ρ(human score, length) over every labelled candidate. */
  humanLength: CorrelationResult;
  rows: LengthBiasRow[];
  bootstrap?: { resamples: number; seed: number | string; level: number; interval?: IntervalMethod };
  /** The human score's dimension and rule, when it is not the MI preset's coherence count (e.g. "mean rating of Overall"). */
  dimension?: { name: string; rule: string; phrase: string };
}

/** Options of {@link lengthBias}. */
export interface LengthBiasOptions {
  evaluators: readonly string[];
  /** Whose coherence score (default `auto`: experts when any expert label exists). */
  human?: HumanChoice;
  groupRules?: GroupRules;
  bootstrap?: { resamples: number; seed: number | string; level?: number; interval?: IntervalMethod };
  /** The human score's dimension and rule (default: the MI preset's coherence count). */
  spec?: HumanScoreSpec;
}

/** Whether a row's figures meet the {@link LENGTH_FLAG} rule. */
export function mostlyLength(evaluatorHuman: number | null, partial: number | null): boolean {
  if (evaluatorHuman === null || Math.abs(evaluatorHuman) < LENGTH_FLAG.minAbsCorrelation) return false;
  if (partial === null) return false;
  return Math.sign(partial) !== Math.sign(evaluatorHuman) || Math.abs(partial) < LENGTH_FLAG.keptShare * Math.abs(evaluatorHuman);
}

/**
 * Length bias of each evaluator against the human coherence score (ICMI 2023 §2.1: the number of the group who
 * said coherent). Intervals resample dialogue items.
 */
export function lengthBias(items: readonly DialogueItem[], options: LengthBiasOptions): LengthBiasTable {
  const rules = options.groupRules ?? DEFAULT_GROUP_RULES;
  const spec = options.spec ?? humanScoreSpec(MI_RUBRIC);
  const human = resolveHuman(items, options.human ?? 'auto', rules, spec);
  const keep = inGroup(human, rules);
  const rowsData: { cluster: string; length: number; human: number; scores: (number | null)[] }[] = [];
  for (const it of items) {
    for (const c of it.candidates) {
      const h = specScore(c, spec, keep);
      if (h === null) continue;
      rowsData.push({ cluster: it.id, length: whitespaceTokenCount(c.text), human: h, scores: options.evaluators.map((id) => usableScore(it, c, id)) });
    }
  }
  const names = displayNames(options.evaluators);
  const level = options.bootstrap?.level ?? 0.95;
  const rows = options.evaluators.map((id, k): LengthBiasRow => {
    const data = rowsData.filter((r) => r.scores[k] !== null);
    const e = data.map((r) => r.scores[k] as number);
    const h = data.map((r) => r.human);
    const len = data.map((r) => r.length);
    const evaluatorHuman = correlate('spearman', e, h) as CorrelationResult;
    const partial = partialCorrelation(e, h, len, 'spearman');
    const row: LengthBiasRow = {
      evaluatorId: id,
      displayName: names.get(id) ?? id,
      n: data.length,
      evaluatorLength: correlate('spearman', e, len) as CorrelationResult,
      humanLength: correlate('spearman', h, len) as CorrelationResult,
      evaluatorHuman,
      partial,
      flagged: mostlyLength(evaluatorHuman.statistic, partial.statistic),
    };
    if (options.bootstrap && data.length > 0) {
      const settings = { ...options.bootstrap, level, clusters: data.map((r) => r.cluster), family: 'correlation' as const };
      row.ci = {
        evaluatorLength: bootstrapStatistic(data.length, (idx) => correlate('spearman', pick(e, idx), pick(len, idx)).statistic, settings),
        partial: bootstrapStatistic(data.length, (idx) => partialCorrelation(pick(e, idx), pick(h, idx), pick(len, idx)).statistic, settings),
      };
    }
    return row;
  });
  return {
    human,
    tokenizer: 'whitespace',
    humanLength: correlate('spearman', rowsData.map((r) => r.human), rowsData.map((r) => r.length)) as CorrelationResult,
    rows,
    ...(options.bootstrap ? { bootstrap: { resamples: options.bootstrap.resamples, seed: options.bootstrap.seed, level, interval: options.bootstrap.interval ?? DEFAULT_INTERVAL } } : {}),
    ...(isCoherenceCount(spec) ? {} : { dimension: { name: spec.dimension.name, rule: spec.rule, phrase: humanScorePhrase(spec) } }),
  };
}
