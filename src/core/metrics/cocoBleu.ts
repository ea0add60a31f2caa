/**
 * BLEU-1 … BLEU-4 as nlg-eval (Maluuba/nlg-eval) reports them: pycocoevalcap's `Bleu(4).compute_score(refs, hyps)`
 * on the stripped texts, tokenized by `str.split()` — without the Java PTBTokenizer of the COCO caption pipeline.
 *
 * Source: pycocoevalcap 1.2 = salaniz/pycocoevalcap at ad63453c (`bleu/bleu.py`, `bleu/bleu_scorer.py`: David
 * Chiang's `bleu_scorer` as modified by Hao Fang and Tsung-Yi Lin), the same arithmetic as the copy nlg-eval
 * ships (`nlgeval/pycocoevalcap/bleu/`, Maluuba/nlg-eval at 2ab4528f) and as tylin/coco-caption's.
 */
import { buildSignature, type Signature } from '../evaluators/signature';
import { MetricConfigError, type Metric, type MetricInput, type MetricValues, VALUE_WARNING } from './metric';
import { crExp, crPow } from './text/libm';
import { pySplit } from './text/python';
import { perText } from './text/tokenize';

/** pycocoevalcap's `small`: added to every n-gram count of the hypothesis and to the reference length. */
export const COCO_BLEU_SMALL = 1e-9;
/** pycocoevalcap's `tiny`: added to every match count and to the hypothesis length ("so that if guess is 0 still return 0"). */
export const COCO_BLEU_TINY = 1e-15;

/** What pycocoevalcap's `cook_refs` keeps of a segment's references: their lengths and each n-gram's highest count. */
export interface CocoBleuReferences {
  lengths: number[];
  /** Highest count in any one reference, by n-gram (tokens joined by a space: `str.split()` tokens hold none). */
  maxCounts: Map<string, number>;
  /** Highest order counted. */
  n: number;
}

/** pycocoevalcap's `cook_test` result for one hypothesis, with the "closest" reference length already chosen. */
export interface CocoBleuCounts {
  /** Hypothesis tokens. */
  testlen: number;
  /** The reference length closest to `testlen` (the shorter one on a tie). */
  reflen: number;
  /** Hypothesis n-grams per order, `max(0, testlen − k + 1)` for k = 1 … n. */
  guess: number[];
  /** Clipped matches per order: each hypothesis n-gram counts at most as often as in the reference where it is most frequent. */
  correct: number[];
}

/** Counts of every 1- to n-gram of `tokens`, keyed by the tokens joined with a space. */
function ngramCounts(tokens: readonly string[], n: number): Map<string, number> {
  const counts = new Map<string, number>();
  for (let k = 1; k <= n; k++) {
    for (let i = 0; i + k <= tokens.length; i++) {
      const key = k === 1 ? tokens[i] : tokens.slice(i, i + k).join(' ');
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
  }
  return counts;
}

function checkOrder(n: number): void {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`BLEU order must be a positive integer (got ${n})`);
}

/**
 * pycocoevalcap's `cook_refs(refs, n)`: each reference split by Python's `str.split()`, its length and the highest
 * count of each 1- to n-gram over the references.
 *
 * @param references - one or more reference texts (nlg-eval strips them first, which `str.split()` makes moot)
 * @throws RangeError for no reference (pycocoevalcap asserts `len(ref) >= 1`) or a bad order
 */
export function cookCocoReferences(references: readonly string[], n = 4): CocoBleuReferences {
  checkOrder(n);
  if (references.length === 0) throw new RangeError('pycocoevalcap BLEU needs at least one reference per hypothesis');
  const lengths: number[] = [];
  const maxCounts = new Map<string, number>();
  for (const ref of references) {
    const tokens = pySplit(ref);
    lengths.push(tokens.length);
    for (const [key, count] of ngramCounts(tokens, n)) if (count > (maxCounts.get(key) ?? 0)) maxCounts.set(key, count);
  }
  return { lengths, maxCounts, n };
}

