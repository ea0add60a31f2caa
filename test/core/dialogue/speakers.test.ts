import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { documentItems, parseDocument } from '../../../src/core/format/jsonl';
import { speakerDisplayName } from '../../../src/core/dialogue/speakers';
import { assemblePrompt, loadPromptLibrary } from '../../../src/core/templates/judgePrompt';

describe('speakers as the dataset names them', () => {
  it('a file with speakers other than therapist/client is read, not a problem line, and keeps their names', () => {
    const line = JSON.stringify({ id: 'd1', context: [{ speaker: 'User', text: 'I lost my keys again.' }, { speaker: 'System', text: 'Oh no!' }, { speaker: 'User', text: 'Third time this week.' }], candidates: [] });
    const doc = parseDocument(`${line}\n`, 'chat.jsonl');
    assert.deepEqual(doc.problems, []);
    assert.deepEqual(documentItems(doc)[0].context.map((t) => t.speaker), ['User', 'System', 'User']);
  });

  it('shows the MI roles by their display names and every other speaker as written, in prompts too', () => {
    assert.equal(speakerDisplayName('therapist'), 'Therapist');
    assert.equal(speakerDisplayName('client'), 'Client');
    assert.equal(speakerDisplayName('User'), 'User');
    assert.equal(speakerDisplayName('therapist', { therapist: 'Counsellor' }), 'Counsellor');
    const p = assemblePrompt(loadPromptLibrary(resolve(__dirname, '../../../prompts')), { body: 'instructions', request: 'rating' }, [{ speaker: 'User', text: 'Hi.' }, { speaker: 'client', text: 'Hello.' }], 'Hey.');
    assert.match(p.text, /\nUser: Hi\.\nClient: Hello\.\n/);
  });

  it('an empty speaker is still a problem, named by line and field', () => {
    const doc = parseDocument(`${JSON.stringify({ id: 'd1', context: [{ speaker: '', text: 'x' }], candidates: [] })}\n`, 'chat.jsonl');
    assert.deepEqual(doc.problems.map((p) => `${p.line} ${p.field}`), ['1 context[0].speaker']);
  });
});
