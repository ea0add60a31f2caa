import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { documentItems, parseDocument } from '../../../src/core/format/jsonl';
import { coherenceScore } from '../../../src/core/labels/annotate';
import { humanScore, isAsked, labelIssues, labelProblem, scaleValue } from '../../../src/core/rubric/labelValues';
import { MI_RUBRIC } from '../../../src/core/rubric/presets';
import { dimensionNamed, type OrdinalDimension, type Rubric } from '../../../src/core/rubric/rubric';
import { parseRubric, RubricError, rubricPathOf, rubricProblems } from '../../../src/core/rubric/rubricFile';

const root = join(__dirname, '..', '..', '..');
const schema = JSON.parse(readFileSync(join(root, 'docs', 'rubric.schema.json'), 'utf8'));
const schemaValid = new Ajv({ allErrors: true, strict: false }).compile(schema);

/** Two Likert dimensions and one categorical: the kind of study a dialogue-evaluation release has. */
const QUALITY: Rubric = {
  version: 1,
  name: 'dialogue quality',
  primary: 'Overall',
  speakers: { respondent: 'System', names: { User: 'User', System: 'System' } },
  dimensions: [
    { name: 'Overall', type: 'ordinal', points: [1, 2, 3, 4, 5].map((v) => ({ value: v, key: String(v) })) },
    { name: 'Interesting', type: 'ordinal', points: [{ value: 0 }, { value: 1 }, { value: 2 }] },
    { name: 'error type', type: 'categorical', options: [{ value: 'none', key: 'a' }, { value: 'generic', key: 'b' }, { value: 'off-topic', key: 'c' }] },
  ],
};

function problemsOf(text: string): RubricError['problems'] {
  try {
    parseRubric(text, 'study.rubric.json');
  } catch (err) {
    assert.ok(err instanceof RubricError, String(err));
    return err.problems;
  }
  assert.fail('the rubric was accepted');
}

