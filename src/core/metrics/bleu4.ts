/**
 * BLEU-4 as NLTK 3.8 computes it for one sentence: `nltk.translate.bleu_score.sentence_bleu([reference],
 * hypothesis)` with uniform 4-gram weights, optionally one of Chen & Cherry's smoothing functions
 * (`SmoothingFunction().method1` … `method7`).
 */
import { buildSignature, type Signature } from '../evaluators/signature';
import { MetricConfigError, VALUE_WARNING, type Metric, type MetricInput, type MetricValues } from './metric';
import { crExp, crLog } from './text/libm';
import { ngramStats, ngramStatsPrepared, prepareReference, type PreparedReference } from './text/ngrams';
import { Fraction, fsum, fsum4, pyAdd, pyDiv, pyMul, pyPositive, pyTruthy, toFloat, type PyNumber } from './text/python';
import { perText, WORD_TOKENIZERS, wordTokens, type WordTokenizer } from './text/tokenize';

/** NLTK's smoothing functions: `none` is NLTK's default (`method0`); `method1`–`method7` are Chen & Cherry (2014). */
export type NltkSmoothing = 'none' | 'method1' | 'method2' | 'method3' | 'method4' | 'method5' | 'method6' | 'method7';

export const NLTK_SMOOTHINGS: readonly NltkSmoothing[] = ['none', 'method1', 'method2', 'method3', 'method4', 'method5', 'method6', 'method7'];

export interface Bleu4Config {
  /** How both texts become tokens: `whitespace` (Python `str.split()`), `13a` (sacreBLEU's tokenizer_13a), `lowercase` (`str.lower().split()`), `treebank` (NLTK 3.8 TreebankWordTokenizer). */
  tokenizer: WordTokenizer;
  smoothing: NltkSmoothing;
  /** `SmoothingFunction(epsilon=…)`: counts added to zero matches by method1 (default 0.1). */
  epsilon: number;
  /** `SmoothingFunction(alpha=…)`: prior weight of method6 (default 5). */
  alpha: number;
  /** `SmoothingFunction(k=…)`: method4/method7's k (default 5). */
  k: number;
  /** `sentence_bleu(..., auto_reweigh=True)`: uniform weights over the hypothesis length when it is shorter than 4. */
  autoReweigh: boolean;
}

/** log(num/den) for small integer counts (num = 0: log of sys.float_info.min, NLTK method0's stand-in), memoized. */
const logMemo = new Map<number, number>();
function logRatio(num: number, den: number): number {
  const key = num * 4294967296 + den;
  let v = logMemo.get(key);
  if (v === undefined) {
    v = crLog(num === 0 ? FLOAT_MIN : num / den);
    if (logMemo.size > 1 << 20) logMemo.clear();
    logMemo.set(key, v);
  }
  return v;
}

/** sys.float_info.min: what NLTK's method0 puts in place of a zero precision. */
const FLOAT_MIN = 2.2250738585072014e-308;

/** Raised when NLTK itself raises for an input (method6 on a hypothesis without trigram matches). */
export class NltkBleuError extends Error {}

/**
 * NLTK 3.8 `sentence_bleu([reference], hypothesis, smoothing_function=…, auto_reweigh=…)` on token lists, with
 * weights (0.25, 0.25, 0.25, 0.25). Follows `corpus_bleu` for one pair: modified precisions as unreduced
 * `Fraction(matches, max(1, hypothesis n-grams))`; 0 when there is no unigram match; brevity penalty
 * exp(1 − r/c) for c ≤ r (0 for an empty hypothesis); the smoothing function; then
 * `bp · exp(fsum(w · log p for p > 0))`.
 *
 * @returns the score in [0, 1]
 * @throws NltkBleuError where NLTK raises (method6 needs a non-zero trigram precision)
 */