/**
 * pycocoevalcap's `cook_test(test, cook_refs(refs))` and the reference length `compute_score(option='closest')`
 * picks for it: `min((abs(l - testlen), l) for l in reflens)[1]`.
 */
export function cocoBleuCounts(hypothesis: string, references: CocoBleuReferences | readonly string[], n = 4): CocoBleuCounts {
  const refs = Array.isArray(references) ? cookCocoReferences(references as readonly string[], n) : (references as CocoBleuReferences);
  if (refs.n < n) throw new RangeError(`references cooked up to order ${refs.n}, asked for ${n}`);
  const tokens = pySplit(hypothesis);
  const testlen = tokens.length;
  let reflen = refs.lengths[0];
  for (const l of refs.lengths) {
    const d = Math.abs(l - testlen);
    const best = Math.abs(reflen - testlen);
    if (d < best || (d === best && l < reflen)) reflen = l;
  }
  const guess: number[] = [];
  const correct: number[] = new Array<number>(n).fill(0);
  for (let k = 1; k <= n; k++) guess.push(Math.max(0, testlen - k + 1));
  for (const [key, count] of ngramCounts(tokens, n)) {
    let order = 1;
    for (let i = 0; i < key.length; i++) if (key.charCodeAt(i) === 32) order++;
    correct[order - 1] += Math.min(refs.maxCounts.get(key) ?? 0, count);
  }
  return { testlen, reflen, guess, correct };
}

/**
 * BLEU-1 … BLEU-n from (pooled) counts, as `BleuScorer.compute_score` computes both its per-sentence list and its
 * corpus score: the running product of `(correct_k + tiny) / (guess_k + small)` over k = 1 … n, its k-th root
 * (`bleu ** (1./k)`, correctly rounded as glibc's `pow` nearly always is), times exp(1 − 1/ratio) when
 * ratio = (testlen + tiny)/(reflen + small) < 1.
 *
 * @returns n values in [0, 1]: an empty hypothesis gives 0; a hypothesis without any k-gram match still gets
 *   (1e-15 / k-grams)^(1/k) for that order rather than 0
 */
export function cocoBleuFromCounts(counts: CocoBleuCounts): number[] {
  const { testlen, reflen, guess, correct } = counts;
  const out: number[] = [];
  let bleu = 1;
  for (let k = 0; k < guess.length; k++) {
    bleu *= (correct[k] + COCO_BLEU_TINY) / (guess[k] + COCO_BLEU_SMALL);
    out.push(crPow(bleu, 1 / (k + 1)));
  }
  const ratio = (testlen + COCO_BLEU_TINY) / (reflen + COCO_BLEU_SMALL);
  if (ratio < 1) {
    const bp = crExp(1 - 1 / ratio);
    for (let k = 0; k < out.length; k++) out[k] *= bp;
  }
  return out;
}

/**
 * One hypothesis's BLEU-1 … BLEU-n as pycocoevalcap's `Bleu(n).compute_score` lists it per sentence (its second
 * return value, `scores[k-1][i]`) — which is also the corpus score of a one-sentence corpus, and so what nlg-eval's
 * `compute_individual_metrics(refs, hyp)` returns as `Bleu_1` … `Bleu_4`.
 */
export function cocoBleuSentence(hypothesis: string, references: readonly string[], n = 4): number[] {
  return cocoBleuFromCounts(cocoBleuCounts(hypothesis, cookCocoReferences(references, n), n));
}

/**
 * The corpus BLEU-1 … BLEU-n of pycocoevalcap's `Bleu(n).compute_score(gts, res)` (its first return value, what
 * nlg-eval's `compute_metrics` prints as `Bleu_1` … `Bleu_4` and papers' tables show): hypothesis lengths, closest
 * reference lengths, n-gram counts and clipped matches summed over the corpus, then {@link cocoBleuFromCounts}.
 * Not the mean of the per-sentence values.
 *
 * @param segments - the corpus in order, each hypothesis with its references (one or more)
 */
