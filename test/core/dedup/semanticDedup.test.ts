import { strict as assert } from 'node:assert';
import { wardClusters } from '../../../src/core/dedup/agglomerative';
import { clusterCandidates, mergeClusters, representativeOf, sampleClusters, semanticDedupConfig } from '../../../src/core/dedup/semanticDedup';
import type { Candidate, DialogueItem } from '../../../src/core/dialogue/types';
import { loadSentenceEmbedder } from '../../../src/core/models/registry';
import type { SentenceEmbedder } from '../../../src/core/models/sentenceEmbedding';
import { fixtureLocator } from '../../helpers/models';
import { PLAN_CLUSTER_TEXTS } from '../../helpers/reflections';

const TEXTS: string[] = [...PLAN_CLUSTER_TEXTS];

function cand(id: string, text: string, kind: 'model' | 'human' = 'model'): Candidate {
  return { id, text, origin: { kind, model: 'bundled:reflect-gpt2-tiny' }, annotations: [], scores: {} };
}
function item(id: string, texts: string[], extra: Candidate[] = []): DialogueItem {
  return { id, context: [{ speaker: 'client', text: 'I drink a bit.' }], reference: { text: 'You drink a bit.' }, candidates: [...texts.map((t, i) => cand(`${id}-${i}`, t)), ...extra] };
}

describe('semantic deduplication (first study §4.2.1) with the fixture encoder', () => {
  let emb: SentenceEmbedder;
  before(async () => {
    emb = await loadSentenceEmbedder('bundled:reflect-roberta-tiny', fixtureLocator);
  });
  after(() => emb.dispose());

  it('clusters the embeddings with wardClusters, stores id, representative, size, sampled and signature', async () => {
    const human = { ...cand('h', 'You drink a bit.', 'human'), cluster: { id: 'old', representative: true, size: 1 } };
    const res = await clusterCandidates([item('a', TEXTS, [human])], emb, { threshold: 0.5, sample: 9 });
    const cs = res.items[0].candidates;
    const want = wardClusters(await emb.embed(TEXTS), 0.5).labels;
    assert.deepEqual(cs.slice(0, 8).map((c) => c.cluster!.id), want.map((l) => `c${l}`));
    // The paper's three paraphrases form one cluster at this threshold, represented by II (most tokens).
    assert.deepEqual(cs.slice(0, 3).map((c) => c.cluster!.id), ['c0', 'c0', 'c0']);
    assert.deepEqual(cs.slice(0, 3).map((c) => c.cluster!.representative), [false, true, false]);
    assert.equal(cs[0].cluster!.size, 3);
    for (const c of cs.slice(0, 8)) {
      assert.equal(c.cluster!.sampled, true); // fewer clusters than k = 9: all sampled
      assert.match(c.cluster!.signature!, /^emb:bundled:reflect-roberta-tiny\|pool:mean\|norm:l2\|maxlen:128\|link:ward\|metric:euclidean\|t:0\.5\|rep:most-tokens\|k:9\|seed:0\|include:generated\|impl:ml-hclust-4\.0\.0\|rv:/);
    }
    assert.equal(cs[8].cluster, undefined, "a person's candidate is not clustered and loses a stale cluster");
    const reps = cs.filter((c) => c.cluster?.representative).length;
    assert.equal(reps, res.perItem[0].clusters);
    assert.equal(res.perItem[0].candidates, 8);
    assert.equal(res.meanSampledClusterSize, 8 / res.perItem[0].clusters);
  });

  it('threshold 0 keeps every candidate alone; a large threshold makes one cluster', async () => {
    const [zero] = (await clusterCandidates([item('a', TEXTS)], emb, { threshold: 0 })).perItem;
    assert.equal(zero.clusters, TEXTS.length);
    const [big] = (await clusterCandidates([item('a', TEXTS)], emb, { threshold: 100 })).perItem;
    assert.equal(big.clusters, 1);
  });

  it('samples k clusters per item with the seed, independently of the other items', async () => {
    const a = await clusterCandidates([item('x', TEXTS), item('y', TEXTS)], emb, { threshold: 0, sample: 3, seed: 7 });
    const b = await clusterCandidates([item('y', TEXTS)], emb, { threshold: 0, sample: 3, seed: 7 });
    const sampledIds = (it: DialogueItem) => it.candidates.filter((c) => c.cluster!.sampled).map((c) => c.cluster!.id);
    assert.equal(sampledIds(a.items[0]).length, 3);
    assert.deepEqual(sampledIds(a.items[1]), sampledIds(b.items[0]));
    const seeds = new Set<string>();
    for (let s = 0; s < 8; s++) seeds.add(sampledIds((await clusterCandidates([item('y', TEXTS)], emb, { threshold: 0, sample: 3, seed: s })).items[0]).join());
    assert.ok(seeds.size > 1, 'different seeds draw different samples');
  });

  it('clusters every candidate with include: all, and stops between items when cancelled', async () => {
    const withHuman = item('a', TEXTS.slice(0, 3), [cand('h', 'Okay. So, it sounds like you have a good plan.', 'human')]);
    const res = await clusterCandidates([withHuman], emb, { threshold: 0.5, include: 'all' });
    assert.ok(res.items[0].candidates.every((c) => c.cluster));
    const ac = new AbortController();
    const items = [item('a', TEXTS), item('b', TEXTS)];
    const r = await clusterCandidates(items, emb, {}, { signal: ac.signal, onProgress: () => ac.abort() });
    assert.equal(r.cancelled, true);
    assert.ok(r.items[0].candidates[0].cluster);
    assert.equal(r.items[1].candidates[0].cluster, undefined);
    assert.equal(items[0].candidates[0].cluster, undefined, 'inputs are not modified');
  });
});

