/**
 * The estimate planner as a job: the CLI's `estimate` (plan mode) and the editor's Start an Estimate Plan… run it,
 * so both start, check and follow one record beside the dialogue file.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EstimatePlanState } from '../../../src/core/estimation/activePlan';
import { formatItems } from '../../../src/core/format/jsonl';
import { EstimatePlanMismatchError } from '../../../src/core/jobs/estimate';
import { runPlanOnFile } from '../../../src/core/jobs/file';
import { validatePlan } from '../../../src/core/jobs/plans';
import { gemGridPool } from '../../../scripts/estimation/generatedPools';
import { testJobHost } from '../../helpers/jobHost';

describe('the estimate-plan job', function () {
  this.timeout(120_000);
  const dir = mkdtempSync(join(tmpdir(), 'estimate-job-'));
  // Expert labels removed: the plan draws the candidates the experts label; the laypeople's labels predict.
  const items = gemGridPool(3, 'job').map((it) => ({ ...it, candidates: it.candidates.map((c) => ({ ...c, annotations: c.annotations.filter((a) => a.group !== 'expert') })) }));

  it('checks its plan, naming the field', () => {
    assert.throws(() => validatePlan({ job: 'estimate', estimand: 'coherence-ratio' }, 'p.json'), /p\.json: estimand: estimand "coherence-ratio": use coherence-rate/);
    assert.throws(() => validatePlan({ job: 'estimate', human: 'crowd' }, 'p.json'), /p\.json: human: must be experts, laypeople or all/);
    assert.throws(() => validatePlan({ job: 'estimate', compare: ['a', 'b'] }, 'p.json'), /p\.json: compare: needs "by"/);
    assert.throws(() => validatePlan({ job: 'estimate', halfWidth: 0 }, 'p.json'), /p\.json: halfWidth: must be a positive number/);
    assert.throws(() => validatePlan({ job: 'estimate', target: 0.1 }, 'p.json'), /p\.json: .*target/);
  });

  it('starts a plan beside the file, follows it on the next run, and never writes the dialogue file', async () => {
    const file = join(dir, 'grid.dialogues.jsonl');
    writeFileSync(file, formatItems(items));
    const before = readFileSync(file);
    const host = testJobHost(dir);
    const plan = { job: 'estimate', estimand: 'coherence-rate', by: 'model', predictors: ['human:laypeople'], halfWidth: 0.1, labelsPerCandidate: 3 };
    const first = await runPlanOnFile(validatePlan(plan, 'p'), file, host);
    const record = join(dir, 'grid.estimate-plan.json');
    assert.deepEqual(first.files, [record]);
    assert.match(first.lines[0], /^started a plan \(0 candidates labelled at the start\)$/);
    const state = first.data as unknown as EstimatePlanState;
    assert.deepEqual(state.record.predictors, ['human:laypeople']);
    assert.equal(state.record.by, 'model');
    assert.ok(state.strata.length >= 2, 'one estimate per model');
    const written = readFileSync(record, 'utf8');
    const second = await runPlanOnFile(validatePlan({ ...plan, halfWidth: undefined }, 'p'), file, host);
    assert.match(second.lines[0], /^following the estimate plan in grid\.estimate-plan\.json/);
    assert.deepEqual(second.files, []);
    assert.deepEqual((second.data as unknown as EstimatePlanState).order, state.order, 'the same plan, replayed');
    assert.equal(readFileSync(record, 'utf8'), written);
    assert.deepEqual(readFileSync(file), before);
  });

  it('refuses a record for other settings unless told to restart; keeps none with record: false', async () => {
    const file = join(dir, 'other.dialogues.jsonl');
    writeFileSync(file, formatItems(items));
    const host = testJobHost(dir);
    await runPlanOnFile(validatePlan({ job: 'estimate', predictors: ['human:laypeople'], labelsPerCandidate: 3 }, 'p'), file, host);
    const record = join(dir, 'other.estimate-plan.json');
    await assert.rejects(
      runPlanOnFile(validatePlan({ job: 'estimate', predictors: ['human:laypeople'], by: 'model', labelsPerCandidate: 3 }, 'p'), file, host),
      (e: unknown) => e instanceof EstimatePlanMismatchError && e.recordFile === record && e.difference === 'no --by',
    );
    const restarted = await runPlanOnFile(validatePlan({ job: 'estimate', predictors: ['human:laypeople'], by: 'model', labelsPerCandidate: 3, restart: true }, 'p'), file, host);
    assert.deepEqual(restarted.files, [record]);
    assert.equal(JSON.parse(readFileSync(record, 'utf8')).by, 'model');
    const none = join(dir, 'none.dialogues.jsonl');
    writeFileSync(none, formatItems(items));
    const unkept = await runPlanOnFile(validatePlan({ job: 'estimate', predictors: ['human:laypeople'], labelsPerCandidate: 3, record: false }, 'p'), none, host);
    assert.deepEqual(unkept.files, []);
    assert.match(unkept.lines[0], /no record kept/);
    assert.equal(existsSync(join(dir, 'none.estimate-plan.json')), false);
  });
});
