import assert from 'node:assert/strict';
import { MetricConfigError, metricEvaluatorId, type Metric, type MetricInput, type MetricValues } from '../../../src/core/metrics/metric';
import { getMetric, listMetrics, registerMetric, scoreItems, unregisterMetric } from '../../../src/core/metrics/registry';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { REFLECT_EVAL_VERSION } from '../../../src/core/version';
import { buildSignature } from '../../../src/core/evaluators/signature';

/** A small real metric for the loop: length ratio and token overlap, with one configurable field. */
interface OverlapConfig {
  lowercase: boolean;
}
function overlapMetric(calls: MetricInput[][] = []): Metric<OverlapConfig> {
  return {
    name: 'overlapTest',
    card: { title: 'Overlap (test)', description: 'token overlap', citation: '-', inputs: 'candidate, reference' },
    outputs: [
      { name: 'overlap', description: 'shared tokens / candidate tokens', range: [0, 1], higherIsBetter: true },
      { name: 'ratio', description: 'candidate tokens / reference tokens; undefined for an empty reference', range: [0, Infinity], higherIsBetter: false },
    ],
    requiresReference: true,
    defaultConfig: { lowercase: true },
    configure(partial = {}) {
      const c = { lowercase: true, ...partial };
      if (typeof c.lowercase !== 'boolean') throw new MetricConfigError('overlapTest', 'lowercase', 'must be a boolean');
      return c;
    },
    signature: (c) => buildSignature([['case', c.lowercase ? 'lc' : 'mixed']]),
    async score(inputs, c): Promise<MetricValues[]> {
      calls.push([...inputs]);
      return inputs.map(({ candidate, reference = '' }) => {
        const norm = (s: string) => (c.lowercase ? s.toLowerCase() : s).split(/\s+/).filter(Boolean);
        const cand = norm(candidate);
        const ref = new Set(norm(reference));
        return { overlap: cand.length ? cand.filter((t) => ref.has(t)).length / cand.length : 0, ratio: ref.size ? cand.length / norm(reference).length : null };
      });
    },
  };
}

function items(): DialogueItem[] {
  return [
    {
      id: 'i1',
      context: [{ speaker: 'client', text: 'I drink too much.' }],
      reference: { text: 'You drink more than you want to' },
      candidates: [
        { id: 'a', text: 'YOU drink', origin: { kind: 'model' }, annotations: [], scores: {} },
        { id: 'b', text: 'Tell me about it', origin: { kind: 'model' }, annotations: [], scores: { 'judge:x': { value: 3, status: 'ok' } } },
      ],
    },
    { id: 'i2', context: [], candidates: [{ id: 'a', text: 'no reference here', origin: { kind: 'model' }, annotations: [], scores: {} }] },
    { id: 'i3', context: [], reference: { text: '' }, candidates: [{ id: 'a', text: 'empty reference', origin: { kind: 'model' }, annotations: [], scores: {} }] },
  ];
}

describe('metric registry', () => {
  afterEach(() => unregisterMetric('overlapTest'));

  it('registers, finds and lists metrics; refuses a second metric under a taken name and bad names', () => {
    const m = overlapMetric();
    registerMetric(m);
    assert.equal(getMetric('overlapTest'), m);
    assert.ok(listMetrics().includes(m));
    assert.throws(() => registerMetric(overlapMetric()), /already registered/);
    registerMetric(overlapMetric(), { replace: true });
    assert.notEqual(getMetric('overlapTest'), m);
    assert.throws(() => getMetric('nope'), /unknown metric "nope"; registered: .*overlapTest/);
    assert.throws(() => registerMetric({ ...overlapMetric(), name: 'a.b' }), /metric name/);
  });
});

