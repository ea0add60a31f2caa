import assert from 'node:assert/strict';
import { itemDescription, itemTitle, itemTitleList, itemTitles, lastClientWords } from '../../../src/core/dialogue/itemTitle';
import type { DialogueItem } from '../../../src/core/dialogue/types';

const item = (over: Partial<DialogueItem>): DialogueItem => ({ id: 'x', context: [], candidates: [], ...over });

describe('itemTitle', () => {
  it('tells apart items of one transcript without utterance ids by turn index and the last client words', () => {
    const a = item({
      id: 'a',
      provenance: { dataset: 'AnnoMI', transcriptId: '0', topic: 'reducing alcohol consumption' },
      context: [
        { speaker: 'therapist', text: 'How are you?' },
        { speaker: 'client', text: 'Maybe having less wine in the house would help me.' },
      ],
    });
    const b = item({
      id: 'b',
      provenance: { dataset: 'AnnoMI', transcriptId: '0', topic: 'reducing alcohol consumption' },
      context: [{ speaker: 'client', text: 'I drink too much.' }, { speaker: 'therapist', text: 'Tell me more.' }, { speaker: 'client', text: 'Every night, two bottles.' }, { speaker: 'therapist', text: 'Hm.' }],
    });
    assert.equal(itemTitle(a), 't0 · turn 2 · “Maybe having less wine in the…”');
    assert.equal(itemTitle(b), 't0 · turn 4 · “Every night, two bottles.”');
    assert.notEqual(itemTitle(a), itemTitle(b));
  });

  it('uses the utterance id when there is one, and the item id without a transcript', () => {
    assert.equal(itemTitle(item({ provenance: { dataset: 'AnnoMI', transcriptId: '4', utteranceId: '32' }, context: [{ speaker: 'client', text: 'ok' }] })), 't4/u32 · “ok”');
    assert.equal(itemTitle(item({ id: 'item-7', context: [] })), 'item-7');
    assert.equal(itemTitle(item({ id: 'item-7', context: [{ speaker: 'therapist', text: 'So   you   feel  stuck.' }] })), 'item-7 · “So you feel stuck.”');
  });

  it('quotes the last client turn, not a later therapist turn', () => {
    assert.equal(lastClientWords(item({ context: [{ speaker: 'client', text: 'one two three four five six seven' }, { speaker: 'therapist', text: 'mm' }] })), 'one two three four five six…');
  });

  it('tells apart items with the same context by the provenance field that differs, else by id', () => {
    const ctx = [{ speaker: 'client' as const, text: 'Maybe less wine.' }];
    const items = [
      item({ id: 'a2', context: ctx, provenance: { dataset: 'AnnoMI', transcriptId: '0', stage: 'GPT-2 stage', sourceFile: 's.csv' } }),
      item({ id: 'a3', context: ctx, provenance: { dataset: 'AnnoMI', transcriptId: '0', stage: 'GPT-3 stage', sourceFile: 's.csv' } }),
      item({ id: 'b', context: [{ speaker: 'client', text: 'Other.' }], provenance: { dataset: 'AnnoMI', transcriptId: '1' } }),
      item({ id: 'x1', context: ctx }),
      item({ id: 'x2', context: ctx }),
    ];
    assert.deepEqual(itemTitles(items), [
      't0 · turn 1 · GPT-2 stage · “Maybe less wine.”',
      't0 · turn 1 · GPT-3 stage · “Maybe less wine.”',
      't1 · turn 1 · “Other.”',
      'x1 · “Maybe less wine.”',
      'x2 · “Maybe less wine.”',
    ]);
    assert.deepEqual(itemTitleList(items)[1], { where: 't0 · turn 1 · GPT-3 stage', words: 'Maybe less wine.' });
  });

  it('describes an item by id, dataset and topic', () => {
    assert.equal(itemDescription(item({ id: 'i', provenance: { dataset: 'AnnoMI', topic: 'weight loss' } })), 'i · AnnoMI · weight loss');
  });
});
