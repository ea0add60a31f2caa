import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AnnoMIFormatError, importAnnoMI, parseAnnoMI, selectDialogues, therapistLabelDistribution } from '../../../src/core/datasets/annomi';

const csvPath = resolve(__dirname, '../../../data/annomi/AnnoMI-sample.csv');
const dialogues = parseAnnoMI(readFileSync(csvPath, 'utf8'), 'AnnoMI-sample.csv');

describe('AnnoMI import', () => {
  it('reads dialogues in utterance order with speakers and behaviour labels', () => {
    assert.ok(dialogues.length >= 16);
    for (const d of dialogues) {
      d.utterances.forEach((u, i) => i > 0 && assert.ok(u.utteranceId > d.utterances[i - 1].utteranceId));
    }
    const labels = new Set(dialogues.flatMap((d) => d.utterances.filter((u) => u.speaker === 'therapist').map((u) => u.behaviour)));
    for (const l of ['reflection', 'question', 'therapist_input', 'other']) assert.ok(labels.has(l), l);
  });

  it('makes every reflection of high-quality dialogues an item whose context is all preceding turns', () => {
    const items = importAnnoMI(dialogues);
    const high = dialogues.filter((d) => d.miQuality === 'high');
    const expected = high.reduce((n, d) => n + d.utterances.filter((u, i) => i > 0 && u.speaker === 'therapist' && u.behaviour === 'reflection').length, 0);
    assert.equal(items.length, expected);
    const it0 = items[0];
    const d = high.find((x) => x.transcriptId === it0.provenance?.transcriptId)!;
    const idx = d.utterances.findIndex((u) => String(u.utteranceId) === it0.provenance?.utteranceId);
    assert.equal(it0.context.length, idx);
    assert.deepEqual(it0.context.map((t) => t.text), d.utterances.slice(0, idx).map((u) => u.text));
    assert.equal(it0.reference?.text, d.utterances[idx].text);
    assert.deepEqual(it0.candidates.map((c) => [c.id, c.origin.kind]), [['ref', 'human']]);
  });

  it('filters by behaviour, quality and topic', () => {
    const q = importAnnoMI(dialogues, { behaviour: 'question', quality: 'low' });
    assert.ok(q.length > 0);
    assert.ok(q.every((i) => i.reference?.behaviour === 'question' && i.provenance?.miQuality === 'low'));
    const topic = dialogues.find((d) => d.miQuality === 'high')!.topic;
    const byTopic = selectDialogues(dialogues, { topic: topic.slice(0, 6).toUpperCase() });
    assert.ok(byTopic.length > 0 && byTopic.every((d) => d.topic.toLowerCase().includes(topic.slice(0, 6).toLowerCase())));
  });

  it('samples with a seed, at most one item per dialogue unless asked otherwise', () => {
    const a = importAnnoMI(dialogues, { sample: 5, seed: 3 });
    assert.deepEqual(importAnnoMI(dialogues, { sample: 5, seed: 3 }), a);
    assert.equal(new Set(a.map((i) => i.provenance?.transcriptId)).size, 5);
    const many = importAnnoMI(dialogues, { sample: 40, seed: 3, onePerDialogue: false });
    assert.equal(many.length, 40);
    assert.ok(new Set(many.map((i) => i.provenance?.transcriptId)).size < 40);
    assert.throws(() => importAnnoMI(dialogues, { sample: 500 }), /only \d+ selected dialogues have a reflection/);
    assert.throws(() => importAnnoMI(dialogues, { sample: 0 }), /positive integer/);
  });

  it('gives the therapist-label distribution', () => {
    const dist = therapistLabelDistribution(selectDialogues(dialogues));
    const total = Object.values(dist.counts).reduce((s, n) => s + n, 0);
    assert.equal(total, dist.therapistUtterances);
    assert.ok(Math.abs(Object.values(dist.proportions).reduce((s, p) => s + p, 0) - 1) < 1e-12);
  });

  it('reports bad rows with file, line and column', () => {
    const header = 'transcript_id,mi_quality,topic,utterance_id,interlocutor,utterance_text,main_therapist_behaviour\n';
    assert.throws(
      () => parseAnnoMI(header + '0,high,t,0,client,hi,n/a\n0,high,t,1,counsellor,hello,question\n', 'x.csv'),
      (e: unknown) => e instanceof AnnoMIFormatError && e.line === 3 && e.column === 'interlocutor' && /x\.csv:3 \(column "interlocutor"\)/.test(e.message),
    );
    assert.throws(() => parseAnnoMI(header + '0,high,t,one,client,hi,n/a\n', 'y.csv'), /y\.csv:2 \(column "utterance_id"\)/);
    assert.throws(() => parseAnnoMI('', 'empty.csv'), /empty/);
  });
});
