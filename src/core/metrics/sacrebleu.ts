/**
 * Sentence BLEU as sacreBLEU 2.x computes it: `sacrebleu.sentence_bleu(candidate, [reference])`, by default
 * tokenizer 13a, `exp` smoothing and effective order, on the 0–100 scale.
 *
 * Source: mjpost/sacrebleu v2.6.0 (commit f615c7286d4d813370efb824d94fc2bfcd3a6b94): `compat.sentence_bleu`,
 * `metrics/bleu.py` (`BLEU._preprocess_segment`, `_extract_reference_info`, `_compute_segment_statistics`,
 * `compute_bleu`), `metrics/helpers.py` (`extract_all_word_ngrams`), `utils.my_log`, `tokenizers/tokenizer_13a.py`.
 */
import { buildSignature, type Signature } from '../evaluators/signature';
import { MetricConfigError, type Metric, type MetricInput, type MetricValues } from './metric';
import { crExp, crLog } from './text/libm';
import { ngramStats } from './text/ngrams';
import { pyLower, pyRstrip, pySplit } from './text/python';
import { tokenize13a } from './text/tokenize';

export const SACREBLEU_VERSION = '2.6.0';

export type SacreBleuSmoothing = 'exp' | 'none' | 'floor' | 'add-k';
const SMOOTH_DEFAULTS: Record<SacreBleuSmoothing, number | null> = { none: null, floor: 0.1, 'add-k': 1, exp: null };

export interface SacreBleuConfig {
  /** `13a` (default) or `none` (split on whitespace only). */
  tokenize: '13a' | 'none';
  smoothMethod: SacreBleuSmoothing;
  /** For `floor` and `add-k`; null takes sacreBLEU's default (0.1, 1). */
  smoothValue: number | null;
  lowercase: boolean;
  /** `use_effective_order` (default true for sentence BLEU). */
  effectiveOrder: boolean;
}

/**
 * sacreBLEU's `BLEU.compute_bleu` for one segment's statistics (max order 4).
 *
 * @returns the score in [0, 100]
 */
export function sacreBleuFromStats(correctIn: readonly number[], totalIn: readonly number[], sysLen: number, refLen: number, c: Pick<SacreBleuConfig, 'smoothMethod' | 'smoothValue' | 'effectiveOrder'>): number {
  const correct = [...correctIn];
  const total = [...totalIn];
  const smoothValue = c.smoothValue ?? SMOOTH_DEFAULTS[c.smoothMethod] ?? 0;
  let bp = 1.0;
  if (sysLen < refLen) bp = sysLen > 0 ? crExp(1 - refLen / sysLen) : 0.0;
  const precisions = [0.0, 0.0, 0.0, 0.0];
  if (!correct.some((x) => x !== 0)) return 0.0;
  let smoothMteval = 1.0;
  let effOrder = 4;
  for (let n = 1; n <= 4; n++) {
    if (c.smoothMethod === 'add-k' && n > 1) {
      correct[n - 1] += smoothValue;
      total[n - 1] += smoothValue;
    }
    if (total[n - 1] === 0) break;
    if (c.effectiveOrder) effOrder = n;
    if (correct[n - 1] === 0) {
      if (c.smoothMethod === 'exp') {
        smoothMteval *= 2;
        precisions[n - 1] = 100.0 / (smoothMteval * total[n - 1]);
      } else if (c.smoothMethod === 'floor') {
        precisions[n - 1] = (100.0 * smoothValue) / total[n - 1];
      }
    } else {
      precisions[n - 1] = (100.0 * correct[n - 1]) / total[n - 1];
    }
  }
  let sum = 0;
  for (let i = 0; i < effOrder; i++) sum += precisions[i] === 0.0 ? -9999999999 : crLog(precisions[i]);
  return bp * crExp(sum / effOrder);
}

/** sacreBLEU's `_preprocess_segment`: optional lowercase, then the tokenizer on the right-stripped text. */
function preprocess(text: string, c: Pick<SacreBleuConfig, 'lowercase' | 'tokenize'>): string[] {
  if (c.lowercase) text = pyLower(text);
  text = pyRstrip(text);
  return pySplit(c.tokenize === '13a' ? tokenize13a(text) : text);
}

/** `sacrebleu.sentence_bleu(candidate, [reference], …).score`. */
export function sacreSentenceBleu(candidate: string, reference: string, c: SacreBleuConfig): number {
  const hyp = preprocess(candidate, c);
  const ref = preprocess(reference, c);
  const { matches: correct, totals: total } = ngramStats(hyp, ref, 4);
  return sacreBleuFromStats(correct, total, hyp.length, ref.length, c);
}

