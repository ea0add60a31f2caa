/**
 * The alt-test's trivial evaluators unmasked (issue 40): baselines run through the same test, an evaluator constant
 * at its cut or kept from the group's rate by ties named in the verdict, and a zero-variance t-test reported as such.
 */
import assert from 'node:assert/strict';
import { altTest, altTestBaselines, evaluatorAltTest } from '../../../src/core/metaEvaluation/altTest';
import { altTestBaselinesPlainTable, altTestPlainTable, renderTable } from '../../../src/core/metaEvaluation/metaEvaluationExport';
import type { Candidate, DialogueItem } from '../../../src/core/dialogue/types';
import { generateStudy, type StudyDesign } from '../../../scripts/coverage/generate';
import { PANEL } from '../../../scripts/coverage/scenarios';

/** A generated pool as dialogue items: 3 of 9 experts per response, evaluator scores from `score`. */
function pool(design: StudyDesign, seed: string, scores: Record<string, (i: number, a: number) => number>): DialogueItem[] {
  // a: the design's evaluator A on candidate i
  const s = generateStudy(design, seed);
  const items: DialogueItem[] = [];
  for (let c = 0; c < design.contexts; c++) {
    const candidates: Candidate[] = [];
    for (let j = 0; j < design.candidates; j++) {
      const i = c * design.candidates + j;
      candidates.push({
        id: `c${j}`,
        text: `r${i}`,
        origin: { kind: 'model' },
        annotations: [0, 1, 2].map((r) => ({ annotator: `Expert-${s.annotators[i * 3 + r] + 1}`, coherent: s.values[i * 3 + r] === 1 })),
        scores: Object.fromEntries(Object.entries(scores).map(([id, f]) => [id, { value: f(i, s.a[i]), status: 'ok' }])),
      } as unknown as Candidate);
    }
    items.push({ id: `ctx${c}`, context: [], candidates } as unknown as DialogueItem);
  }
  return items;
}

const design = (humanNoise: number, contexts = 15): StudyDesign => ({
  contexts,
  candidates: 10,
  contextSd: 0.6,
  humanNoise,
  panel: PANEL,
  perCandidate: 3,
  labels: 'binary',
  balance: 0.8,
  evaluator: { signal: 1, contextSd: 0.3, noiseSd: 0.5, shape: 'zero-mass', zeroShare: 0.85 },
});

