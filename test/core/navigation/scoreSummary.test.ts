import assert from 'node:assert/strict';
import { evaluatorScale, formatScale, formatScoreValue, summariseScores, repeatDisagreement, errorVerdict } from '../../../src/core/navigation/scoreSummary';
import { displayNames } from '../../../src/core/evaluators/evaluatorNames';
import type { Score } from '../../../src/core/dialogue/types';

const BLEU = 'metric:bleu4.score@impl:nltk-3.8|tok:whitespace|smooth:none|rv:0.1.0';
const ROUGE_P = 'metric:rougeL.precision@tok:default|rv:0.1.0';
const JUDGE = 'judge:local:bundled:reflect-gpt2-tiny:instructions×rating@3f2a9c0d1e4b~5a6b7c8d';
const JUDGE_MEAN = `${JUDGE}/mean-of-5`;
const SCORING = 'judge:api:gpt-4o:instructions×scoring@aaaaaaaaaaaa~bbbbbbbb';
const REQUESTS = { rating: { min: 1, max: 5, integer: true }, scoring: { min: 0, max: 100, integer: false } };

describe('score summary (readable scores in the dialogue editor)', () => {
  it('takes each metric\'s scale from its card and each judge\'s from its request', () => {
    assert.deepEqual(evaluatorScale(BLEU), { min: 0, max: 1 });
    assert.deepEqual(evaluatorScale(ROUGE_P), { min: 0, max: 1 });
    assert.deepEqual(evaluatorScale(JUDGE, REQUESTS), { min: 1, max: 5, integer: true });
    assert.deepEqual(evaluatorScale(JUDGE_MEAN, REQUESTS), { min: 1, max: 5, integer: false }, 'a mean of K is not whole');
    assert.deepEqual(evaluatorScale(SCORING, REQUESTS), { min: 0, max: 100, integer: false });
    assert.equal(evaluatorScale(JUDGE), undefined, 'no request spec, no scale');
    assert.equal(evaluatorScale('metric:nosuch.score@x'), undefined);
    assert.equal(formatScale({ min: -Infinity, max: 0 }), '≤ 0');
    assert.equal(formatScale({ min: -1, max: 1 }), '−1–1');
    assert.equal(formatScale({ min: 1, max: 5 }), '1–5');
  });

  it('rounds to the scale, says ≈0 for a tiny non-zero value and never prints a negative zero', () => {
    assert.equal(formatScoreValue(9.418382295637229e-232, { min: 0, max: 1 }), '≈0');
    assert.equal(formatScoreValue(0, { min: 0, max: 1 }), '0.000');
    assert.equal(formatScoreValue(-0, { min: 0, max: 1 }), '0.000');
    assert.equal(formatScoreValue(-0.00004, { min: -1, max: 1 }), '≈0');
    assert.equal(formatScoreValue(0.13249, { min: 0, max: 1 }), '0.132');
    assert.equal(formatScoreValue(4, { min: 1, max: 5, integer: true }), '4');
    assert.equal(formatScoreValue(3.6667, { min: 1, max: 5 }), '3.67');
    assert.equal(formatScoreValue(72.55, { min: 0, max: 100 }), '72.5');
    assert.equal(formatScoreValue(-12.3456, { min: -Infinity, max: 0 }), '−12.35');
  });

  it('groups metrics and judges, names each readably and keeps the full id and raw value for the tooltip', () => {
    const scores: Record<string, Score> = {
      [JUDGE]: { value: 4, status: 'ok', raw: ' 4' },
      [BLEU]: { value: 9.418382295637229e-232, status: 'ok' },
      [ROUGE_P]: { value: 0.5, status: 'ok' },
      [SCORING]: { value: null, status: 'unparsable', raw: 'I cannot rate this', message: 'no number in the reply' },
    };
    const ids = Object.keys(scores);
    const names = displayNames(ids);
    const scales = new Map(ids.map((id) => [id, evaluatorScale(id, REQUESTS)]));
    const groups = summariseScores(scores, names, scales);
    assert.deepEqual(groups.map((g) => g.group), ['metrics', 'judges']);
    const [metrics, judges] = groups;
    assert.deepEqual(metrics.lines.map((l) => [l.name, l.value, l.scale]), [
      ['BLEU-4', '≈0', '0–1'],
      ['ROUGE-L (precision)', '0.500', '0–1'],
    ]);
    const bleu = metrics.lines[0];
    assert.ok(bleu.title.includes(BLEU), 'full id on hover');
    assert.ok(bleu.title.includes('9.418382295637229e-232'), 'raw value on hover');
    const rating = judges.lines.find((l) => l.id === JUDGE)!;
    assert.equal(rating.name, 'instructions × rating · reflect-gpt2-tiny');
    assert.equal(rating.value, '4');
    assert.equal(rating.scale, '1–5');
    assert.ok(rating.title.includes('raw reply:  4'));
    const unparsable = judges.lines.find((l) => l.id === SCORING)!;
    assert.equal(unparsable.ok, false);
    assert.equal(unparsable.value, 'unparsable');
    assert.ok(unparsable.title.includes('I cannot rate this') && unparsable.title.includes('no number in the reply'));
    for (const g of groups) for (const l of g.lines) assert.ok(!l.name.includes('@'), `${l.name} reads without the id`);
  });

  it('uses the file-wide names given, so two BLEU-4 configurations are told apart as in the tables', () => {
    const other = 'metric:bleu4.score@impl:nltk-3.8|tok:13a|smooth:none|rv:0.1.0';
    const names = displayNames([BLEU, other]);
    const [g] = summariseScores({ [other]: { value: 0.25, status: 'ok' } }, names);
    assert.equal(g.lines[0].name, 'BLEU-4 (13a tokens)');
  });
});