describe('rubrics', () => {
  it('the MI preset reads coherence exactly as coherenceScore always has, on every candidate of a labelled file', () => {
    const items = documentItems(parseDocument(readFileSync(join(root, 'test/fixtures/correlation/evalreflections-synthetic.dialogues.jsonl'), 'utf8'), 'x.jsonl'));
    const coherent = dimensionNamed(MI_RUBRIC, 'coherent');
    assert.ok(coherent?.type === 'binary');
    let labelled = 0;
    for (const c of items.flatMap((it) => it.candidates)) {
      assert.equal(humanScore(c, coherent, MI_RUBRIC), coherenceScore(c));
      if (coherenceScore(c) !== null) labelled++;
    }
    assert.ok(labelled > 50, `${labelled} labelled candidates`);
    assert.deepEqual(labelIssues(items, MI_RUBRIC), []);
  });

  it('counts empathy only where it is asked (coherent), and errors only where incoherent', () => {
    const empathy = dimensionNamed(MI_RUBRIC, 'empathy') as OrdinalDimension;
    const errors = dimensionNamed(MI_RUBRIC, 'errors')!;
    const c = {
      annotations: [
        { annotator: 'E1', coherent: true, empathy: 4 as const },
        { annotator: 'E2', coherent: true, empathy: 2 as const },
        // An empathy value left on an incoherent label (a hand-edited file) is not asked, so it does not count.
        { annotator: 'E3', coherent: false, errors: ['parroting' as const], empathy: 5 as const },
      ],
    };
    assert.equal(humanScore(c, empathy, MI_RUBRIC), 3);
    assert.equal(humanScore(c, empathy, MI_RUBRIC, 'median'), 3);
    assert.equal(isAsked(c.annotations[2], errors, MI_RUBRIC), true);
    assert.equal(isAsked(c.annotations[0], errors, MI_RUBRIC), false);
    assert.equal(isAsked(c.annotations[2], dimensionNamed(MI_RUBRIC, 'otherText')!, MI_RUBRIC), false);
    assert.throws(() => humanScore(c, empathy, MI_RUBRIC, 'count'), /needs a binary dimension; empathy is ordinal/);
  });

  it('binary human scores: count, majority (null on a tie) and mean', () => {
    const coherent = dimensionNamed(MI_RUBRIC, 'coherent');
    assert.ok(coherent?.type === 'binary');
    const votes = (...v: boolean[]) => ({ annotations: v.map((coherent, i) => ({ annotator: `A${i}`, coherent })) });
    assert.equal(humanScore(votes(true, true, false), coherent, MI_RUBRIC, 'count'), 2);
    assert.equal(humanScore(votes(true, true, false), coherent, MI_RUBRIC, 'majority'), 1);
    assert.equal(humanScore(votes(true, false), coherent, MI_RUBRIC, 'majority'), null);
    assert.equal(humanScore(votes(true, false, false, false), coherent, MI_RUBRIC, 'mean'), 0.25);
    assert.equal(humanScore(votes(), coherent, MI_RUBRIC), null);
  });

  it('a custom rubric: ordinal means, a value off the scale named and never counted', () => {
    const overall = dimensionNamed(QUALITY, 'Overall') as OrdinalDimension;
    const c = { id: 'c1', annotations: [{ annotator: 'A', Overall: 5 }, { annotator: 'B', Overall: 2 }, { annotator: 'C', Overall: 7 }, { annotator: 'D', Overall: '4' }] };
    assert.equal(humanScore(c, overall, QUALITY), 3.5);
    assert.equal(scaleValue(c.annotations[2], overall), undefined);
    assert.deepEqual(
      labelIssues([{ id: 'i1', candidates: [c] }], QUALITY).map((x) => `${x.annotator} ${x.field}: ${x.message}`),
      ['C Overall: must be one of 1, 2, 3, 4, 5, got 7', 'D Overall: must be one of 1, 2, 3, 4, 5, got "4"'],
    );
    assert.equal(labelProblem('generic', QUALITY.dimensions[2]), null);
    assert.match(labelProblem('rude', QUALITY.dimensions[2])!, /must be one of "none", "generic", "off-topic", got "rude"/);
    assert.match(labelProblem(2.5, { name: 'n', type: 'numeric', min: 0, max: 10, step: 1 })!, /multiple of 1/);
    assert.equal(labelProblem(2.5, { name: 'n', type: 'numeric', min: 0, max: 10, step: 0.5 }), null);
    assert.match(labelProblem(['a', 'a'], { name: 'm', type: 'multiSelect', options: [{ value: 'a' }] })!, /twice/);
  });

  it('parses a full rubric and a preset; both pass the JSON Schema', () => {
    assert.deepEqual(parseRubric(JSON.stringify(QUALITY, null, 2), 'q.rubric.json'), QUALITY);
    assert.equal(parseRubric('{"preset": "mi-acl2023"}', 'mi.rubric.json'), MI_RUBRIC);
    for (const r of [QUALITY, MI_RUBRIC, { preset: 'mi-acl2023' }]) assert.ok(schemaValid(r), JSON.stringify(schemaValid.errors));
    assert.deepEqual(rubricProblems(MI_RUBRIC), []);
  });

  it('refuses a rubric that breaks the rules, naming line and field of every problem', () => {
    const text = [
      '{',
      '  "version": 1,',
      '  "name": "broken",',
      '  "primary": "kind",',
      '  "dimensions": [',
      '    {"name": "kind", "type": "categorical", "options": [{"value": "a"}, {"value": "b", "key": "j"}]},',
      '    {"name": "kind", "type": "binary"},',
      '    {"name": "annotator", "type": "text"},',
      '    {"name": "q", "type": "ordinal", "points": [{"value": 3}, {"value": 2}]},',
      '    {"name": "n", "type": "numeric", "min": 5, "max": 1},',
      '    {"name": "later", "type": "text", "when": {"dimension": "z"}},',
      '    {"name": "x", "type": "binary", "keys": {"yes": "1", "no": "2"}},',
      '    {"name": "y", "type": "ordinal", "points": [{"value": 1, "key": "1"}, {"value": 2}]},',
      '    {"name": "w", "type": "text", "when": {"dimension": "x", "equals": 3}}',
      '  ]',
      '}',
    ].join('\n');
    const got = problemsOf(text).map((p) => `${p.file}:${p.line}: ${p.field}: ${p.message}`);
    assert.deepEqual(got, [
      'study.rubric.json:7: dimensions[1].name: "kind" is already the name of dimension 1',
      'study.rubric.json:8: dimensions[2].name: "annotator" is an annotation field, not a label (reserved: annotator, group, updatedAt, stashed)',
      'study.rubric.json:9: dimensions[3].points[1].value: points must increase',
      'study.rubric.json:10: dimensions[4].max: must be greater than min (5)',
      'study.rubric.json:11: dimensions[5].when.dimension: must name an earlier dimension, got "z"',
      'study.rubric.json:14: dimensions[8].when.equals: 3 is not a value x (binary) can take',
      'study.rubric.json:4: primary: must be a binary, ordinal or numeric dimension; "kind" is categorical',
      'study.rubric.json:6: dimensions[0].options[1].key: "j" moves between candidates (j, k, u are the editor\'s)',
      'study.rubric.json:13: dimensions[7].points[0].key: "1" is already bound at dimensions[6].keys.yes and both can be asked at once',
    ]);
  });

  it('lets two dimensions share keys only when they are never asked at once (the MI preset: errors and empathy)', () => {
    assert.deepEqual(rubricProblems(MI_RUBRIC), []);
    const clash = structuredClone(MI_RUBRIC);
    delete (clash.dimensions[3] as { when?: unknown }).when;
    assert.ok(rubricProblems(clash).some((p) => /"1" is already bound at dimensions\[1\]\.options\[0\]\.key/.test(p.message)));
  });

  it('names invalid JSON with its line, and an unknown preset', () => {
    assert.deepEqual(problemsOf('{\n  "version": 1,\n  "name": "x",,\n}').map((p) => [p.line, p.message]), [[3, 'not valid JSON (PropertyNameExpected)']]);
    assert.match(problemsOf('{"preset": "likert"}')[0].message, /unknown preset "likert"; built in: mi-acl2023/);
  });

  it('sits beside its dialogue file', () => {
    assert.equal(rubricPathOf('/s/study.dialogues.jsonl'), '/s/study.rubric.json');
    assert.equal(rubricPathOf('data/pilot.jsonl'), 'data/pilot.rubric.json');
  });
});
