import assert from 'node:assert/strict';
import { correlationTable, formatCorrelationTable } from '../../../src/core/analysis/correlationTable';
import type { Candidate, DialogueItem } from '../../../src/core/model/types';

function cand(id: string, coherentVotes: boolean[] | null, scores: Candidate['scores']): Candidate {
  return {
    id,
    text: id,
    origin: { kind: 'model' },
    annotations: coherentVotes === null ? [] : coherentVotes.map((v, i) => ({ annotator: `a${i}`, coherent: v })),
    scores,
  };
}

describe('correlation table', () => {
  // Coherence scores 0..3 and a judge that ranks them perfectly except for one swap.
  const items: DialogueItem[] = [
    {
      id: 'x',
      context: [],
      candidates: [
        cand('c0', [false, false, false], { j: { value: 1, status: 'ok' }, m: { value: 0.1, status: 'ok' } }),
        cand('c1', [true, false, false], { j: { value: 2, status: 'ok' }, m: { value: 0.1, status: 'ok' } }),
        cand('c2', [true, true, false], { j: { value: 4, status: 'ok' }, m: { value: 0.1, status: 'ok' } }),
        cand('c3', [true, true, true], { j: { value: 3, status: 'ok' }, m: { value: 0.1, status: 'ok' } }),
        cand('c4', [true, true, true], { j: { value: 5, status: 'ok' }, m: { value: 0.1, status: 'ok' } }),
        cand('c5', null, { j: { value: 5, status: 'ok' } }),
        cand('c6', [true], { j: { value: null, status: 'unparsable', raw: 'fine' } }),
      ],
    },
  ];

  it("gives Spearman's rho over candidates that have both a usable score and a label, and says how many were left out", () => {
    const rows = correlationTable(items);
    assert.deepEqual(rows.map((r) => r.evaluatorId), ['j', 'm']);
    const j = rows[0];
    assert.equal(j.n, 5);
    assert.equal(j.excluded, 2);
    // Coherence [0,1,2,3,3] → ranks [1,2,3,4.5,4.5]; judge [1,2,4,3,5] → ranks [1,2,4,3,5].
    // Pearson of the ranks: cov = 4.5, sd_x = sqrt(9.5), sd_y = sqrt(10) → rho = 4.5 / sqrt(95) (hand-worked: numerator Σ(dx·dy) = 9; Σdx² = 9.5·... see below)
    // dx = [-2,-1,0,1.5,1.5], dy = [-2,-1,1,0,2]: Σdx·dy = 4+1+0+0+3 = 8; Σdx² = 4+1+0+2.25+2.25 = 9.5; Σdy² = 10.
    assert.ok(Math.abs((j.result.statistic as number) - 8 / Math.sqrt(95)) < 1e-12);
    assert.ok(j.result.pValue !== null && j.result.pValue > 0 && j.result.pValue < 1);
  });

  it('reports a constant evaluator as undefined, not NaN', () => {
    const m = correlationTable(items)[1];
    assert.equal(m.result.statistic, null);
    assert.equal(m.result.undefinedReason, 'constant-input');
    assert.match(formatCorrelationTable([m]), /undefined \(constant-input\)/);
    assert.doesNotMatch(formatCorrelationTable(correlationTable(items)), /NaN/);
  });

  it('restricts the coherence score to chosen annotators', () => {
    const rows = correlationTable(items, { annotators: (a) => a.annotator === 'a0' });
    assert.equal(rows[0].n, 5);
  });
});
