import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { importAnnotationTable } from '../../../src/core/datasets/annotationImport';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { DatasetImportError, guessMapping, importDataset, MAPPING_PRESETS, MappingError, previewItems, validateMapping, type DatasetMapping } from '../../../src/core/datasets';

const fixtures = join(__dirname, 'fixtures');
const root = resolve(__dirname, '../../..');
const read = (name: string) => readFileSync(join(fixtures, name), 'utf8');
const turnsWide = read('turns-wide.csv');
const turnsMapping = JSON.parse(read('turns-wide.mapping.json')) as DatasetMapping;

function failure<E extends Error>(fn: () => unknown, type: new (...a: never[]) => E): E {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof type, String(err));
    return err;
  }
  assert.fail(`expected a ${type.name}`);
}

describe('generic importer: a CSV laid out unlike AnnoMI (speaker/text rows by dialogue id, wide annotator columns)', () => {
  const r = importDataset(turnsWide, turnsMapping, { file: 'turns-wide.csv' });

  it('builds one item per dialogue and response position, the turns in their order, the rows before the response', () => {
    assert.deepEqual(r.items.map((i) => i.id), ['c1-5', 'c2-3', 'c2']);
    const [c1, c23, c2] = r.items;
    // turn 2 comes first in the file; "Coach" is a therapist by the mapping; a quoted line break is kept
    assert.deepEqual(c1.context.map((t) => [t.speaker, t.text]), [
      ['therapist', 'What brings you here today?'],
      ['client', 'My wife says I drink too much.'],
      ['therapist', 'And what do you think?'],
      ['client', "Maybe she's right.\nI don't know."],
    ]);
    // a response at turn 3 sees turns 1-2; one without an order sees the whole dialogue
    assert.deepEqual(c23.context.map((t) => t.text), ['How was the week?', 'I smoked less.']);
    assert.equal(c2.context.length, 4);
    assert.deepEqual(c1.provenance, { dataset: 'coaching pilot', sourceFile: 'turns-wide.csv', transcriptId: 'c1' });
    assert.deepEqual([r.records, r.turnRows, r.responseRows], [14, 8, 6]);
  });

  it('makes candidates by (source, text), the human response the reference, and one annotation per annotator column', () => {
    const [c1] = r.items;
    assert.deepEqual(c1.candidates.map((c) => [c.id, c.origin.kind, c.origin.source]), [
      ['gpt2-medium-1', 'model', 'gpt2-medium'],
      ['ref', 'human', 'Human'],
      ['bart-1', 'model', 'bart'],
    ]);
    assert.equal(c1.reference?.text, 'Your wife is worried about your drinking.');
    assert.deepEqual(c1.candidates[0].annotations, [
      { annotator: 'Layperson A', group: 'layperson', coherent: true },
      { annotator: 'Layperson B', group: 'layperson', coherent: false },
      { annotator: 'Expert 1', group: 'expert', coherent: true },
    ]);
    // "1"/"0" cells; an empty cell is no label
    assert.deepEqual(r.items[2].candidates[0].annotations.map((a) => [a.annotator, a.coherent]), [['Layperson A', true], ['Expert 1', true]]);
    // the bart response on two rows: one candidate, the repeated identical label kept once with a warning
    assert.equal(c1.candidates[2].annotations.length, 3);
    assert.deepEqual(r.warnings.map((w) => [w.line, w.row, w.message]), [[10, 9, 'repeats line 9 exactly (same response, annotator and labels); kept once']]);
    // the unmapped column is kept on the candidate
    assert.deepEqual(c1.candidates[1].extraColumns, { notes: 'gold' });
    assert.deepEqual(r.keptColumns, [{ name: 'notes', level: 'candidate' }]);
    assert.deepEqual(r.annotators, [{ id: 'Expert 1', group: 'expert' }, { id: 'Layperson A', group: 'layperson' }, { id: 'Layperson B', group: 'layperson' }]);
  });

  it('previews the first items as text', () => {
    const p = previewItems(r.items, 1);
    assert.match(p, /^c1-5 {2}\(4 turns, 3 responses, 3 labelled, reference\)\n {2}T: What brings you here today\?\n/);
    assert.match(p, /→ gpt2-medium-1 \(gpt2-medium\): You're not sure she's right\.\n {4}\[coherent 2\/3: Layperson A ✓, Layperson B ✗, Expert 1 ✓\]/);
    assert.match(p, /… and 2 more item\(s\)$/);
  });

  it('guesses the mapping from the column names, and keeps a speaker the MI roles do not name as the file writes it', () => {
    const g = guessMapping(turnsWide.split('\n')[0].split(','));
    assert.deepEqual(g, {
      context: { layout: 'rows', dialogue: 'conv_id', speaker: 'role', text: 'utterance', order: 'turn_no' },
      response: { text: 'candidate', source: 'system' },
      labels: { layout: 'wide', coherent: ['rater_A', 'rater_B', 'Expert 1'] },
    });
    // "Coach" is not one of the MI spellings: no longer an error, kept as written (the mapping can still rename it)
    const r2 = importDataset(turnsWide, { ...g, format: 'csv' }, { file: 'turns-wide.csv' });
    assert.deepEqual(r2.items[1].context.map((t) => t.speaker), ['Coach', 'client']);
    assert.deepEqual(r2.speakers.map((s) => s.speaker), ['client', 'Coach', 'therapist']);
  });
});

