/**
 * METEOR as NLTK computes it: `nltk.translate.meteor_score.meteor_score([reference], hypothesis)` (NLTK 3.8,
 * pre-tokenized inputs) or the string API of NLTK 3.6.3–3.6.4 (`meteor_score([reference], hypothesis)` on
 * strings, which lowercases and splits on whitespace; same alignment as 3.8).
 *
 * Source: nltk/translate/meteor_score.py (NLTK 3.8, commit 28d905a2; string mode: NLTK 3.6.4's
 * `_generate_enums`), nltk/stem/porter.py, nltk/corpus/reader/wordnet.py.
 */
import { buildSignature, type Signature } from '../evaluators/signature';
import { MetricConfigError, type Metric, type MetricInput, type MetricValues } from './metric';
import { porterStem } from './text/porter';
import { pyLower, pyPow, pySplit } from './text/python';
import { perText, WORD_TOKENIZERS, wordTokens, type WordTokenizer } from './text/tokenize';
import { sharedWordNet, type WordNet } from './text/wordnet';

export interface MeteorConfig {
  /**
   * `tokens`: NLTK 3.8's API — the texts are tokenized with `tokenizer`, then each token lowercased
   * (`preprocess=str.lower`). `string`: NLTK ≤ 3.6.4's string API — `text.lower().split()`.
   */
  mode: 'tokens' | 'string';
  /** Tokenizer of `tokens` mode (default `whitespace`, Python `str.split()`). */
  tokenizer: WordTokenizer;
  /** Relative weight of precision and recall (default 0.9). */
  alpha: number;
  /** Shape of the fragmentation penalty (default 3). */
  beta: number;
  /** Weight of the fragmentation penalty (default 0.5). */
  gamma: number;
}

/**
 * The words still unmatched after a stage: their positions in the original hypothesis/reference and the words
 * (original, or stems after the stem stage), in original order — NLTK's enumerated lists.
 */
interface Rest {
  pos: number[];
  words: string[];
}

/**
 * `_match_enums`: hypothesis words from last to first, each matched with the last still-unmatched reference word
 * equal to it. Records `refOf[hypothesis position] = reference position`; returns what is left on both sides.
 * (NLTK scans the reference list from its end; taking the largest remaining position of the same word is the
 * same choice.)
 */
function exactStage(hyp: Rest, ref: Rest, refOf: Int32Array): [Rest, Rest] {
  const positions = new Map<string, number[]>();
  for (let j = 0; j < ref.words.length; j++) {
    const list = positions.get(ref.words[j]);
    if (list) list.push(j);
    else positions.set(ref.words[j], [j]);
  }
  const refUsed = new Uint8Array(ref.words.length);
  const hypUsed = new Uint8Array(hyp.words.length);
  let any = false;
  for (let i = hyp.words.length - 1; i >= 0; i--) {
    const list = positions.get(hyp.words[i]);
    if (list && list.length) {
      const j = list.pop()!;
      refOf[hyp.pos[i]] = ref.pos[j];
      refUsed[j] = 1;
      hypUsed[i] = 1;
      any = true;
    }
  }
  return any ? [rest(hyp, hypUsed), rest(ref, refUsed)] : [hyp, ref];
}

function rest(r: Rest, used: Uint8Array): Rest {
  const out: Rest = { pos: [], words: [] };
  for (let k = 0; k < r.words.length; k++) {
    if (!used[k]) {
      out.pos.push(r.pos[k]);
      out.words.push(r.words[k]);
    }
  }
  return out;
}

const stem = perText(porterStem, 200_000); // stems of a corpus repeat a lot

/**
 * `_enum_wordnetsyn_match`: hypothesis words from last to first, each matched with the last unmatched reference
 * word among its WordNet synonyms.
 */
function synonymStage(hyp: Rest, ref: Rest, wordnet: WordNet, refOf: Int32Array): void {
  const refUsed = new Uint8Array(ref.words.length);
  let left = ref.words.length;
  for (let i = hyp.words.length - 1; i >= 0 && left > 0; i--) {
    const syns = wordnet.synonyms(hyp.words[i]);
    for (let j = ref.words.length - 1; j >= 0; j--) {
      if (!refUsed[j] && syns.has(ref.words[j])) {
        refOf[hyp.pos[i]] = ref.pos[j];
        refUsed[j] = 1;
        left--;
        break;
      }
    }
  }
}

