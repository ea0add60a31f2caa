/**
 * Tiling an encoder-decoder's prompt pass into pooled buffers (seq2seqLM.ts, `tilePool`): a released session's
 * cross-attention cache and encoder states serve the next tiling, and never while a session or the kept prompt pass
 * still reads them.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type * as ort from 'onnxruntime-common';
import type { DecodingSession, GenerativeLM } from '../../../src/core/models/languageModel';
import { loadGenerativeModel } from '../../../src/core/models/registry';
import { fixtureLocator } from '../../helpers/models';

const dir = join(resolve(__dirname, '../../../fixtures/models'), 'layouts', 'bart-split');
const enc = (JSON.parse(readFileSync(join(dir, 'parity.json'), 'utf8')) as { cases: { promptIds: number[] }[] }).cases.map((c) => c.promptIds);
const [P, Q] = [enc[1], enc[0]];
const R = enc[0].slice(0, Math.max(2, enc[0].length - 3));

/** The buffer under the session's first cross-attention cache tensor (white box: the tiling's destination). */
const crossBuffer = (s: DecodingSession) => ((s as unknown as { crossPast: Map<string, ort.Tensor> }).crossPast.values().next().value!.data as Float32Array).buffer;

/** Steps `session` through `tokens` (one per row each step) and returns the logits of every step. */
async function steps(session: DecodingSession, tokens: number[]): Promise<Float32Array[]> {
  const out: Float32Array[] = [];
  for (const t of tokens) out.push(Float32Array.from(await session.step(new Array(session.rows).fill(t))));
  return out;
}

describe('encoder-decoder tiling into pooled buffers (bart-split fixture)', () => {
  let model: GenerativeLM;
  let reference: GenerativeLM;
  const TOKENS = [5, 9, 14];
  /** What a fresh model computes for `prompt` tiled `expand` times (no pass reused, nothing pooled). */
  const expected = async (prompt: number[], expand: number) => {
    const { session, logits } = await reference.startDecoding([prompt], { expand, reusePromptPass: false });
    return [Float32Array.from(logits), ...(await steps(session, TOKENS))];
  };
  before(async () => {
    // A copy of the cross-attention cache per row, as for graphs that cannot share one (sharedCrossAttention.test.ts).
    [model, reference] = [await loadGenerativeModel(dir, fixtureLocator, { sharedPrefix: false }), await loadGenerativeModel(dir, fixtureLocator, { sharedPrefix: false })];
  });
  after(async () => {
    await model.dispose();
    await reference.dispose();
  });

  it('a released session\'s buffers serve the next prompt\'s tiling, with the same logits as a fresh model', async () => {
    const a = await model.startDecoding([P], { expand: 3 });
    assert.deepEqual([Float32Array.from(a.logits), ...(await steps(a.session, TOKENS))], await expected(P, 3));
    const used = crossBuffer(a.session);
    a.session.release!();
    // A shorter prompt takes the larger buffer (a view of its first floats).
    for (const prompt of [Q, R]) {
      const b = await model.startDecoding([prompt], { expand: 3 });
      assert.equal(crossBuffer(b.session), used, 'the buffer handed back is reused');
      assert.deepEqual([Float32Array.from(b.logits), ...(await steps(b.session, TOKENS))], await expected(prompt, 3));
      b.session.release!();
    }
  });

  it('never hands out buffers a live session or the kept prompt pass reads', async () => {
    // A (P) is released, but its tiling is kept for the next setting of P: B starts from the same tensors.
    const a = await model.startDecoding([P], { expand: 3 });
    await steps(a.session, TOKENS.slice(0, 1));
    const kept = crossBuffer(a.session);
    a.session.release!();
    const b = await model.startDecoding([P], { expand: 3 });
    assert.equal(crossBuffer(b.session), kept);
    const bFirst = await steps(b.session, TOKENS.slice(0, 1));
    // C (another prompt, while B runs) and D (two prompts at once) tile into buffers of their own.
    const c = await model.startDecoding([Q], { expand: 3 });
    const d = await model.startDecoding([Q, R], { expand: 2 });
    assert.notEqual(crossBuffer(c.session), crossBuffer(b.session));
    assert.notEqual(crossBuffer(d.session), crossBuffer(b.session));
    assert.notEqual(crossBuffer(d.session), crossBuffer(c.session));
    const cOut = await steps(c.session, TOKENS);
    const bRest = await steps(b.session, TOKENS.slice(1));
    const want = await expected(P, 3);
    assert.deepEqual([...bFirst, ...bRest], want.slice(1), 'B reads the tiling A was released from, unchanged');
    assert.deepEqual(cOut, (await expected(Q, 3)).slice(1));
    // Released one by one; each release lets the next tiling take what it freed, and B's results stay right.
    c.session.release!();
    d.session.release!();
    b.session.release!();
    const e = await model.startDecoding([R], { expand: 3 });
    assert.deepEqual([Float32Array.from(e.logits), ...(await steps(e.session, TOKENS))], await expected(R, 3));
    e.session.release!();
  });
});
