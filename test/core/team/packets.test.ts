import assert from 'node:assert/strict';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { MI_RUBRIC } from '../../../src/core/rubric/presets';
import { collectPackets } from '../../../src/core/team/collect';
import { assignPackets, overlapDesign } from '../../../src/core/team/packets';
import { teamProgress } from '../../../src/core/team/progress';

const items: DialogueItem[] = [1, 2, 3].map((i) => ({
  id: `annomi-${i}`,
  context: [{ speaker: 'client', text: `I drink too much, ${i}.` }],
  reference: { text: `Secret reference ${i}` },
  provenance: { dataset: 'AnnoMI', stage: 'GPT-2 stage', transcriptId: `t${i}` },
  candidates: ['gpt2', 'bart'].map((m) => ({
    id: `${m}-${i}`,
    text: `${m} says ${i}`,
    origin: { kind: 'model' as const, model: `bundled:${m}` },
    annotations: [
      { annotator: 'E1', coherent: true, empathy: 3 as const, group: 'expert', note: 'kept in the study' },
      { annotator: 'Lay-1', coherent: false, errors: ['malformed' as const] },
    ],
    scores: { 'metric:bleu4.score@x': { value: 0.1, status: 'ok' as const } },
  })),
}));

describe('team packets (core)', () => {
  it('a blind packet holds the context and the text, its annotator\'s own labels only, and no reference, provenance, origin or score', () => {
    const [e1] = assignPackets(items, MI_RUBRIC, 'study.dialogues.jsonl', { annotators: ['E1', 'E2'] });
    const text = JSON.stringify(e1.items);
    for (const bad of ['Secret reference', 'GPT-2 stage', 'bundled:', 'bleu4', 'Lay-1', 'annomi-', 'gpt2-', 'expert', 'kept in the study']) assert.ok(!text.includes(bad), bad);
    assert.deepEqual(e1.items[0].candidates[0].annotations, [{ annotator: 'E1', coherent: true, empathy: 3 }]);
    assert.equal(e1.manifest.blind, true);
  });

  it('a packet that is not blind keeps origins and scores but still not the other annotators\' labels', () => {
    const [e1] = assignPackets(items, MI_RUBRIC, 'study.dialogues.jsonl', { annotators: ['E1'], blind: false, order: 'file' });
    assert.deepEqual(e1.items.map((it) => it.id), ['annomi-1', 'annomi-2', 'annomi-3']);
    assert.equal(e1.items[0].candidates[0].origin.model, 'bundled:gpt2');
    assert.ok(e1.items.every((it) => it.candidates.every((c) => c.annotations.every((a) => a.annotator === 'E1'))));
  });

  it('orders items by the plan when asked', () => {
    const [p] = assignPackets(items, MI_RUBRIC, 's.jsonl', { annotators: ['E9'], blind: false, order: 'plan', planOrder: ['annomi-3\u0000bart-3', 'annomi-1\u0000gpt2-1', 'annomi-2\u0000bart-2'] });
    assert.deepEqual(p.items.map((it) => it.id), ['annomi-3', 'annomi-1', 'annomi-2']);
    assert.deepEqual(p.items[0].candidates.map((c) => c.id), ['bart-3', 'gpt2-3']);
  });

  it('collect keeps the study annotation\'s other fields and removes labels an annotator cleared in the packet', () => {
    const [e1] = assignPackets(items, MI_RUBRIC, 's.jsonl', { annotators: ['E1'], blind: true });
    const edited = e1.items.map((it, n) => ({ ...it, candidates: it.candidates.map((c, k) => ({ ...c, annotations: n === 0 && k === 0 ? [] : c.annotations.map((a) => ({ ...a, empathy: 5 as const })) })) }));
    const r = collectPackets(items, MI_RUBRIC, 's.jsonl', [{ file: 'p.jsonl', items: edited.map((item, i) => ({ line: i + 1, item })), manifest: e1.manifest, manifestFile: 'p.packet.json' }]);
    assert.deepEqual(r.problems, []);
    const all = r.items.flatMap((it) => it.candidates.map((c) => c.annotations.find((a) => a.annotator === 'E1')));
    const cleared = all.filter((a) => a?.coherent === undefined);
    assert.equal(cleared.length, 1);
    assert.deepEqual(cleared[0], { annotator: 'E1', group: 'expert', note: 'kept in the study' });
    assert.ok(all.filter((a) => a?.coherent).every((a) => a!.empathy === 5 && a!.note === 'kept in the study'));
    assert.equal(r.changes.length, 6);
  });

  it('refuses a labels-per-candidate outside 1…n and a repeated annotator', () => {
    assert.throws(() => overlapDesign(['a'], 3, 4, 0), /from 1 to 3/);
    assert.throws(() => assignPackets(items, MI_RUBRIC, 's', { annotators: ['A', 'A'] }), /named twice/);
  });

  it('progress counts per annotator and dimension and the agreement so far', () => {
    const p = teamProgress(items, MI_RUBRIC);
    assert.deepEqual(p.annotators.map((a) => [a.annotator, a.assigned, a.labelled]), [['E1', 6, 6], ['Lay-1', 6, 6]]);
    const coherent = p.agreement.find((g) => g.dimension === 'coherent')!;
    // Two annotators who always disagree on a binary label: α = 1 − D_o/D_e with every pair discordant.
    assert.equal(coherent.overlap, 6);
    assert.ok(coherent.alpha !== null && coherent.alpha < 0);
    assert.equal(p.agreement.find((g) => g.dimension === 'empathy')!.undefinedReason, 'no candidate labelled by two annotators yet');
  });
});