/**
 * NLTK 3.8 `single_meteor_score(reference, hypothesis)` on already lowercased words: exact, then Porter-stem
 * (`_enum_stem_match`: exact matching of the stems of the words left; the synonym stage then sees those stems, as
 * in NLTK), then WordNet-synonym alignment; then P = m/|h|, R = m/|r|, Fmean = PR/(αP + (1−α)R),
 * penalty = γ·(chunks/m)^β with chunks counted over the matches in hypothesis order (`_count_chunks`),
 * score = (1 − penalty)·Fmean, and 0 when |h|, |r| or m is 0.
 *
 * @returns the score in [0, 1)
 */
export function meteorFromWords(reference: readonly string[], hypothesis: readonly string[], c: Pick<MeteorConfig, 'alpha' | 'beta' | 'gamma'>, wordnet: WordNet = sharedWordNet()): number {
  const translationLength = hypothesis.length;
  const referenceLength = reference.length;
  if (translationLength === 0 || referenceLength === 0) return 0.0;
  const refOf = new Int32Array(translationLength).fill(-1);
  let hyp: Rest = { pos: hypothesis.map((_, i) => i), words: [...hypothesis] };
  let ref: Rest = { pos: reference.map((_, i) => i), words: [...reference] };
  [hyp, ref] = exactStage(hyp, ref, refOf);
  if (hyp.words.length && ref.words.length) {
    [hyp, ref] = exactStage({ pos: hyp.pos, words: hyp.words.map(stem) }, { pos: ref.pos, words: ref.words.map(stem) }, refOf);
    if (hyp.words.length && ref.words.length) synonymStage(hyp, ref, wordnet, refOf);
  }
  let m = 0;
  let chunks = 0;
  let prevHyp = -2;
  let prevRef = -2;
  for (let h = 0; h < translationLength; h++) {
    const r = refOf[h];
    if (r < 0) continue;
    m++;
    if (!(h === prevHyp + 1 && r === prevRef + 1)) chunks++;
    prevHyp = h;
    prevRef = r;
  }
  if (m === 0) return 0.0;
  const precision = m / translationLength;
  const recall = m / referenceLength;
  const fmean = (precision * recall) / (c.alpha * precision + (1 - c.alpha) * recall);
  const fragFrac = chunks / m;
  const penalty = c.gamma * pyPow(fragFrac, c.beta);
  return (1 - penalty) * fmean;
}

/** The lowercased words METEOR aligns, per mode. */
export function meteorWords(text: string, c: Pick<MeteorConfig, 'mode' | 'tokenizer'>): string[] {
  return c.mode === 'string' ? pySplit(pyLower(text)) : wordTokens(text, c.tokenizer).map(pyLower);
}

/** `meteor_score([reference], candidate)` under `config`. */
export function meteor(reference: string, candidate: string, config: MeteorConfig, wordnet?: WordNet): number {
  return meteorFromWords(meteorWords(reference, config), meteorWords(candidate, config), config, wordnet);
}

const DEFAULTS: MeteorConfig = { mode: 'tokens', tokenizer: 'whitespace', alpha: 0.9, beta: 3, gamma: 0.5 };

function configure(partial: Partial<MeteorConfig> = {}): MeteorConfig {
  const c = { ...DEFAULTS, ...partial };
  for (const key of Object.keys(partial)) if (!(key in DEFAULTS)) throw new MetricConfigError('meteor', key, `unknown field; known: ${Object.keys(DEFAULTS).join(', ')}`);
  if (c.mode !== 'tokens' && c.mode !== 'string') throw new MetricConfigError('meteor', 'mode', 'must be tokens or string');
  if (!WORD_TOKENIZERS.includes(c.tokenizer)) throw new MetricConfigError('meteor', 'tokenizer', `must be one of ${WORD_TOKENIZERS.join(', ')}`);
  if (c.mode === 'string' && partial.tokenizer !== undefined && partial.tokenizer !== 'whitespace') throw new MetricConfigError('meteor', 'tokenizer', 'string mode always lowercases and splits on whitespace');
  if (typeof c.alpha !== 'number' || !(c.alpha >= 0 && c.alpha <= 1)) throw new MetricConfigError('meteor', 'alpha', 'must be a number in [0, 1]');
  for (const f of ['beta', 'gamma'] as const) if (typeof c[f] !== 'number' || !Number.isFinite(c[f]) || c[f] < 0) throw new MetricConfigError('meteor', f, 'must be a non-negative number');
  return c;
}

