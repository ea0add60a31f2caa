/**
 * The estimands candidate by candidate, and their pool values against the first study's analyses: with every expert
 * label known, the coherence rate per decoding strategy (GEM 2022 Figure 3) and each merged error's share among the
 * majority-incoherent candidates (Figure 4) equal `firstStudyAnalysis` with the experts' majority; the mean rating
 * equals the mean of the candidates' mean empathy ratings.
 */
import assert from 'node:assert/strict';
import { firstStudyAnalysis } from '../../../src/core/agreement/firstStudy';
import type { Annotation } from '../../../src/core/dialogue/types';
import { ERROR_SHARE_CATEGORIES, estimandOf, levelIndex, parseEstimand } from '../../../src/core/estimation/estimands';
import { EstimandTotals, predictorCoordinates } from '../../../src/core/estimation/estimandTotals';
import { estimationPool } from '../../../src/core/estimation/pool';
import { poolStrata } from '../../../src/core/estimation/activePlan';
import { gemGridPool } from '../../../scripts/estimation/generatedPools';

const ann = (coherent: boolean, extra: Partial<Annotation> = {}): Annotation => ({ annotator: 'Expert x', group: 'expert', coherent, ...extra });

describe('estimands', () => {
  it('reads a candidate: majority (a tie counts half), share of labels, majority error, mean rating', () => {
    const maj = estimandOf({ kind: 'coherence-rate', aggregate: 'majority' });
    assert.deepEqual(maj.outcome([ann(true), ann(true), ann(false)]), [1]);
    assert.deepEqual(maj.outcome([ann(true), ann(false)]), [0.5]);
    assert.equal(maj.outcome([]), null);
    const share = estimandOf({ kind: 'coherence-rate', aggregate: 'mean' });
    assert.deepEqual(share.outcome([ann(true), ann(false), ann(false)]), [1 / 3]);
    const parrot = estimandOf({ kind: 'error-share', category: 'parroting' });
    const inc = (e: Annotation['errors']) => ann(false, { errors: e, mostEvidentError: e?.[0] });
    assert.deepEqual(parrot.outcome([inc(['parroting']), inc(['parroting']), ann(true)]), [1, 1]);
    assert.deepEqual(parrot.outcome([inc(['malformed']), inc(['offTopic']), inc(['dialogueContradicting'])]), [0, 1], 'hallucinatory by merging, not parroting');
    assert.deepEqual(estimandOf({ kind: 'error-share', category: 'hallucinatory' }).outcome([inc(['malformed']), inc(['offTopic']), inc(['dialogueContradicting'])]), [1, 1]);
    assert.deepEqual(parrot.outcome([ann(true), ann(true), inc(['parroting'])]), [0, 0], 'not incoherent: outside the denominator');
    const emp = estimandOf({ kind: 'rating-mean', dimension: 'empathy' });
    assert.deepEqual(emp.outcome([ann(true, { empathy: 4 }), ann(true, { empathy: 5 }), ann(false, { empathy: 1 })]), [4.5, 1], 'an incoherent answer\'s rating does not count');
    assert.deepEqual(emp.outcome([ann(false), ann(false), ann(false)]), [0, 0]);
  });

  it('enumerates every outcome a candidate can have, and parses the command line forms', () => {
    const share = estimandOf({ kind: 'coherence-rate', aggregate: 'mean' }).scale(3, 4);
    assert.deepEqual(share.levels.map((l) => l.label), ['0/3', '1/4', '1/3', '2/4', '2/3', '3/4', '3/3'].map((s) => s), 'sorted by value, one per value');
    const emp = estimandOf({ kind: 'rating-mean', dimension: 'empathy' }).scale(3, 3);
    for (const ratings of [[1], [5, 4], [2, 3, 3], [1, 1, 5]]) assert.ok(levelIndex(emp, [ratings.reduce((a, b) => a + b, 0) / ratings.length, 1]) >= 0, String(ratings));
    assert.ok(estimandOf({ kind: 'coherence-rate', aggregate: 'majority' }).scale(3, 3).levels.every((l) => l.features[0] !== 0.5), 'no tie with three labels');
    assert.deepEqual(parseEstimand('coherence-rate'), { kind: 'coherence-rate', aggregate: 'majority' });
    assert.deepEqual(parseEstimand('coherence-rate:mean'), { kind: 'coherence-rate', aggregate: 'mean' });
    assert.deepEqual(parseEstimand('empathy'), { kind: 'rating-mean', dimension: 'empathy' });
    assert.deepEqual(parseEstimand('error-share:parroting'), { kind: 'error-share', category: 'parroting' });
    assert.throws(() => parseEstimand('error-share:rude'), /category must be one of malformed, parroting, hallucinatory, other, noMajority/);
    assert.throws(() => parseEstimand('fluency'), /use coherence-rate/);
  });

  it('with every expert label known, gives the first study\'s coherence rate per strategy and error shares (Figures 3–4)', () => {
    const items = gemGridPool(6, 'estimands');
    const study = firstStudyAnalysis(items, { majorityGroup: 'experts', minResponses: 0 });
    const exact = (spec: Parameters<typeof estimandOf>[0]) => {
      const pool = estimationPool(items, { estimand: spec, by: 'strategy' });
      const scale = pool.estimand.scale(pool.labelsPerCandidate, pool.maxLabels);
      return new Map(
        poolStrata(pool, {}).map((s) => {
          const t = new EstimandTotals(scale, s.slots, predictorCoordinates(s.units.map(() => [])));
          const v = t.evaluate(t.totals(s.units.map((i) => levelIndex(scale, pool.units[i].outcome as number[]))));
          return [s.key, v ? v.value : null];
        }),
      );
    };
    const rates = exact({ kind: 'coherence-rate', aggregate: 'majority' });
    assert.equal(rates.size, 13);
    for (const r of study.coherenceRates) assert.ok(Math.abs((rates.get(r.strategy) as number) - (r.rate as number)) < 1e-12, `${r.strategy}: ${rates.get(r.strategy)} vs ${r.rate}`);
    for (const category of ERROR_SHARE_CATEGORIES) {
      const shares = exact({ kind: 'error-share', category });
      for (const row of study.errorDistribution.rows) {
        if (row.incoherent === 0) assert.equal(shares.get(row.strategy), null);
        else assert.ok(Math.abs((shares.get(row.strategy) as number) - row.shares[category as keyof typeof row.shares]) < 1e-12, `${row.strategy} ${category}`);
      }
    }
  });
});
