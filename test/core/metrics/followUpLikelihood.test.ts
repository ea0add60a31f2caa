import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { teacherForcing } from '../../../src/core/decoding/teacherForcing';
import {
  computeFollowUpLikelihood,
  createFollowUpLikelihood,
  followUpEncoderText,
  followUpLikelihood,
  followUpLikelihoodFromFile,
  isByteLevelTokenizer,
  releaseFollowUpModels,
  validateFollowUps,
  type FollowUpsData,
} from '../../../src/core/metrics/followUpLikelihood';
import type { GenerativeLM } from '../../../src/core/models/languageModel';
import { loadGenerativeModel } from '../../../src/core/models/registry';
import { fixtureLocator } from '../../helpers/models';

const ROOT = join(__dirname, '..', '..', '..');
const BART = join(ROOT, 'fixtures', 'models', 'reflect-bart-tiny');
const shipped = JSON.parse(readFileSync(join(ROOT, 'data', 'followups', 'fed-followups.json'), 'utf8')) as FollowUpsData;
interface Reference {
  followUpIds: string[];
  cases: { context: { speaker: 'client' | 'therapist'; text: string }[]; response: string; truncationSide: 'left' | 'right'; promptLength: number; values: number[] }[];
}
const refs = (JSON.parse(readFileSync(join(__dirname, 'fixtures', 'followup-reference.json'), 'utf8')) as { models: Record<string, Reference> }).models;
const ref = refs['reflect-bart-tiny'];

describe('follow-up likelihood on the BART fixture vs a float64 PyTorch reference (FULL 0.0.3 input format)', () => {
  let model: GenerativeLM;
  before(async () => {
    model = await loadGenerativeModel(BART, fixtureLocator);
  });
  after(async () => {
    await model.dispose();
    await releaseFollowUpModels();
  });

  for (const [name, r] of Object.entries(refs)) {
    it(`${name}: every follow-up's mean log-likelihood per token within 5e-6 (${r.cases.length} contexts × ${r.followUpIds.length} follow-ups, both truncation sides)`, async () => {
      assert.deepEqual(r.followUpIds, shipped.followUps.map((f) => f.id));
      const m = name === 'reflect-bart-tiny' ? model : await loadGenerativeModel(join(ROOT, 'fixtures', 'models', name), fixtureLocator);
      assert.equal(isByteLevelTokenizer(m.folder), true);
      let max = 0;
      try {
        for (const side of ['left', 'right'] as const) {
          const cases = r.cases.filter((c) => c.truncationSide === side);
          const got = await computeFollowUpLikelihood(m, cases.map((c) => ({ context: c.context, response: c.response })), shipped, { truncationSide: side, addPrefixSpace: true });
          got.forEach((g, i) => {
            shipped.followUps.forEach((f, k) => {
              max = Math.max(max, Math.abs(g.followUps.get(f.id)! - cases[i].values[k]));
            });
          });
        }
      } finally {
        if (m !== model) await m.dispose();
      }
      assert.ok(max < 5e-6, `max |diff| ${max}`);
    });
  }

  it('right truncation (FULL) drops the response of a long history, left truncation keeps it', async () => {
    const long = ref.cases.filter((c) => c.context.length === 60);
    const [left, right] = ['left', 'right'].map((s) => long.find((c) => c.truncationSide === s)!);
    assert.equal(left.promptLength, 512);
    const other = 'Completely different words about the weather today.';
    const run = (side: 'left' | 'right', response: string) =>
      computeFollowUpLikelihood(model, [{ context: left.context, response }], shipped, { truncationSide: side, addPrefixSpace: true });
    const [l1, l2, r1, r2] = await Promise.all([run('left', left.response), run('left', other), run('right', right.response), run('right', other)]);
    assert.notEqual(l1[0].followUps.get('youre-not-understanding-me'), l2[0].followUps.get('youre-not-understanding-me'));
    assert.equal(r1[0].followUps.get('youre-not-understanding-me'), r2[0].followUps.get('youre-not-understanding-me'));
  });

  it("equals the engine's own teacher forcing of <s> f </s> after the FULL-joined input, and groups average their members", async () => {
    const context = [
      { speaker: 'client' as const, text: 'I drink a bit on weekends.' },
      { speaker: 'therapist' as const, text: 'Tell me more.' },
      { speaker: 'client' as const, text: 'It helps me relax.' },
    ];
    const response = 'Drinking helps you unwind.';
    const [s] = await computeFollowUpLikelihood(model, [{ context, response }], shipped, { addPrefixSpace: true });
    const tok = model.tokenizer;
    const prompt = tok.encodeWithSpecialTokens(' \tI drink a bit on weekends.\tTell me more.\tIt helps me relax.\tDrinking helps you unwind.');
    const f = shipped.followUps[3];
    const cont = tok.encodeWithSpecialTokens(` ${f.text}`);
    assert.deepEqual([cont[0], cont[cont.length - 1]], [0, 2]);
    const [tf] = await teacherForcing(model, [{ promptIds: prompt, continuationIds: cont }]);
    assert.equal(s.followUps.get(f.id), tf.sumLogProb / cont.length);
    for (const g of shipped.groups) {
      const mean = g.followUps.reduce((a, id) => a + s.followUps.get(id)!, 0) / g.followUps.length;
      assert.ok(Math.abs(s.groups.get(g.id)! - mean) < 1e-12, g.id);
    }
    for (const v of s.followUps.values()) assert.ok(v < 0);
  });
});

