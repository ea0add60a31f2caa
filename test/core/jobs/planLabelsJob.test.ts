/**
 * The labelling planner as a job: the CLI's plan-labels and the editor's Plan Labels… run it, so both start, check
 * and follow one record beside the dialogue file, named by one rule.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatItems } from '../../../src/core/format/jsonl';
import { runPlanOnFile } from '../../../src/core/jobs/file';
import { LabelPlanMismatchError } from '../../../src/core/jobs/planLabels';
import { validatePlan } from '../../../src/core/jobs/plans';
import type { LabelPlan } from '../../../src/core/planning/planner';
import { generatedPool } from '../planning/generatedPool';
import { testJobHost } from '../../helpers/jobHost';

describe('the labelling-plan job', () => {
  const dir = mkdtempSync(join(tmpdir(), 'plan-job-'));
  // Labels removed: every candidate is for the plan to draw.
  const items = generatedPool({ candidates: 60, signal: [1, 0.3], seed: 'job' }).map((it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: [] })) }));
  const evaluator = Object.keys(items[0].candidates[0].scores)[0];
  const other = Object.keys(items[0].candidates[0].scores)[1];

  it('checks its plan, naming the field', () => {
    assert.throws(() => validatePlan({ job: 'plan-labels' }, 'p.json'), /p\.json: evaluator: must be an evaluator id/);
    assert.throws(() => validatePlan({ job: 'plan-labels', evaluator, target: { decide: true } }, 'p.json'), /p\.json: target: a decision needs a second evaluator/);
    assert.throws(() => validatePlan({ job: 'plan-labels', evaluator, target: { halfWidth: 0 } }, 'p.json'), /p\.json: target: must be \{"halfWidth": h\} with h > 0/);
    assert.throws(() => validatePlan({ job: 'plan-labels', evaluator, against: evaluator }, 'p.json'), /p\.json: against: names the same evaluator/);
    assert.throws(() => validatePlan({ job: 'plan-labels', evaluator, record: 3 }, 'p.json'), /p\.json: record: must be a file or false/);
  });

  it('starts a plan beside the file (any case of .dialogues.jsonl), follows it on the next run, and never writes the dialogue file', async () => {
    const file = join(dir, 'Study.Dialogues.JSONL');
    writeFileSync(file, formatItems(items));
    const before = readFileSync(file);
    const host = testJobHost(dir);
    const first = await runPlanOnFile(validatePlan({ job: 'plan-labels', evaluator, human: 'experts', target: { halfWidth: 0.1 } }, 'p'), file, host);
    const record = join(dir, 'Study.label-plan.json');
    assert.deepEqual(first.files, [record]);
    assert.equal(first.itemsChanged, undefined);
    assert.match(first.lines[0], /^started a plan \(0 candidates labelled at the start\)$/);
    const state = first.data as unknown as LabelPlan;
    assert.equal(state.record.seed, '1');
    assert.equal(state.order.length, 60);
    const written = readFileSync(record, 'utf8');
    const second = await runPlanOnFile(validatePlan({ job: 'plan-labels', evaluator, human: 'auto', target: { halfWidth: 0.1 } }, 'p'), file, host);
    assert.match(second.lines[0], /^following the plan in Study\.label-plan\.json/);
    assert.deepEqual(second.files, []);
    assert.deepEqual((second.data as unknown as LabelPlan).order, state.order, 'the same plan, replayed');
    assert.equal(readFileSync(record, 'utf8'), written);
    assert.deepEqual(readFileSync(file), before);
  });

  it('refuses a record for other settings unless told to restart; keeps none with record: false', async () => {
    const file = join(dir, 'other.dialogues.jsonl');
    writeFileSync(file, formatItems(items));
    const host = testJobHost(dir);
    await runPlanOnFile(validatePlan({ job: 'plan-labels', evaluator, human: 'experts' }, 'p'), file, host);
    const record = join(dir, 'other.label-plan.json');
    await assert.rejects(runPlanOnFile(validatePlan({ job: 'plan-labels', evaluator: other, human: 'experts' }, 'p'), file, host), (e: unknown) => e instanceof LabelPlanMismatchError && e.recordFile === record && e.difference === `evaluator ${evaluator}`);
    const restarted = await runPlanOnFile(validatePlan({ job: 'plan-labels', evaluator: other, human: 'experts', restart: true }, 'p'), file, host);
    assert.deepEqual(restarted.files, [record]);
    assert.equal(JSON.parse(readFileSync(record, 'utf8')).evaluator, other);
    const none = join(dir, 'none.dialogues.jsonl');
    writeFileSync(none, formatItems(items));
    const unkept = await runPlanOnFile(validatePlan({ job: 'plan-labels', evaluator, human: 'experts', record: false }, 'p'), none, host);
    assert.match(unkept.lines[0], /no record kept/);
    assert.equal(existsSync(join(dir, 'none.label-plan.json')), false);
  });
});
