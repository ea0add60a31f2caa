/**
 * The metric contract: one module per metric (Hugging Face `evaluate` style, a card next to the code), every
 * result carrying a signature of the exact configuration that produced it (sacreBLEU style), and evaluator ids
 * that include that signature, so a correlation table can be reproduced.
 *
 * Evaluator ids: `metric:<name>.<output>@<signature>`, e.g.
 * `metric:bleu4.score@impl:nltk-3.8|tok:whitespace|smooth:none|rv:0.1.0`. The signature is `key:value` pairs
 * joined by `|`, in a fixed order chosen by the metric; it always ends with `rv:<ReflectEval version>`.
 */
import type { Turn } from '../dialogue/types';
import type { Signature } from '../evaluators/signature';
import type { ModelLocator } from '../models/describe';

/** What a metric sees of one candidate. */
export interface MetricInput {
  /** The candidate response (hypothesis). */
  candidate: string;
  /** The item's reference response, for reference-based metrics. */
  reference?: string;
  /** The dialogue context, for reference-free metrics. */
  context?: readonly Turn[];
}

/** One named output of a metric (e.g. ROUGE-L's `precision`, `recall`, `f`). */
export interface MetricOutput {
  name: string;
  description: string;
  /** Inclusive value range, e.g. [0, 1]; `-Infinity`/`Infinity` for open ends (log-likelihoods). */
  range: [number, number];
  higherIsBetter: boolean;
}

/** The metric's card: what it is, where it comes from, how to cite it. */
export interface MetricCard {
  /** Display name, e.g. `BLEU-4`. */
  title: string;
  description: string;
  /** BibTeX or a full reference. */
  citation: string;
  /** The implementation this one reproduces and the version tested against, e.g. `nltk.translate.bleu_score 3.8`. */
  reference?: string;
  inputs: string;
  /** Short worked examples: inputs and the values they give. */
  examples?: { input: MetricInput; config?: Record<string, unknown>; values: Record<string, number | null> }[];
}

/**
 * Key of an optional remark on one input's values: a sentence saying why a value is degenerate though defined
 * (unsmoothed BLEU-4 without a 4-gram match is ≈0 whatever the lower orders) — for every output, or a sentence
 * per output name when only some are (pycocoevalcap's BLEU-3 and BLEU-4 but not its BLEU-1). {@link scoreItems}
 * stores it as the scores' `warning`; the correlation table counts such responses per cell and says so once. A
 * symbol, so it is never taken for an output.
 */
export const VALUE_WARNING: unique symbol = Symbol.for('reflect-eval.metric.valueWarning');

/** Scores of one candidate by output name; null when the metric is undefined for that input. */
export type MetricValues = Record<string, number | null> & { [VALUE_WARNING]?: string | Readonly<Record<string, string>> };

/** The warning {@link VALUE_WARNING} gives for one output of `values`, if any. */
export function valueWarning(values: MetricValues | undefined, output: string): string | undefined {
  const w = values?.[VALUE_WARNING];
  return typeof w === 'string' ? w : w?.[output];
}

/** Options of a scoring run. */
export interface MetricRunOptions {
  signal?: AbortSignal;
  /** Called with the number of inputs scored so far. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Where neural metrics find their models: `bundled:` references and folders relative to the host's base folder.
   * Without it, relative folders resolve against the process's working directory and `bundled:` is refused.
   */
  models?: ModelLocator;
}

/** Raised for a bad metric configuration, naming the metric and the field. */
export class MetricConfigError extends Error {
  constructor(
    readonly metric: string,
    readonly field: string,
    message: string,
  ) {
    super(`metric ${metric}: ${field}: ${message}`);
    this.name = 'MetricConfigError';
  }
}

/** A metric. `C` is its plain, JSON-serialisable configuration object. */
export interface Metric<C extends object = Record<string, unknown>> {
  /** Registry key and evaluator-id name, e.g. `bleu4`, `rougeL`, `meteor`, `bertscore`, `followUpLikelihood`. */
  readonly name: string;
  readonly card: MetricCard;
  /** Its outputs; the first is the primary one. */
  readonly outputs: readonly MetricOutput[];
  /** True when a candidate without a reference cannot be scored. */
  readonly requiresReference: boolean;
  readonly defaultConfig: Readonly<C>;
  /**
   * The complete configuration from a partial one (defaults filled in), validated.
   *
   * @throws MetricConfigError naming the field
   */
  configure(partial?: Partial<C>): C;
  /** `key:value|…|rv:<version>` describing everything that can change a value, built by `buildSignature`. */
  signature(config: C): Signature;
  /** Scores a batch of inputs, one {@link MetricValues} per input, in order. */
  score(inputs: readonly MetricInput[], config: C, options?: MetricRunOptions): Promise<MetricValues[]>;
  /**
   * For a metric whose published figure is a corpus score: that figure for `inputs` taken as one corpus, as the
   * reference implementation computes it, by output name — pycocoevalcap's BLEU pools n-gram counts and lengths
   * over the corpus (not the mean of the per-candidate values); its ROUGE-L is NumPy's mean of them. Null where
   * undefined (an empty corpus, an input without its reference). Absent when the metric has no corpus figure.
   */
  corpus?(inputs: readonly MetricInput[], config: C): Record<string, number | null>;
}

/** `metric:<name>.<output>@<signature>`. */
export function metricEvaluatorId(name: string, output: string, signature: Signature): string {
  return `metric:${name}.${output}@${signature}`;
}
