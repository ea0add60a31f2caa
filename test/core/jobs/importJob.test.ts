/**
 * The import job in every format (AnnoMI, an annotation table, any dataset through a mapping): one plan, run by the
 * core runner that writes the new file — what the CLI's import commands, a pipeline and the editor's import
 * commands all do.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { importDataset } from '../../../src/core/datasets';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { runPlanOnFile } from '../../../src/core/jobs/file';
import { validatePlan } from '../../../src/core/jobs/plans';
import { testJobHost } from '../../helpers/jobHost';

const root = resolve(__dirname, '../../..');
const fixtures = join(root, 'test', 'core', 'datasets', 'fixtures');
const table = join(root, 'data', 'annotations', 'synthetic-annotations.csv');
const read = (file: string) => readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as DialogueItem);

describe('the import job', () => {
  const dir = mkdtempSync(join(tmpdir(), 'import-job-'));

  it('checks a generic plan: a mapping or a preset, never both; a known preset', () => {
    assert.throws(() => validatePlan({ job: 'import', format: 'generic', file: 'd.csv' }, 'p.json'), /p\.json: mapping: give either "mapping" \(an object or a JSON file\) or "preset"/);
    assert.throws(() => validatePlan({ job: 'import', format: 'generic', file: 'd.csv', mapping: 'm.json', preset: 'annotation-table' }, 'p.json'), /p\.json: mapping: give either/);
    assert.throws(() => validatePlan({ job: 'import', format: 'generic', file: 'd.csv', preset: 'nope' }, 'p.json'), /p\.json: preset: must be one of annotation-table/);
    assert.throws(() => validatePlan({ job: 'import', format: 'generic', file: 'd.csv', mapping: 3 }, 'p.json'), /p\.json: mapping: must be a mapping object or the JSON file/);
    assert.throws(() => validatePlan({ job: 'import', format: 'generic', file: 'd.csv', preset: 'annotation-table', sample: 2 }, 'p.json'), /p\.json: sample: unknown field/);
    assert.throws(() => validatePlan({ job: 'import', format: 'xlsx', file: 'd.xlsx' }, 'p.json'), /p\.json: format: must be "annomi", "annotations" or "generic"/);
  });

  it('writes a generic import through a mapping file read against the plan\'s folder: the items the importer makes, its warnings in the report', async () => {
    const out = join(dir, 'pilot.dialogues.jsonl');
    const plan = validatePlan({ job: 'import', format: 'generic', file: 'turns-wide.csv', mapping: 'turns-wide.mapping.json' }, 'p.json');
    const report = await runPlanOnFile(plan, out, testJobHost(fixtures));
    assert.deepEqual(report.files, [out]);
    assert.equal(report.itemsChanged, 3);
    assert.match(report.lines[0], /^read 14 records of turns-wide\.csv \(8 turn rows, 6 response rows\): 3 contexts, 5 responses/);
    assert.deepEqual(report.warnings, ['turns-wide.csv:10: row 9: repeats line 9 exactly (same response, annotator and labels); kept once']);
    const direct = importDataset(readFileSync(join(fixtures, 'turns-wide.csv'), 'utf8'), JSON.parse(readFileSync(join(fixtures, 'turns-wide.mapping.json'), 'utf8')), { file: 'turns-wide.csv' });
    assert.deepEqual(read(out), JSON.parse(JSON.stringify(direct.items)));
  });

  it('an annotation table gives the same contexts, responses and labels as the format of its own and the generic preset', async () => {
    const own = join(dir, 'own.dialogues.jsonl');
    const viaPreset = join(dir, 'preset.dialogues.jsonl');
    const host = testJobHost(dir);
    await runPlanOnFile(validatePlan({ job: 'import', format: 'annotations', file: table, reference: true }, 'p'), own, host);
    await runPlanOnFile(validatePlan({ job: 'import', format: 'generic', file: table, preset: 'annotation-table', reference: true }, 'p'), viaPreset, host);
    const shape = (items: DialogueItem[]) => items.map((it) => [it.context.map((t) => t.text).join('|'), it.reference?.text, it.candidates.map((c) => [c.text, c.annotations.map((a) => `${a.annotator}:${a.coherent}`).sort().join(',')])]);
    assert.equal(read(own).length, 24);
    assert.deepEqual(shape(read(viaPreset)), shape(read(own)));
  });

  it('writes nothing when there is nothing to import, and says why', async () => {
    const out = join(dir, 'none.dialogues.jsonl');
    const report = await runPlanOnFile(validatePlan({ job: 'import', format: 'annomi', file: join(root, 'data/annomi/AnnoMI-sample.csv'), topic: 'no such topic anywhere' }, 'p'), out, testJobHost(dir));
    assert.match(report.nothingDone ?? '', /nothing to import with these options/);
    assert.equal(existsSync(out), false);
  });
});