export function nltkSentenceBleu(
  reference: readonly string[],
  hypothesis: readonly string[],
  config: Pick<Bleu4Config, 'smoothing' | 'epsilon' | 'alpha' | 'k' | 'autoReweigh'>,
  prepared?: PreparedReference,
  report?: { zeroOrders?: number[] },
): number {
  const hypLen = hypothesis.length;
  const refLen = reference.length;
  const maxN = maxOrder(config);
  const stats = prepared ? ngramStatsPrepared(hypothesis, prepared, maxN) : ngramStats(hypothesis, reference, maxN);
  const num = stats.matches;
  if (report) {
    // the orders NLTK's method0 warns about ("The hypothesis contains 0 counts of n-gram overlaps"): those
    // weighted and without a match, once the unigrams match
    const weighted = config.autoReweigh && hypLen < 4 ? hypLen : 4;
    report.zeroOrders = num[0] === 0 ? [] : [1, 2, 3].filter((i) => i < weighted && num[i] === 0).map((i) => i + 1);
  }
  const den = [Math.max(1, stats.totals[0]), Math.max(1, stats.totals[1]), Math.max(1, stats.totals[2]), Math.max(1, stats.totals[3]), Math.max(1, stats.totals[4] ?? 0)];
  const bp = hypLen > refLen ? 1 : hypLen === 0 ? 0 : crExp(1 - refLen / hypLen);
  if (num[0] === 0) return 0;
  if (config.smoothing === 'none' && !(config.autoReweigh && hypLen < 4)) {
    // NLTK's default (method0), the common case, without the general machinery: every precision is positive.
    const t0 = 0.25 * logRatio(num[0], den[0]);
    const t1 = 0.25 * logRatio(num[1], den[1]);
    const t2 = 0.25 * logRatio(num[2], den[2]);
    const t3 = 0.25 * logRatio(num[3], den[3]);
    return bp * crExp(fsum4(t0, t1, t2, t3));
  }
  const p = smooth(num, den, config, hypLen);
  let weights = [0.25, 0.25, 0.25, 0.25];
  if (config.autoReweigh && hypLen < 4) weights = new Array<number>(hypLen).fill(1 / hypLen);
  const terms: number[] = [];
  for (let i = 0; i < Math.min(weights.length, 4); i++) if (pyPositive(p[i])) terms.push(weights[i] * crLog(toFloat(p[i])));
  return bp * crExp(fsum(terms));
}

/** Highest n-gram order read: method5 (and method7) also look at 5-grams. */
function maxOrder(c: Pick<Bleu4Config, 'smoothing'>): number {
  return c.smoothing === 'method5' || c.smoothing === 'method7' ? 5 : 4;
}

/** `Fraction` for a Python int, a plain number for a Python float (JSON cannot tell 5 from 5.0: integers are ints). */
function pyNumber(x: number): PyNumber {
  return Number.isInteger(x) ? Fraction.of(x) : x;
}

/**
 * NLTK's `SmoothingFunction().method<k>` applied to the precisions num[i]/den[i] (orders 1–4; index 4 holds the
 * 5-gram precision that method5 reads). Where NLTK keeps a `Fraction`, the value is the exact ratio: a plain
 * number num/den (correctly rounded, as Python's `float(Fraction)`) when only its float value is used later, a
 * {@link Fraction} where NLTK does exact arithmetic on it (methods 2, 5, 6, 7).
 */
