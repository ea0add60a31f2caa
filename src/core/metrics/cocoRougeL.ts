/**
 * ROUGE-L as nlg-eval (Maluuba/nlg-eval) reports it: pycocoevalcap's `Rouge().compute_score(refs, hyps)` on the
 * stripped texts — tokens by `str.split(" ")`, LCS F-measure with β = 1.2.
 *
 * Source: pycocoevalcap 1.2 = salaniz/pycocoevalcap at ad63453c (`rouge/rouge.py`: `my_lcs`, `Rouge.calc_score`,
 * `Rouge.compute_score`, by Ramakrishna Vedantam), the same arithmetic as the copy nlg-eval ships
 * (`nlgeval/pycocoevalcap/rouge/rouge.py`, Maluuba/nlg-eval at 2ab4528f).
 */
import { buildSignature, type Signature } from '../evaluators/signature';
import { MetricConfigError, type Metric, type MetricInput, type MetricValues } from './metric';
import { checkRougeBeta, lcsLength, rougeFMeasure } from './rougeL';
import { numpyMean, pyStrip } from './text/python';
import { perText } from './text/tokenize';

export interface CocoRougeLConfig {
  /** pycocoevalcap's `Rouge().beta`: recall weighs β² times precision in the F-measure (1.2, "based on discussion with Hovy"). */
  beta: number;
}

/**
 * The tokens nlg-eval's ROUGE-L compares: `text.strip().split(" ")`. Only the space U+0020 separates tokens: two
 * spaces in a row leave an empty token between them, a tab or newline stays inside a token, and an empty text is one
 * empty token.
 */
export function cocoRougeTokens(text: string): string[] {
  return pyStrip(text).split(' ');
}

/**
 * pycocoevalcap's `Rouge.calc_score([candidate], references)` on tokens: for each reference the LCS length over
 * the candidate's and the reference's token counts (precision, recall), each maximised over the references
 * separately, then ((1 + β²)·P·R) / (R + β²·P), or 0 when either maximum is 0.
 *
 * @throws RangeError for no reference (pycocoevalcap asserts `len(refs) > 0`)
 */
export function cocoRougeLFromTokens(candidate: readonly string[], references: readonly (readonly string[])[], beta = 1.2): number {
  if (references.length === 0) throw new RangeError('pycocoevalcap ROUGE-L needs at least one reference per candidate');
  let precMax = -Infinity;
  let recMax = -Infinity;
  for (const ref of references) {
    const lcs = lcsLength(ref, candidate);
    precMax = Math.max(precMax, lcs / candidate.length);
    recMax = Math.max(recMax, lcs / ref.length);
  }
  return rougeFMeasure(precMax, recMax, beta);
}

/**
 * One candidate's ROUGE-L as nlg-eval's `compute_individual_metrics(refs, hyp)['ROUGE_L']` returns it (and as
 * pycocoevalcap's `compute_score` lists it per candidate): {@link cocoRougeTokens}, then
 * {@link cocoRougeLFromTokens}.
 */
export function cocoRougeL(candidate: string, references: readonly string[], beta = 1.2): number {
  return cocoRougeLFromTokens(cocoRougeTokens(candidate), references.map(cocoRougeTokens), beta);
}

/**
 * The corpus ROUGE-L of pycocoevalcap's `Rouge().compute_score` (what nlg-eval's `compute_metrics` prints as
 * `ROUGE_L`): `np.mean` of the per-candidate scores, summed as NumPy sums. NaN for an empty corpus (NumPy's mean
 * of nothing).
 */
export function cocoRougeLCorpus(segments: readonly { hypothesis: string; references: readonly string[] }[], beta = 1.2): number {
  return numpyMean(segments.map((s) => cocoRougeL(s.hypothesis, s.references, beta)));
}

const DEFAULTS: CocoRougeLConfig = { beta: 1.2 };

