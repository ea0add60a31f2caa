/**
 * ROUGE-L as rouge-score computes it: `RougeScorer(['rougeL'], use_stemmer=…).score(reference, candidate)`, with an
 * optional F-measure weight β (rouge-score has none: β = 1).
 *
 * Source: rouge-score 0.1.2 = google-research/google-research `rouge/` (rouge_scorer.py at 61ce9f0c:
 * `_score_lcs`, `_lcs_table`; tokenize.py at 7ce52c05; scoring.py `fmeasure`); for β ≠ 1, the F-measure of
 * Lin (2004) §3.1 in pycocoevalcap's arithmetic (rouge/rouge.py `calc_score`, salaniz/pycocoevalcap ad63453c).
 */
import { buildSignature } from '../evaluators/signature';
import { MetricConfigError, type Metric, type MetricInput, type MetricValues } from './metric';
import { perText, rougeTokens } from './text/tokenize';

export interface RougeLConfig {
  /** rouge-score's `use_stemmer`: NLTK's Porter stemmer on tokens longer than 3 characters. */
  stemmer: boolean;
  /** F-measure weight: recall weighs β² times precision (1: rouge-score's F1; 1.2: pycocoevalcap's). */
  beta: number;
}

export interface RougeLScore {
  precision: number;
  recall: number;
  f: number;
}

/**
 * Length of the longest common subsequence of two token lists: the last cell of rouge-score's `_lcs_table`,
 * computed with the bit-parallel recurrence of Crochemore et al. (2001), V' = (V + (V & M_b)) | (V & ~M_b) over
 * the positions of `a`, in 32-bit words; the LCS length is the number of zero bits of V.
 */
