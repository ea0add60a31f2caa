/**
 * The estimate planner: a deterministic replay from its record and the labels in the file (continued replays equal
 * fresh ones), labels entering in draw order, labels outside the plan used only when drawn, labels at the start
 * counted exactly, the exact pool value at the end, a changed pool refused; its design-weighted estimate unbiased
 * where the labelled subset's own mean is not; and, on a generated pool, coverage and fewer labels than expert-only.
 */
import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { parsePlanRecord, isEstimatePlanRecord } from '../../../src/core/design/planRecord';
import { planSettings, workingModelSettings } from '../../../src/core/design/planSettings';
import { estimatePlan, forgetEstimateReplays, startEstimatePlan, StrataRun, stratumModels } from '../../../src/core/estimation/activePlan';
import { labelledStrata, simulateEstimates } from '../../../src/core/estimation/simulate';
import { planLabels, startLabelPlan } from '../../../src/core/planning/planner';
import { addScores, gemGridPool } from '../../../scripts/estimation/generatedPools';

const stripExperts = (items: DialogueItem[]) => items.map((it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: c.annotations.filter((a) => a.group !== 'expert') })) }));

/** Copies the experts' labels of `full` into `open` for the given candidates. */
function label(open: DialogueItem[], full: DialogueItem[], which: { itemId: string; candidateId: string }[]): DialogueItem[] {
  const want = new Set(which.map((w) => `${w.itemId}\u0000${w.candidateId}`));
  return open.map((it, i) => ({
    ...it,
    candidates: it.candidates.map((c, j) => (want.has(`${it.id}\u0000${c.id}`) ? { ...c, annotations: [...c.annotations, ...full[i].candidates[j].annotations.filter((a) => a.group === 'expert')] } : c)),
  }));
}