function smooth(num: readonly number[], den: readonly number[], c: Pick<Bleu4Config, 'smoothing' | 'epsilon' | 'alpha' | 'k'>, hypLen: number): PyNumber[] {
  const orders = [0, 1, 2, 3];
  const fractions = (): PyNumber[] => orders.map((i) => Fraction.of(num[i], den[i]));
  /** method4 on the four orders: 1/(2^i·k/ln(len)) / den for zero matches (when len > 1), the precision otherwise. */
  const method4 = (): PyNumber[] => {
    let incvnt = 1;
    return orders.map((i) => {
      if (num[i] === 0 && hypLen > 1) {
        const numerator = 1 / ((2 ** incvnt * c.k) / crLog(hypLen));
        incvnt++;
        return numerator / den[i];
      }
      return Fraction.of(num[i], den[i]);
    });
  };
  /** method5: each order averaged with its neighbours, m[-1] = p1 + 1 and the 5-gram precision after p4. */
  const method5 = (p: PyNumber[]): PyNumber[] => {
    const plus1 = [...p, Fraction.of(num[4], den[4])];
    const out = [...p];
    let prev = pyAdd(p[0], Fraction.of(1));
    for (let i = 0; i < 4; i++) {
      out[i] = pyDiv(pyAdd(pyAdd(prev, out[i]), plus1[i + 1]), Fraction.of(3));
      prev = out[i];
    }
    return out;
  };
  switch (c.smoothing) {
    case 'none':
      return orders.map((i) => (num[i] === 0 ? FLOAT_MIN : num[i] / den[i]));
    case 'method1':
      return orders.map((i) => (num[i] === 0 ? (0 + c.epsilon) / den[i] : num[i] / den[i]));
    case 'method2':
      return orders.map((i) => (i === 0 ? num[0] / den[0] : new Fraction(BigInt(num[i] + 1), BigInt(den[i] + 1))));
    case 'method3': {
      let incvnt = 1;
      return orders.map((i) => (num[i] === 0 ? 1 / (2 ** incvnt++ * den[i]) : num[i] / den[i]));
    }
    case 'method4':
      return method4();
    case 'method5':
      return method5(fractions());
    case 'method6': {
      if (num[2] === 0) throw new NltkBleuError('smoothing method6 requires a non-zero trigram precision (NLTK raises AssertionError)');
      const out = fractions();
      for (let i = 2; i < 4; i++) {
        const l = Math.max(0, hypLen - i);
        const prior2 = out[i - 2];
        if (!pyTruthy(prior2)) {
          // pi0 is the int 0: (m + alpha·0) / (l + alpha) is Python int/int (or float) true division.
          out[i] = num[i] / (l + c.alpha);
        } else {
          const prev = out[i - 1];
          const pi0 = pyDiv(pyMul(prev, prev), prior2);
          out[i] = pyDiv(pyAdd(Fraction.of(num[i]), pyMul(pyNumber(c.alpha), pi0)), pyNumber(l + c.alpha));
        }
      }
      return out;
    }
    case 'method7':
      return method5(method4());
  }
}

const DEFAULTS: Bleu4Config = { tokenizer: 'whitespace', smoothing: 'none', epsilon: 0.1, alpha: 5, k: 5, autoReweigh: false };

function configure(partial: Partial<Bleu4Config> = {}): Bleu4Config {
  const c = { ...DEFAULTS, ...partial };
  const known = new Set(Object.keys(DEFAULTS));
  for (const key of Object.keys(partial)) if (!known.has(key)) throw new MetricConfigError('bleu4', key, `unknown field; known: ${[...known].join(', ')}`);
  if (!WORD_TOKENIZERS.includes(c.tokenizer)) throw new MetricConfigError('bleu4', 'tokenizer', `must be one of ${WORD_TOKENIZERS.join(', ')}`);
  if (!NLTK_SMOOTHINGS.includes(c.smoothing)) throw new MetricConfigError('bleu4', 'smoothing', `must be one of ${NLTK_SMOOTHINGS.join(', ')}`);
  for (const f of ['epsilon', 'alpha', 'k'] as const) if (typeof c[f] !== 'number' || !Number.isFinite(c[f]) || c[f] <= 0) throw new MetricConfigError('bleu4', f, 'must be a positive number');
  if (typeof c.autoReweigh !== 'boolean') throw new MetricConfigError('bleu4', 'autoReweigh', 'must be true or false');
  return c;
}

function signature(c: Bleu4Config): Signature {
  const param = { method1: `[epsilon=${c.epsilon}]`, method4: `[k=${c.k}]`, method6: `[alpha=${c.alpha}]`, method7: `[k=${c.k}]` } as Partial<Record<NltkSmoothing, string>>;
  return buildSignature([
    ['impl', 'nltk-3.8'],
    ['tok', c.tokenizer],
    ['smooth', `${c.smoothing}${param[c.smoothing] ?? ''}`],
    ['reweigh', c.autoReweigh ? 'auto' : undefined],
  ]);
}

/**
 * The warning stored with an unsmoothed BLEU-4 whose candidate shares unigrams but not every higher order with
 * the reference (NLTK 3.8 warns the same and substitutes the smallest double for the zero precision).
 */
export const BLEU_ZERO_ORDER_WARNING =
  'no match in the reference for some n-gram order (2–4): unsmoothed BLEU-4 is then practically 0 (each such order multiplies it by about 1e-77) however well the other orders match, and NLTK warns "The hypothesis contains 0 counts of n-gram overlaps"; a smoothed variant (e.g. smoothing method1) avoids it';