export function cocoBleuCorpus(segments: readonly { hypothesis: string; references: readonly string[] }[], n = 4): number[] {
  checkOrder(n);
  const total: CocoBleuCounts = { testlen: 0, reflen: 0, guess: new Array<number>(n).fill(0), correct: new Array<number>(n).fill(0) };
  for (const s of segments) {
    const c = cocoBleuCounts(s.hypothesis, cookCocoReferences(s.references, n), n);
    total.testlen += c.testlen;
    total.reflen += c.reflen;
    for (let k = 0; k < n; k++) {
      total.guess[k] += c.guess[k];
      total.correct[k] += c.correct[k];
    }
  }
  return cocoBleuFromCounts(total);
}

/** Configuration: none — nlg-eval calls pycocoevalcap one way. */
export type CocoBleuConfig = Record<string, never>;

const OUTPUTS = ['bleu1', 'bleu2', 'bleu3', 'bleu4'] as const;

/**
 * The warning stored with BLEU-k (coco) when the candidate shares words with the reference but has no match (or no
 * n-gram at all) at some order from 2 to k.
 */
export function cocoBleuZeroOrderWarning(k: number): string {
  return (
    `no n-gram match at some order from 2 to ${k}: pycocoevalcap counts it as 1e-15 matches, so BLEU-${k} (coco) is ` +
    `scaled by about (1e-15 / n-grams)^(1/${k}) — e.g. BLEU-4 of a 3-word response is at most 0.032 — however well ` +
    'the other orders match; nlg-eval reports it so'
  );
}