export function lcsLength(a: readonly string[], b: readonly string[]): number {
  const m = a.length;
  if (m === 0 || b.length === 0) return 0;
  const words = (m + 31) >>> 5;
  const masks = new Map<string, Uint32Array>();
  for (let i = 0; i < m; i++) {
    let mask = masks.get(a[i]);
    if (mask === undefined) masks.set(a[i], (mask = new Uint32Array(words)));
    mask[i >>> 5] |= 1 << (i & 31);
  }
  const v = new Uint32Array(words).fill(0xffffffff);
  for (let j = 0; j < b.length; j++) {
    const mask = masks.get(b[j]);
    if (mask === undefined) continue; // V & M = 0: V unchanged
    let carry = 0;
    for (let w = 0; w < words; w++) {
      const vw = v[w];
      const u = (vw & mask[w]) >>> 0;
      const sum = vw + u + carry; // exact in a double: < 2^34
      carry = sum > 0xffffffff ? 1 : 0;
      v[w] = (sum >>> 0) | (vw & ~mask[w]);
    }
  }
  let ones = 0;
  for (let w = 0; w < words; w++) {
    let x = w === words - 1 && (m & 31) !== 0 ? v[w] & ((1 << (m & 31)) - 1) : v[w];
    x = x - ((x >>> 1) & 0x55555555);
    x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
    ones += Math.imul((x + (x >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
  }
  return m - ones;
}

/**
 * The LCS F-measure with recall weighted β² times precision, in pycocoevalcap's arithmetic:
 * `((1 + beta**2)*P*R) / (R + beta**2*P)`, 0 when P or R is 0 (Lin, 2004, §3.1). At β = 1 it is rouge-score's
 * `scoring.fmeasure` 2PR/(P+R) bit for bit (the same operations in the same order).
 *
 * @param precision - in [0, 1]
 * @param recall - in [0, 1]
 * @param beta - positive and finite; β² is rounded once (`beta * beta`, as glibc's `pow(beta, 2)`)
 */
export function rougeFMeasure(precision: number, recall: number, beta = 1): number {
  if (precision === 0 || recall === 0) return 0;
  const b2 = beta * beta;
  return ((1 + b2) * precision * recall) / (recall + b2 * precision);
}

/**
 * rouge-score's `_score_lcs(target_tokens, prediction_tokens)`: all zero when either is empty; otherwise
 * precision = LCS / |prediction|, recall = LCS / |target|, F = {@link rougeFMeasure} (2PR/(P+R) at β = 1, 0 when
 * P+R = 0).
 */
export function rougeLFromTokens(target: readonly string[], prediction: readonly string[], beta = 1): RougeLScore {
  if (target.length === 0 || prediction.length === 0) return { precision: 0, recall: 0, f: 0 };
  const lcs = lcsLength(target, prediction);
  const precision = lcs / prediction.length;
  const recall = lcs / target.length;
  return { precision, recall, f: rougeFMeasure(precision, recall, beta) };
}

/** `RougeScorer(['rougeL'], use_stemmer=stemmer).score(reference, candidate)['rougeL']`, F with weight `beta`. */
export function rougeL(reference: string, candidate: string, stemmer = false, beta = 1): RougeLScore {
  return rougeLFromTokens(rougeTokens(reference, stemmer), rougeTokens(candidate, stemmer), beta);
}

/**
 * Checks an F-measure weight.
 *
 * @throws MetricConfigError naming `metric` and the field `beta` unless it is a positive finite number
 */
export function checkRougeBeta(metric: string, beta: unknown): void {
  if (typeof beta !== 'number' || !Number.isFinite(beta) || beta <= 0) throw new MetricConfigError(metric, 'beta', 'must be a positive number (recall weighs beta² times precision)');
}

const DEFAULTS: RougeLConfig = { stemmer: false, beta: 1 };

/** ROUGE-L (rouge-score). */
export const rougeLMetric: Metric<RougeLConfig> = {
  name: 'rougeL',
  card: {
    title: 'ROUGE-L (rouge-score)',
    description:
      'ROUGE-L (Lin, 2004): precision, recall and F-measure of the longest common subsequence of candidate and ' +
      'reference tokens, exactly as Google\'s rouge-score package (`RougeScorer([\'rougeL\'])`) computes them: its ' +
      'default tokenizer lowercases, turns every run of characters other than a–z and 0–9 into a space (so ' +
      'non-ASCII letters separate tokens and are dropped) and, with `stemmer: true` (rouge-score\'s `use_stemmer`), ' +
      'applies NLTK\'s Porter stemmer to tokens longer than 3 characters. F = 2PR/(P+R) with β = 1, rouge-score\'s ' +
      'only F-measure; `beta` weighs recall β² times precision, F = ((1 + β²)·P·R) / (R + β²·P) (Lin, 2004; ' +
      'β = 1.2 is pycocoevalcap\'s), and a non-default β is part of the signature. All three are 0 when either ' +
      'text has no token.',
    citation:
      '@inproceedings{lin-2004-rouge, title={{ROUGE}: A Package for Automatic Evaluation of Summaries}, author={Lin, Chin-Yew}, booktitle={Text Summarization Branches Out}, pages={74--81}, year={2004}}',
    reference: 'rouge_score.rouge_scorer.RougeScorer, rouge-score 0.1.2 (google-research rouge/), Porter stemmer of NLTK 3.8',
    inputs: 'candidate: the response to score (rouge-score\'s prediction); reference: the item\'s reference response (its target).',
    examples: [
      { input: { candidate: 'So you feel like drinking is getting in the way of your work.', reference: 'So drinking is getting in the way of your work.' }, values: { f: 0.8695652173913044, precision: 0.7692307692307693, recall: 1 } },
      { input: { candidate: 'You want to quit smoking.', reference: 'You are not sure you want to quit.' }, values: { f: 0.6153846153846154, precision: 0.8, recall: 0.5 } },
      { input: { candidate: 'You want to quit smoking.', reference: 'You are not sure you want to quit.' }, config: { beta: 1.2 }, values: { f: 0.5907990314769976, precision: 0.8, recall: 0.5 } },
    ],
  },
  outputs: [
    { name: 'f', description: 'LCS F-measure (β from the configuration, default 1) in [0, 1]', range: [0, 1], higherIsBetter: true },
    { name: 'precision', description: 'LCS length / candidate tokens', range: [0, 1], higherIsBetter: true },
    { name: 'recall', description: 'LCS length / reference tokens', range: [0, 1], higherIsBetter: true },
  ],
  requiresReference: true,
  defaultConfig: DEFAULTS,
  configure(partial: Partial<RougeLConfig> = {}): RougeLConfig {
    const c = { ...DEFAULTS, ...partial };
    for (const key of Object.keys(partial)) if (!(key in DEFAULTS)) throw new MetricConfigError('rougeL', key, 'unknown field; known: stemmer, beta');
    if (typeof c.stemmer !== 'boolean') throw new MetricConfigError('rougeL', 'stemmer', 'must be true or false');
    checkRougeBeta('rougeL', c.beta);
    return c;
  },
  signature: (c) =>
    buildSignature([
      ['impl', 'rouge-score-0.1.2'],
      ['tok', 'default'],
      ['stem', c.stemmer ? 'porter-nltk-3.8' : 'none'],
      // β = 1 (rouge-score's F1) is left out, so ids of the default configuration stay as they were
      ['beta', c.beta === 1 ? undefined : c.beta],
    ]),
  async score(inputs: readonly MetricInput[], config: RougeLConfig): Promise<MetricValues[]> {
    const referenceTokens = perText((text) => rougeTokens(text, config.stemmer));
    return inputs.map(({ candidate, reference }) => {
      if (reference === undefined) return { f: null, precision: null, recall: null };
      const s = rougeLFromTokens(referenceTokens(reference), rougeTokens(candidate, config.stemmer), config.beta);
      return { f: s.f, precision: s.precision, recall: s.recall };
    });
  },
};
