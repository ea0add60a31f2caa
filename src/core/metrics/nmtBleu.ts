/**
 * BLEU as Hugging Face evaluate's `bleu` metric computes it for one (prediction, reference) pair:
 * `evaluate.load("bleu").compute(predictions=[candidate], references=[[reference]])`, which is tensorflow/nmt's
 * `compute_bleu` (nmt/scripts/bleu.py, commit 0be864257a76c151eef20ea689755f08bc1faf4e, which evaluate loads
 * from GitHub) on the tokens of evaluate's `Tokenizer13a` (metrics/bleu/tokenizer_13a.py, evaluate 0.4.x).
 *
 * It differs from NLTK's `sentence_bleu` ({@link ./bleu4}) in three ways that change values and ranks: an order
 * without a match makes the score exactly 0 (NLTK: about 1e-77 per order), its optional smoothing is Lin & Och
 * (2004) add-one on every order (NLTK has none of that name), and the tokenizer is 13a by default.
 */
import { buildSignature, type Signature } from '../evaluators/signature';
import { MetricConfigError, VALUE_WARNING, type Metric, type MetricInput, type MetricValues } from './metric';
import { crExp, crLog } from './text/libm';
import { ngramStats } from './text/ngrams';
import { hfTokens13a, perText, wordTokens } from './text/tokenize';

/** Tokenizers of {@link nmtBleu}: evaluate's default `13a`, or a function the user would pass as `tokenizer=`. */
export type NmtBleuTokenizer = '13a' | 'whitespace' | 'lowercase' | 'treebank';
export const NMT_BLEU_TOKENIZERS: readonly NmtBleuTokenizer[] = ['13a', 'whitespace', 'lowercase', 'treebank'];

export interface NmtBleuConfig {
  /**
   * `13a`: evaluate's `Tokenizer13a` (the default); `whitespace`: `str.split`; `lowercase`: `lambda s:
   * s.lower().split()`; `treebank`: NLTK 3.8 `TreebankWordTokenizer().tokenize`.
   */
  tokenizer: NmtBleuTokenizer;
  /** `max_order` (default 4). */
  maxOrder: number;
  /** `smooth=True`: Lin & Och (2004) add-one smoothing of every order's precision (default false). */
  smooth: boolean;
}

/** What `compute_bleu` returns for one pair (the fields evaluate reports). */
export interface NmtBleuResult {
  bleu: number;
  precisions: number[];
  brevityPenalty: number;
  lengthRatio: number;
  translationLength: number;
  referenceLength: number;
}

/** Raised where `compute_bleu` raises: ZeroDivisionError for an empty reference or an empty candidate. */
export class NmtBleuError extends Error {}

/**
 * tensorflow/nmt `compute_bleu([[reference]], [translation], max_order, smooth)` on token lists:
 * clipped n-gram matches per order; precision = matches / possible (0.0 when there is no n-gram of that order),
 * or (matches + 1) / (possible + 1) with `smooth`; geometric mean exp(Σ (1/max_order)·log p) (summed left to right,
 * as Python's `sum`) when every precision is positive, else 0; ratio = c / r; brevity penalty 1 when ratio > 1,
 * else exp(1 − 1/ratio); BLEU = geometric mean · brevity penalty.
 *
 * @throws NmtBleuError where `compute_bleu` divides by zero: an empty reference (ratio = c/0) or an empty
 *   translation (1/ratio with ratio 0)
 */
export function nmtComputeBleu(reference: readonly string[], translation: readonly string[], maxOrder = 4, smooth = false): NmtBleuResult {
  const r = reference.length;
  const c = translation.length;
  const stats = ngramStats(translation, reference, maxOrder);
  const precisions: number[] = [];
  for (let i = 0; i < maxOrder; i++) {
    const possible = stats.totals[i];
    if (smooth) precisions.push((stats.matches[i] + 1) / (possible + 1));
    else precisions.push(possible > 0 ? stats.matches[i] / possible : 0);
  }
  let geoMean = 0;
  if (Math.min(...precisions) > 0) {
    let sum = 0;
    for (const p of precisions) sum += (1 / maxOrder) * crLog(p);
    geoMean = crExp(sum);
  }
  if (r === 0) throw new NmtBleuError('the reference has no tokens: compute_bleu divides by its length (ZeroDivisionError)');
  const ratio = c / r;
  if (ratio === 0) throw new NmtBleuError('the candidate has no tokens: compute_bleu divides by the length ratio 0 (ZeroDivisionError)');
  const bp = ratio > 1 ? 1 : crExp(1 - 1 / ratio);
  return { bleu: geoMean * bp, precisions, brevityPenalty: bp, lengthRatio: ratio, translationLength: c, referenceLength: r };
}

function tokensOf(text: string, tokenizer: NmtBleuTokenizer): string[] {
  return tokenizer === '13a' ? hfTokens13a(text) : wordTokens(text, tokenizer);
}

const DEFAULTS: NmtBleuConfig = { tokenizer: '13a', maxOrder: 4, smooth: false };

