/**
 * `rating-mean` on a rubric's own ordinal or numeric dimension (issue 43 item 1, "the mean rating of any ordinal or
 * numeric dimension once rubrics exist"): the spec records the dimension's values, the pool reads the annotations'
 * ratings under the dimension's name (no coherence label needed), another group's ratings predict, and a plan on a
 * study with its rubric file beside runs through the estimate job.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Annotation, DialogueItem } from '../../../src/core/dialogue/types';
import { estimandOf, parseEstimand } from '../../../src/core/estimation/estimands';
import type { EstimatePlanState } from '../../../src/core/estimation/activePlan';
import { estimationPool } from '../../../src/core/estimation/pool';
import { formatItems } from '../../../src/core/format/jsonl';
import { runPlanOnFile } from '../../../src/core/jobs/file';
import { validatePlan } from '../../../src/core/jobs/plans';
import type { Rubric } from '../../../src/core/rubric/rubric';
import { testJobHost } from '../../helpers/jobHost';

const rubric: Rubric = {
  version: 1,
  name: 'pilot',
  primary: 'fluency',
  dimensions: [
    { name: 'fluency', type: 'ordinal', points: [1, 2, 3, 4, 5].map((value) => ({ value })) },
    { name: 'score', type: 'numeric', min: 0, max: 1, step: 0.25 },
    { name: 'raw', type: 'numeric', min: 0, max: 100 },
    { name: 'fine', type: 'binary' },
  ],
} as unknown as Rubric;

const rate = (annotator: string, group: 'expert' | 'layperson', fluency: number): Annotation => ({ annotator, group, fluency }) as Annotation;

function study(n: number): DialogueItem[] {
  const items: DialogueItem[] = [];
  for (let i = 0; i < n; i++) {
    const quality = 1 + (i * 7) % 5; // 1..5
    const lay = Math.min(5, Math.max(1, quality + ((i % 3) - 1)));
    items.push({
      id: `d${i}`,
      context: [{ speaker: 'User', text: `turn ${i}` }],
      candidates: [{ id: 'm-1', text: `response ${i}`, origin: { kind: 'model', model: i % 2 ? 'A' : 'B' }, scores: {}, annotations: [rate('Expert-1', 'expert', quality), rate('Expert-2', 'expert', Math.min(5, quality + (i % 2))), rate('L1', 'layperson', lay)] }],
    } as unknown as DialogueItem);
  }
  return items;
}

describe('rating-mean on a rubric dimension', () => {
  it('records the dimension\'s values; refuses a numeric dimension without a finite grid, and names the rubric\'s dimensions', () => {
    assert.deepEqual(parseEstimand('rating-mean:fluency', rubric), { kind: 'rating-mean', dimension: 'fluency', values: [1, 2, 3, 4, 5] });
    assert.deepEqual(parseEstimand('rating-mean:score', rubric), { kind: 'rating-mean', dimension: 'score', values: [0, 0.25, 0.5, 0.75, 1] });
    assert.throws(() => parseEstimand('rating-mean:raw', rubric), /numeric dimension raw needs a "step"/);
    assert.throws(() => parseEstimand('rating-mean:fine', rubric), /rating-mean:<fluency\|score\|raw>/);
    assert.throws(() => parseEstimand('empathy', rubric), /use coherence-rate/, 'the MI shorthand is the MI preset\'s');
    assert.throws(() => parseEstimand('rating-mean:fluency'), /dimension must be one of empathy or an ordinal or numeric dimension/, 'the MI preset has no fluency');
  });

  it('reads ratings without coherence labels: a candidate\'s outcome is its mean rating, a value off the scale is no rating', () => {
    const e = estimandOf(parseEstimand('rating-mean:fluency', rubric));
    assert.equal(e.labelled(rate('E', 'expert', 4)), true);
    assert.equal(e.labelled({ ...rate('E', 'expert', 4), fluency: 4.5 } as Annotation), false);
    assert.deepEqual(e.outcome([rate('E', 'expert', 4), rate('F', 'expert', 5)]), [4.5, 1]);
    assert.equal(e.outcome([]), null);
    assert.deepEqual(e.predictorExtra([rate('E', 'expert', 4)]), []);
  });

  it('pools the experts\' mean ratings (2 labels each) with the laypeople\'s ratings as predictor; the pool value is the mean of candidate means', () => {
    const items = study(30);
    const pool = estimationPool(items, { estimand: parseEstimand('rating-mean:fluency', rubric), human: 'experts', predictors: ['human:laypeople'] });
    assert.equal(pool.labelsPerCandidate, 2);
    const means = items.map((it) => {
      const r = it.candidates[0].annotations.filter((a) => a.group === 'expert').map((a) => a.fluency as number);
      return (r[0] + r[1]) / 2;
    });
    assert.deepEqual(pool.units.map((u) => u.outcome), means.map((m) => [m, 1]));
    assert.deepEqual(pool.units.map((u) => u.predictors[0]), items.map((it) => [it.candidates[0].annotations[2].fluency as number, 1]));
  });

  it('runs as an estimate plan on a study whose rubric is beside it, and replays from its record', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rubric-estimand-'));
    const file = join(dir, 'pilot.dialogues.jsonl');
    const open = study(40).map((it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: c.annotations.filter((a) => a.group !== 'expert') })) }));
    writeFileSync(file, formatItems(open));
    writeFileSync(join(dir, 'pilot.rubric.json'), JSON.stringify(rubric));
    const plan = validatePlan({ job: 'estimate', estimand: 'rating-mean:fluency', predictors: ['human:laypeople'], by: 'model', labelsPerCandidate: 2, halfWidth: 0.5 }, 'p');
    const first = await runPlanOnFile(plan, file, testJobHost(dir));
    const state = first.data as unknown as EstimatePlanState;
    assert.deepEqual(state.record.estimand, { kind: 'rating-mean', dimension: 'fluency', values: [1, 2, 3, 4, 5] });
    assert.deepEqual(state.strata.map((s) => s.key).sort(), ['A', 'B']);
    assert.ok(state.order.length === 40);
    const again = await runPlanOnFile(plan, file, testJobHost(dir));
    assert.match(again.lines[0], /^following the estimate plan/);
  });
});