describe('follow-up likelihood building blocks', () => {
  it("joins turns as FULL does: a leading tab, tab-separated, the last `lookback` turns then the response", () => {
    const ctx = ['a', 'b', 'c'].map((text) => ({ text }));
    assert.equal(followUpEncoderText(ctx, 'r'), '\ta\tb\tc\tr');
    assert.equal(followUpEncoderText(ctx, 'r', 2), '\tb\tc\tr');
    assert.equal(followUpEncoderText(ctx, 'r', 0), '\tr');
    assert.equal(followUpEncoderText([], 'r', 50, ' | '), ' | r');
  });

  it('ships FED follow-ups with ICMI 2023 Table 4 and FULL default groups', () => {
    const data = validateFollowUps(shipped, 'fed-followups.json');
    assert.equal(data.followUps.length, 63);
    assert.equal(data.followUps.filter((f) => f.polarity === 'favourable').length, 21);
    const text = new Map(data.followUps.map((f) => [f.id, f.text]));
    for (const t of ["You're not understanding me!", "I don't really care. That's pretty boring.", "That's a lot of questions!", 'That makes no sense!', "You don't really know much.", 'Why are you changing the topic?', "Don't change the topic!", "Let's change the topic."]) {
      assert.ok([...text.values()].includes(t), t);
    }
    const g = new Map(data.groups.map((x) => [x.id, x.followUps]));
    assert.deepEqual(g.get('icmi2023-gpt2-top3'), ['youre-not-understanding-me', 'i-dont-really-care-thats-pretty-boring', 'thats-a-lot-of-questions']);
    assert.deepEqual(g.get('full-default')!.map((id) => text.get(id)), ['Not really relevant here.', "You're really confusing.", "You're really boring.", 'What are you trying to say?', "You don't seem interested."]);
  });

  it('names the file and field of a bad follow-ups file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'fu-'));
    const f = join(dir, 'mine.json');
    writeFileSync(f, JSON.stringify({ followUps: [{ id: 'a', text: 'Hm?', polarity: 'bad' }], groups: [] }));
    assert.throws(() => followUpLikelihoodFromFile(f), /mine\.json: followUps\[0\]\.polarity: expected "favourable" or "unfavourable"/);
    writeFileSync(f, JSON.stringify({ followUps: [{ id: 'a', text: 'Hm?', polarity: 'unfavourable' }], groups: [{ id: 'g', followUps: ['b'] }] }));
    assert.throws(() => followUpLikelihoodFromFile(f), /groups\[0\]\.followUps\[0\]: no follow-up has id "b"/);
    writeFileSync(f, JSON.stringify({ followUps: [{ id: 'A b', text: 'Hm?', polarity: 'unfavourable' }] }));
    assert.throws(() => followUpLikelihoodFromFile(f), /followUps\[0\]\.id/);
    writeFileSync(f, '{');
    assert.throws(() => followUpLikelihoodFromFile(f), /mine\.json: not a JSON file/);
  });
});