/** pycocoevalcap ROUGE-L as nlg-eval calls it. */
export const cocoRougeLMetric: Metric<CocoRougeLConfig> = {
  name: 'cocoRougeL',
  card: {
    title: 'ROUGE-L (pycocoevalcap, as nlg-eval)',
    description:
      'ROUGE-L (Lin, 2004) exactly as nlg-eval (Sharma et al., 2017) computes it with pycocoevalcap: texts ' +
      'stripped, then split on single spaces (`str.split(" ")`: case and punctuation kept, two spaces in a row give ' +
      'an empty token, tabs and newlines do not separate tokens); precision and recall of the longest common ' +
      'subsequence, F = ((1 + β²)·P·R) / (R + β²·P) with β = 1.2 (recall weighs more), 0 when there is no common ' +
      'token. An empty text is one empty token, so an empty candidate against an empty reference scores 1. It ' +
      'differs from ROUGE-L (rouge-score), which lowercases, drops punctuation and uses β = 1. Papers report the ' +
      'mean over the corpus (`compute_metrics`), which is the mean of these per-candidate values (NumPy\'s ' +
      'pairwise sum: `corpus`). The reference is never scored against itself.',
    citation:
      '@inproceedings{lin-2004-rouge, title={{ROUGE}: A Package for Automatic Evaluation of Summaries}, author={Lin, Chin-Yew}, booktitle={Text Summarization Branches Out}, pages={74--81}, year={2004}}\n' +
      '@article{sharma2017nlgeval, title={Relevance of Unsupervised Metrics in Task-Oriented Dialogue for Evaluating Natural Language Generation}, author={Sharma, Shikhar and El Asri, Layla and Schulz, Hannes and Zumer, Jeremie}, journal={CoRR}, volume={abs/1706.09799}, year={2017}}',
    reference: 'pycocoevalcap 1.2 (salaniz/pycocoevalcap ad63453c) rouge/rouge.py, as nlg-eval (Maluuba/nlg-eval 2ab4528f) calls it',
    inputs: 'candidate: the response to score; reference: the item\'s reference response (one reference).',
    examples: [
      { input: { candidate: 'So you feel like drinking is getting in the way of your work.', reference: 'So drinking is getting in the way of your work.' }, values: { f: 0.8905109489051095 } },
      { input: { candidate: 'You want to quit smoking.', reference: 'You are not sure you want to quit.' }, values: { f: 0.44309927360774815 } },
    ],
  },
  outputs: [{ name: 'f', description: 'LCS F-measure (β from the configuration, default 1.2) in [0, 1]', range: [0, 1], higherIsBetter: true }],
  requiresReference: true,
  defaultConfig: DEFAULTS,
  configure(partial: Partial<CocoRougeLConfig> = {}): CocoRougeLConfig {
    const c = { ...DEFAULTS, ...partial };
    for (const key of Object.keys(partial)) if (!(key in DEFAULTS)) throw new MetricConfigError('cocoRougeL', key, 'unknown field; known: beta');
    checkRougeBeta('cocoRougeL', c.beta);
    return c;
  },
  signature(c: CocoRougeLConfig): Signature {
    return buildSignature([
      ['impl', 'pycocoevalcap-1.2'],
      ['tok', 'space'],
      ['beta', c.beta],
    ]);
  },
  async score(inputs: readonly MetricInput[], config: CocoRougeLConfig): Promise<MetricValues[]> {
    const referenceTokens = perText(cocoRougeTokens);
    return inputs.map(({ candidate, reference }) => {
      if (reference === undefined) return { f: null };
      return { f: cocoRougeLFromTokens(cocoRougeTokens(candidate), [referenceTokens(reference)], config.beta) };
    });
  },
  corpus(inputs: readonly MetricInput[], config: CocoRougeLConfig): Record<string, number | null> {
    if (inputs.length === 0 || inputs.some((i) => i.reference === undefined)) return { f: null };
    return { f: cocoRougeLCorpus(inputs.map((i) => ({ hypothesis: i.candidate, references: [i.reference as string] })), config.beta) };
  },
};
