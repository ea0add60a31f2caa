/**
 * Parity of nlg-eval's metrics (cocoBleu, cocoRougeL) and of ROUGE-L's `beta` with pycocoevalcap run as nlg-eval
 * calls it: values in fixtures/cocoeval-parity.json, computed by scripts/parity/cocoeval_reference.py with
 * pycocoevalcap 1.2 (salaniz/pycocoevalcap ad63453c; nlg-eval's own copy at 2ab4528f gives the same file) on the
 * 1,208 committed pairs of fixtures/text-metric-pairs.json and the script's edge cases.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetric, type MetricInput } from '../../../src/core/metrics';
import { cocoBleuCorpus, cocoBleuSentence } from '../../../src/core/metrics/cocoBleu';
import { cocoRougeL, cocoRougeLCorpus } from '../../../src/core/metrics/cocoRougeL';
import { crPow } from '../../../src/core/metrics/text/libm';
import { numpyMean } from '../../../src/core/metrics/text/python';

interface Parity {
  pairsSha256: string;
  committedPairs: number;
  extraPairs: { reference: string; candidate: string }[];
  single: { bleu: number[][]; rouge: number[] };
  corpora: { size: number; bleu: number[]; rouge: number }[];
  multiReference: {
    segments: { hypothesis: string; references: string[]; bleu: number[]; rouge: number }[];
    corpusBleu: number[];
    perSentenceBleu: number[][];
    corpusRouge: number;
  };
  rougeBeta: { rows: number[]; betaSquared: Record<string, number>; values: Record<string, number[]> };
  rougeScoreBeta: Record<string, number[]>;
  powers: [number, number, number, number][];
  numpyMeans: { seed: number; n: number; mean: number | null }[];
}

const fixtures = join(__dirname, 'fixtures');
const pairsText = readFileSync(join(fixtures, 'text-metric-pairs.json'));
const committed = (JSON.parse(pairsText.toString('utf8')) as { pairs: { reference: string; candidate: string }[] }).pairs;
const parity = JSON.parse(readFileSync(join(fixtures, 'cocoeval-parity.json'), 'utf8')) as Parity;
const pairs = [...committed, ...parity.extraPairs];
const inputs: MetricInput[] = pairs.map((p) => ({ candidate: p.candidate, reference: p.reference }));

/** The seeded stream of the script's `minstd`. */
function minstd(seed: number, n: number): number[] {
  const out: number[] = [];
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 48271) % 2147483647;
    const u = s / 2147483647;
    out.push(u * u * u);
  }
  return out;
}

function compare(got: readonly (number | null)[], want: readonly number[]): { maxDiff: number; maxRel: number; exact: number } {
  assert.equal(got.length, want.length);
  let maxDiff = 0;
  let maxRel = 0;
  let exact = 0;
  got.forEach((g, i) => {
    assert.equal(typeof g, 'number', `value ${i} is ${g}`);
    const d = Math.abs((g as number) - want[i]);
    if (d === 0) exact++;
    maxDiff = Math.max(maxDiff, d);
    if (want[i] !== 0) maxRel = Math.max(maxRel, d / Math.abs(want[i]));
  });
  return { maxDiff, maxRel, exact };
}

