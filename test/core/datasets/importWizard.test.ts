import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { guessMapping, importDataset, readDataset, validateMapping } from '../../../src/core/datasets';
import { columnChoices, mappingFromAnswers, previewDocument, sampleValues, unknownSpeakers } from '../../../src/core/datasets/importWizard';

const fixtures = join(__dirname, 'fixtures');
const root = resolve(__dirname, '../../..');
const text = readFileSync(join(fixtures, 'turns-wide.csv'), 'utf8');
const data = readDataset(text, 'csv', 'turns-wide.csv');

describe('import wizard (the VS Code command\'s decisions, without VS Code)', () => {
  it('offers the guessed column first, each column with sample values, minus the columns already used', () => {
    const choices = columnChoices(data, 'role', ['conv_id']);
    assert.deepEqual(choices.map((c) => c.column), ['role', 'turn_no', 'utterance', 'candidate', 'system', 'rater_A', 'rater_B', 'Expert 1', 'notes']);
    assert.deepEqual(choices[0], { column: 'role', samples: ['Client', 'Counselor', 'Coach'], guessed: true });
    // a multi-line cell on one line; at most three distinct values
    assert.deepEqual(sampleValues(data, 'utterance', 5).slice(3, 4), ["Maybe she's right. I don't know."]);
    assert.deepEqual(sampleValues(data, 'rater_A'), ['yes', 'no', '1']);
  });

  it('asks only about the speakers the importer does not know, from turn rows', () => {
    assert.deepEqual(unknownSpeakers(data, 'role', 'candidate'), ['Coach']);
  });

  it('builds a valid mapping from the answers that imports the fixture as the hand-written mapping does', () => {
    const guessed = guessMapping(data.columns);
    const m = mappingFromAnswers(
      {
        format: 'csv',
        dataset: 'coaching pilot',
        context: guessed.context,
        speakers: { therapist: ['Coach'] },
        responseText: 'candidate',
        source: 'system',
        reference: { kind: 'human' },
        labels: { kind: 'wide', columns: ['rater_A', 'rater_B', 'Expert 1'] },
      },
      guessed,
    );
    validateMapping(m);
    const byWizard = importDataset(text, m, { file: 'turns-wide.csv' });
    const byHand = importDataset(text, JSON.parse(readFileSync(join(fixtures, 'turns-wide.mapping.json'), 'utf8')), { file: 'turns-wide.csv' });
    // the hand-written mapping names the annotators; the wizard keeps the column names
    const strip = (r: typeof byHand) => r.items.map((i) => ({ ...i, candidates: i.candidates.map((c) => ({ ...c, annotations: c.annotations.map((a) => a.coherent) })) }));
    assert.deepEqual(strip(byWizard), strip(byHand));
    assert.deepEqual(byWizard.annotators.map((a) => a.id), ['Expert 1', 'rater_A', 'rater_B']);
  });

  it('keeps the guessed error columns of long labels, and previews items with the mapping to reuse', () => {
    const csv = readFileSync(join(root, 'data', 'evalreflections', 'annotations-gpt2-stage.csv'), 'utf8');
    const er = readDataset(csv, 'csv', 'annotations-gpt2-stage.csv');
    const guessed = guessMapping(er.columns);
    const m = mappingFromAnswers({ format: 'csv', context: guessed.context, responseText: 'reflection', source: 'reflection_source', reference: { kind: 'human' }, labels: { kind: 'long', annotator: 'annotator', coherent: 'coherent_and_context_consistent' } }, guessed);
    assert.equal(m.labels?.layout === 'long' && Object.keys(m.labels.errors ?? {}).length, 5);
    const result = importDataset(csv, m, { file: 'annotations-gpt2-stage.csv' });
    const doc = previewDocument(result, 'annotations-gpt2-stage.csv', 2);
    assert.match(doc, /^Preview of annotations-gpt2-stage\.csv: 900 records → 15 contexts, 150 responses \(150 labelled\), 18 annotators \(9 experts\), 15 references\.\n/);
    assert.match(doc, /First 2 of 15 items:/);
    assert.match(doc, /reflect-eval import generic annotations-gpt2-stage\.csv --mapping mapping\.json/);
    assert.deepEqual(validateMapping(JSON.parse(doc.slice(doc.lastIndexOf('\n{') + 1))), m);
  });
});