describe('number formatting of the correlation tables', () => {
  it('prints a correlation that rounds to zero as 0.000, never -0.000, in cells, intervals and LaTeX', async () => {
    const { formatNumber, formatStatistic, formatInterval, undefinedPhrase, undefinedExplanation } = await import('../../../src/core/tables/numberFormat');
    assert.equal(formatNumber(-0.0001), '0.000');
    assert.equal(formatNumber(-0), '0.000');
    assert.equal(formatNumber(-0.0004, 2), '0.00');
    assert.equal(formatNumber(-0.0006), '-0.001');
    assert.equal(formatStatistic({ statistic: -0.00002 }), '0.000');
    assert.equal(formatInterval({ ci: { lower: -0.0002, upper: 0.25 } as never }), '[0.000, 0.250]');
    assert.equal(formatStatistic({ statistic: null, undefinedReason: 'constant-input' }), 'all scores equal');
    assert.equal(formatStatistic({ statistic: null, undefinedReason: 'too-few' }), 'too few');
    assert.equal(undefinedPhrase('degenerate'), 'undefined (degenerate)');
    assert.match(undefinedExplanation('constant-input'), /same for every response/);
  });
});

describe('repeats that disagree (judge --repeats K)', () => {
  const rep = (value: number | null) => ({ value, status: value === null ? ('unparsable' as const) : ('ok' as const) });
  it('marks a judge whose repeated replies differ, in repeat order, and not one whose replies agree', () => {
    assert.equal(repeatDisagreement({ value: 4, status: 'ok', repeats: [rep(4), rep(4), rep(2)] }), 'repeats differ: 4, 4, 2');
    assert.equal(repeatDisagreement({ value: 4, status: 'ok', repeats: [rep(4), rep(null)] }), 'repeats differ: 4, —');
    assert.equal(repeatDisagreement({ value: 4, status: 'ok', repeats: [rep(4), rep(4), rep(4)] }), undefined);
    assert.equal(repeatDisagreement({ value: 4, status: 'ok' }), undefined);
    const [judges] = summariseScores({ 'judge:api:m:instructions×rating@h~d': { value: 4, status: 'ok', repeats: [rep(4), rep(3)] } });
    assert.equal(judges.lines[0].repeatsDiffer, 'repeats differ: 4, 3');
    assert.match(judges.lines[0].title, /\nrepeats differ: 4, 3$/);
  });
});

describe('error-category verdicts beside the candidate (issue 17)', () => {
  it('reads the categories, the most evident one and the rationale the judge stored with its score', () => {
    const id = 'judge:api:m:instructions×error-categories@h~d';
    const [judges] = summariseScores({
      [id]: { value: 0, status: 'ok', categories: ['parroting', 'offTopic'], mostEvidentError: 'parroting', rationale: ' It repeats "I feel stuck" word for word. ' },
    });
    assert.deepEqual(judges.lines[0].verdict, { categories: ['Parroting', 'Off-topic'], mostEvidentError: 'Parroting', rationale: 'It repeats "I feel stuck" word for word.' });
    assert.deepEqual(errorVerdict({ value: 1, status: 'ok', categories: [] }), { categories: [] });
    // No verdict for a rating, an unusable reply, or categories outside the scheme.
    assert.equal(errorVerdict({ value: 4, status: 'ok' }), undefined);
    assert.equal(errorVerdict({ value: null, status: 'unparsable', categories: [] }), undefined);
    assert.equal(errorVerdict({ value: 0, status: 'ok', categories: ['rude'] }), undefined);
    assert.equal(summariseScores({ 'judge:api:m:instructions×rating@h~d': { value: 4, status: 'ok' } })[0].lines[0].verdict, undefined);
  });
});
