import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { altTest } from '../../../src/core/metaEvaluation/altTest';
import { cohenKappa, type KappaWeights } from '../../../src/core/agreement/cohenKappa';
import { fleissKappa } from '../../../src/core/agreement/fleiss';
import { gwetAC1 } from '../../../src/core/agreement/gwetAC1';
import { icc, ICC_FORMS } from '../../../src/core/agreement/icc';
import { krippendorffAlpha, type MeasurementLevel } from '../../../src/core/agreement/krippendorffAlpha';
import { evaluatorVsMajority, matchRateThreshold } from '../../../src/core/metaEvaluation/majorityLabel';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { benjaminiYekutieli } from '../../../src/core/stats/multipleTesting';
import { partialCorrelation } from '../../../src/core/stats/partialCorrelation';
import { oneSampleTTest } from '../../../src/core/stats/tTest';

/**
 * Parity with reference implementations run offline (scripts/parity/meta_evaluation_reference.py with statsmodels
 * 0.13.5, scipy 1.10.1, sklearn, the `krippendorff` package of pln-fing-udelar/fast-krippendorff and the AltTest
 * reference notebook; scripts/parity/psych_reference.R with psych 2.2.9 and Gwet's irrCAC). Their committed outputs
 * are read here; nothing runs Python or R at test time.
 */
const py = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'meta-evaluation-reference.json'), 'utf8'));
const r = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'r-reference.json'), 'utf8'));
const TOL = 1e-9;

function num(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return v as number;
}

function close(actual: number | null | undefined, expected: unknown, what: string, tol = TOL): void {
  const e = num(expected);
  if (e === null) return assert.equal(actual ?? null, null, `${what}: expected undefined, got ${actual}`);
  assert.ok(actual !== null && actual !== undefined, `${what}: got null, expected ${e}`);
  if (!Number.isFinite(e)) return assert.equal(actual, e, what);
  assert.ok(Math.abs(actual - e) <= tol * Math.max(1, Math.abs(e)), `${what}: ${actual} vs ${e}`);
}

