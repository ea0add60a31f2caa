import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { guessDatasetMapping, guessMapping, importDataset, readDataset, validateMapping } from '../../../src/core/datasets';
import { columnChoices, guessedLabelsSummary, mappingFromAnswers, previewDocument, sampleValues } from '../../../src/core/datasets/importWizard';

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

  it('takes the guess of a USR-shaped JSON as the CLI does: nested records, text context, reference source, rating lists, rubric', () => {
    const json = readFileSync(join(fixtures, 'nested-ratings.json'), 'utf8');
    const g = guessDatasetMapping(json, 'nested-ratings.json');
    assert.deepEqual(g.data.columns.slice(0, 5), ['response', 'model', 'Understandable', 'Natural', 'Overall']);
    assert.equal(guessedLabelsSummary(g.mapping), '3 rating dimension(s): Understandable (binary), Natural (1–3), Overall (1–5); a list of ratings per column, annotators named by "annotators"');
    // the answers of someone accepting every guessed default
    const m = mappingFromAnswers({ format: g.data.format, context: g.mapping.context, responseText: 'response', source: 'model', reference: { kind: 'source', source: 'Original Ground Truth' }, labels: { kind: 'guessed' } }, g.mapping);
    assert.deepEqual(m, g.mapping);
    const result = importDataset(json, m, { file: 'nested-ratings.json' });
    assert.deepEqual(result.items, g.result?.items);
    const doc = previewDocument(result, 'nested-ratings.json', 1);
    assert.match(doc, /\nSpeakers \(as written\): A \(5 turns\), B \(3 turns\)\.\nRubric \(written beside the dialogue file as <name>\.rubric\.json\): Understandable \(binary\), Natural \(ordinal\), Overall \(ordinal\); primary Overall; responses by B\.\n/);
    assert.match(doc, /\n {4}\[r1: Understandable yes, Natural 3, Overall 5; r2: Understandable yes, Natural 3, Overall 4; r3: /);
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
