/**
 * The names of the files ReflectEval keeps beside a dialogue file: one rule for every job and both programs.
 */
import assert from 'node:assert/strict';
import { siblingFile } from '../../../src/core/dialogue/siblingFile';

describe('files beside a dialogue file', () => {
  it('replace .dialogues.jsonl or .jsonl, in any case, and keep the folder', () => {
    assert.equal(siblingFile('/w/study.dialogues.jsonl', '.judge-manifest.json'), '/w/study.judge-manifest.json');
    assert.equal(siblingFile('/w/study.jsonl', '.label-plan.json'), '/w/study.label-plan.json');
    assert.equal(siblingFile('C:\\w\\Study.Dialogues.JSONL', '.report.md'), 'C:\\w\\Study.report.md');
    assert.equal(siblingFile('study.dialogues.jsonl', '.annotations.csv'), 'study.annotations.csv');
  });

  it('keep a name without either ending whole, and touch only the end', () => {
    assert.equal(siblingFile('/w/notes.txt', '.prompt-search.json'), '/w/notes.txt.prompt-search.json');
    assert.equal(siblingFile('/w.jsonl/a.dialogues.jsonl', '.label-plan.json'), '/w.jsonl/a.label-plan.json');
  });
});
