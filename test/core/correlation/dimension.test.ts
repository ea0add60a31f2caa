/**
 * Every analysis takes a rubric dimension (issue 39 item 4) and a file without experts gets working defaults (item 6):
 * the correlation table, its exports, the ceiling, the alt-test and the labelling pool on a study with its own rubric
 * (test/core/agreement/fixtures/rubric-study: a binary, an ordinal 1–5, a numeric and a categorical dimension; four
 * raters, none an expert), and the MI preset's tables unchanged by the new options.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { withCeilingRows } from '../../../src/core/correlation/ceiling';
import { tableToCsv, tableToLatex, tableToMarkdown, tableToText } from '../../../src/core/correlation/correlationExport';
import { correlationTable, type CorrelationTableOptions } from '../../../src/core/correlation/correlationTable';
import { forestPlotSvg } from '../../../src/core/correlation/forestPlot';
import { documentItems, parseDocument } from '../../../src/core/format/jsonl';
import { evaluatorAltTest, matchDistribution } from '../../../src/core/metaEvaluation/altTest';
import { humanScoreLevels, labellingPool } from '../../../src/core/planning/pool';
import { lengthBias } from '../../../src/core/metaEvaluation/lengthBias';
import { lengthBiasPlainTable } from '../../../src/core/metaEvaluation/metaEvaluationExport';
import { humanScore, humanScoreSpec, type ScaleDimension } from '../../../src/core/rubric/labelValues';
import { MI_RUBRIC } from '../../../src/core/rubric/presets';
import { spearmanRho } from '../../../src/core/stats/correlation';

import { JUDGE, METRIC, rubric, scoredRubricStudy } from '../../helpers/rubricStudy';

describe('every analysis takes a rubric dimension (issue 39 items 4 and 6)', () => {
  const items = scoredRubricStudy();
  const overall = rubric.dimensions.find((d) => d.name === 'Overall') as ScaleDimension;
  const base: CorrelationTableOptions = { rubric, groupBy: 'none', pValue: 'independent' };

  it("correlates with the rubric's primary dimension by default: the mean rating, every annotator on a file without experts", () => {
    const t = correlationTable(items, base);
    assert.equal(t.human, 'all');
    assert.deepEqual(t.dimension && { name: t.dimension.name, rule: t.dimension.rule, type: t.dimension.type }, { name: 'Overall', rule: 'mean', type: 'ordinal' });
    const row = t.rows.find((r) => r.evaluatorId === JUDGE)!;
    const x: number[] = [];
    const y: number[] = [];
    for (const it of items) for (const c of it.candidates) {
      const h = humanScore(c, overall, rubric, 'mean');
      if (h === null) continue;
      x.push(c.scores[JUDGE].value as number);
      y.push(h);
    }
    const want = spearmanRho(x, y);
    assert.equal(row.cells[0].n, x.length);
    assert.ok(Math.abs((row.cells[0].statistic as number) - (want.statistic as number)) < 1e-15);
    assert.ok(Math.abs((row.cells[0].pValue as number) - (want.pValue as number)) < 1e-15);
  });

  it('takes --dimension and --human-score: the median, the share of yes on a binary dimension, a numeric range', () => {
    const mean = correlationTable(items, base).rows.find((r) => r.evaluatorId === JUDGE)!.cells[0].statistic;
    const median = correlationTable(items, { ...base, humanScore: 'median' });
    assert.equal(median.dimension?.rule, 'median');
    assert.notEqual(median.rows.find((r) => r.evaluatorId === JUDGE)!.cells[0].statistic, mean);
    const sensible = correlationTable(items, { ...base, dimension: 'Sensible' });
    assert.equal(sensible.dimension?.rule, 'count');
    const share = correlationTable(items, { ...base, dimension: 'Sensible', humanScore: 'mean' });
    assert.equal(share.dimension?.phrase, 'share who said yes to Sensible');
    const spec = correlationTable(items, { ...base, dimension: 'Specificity' });
    assert.ok(spec.rows[0].cells[0].n > 0 && spec.rows[0].cells[0].n < 120, 'a numeric dimension some raters left blank: only the rated responses');
  });

  it('refuses a dimension the rubric does not have or cannot score, and a count on a scale, naming the scale dimensions', () => {
    assert.throws(() => correlationTable(items, { ...base, dimension: 'overall' }), /no dimension "overall"; its binary, ordinal and numeric dimensions: "Sensible", "Overall", "Specificity"/);
    assert.throws(() => correlationTable(items, { ...base, dimension: 'Problem' }), /"Problem" is categorical: it has no score to correlate/);
    assert.throws(() => correlationTable(items, { ...base, humanScore: 'count' }), /human score "count" needs a binary dimension; Overall is ordinal/);
    assert.throws(() => humanScoreSpec(MI_RUBRIC, 'empathy', 'majority'), RangeError);
  });

  it('names the dimension in the text, Markdown and LaTeX headers; CSV carries a dimension column; no MI wording, no empty laypeople–experts row', () => {
    const t = correlationTable(items, base);
    const text = tableToText(t);
    assert.match(text.replace(/\n/g, ' '), /^Dimension: Overall \(ordinal; human score: mean\)\. Spearman's rho between each evaluator and all annotators' mean rating of Overall/);
    for (const out of [text, tableToMarkdown(t), tableToLatex(t)]) {
      assert.doesNotMatch(out, /coheren|Laypeople|Reflections/i);
    }
    assert.match(tableToLatex(t), /mean rating of Overall, dimension \\texttt\{Overall\}/);
    const rows = parse(tableToCsv(t), { columns: true }) as Record<string, string>[];
    assert.equal(rows.length, t.rows.length, 'one line per evaluator cell: no human reference line');
    assert.ok(rows.every((r) => r.dimension === 'Overall' && r.human_score === 'mean' && r.human === 'all'));
    assert.doesNotMatch(forestPlotSvg(t), /laypeople–experts|coherence/);
  });

  it('keeps the laypeople–experts row outside the MI preset when the data has both groups', () => {
    const grouped = items.map((it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: c.annotations.map((a) => ({ ...a, group: a.annotator === 'r1' || a.annotator === 'r2' ? 'expert' : 'layperson' })) })) }));
    const t = correlationTable(grouped, base);
    assert.equal(t.human, 'experts', 'auto: the experts when the file has expert labels on the dimension');
    assert.ok(t.reference.cells[0].n > 0);
    assert.match(tableToText(t), /Laypeople–experts \(human reference\)/);
  });

  it('leaves the MI preset exactly as it was: no dimension field, the same numbers, with or without --dimension coherent', () => {
    const mi = documentItems(parseDocument(readFileSync(join(__dirname, '../../fixtures/correlation/evalreflections-synthetic.dialogues.jsonl'), 'utf8'), 'x.jsonl'));
    const plain = correlationTable(mi, { bootstrap: { resamples: 50, seed: 1 } });
    assert.equal(plain.dimension, undefined);
    assert.ok(plain.rows.length > 0 && plain.rows[0].cells.some((c) => c.n > 0));
    assert.deepEqual(correlationTable(mi, { rubric: MI_RUBRIC, dimension: 'coherent', humanScore: 'count', bootstrap: { resamples: 50, seed: 1 } }), plain);
    assert.doesNotMatch(tableToCsv(plain).split('\n')[0], /dimension/);
    assert.match(tableToText(plain), /^Spearman's rho between each evaluator and the experts' coherence score \(number who said coherent/);
    const empathy = correlationTable(mi, { rubric: MI_RUBRIC, dimension: 'empathy' });
    assert.equal(empathy.dimension?.name, 'empathy', 'another MI dimension names itself');
  });

  it('--ceiling --human all is the ceiling of all annotators (it was the experts\': n = 0), on the mean rating', () => {
    const t = correlationTable(items, { ...base, human: 'all' });
    const c = withCeilingRows(t, items, { ...base, human: 'all' });
    const ceiling = c.rows[0];
    assert.equal(ceiling.displayName, 'Ceiling: one annotator vs the rest');
    assert.equal(ceiling.evaluatorId, 'human:ceiling:all');
    assert.ok(ceiling.cells[0].n > 0 && ceiling.cells[0].statistic !== null);
    assert.ok((ceiling.cells[0].statistic as number) > 0);
  });

  it('prints no column whose labelled responses are all their item\'s reference, and no "nobody labelled" note for it', () => {
    const withRef = items.map((it) => ({ ...it, reference: { text: it.candidates[0].text }, candidates: it.candidates.map((c, k) => (k === 0 ? { ...c, origin: { ...c.origin, source: 'Original Ground Truth' } } : c)) }));
    const t = correlationTable(withRef, { rubric, groupBy: 'source', evaluators: ['bleu4'] });
    assert.deepEqual(t.columns.map((c) => c.key), ['synthetic', 'all']);
    assert.equal(t.rows[0].cells[1].isReference, 30);
    assert.doesNotMatch(tableToText(t), /Nobody|Original Ground Truth/);
  });

  it('alt-test on ordinal ratings: the scores made ratings by matching the group\'s distribution, scored by accuracy, negRmse or negMae', () => {
    const spec = humanScoreSpec(rubric, 'Overall');
    const acc = evaluatorAltTest(items, JUDGE, { spec, group: 'all', minInstancesPerHuman: 10, baselines: false });
    assert.equal(acc.dimension, 'Overall');
    assert.equal(acc.result.parameters.scoring, 'accuracy');
    assert.match(acc.thresholdRule, /^match-distribution/);
    const mae = evaluatorAltTest(items, JUDGE, { spec, group: 'all', minInstancesPerHuman: 10, scoring: 'negMae', baselines: false });
    const rmse = evaluatorAltTest(items, JUDGE, { spec, group: 'all', minInstancesPerHuman: 10, scoring: 'negRmse' });
    assert.equal(mae.result.parameters.scoring, 'negMae');
    assert.ok(mae.result.annotators.length > 0 && rmse.result.annotators.length > 0);
    assert.deepEqual(rmse.baselines.map((b) => b.kind), ['constant-mean', 'constant-median', 'marginal-draw']);
    // the judge follows the mean rating; the noise metric does not: the judge's advantage probability is higher
    const noise = evaluatorAltTest(items, METRIC, { spec, group: 'all', minInstancesPerHuman: 10, scoring: 'negRmse', baselines: false });
    assert.ok((rmse.result.advantageProbability as number) > (noise.result.advantageProbability as number));
    assert.throws(() => evaluatorAltTest(items, JUDGE, { spec, group: 'all', calibration: 'identity' }), /outside Overall's scale 1–5/);
  });

  it('length bias against the mean rating: the human score of the dimension, named in the title', () => {
    const spec = humanScoreSpec(rubric, 'Overall');
    const t = lengthBias(items, { evaluators: [JUDGE], spec });
    assert.equal(t.human, 'all');
    assert.equal(t.dimension?.phrase, 'mean rating of Overall');
    const row = t.rows[0];
    const x: number[] = [];
    const y: number[] = [];
    for (const it of items) for (const c of it.candidates) {
      const h = humanScore(c, overall, rubric, 'mean');
      if (h !== null) (x.push(c.scores[JUDGE].value as number), y.push(h));
    }
    assert.equal(row.n, x.length);
    assert.ok(Math.abs((row.evaluatorHuman.statistic as number) - (spearmanRho(x, y).statistic as number)) < 1e-15);
    assert.match(lengthBiasPlainTable(t).title, /against the all' mean rating of Overall/);
  });

  it('matchDistribution gives tied scores one rating and reproduces the pooled shares', () => {
    const m = matchDistribution({ a: 0.1, b: 0.2, c: 0.2, d: 0.9 }, [1, 1, 2, 2, 2, 2, 3, 3]);
    assert.equal(m.b, m.c);
    assert.deepEqual(m, { a: 1, b: 2, c: 2, d: 3 });
  });

  it('plan-labels: the pool\'s human score is the mean rating, its levels every sum over n', () => {
    const spec = humanScoreSpec(rubric, 'Overall');
    assert.deepEqual(humanScoreLevels(spec, 2, 3).slice(0, 5), [1, 4 / 3, 1.5, 5 / 3, 2]);
    const pool = labellingPool(items, { evaluator: JUDGE, human: 'auto', spec });
    assert.equal(pool.human, 'all');
    const levels = new Set(humanScoreLevels(spec, pool.labelsPerCandidate, Math.max(...pool.candidates.map((c) => c.groupLabels))));
    for (const c of pool.candidates) if (c.human !== null) assert.ok(levels.has(c.human), `${c.human} is a level`);
    assert.throws(() => labellingPool(items, { evaluator: JUDGE, human: 'auto', spec: humanScoreSpec(rubric, 'Specificity') }), /Specificity is numeric/);
  });
});
