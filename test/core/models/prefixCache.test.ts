/**
 * The prefix cache (models/prefixCache.ts): prompts that begin the same way compute only what follows, with the
 * log-probabilities of a pass over the whole prompt, within a memory bound.
 */
import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { teacherForcing } from '../../../src/core/decoding/teacherForcing';
import type { OnnxCausalLM } from '../../../src/core/models/causalLM';
import { PrefixCache } from '../../../src/core/models/prefixCache';
import { loadGenerativeModel } from '../../../src/core/models/registry';

const root = resolve(__dirname, '../../../fixtures/models');
const locator = { bundledDir: root, baseDir: root };

/** A stand-in for onnxruntime's Tensor constructor: the store only keeps what it is given. */
const T = class {
  constructor(
    readonly type: string,
    readonly data: Float32Array,
    readonly dims: number[],
  ) {}
} as never;

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]));
  return worst;
}

describe('prefix cache (reflect-qwen3-tiny: grouped-query attention, 151,936 tokens)', function () {
  this.timeout(300_000);
  let cached: OnnxCausalLM;
  let plain: OnnxCausalLM;
  const text = (i: number, request: string) =>
    `<|im_start|>user\nTask: rate the response.\nDialogue\nClient: I have been drinking a lot lately and my wife is worried.\nTherapist: What worries her most?\nClient: That I drive home after.\nResponse Candidate\nTherapist: Response number ${i}, so you are worried too.\n\n${request}<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n`;
  before(async () => {
    cached = (await loadGenerativeModel('bundled:reflect-qwen3-tiny', locator)) as OnnxCausalLM;
    plain = (await loadGenerativeModel('bundled:reflect-qwen3-tiny', locator, { prefixCacheBytes: 0 })) as OnnxCausalLM;
  });
  after(async () => {
    await cached?.dispose();
    await plain?.dispose();
  });

  it('gives the logits of a pass over the whole prompt (1e-4, logits up to ~40) while computing only what is not cached', async () => {
    assert.ok(cached.prefixCache && !plain.prefixCache);
    const prompts = [0, 1, 2].flatMap((i) => ['Rating (1-5):', 'Score (0-100):'].map((r) => cached.tokenizer.encode(text(i, r))));
    const before = { ...cached.prefixCache!.stats };
    for (const ids of prompts) {
      const a = await cached.promptLogits(ids);
      const b = await plain.promptLogits(ids);
      assert.ok(maxDiff(a, b) < 1e-4, `max |Δlogit| ${maxDiff(a, b)}`);
    }
    const s = cached.prefixCache!.stats;
    const looked = s.lookedUpTokens - before.lookedUpTokens;
    const hit = s.hitTokens - before.hitTokens;
    // Every prompt after the first shares the task and the dialogue (and the second request of a candidate its response).
    assert.ok(hit > 0.7 * (looked - prompts[0].length), `${hit} of ${looked} tokens served from the cache`);
  });

  it('scores continuations by teacher forcing as without it (1e-5), through sessions started from a cached prefix', async () => {
    const prompt = cached.tokenizer.encode(text(7, 'Rating (1-5):'));
    const requests = ['4', '37', '100'].map((a) => ({ promptIds: prompt, continuationIds: [...cached.tokenizer.encode(a), 151645] }));
    const a = await teacherForcing(cached, requests, { prefixCache: true });
    const b = await teacherForcing(plain, requests);
    a.forEach((r, i) => assert.ok(maxDiff(r.tokenLogProbs, b[i].tokenLogProbs) < 1e-5, `request ${i}`));
  });

  it('stays within its bound, evicting the least recently used leaves and keeping the prefix they share', async () => {
    const m = (await loadGenerativeModel('bundled:reflect-qwen3-tiny', locator, { prefixCacheBytes: 40_000 })) as OnnxCausalLM;
    try {
      const store = m.prefixCache!;
      // Positions of this model: 2 layers × key and value × 2 heads × 8 × 4 bytes = 256 bytes each.
      for (let i = 0; i < 12; i++) {
        await m.promptLogits(m.tokenizer.encode(text(i, 'Rating (1-5):')));
        assert.ok(store.bytes <= store.maxBytes, `${store.bytes} bytes held after prompt ${i}`);
      }
      assert.ok(store.stats.evictions > 0);
      // The shared beginning is still there: a new candidate finds it.
      const ids = m.tokenizer.encode(text(99, 'Rating (1-5):'));
      const hit = store.match(ids);
      assert.ok(hit.length > ids.length / 2, `${hit.length} of ${ids.length} tokens found`);
      const a = await m.promptLogits(ids);
      const b = await plain.promptLogits(ids);
      assert.ok(maxDiff(a, b) < 1e-4);
    } finally {
      await m.dispose();
    }
  });

  it('splits a segment where prompts part, and serves each part to the prompts through it', () => {
    const store = new PrefixCache(T, ['k'], 1, 1, 1e9);
    const kv = (values: number[]) => new Map([['k', { data: Float32Array.from(values), dims: [1, 1, values.length, 1] } as never]]);
    const first = store.insert(store.match([1, 2, 3, 4]), [1, 2, 3, 4], kv([10, 20, 30, 40]));
    assert.equal(first.length, 4);
    const m = store.match([1, 2, 9]);
    assert.equal(m.length, 2);
    assert.deepEqual([...(store.materialize(m).get('k') as unknown as { data: Float32Array }).data], [10, 20]);
    const second = store.insert(m, [9], kv([90]));
    assert.deepEqual([...(store.materialize(second).get('k') as unknown as { data: Float32Array }).data], [10, 20, 90]);
    const again = store.match([1, 2, 3, 4, 5]);
    assert.equal(again.length, 4);
    assert.deepEqual([...(store.materialize(again).get('k') as unknown as { data: Float32Array }).data], [10, 20, 30, 40]);
  });

  it('feeds a prompt its cached beginning as a prefix kept between prompts and its own rest, so each prompt copies only what is its own', () => {
    // Two heads of width 1: a tensor's data is head 0's positions, then head 1's (h1 = 100 + h0).
    const store = new PrefixCache(T, ['k'], 2, 1, 1e9);
    const kv = (values: number[]) => new Map([['k', { data: Float32Array.from([...values, ...values.map((v) => 100 + v)]), dims: [1, 2, values.length, 1] } as never]]);
    const data = (m?: Map<string, unknown>) => (m ? [...(m.get('k') as { data: Float32Array }).data] : []);
    const both = (values: number[]) => [...values, ...values.map((v) => 100 + v)];
    // Shared body [1, 2, 3]; candidate a = [4, 5], b = [6, 7]; requests 8, 9.
    store.insert(store.match([1, 2, 3, 4, 5, 8]), [1, 2, 3, 4, 5, 8], kv([1, 2, 3, 4, 5, 8]));
    // Candidate a's second request: nothing whole is cached before it, so all five positions are its own.
    const a9 = store.match([1, 2, 3, 4, 5, 9]);
    const s1 = store.materializeSplit(a9);
    assert.deepEqual([s1.prefixLength, s1.ownLength, data(s1.own)], [0, 5, both([1, 2, 3, 4, 5])]);
    store.insert(a9, [9], kv([9]));
    // Candidate b's first request: the body is cut out of the first segment where b parts.
    const b8 = store.match([1, 2, 3, 6, 7, 8]);
    store.insert(b8, [6, 7, 8], kv([6, 7, 8]));
    // Candidate b's second request: the body (a whole segment now) is the prefix, b's response its own.
    const b9 = store.match([1, 2, 3, 6, 7, 9]);
    const s2 = store.materializeSplit(b9);
    assert.deepEqual([s2.prefixLength, data(s2.prefix), s2.ownLength, data(s2.own)], [3, both([1, 2, 3]), 2, both([6, 7])]);
    store.insert(b9, [9], kv([9]));
    // Candidate c: the same prefix tensors, not a copy; nothing of its own cached before its first request.
    const copied = store.stats.copiedTokens;
    const c8 = store.match([1, 2, 3, 10, 8]);
    const s3 = store.materializeSplit(c8);
    assert.equal(s3.prefix, s2.prefix);
    assert.deepEqual([s3.prefixLength, s3.ownLength, s3.own], [3, 0, undefined]);
    store.insert(c8, [10, 8], kv([10, 8]));
    const c9 = store.materializeSplit(store.match([1, 2, 3, 10, 9]));
    assert.equal(c9.prefix, s2.prefix);
    assert.deepEqual([c9.ownLength, data(c9.own)], [1, both([10])]);
    assert.equal(store.stats.copiedTokens - copied, 1);
    // A prompt parting inside the kept prefix gets a shorter one.
    const early = store.materializeSplit(store.match([1, 2, 5]));
    assert.deepEqual([early.prefixLength + early.ownLength, data(early.prefix).concat(data(early.own)).sort((x, y) => x - y)], [2, both([1, 2])]);
  });
});