function signature(c: MeteorConfig): Signature {
  const tok = c.mode === 'string' ? 'lower-split' : `${c.tokenizer}+lower`;
  return buildSignature([
    ['impl', 'nltk-3.8'],
    ['mode', c.mode],
    ['tok', tok],
    ['alpha', c.alpha],
    ['beta', c.beta],
    ['gamma', c.gamma],
    ['stem', 'porter-nltk-3.8'],
    ['wn', '3.0'],
  ]);
}

/** METEOR (NLTK 3.8 `meteor_score`). */
export const meteorMetric: Metric<MeteorConfig> = {
  name: 'meteor',
  card: {
    title: 'METEOR (NLTK)',
    description:
      'METEOR (Banerjee & Lavie, 2005; Lavie & Agarwal, 2007) as NLTK 3.8\'s `meteor_score([reference], candidate)` ' +
      'computes it: words are aligned in three stages — exact match, match of Porter stems (NLTK\'s stemmer), match ' +
      'of WordNet 3.0 synonyms (lemma names of `wordnet.synsets(word)` over all parts of speech, with WordNet\'s ' +
      'morphy lemmatisation) — each stage pairing hypothesis words from last to first with the last unmatched ' +
      'reference word that fits; then Fmean = PR/(αP + (1−α)R) with α = 0.9, a fragmentation penalty ' +
      'γ·(chunks/matches)^β with β = 3, γ = 0.5, and score = (1 − penalty)·Fmean (0 without a match). Two input ' +
      'modes: `tokens` (NLTK ≥ 3.6.5: pre-tokenized input, here the `tokenizer`\'s tokens — whitespace, 13a, ' +
      'lowercase or NLTK\'s Treebank tokenizer — each lowercased) and ' +
      '`string` (NLTK 3.6.3–3.6.4\'s string input: `text.lower().split()`). NLTK 3.5–3.6.2 had a bug in the stem ' +
      'stage (NLTK issue #2751) that is not reproduced. The WordNet data ships with ReflectEval ' +
      '(data/wordnet, WordNet 3.0 licence).',
    citation:
      '@inproceedings{banerjee-lavie-2005-meteor, title={{METEOR}: An Automatic Metric for {MT} Evaluation with Improved Correlation with Human Judgments}, author={Banerjee, Satanjeev and Lavie, Alon}, booktitle={Proceedings of the ACL Workshop on Intrinsic and Extrinsic Evaluation Measures for Machine Translation and/or Summarization}, pages={65--72}, year={2005}}\n' +
      '@inproceedings{lavie-agarwal-2007-meteor, title={{METEOR}: An Automatic Metric for {MT} Evaluation with High Levels of Correlation with Human Judgments}, author={Lavie, Alon and Agarwal, Abhaya}, booktitle={Proceedings of the Second Workshop on Statistical Machine Translation}, pages={228--231}, year={2007}}\n' +
      '@article{miller1995wordnet, title={{WordNet}: A Lexical Database for {English}}, author={Miller, George A.}, journal={Communications of the ACM}, volume={38}, number={11}, pages={39--41}, year={1995}}',
    reference: 'nltk.translate.meteor_score.meteor_score, NLTK 3.8 (Debian python3-nltk 3.8-1) with WordNet 3.0 (Debian wordnet-base 1:3.0-37)',
    inputs: 'candidate: the response to score; reference: the item\'s reference response (one reference).',
    examples: [
      { input: { candidate: 'So you feel like drinking is getting in the way of your work.', reference: 'So drinking is getting in the way of your work.' }, values: { score: 0.966990291262136 } },
      { input: { candidate: 'You wish to quit smoking.', reference: 'You want to stop smoking.' }, values: { score: 0.996 } },
    ],
  },
  outputs: [{ name: 'score', description: 'METEOR in [0, 1)', range: [0, 1], higherIsBetter: true }],
  requiresReference: true,
  defaultConfig: DEFAULTS,
  configure,
  signature,
  async score(inputs: readonly MetricInput[], config: MeteorConfig): Promise<MetricValues[]> {
    const wordnet = sharedWordNet();
    const referenceWords = perText((text) => meteorWords(text, config));
    return inputs.map(({ candidate, reference }) => ({
      score: reference === undefined ? null : meteorFromWords(referenceWords(reference), meteorWords(candidate, config), config, wordnet),
    }));
  },
};