const DEFAULTS: SacreBleuConfig = { tokenize: '13a', smoothMethod: 'exp', smoothValue: null, lowercase: false, effectiveOrder: true };

function configure(partial: Partial<SacreBleuConfig> = {}): SacreBleuConfig {
  const c = { ...DEFAULTS, ...partial };
  for (const key of Object.keys(partial)) if (!(key in DEFAULTS)) throw new MetricConfigError('sacrebleu', key, `unknown field; known: ${Object.keys(DEFAULTS).join(', ')}`);
  if (c.tokenize !== '13a' && c.tokenize !== 'none') throw new MetricConfigError('sacrebleu', 'tokenize', 'must be 13a or none');
  if (!(c.smoothMethod in SMOOTH_DEFAULTS)) throw new MetricConfigError('sacrebleu', 'smoothMethod', `must be one of ${Object.keys(SMOOTH_DEFAULTS).join(', ')}`);
  if (c.smoothValue !== null && (typeof c.smoothValue !== 'number' || !Number.isFinite(c.smoothValue) || c.smoothValue < 0)) throw new MetricConfigError('sacrebleu', 'smoothValue', 'must be null or a non-negative number');
  for (const f of ['lowercase', 'effectiveOrder'] as const) if (typeof c[f] !== 'boolean') throw new MetricConfigError('sacrebleu', f, 'must be true or false');
  return c;
}

/** sacreBLEU's own signature (`nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|version:2.6.0`), as ReflectEval keys. */
function signature(c: SacreBleuConfig): Signature {
  const def = SMOOTH_DEFAULTS[c.smoothMethod];
  // sacreBLEU prints the value with 2 decimals; a value that needs more keeps them, so 0.125 and 0.12 get different ids.
  const v = c.smoothValue ?? def;
  const smooth = def === null || v === null ? c.smoothMethod : `${c.smoothMethod}[${Number(v.toFixed(2)) === v ? v.toFixed(2) : String(v)}]`;
  return buildSignature([
    ['impl', `sacrebleu-${SACREBLEU_VERSION}`],
    ['nrefs', 1],
    ['case', c.lowercase ? 'lc' : 'mixed'],
    ['eff', c.effectiveOrder ? 'yes' : 'no'],
    ['tok', c.tokenize],
    ['smooth', smooth],
  ]);
}

/** Sentence BLEU (sacreBLEU 2.x `sentence_bleu`). */
export const sacrebleu: Metric<SacreBleuConfig> = {
  name: 'sacrebleu',
  card: {
    title: 'sentence BLEU (sacreBLEU)',
    description:
      'Sentence-level BLEU as sacreBLEU 2.x `sentence_bleu(candidate, [reference])` computes it (Post, 2018), on ' +
      'sacreBLEU\'s 0–100 scale: mteval-v13a tokenization (`13a`), exponential (NIST) smoothing of zero-match ' +
      'orders (`exp`: 1/2, 1/4, … of a match) and effective order (orders the candidate is too short to have are ' +
      'left out of the geometric mean). Other settings: `tokenize: none`, `smoothMethod: none | floor | add-k` with ' +
      '`smoothValue` (defaults 0.1 and 1), `lowercase`, `effectiveOrder: false`. The signature follows ' +
      'sacreBLEU\'s own (`nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|version:2.6.0`).',
    citation:
      '@inproceedings{post-2018-call, title={A Call for Clarity in Reporting {BLEU} Scores}, author={Post, Matt}, booktitle={Proceedings of the Third Conference on Machine Translation: Research Papers}, pages={186--191}, year={2018}}',
    reference: `sacrebleu.sentence_bleu, sacreBLEU ${SACREBLEU_VERSION} (mjpost/sacrebleu f615c72)`,
    inputs: 'candidate: the response to score; reference: the item\'s reference response (one reference).',
    examples: [
      { input: { candidate: 'So you feel like drinking is getting in the way of your work.', reference: 'So drinking is getting in the way of your work.' }, values: { score: 69.30977286178778 } },
      { input: { candidate: 'You want to quit smoking.', reference: 'You are not sure you want to quit.' }, values: { score: 20.82186541080652 } },
    ],
  },
  outputs: [{ name: 'score', description: 'BLEU in [0, 100]', range: [0, 100], higherIsBetter: true }],
  requiresReference: true,
  defaultConfig: DEFAULTS,
  configure,
  signature,
  async score(inputs: readonly MetricInput[], config: SacreBleuConfig): Promise<MetricValues[]> {
    return inputs.map(({ candidate, reference }) => ({ score: reference === undefined ? null : sacreSentenceBleu(candidate, reference, config) }));
  },
};
