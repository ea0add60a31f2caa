/**
 * End to end in real VS Code (see harness.ts): one plan, two hosts. The same plan files run through the editor
 * (ReflectEval: Run Plan File…, on the open document) and through the CLI (`reflect-eval run plan.json file`) give
 * the same dialogue file apart from timestamps; a judge matrix started in the editor writes the manifest the CLI
 * writes and fills the cache the CLI then re-uses; two OpenAI-compatible endpoints serving one model name are two
 * evaluators with their own answers.
 *
 * Run: `npm run build && npx mocha --config test/e2e/.mocharc.json test/e2e/jobs.e2e.test.ts`.
 */
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { answerFileDialog, answerKeyDialog, cli, editorFrame, failedAttempt, keyDialog, launchWorkbench, openDialogueFile, out, prerequisitesPresent, root, runCommand, setApiKey, waitFor, waitForJobSummary, type Workbench, startStub, type StubServer } from './harness';
import { spawnSync } from 'node:child_process';

const KEY = 'sk-e2e-jobs-key';

/** A file's items with every timestamp removed (`createdAt`, `at`, `updatedAt`). */
function withoutTimestamps(file: string): unknown[] {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).filter(([k]) => !['createdAt', 'at', 'updatedAt'].includes(k)).map(([k, x]) => [k, strip(x)]));
    return v;
  };
  return readFileSync(file, 'utf8').trim().split('\n').map((l) => strip(JSON.parse(l)));
}