describe(`meta-evaluation parity (statsmodels ${py.statsmodels}, scipy ${py.scipy}, psych ${r.psych})`, () => {
  it(`Cohen's kappa, unweighted/linear/quadratic, with standard errors: ${py.cohen.length} cases against statsmodels`, () => {
    for (const c of py.cohen) {
      for (const w of ['none', 'linear', 'quadratic'] as KappaWeights[]) {
        const k = cohenKappa(c.a, c.b, { weights: w, ...(c.categories ? { categories: c.categories } : {}) });
        close(k.kappa, c[w].kappa, `${c.name} ${w} kappa`);
        if (k.kappa !== null && c[w].se !== null) {
          close(k.standardError, c[w].se, `${c.name} ${w} se`);
          close(k.standardErrorNull, c[w].se0, `${c.name} ${w} se0`);
        }
      }
    }
  });

  it(`Cohen's kappa against psych::cohen.kappa: ${r.kappa.length} cases (unweighted, quadratic, linear)`, () => {
    const cases = new Map<string, any>(py.cohen.map((c: any) => [c.name, c]));
    for (const k of r.kappa) {
      const c = cases.get(k.name);
      const opts = c.categories ? { categories: c.categories } : {};
      close(cohenKappa(c.a, c.b, opts).kappa, k.unweighted, `${k.name} unweighted`);
      close(cohenKappa(c.a, c.b, { ...opts, weights: 'quadratic' }).kappa, k.quadratic, `${k.name} quadratic`);
      close(cohenKappa(c.a, c.b, { ...opts, weights: 'linear' }).kappa, k.linear, `${k.name} linear`);
    }
  });

  it(`Fleiss' kappa with 2–9 raters: ${py.fleiss.length} tables against statsmodels`, () => {
    for (const c of py.fleiss) close(fleissKappa(c.counts).kappa, c.kappa, c.name);
  });

  it(`Krippendorff's alpha, nominal/ordinal/interval/ratio with missing values: ${py.reliability.length} data sets against the krippendorff package`, () => {
    let compared = 0;
    for (const c of py.reliability) {
      for (const level of ['nominal', 'ordinal', 'interval', 'ratio'] as MeasurementLevel[]) {
        if (!(level in c)) continue;
        const a = krippendorffAlpha(c.data, { level, ...(c.domain ? { values: c.domain } : {}) });
        close(a.alpha, c[level], `${c.name} ${level}`);
        if (c[level] === null) assert.ok(a.undefinedReason, `${c.name} ${level}: a reason (${c[`${level}Error`] ?? 'nan'})`);
        compared++;
      }
    }
    assert.ok(compared > 300);
  });

  it(`Gwet's AC1: ${py.reliability.length} data sets against the formula written in Python and ${r.ac1.length} against irrCAC`, () => {
    const cases = new Map<string, any>(py.reliability.map((c: any) => [c.name, c]));
    for (const c of py.reliability) {
      const g = gwetAC1(c.data, { categories: c.ac1.categories });
      close(g.ac1, c.ac1.value, `${c.name} AC1`);
      if (c.ac1.value !== null) {
        close(g.observedAgreement, c.ac1.pa, `${c.name} pa`);
        close(g.expectedAgreement, c.ac1.pe, `${c.name} pe`);
      }
    }
    for (const k of r.ac1) {
      const c = cases.get(k.name);
      const g = gwetAC1(c.data, { categories: c.ac1.categories });
      close(g.observedAgreement, k.pa, `${k.name} pa (irrCAC)`);
      // irrCAC sets p_e = 1e-15 instead of 0 for one category.
      close(g.expectedAgreement, k.pe, `${k.name} pe (irrCAC)`, 1e-12);
      close(g.ac1, k.ac1, `${k.name} AC1 (irrCAC)`);
    }
  });

  it(`ICC(1,1) … ICC(3,k) and F: ${r.icc.length} tables against psych::ICC`, () => {
    const cases = new Map<string, any>(py.icc.map((c: any) => [c.name, c]));
    for (const k of r.icc) {
      const res = icc(cases.get(k.name).data);
      for (const form of ICC_FORMS) close(res.icc[form], k.icc[form], `${k.name} ${form}`);
      close(res.f.oneWay, k.f.oneWay, `${k.name} F1`);
      close(res.f.twoWay, k.f.twoWay, `${k.name} F2`);
    }
  });

  it(`one-sided t-tests (${py.ttest.length}, degenerate included) against scipy and the BY procedure (${py.by.length}) against the AltTest reference`, () => {
    for (const c of py.ttest) {
      const t = oneSampleTTest(c.x, c.popmean, 'less');
      close(t.statistic, c.t, `t of ${JSON.stringify(c.x).slice(0, 40)}`);
      close(t.pValue, c.p, `p of ${JSON.stringify(c.x).slice(0, 40)}`);
    }
    for (const c of py.by) {
      const got = benjaminiYekutieli(c.p, c.q).rejected.flatMap((x, i) => (x ? [i] : []));
      assert.deepEqual(got, c.rejected, JSON.stringify(c.p));
    }
  });

  it(`the alt-test on ${py.altTest.length} synthetic tables (accuracy and −RMSE, several ε) against the AltTest reference`, () => {
    for (const c of py.altTest) {
      const res = altTest(c.humans, c.evaluator, { scoring: c.scoring === 'accuracy' ? 'accuracy' : 'negRmse', epsilon: c.epsilon, alpha: c.q, zeroVariance: 'reference' });
      close(res.winningRate, c.winningRate, `${c.name} winning rate`);
      close(res.advantageProbability, c.advantageProbability, `${c.name} advantage probability`);
      assert.equal(res.annotators.length, c.pValues.length, `${c.name} annotators tested`);
      res.annotators.forEach((a, j) => {
        close(a.pValue, c.pValues[j], `${c.name} ${a.annotator} p`);
        close(a.meanDifference, c.diffMeans[j], `${c.name} ${a.annotator} mean d`);
      });
    }
  });

  it('the alt-test on the EvalReflections GPT-2 stage (real expert and lay labels; local judge and BLEU-4 at the match-rate threshold)', () => {
    const er = py.evalReflections;
    assert.ok(er, 'the fixture was generated with EVALREFLECTIONS_CSV and EVALREFLECTIONS_SCORED');
    for (const c of er.altTest) {
      const prefix = c.group === 'experts' ? 'Expert' : 'Layperson';
      const humans: Record<string, Record<string, boolean>> = {};
      for (const inst of er.instances) for (const [a, v] of Object.entries(inst.labels)) if (a.startsWith(prefix)) (humans[a] ??= {})[inst.key] = v as boolean;
      const sorted = Object.fromEntries(Object.entries(humans).sort(([a], [b]) => a.localeCompare(b)));
      const scored = er.instances.filter((i: any) => i.scores[c.evaluator] !== null);
      const threshold = matchRateThreshold(scored.map((i: any) => i.scores[c.evaluator]), c.coherentShare);
      assert.equal(threshold, c.threshold, `${c.group} ${c.evaluator} threshold`);
      const evaluator = Object.fromEntries(scored.map((i: any) => [i.key, i.scores[c.evaluator] >= threshold]));
      const res = altTest(sorted, evaluator, { epsilon: c.epsilon, alpha: c.q, zeroVariance: 'reference' });
      close(res.winningRate, c.winningRate, `${c.group} ${c.evaluator} winning rate`);
      close(res.advantageProbability, c.advantageProbability, `${c.group} ${c.evaluator} advantage probability`);
      res.annotators.forEach((a, j) => close(a.pValue, c.pValues[j], `${c.group} ${c.evaluator} ${a.annotator} p`));
      assert.equal(res.passed, false, 'neither the tiny local judge nor BLEU-4 replaces an annotator');
    }
  });

  it(`partial Spearman correlation controlling for length: ${py.partial.length} cases against scipy ranks + least-squares residuals`, () => {
    for (const [i, c] of py.partial.entries()) {
      const p = partialCorrelation(c.x, c.y, c.z, 'spearman');
      close(p.statistic, c.r, `case ${i} r`);
      close(p.pValue, c.p, `case ${i} p`);
    }
  });

  it(`an evaluator against the majority label: ${py.majority.length} cases against sklearn (confusion, kappa, precision and recall of incoherent)`, () => {
    for (const [i, c] of py.majority.entries()) {
      const item: DialogueItem = {
        id: `i${i}`,
        context: [],
        candidates: c.labels.map((ls: boolean[], j: number) => ({
          id: `c${j}`,
          text: 'x',
          origin: { kind: 'model' },
          annotations: ls.map((v, a) => ({ annotator: `Expert ${a + 1}`, coherent: v })),
          scores: { 'judge:stub:b×r@h': { value: c.scores[j], status: 'ok' } },
        })),
      };
      const m = evaluatorVsMajority([item], 'judge:stub:b×r@h', { threshold: c.threshold, group: 'experts' });
      assert.deepEqual([m.confusion.truePositive, m.confusion.falseNegative, m.confusion.falsePositive, m.confusion.trueNegative], [c.tp, c.fn, c.fp, c.tn], `case ${i}`);
      close(m.kappa.kappa, c.kappa, `case ${i} kappa`);
      close(m.precisionIncoherent, c.precision, `case ${i} precision`);
      close(m.recallIncoherent, c.recall, `case ${i} recall`);
    }
  });
});