describe('followUpLikelihood metric (registry contract)', () => {
  after(() => releaseFollowUpModels());

  it('has one output per group (primary first: FULL default) and per follow-up, with polarity as higherIsBetter', () => {
    const names = followUpLikelihood.outputs.map((o) => o.name);
    assert.equal(names[0], 'group-full-default');
    assert.equal(names.length, shipped.groups.length + shipped.followUps.length);
    const o = new Map(followUpLikelihood.outputs.map((x) => [x.name, x]));
    assert.equal(o.get('thats-a-lot-of-questions')!.higherIsBetter, true);
    assert.equal(o.get('youre-not-understanding-me')!.higherIsBetter, false);
    assert.equal(o.get('group-all-favourable')!.higherIsBetter, true);
    assert.equal(o.get('group-icmi2023-gpt2-top3')!.higherIsBetter, false);
    assert.equal(followUpLikelihood.requiresReference, false);
  });

  it('signs the model, the follow-ups data and the input format', () => {
    const c = followUpLikelihood.configure();
    assert.match(followUpLikelihood.signature(c), /^impl:full-0\.0\.3\|model:facebook\/blenderbot-400M-distill\|followups:fed-followups\.json-[0-9a-f]{8}\|join:\\t\|lookback:50\|trunc:left\|prefix:auto\|ll:mean-token-ln\|rv:/);
    const edited = createFollowUpLikelihood({ ...shipped, followUps: shipped.followUps.map((f, i) => (i === 0 ? { ...f, text: 'Wow.' } : f)) }, 'fed-followups.json');
    assert.notEqual(edited.signature(c), followUpLikelihood.signature(c));
    assert.throws(() => followUpLikelihood.configure({ truncationSide: 'middle' as 'left' }), /truncationSide/);
    assert.throws(() => followUpLikelihood.configure({ lookback: -1 }), /lookback/);
  });

  it('scores inputs through the registry interface: context + candidate, no reference needed', async () => {
    const small = createFollowUpLikelihood({ followUps: shipped.followUps.slice(0, 3), groups: [{ id: 'two', followUps: [shipped.followUps[0].id, shipped.followUps[1].id] }] }, 'small.json');
    const c = small.configure({ model: BART });
    const [v] = await small.score([{ candidate: 'You want to cut down.', context: [{ speaker: 'client', text: 'I drink too much.' }] }], c);
    assert.deepEqual(Object.keys(v), ['group-two', ...shipped.followUps.slice(0, 3).map((f) => f.id)]);
    assert.ok(Math.abs(v['group-two']! - (v[shipped.followUps[0].id]! + v[shipped.followUps[1].id]!) / 2) < 1e-12);
    await assert.rejects(small.score([{ candidate: 'x' }], small.configure({ model: join(ROOT, 'fixtures', 'models', 'reflect-gpt2-tiny') })), /decoder-only; follow-up likelihood needs an encoder-decoder/);
  });
});

describe('followUpLikelihood in the metric registry', () => {
  it('is registered by the metrics index under its name', async () => {
    const { getMetric } = await import('../../../src/core/metrics/index');
    assert.equal(getMetric('followUpLikelihood').name, 'followUpLikelihood');
    assert.deepEqual(getMetric('followUpLikelihood').outputs, followUpLikelihood.outputs);
  });
});
