/**
 * Issue 39 item 4, the agreement panel's dimension picker: on a study with its own rubric the panel shows, for the
 * picked dimension, the coefficients `reflect-eval agreement <file> --dimension <name>` prints — the same numbers,
 * checked here against the command line's JSON for an ordinal, a numeric and a binary dimension of the rubric study
 * (test/core/agreement/fixtures/rubric-study), with the coefficient that fits each type named first.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { GroupedCoefficientTables } from '../../src/core/agreement/coefficientsTable';
import { DEFAULT_EXPERT_PREFIX } from '../../src/core/datasets/annotationColumns';
import { documentItems, parseDocument } from '../../src/core/format/jsonl';
import { agreementDimensionChoices, dimensionAgreementView } from '../../src/extension/agreementDimension';
import { rubric } from '../helpers/rubricStudy';

const root = resolve(__dirname, '../..');
const fixtures = join(root, 'test/core/agreement/fixtures');

function cliJson(file: string, dimension: string): { rubric: string; coefficients: GroupedCoefficientTables } {
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), 'agreement', file, '--dimension', dimension, '--json'], { encoding: 'utf8', cwd: root });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

describe('agreement panel: a dimension picker with the command line\'s numbers (issue 39 item 4)', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'agreement-dimension-'));
  const file = join(dir, 'study.dialogues.jsonl');
  copyFileSync(join(fixtures, 'rubric-study.dialogues.jsonl'), file);
  copyFileSync(join(fixtures, 'rubric-study.rubric.json'), join(dir, 'study.rubric.json'));
  const items = documentItems(parseDocument(readFileSync(file), file));

  it('offers every dimension with agreement (not free text); without a pick, the primary', () => {
    assert.deepEqual(agreementDimensionChoices(rubric).map((d) => d.name), ['Sensible', 'Overall', 'Specificity', 'Problem']);
    assert.equal(dimensionAgreementView(items, rubric, undefined, { expertPrefix: DEFAULT_EXPERT_PREFIX }).dimension, 'Overall');
  });

  for (const [dimension, headline] of [
    ['Overall', "Krippendorff's alpha (ordinal)"],
    ['Specificity', "Krippendorff's alpha (interval)"],
    ['Sensible', "Fleiss' kappa"],
  ] as const) {
    it(`${dimension}: the panel's coefficients are the CLI's, ${headline} first`, () => {
      const view = dimensionAgreementView(items, rubric, dimension, { expertPrefix: DEFAULT_EXPERT_PREFIX });
      const cli = cliJson(file, dimension);
      const tables = cli.coefficients.groups.flatMap((g) => g.tables);
      assert.ok(tables.length > 0);
      assert.deepEqual(view.tables.map((t) => t.group), tables.map((t) => t.group));
      view.tables.forEach((t, i) => {
        assert.deepEqual(t.rows.map((r) => r.key), [dimension]);
        const c = tables[i].rows[0];
        const row = t.rows[0];
        assert.equal(row.headline.name, headline);
        assert.ok(row.headline.value !== null);
        // The same numbers to the last bit (the CLI's JSON carries them unrounded).
        assert.equal(row.alpha, c.alpha.alpha);
        assert.equal(row.kappa, c.fleiss.kappa);
        assert.equal(row.ac1, c.ac1.ac1);
        assert.equal(row.iccSingle, c.icc?.single.value ?? null);
        assert.equal(row.iccAverage, c.icc?.average.value ?? null);
        assert.equal(t.cells.length, 1);
      });
      if (dimension === 'Specificity') assert.equal(view.tables[0].rows[0].kappa, null, 'a number is not a category');
    });
  }

  it('a free-text or unknown dimension is an error naming the choices, on the command line as in the panel', () => {
    assert.throws(() => dimensionAgreementView(items, rubric, 'Why', { expertPrefix: DEFAULT_EXPERT_PREFIX }), /dimension "Why" is free text/);
    const r = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'src/cli/index.ts'), 'agreement', file, '--dimension', 'overall'], { encoding: 'utf8', cwd: root });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /no dimension "overall"; its dimensions with agreement: "Sensible", "Overall", "Specificity", "Problem"/);
  });
});