describe('estimate planner', function () {
  this.timeout(300_000);
  const full = addScores(gemGridPool(3, 'plan-test'), 'plan-scores');
  const open = stripExperts(full);
  const options = { estimand: { kind: 'coherence-rate', aggregate: 'majority' } as const, predictors: ['human:laypeople'], by: 'model', halfWidth: 0.1, labelsPerCandidate: 3 };

  it('replays from its record: the same labels give the same plan; labels enter in draw order; continuing equals starting over', () => {
    assert.deepEqual(startEstimatePlan(open, options).strata.map((s) => s.key), ['(none)', 'GPT-2', 'BART'], 'the reference has no model');
    const record = startEstimatePlan(open, { ...options, by: undefined });
    assert.deepEqual(record.strata.map((s) => s.key), ['all']);
    assert.equal(isEstimatePlanRecord(parsePlanRecord(JSON.stringify(record), 'r.json')), true);
    let items = open;
    let state = estimatePlan(items, record);
    assert.equal(state.counts.planned, 0);
    assert.equal(state.counts.drawn, 5);
    const history: string[] = [];
    for (let step = 0; step < 12; step++) {
      const drawn = state.order.filter((o) => o.status === 'drawn' || o.status === 'waiting');
      // label the drawn batch back to front: the later ones wait for the first
      const batch = drawn.slice(0, 5);
      items = label(items, full, batch.slice(1));
      const partial = estimatePlan(items, record);
      assert.equal(partial.counts.planned, state.counts.planned, 'nothing counts before the first drawn candidate is labelled');
      assert.ok(partial.order.filter((o) => o.status === 'waiting').length >= 1);
      items = label(items, full, batch.slice(0, 1));
      state = estimatePlan(items, record);
      history.push(JSON.stringify(state.strata.map((s) => [s.planned, s.estimate.value, s.estimate.halfWidth])));
    }
    forgetEstimateReplays();
    const fresh = estimatePlan(items, record);
    assert.deepEqual(JSON.stringify(fresh.strata.map((s) => [s.planned, s.estimate.value, s.estimate.halfWidth])), history[history.length - 1]);
    assert.deepEqual(fresh.order, state.order);
  });

  it('uses a label made outside the plan only when the design draws it; labels present at the start count exactly; a changed pool is refused', () => {
    const record = startEstimatePlan(open, options);
    const first = estimatePlan(open, record);
    const far = first.order[first.order.length - 1];
    const withOutside = label(open, full, [far]);
    const s = estimatePlan(withOutside, record);
    assert.equal(s.counts.planned, 0);
    assert.equal(s.counts.outsidePlan, 1);
    // a plan started on a partly labelled file counts those labels exactly and never draws them
    const some = label(open, full, first.order.slice(0, 30));
    const started = startEstimatePlan(some, options);
    assert.equal(started.start.length, 30);
    const st = estimatePlan(some, started);
    assert.equal(st.counts.start, 30);
    assert.ok(st.order.every((o) => !o.labelled));
    // lay labels changed: the predictors' values are part of the pool
    const changed = open.map((it, i) => (i === 0 ? { ...it, candidates: it.candidates.map((c, j) => (j === 0 ? { ...c, annotations: c.annotations.map((a) => ({ ...a, coherent: !a.coherent })) } : c)) } : it));
    assert.throws(() => estimatePlan(changed, record), /the pool changed since the plan started/);
    // a Spearman record is the other kind
    const spearman = startLabelPlan(addScores(gemGridPool(1, 'x'), 'y'), { evaluator: 'judge:informed', human: 'experts', target: { halfWidth: 0.1 } });
    assert.equal(isEstimatePlanRecord(parsePlanRecord(JSON.stringify(spearman), 's.json')), false);
    assert.throws(() => planLabels(open, record as never, { target: { halfWidth: 0.1 } }), /this record is an estimate plan's/);
    assert.throws(() => parsePlanRecord('{"format":"reflect-eval.label-plan/1","seed":"1","start":[],"pool":{},"estimand":{"kind":"fluency"}}', 'x.json'), /x\.json: field "estimand\.kind" must be/);
  });

  it('tries the level shares first, and leaves the logit model out for an estimand with many levels (a mean rating)', () => {
    const rate = startEstimatePlan(open, options);
    assert.equal(rate.modelSelection?.marginal, true);
    assert.deepEqual(rate.modelSelection?.ordinal, [{ ridge: 1, prior: 2 }]);
    const empathy = startEstimatePlan(open, { ...options, estimand: { kind: 'rating-mean', dimension: 'empathy' } });
    assert.equal(empathy.modelSelection?.marginal, true);
    assert.equal(empathy.modelSelection?.ordinal, undefined);
  });

  it('ends with every group\'s exact value when everything is labelled', () => {
    const record = startEstimatePlan(open, { ...options, halfWidth: 0.001 });
    let items = open;
    let state = estimatePlan(items, record);
    for (let i = 0; i < 200 && !state.stopped; i++) {
      items = label(items, full, state.order.filter((o) => o.status === 'drawn'));
      state = estimatePlan(items, record);
    }
    assert.ok(state.stopped);
    const ls = labelledStrata(full, { ...options, human: 'experts' }, 'test');
    state.strata.forEach((s, j) => {
      assert.ok(s.estimate.exact);
      assert.ok(Math.abs((s.estimate.value as number) - ls.truths[j]) < 1e-12);
    });
  });

  it('the design-weighted estimate is unbiased for an error share after 40 actively chosen labels; the labelled subset\'s own share is not', () => {
    const pool = gemGridPool(4, 'unbiased');
    const spec = { estimand: { kind: 'error-share', category: 'hallucinatory' } as const, predictors: ['human:laypeople'], labelsPerCandidate: 3 };
    const ls = labelledStrata(pool, spec, 'test');
    const settings = planSettings({});
    const estimates: number[] = [];
    const naive: number[] = [];
    for (let r = 0; r < 300; r++) {
      const models = stratumModels(ls.pool, ls.strata, ls.scale, new Set(), [60]);
      const rng = seedrandom.alea(`unbiased-${r}`);
      const clocks = ls.strata.map((s) => Float64Array.from(s.units, () => -Math.log(1 - rng())));
      const run = new StrataRun(models, clocks, { design: 'planner', batch: 5, defensive: 0.05, ...workingModelSettings(settings, false) }, { level: 0.95, halfWidth: 1e-9, minLabels: 20 });
      run.advance((s, u) => ls.levels[ls.strata[s].units[u]], 40);
      const plan = run.plans[0];
      // the first term's point estimate (Des Raj) is unbiased for the totals; the ratio of the weighted totals is consistent
      const est = run.estimate(0);
      if (est.value !== null) estimates.push(est.value);
      let num = 0;
      let den = 0;
      for (let d = 0; d < plan.revealed; d++) {
        const f = ls.scale.levels[plan.draws[d].level as number].features;
        num += f[0];
        den += f[1];
      }
      if (den > 0) naive.push(num / den);
    }
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const se = (xs: number[]) => Math.sqrt(xs.reduce((a, b) => a + (b - mean(xs)) ** 2, 0) / (xs.length - 1) / xs.length);
    const truth = ls.truths[0];
    assert.ok(Math.abs(mean(estimates) - truth) < Math.max(3 * se(estimates), 0.01), `weighted ${mean(estimates)} vs ${truth} (se ${se(estimates)})`);
    assert.ok(Math.abs(mean(naive) - truth) > 3 * se(naive), `the labelled subset's share ${mean(naive)} vs ${truth}: the design oversamples, so it should be off`);
  });

  it('on a generated pool: covers the pool value and needs fewer expert labels than expert-only', () => {
    const pool = gemGridPool(6, 'coverage');
    const r = simulateEstimates(pool, { estimand: { kind: 'coherence-rate', aggregate: 'mean' }, predictors: ['human:laypeople'], halfWidths: [0.1], runs: 60, labelsPerCandidate: 3, estimators: ['estimator', 'classical'] });
    const t = r.targets[0];
    assert.ok(r.coverage >= 0.93, `coverage ${r.coverage}`);
    assert.ok((t.estimator?.labels as number) < (t.classical?.labels as number) * 0.9, JSON.stringify(t));
  });
});
