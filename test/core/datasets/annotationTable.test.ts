import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'csv-parse/sync';
import { parseAnnoMI, importAnnoMI } from '../../../src/core/datasets/annomi';
import { exportAnnotationTable } from '../../../src/core/datasets/annotationExport';
import { importAnnotationTable } from '../../../src/core/datasets/annotationImport';
import { AnnotationTableError, parseLikert, parseYesNo } from '../../../src/core/datasets/annotationColumns';
import type { DialogueItem } from '../../../src/core/dialogue/types';

const fixtures = join(__dirname, 'fixtures');
const read = (name: string) => readFileSync(join(fixtures, name), 'utf8');
const root = resolve(__dirname, '../../..');

function problemsOf(fn: () => unknown): AnnotationTableError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof AnnotationTableError, String(err));
    return err;
  }
  assert.fail('expected an AnnotationTableError');
}

describe('annotation tables: import', () => {
  it('accepts a BOM, CRLF, header spellings, yes/NO/Y/N/A cells and quoted line breaks', () => {
    const r = importAnnotationTable(read('liberal.csv'), { file: 'liberal.csv' });
    assert.equal(r.rows, 7);
    assert.deepEqual(r.items.map((i) => i.id), ['annomi-12-gpt-3-stage', 'annomi-7-gpt-2-stage']);
    const [a, b] = r.items;
    // the context with different JSON spacing is the same context; the "Client" key is read case-insensitively
    assert.deepEqual(a.context, [{ speaker: 'therapist', text: 'How has the week been?' }, { speaker: 'client', text: 'Hard. I had three drinks every night.' }]);
    assert.deepEqual(b.context, [{ speaker: 'client', text: 'I want to quit smoking before the baby comes.' }]);
    assert.deepEqual(a.provenance, {
      dataset: 'AnnoMI',
      transcriptId: '12',
      stage: 'GPT-3 stage',
      sourceFile: 'liberal.csv',
      tableColumns: ['Annomi Dialogue ID', 'Stage', 'dialogue_context', 'Reflection_Source', 'reflection', 'annotator', 'Coherent_And_Context_Consistent', 'dialogue-contradicting', 'malformed', 'off_topic', 'on_topic_but_unverifiable', 'parroting', 'MEE', 'Other Text', 'notes', 'round'],
    });
    // "human" and " Layperson 2 "/"Human" rows are one response: the source is compared without case
    const [human] = a.candidates;
    assert.equal(a.candidates.length, 3);
    assert.deepEqual([human.origin, human.text], [{ kind: 'human', source: 'human' }, 'It has been a hard week, and drinking is part of it.']);
    assert.deepEqual(human.annotations.map((x) => [x.annotator, x.group, x.coherent]), [['Expert 1', 'expert', true], ['Layperson 2', 'layperson', true]]);
    // multi-line reflection kept verbatim, errors read only for incoherent, MEE spelled in lower case accepted
    const g3 = a.candidates[1];
    assert.equal(g3.id, 'gpt-3-1');
    assert.equal(g3.text, 'So you had three drinks,\nevery night, and\r\nthe week was hard.');
    // cells spelled unlike the table's style are kept as written, for the export (see the round-trip tests)
    const spelled = { coherent_and_context_consistent: 'NO', dialogue_contradicting: 'no', malformed: 'Y', most_evident_error: 'parroting', parroting: 'yes' };
    assert.deepEqual(g3.annotations[0], { annotator: 'Expert 1', group: 'expert', coherent: false, errors: ['malformed', 'parroting'], mostEvidentError: 'parroting', tableCells: spelled, extraColumns: { notes: 'two errors' } });
    assert.deepEqual(g3.annotations[1], { annotator: 'Layperson 2', group: 'layperson', coherent: false, errors: ['parroting'], tableCells: { coherent_and_context_consistent: 'no' } });
    // a response nobody labelled yet
    assert.deepEqual([a.candidates[2].text, a.candidates[2].annotations], ['Your doctor says you must stop.', []]);
    // case-insensitive expert prefix; free text for Other kept
    assert.deepEqual(b.candidates[0].annotations.map((x) => [x.annotator, x.group, x.errors, x.otherText]), [
      ['expert_9', 'expert', ['malformed'], undefined],
      ['Layperson 4', 'layperson', [], 'it is just words'],
    ]);
    // unknown columns: `round` is constant per item, `notes` varies per annotation
    assert.deepEqual(r.extraColumns, [{ name: 'notes', level: 'annotation' }, { name: 'round', level: 'item' }]);
    assert.deepEqual([a.extraColumns, b.extraColumns], [{ round: 'r1' }, { round: 'r2' }]);
    assert.equal(a.reference, undefined);
  });

  it('makes the human response the reference on request, with id "ref"', () => {
    const a = importAnnotationTable(read('liberal.csv'), { reference: true }).items[0];
    assert.equal(a.reference?.text, 'It has been a hard week, and drinking is part of it.');
    assert.equal(a.candidates[0].id, 'ref');
  });

  it('reports every bad row with its line, spreadsheet row and column', () => {
    const e = problemsOf(() => importAnnotationTable(read('bad-rows.csv'), { file: 'bad-rows.csv' }));
    const got = e.problems.map((p) => [p.line, p.row, p.column ?? null, p.message.slice(0, 40)]);
    assert.deepEqual(got, [
      [2, 2, 'coherent_and_context_consistent', 'expected Yes or No, got "maybe"'],
      [4, 3, 'coherent_and_context_consistent', 'the response is marked coherent but also'],
      [5, 4, 'dialogue_context', 'not valid JSON (Expected \',\' or \'}\' afte'],
      [6, 5, 'dialogue_context', 'turn 1: speaker must be "therapist" or "'],
      [7, 6, 'annotator', 'has labels but no annotator'],
      [8, 7, 'malformed', 'expected Yes or No, got "perhaps"'],
      [9, 8, null, 'has 6 field(s), the header has 12 (a quo'],
    ]);
    assert.match(e.message, /^7 problems in bad-rows\.csv:\nbad-rows\.csv:2: column "coherent_and_context_consistent": expected Yes or No, got "maybe"/);
    assert.match(e.message, /bad-rows\.csv:4: row 3, column "coherent_and_context_consistent": the response is marked coherent but also has error\(s\) marked Yes: malformed/);
  });

  it('keeps an exact repeat once with a warning, and refuses a repeat that disagrees', () => {
    const e = problemsOf(() => importAnnotationTable(read('repeats.csv')));
    assert.equal(e.problems.length, 1);
    assert.deepEqual([e.problems[0].line, e.problems[0].column], [5, 'annotator']);
    assert.match(e.problems[0].message, /Layperson 1 labelled this response already on line 4, differently/);
    const lines = read('repeats.csv').split('\n');
    const r = importAnnotationTable([...lines.slice(0, 4), lines[5], ''].join('\n'));
    assert.deepEqual(r.warnings, [{ line: 3, row: 3, message: 'repeats line 2 exactly (same response, annotator and labels); kept once' }]);
    assert.deepEqual(r.items[0].candidates[0].annotations.map((a) => a.annotator), ['Expert 1', 'Layperson 1', 'Layperson 2']);
  });

  it('reads a response that every annotator labelled twice as two candidates, with a warning', () => {
    const lines = read('repeats.csv').split('\n');
    const r = importAnnotationTable(lines.slice(0, 5).join('\n') + '\n');
    assert.deepEqual(r.warnings.map((w) => [w.line, w.message]), [[2, 'this response (GPT-2) has 2 rows from each of its 2 annotators: imported as 2 separate candidates']]);
    const [a, b] = r.items[0].candidates;
    assert.deepEqual([a.id, a.text, a.annotations.map((x) => [x.annotator, x.coherent])], ['gpt-2-1', 'Fine.', [['Expert 1', true], ['Layperson 1', true]]]);
    assert.deepEqual([b.id, b.text, b.annotations.map((x) => [x.annotator, x.coherent])], ['gpt-2-2', 'Fine.', [['Expert 1', true], ['Layperson 1', false]]]);
    // and they export and import back the same way
    assert.deepEqual(importAnnotationTable(exportAnnotationTable(r.items).csv).items, r.items);
  });

  it('reads semicolon-delimited tables; two human texts for one context make the reference ambiguous', () => {
    const r = importAnnotationTable(read('semicolon-two-humans.csv'));
    assert.equal(r.items[0].candidates.length, 2);
    assert.equal(r.items[0].reference, undefined);
    const e = problemsOf(() => importAnnotationTable(read('semicolon-two-humans.csv'), { reference: true }));
    assert.match(e.problems[0].message, /2 different human responses \(lines 2, 3\); which one is the reference\?/);
    // a source list decides what is human
    const custom = importAnnotationTable(read('semicolon-two-humans.csv'), { reference: true, humanSources: ['ground truth'] });
    assert.equal(custom.items[0].reference?.text, 'Quitting matters to you now.');
    assert.equal(custom.items[0].candidates.find((c) => c.id === 'ref')?.origin.source, 'Ground truth');
  });

  it('gives every candidate its own id: two human sources with the same text, and a source whose slug is "ref"', () => {
    const head = 'annomi_dialogue_id,stage,dialogue_context,reflection_source,reflection,annotator,coherent_and_context_consistent,dialogue_contradicting,malformed,off_topic,on_topic_but_unverifiable,parroting';
    const ctx = '"[{""client"": ""I want to quit.""}]"';
    const csv = [head, `1,s,${ctx},Human,You want to quit.,Expert 1,Yes,,,,,`, `1,s,${ctx},Gold,You want to quit.,Expert 1,Yes,,,,,`, `1,s,${ctx},Ref,You are done.,Expert 1,Yes,,,,,`, `1,s,${ctx},GPT-2,Quit what?,Expert 1,No,No,Yes,No,No,No`].join('\n');
    const ids = importAnnotationTable(csv, { reference: true }).items[0].candidates.map((c) => c.id);
    assert.equal(new Set(ids).size, ids.length, ids.join(', '));
    assert.ok(ids.includes('ref'));
  });

  it('names missing columns, and says when a file is not an annotation table at all', () => {
    const e = problemsOf(() => importAnnotationTable('annomi_dialogue_id,stage,reflection\n1,x,y\n', { file: 't.csv' }));
    assert.match(e.message, /^t\.csv:1: missing column\(s\): dialogue_context, reflection_source, annotator, coherent_and_context_consistent, dialogue_contradicting/);
    assert.match(problemsOf(() => importAnnotationTable('name,age\nann,3\n', { file: 'o.csv' })).message, /^o\.csv:1: this is not an annotation table/);
    assert.match(problemsOf(() => importAnnotationTable('', { file: 'e.csv' })).message, /e\.csv:1: the file is empty/);
    assert.match(problemsOf(() => importAnnotationTable('a,b\n1,"open\n2,3\n', { file: 'q.csv' })).message, /q\.csv:2: not a readable CSV file: Quote Not Closed/);
  });

  it('reads contexts given as an object holding the list, or as turns keyed by position', () => {
    const head = 'annomi_dialogue_id,stage,dialogue_context,reflection_source,reflection,annotator,coherent_and_context_consistent,dialogue_contradicting,malformed,off_topic,on_topic_but_unverifiable,parroting\n';
    const row = (ctx: string) => `1,s,"${ctx.replace(/"/g, '""')}",GPT-2,Hi.,Expert 1,Yes,,,,,\n`;
    const want = [{ speaker: 'therapist', text: 'a' }, { speaker: 'client', text: 'b' }];
    for (const ctx of ['{"turns": [{"therapist": "a"}, {"client": "b"}]}', '{"0": {"therapist": "a"}, "1": {"client": "b"}}', '[{"speaker": "Therapist", "text": "a"}, {"role": "client", "utterance": "b"}]']) {
      assert.deepEqual(importAnnotationTable(head + row(ctx)).items[0].context, want, ctx);
    }
    assert.match(problemsOf(() => importAnnotationTable(head + row('"just text"'))).message, /expected a JSON list of turns, got string/);
  });

  it('reads Yes/No and Likert cells leniently but not anything', () => {
    assert.deepEqual([' YES', 'y', 'True', '1', 'no ', 'N', '0', '', 'N/A', 'nan'].map(parseYesNo), [true, true, true, true, false, false, false, undefined, undefined, undefined]);
    assert.throws(() => parseYesNo('sometimes'), /expected Yes or No, got "sometimes"/);
    assert.deepEqual(['1', ' 5 ', '4.0', 'Somewhat agree', 'neither agree nor disagree', 'disagree', ''].map(parseLikert), [1, 5, 4, 4, 3, 1, undefined]);
    assert.throws(() => parseLikert('6'), /1–5/);
  });
});

