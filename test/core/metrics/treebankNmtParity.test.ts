/**
 * Parity of NLTK 3.8's TreebankWordTokenizer (and the BLEU-4 / METEOR variants on its tokens) and of the nmt /
 * Hugging Face evaluate BLEU with values computed by scripts/parity/treebank_nmt_reference.py: NLTK 3.8 itself,
 * and tensorflow/nmt's compute_bleu with evaluate's Tokenizer13a run from their original files.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetric, scoreItems } from '../../../src/core/metrics';
import { NMT_BLEU_ZERO_WARNING, nmtComputeBleu } from '../../../src/core/metrics/nmtBleu';
import { hfTokens13a } from '../../../src/core/metrics/text/tokenize';
import { treebankTokens } from '../../../src/core/metrics/text/treebank';

interface Variant {
  id: string;
  metric: string;
  output: string;
  config: Record<string, unknown>;
  values: (number | null)[];
}

const fixtures = join(__dirname, 'fixtures');
const pairs = (JSON.parse(readFileSync(join(fixtures, 'text-metric-pairs.json'), 'utf8')) as { pairs: { source: string; reference: string; candidate: string }[] }).pairs;
const parity = JSON.parse(readFileSync(join(fixtures, 'treebank-nmt-parity.json'), 'utf8')) as {
  nltk: string;
  pairs: number;
  treebankTokens: Record<string, string[]>;
  hf13aTokens: Record<string, string[]>;
  variants: Variant[];
};
const TOLERANCE = 1e-9;

describe('Treebank tokenizer and nmt BLEU: parity with NLTK 3.8 / tensorflow nmt compute_bleu + evaluate Tokenizer13a', () => {
  it(`TreebankWordTokenizer: the same tokens for all ${Object.keys(parity.treebankTokens).length} texts (pairs and edge cases)`, () => {
    assert.equal(parity.nltk, '3.8');
    const texts = Object.keys(parity.treebankTokens);
    assert.ok(texts.length > 1500);
    const wrong = texts.filter((t) => JSON.stringify(treebankTokens(t)) !== JSON.stringify(parity.treebankTokens[t]));
    assert.deepEqual(wrong.slice(0, 5).map((t) => [t, treebankTokens(t), parity.treebankTokens[t]]), []);
  });

  it("evaluate's Tokenizer13a: the same tokens on the edge cases", () => {
    for (const [t, want] of Object.entries(parity.hf13aTokens)) assert.deepEqual(hfTokens13a(t), want, JSON.stringify(t));
  });

  for (const v of parity.variants) {
    it(`${v.id}: every pair within ${TOLERANCE}`, async function () {
      this.timeout(120_000);
      assert.equal(v.values.length, pairs.length);
      const metric = getMetric(v.metric);
      const got = await metric.score(pairs.map((p) => ({ candidate: p.candidate, reference: p.reference })), metric.configure(v.config));
      const failures: string[] = [];
      got.forEach((g, i) => {
        const mine = g[v.output];
        const ref = v.values[i];
        if (ref === null || mine === null) {
          if (ref !== mine) failures.push(`pair ${i}: ${mine} vs reference ${ref}`);
          return;
        }
        if (!(Math.abs(mine - ref) <= TOLERANCE)) failures.push(`pair ${i} (${pairs[i].source}): ${mine} vs reference ${ref}`);
      });
      assert.deepEqual(failures.slice(0, 5), [], `${failures.length} pairs differ`);
    });
  }

  it('nmtBleu: signatures tell the configurations apart; the zero without smoothing is flagged; empty texts are undefined', async () => {
    const m = getMetric('nmtBleu');
    assert.equal(m.signature(m.configure({})), 'impl:nmt-compute_bleu-0be8642|tok:13a-hf|order:4|smooth:none|rv:0.1.0');
    assert.equal(m.signature(m.configure({ tokenizer: 'treebank', smooth: true, maxOrder: 2 })), 'impl:nmt-compute_bleu-0be8642|tok:treebank|order:2|smooth:add-one|rv:0.1.0');
    assert.throws(() => m.configure({ maxOrder: 0 }), /nmtBleu: maxOrder: must be an integer from 1 to 8/);
    assert.throws(() => m.configure({ tokenizer: 'intl' as never }), /nmtBleu: tokenizer: must be one of 13a, whitespace, lowercase, treebank/);
    const item = (cand: string, ref: string) => ({ id: 'i', context: [], reference: { text: ref }, candidates: [{ id: 'c', text: cand, origin: { kind: 'model' as const }, annotations: [], scores: {} }] });
    const res = await scoreItems([item('You want to quit smoking.', 'You are not sure you want to quit.'), item('', 'You are not sure.')], m, {});
    const [zero, empty] = res.items.map((it) => it.candidates[0].scores[res.evaluatorIds[0]]);
    assert.deepEqual([zero.value, zero.status, zero.warning], [0, 'ok', NMT_BLEU_ZERO_WARNING]);
    assert.deepEqual([empty.value, empty.status], [null, 'error']);
    assert.throws(() => nmtComputeBleu([], ['a']), /reference has no tokens/);
  });

  it('the BLEU-4 and METEOR cards and signatures name the Treebank tokenizer', () => {
    assert.equal(getMetric('bleu4').signature(getMetric('bleu4').configure({ tokenizer: 'treebank' })), 'impl:nltk-3.8|tok:treebank|smooth:none|rv:0.1.0');
    assert.match(getMetric('meteor').signature(getMetric('meteor').configure({ tokenizer: 'treebank' })), /\|tok:treebank\+lower\|/);
  });
});
