import assert from 'node:assert/strict';
import {
  consensusAdjustedMostEvidentErrors,
  errorLabel,
  filledMostEvidentError,
  majorityVote,
  mergeErrorCategory,
  mergeLikert,
  mergedErrorLabel,
} from '../../../src/core/labels/scheme';
import type { Annotation, ErrorCategory } from '../../../src/core/dialogue/types';

const inc = (errors: ErrorCategory[], mostEvidentError?: ErrorCategory): Annotation => ({ annotator: 'x', coherent: false, errors, ...(mostEvidentError ? { mostEvidentError } : {}) });

describe('first-study derived labels', () => {
  it('fills the MEE when only one error is chosen (§5.1), and only then', () => {
    assert.equal(filledMostEvidentError(inc(['malformed'])), 'malformed');
    assert.equal(filledMostEvidentError(inc(['malformed', 'offTopic'])), undefined);
    assert.equal(filledMostEvidentError(inc(['malformed', 'offTopic'], 'offTopic')), 'offTopic');
    assert.equal(filledMostEvidentError({ coherent: true }), undefined);
    assert.equal(filledMostEvidentError(inc([])), undefined);
  });

  it("consensus-adjusts the paper's example: {Malformed}, {Off-topic, Malformed}, {Parroting, Malformed} → Malformed ×3", () => {
    const labels = [inc(['malformed']), inc(['offTopic', 'malformed'], 'offTopic'), inc(['parroting', 'malformed'], 'parroting')].map(errorLabel);
    assert.deepEqual(consensusAdjustedMostEvidentErrors(labels), ['malformed', 'malformed', 'malformed']);
  });

  it('keeps the original MEEs without a consensus error, or when one annotator said coherent', () => {
    const labels = [inc(['malformed']), inc(['offTopic'])].map(errorLabel);
    assert.deepEqual(consensusAdjustedMostEvidentErrors(labels), ['malformed', 'offTopic']);
    const withCoherent = [errorLabel(inc(['malformed'])), errorLabel(inc(['malformed'])), errorLabel({ annotator: 'c', coherent: true })];
    assert.deepEqual(consensusAdjustedMostEvidentErrors(withCoherent), ['malformed', 'malformed', undefined]);
  });

  it('with several common errors, uses the one most annotators already call most evident; on a tie keeps each own', () => {
    const a = [inc(['malformed', 'parroting'], 'malformed'), inc(['malformed', 'parroting'], 'malformed'), inc(['malformed', 'parroting', 'offTopic'], 'offTopic')];
    assert.deepEqual(consensusAdjustedMostEvidentErrors(a.map(errorLabel)), ['malformed', 'malformed', 'malformed']);
    const tie = [inc(['malformed', 'parroting'], 'malformed'), inc(['malformed', 'parroting'], 'parroting')];
    assert.deepEqual(consensusAdjustedMostEvidentErrors(tie.map(errorLabel)), ['malformed', 'parroting']);
  });

  it('merges the hallucination categories and the Likert ends (§5.1)', () => {
    assert.deepEqual(
      (['malformed', 'dialogueContradicting', 'parroting', 'offTopic', 'onTopicButUnverifiable', 'other'] as ErrorCategory[]).map(mergeErrorCategory),
      ['malformed', 'hallucinatory', 'parroting', 'hallucinatory', 'hallucinatory', 'other'],
    );
    assert.deepEqual(([1, 2, 3, 4, 5] as const).map(mergeLikert), ['disagree', 'disagree', 'neutral', 'agree', 'agree']);
    assert.throws(() => mergeLikert(6 as never), /1–5/);
  });

  it('seeks the consensus among merged categories for the (M) statistics', () => {
    const a = [inc(['offTopic', 'malformed'], 'malformed'), inc(['dialogueContradicting', 'malformed'], 'malformed'), inc(['onTopicButUnverifiable'])];
    assert.deepEqual(consensusAdjustedMostEvidentErrors(a.map(errorLabel)), ['malformed', 'malformed', 'onTopicButUnverifiable']);
    assert.deepEqual(consensusAdjustedMostEvidentErrors(a.map(mergedErrorLabel)), ['hallucinatory', 'hallucinatory', 'hallucinatory']);
    // several errors without an MEE that merge into one category get it filled
    assert.equal(mergedErrorLabel(inc(['offTopic', 'dialogueContradicting'])).mostEvidentError, 'hallucinatory');
  });

  it('majority vote needs strictly more than half of the votes cast', () => {
    assert.deepEqual(majorityVote(['a', 'a', 'b']), { value: 'a', count: 2, total: 3 });
    assert.equal(majorityVote(['a', 'b', 'c']).value, null);
    assert.equal(majorityVote(['a', 'a', 'a', 'b', 'b', 'b']).value, null);
    assert.equal(majorityVote(['a', undefined, 'a']).value, 'a');
    assert.equal(majorityVote(['a', 'b', undefined]).value, null);
    assert.equal(majorityVote([]).value, null);
  });
});
