/**
 * Parity of the text metrics with their reference implementations on 1,208 committed (reference, candidate)
 * pairs: values computed by scripts/parity/text_metrics_reference.py with NLTK 3.8 (BLEU-4, METEOR, Porter,
 * WordNet), sacreBLEU-equivalent code (sacreBLEU 2.6.0) and rouge-score-equivalent code (rouge-score 0.1.2).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getMetric } from '../../../src/core/metrics';
import { porterStem } from '../../../src/core/metrics/text/porter';
import { sharedWordNet } from '../../../src/core/metrics/text/wordnet';

interface Pair {
  source: string;
  reference: string;
  candidate: string;
}
interface Variant {
  id: string;
  metric: string;
  output: string;
  config: Record<string, unknown>;
  values: (number | null)[];
}

const fixtures = join(__dirname, 'fixtures');
const pairs = (JSON.parse(readFileSync(join(fixtures, 'text-metric-pairs.json'), 'utf8')) as { pairs: Pair[] }).pairs;
const parity = JSON.parse(readFileSync(join(fixtures, 'text-metric-parity.json'), 'utf8')) as {
  nltk: string;
  pairs: number;
  variants: Variant[];
  stems: Record<string, string>;
  synonymDigests: Record<string, string>;
};

/** Metrics whose arithmetic (counts, divisions, METEOR's correctly rounded power) must reproduce the reference bit for bit; BLEU's log and exp may differ from glibc's in the last bit. */
const EXACT = new Set(['rougeL', 'meteor']);
const TOLERANCE = 1e-9;

function codePointCompare(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    const d = x[i].codePointAt(0)! - y[i].codePointAt(0)!;
    if (d !== 0) return d;
  }
  return x.length - y.length;
}

describe('text metrics: parity with NLTK 3.8 / sacreBLEU 2.6.0 / rouge-score 0.1.2 on the committed pairs', () => {
  const summary = new Map<string, { maxDiff: number; exact: number; total: number }>();

  it('covers at least 1,000 pairs from AnnoMI, generated candidates, paraphrases and edge cases', () => {
    assert.equal(parity.pairs, pairs.length);
    assert.ok(pairs.length >= 1000, `${pairs.length} pairs`);
    const sources = new Set(pairs.map((p) => p.source.split('-')[0]));
    assert.deepEqual([...sources].sort(), ['annomi', 'edge', 'generated', 'paraphrase']);
    assert.ok(pairs.some((p) => p.reference === '' && p.candidate === ''));
    assert.ok(pairs.some((p) => /^[\p{P}\s]+$/u.test(p.candidate) && p.candidate.trim() !== ''));
    assert.ok(pairs.some((p) => /[^\x00-\x7f]/.test(p.candidate)));
  });

  for (const v of parity.variants) {
    it(`${v.id}: every pair within ${TOLERANCE}${EXACT.has(v.metric) ? ', bit for bit' : ''}`, async function () {
      this.timeout(120_000);
      const metric = getMetric(v.metric);
      const config = metric.configure(v.config);
      const got = await metric.score(
        pairs.map((p) => ({ candidate: p.candidate, reference: p.reference })),
        config,
      );
      let maxDiff = 0;
      let exact = 0;
      const failures: string[] = [];
      got.forEach((g, i) => {
        const mine = g[v.output];
        const ref = v.values[i];
        if (ref === null || mine === null) {
          if (ref !== mine) failures.push(`pair ${i}: ${mine} vs reference ${ref}`);
          else exact++;
          return;
        }
        const d = Math.abs(mine - ref);
        if (d === 0) exact++;
        maxDiff = Math.max(maxDiff, d);
        if (!(d <= TOLERANCE) || (EXACT.has(v.metric) && d !== 0)) failures.push(`pair ${i} (${pairs[i].source}): ${mine} vs reference ${ref}`);
      });
      assert.deepEqual(failures.slice(0, 5), [], `${failures.length} pairs differ`);
      const s = summary.get(v.metric) ?? { maxDiff: 0, exact: 0, total: 0 };
      summary.set(v.metric, { maxDiff: Math.max(s.maxDiff, maxDiff), exact: s.exact + exact, total: s.total + got.length });
    });
  }

  it("NLTK's Porter stemmer (NLTK_EXTENSIONS) on every word of the pairs", () => {
    const words = Object.keys(parity.stems);
    assert.ok(words.length > 4000);
    const wrong = words.filter((w) => porterStem(w) !== parity.stems[w]);
    assert.deepEqual(wrong.slice(0, 10), []);
  });

  it("NLTK's wordnet.synsets synonym sets (morphy over all parts of speech) for every word of the pairs", () => {
    const wn = sharedWordNet();
    const wrong = Object.entries(parity.synonymDigests).filter(([w, digest]) => {
      const joined = [...wn.synonyms(w)].filter((x) => x === x.toLowerCase()).sort(codePointCompare).join('\n');
      return createHash('sha1').update(joined, 'utf8').digest('hex').slice(0, 12) !== digest;
    });
    assert.deepEqual(wrong.slice(0, 10), []);
  });

  after(() => {
    if (summary.size === 0) return;
    const rows = [...summary].map(([m, s]) => `${m}: max |Δ| ${s.maxDiff.toExponential(2)}, ${s.exact}/${s.total} values identical`);
    console.log(`      parity over ${pairs.length} pairs — ${rows.join('; ')}`);
  });
});