describe('semantic deduplication rules', () => {
  it('picks the member with the most tokens, the earliest on ties', () => {
    assert.equal(representativeOf([0, 2, 5], [3, 9, 7, 1, 1, 7]), 2);
    assert.equal(representativeOf([1, 3, 4], [0, 4, 0, 6, 6]), 3);
  });

  it('samples min(k, C) distinct clusters', () => {
    assert.deepEqual([...sampleClusters(4, 9, 0, 'i')].sort(), [0, 1, 2, 3]);
    const s = sampleClusters(20, 9, 0, 'i');
    assert.equal(s.size, 9);
    assert.ok([...s].every((x) => x >= 0 && x < 20));
    assert.deepEqual([...sampleClusters(20, 9, 0, 'i')], [...s]);
    assert.equal(sampleClusters(5, 0, 0, 'i').size, 0);
  });

  it('merges clusters into the current item by candidate id, leaving added or edited candidates alone', () => {
    const computed = item('a', ['x', 'y']);
    computed.candidates[0].cluster = { id: 'c0', representative: true, size: 1 };
    computed.candidates[1].cluster = { id: 'c1', representative: true, size: 1 };
    const current = item('a', ['x', 'y edited']);
    current.candidates.push(cand('new', 'z'));
    current.candidates[0].annotations.push({ annotator: 'E1', coherent: true });
    const merged = mergeClusters(current, computed);
    assert.deepEqual(merged.candidates[0].cluster, { id: 'c0', representative: true, size: 1 });
    assert.deepEqual(merged.candidates[0].annotations, [{ annotator: 'E1', coherent: true }]);
    assert.equal(merged.candidates[1].cluster, undefined);
    assert.equal(merged.candidates[2].cluster, undefined);
    assert.equal(mergeClusters(merged, computed), merged, 'unchanged: the same object');
  });

  it('validates the settings, naming the field', () => {
    assert.deepEqual(semanticDedupConfig(), { model: 'sentence-transformers/all-mpnet-base-v2', threshold: 0.7, sample: 9, seed: 0, include: 'generated' });
    assert.throws(() => semanticDedupConfig({ threshold: -1 }), /threshold/);
    assert.throws(() => semanticDedupConfig({ sample: 1.5 }), /sample/);
    assert.throws(() => semanticDedupConfig({ include: 'some' as 'all' }), /include/);
  });
});
