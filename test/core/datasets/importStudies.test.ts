/**
 * Issue 39 items 5–6 on the import side: JSON arrays and nested responses with per-annotator rating lists, speakers
 * as the dataset writes them, rating columns as rubric dimensions, `--guess` that imports a conventional long CSV
 * unchanged, and no silent wrong number (a value the mapping does not cover is an error naming file, line or JSON
 * path, column and value; a response that is the reference is said).
 *
 * Fixtures: `nested-ratings.json` has the shape of the USR release (Mehri & Eskenazi 2020, `tc_usr_data.json`: a
 * JSON array of contexts, each with its responses and per-annotator rating lists nested inside, annotators named by
 * a list) with invented text; `long-ratings.csv` is the conventional long layout (item id, context, system,
 * response, reference, annotator, one column per quality).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DatasetImportError, guessDatasetMapping, importDataset, MappingError, readDataset, validateMapping, type DatasetMapping } from '../../../src/core/datasets';
import { labelIssues, humanScore } from '../../../src/core/rubric/labelValues';
import { dimensionNamed, type OrdinalDimension } from '../../../src/core/rubric/rubric';
import { rubricProblems } from '../../../src/core/rubric/rubricFile';

const fixtures = join(__dirname, 'fixtures');
const read = (name: string) => readFileSync(join(fixtures, name), 'utf8');
const nested = read('nested-ratings.json');
const longCsv = read('long-ratings.csv');

function failure<E extends Error>(fn: () => unknown, type: new (...a: never[]) => E): E {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof type, String(err));
    return err;
  }
  assert.fail(`expected a ${type.name}`);
}

const NESTED: DatasetMapping = {
  format: 'json',
  recordPath: 'responses',
  dataset: 'nested pilot',
  context: { layout: 'text', column: 'context', alternate: ['A', 'B'] },
  response: { text: 'response', source: 'model' },
  reference: { source: 'Original Ground Truth' },
  humanSources: ['New Human Generated'],
  labels: {
    layout: 'lists',
    annotators: 'annotators',
    dimensions: [
      { column: 'Understandable', type: 'binary' },
      { column: 'Natural', type: 'ordinal', points: [1, 2, 3] },
      { column: 'Overall', type: 'ordinal', points: [1, 2, 3, 4, 5] },
    ],
  },
  rubric: { respondent: 'B' },
};

describe('import: a JSON array is read as JSON, never line by line', () => {
  it('reads an array of records whatever the mapping or the file name says (.json, or "format": "jsonl")', () => {
    const flat = JSON.stringify([
      { id: 'x', context: [{ User: 'Hi.' }], response: 'Hello!', system: 'm1' },
      { id: 'y', context: [{ User: 'Bye.' }], response: 'See you.', system: 'm1' },
    ], null, 2);
    const m = { context: { layout: 'json', column: 'context' }, response: { text: 'response', source: 'system' } };
    for (const [file, format] of [['data.json', undefined], ['data.jsonl', undefined], ['data.json', 'jsonl']] as const) {
      const r = importDataset(flat, { ...m, ...(format ? { format } : {}) }, { file });
      assert.deepEqual(r.items.map((i) => i.context[0]), [{ speaker: 'User', text: 'Hi.' }, { speaker: 'User', text: 'Bye.' }], `${file} ${format}`);
      assert.equal(r.records, 2);
    }
    // and an object holding one list of records
    assert.equal(readDataset(JSON.stringify({ version: 2, data: JSON.parse(flat) }), 'json', 'd.json').records.length, 2);
  });

  it('reports broken JSON once, with its line, instead of a problem per line', () => {
    const broken = nested.replace('"fact": "the piano has 88 keys .",', '"fact": "the piano has 88 keys ."');
    const err = failure(() => importDataset(broken, NESTED, { file: 'usr.json' }), DatasetImportError);
    assert.equal(err.problems.length, 1);
    assert.match(err.message, /^usr\.json:92: not valid JSON \(CommaExpected\); expected an array of records, or one JSON object per line$/);
  });

  it('names a nested value by its JSON path and line, with the column and the value', () => {
    // the second context's third response, second annotator: 7 on a 1-5 scale
    const bad = JSON.parse(nested);
    bad[1].responses[2].Overall[1] = 7;
    bad[2].responses[0].Natural = [3, 3];
    const err = failure(() => importDataset(JSON.stringify(bad, null, 4), NESTED, { file: 'usr.json' }), DatasetImportError);
    const lines = err.message.split('\n').slice(1);
    assert.deepEqual(lines, [
      'usr.json:151: at [1].responses[2].Overall[1]: Overall[1]: must be one of 1, 2, 3, 4, 5, got 7',
      'usr.json:193: at [2].responses[0].Natural: Natural has 2 rating(s) but annotators names 3 annotator(s); one rating per annotator, in their order (null for none)',
    ]);
    assert.equal(JSON.stringify(bad, null, 4).split('\n')[150].trim(), '7,');
  });
});

describe('import: nested responses with per-annotator rating lists (the shape of the USR release)', () => {
  const r = importDataset(nested, NESTED, { file: 'nested-ratings.json' });

  it('makes one item per record, its responses the candidates, the reference source the reference', () => {
    assert.deepEqual(r.items.map((i) => [i.id, i.context.length, i.candidates.length]), [
      ['nested-pilot-1', 3, 4],
      ['nested-pilot-2', 1, 4],
      ['nested-pilot-3', 4, 4],
    ]);
    const [first] = r.items;
    assert.deepEqual(first.candidates.map((c) => [c.id, c.origin.kind, c.origin.source]), [
      ['ref', 'human', 'Original Ground Truth'],
      ['argmax-decoding-1', 'model', 'Argmax Decoding'],
      ['nucleus-decoding-p-0-5-1', 'model', 'Nucleus Decoding (p = 0.5)'],
      ['new-human-generated-1', 'human', 'New Human Generated'],
    ]);
    assert.equal(first.reference?.text, 'that sounds lovely . did you stay in mountain huts ? \n');
    // the parent's unmapped field is kept on each candidate
    assert.deepEqual(first.candidates[1].extraColumns, { fact: 'the alps stretch across eight countries .' });
    assert.deepEqual(r.annotators.map((a) => a.id), ['r1', 'r2', 'r3', 'r4']);
  });

  it('keeps each annotator\'s value of each dimension under the dimension\'s name, valid for the rubric', () => {
    assert.deepEqual(r.items[0].candidates[2].annotations, [
      { annotator: 'r1', group: 'layperson', Understandable: true, Natural: 2, Overall: 2 },
      { annotator: 'r2', group: 'layperson', Understandable: false, Natural: 1, Overall: 1 },
      { annotator: 'r3', group: 'layperson', Understandable: true, Natural: 2, Overall: 2 },
    ]);
    assert.ok(r.rubric);
    assert.deepEqual(rubricProblems(r.rubric), []);
    assert.deepEqual(labelIssues(r.items, r.rubric), []);
    assert.equal(r.rubric.primary, 'Overall');
    assert.deepEqual(r.rubric.speakers, { respondent: 'B' });
    const overall = dimensionNamed(r.rubric, 'Overall') as OrdinalDimension;
    assert.deepEqual(r.items[0].candidates.map((c) => humanScore(c, overall, r.rubric!)), [14 / 3, 8 / 3, 5 / 3, 14 / 3]);
  });

  it('keeps the speakers as the mapping names them, alternating back from the last turn', () => {
    assert.deepEqual(r.items[2].context.map((t) => t.speaker), ['B', 'A', 'B', 'A']);
    assert.deepEqual(r.items[1].context, [{ speaker: 'A', text: 'do you play any instruments ?' }]);
  });

  it('says that a model response equal to the reference is the reference text (and keeps it as the model\'s)', () => {
    const c = r.items[1].candidates.find((x) => x.origin.source === 'Argmax Decoding')!;
    assert.equal(c.text, r.items[1].reference?.text);
    assert.equal(c.origin.kind, 'model');
    assert.deepEqual(r.warnings.map((w) => [w.line, w.path, w.message.slice(0, 110)]), [[118, '[1].responses[1].response', '1 model response(s) with source "Argmax Decoding" (first here) are their context\'s reference text: each is the']]);
  });
});

describe('import: speakers as the dataset writes them', () => {
  const csv = 'dialog,turn,speaker,utterance,reply,model\nd1,1,Doctor,What brings you in?,,\nd1,2,Patient,My back hurts.,,\nd1,3,,,How long has it hurt?,bot\n';
  const rows: DatasetMapping = { context: { layout: 'rows', dialogue: 'dialog', speaker: 'speaker', text: 'utterance', order: 'turn' }, response: { text: 'reply', source: 'model' } };

  it('keeps a speaker the MI roles do not name, and in the MI preset stores the MI spellings as therapist and client', () => {
    const r = importDataset(csv, rows, { file: 'clinic.csv' });
    assert.deepEqual(r.items[0].context.map((t) => t.speaker), ['Doctor', 'client']);
  });

  it('keeps every speaker as written in a study with its own rubric, and renames the ones the mapping lists', () => {
    const csv2 = csv.replace('reply,model\n', 'reply,model,annotator,clarity\n').replace(/,\n/g, ',,,\n').replace('bot\n', 'bot,a1,4\n');
    const m: DatasetMapping = { ...rows, labels: { layout: 'long', annotator: 'annotator', dimensions: [{ column: 'clarity', type: 'ordinal', points: [1, 2, 3, 4, 5] }] } };
    assert.deepEqual(importDataset(csv2, m, { file: 'clinic.csv' }).items[0].context.map((t) => t.speaker), ['Doctor', 'Patient']);
    assert.deepEqual(importDataset(csv2, { ...m, speakers: { clinician: ['doctor'] } }, { file: 'clinic.csv' }).items[0].context.map((t) => t.speaker), ['clinician', 'Patient']);
  });

  it('reads a JSON list of turns keyed by any speaker, and text turns with a speaker prefix', () => {
    const jsonl = `${JSON.stringify({ ctx: [{ User: 'Hi.' }, { System: 'Hello.' }, { User: 'How are you?' }], out: 'Fine.' })}\n`;
    const r = importDataset(jsonl, { context: { layout: 'json', column: 'ctx' }, response: { text: 'out' } }, { file: 'chat.jsonl' });
    assert.deepEqual(r.items[0].context.map((t) => t.speaker), ['User', 'System', 'User']);
    const l = importDataset(longCsv, guessDatasetMapping(longCsv, 'long-ratings.csv').mapping, { file: 'long-ratings.csv' });
    assert.deepEqual(l.items[0].context.map((t) => [t.speaker, t.text]), [
      ['User', "I can't sleep before exams."],
      ['Assistant', 'That sounds stressful. What keeps you up?'],
      ['User', "I keep going over everything I haven't studied."],
    ]);
    // a turn without the prefix is named
    const broken = longCsv.replace('Assistant: That sounds', 'That sounds');
    assert.throws(() => importDataset(broken, guessDatasetMapping(longCsv, 'long-ratings.csv').mapping, { file: 'long-ratings.csv' }), /long-ratings\.csv:2: column "context": turn 2 does not start with "<speaker>: ", got "That sounds stressful\. What keeps you up"…/);
  });
});

describe('import: no silent wrong number', () => {
  // coherence as a 1-5 rating, one row per response and annotator
  const header = 'id,context,response,annotator,coherence\n';
  const rowsOf = (ratings: string[]) => header + ratings.map((v, i) => `c${i},"[{""client"": ""I drink too much.""}]",You drink a lot.,A${i % 3},${v}`).join('\n') + '\n';
  const ratings = ['5', '4', '1', '2', '3', '1', '5', '', '1'];

  it('a 1-5 scale mapped with coherentValues {yes: 4, 5; no: 2, 3} reports every 1 (file, line, column, value) instead of reading it as coherent', () => {
    const m = { itemId: ['id'], context: { layout: 'json', column: 'context' }, response: { text: 'response' }, labels: { layout: 'long', annotator: 'annotator', coherent: 'coherence' }, coherentValues: { yes: ['4', '5'], no: ['2', '3'] } };
    const err = failure(() => importDataset(rowsOf(ratings), m, { file: 'likert.csv' }), DatasetImportError);
    assert.deepEqual(err.problems.map((p) => [p.line, p.column]), [[4, 'coherence'], [7, 'coherence'], [10, 'coherence']]);
    assert.equal(err.problems[0].message, '"1" is not one of the coherence values of the mapping (yes: "4", "5"; no: "2", "3"); add it to "coherentValues" — no other value is read');
    assert.match(err.message, /^3 problems in likert\.csv:\nlikert\.csv:4: column "coherence": "1" is not one/);
    // covering every value imports, and the 1s are incoherent
    const ok = importDataset(rowsOf(ratings), { ...m, coherentValues: { yes: ['4', '5'], no: ['1', '2', '3'] } }, { file: 'likert.csv' });
    assert.deepEqual(ok.items.map((i) => i.candidates[0].annotations[0]?.coherent), [true, true, false, false, false, false, true, undefined, false]);
    // a value meaning yes and no is a mapping error
    assert.throws(() => importDataset(rowsOf(ratings), { ...m, coherentValues: { yes: ['3', '4'], no: ['1', '3'] } }, { file: 'likert.csv' }), /coherentValues: "3" cannot mean both yes and no/);
  });

  it('the same column as an ordinal dimension keeps the ratings; a value off the scale is named with file, line, column and value', () => {
    const m = { itemId: ['id'], context: { layout: 'json', column: 'context' }, response: { text: 'response' }, labels: { layout: 'long', annotator: 'annotator', dimensions: [{ column: 'coherence', type: 'ordinal', points: [1, 2, 3, 4, 5] }] } };
    const r = importDataset(rowsOf(ratings), m, { file: 'likert.csv' });
    assert.deepEqual(r.items.map((i) => i.candidates[0].annotations[0]?.coherence), [5, 4, 1, 2, 3, 1, 5, undefined, 1]);
    const err = failure(() => importDataset(rowsOf(['5', '6', 'four', '2.5', '4.0']), m, { file: 'likert.csv' }), DatasetImportError);
    assert.deepEqual(err.message.split('\n').slice(1), [
      'likert.csv:3: column "coherence": coherence: must be one of 1, 2, 3, 4, 5, got 6',
      'likert.csv:4: column "coherence": coherence: "four" is not a number (coherence is a scale of 1, 2, 3, 4, 5)',
      'likert.csv:5: column "coherence": coherence: must be one of 1, 2, 3, 4, 5, got 2.5',
    ]);
    // binary columns read exactly their values: a 2 is not "yes"
    const bin = { ...m, labels: { ...m.labels, dimensions: [{ column: 'coherence', type: 'binary' }] } };
    assert.throws(() => importDataset(rowsOf(['1', '0', '2']), bin, { file: 'likert.csv' }), /likert\.csv:4: column "coherence": coherence: "2" is neither yes \("yes", "y", "true", "1"\) nor no \("no", "n", "false", "0"\)/);
  });

  it('a reference column without humanSources: a model response equal to the reference is said, and humanSources or reference.source make it the human reference', () => {
    const csv = [
      'ctx,response,model,reference',
      '"[{""A"": ""Any plans?""}]",Going hiking.,Original Ground Truth,Going hiking.',
      '"[{""A"": ""Any plans?""}]",Not sure.,gpt2,Going hiking.',
      '"[{""A"": ""Lunch?""}]",Sure.,Original Ground Truth,Sure.',
      '"[{""A"": ""Lunch?""}]",No thanks.,gpt2,Sure.',
    ].join('\n');
    const m: DatasetMapping = { context: { layout: 'json', column: 'ctx' }, response: { text: 'response', source: 'model' }, reference: { column: 'reference' } };
    const r = importDataset(csv, m, { file: 'refs.csv' });
    assert.deepEqual(r.items[0].candidates.map((c) => [c.id, c.origin.kind]), [['original-ground-truth-1', 'model'], ['gpt2-1', 'model']]);
    assert.deepEqual(r.warnings.map((w) => [w.line, w.column]), [[2, 'response']]);
    assert.match(r.warnings[0].message, /^2 model response\(s\) with source "Original Ground Truth" \(first here\) are their context's reference text \(column "reference"\): each is the reference itself, which reference-based metrics do not score against the reference\. If "Original Ground Truth" is the human-written reference, list it under "humanSources"/);
    const h = importDataset(csv, { ...m, humanSources: ['Original Ground Truth'] }, { file: 'refs.csv' });
    assert.deepEqual([h.items[0].candidates[0].origin.kind, h.warnings.length], ['human', 0]);
    const s = importDataset(csv, { ...m, reference: { source: 'original ground truth' } }, { file: 'refs.csv' });
    assert.deepEqual(s.items.map((i) => [i.reference?.text, i.candidates[0].id, i.candidates[0].origin.kind]), [['Going hiking.', 'ref', 'human'], ['Sure.', 'ref', 'human']]);
    assert.deepEqual(s.warnings, []);
  });

  it('mapping rules a schema cannot say are named by field', () => {
    const base = validateMapping(NESTED);
    const problems = (m: unknown) => failure(() => importDataset(nested, m, { file: 'n.json' }), MappingError).problems.map((p) => `${p.field}: ${p.message}`);
    assert.deepEqual(problems({ ...base, labels: { ...base.labels, dimensions: [{ column: 'Overall', type: 'ordinal', points: [3, 2, 1] }, { column: 'Overall', type: 'binary', values: { yes: ['1'], no: ['1'] } }] } }), [
      'labels.dimensions[1].column: column "Overall" is already dimension 1',
      'labels.dimensions[1].values: "1" cannot mean both yes and no',
    ]);
    assert.deepEqual(problems({ ...base, labels: { ...base.labels, dimensions: [{ column: 'Overall', type: 'ordinal', points: [3, 2, 1] }] } }), ['labels.dimensions[0].points[1].value: points must increase', 'labels.dimensions[0].points[2].value: points must increase']);
    assert.deepEqual(problems({ ...base, rubric: { primary: 'Nope' } }), ['rubric.primary: no dimension is named "Nope"']);
    assert.deepEqual(problems({ ...base, labels: { ...base.labels, dimensions: [{ column: 'annotator', type: 'binary' }] } }), ['labels.dimensions[0].column: "annotator" is an annotation field, not a label (reserved: annotator, group, updatedAt, stashed)']);
    assert.deepEqual(problems({ ...base, labels: { ...base.labels, dimensions: [{ column: 'fact', type: 'text' }] } }), ['labels.dimensions: a study needs a binary, ordinal or numeric dimension (its primary dimension, which analyses use when none is named)']);
    assert.deepEqual(problems({ ...base, context: { layout: 'text', column: 'context' } }), ['context: a text context names its speakers one way: "alternate": ["<speaker of the last turn>", "<the other speaker>"] when the text does not name them, or "speakerPrefix": true when each turn starts with "<speaker>: "']);
    assert.deepEqual(problems({ ...base, labels: undefined }), ['rubric: a rubric of its own needs rating columns ("labels.dimensions"); without them the study is the MI preset']);
  });
});

describe('import --guess', () => {
  it('a conventional long CSV (item id, context, system, response, reference, annotator, one column per quality) imports with the guessed mapping unchanged', () => {
    const g = guessDatasetMapping(longCsv, 'long-ratings.csv');
    // the mapping as printed, read back
    const printed = JSON.parse(JSON.stringify(g.mapping));
    assert.deepEqual(printed, {
      format: 'csv',
      itemId: ['item_id'],
      context: { layout: 'text', column: 'context', speakerPrefix: true },
      response: { text: 'response', source: 'system' },
      reference: { column: 'reference' },
      labels: {
        layout: 'long',
        annotator: 'annotator',
        dimensions: [
          { column: 'fluency', type: 'ordinal', points: [1, 2, 3, 4, 5] },
          { column: 'relevance', type: 'ordinal', points: [1, 2, 3] },
          { column: 'grammatical', type: 'binary' },
        ],
      },
      rubric: { respondent: 'Assistant' },
    });
    const r = importDataset(longCsv, printed, { file: 'long-ratings.csv' });
    assert.deepEqual(r.items.map((i) => [i.id, i.reference?.text, i.candidates.map((c) => `${c.id}:${c.origin.kind}:${c.annotations.length}`)]), [
      ['d1', 'So your mind keeps running through what is left to do.', ['gpt2-1:model:2', 'human-1:human:2', 't5-1:model:2']],
      ['d2', "I'm so sorry. How are you holding up?", ['gpt2-1:model:2', 'human-1:human:2', 't5-1:model:2']],
    ]);
    assert.deepEqual(r.items[1].candidates[2].annotations, [
      { annotator: 'a1', group: 'layperson', fluency: 3, relevance: 2, grammatical: true },
      { annotator: 'a2', group: 'layperson', relevance: 2, grammatical: true },
    ]);
    assert.equal(r.rubric?.primary, 'fluency');
    assert.deepEqual(r.warnings, []);
    assert.ok(g.notes.some((n) => n.startsWith('"relevance": ordinal 1–3 (observed 1, 2, 3)')), g.notes.join('\n'));
  });

  it('proposes the nested records, the text context, the reference source, human sources, rating lists and the respondent of a USR-shaped JSON', () => {
    const g = guessDatasetMapping(nested, 'nested-ratings.json');
    const { humanSources, ...rest } = g.mapping;
    assert.deepEqual(rest, {
      format: 'json',
      recordPath: 'responses',
      context: { layout: 'text', column: 'context', alternate: ['A', 'B'] },
      response: { text: 'response', source: 'model' },
      reference: { source: 'Original Ground Truth' },
      labels: { layout: 'lists', annotators: 'annotators', dimensions: NESTED.labels!.layout === 'lists' ? NESTED.labels!.dimensions : [] },
      rubric: { respondent: 'B' },
    });
    assert.ok(humanSources?.includes('New Human Generated') && humanSources.includes('Human'));
    const r = importDataset(nested, g.mapping, { file: 'nested-ratings.json' });
    const byHand = importDataset(nested, { ...NESTED, dataset: undefined }, { file: 'nested-ratings.json' });
    assert.deepEqual(r.items, byHand.items);
    assert.ok(g.notes.includes('the annotators of each rating list are named, in order, by "annotators"'), g.notes.join('\n'));
  });

  it('keeps the MI guesses: the EvalReflections header still guesses the annotation-table labels, with no rating dimension', () => {
    const header = 'annomi_dialogue_id,stage,dialogue_context,reflection_source,reflection,annotator,coherent_and_context_consistent,dialogue_contradicting,malformed,off_topic,on_topic_but_unverifiable,parroting\n';
    const row = '5,GPT-2 stage,"[{""therapist"": ""Hi.""}, {""client"": ""Hello.""}]",GPT-2,So you are here.,Expert 1,Yes,No,No,No,No,No\n';
    const g = guessDatasetMapping(header + row, 'annotations.csv');
    assert.equal(g.mapping.labels?.layout, 'long');
    assert.equal(g.mapping.labels?.layout === 'long' && g.mapping.labels.dimensions, undefined);
    assert.equal(g.result?.rubric, null);
  });
});
