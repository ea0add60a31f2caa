import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { agreementCoefficients } from '../../../src/core/agreement/coefficientsTable';
import { documentItems, parseDocument } from '../../../src/core/format/jsonl';
import { parseRubric } from '../../../src/core/rubric/rubricFile';

const fixtures = join(__dirname, 'fixtures');
const items = documentItems(parseDocument(readFileSync(join(fixtures, 'rubric-study.dialogues.jsonl')), 'rubric-study.dialogues.jsonl'));
const rubric = parseRubric(readFileSync(join(fixtures, 'rubric-study.rubric.json'), 'utf8'), 'rubric-study.rubric.json');
const ref = JSON.parse(readFileSync(join(fixtures, 'rubric-agreement-reference.json'), 'utf8')) as { units: number; alpha: Record<string, { level: string; value: number }> };

describe('agreement on a study with its own rubric (scripts/parity/rubric_agreement_reference.py, fast-krippendorff)', () => {
  const t = agreementCoefficients(items, { rubric });

  it('takes the candidates with a primary-dimension rating as units, every rater as a coder', () => {
    assert.equal(t.units, ref.units);
    assert.deepEqual(t.annotators, ['r1', 'r2', 'r3', 'r4']);
    assert.deepEqual(t.rows.map((r) => r.key), ['Sensible', 'Overall', 'Specificity', 'Problem']);
  });

  it('gives each dimension Krippendorff\'s alpha at the level its type asks for, equal to the reference to 1e-12', () => {
    for (const [name, { level, value }] of Object.entries(ref.alpha)) {
      const row = t.rows.find((r) => r.key === name)!;
      assert.equal(row.level, level, name);
      assert.ok(Math.abs(row.alpha.alpha! - value) < 1e-12, `${name}: ${row.alpha.alpha} vs ${value}`);
    }
  });

  it('has ICCs for the ordinal and numeric dimensions, and no Fleiss or AC1 for a number', () => {
    assert.ok(t.rows.find((r) => r.key === 'Overall')!.icc);
    const spec = t.rows.find((r) => r.key === 'Specificity')!;
    assert.ok(spec.icc && spec.icc.single.value !== null);
    assert.equal(spec.fleiss.kappa, null);
    assert.equal(spec.ac1.undefinedReason, 'numeric');
    assert.ok(t.rows.find((r) => r.key === 'Sensible')!.fleiss.kappa !== null);
  });
});