describe('generic importer: the EvalReflections release through the annotation-table preset', () => {
  it('gives the same items, candidates, references and labels as import annotations', () => {
    const text = readFileSync(join(root, 'data', 'evalreflections', 'annotations-gpt2-stage.csv'), 'utf8');
    const g = importDataset(text, { ...MAPPING_PRESETS['annotation-table'], reference: { fromHumanResponse: true } }, { file: 'annotations-gpt2-stage.csv' });
    const a = importAnnotationTable(text, { reference: true, file: 'annotations-gpt2-stage.csv' });
    const core = (items: DialogueItem[]) =>
      items.map((it) => ({
        id: it.id,
        context: it.context,
        reference: it.reference,
        candidates: it.candidates.map((c) => ({ id: c.id, text: c.text, origin: c.origin, annotations: c.annotations.map((x) => [x.annotator, x.group, x.coherent, x.errors]) })),
      }));
    assert.deepEqual(core(g.items), core(a.items));
    assert.deepEqual([g.items.length, g.records, g.items.reduce((s, i) => s + i.candidates.length, 0), g.annotators.length], [15, 900, 150, 18]);
    // the guess from its header is the preset's core
    const guessed = guessMapping(text.split('\n')[0].split(','));
    assert.deepEqual(guessed.context, MAPPING_PRESETS['annotation-table'].context);
    assert.deepEqual(guessed.labels, MAPPING_PRESETS['annotation-table'].labels);
  });
});

describe('generic importer: JSONL with JSON contexts and long labels', () => {
  const lines = [
    { id: 'a', history: [{ role: 'client', content: 'I want to cut down.' }], response: 'You want to drink less.', model: 'gpt2', ref: 'You would like to drink less.', rater: 'Expert 1', coherent: 'coherent', errors: { malformed: 'no' } },
    { id: 'a', history: [{ role: 'client', content: 'I want to cut down.' }], response: 'You want to drink less.', model: 'gpt2', ref: 'You would like to drink less.', rater: 'Lay 2', coherent: 'incoherent', errors: { malformed: 'yes' } },
    { id: 'b', history: [{ role: 'assistant', content: 'Hello.' }, { role: 'user', content: 'Hi.' }], response: 'Hi there.', model: 'gpt2', ref: 'Hello!', rater: '', coherent: '', errors: {} },
  ];
  const mapping: DatasetMapping = {
    format: 'jsonl',
    itemId: ['id'],
    context: { layout: 'json', column: 'history' },
    speakers: { therapist: ['assistant'], client: ['user'] },
    response: { text: 'response', source: 'model' },
    reference: { column: 'ref' },
    labels: { layout: 'long', annotator: 'rater', coherent: 'coherent', errors: { malformed: 'errors.malformed' } },
    coherentValues: { yes: ['coherent'], no: ['incoherent'] },
  };

  it('reads nested fields, role/content turns, custom coherence values, the reference column and unlabelled responses', () => {
    const r = importDataset(lines.map((l) => JSON.stringify(l)).join('\n') + '\n', mapping, { file: 'pilot.jsonl' });
    assert.deepEqual(r.items.map((i) => [i.id, i.reference?.text, i.context.map((t) => t.speaker)]), [
      ['a', 'You would like to drink less.', ['client']],
      ['b', 'Hello!', ['therapist', 'client']],
    ]);
    assert.deepEqual(r.items[0].candidates[0].annotations, [
      { annotator: 'Expert 1', group: 'expert', coherent: true },
      { annotator: 'Lay 2', group: 'layperson', coherent: false, errors: ['malformed'] },
    ]);
    assert.deepEqual(r.items[1].candidates[0].annotations, []);
  });

  it('reports a line that is not JSON, and a second reference for one context, with line and field', () => {
    const bad = [JSON.stringify(lines[0]), '{"id": "a",', JSON.stringify({ ...lines[1], ref: 'Something else.' })].join('\n');
    const e1 = failure(() => importDataset(bad, mapping, { file: 'pilot.jsonl' }), DatasetImportError);
    assert.match(e1.message, /^pilot\.jsonl:2: not valid JSON/);
    const e2 = failure(() => importDataset([lines[0], { ...lines[1], ref: 'Something else.' }].map((l) => JSON.stringify(l)).join('\n'), mapping, { file: 'pilot.jsonl' }), DatasetImportError);
    assert.match(e2.message, /^pilot\.jsonl:2: column "ref": item a has 2 different references \(first on line 1\); one context has one reference$/);
  });
});