describe('One plan through the editor and the CLI (code-server + Chromium)', function () {
  this.timeout(20 * 60_000);
  let wb: Workbench | undefined;
  let page: Page | undefined;
  let four: StubServer | undefined;
  let two: StubServer | undefined;
  let ws = '';

  before(async function () {
    if (!prerequisitesPresent()) this.skip();
    four = await startStub(() => ({ reply: '4' }));
    two = await startStub(() => ({ reply: '2' }));
    wb = await launchWorkbench((dir) => {
      ws = dir;
      const csv = join(root, 'data/annomi/AnnoMI-sample.csv');
      for (const name of ['editor', 'cli']) {
        const r = spawnSync(process.execPath, [cli, 'import', 'annomi', csv, '--sample', '2', '--seed', '5', '-o', join(dir, `${name}.dialogues.jsonl`)], { encoding: 'utf8' });
        assert.equal(r.status, 0, r.stderr);
      }
      writeFileSync(join(dir, 'generate.json'), JSON.stringify({ job: 'generate', generators: [{ backend: 'local' }], preset: 'greedy', maxNewTokens: 8, seed: 3 }));
      writeFileSync(join(dir, 'score.json'), JSON.stringify({ job: 'score', metrics: ['bleu4', 'rougeL'] }));
      writeFileSync(
        join(dir, 'judge.json'),
        JSON.stringify({
          job: 'judge',
          judges: [
            { backend: 'openai-chat', baseURL: four!.baseURL, model: 'same-judge', apiKeyEnv: 'JOBS_E2E_KEY' },
            { backend: 'openai-chat', baseURL: two!.baseURL, model: 'same-judge', apiKeyEnv: 'JOBS_E2E_KEY' },
            { backend: 'local' },
          ],
          bodies: ['instructions'],
          requests: ['rating'],
          // The CLI sends one variable's key to two origins only when the plan says so (docs/security.md).
          apiKeyOrigins: { JOBS_E2E_KEY: [four!.baseURL, two!.baseURL] },
        }),
      );
    });
    page = wb.page;
  });

  after(async function () {
    await wb?.close('code-server-logs-jobs');
    await four?.close();
    await two?.close();
  });

  afterEach(async function () {
    if (failedAttempt(this.currentTest)) await wb?.failed('jobs');
  });

  /** Runs a plan file from the palette on the open dialogue editor and waits for its summary; returns it. */
  async function runPlanInEditor(p: Page, plan: string, job: string, keyAnswer?: 'Always for this origin'): Promise<string> {
    const from = wb!.output().length;
    await runCommand(p, 'ReflectEval: Run Plan File…');
    await answerFileDialog(p, join(ws, plan));
    if (keyAnswer) {
      // The key was stored for the first endpoint; the plan file names a second one, which is asked about.
      const dialog = await keyDialog(p, 60_000);
      assert.ok(dialog?.includes(`API key to ${new URL(two!.baseURL).origin}?`), dialog);
      await answerKeyDialog(p, keyAnswer);
    }
    return waitForJobSummary(wb!, job, from, 5 * 60_000);
  }

  /** Saves the dialogue editor and waits until no tab is dirty. */
  async function save(p: Page): Promise<void> {
    await (await editorFrame(p)).locator('.candidate').first().press('Control+s');
    await waitFor('no dirty tab', async () => (await p.locator('.tab.dirty').count()) === 0, 30_000);
  }

  it('stores the judge key in SecretStorage for the first endpoint', async () => {
    const p = page as Page;
    await openDialogueFile(p, 'editor.dialogues.jsonl');
    await setApiKey(p, 'ReflectEval: Set Judge API Key', new URL(four!.baseURL).origin, KEY);
  });

  it('generate and score plans give the same file from the editor and from the CLI (timestamps aside)', async () => {
    const p = page as Page;
    for (const [plan, job] of [['generate.json', 'generate'], ['score.json', 'score']]) {
      const note = await runPlanInEditor(p, plan, job);
      assert.doesNotMatch(note, /nothing done/, note);
      await save(p);
      const r = spawnSync(process.execPath, [cli, 'run', join(ws, plan), join(ws, 'cli.dialogues.jsonl')], { encoding: 'utf8' });
      assert.equal(r.status, 0, r.stderr);
    }
    assert.deepEqual(withoutTimestamps(join(ws, 'editor.dialogues.jsonl')), withoutTimestamps(join(ws, 'cli.dialogues.jsonl')));
  });

  it('a judge matrix from the editor: two endpoints, two evaluators; the CLI writes the same manifest and re-uses the cache', async () => {
    const p = page as Page;
    const note = await runPlanInEditor(p, 'judge.json', 'judge', 'Always for this origin');
    assert.doesNotMatch(note, /nothing done/, note);
    await save(p);
    await p.screenshot({ path: join(out, 'jobs-judge.png') });
    // Each candidate (2 items × the reference and a greedy candidate) was sent once to each endpoint, with the stored key.
    assert.equal(four!.requests.length, 4);
    assert.equal(two!.requests.length, 4);
    assert.ok([...four!.requests, ...two!.requests].every((r) => r.headers.authorization === `Bearer ${KEY}`));
    const items = readFileSync(join(ws, 'editor.dialogues.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    for (const it of items) {
      const api = Object.entries(it.candidates[0].scores as Record<string, { value: number }>).filter(([id]) => id.startsWith('judge:api:same-judge:'));
      assert.equal(api.length, 2, api.map(([id]) => id).join(', '));
      assert.deepEqual(api.map(([, s]) => s.value).sort(), [2, 4]);
    }
    // The CLI on its own copy: every prompt is in the cache the editor filled, so no endpoint is called again.
    const r = spawnSync(process.execPath, [cli, 'run', join(ws, 'judge.json'), join(ws, 'cli.dialogues.jsonl')], { encoding: 'utf8', env: { ...process.env, JOBS_E2E_KEY: KEY } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(four!.requests.length + two!.requests.length, 8, 'the CLI re-used the editor\'s cached replies');
    assert.deepEqual(withoutTimestamps(join(ws, 'editor.dialogues.jsonl')), withoutTimestamps(join(ws, 'cli.dialogues.jsonl')));
    const manifest = (name: string) => JSON.parse(readFileSync(join(ws, `${name}.judge-manifest.json`), 'utf8'));
    const [m1, m2] = [manifest('editor'), manifest('cli')];
    const stable = (m: Record<string, unknown>) => ({ ...m, finishedAt: undefined, file: undefined, evaluators: (m.evaluators as Record<string, unknown>[]).map((e) => ({ ...e, calls: undefined, cacheHits: undefined, usage: undefined, cost: undefined })), totals: undefined });
    assert.deepEqual(stable(m2), stable(m1));
    const apiEvaluators = (m: { evaluators: { judge: string; calls: number; cacheHits: number }[] }) => m.evaluators.filter((e) => e.judge === 'api:same-judge');
    assert.deepEqual(apiEvaluators(m1).map((e) => e.calls), [4, 4]);
    assert.deepEqual(apiEvaluators(m2).map((e) => [e.calls, e.cacheHits]), [[0, 4], [0, 4]]);
    copyFileSync(join(ws, 'editor.judge-manifest.json'), join(out, 'jobs-editor.judge-manifest.json'));
  });
});