describe('annotation tables: export', () => {
  it('round-trips the synthetic table byte for byte', () => {
    const text = readFileSync(join(root, 'data', 'annotations', 'synthetic-annotations.csv'), 'utf8');
    const { items } = importAnnotationTable(text);
    assert.equal(exportAnnotationTable(items).csv, text);
  });

  it('round-trips the EvalReflections release byte for byte: its empty error cells stay empty', () => {
    const text = readFileSync(join(root, 'data', 'evalreflections', 'annotations-gpt2-stage.csv'), 'utf8');
    for (const reference of [false, true]) {
      const { items } = importAnnotationTable(text, { reference });
      // the release writes only Yes for a chosen error and leaves the others empty: one style for the table,
      // nothing per annotation
      assert.deepEqual(items[0].provenance?.tableStyle, { unmarkedError: '' });
      assert.equal(items.flatMap((i) => i.candidates.flatMap((c) => c.annotations)).filter((a) => a.tableCells).length, 0);
      const out = exportAnnotationTable(items).csv;
      assert.equal(out.length, text.length);
      assert.ok(out === text, `first difference at byte ${[...out].findIndex((ch, i) => ch !== text[i])}`);
    }
  });

  it('writes a changed label in the table\'s style, and cells spelled unlike the rest back as they were', () => {
    const header = 'annomi_dialogue_id,stage,dialogue_context,reflection_source,reflection,annotator,coherent_and_context_consistent,dialogue_contradicting,malformed,off_topic,on_topic_but_unverifiable,parroting';
    const ctx = '"[{""client"": ""I drink too much.""}]"';
    const table = [
      header,
      `1,s,${ctx},GPT-2,You drink.,Expert 1,No,,Yes,,,`,
      `1,s,${ctx},GPT-2,You drink.,Expert 2,No,,,,,Yes`,
      `1,s,${ctx},GPT-2,You drink.,Layperson 1,No,No,yes,No,No,No`, // spelled unlike the table: kept per annotation
      `1,s,${ctx},GPT-2,You drink.,Layperson 2,Yes,,,,,`,
      '',
    ].join('\n');
    const { items } = importAnnotationTable(table);
    assert.deepEqual(items[0].provenance?.tableStyle, { unmarkedError: '' });
    const anns = items[0].candidates[0].annotations;
    assert.deepEqual(anns[2].tableCells, { dialogue_contradicting: 'No', malformed: 'yes', off_topic: 'No', on_topic_but_unverifiable: 'No', parroting: 'No' });
    assert.equal(exportAnnotationTable(items).csv, table);
    // labels changed after the import: the cells that no longer say the same are written the table's way
    anns[0].errors = ['malformed', 'offTopic'];
    anns[2].errors = ['parroting'];
    const lines = exportAnnotationTable(items).csv.split('\n');
    assert.equal(lines[1].slice(lines[1].indexOf('Expert 1')), 'Expert 1,No,,Yes,Yes,,');
    assert.equal(lines[3].slice(lines[3].indexOf('Layperson 1')), 'Layperson 1,No,No,,No,No,Yes');
    // and the dialogue file's labels come back from it
    const again = importAnnotationTable(lines.join('\n')).items[0].candidates[0].annotations;
    assert.deepEqual(again.map((a) => a.errors), [['malformed', 'offTopic'], ['parroting'], ['parroting'], undefined]);
  });

  it('keeps a pandas index column (an unnamed first column) and writes it back', () => {
    const lines = readFileSync(join(root, 'data', 'annotations', 'synthetic-annotations.csv'), 'utf8').split('\n').filter(Boolean);
    const withIndex = lines.map((l, i) => (i === 0 ? ',' : `${i - 1},`) + l).join('\n') + '\n';
    const r = importAnnotationTable(withIndex);
    assert.deepEqual(r.extraColumns[0], { name: '', level: 'annotation' });
    assert.equal(exportAnnotationTable(r.items).csv, withIndex);
  });

  it('round-trips the edge cases: every label, extra column and unlabelled response comes back', () => {
    for (const name of ['liberal.csv', 'semicolon-two-humans.csv']) {
      const first = importAnnotationTable(read(name), { file: name });
      const again = importAnnotationTable(exportAnnotationTable(first.items).csv, { file: name });
      assert.deepEqual(again.items, first.items, name);
    }
  });

  it('writes any dialogue file: model origins, duplicate origins, unlabelled candidates, items without candidates', () => {
    const dialogues = parseAnnoMI(readFileSync(join(root, 'data', 'annomi', 'AnnoMI-sample.csv'), 'utf8'), 'AnnoMI-sample.csv');
    const [withCands, empty] = importAnnoMI(dialogues, { sample: 2, seed: 1 });
    const item: DialogueItem = {
      ...withCands,
      candidates: [
        { ...withCands.candidates[0], annotations: [{ annotator: 'Alice', group: 'expert', coherent: true, empathy: 4 }, { annotator: 'Expert 2', coherent: false, errors: ['offTopic', 'other'], mostEvidentError: 'other', otherText: 'talks about the weather' }] },
        {
          id: 'g1', text: 'So you are worried, “really” worried.', scores: {}, annotations: [],
          origin: { kind: 'model', model: 'bundled:reflect-gpt2-tiny', decoding: { strategy: 'nucleusSampling', topP: 0.4, seed: 3 } },
          duplicateOrigins: [{ kind: 'model', model: 'bundled:reflect-gpt2-tiny', decoding: { strategy: 'beamSearch', numBeams: 5 } }],
        },
      ],
    };
    const out = exportAnnotationTable([item, { ...empty, candidates: [] }]);
    assert.deepEqual(out.columns.slice(12), ['most_evident_error', 'other', 'other_text', 'empathy', 'annotator_group']);
    const rows: Record<string, string>[] = parse(out.csv, { columns: true });
    assert.equal(rows.length, 4);
    assert.deepEqual(rows.map((r) => [r.annomi_dialogue_id, r.reflection_source, r.annotator, r.coherent_and_context_consistent, r.off_topic, r.most_evident_error, r.other, r.empathy, r.annotator_group]), [
      [withCands.provenance!.transcriptId, 'AnnoMI reference', 'Alice', 'Yes', '', '', '', '4', 'expert'],
      [withCands.provenance!.transcriptId, 'AnnoMI reference', 'Expert 2', 'No', 'Yes', 'Other', 'Yes', '', ''],
      [withCands.provenance!.transcriptId, 'bundled:reflect-gpt2-tiny nucleus p=0.4 | bundled:reflect-gpt2-tiny beam k=5', '', '', '', '', '', '', ''],
      [empty.provenance!.transcriptId, '', '', '', '', '', '', '', ''],
    ]);
    // contexts are written as Python's json.dumps writes them (ASCII, ", " and ": ")
    assert.ok(rows[0].dialogue_context.startsWith('[{"therapist": '));
    assert.ok(!/[^\x00-\x7f]/.test(out.csv.split('\n')[2].split('So you are')[0]));
    assert.ok(out.csv.includes('So you are worried, “really” worried.'));
    // and they import back: same context, labels, groups; duplicate origins come back as sources
    const back = importAnnotationTable(out.csv, { reference: true, humanSources: ['AnnoMI reference'] }).items;
    assert.deepEqual(back[0].context.map((t) => [t.speaker, t.text]), item.context.map((t) => [t.speaker, t.text]));
    assert.equal(back[0].reference?.text, item.reference?.text);
    assert.deepEqual(back[0].candidates[0].annotations.map((a) => [a.annotator, a.group, a.coherent, a.errors, a.mostEvidentError, a.otherText, a.empathy]), [
      ['Alice', 'expert', true, undefined, undefined, undefined, 4],
      ['Expert 2', 'expert', false, ['offTopic', 'other'], 'other', 'talks about the weather', undefined],
    ]);
    assert.deepEqual([back[0].candidates[1].origin.source, back[0].candidates[1].duplicateOrigins?.[0].source], ['bundled:reflect-gpt2-tiny nucleus p=0.4', 'bundled:reflect-gpt2-tiny beam k=5']);
    assert.deepEqual(back[1].candidates, []);
  });
});