describe('generic importer: mapping errors', () => {
  it('names every bad field of the mapping itself', () => {
    const err = failure(
      () => validateMapping({ context: { layout: 'table', column: 'x' }, response: { txt: 'r' }, labels: { layout: 'long', annotator: 'a' }, colour: 'red' }, 'mapping.json'),
      MappingError,
    );
    assert.equal(err.source, 'mapping.json');
    const fields = err.problems.map((p) => `${p.field}: ${p.message}`);
    assert.ok(fields.includes('colour: is not a mapping field (misspelt?)'), fields.join('\n'));
    assert.ok(fields.includes('response.text: is required'), fields.join('\n'));
    assert.ok(fields.includes('response.txt: is not a mapping field (misspelt?)'), fields.join('\n'));
    assert.ok(fields.some((f) => f.startsWith('context: layout must be "json"')), fields.join('\n'));
    // (long labels read coherence or rating dimensions: a rule checked once the schema holds)
    assert.throws(() => validateMapping({ context: { layout: 'json', column: 'c' }, response: { text: 'r' }, labels: { layout: 'long' } }), /labels\.annotator: is required/);
    assert.throws(() => importDataset('c,r,a\n"[]",x,A1\n', { context: { layout: 'json', column: 'c' }, response: { text: 'r' }, labels: { layout: 'long', annotator: 'a' } }, { file: 'x.csv' }), /labels: long labels read a coherence column \("coherent"\) or rating columns \("dimensions"\), or both/);
    assert.match(err.message, /^\d+ problems in mapping\.json:\n {2}/);
    assert.throws(() => validateMapping({ context: { layout: 'json', column: 'c' }, response: { text: 'r' }, labels: { layout: 'wide', coherent: [] } }), /labels\.coherent: must be a list of columns or an object column → annotator id/);
  });

  it('names the mapping field whose column the file lacks, with the columns it has', () => {
    const err = failure(() => importDataset(turnsWide, { ...turnsMapping, response: { text: 'reply', source: 'system' } }, { file: 'turns-wide.csv', mappingSource: 'm.json' }), MappingError);
    assert.equal(err.message, 'm.json: response.text: column "reply" is not in the file (its columns: conv_id, turn_no, role, utterance, candidate, system, rater_A, rater_B, Expert 1, notes)');
    assert.throws(() => importDataset(turnsWide, { ...turnsMapping, reference: { column: 'notes', fromHumanResponse: true } }), /reference: give one of "column" \(a reference column\), "fromHumanResponse" or "source", not "column" and "fromHumanResponse"/);
    assert.throws(() => importDataset('a,b\n', { context: { layout: 'json', column: 'a' }, response: { text: 'b' } }, { file: 'data.xlsx' }), /format: cannot tell the format from the file name "data\.xlsx"/);
  });

  it('reports every bad row with file, line, row and column, and imports nothing', () => {
    const rows = turnsWide.split('\n');
    const broken = [
      ...rows.slice(0, 4), // header, turns 2, 1, 3 of c1
      'c1,3,Therapist,Again the same turn number.,,,,,,', // line 5: duplicate order
      'c1,4,,Who is this?,,,,,,', // line 6: a turn without a speaker
      'c1,5,,,A response.,gpt2-medium,maybe,,,', // line 7: not a coherence value
      'c9,1,,,A response to nothing.,gpt2-medium,yes,,,', // line 8: no turns in c9
      ',1,Client,No dialogue id.,,,,,,', // line 9
      'c1,6,Client,"A turn, and",A response in one row.,gpt2,,,,', // line 10: both
      'c1,7,Client,too few fields', // line 11
      '',
    ].join('\n');
    const err = failure(() => importDataset(broken, turnsMapping, { file: 'broken.csv' }), DatasetImportError);
    // unreadable rows stop the reading first
    assert.match(err.message, /^broken\.csv:11: has 4 field\(s\), the header has 10/);
    const err2 = failure(() => importDataset(broken.split('\n').filter((l) => !l.startsWith('c1,7')).join('\n'), turnsMapping, { file: 'broken.csv' }), DatasetImportError);
    const want: [number, string, string][] = [
      [5, 'turn_no', 'dialogue "c1" already has a turn with order "3" (line 4)'],
      [6, 'role', 'the turn has no speaker (its text: "Who is this?")'],
      [7, 'rater_A', 'expected Yes or No (also y/n, true/false, 1/0), got "maybe" (give the column\'s own values under "coherentValues")'],
      [8, 'conv_id', 'dialogue "c9" has no turn rows'],
      [9, 'conv_id', 'the dialogue id is empty'],
      [10, 'candidate', 'has both a turn text (utterance) and a response (candidate): put each on its own row'],
    ];
    assert.equal(err2.problems.length, want.length, err2.message);
    err2.problems.forEach((p, i) => {
      assert.deepEqual([p.line, p.column], want[i].slice(0, 2), err2.message);
      assert.ok(p.message.startsWith(want[i][2]), `${p.message} / ${want[i][2]}`);
    });
    assert.match(err2.message, /^6 problems in broken\.csv:\nbroken\.csv:5: column "turn_no": dialogue "c1" already has a turn/);
  });
});