describe('scoreItems', () => {
  it('stores one score per output under metric:<name>.<output>@<signature>, an error without a reference, and leaves the input untouched', async () => {
    const input = items();
    const before = JSON.stringify(input);
    const res = await scoreItems(input, overlapMetric(), { lowercase: true });
    assert.equal(JSON.stringify(input), before);
    const sig = buildSignature([['case', 'lc']]);
    assert.equal(sig, `case:lc|rv:${REFLECT_EVAL_VERSION}`);
    assert.equal(res.signature, sig);
    assert.deepEqual(res.evaluatorIds, [metricEvaluatorId('overlapTest', 'overlap', sig), metricEvaluatorId('overlapTest', 'ratio', sig)]);
    assert.equal(res.evaluatorIds[0], `metric:overlapTest.overlap@${sig}`);
    const [ov, ra] = res.evaluatorIds;
    const a = res.items[0].candidates[0];
    assert.deepEqual(a.scores[ov], { value: 1, status: 'ok', signature: sig });
    assert.deepEqual(a.scores[ra], { value: 2 / 7, status: 'ok', signature: sig });
    // other scores are kept
    assert.deepEqual(res.items[0].candidates[1].scores['judge:x'], { value: 3, status: 'ok' });
    assert.equal(res.items[0].candidates[1].scores[ov].value, 0);
    // no reference: both outputs are errors naming the item
    const noRef = res.items[1].candidates[0].scores;
    assert.equal(noRef[ov].status, 'error');
    assert.equal(noRef[ov].value, null);
    assert.match(noRef[ov].message as string, /item i2 has no reference/);
    // an empty reference is a reference; the metric's null becomes an error on that output only
    const empty = res.items[2].candidates[0].scores;
    assert.equal(empty[ov].status, 'ok');
    assert.equal(empty[ra].status, 'error');
    assert.match(empty[ra].message as string, /overlapTest\.ratio is undefined/);
    assert.deepEqual([res.scored, res.skipped, res.failures, res.cancelled], [3, 0, 2, false]);
  });

  it('never scores the reference against itself: any candidate whose text is the reference is left out, with the reason', async () => {
    const calls: MetricInput[][] = [];
    const input = items();
    const ref = (text: string, kind: 'human' | 'model', scores = {}) => ({ id: `${kind}-${text.length}`, text, origin: { kind, source: 'Human' }, annotations: [], scores });
    const sig = `case:lc|rv:${REFLECT_EVAL_VERSION}`;
    const stale = { [`metric:overlapTest.overlap@${sig}`]: { value: 1, status: 'ok' as const, signature: sig }, [`metric:overlapTest.ratio@${sig}`]: { value: 1, status: 'ok' as const, signature: sig } };
    input[0].candidates.push(
      ref(' You drink more than you want to ', 'human', stale), // the reference (surrounding spaces aside), self-scored by an older version
      ref('You drink more than you want to', 'model'), // a model that wrote the reference's words: left out too (issue 39)
      ref('You drink more than you like', 'human'), // another human response: scored
    );
    const res = await scoreItems(input, overlapMetric(calls));
    const [ov, ra] = res.evaluatorIds;
    const [self, model, other] = res.items[0].candidates.slice(2);
    for (const id of [ov, ra]) {
      for (const c of [self, model]) {
        assert.equal(c.scores[id].status, 'error');
        assert.equal(c.scores[id].value, null);
        assert.equal(c.scores[id].reason, 'is-reference');
      }
      assert.match(self.scores[id].message as string, /candidate human-\d+ is the item's reference: overlapTest does not score the reference against itself/);
    }
    assert.equal(other.scores[ov].status, 'ok');
    // it never reached the metric, and is counted apart from failures
    assert.ok(!calls.flat().some((c) => c.candidate.startsWith(' You drink more')));
    assert.deepEqual([res.references, res.failures, res.scored], [2, 2, 4]);
    // a reference-free metric scores it
    const free = await scoreItems(input, { ...overlapMetric(), name: 'overlapFree', requiresReference: false });
    assert.equal(free.items[0].candidates[2].scores[free.evaluatorIds[0]].status, 'ok');
    assert.equal(free.references, 0);
  });

  it('fills defaults, validates the configuration and uses it in the signature', async () => {
    const res = await scoreItems(items(), overlapMetric(), { lowercase: false });
    assert.match(res.evaluatorIds[0], /@case:mixed\|rv:/);
    assert.equal(res.items[0].candidates[0].scores[res.evaluatorIds[0]].value, 0.5);
    assert.deepEqual(res.config, { lowercase: false });
    await assert.rejects(scoreItems(items(), overlapMetric(), { lowercase: 'yes' }), /metric overlapTest: lowercase: must be a boolean/);
  });

  it('batches, reports progress, skips candidates already scored ok and re-scores them with force', async () => {
    const many: DialogueItem[] = Array.from({ length: 10 }, (_, i) => ({
      id: `i${i}`,
      context: [],
      reference: { text: `ref ${i}` },
      candidates: [0, 1, 2].map((k) => ({ id: `c${k}`, text: `cand ${i} ${k}`, origin: { kind: 'model' as const }, annotations: [], scores: {} })),
    }));
    const calls: MetricInput[][] = [];
    const progress: number[] = [];
    const first = await scoreItems(many, overlapMetric(calls), {}, { batchSize: 7, onProgress: (d, t) => (assert.equal(t, 30), progress.push(d)) });
    assert.deepEqual(calls.map((c) => c.length), [7, 7, 7, 7, 2]);
    assert.deepEqual(progress, [0, 7, 14, 21, 28, 30]);
    assert.equal(calls[0][0].reference, 'ref 0');
    calls.length = 0;
    const again = await scoreItems(first.items, overlapMetric(calls), {});
    assert.equal(calls.length, 0);
    assert.deepEqual([again.scored, again.skipped], [0, 30]);
    const forced = await scoreItems(first.items, overlapMetric(calls), {}, { force: true });
    assert.deepEqual([forced.scored, forced.skipped], [30, 0]);
  });

  it('keeps finished batches when cancelled and resumes from there', async () => {
    const many: DialogueItem[] = Array.from({ length: 5 }, (_, i) => ({
      id: `i${i}`,
      context: [],
      reference: { text: 'r' },
      candidates: [{ id: 'c', text: 'not r', origin: { kind: 'model' as const }, annotations: [], scores: {} }],
    }));
    const abort = new AbortController();
    const res = await scoreItems(many, overlapMetric(), {}, { batchSize: 2, signal: abort.signal, onProgress: (d) => d >= 2 && abort.abort() });
    assert.equal(res.cancelled, true);
    assert.equal(res.scored, 2);
    const id = res.evaluatorIds[0];
    assert.deepEqual(res.items.map((it) => it.candidates[0].scores[id]?.status ?? null), ['ok', 'ok', null, null, null]);
    const resumed = await scoreItems(res.items, overlapMetric(), {});
    assert.deepEqual([resumed.scored, resumed.skipped, resumed.cancelled], [3, 2, false]);
  });

  it('propagates a failing metric and refuses a wrong number of results', async () => {
    const broken = { ...overlapMetric(), score: async () => { throw new Error('model missing'); } };
    await assert.rejects(scoreItems(items(), broken), /model missing/);
    const short = { ...overlapMetric(), score: async () => [] };
    await assert.rejects(scoreItems(items(), short), /returned 0 results for 3 inputs/);
  });
});
