import assert from 'node:assert/strict';
import { agreementTable } from '../../../src/core/agreement/agreementTable';
import type { Annotation, Candidate, DialogueItem, ErrorCategory, LikertAgreement } from '../../../src/core/dialogue/types';

const yes = (annotator: string, empathy?: LikertAgreement): Annotation => ({ annotator, coherent: true, ...(empathy ? { empathy } : {}) });
const no = (annotator: string, errors: ErrorCategory[], mostEvidentError?: ErrorCategory): Annotation => ({ annotator, coherent: false, errors, ...(mostEvidentError ? { mostEvidentError } : {}) });
const cand = (id: string, annotations: Annotation[]): Candidate => ({ id, text: id, origin: { kind: 'model', source: 'GPT-2' }, annotations, scores: {} });

/**
 * Six responses, annotators A, B, C (worked by hand below):
 *   s1 coherent ×3, empathy 5 4 5          s2 coherent ×3, empathy 2 2 3
 *   s3 incoherent: {M}, {O,M} MEE O, {P,M} MEE P (the paper's consensus example)
 *   s4 incoherent: {O}, {D}, {U}           s5 coherent, {P}, {P}          s6 only two labels (left out)
 */
const item: DialogueItem = {
  id: 'i',
  context: [],
  candidates: [
    cand('s1', [yes('A', 5), yes('B', 4), yes('C', 5)]),
    cand('s2', [yes('A', 2), yes('B', 2), yes('C', 3)]),
    cand('s3', [no('A', ['malformed']), no('B', ['offTopic', 'malformed'], 'offTopic'), no('C', ['parroting', 'malformed'], 'parroting')]),
    cand('s4', [no('A', ['offTopic']), no('B', ['dialogueContradicting']), no('C', ['onTopicButUnverifiable'])]),
    cand('s5', [yes('A', 4), no('B', ['parroting']), no('C', ['parroting'])]),
    cand('s6', [yes('A'), yes('B')]),
  ],
};

describe('agreementTable (first study Table 4) on a hand-worked case', () => {
  const t = agreementTable([item]);
  const row = (key: string) => t.rows.find((r) => r.key === key)!;
  const near = (key: string, want: number, subjects: number) => {
    assert.ok(Math.abs(row(key).kappa! - want) < 1e-15, `${key}: ${row(key).kappa} vs ${want}`);
    assert.equal(row(key).subjects, subjects, key);
  };

  it('uses the most common number of labels (3) and reports the response with 2', () => {
    assert.equal(t.raters, 3);
    assert.deepEqual(t.leftOut, { '2 coherence labels instead of 3': 1 });
  });

  // coherent/incoherent counts [3,0] [3,0] [0,3] [0,3] [1,2]: P̄ = (4 + 1/3)/5 = 13/15, p = 7/15, 8/15,
  // P̄e = 113/225, κ = (195 − 113)/(225 − 113) = 82/112
  it('coherence: κ = 41/56 over 5 subjects', () => near('coherence', 41 / 56, 5));

  // s1 {5:2, 4:1}, s2 {2:2, 3:1}: P̄ = 1/3; p = 2/6, 1/6, 1/6, 2/6 for 2, 3, 4, 5: P̄e = 10/36; κ = (6/18 − 5/18)/(13/18)
  it('empathy over the all-coherent s1, s2: κ = 1/13; merged (agree ×3; disagree ×2 + neutral): κ = 5/11', () => {
    near('empathy', 1 / 13, 2);
    near('empathyMerged', 5 / 11, 2);
  });

  // MEE s3 = M, O, P and s4 = O, D, U: P̄ = 0, P̄e = (1+4+1+1+1)/36 = 2/9, κ = −2/7.
  // Consensus: s3 → M ×3 (P = 1), s4 unchanged (P = 0): P̄ = 1/2, P̄e = (9+1+1+1)/36 = 1/3, κ = 1/4.
  it('MEE over the all-incoherent s3, s4: κ = −2/7; consensus-adjusted: κ = 1/4', () => {
    near('mostEvidentError', -2 / 7, 2);
    near('consensusMostEvidentError', 1 / 4, 2);
  });

  // Merged: s3 = M, H, P (P = 0), s4 = H ×3 (P = 1): P̄ = 1/2, p = 1/6, 4/6, 1/6 → P̄e = 1/2, κ = 0.
  // Merged consensus: s3's merged sets {M}, {H,M}, {P,M} share only M → M ×3; s4 H ×3: κ = 1.
  it('merged MEE: κ = 0; merged consensus-adjusted MEE: κ = 1', () => {
    near('mostEvidentErrorMerged', 0, 2);
    near('consensusMostEvidentErrorMerged', 1, 2);
  });

  it('lists the rows in Table 4 order with its labels', () => {
    assert.deepEqual(t.rows.map((r) => r.label), [
      'Coherent & consistent?', 'Empathetic?', 'Most evident error', 'Consensus-adjusted most evident error',
      'Empathetic? (M)', 'Most evident error (M)', 'Consensus-adjusted most evident error (M)',
    ]);
  });

  it('leaves out, and counts, responses that lack a value a row needs', () => {
    const noMee = structuredClone(item);
    noMee.candidates[3].annotations[0] = no('A', ['offTopic', 'parroting']); // several errors, no MEE
    noMee.candidates[0].annotations[2] = yes('C'); // coherent without an empathy rating
    const u = agreementTable([noMee]);
    const r = (key: string) => u.rows.find((x) => x.key === key)!;
    assert.equal(r('mostEvidentError').subjects, 1);
    assert.equal(Object.values(r('mostEvidentError').leftOut)[0], 1);
    assert.equal(r('empathy').subjects, 1);
    assert.deepEqual(r('empathy').leftOut, { 'a coherent label without an empathy rating (1–5)': 1 });
  });

  it('honours a fixed number of raters and per-group tables', () => {
    const two = agreementTable([item], { raters: 2 });
    assert.equal(two.rows[0].subjects, 1);
    assert.equal(two.rows[0].kappa, null);
    assert.equal(two.rows[0].undefinedReason, 'every rating is in one category');
    const grouped = structuredClone(item);
    for (const c of grouped.candidates) c.annotations.push({ annotator: 'Expert 1', coherent: true });
    assert.equal(agreementTable([grouped], { group: 'laypeople' }).rows[0].kappa, agreementTable([item]).rows[0].kappa);
    assert.equal(agreementTable([grouped], { group: 'experts' }).rows.length, 0); // one expert: no pairs to agree
  });
});