/** BLEU-4 (NLTK 3.8 `sentence_bleu`). */
export const bleu4: Metric<Bleu4Config> = {
  name: 'bleu4',
  card: {
    title: 'BLEU-4 (NLTK)',
    description:
      'Sentence-level BLEU with uniform weights over 1- to 4-grams (Papineni et al., 2002), exactly as NLTK 3.8 ' +
      '`sentence_bleu([reference], candidate)` computes it: modified n-gram precisions clipped by the reference ' +
      'counts, geometric mean, brevity penalty exp(1 − r/c) when the candidate is not longer than the reference. ' +
      'Without smoothing (NLTK\'s default) any n-gram order without a match makes the score practically 0 (NLTK ' +
      'substitutes the smallest normal double for a zero precision: each such order multiplies the score by ' +
      'about 1e-77); a candidate without any unigram match scores exactly 0. Chen & Cherry (2014) smoothing methods ' +
      '1–7 are NLTK\'s `SmoothingFunction` with its defaults epsilon 0.1, alpha 5, k 5; method6 is undefined (NLTK ' +
      'raises) when the candidate has no trigram match. Tokenization: `whitespace` (Python `str.split()`, case ' +
      'kept), `13a` (sacreBLEU\'s mteval-v13a tokenizer, case kept), `lowercase` (`str.lower().split()`) or ' +
      '`treebank` (NLTK 3.8 `TreebankWordTokenizer`, case kept). The reference is never scored against itself.',
    citation:
      '@inproceedings{papineni2002bleu, title={{BLEU}: a Method for Automatic Evaluation of Machine Translation}, author={Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing}, booktitle={Proceedings of ACL}, pages={311--318}, year={2002}}\n' +
      '@inproceedings{chen2014systematic, title={A Systematic Comparison of Smoothing Techniques for Sentence-Level {BLEU}}, author={Chen, Boxing and Cherry, Colin}, booktitle={Proceedings of the Ninth Workshop on Statistical Machine Translation}, pages={362--367}, year={2014}}\n' +
      '@book{bird2009nltk, title={Natural Language Processing with Python}, author={Bird, Steven and Klein, Ewan and Loper, Edward}, publisher={O\'Reilly}, year={2009}}',
    reference: 'nltk.translate.bleu_score.sentence_bleu, NLTK 3.8 (Debian python3-nltk 3.8-1)',
    inputs: 'candidate: the response to score; reference: the item\'s reference response (one reference).',
    examples: [
      { input: { candidate: 'So you feel like drinking is getting in the way of your work.', reference: 'So drinking is getting in the way of your work.' }, values: { score: 0.6652049901111008 } },
      { input: { candidate: 'You want to quit smoking.', reference: 'You are not sure you want to quit.' }, values: { score: 5.094696780347207e-155 } },
      { input: { candidate: 'You want to quit smoking.', reference: 'You are not sure you want to quit.' }, config: { smoothing: 'method1' }, values: { score: 0.06900940978236146 } },
    ],
  },
  outputs: [{ name: 'score', description: 'BLEU-4 in [0, 1]', range: [0, 1], higherIsBetter: true }],
  requiresReference: true,
  defaultConfig: DEFAULTS,
  configure,
  signature,
  async score(inputs: readonly MetricInput[], config: Bleu4Config): Promise<MetricValues[]> {
    const prepare = perText((text) => {
      const tokens = wordTokens(text, config.tokenizer);
      return { tokens, prepared: prepareReference(tokens, maxOrder(config)) };
    });
    return inputs.map(({ candidate, reference }) => {
      if (reference === undefined) return { score: null };
      try {
        const ref = prepare(reference);
        const report: { zeroOrders?: number[] } = {};
        const values: MetricValues = { score: nltkSentenceBleu(ref.tokens, wordTokens(candidate, config.tokenizer), config, ref.prepared, report) };
        if (config.smoothing === 'none' && report.zeroOrders?.length) values[VALUE_WARNING] = BLEU_ZERO_ORDER_WARNING;
        return values;
      } catch (err) {
        if (err instanceof NltkBleuError) return { score: null };
        throw err;
      }
    });
  },
};