function configure(partial: Partial<NmtBleuConfig> = {}): NmtBleuConfig {
  const c = { ...DEFAULTS, ...partial };
  const known = new Set(Object.keys(DEFAULTS));
  for (const key of Object.keys(partial)) if (!known.has(key)) throw new MetricConfigError('nmtBleu', key, `unknown field; known: ${[...known].join(', ')}`);
  if (!NMT_BLEU_TOKENIZERS.includes(c.tokenizer)) throw new MetricConfigError('nmtBleu', 'tokenizer', `must be one of ${NMT_BLEU_TOKENIZERS.join(', ')}`);
  if (!Number.isInteger(c.maxOrder) || c.maxOrder < 1 || c.maxOrder > 8) throw new MetricConfigError('nmtBleu', 'maxOrder', 'must be an integer from 1 to 8');
  if (typeof c.smooth !== 'boolean') throw new MetricConfigError('nmtBleu', 'smooth', 'must be true or false');
  return c;
}

function signature(c: NmtBleuConfig): Signature {
  const tok = c.tokenizer === '13a' ? '13a-hf' : c.tokenizer;
  return buildSignature([
    ['impl', 'nmt-compute_bleu-0be8642'],
    ['tok', tok],
    ['order', c.maxOrder],
    ['smooth', c.smooth ? 'add-one' : 'none'],
  ]);
}

/** The warning stored with an unsmoothed nmt BLEU of 0 caused by an order without a match (not by no match at all). */
export const NMT_BLEU_ZERO_WARNING = 'no match in the reference for some n-gram order above 1: unsmoothed nmt/evaluate BLEU is then exactly 0 (a tie with every such response) however well the other orders match; smooth: true avoids it';

/** BLEU (tensorflow/nmt `compute_bleu`, as Hugging Face evaluate's `bleu`). */
export const nmtBleu: Metric<NmtBleuConfig> = {
  name: 'nmtBleu',
  card: {
    title: 'BLEU (nmt / HF evaluate)',
    description:
      'BLEU of one candidate against one reference as Hugging Face evaluate\'s `bleu` metric computes it ' +
      '(`evaluate.load("bleu").compute(predictions=[c], references=[[r]])`): tensorflow/nmt `compute_bleu` on the ' +
      'tokens of evaluate\'s `Tokenizer13a` (sacreBLEU\'s 13a rules, case kept). Clipped n-gram precisions up to ' +
      '`maxOrder`, their geometric mean, brevity penalty exp(1 − r/c) when the candidate is not longer. Without ' +
      'smoothing, any order without a match makes the score exactly 0; `smooth: true` is Lin & Och (2004) ' +
      'add-one smoothing on every order. Undefined (compute_bleu divides by zero) for an empty candidate or ' +
      'reference.',
    citation:
      '@inproceedings{papineni2002bleu, title={{BLEU}: a Method for Automatic Evaluation of Machine Translation}, author={Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing}, booktitle={Proceedings of ACL}, pages={311--318}, year={2002}}\n' +
      '@inproceedings{lin-och-2004-orange, title={{ORANGE}: a Method for Evaluating Automatic Evaluation Metrics for Machine Translation}, author={Lin, Chin-Yew and Och, Franz Josef}, booktitle={Proceedings of COLING}, pages={501--507}, year={2004}}',
    reference: 'tensorflow/nmt nmt/scripts/bleu.py compute_bleu (0be8642), as Hugging Face evaluate 0.4.x metrics/bleu with its Tokenizer13a',
    inputs: 'candidate: the response to score; reference: the item\'s reference response (one reference).',
    examples: [
      { input: { candidate: 'So you feel like drinking is getting in the way of your work.', reference: 'So drinking is getting in the way of your work.' }, values: { score: 0.6930977286178778 } },
      { input: { candidate: 'You want to quit smoking.', reference: 'You are not sure you want to quit.' }, values: { score: 0 } },
      { input: { candidate: 'You want to quit smoking.', reference: 'You are not sure you want to quit.' }, config: { smooth: true }, values: { score: 0.2759678961451082 } },
    ],
  },
  outputs: [{ name: 'score', description: 'BLEU in [0, 1]', range: [0, 1], higherIsBetter: true }],
  requiresReference: true,
  defaultConfig: DEFAULTS,
  configure,
  signature,
  async score(inputs: readonly MetricInput[], config: NmtBleuConfig): Promise<MetricValues[]> {
    const tokens = perText((text) => tokensOf(text, config.tokenizer));
    return inputs.map(({ candidate, reference }) => {
      if (reference === undefined) return { score: null };
      try {
        const r = nmtComputeBleu(tokens(reference), tokensOf(candidate, config.tokenizer), config.maxOrder, config.smooth);
        const values: MetricValues = { score: r.bleu };
        if (!config.smooth && r.bleu === 0 && r.precisions[0] > 0) values[VALUE_WARNING] = NMT_BLEU_ZERO_WARNING;
        return values;
      } catch (err) {
        if (err instanceof NmtBleuError) return { score: null };
        throw err;
      }
    });
  },
};