/** pycocoevalcap BLEU-1 … BLEU-4 as nlg-eval calls it. */
export const cocoBleu: Metric<CocoBleuConfig> = {
  name: 'cocoBleu',
  card: {
    title: 'BLEU-1 … BLEU-4 (pycocoevalcap, as nlg-eval)',
    description:
      'BLEU with uniform weights over 1- to k-grams (Papineni et al., 2002) for k = 1 … 4, exactly as nlg-eval ' +
      '(Sharma et al., 2017) computes it with pycocoevalcap: texts stripped, tokens by Python `str.split()` (case ' +
      'and punctuation kept; no PTBTokenizer), n-gram matches clipped by the reference counts, brevity penalty ' +
      'exp(1 − r/c) when the candidate is shorter than the reference. Unlike NLTK, every precision is ' +
      '(matches + 1e-15) / (n-grams + 1e-9), so an order without a match (or a candidate shorter than k words) ' +
      'does not zero BLEU-k but scales it by about (1e-15 / n-grams)^(1/k) (≈ 0.03 for BLEU-4 of a 3-word ' +
      'candidate, before the brevity penalty); an empty candidate scores 0. ' +
      'Per-candidate values are pycocoevalcap\'s per-sentence scores (the second value `compute_score` returns), ' +
      'which equal nlg-eval\'s `compute_individual_metrics` for one reference. Papers\' system-level tables report ' +
      'the corpus score (`compute_metrics`, the first value), which pools n-gram counts and lengths over all ' +
      'candidates and is not the mean of the per-candidate values: `corpus` computes it. The reference is never ' +
      'scored against itself.',
    citation:
      '@inproceedings{papineni2002bleu, title={{BLEU}: a Method for Automatic Evaluation of Machine Translation}, author={Papineni, Kishore and Roukos, Salim and Ward, Todd and Zhu, Wei-Jing}, booktitle={Proceedings of ACL}, pages={311--318}, year={2002}}\n' +
      '@article{sharma2017nlgeval, title={Relevance of Unsupervised Metrics in Task-Oriented Dialogue for Evaluating Natural Language Generation}, author={Sharma, Shikhar and El Asri, Layla and Schulz, Hannes and Zumer, Jeremie}, journal={CoRR}, volume={abs/1706.09799}, year={2017}}\n' +
      '@article{chen2015microsoft, title={Microsoft {COCO} Captions: Data Collection and Evaluation Server}, author={Chen, Xinlei and Fang, Hao and Lin, Tsung-Yi and Vedantam, Ramakrishna and Gupta, Saurabh and Doll{\\\'a}r, Piotr and Zitnick, C. Lawrence}, journal={arXiv preprint arXiv:1504.00325}, year={2015}}',
    reference: 'pycocoevalcap 1.2 (salaniz/pycocoevalcap ad63453c) bleu/bleu.py, bleu/bleu_scorer.py, as nlg-eval (Maluuba/nlg-eval 2ab4528f) calls them',
    inputs: 'candidate: the response to score; reference: the item\'s reference response (one reference).',
    examples: [
      {
        input: { candidate: 'So you feel like drinking is getting in the way of your work.', reference: 'So drinking is getting in the way of your work.' },
        values: { bleu1: 0.7692307691715977, bleu2: 0.7161148739820521, bleu3: 0.688478286399662, bleu4: 0.6652049900527017 },
      },
      {
        // "quit" and "quit." are different tokens: no trigram match
        input: { candidate: 'You want to quit smoking.', reference: 'You are not sure you want to quit.' },
        values: { bleu1: 0.32928698152470126, bleu2: 0.21255383258936583, bleu3: 2.0218393532584693e-6, bleu4: 6.900940974641912e-9 },
      },
      {
        // three words have no 4-gram: BLEU-4 is (1e-15 / 1e-9)^(1/4) times the rest, not 0
        input: { candidate: 'you feel tired', reference: 'you feel tired today' },
        values: { bleu1: 0.7165313100961022, bleu2: 0.7165313100363911, bleu3: 0.7165313098970658, bleu4: 0.022658709544448513 },
      },
    ],
  },
  outputs: OUTPUTS.map((o, k) => ({
    name: o,
    description: `BLEU-${k + 1} (pycocoevalcap per-sentence score) in [0, 1]`,
    range: [0, 1] as [number, number],
    higherIsBetter: true,
  })),
  requiresReference: true,
  defaultConfig: {},
  configure(partial: Partial<CocoBleuConfig> = {}): CocoBleuConfig {
    for (const key of Object.keys(partial)) throw new MetricConfigError('cocoBleu', key, 'unknown field; cocoBleu has no configuration (nlg-eval calls pycocoevalcap one way)');
    return {};
  },
  signature(): Signature {
    return buildSignature([
      ['impl', 'pycocoevalcap-1.2'],
      ['tok', 'whitespace'],
    ]);
  },
  async score(inputs: readonly MetricInput[]): Promise<MetricValues[]> {
    const cooked = perText((text) => cookCocoReferences([text], 4));
    return inputs.map(({ candidate, reference }) => {
      if (reference === undefined) return { bleu1: null, bleu2: null, bleu3: null, bleu4: null };
      const counts = cocoBleuCounts(candidate, cooked(reference), 4);
      const v = cocoBleuFromCounts(counts);
      const values: MetricValues = { bleu1: v[0], bleu2: v[1], bleu3: v[2], bleu4: v[3] };
      if (counts.correct[0] > 0) {
        const warnings: Record<string, string> = {};
        for (let k = 2; k <= 4; k++) if (counts.correct.slice(1, k).some((c) => c === 0)) warnings[`bleu${k}`] = cocoBleuZeroOrderWarning(k);
        if (Object.keys(warnings).length) values[VALUE_WARNING] = warnings;
      }
      return values;
    });
  },
  corpus(inputs: readonly MetricInput[]): Record<string, number | null> {
    if (inputs.some((i) => i.reference === undefined)) return { bleu1: null, bleu2: null, bleu3: null, bleu4: null };
    const v = cocoBleuCorpus(inputs.map((i) => ({ hypothesis: i.candidate, references: [i.reference as string] })));
    return { bleu1: v[0], bleu2: v[1], bleu3: v[2], bleu4: v[3] };
  },
};
