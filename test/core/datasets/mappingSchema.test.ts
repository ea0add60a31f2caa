import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { guessDatasetMapping, MAPPING_SCHEMA } from '../../../src/core/datasets';

const root = join(__dirname, '..', '..', '..');
const doc = JSON.parse(readFileSync(join(root, 'docs', 'mapping.schema.json'), 'utf8')) as Record<string, unknown>;

describe('the mapping\'s JSON Schema file (docs/mapping.schema.json, applied by VS Code to *.mapping.json)', () => {
  it('is MAPPING_SCHEMA, with an id, a title and a description', () => {
    const { $id, title, description, ...rest } = doc;
    const { title: coreTitle, ...core } = MAPPING_SCHEMA as unknown as Record<string, unknown>;
    assert.equal($id, 'https://reflect-eval.invalid/schema/mapping.v1.json');
    assert.ok(String(title).startsWith(String(coreTitle)) && typeof description === 'string');
    assert.deepEqual(rest, JSON.parse(JSON.stringify(core)));
  });

  it('accepts the fixtures\' mappings and the guessed ones, and names a misspelt field, in a validator that knows no discriminator', () => {
    const validate = new Ajv({ allErrors: true, strict: false }).compile(doc);
    const fixtures = join(__dirname, 'fixtures');
    const mappings = [
      JSON.parse(readFileSync(join(fixtures, 'turns-wide.mapping.json'), 'utf8')),
      guessDatasetMapping(readFileSync(join(fixtures, 'nested-ratings.json'), 'utf8'), 'nested-ratings.json').mapping,
      guessDatasetMapping(readFileSync(join(fixtures, 'long-ratings.csv'), 'utf8'), 'long-ratings.csv').mapping,
    ];
    for (const m of mappings) assert.ok(validate(m), JSON.stringify(validate.errors));
    assert.equal(validate({ ...mappings[1], labels: { layout: 'lists', dimensions: [{ column: 'Overall', type: 'ordinal', point: [1, 2] }] } }), false);
  });
});