describe('the alt-test beside trivial baselines', () => {
  it('experts who barely agree, 80 % coherent: a mostly-zero metric is constant at its cut, and always-coherent passes too', () => {
    const items = pool(design(3.5), 'low-agreement', { 'metric:bleuLike.score@x': (_i, a) => a });
    const r = evaluatorAltTest(items, 'metric:bleuLike.score@x', { group: 'experts', displayName: 'BLEU-like' });
    assert.equal(r.threshold, 0, 'the match-rate cut of a metric that is 0 for 85 % of responses is 0');
    assert.equal(r.evaluatorCoherentShare, 1);
    assert.equal(r.result.passed, true, 'the reference test passes it');
    assert.deepEqual(r.trivial.map((t) => t.kind), ['constant-at-cut']);
    assert.match(r.verdict, /^PASSES: .* — BLEU-like is constant at this cut: score ≥ 0 calls every response coherent, so it is the always-coherent baseline — a trivial baseline passes too \(always coherent/);
    const majority = r.baselines.find((b) => b.kind === 'always-majority');
    assert.ok(majority?.passed, 'always-coherent passes the same test');
    assert.equal(r.baselines.find((b) => b.kind === 'always-minority')?.passed, false);
    // the verdict reaches every export
    const table = altTestPlainTable(r.result, { evaluator: 'BLEU-like', group: 'experts', trivial: r.trivial, verdict: r.verdict });
    for (const format of ['text', 'md', 'latex', 'csv'] as const) assert.match(renderTable(table, format), /constant at this cut/, format);
    const baselines = renderTable(altTestBaselinesPlainTable([{ ...r, displayName: 'BLEU-like' }]), 'text');
    assert.match(baselines, /baseline: always coherent \(\d+\.\d % of the labels\)\s+1\s+0\.\d+\s+passes/);
    assert.match(baselines, /passes only as a trivial baseline does/);
    assert.ok(JSON.parse(JSON.stringify(r)).trivial[0].text.includes('constant at this cut'), 'and the JSON');
  });

  it('reliable experts: a good evaluator passes, the baselines fail, and the verdict says so', () => {
    const items = pool({ ...design(0.3), evaluator: { signal: 1, contextSd: 0, noiseSd: 0.3, shape: 'continuous' } }, 'reliable', { 'judge:x:a×b@0': (_i, a) => a });
    const r = evaluatorAltTest(items, 'judge:x:a×b@0', { group: 'experts', epsilon: 0.2, displayName: 'judge' });
    assert.equal(r.trivial.length, 0);
    assert.ok(r.baselines.every((b) => !b.passed), JSON.stringify(r.baselines));
    assert.equal(r.result.passed, true, r.verdict);
    assert.match(r.verdict, /no trivial baseline passes$/);
  });

  it('names a cut that ties keep from the group rate', () => {
    // half the scores tied at 0: the cuts call 100 % or at most 50 % coherent, the experts about 75 %.
    const items = pool(design(1), 'ties', { 'metric:tied.score@x': (i) => (i % 10 < 5 ? 0 : 1 + (i % 7)) });
    const r = evaluatorAltTest(items, 'metric:tied.score@x', { group: 'experts', displayName: 'tied', baselines: false });
    assert.deepEqual(r.trivial.map((t) => t.kind), ['cut-cannot-match']);
    assert.match(r.trivial[0].text, /^no cut of tied reaches the experts' \d+\.\d % coherent: 50\.0 % of its scores are tied at 0, so the nearest cut calls \d+\.\d % coherent$/);
    assert.equal(r.baselines.length, 0, 'baselines: false leaves them out');
  });

  it('a zero-variance t-test is reported as what it is, not as t = −∞, p = 0 (the reference behaviour stays an option)', () => {
    // h0 says 1 everywhere and so does the evaluator: d = 0 on every instance; h1, h2 vary.
    const n = 40;
    const humans: Record<string, Record<string, number>> = { h0: {}, h1: {}, h2: {} };
    const evaluator: Record<string, number> = {};
    for (let i = 0; i < n; i++) {
      humans.h0[`i${i}`] = 1;
      humans.h1[`i${i}`] = i % 4 === 0 ? 0 : 1;
      humans.h2[`i${i}`] = i % 5 === 0 ? 0 : 1;
      evaluator[`i${i}`] = 1;
    }
    const untested = altTest(humans, evaluator);
    const h0 = untested.annotators[0];
    assert.equal(h0.t, null);
    assert.equal(h0.pValue, null);
    assert.deepEqual(h0.zeroVariance, { difference: 0 });
    assert.equal(h0.rejected, false, 'no test, no win');
    const reference = altTest(humans, evaluator, { zeroVariance: 'reference' });
    assert.equal(reference.annotators[0].t, -Infinity);
    assert.equal(reference.annotators[0].pValue, 0);
    assert.equal(reference.annotators[0].rejected, true);
    const text = renderTable(altTestPlainTable(untested, { evaluator: 'E', group: 'experts' }), 'text');
    const row = text.split('\n').find((l) => l.startsWith('h0 ')) as string;
    assert.match(row, /^h0 +40 .* no variance +39 +– +– +no$/);
    assert.match(text, /h0: every d = 0 on all 40 instances \(no variance\): a t-test cannot be computed/);
  });

  it('ratings: constant mean, constant median and a draw from the marginal, through the −RMSE alt-test', () => {
    const humans: Record<string, Record<string, number>> = { a: {}, b: {}, c: {} };
    const evaluator: Record<string, number> = {};
    for (let i = 0; i < 60; i++) {
      const truth = 1 + (i % 5);
      humans.a[`i${i}`] = truth;
      humans.b[`i${i}`] = Math.min(5, truth + (i % 3 === 0 ? 1 : 0));
      humans.c[`i${i}`] = Math.max(1, truth - (i % 4 === 0 ? 1 : 0));
      evaluator[`i${i}`] = truth;
    }
    const b = altTestBaselines(humans, evaluator, { scoring: 'negRmse', seed: 3, draws: 5 });
    assert.deepEqual(b.map((x) => x.kind), ['constant-mean', 'constant-median', 'marginal-draw']);
    const all = Object.values(humans).flatMap((h) => Object.values(h)).sort((x, y) => x - y);
    const mean = all.reduce((s, v) => s + v, 0) / all.length;
    assert.match(b[0].description, new RegExp(`^always the mean rating \\(${Number(mean.toPrecision(4))}\\)$`));
    assert.equal(b[1].description, `always the median rating (${(all[89] + all[90]) / 2})`);
    assert.equal(b[2].draws, 5);
    assert.ok(b.every((x) => !x.passed), 'a constant rating cannot replace annotators who follow the truth');
    assert.deepEqual(altTestBaselines(humans, evaluator, { scoring: 'negRmse', seed: 3, draws: 5 }), b, 'seeded');
    assert.notDeepEqual(altTestBaselines(humans, evaluator, { scoring: 'negRmse', seed: 4, draws: 5 })[2], b[2]);
  });
});