describe('nlg-eval metrics: parity with pycocoevalcap 1.2 run as nlg-eval calls it', () => {
  const report: string[] = [];
  after(() => {
    // The figures the docs quote (docs/metrics.md, "nlg-eval's metrics").
    if (process.env.COCO_PARITY_REPORT) for (const line of report) console.log(`      ${line}`);
  });

  it('reads the committed pairs the script read, and covers the edge cases', () => {
    assert.equal(createHash('sha256').update(pairsText).digest('hex'), parity.pairsSha256);
    assert.equal(parity.committedPairs, committed.length);
    assert.equal(parity.single.bleu.length, pairs.length);
    assert.ok(pairs.some((p) => p.candidate === '' && p.reference !== ''));
    assert.ok(pairs.some((p) => /\S {2,}\S/.test(p.candidate)), 'a double space inside a candidate');
    assert.ok(pairs.some((p) => /\t|\n/.test(p.candidate.trim())), 'a tab or newline inside a candidate');
    assert.ok(pairs.some((p) => /\u00a0|\u3000/.test(p.candidate)), 'Unicode whitespace');
  });

  it('BLEU-1 … BLEU-4 per candidate (cocoBleu) to 1e-15, nearly all bit for bit', async () => {
    const got = await getMetric('cocoBleu').score(inputs, {});
    let total = 0;
    let exact = 0;
    let maxDiff = 0;
    let maxRel = 0;
    for (let k = 0; k < 4; k++) {
      const r = compare(
        got.map((v) => v[`bleu${k + 1}`]),
        parity.single.bleu.map((b) => b[k]),
      );
      total += pairs.length;
      exact += r.exact;
      maxDiff = Math.max(maxDiff, r.maxDiff);
      maxRel = Math.max(maxRel, r.maxRel);
    }
    report.push(`cocoBleu per candidate: ${exact}/${total} bit for bit, max |Δ| ${maxDiff}, max relative ${maxRel}`);
    assert.ok(maxDiff <= 1e-15, `max |Δ| ${maxDiff}`);
    assert.ok(maxRel <= 1e-15, `max relative ${maxRel}`);
    assert.ok(exact >= total * 0.99, `${exact}/${total} bit for bit`);
  });

  it('ROUGE-L per candidate (cocoRougeL) bit for bit', async () => {
    const got = await getMetric('cocoRougeL').score(inputs, { beta: 1.2 });
    const r = compare(
      got.map((v) => v.f),
      parity.single.rouge,
    );
    report.push(`cocoRougeL per candidate: ${r.exact}/${pairs.length} bit for bit, max |Δ| ${r.maxDiff}`);
    assert.equal(r.exact, pairs.length);
  });

  it('corpus BLEU (what nlg-eval prints) to 1e-15 and corpus ROUGE-L (NumPy mean) bit for bit, on 14 corpora', () => {
    const bleu = getMetric('cocoBleu');
    const rouge = getMetric('cocoRougeL');
    let maxDiff = 0;
    for (const c of parity.corpora) {
      const part = inputs.slice(0, c.size);
      const b = bleu.corpus!(part, {});
      const r = compare([b.bleu1, b.bleu2, b.bleu3, b.bleu4], c.bleu);
      maxDiff = Math.max(maxDiff, r.maxDiff);
      assert.ok(r.maxRel <= 1e-15, `corpus of ${c.size}: ${JSON.stringify(b)} vs ${JSON.stringify(c.bleu)}`);
      assert.equal(rouge.corpus!(part, { beta: 1.2 }).f, c.rouge, `ROUGE-L corpus of ${c.size}`);
    }
    report.push(`corpus BLEU on ${parity.corpora.length} corpora: max |Δ| ${maxDiff}`);
    const all = parity.corpora[parity.corpora.length - 1];
    assert.equal(all.size, pairs.length);
    // The corpus score is not the mean of the per-candidate scores.
    const mean4 = parity.single.bleu.reduce((s, b) => s + b[3], 0) / pairs.length;
    assert.ok(Math.abs(mean4 - all.bleu[3]) > 0.01, `${mean4} vs ${all.bleu[3]}`);
  });

  it('several references per hypothesis: closest reference length, clipping and max over references', () => {
    const m = parity.multiReference;
    for (const s of m.segments) {
      const r = compare(cocoBleuSentence(s.hypothesis, s.references), s.bleu);
      assert.ok(r.maxRel <= 1e-15, `${s.hypothesis}: ${r.maxRel}`);
      assert.equal(cocoRougeL(s.hypothesis, s.references), s.rouge, s.hypothesis);
    }
    const segments = m.segments.map((s) => ({ hypothesis: s.hypothesis, references: s.references }));
    assert.ok(compare(cocoBleuCorpus(segments), m.corpusBleu).maxRel <= 1e-15);
    m.perSentenceBleu.forEach((row, k) => assert.ok(compare(segments.map((s) => cocoBleuSentence(s.hypothesis, s.references)[k]), row).maxRel <= 1e-15));
    assert.equal(cocoRougeLCorpus(segments), m.corpusRouge);
  });

  it('ROUGE-L (coco) with Rouge().beta set, bit for bit; beta * beta is Python\'s beta ** 2', async () => {
    const metric = getMetric('cocoRougeL');
    for (const [b, sq] of Object.entries(parity.rougeBeta.betaSquared)) assert.equal(Number(b) * Number(b), sq, `${b}**2`);
    for (const [b, want] of Object.entries(parity.rougeBeta.values)) {
      const got = await metric.score(
        parity.rougeBeta.rows.map((i) => inputs[i]),
        metric.configure({ beta: Number(b) }),
      );
      assert.equal(compare(got.map((v) => v.f), want).exact, want.length, `beta ${b}`);
    }
  });

  it('ROUGE-L (rouge-score) with beta: pycocoevalcap\'s F-measure of rouge-score\'s precision and recall, bit for bit', async () => {
    const metric = getMetric('rougeL');
    const committedInputs = inputs.slice(0, committed.length);
    for (const [key, want] of Object.entries(parity.rougeScoreBeta)) {
      const m = /^stemmer=(True|False) beta=(.+)$/.exec(key)!;
      const got = await metric.score(committedInputs, metric.configure({ stemmer: m[1] === 'True', beta: Number(m[2]) }));
      assert.equal(compare(got.map((v) => v.f), want).exact, want.length, key);
    }
  });

  it('powers are correctly rounded (glibc\'s pow agrees on nearly all of them)', () => {
    let glibc = 0;
    for (const [x, y, py, cr] of parity.powers) {
      assert.equal(crPow(x, y), cr, `${x} ** ${y}`);
      if (py === cr) glibc++;
    }
    report.push(`x ** y: glibc's pow correctly rounded on ${glibc}/${parity.powers.length}`);
    assert.ok(glibc >= parity.powers.length * 0.99);
  });

  it('np.mean: NumPy\'s pairwise sum, bit for bit, for 0 to 20,000 values', () => {
    for (const { seed, n, mean } of parity.numpyMeans) {
      const got = numpyMean(minstd(seed, n));
      if (mean === null) assert.ok(Number.isNaN(got));
      else assert.equal(got, mean, `n = ${n}`);
    }
    // A left-to-right sum would not do.
    const differs = parity.numpyMeans.filter(({ seed, n, mean }) => mean !== null && minstd(seed, n).reduce((a, b) => a + b, 0) / n !== mean);
    assert.ok(differs.length > 0);
  });
});
