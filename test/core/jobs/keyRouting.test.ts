/**
 * Issue 14, item 5, through the job host interface: a study folder's workspace settings point the judge at another
 * host while the user's key is stored for their provider. Before keys had origins, the editor's host answered every
 * request with the one stored key, and the job sent it there without a word (30 requests observed). Now the host
 * answers by the core rule (approvedKey): the origin is asked about first, Cancel stops the job before any request,
 * and only an approved origin ever sees the key. The same for API generators.
 */
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import type { JobHost, SecretAnswer, SecretRequest } from '../../../src/core/jobs/host';
import { runGeneratePlan, validateGeneratePlan } from '../../../src/core/jobs/generate';
import { runJudgePlan, validateJudgePlan } from '../../../src/core/jobs/judge';
import { approvedKey, endpointOrigin, type EndpointSource, type KeyAnswer, type KeyQuestion } from '../../../src/core/jobs/apiKeyPolicy';
import { MemorySink } from '../../../src/core/jobs/memorySink';
import { chatCompletion, startStubOpenAI, type StubServer } from '../../helpers/stubOpenAI';
import { memoryKeyStore } from '../../helpers/keyStore';
import { testJobHost } from '../../helpers/jobHost';

const KEY = 'sk-user-key-for-my-provider';

function items(n: number): DialogueItem[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `item-${i}`,
    context: [{ speaker: 'client', text: `I have been drinking more lately, week ${i}.` }],
    candidates: [{ id: `c-${i}`, text: 'You are worried about your drinking.', origin: { kind: 'human' }, annotations: [], scores: {} }],
  }));
}

/** A host whose `secret` is the one given (the editor's: approvedKey over SecretStorage and a modal dialog). */
function host(secret: (r: SecretRequest) => Promise<SecretAnswer>): JobHost {
  return testJobHost(mkdtempSync(join(tmpdir(), 'key-routing-')), { kind: 'vscode', secret });
}

/** The editor's key answer: the user's key stored for `home`, endpoints from workspace settings, a scripted dialog. */
function editorLikeSecret(home: string, answers: KeyAnswer[], asked: KeyQuestion[], workspaceOrigins: string[]) {
  const store = memoryKeyStore({ [`judge@${home}`]: KEY });
  const source = (endpoint: string): EndpointSource => (workspaceOrigins.includes(endpointOrigin(endpoint)) ? 'workspace' : 'user');
  return {
    store,
    secret: (r: SecretRequest) =>
      approvedKey(r, source(r.endpoint), store, async (q) => {
        asked.push(q);
        return answers.shift() ?? 'cancel';
      }),
  };
}

describe('API keys go only where the user put them (issue 14, item 5, through the job host)', function () {
  this.timeout(60_000);
  let mine: StubServer;
  let theirs: StubServer;
  beforeEach(async () => {
    mine = await startStubOpenAI(() => ({ reply: '4' }));
    theirs = await startStubOpenAI(() => ({ reply: '1' }));
  });
  afterEach(async () => {
    await mine.close();
    await theirs.close();
  });

  const judgePlan = (baseURL: string) => validateJudgePlan({ judges: [{ backend: 'openai-chat', baseURL, model: 'judge-model' }], bodies: ['instructions'], requests: ['rating'], cache: false, manifest: false }, 'workspace settings');

  it('a judge endpoint from workspace settings is asked about; Cancel stops the job and no request is sent', async () => {
    const asked: KeyQuestion[] = [];
    const { secret } = editorLikeSecret(endpointOrigin(mine.baseURL), ['cancel'], asked, [endpointOrigin(theirs.baseURL)]);
    const its = items(3);
    const report = await runJudgePlan(judgePlan(theirs.baseURL), { file: join(tmpdir(), 'x.dialogues.jsonl'), items: its }, host(secret), new MemorySink(its));
    assert.equal(asked.length, 1);
    assert.equal(asked[0].message, `Send your judge API key to ${endpointOrigin(theirs.baseURL)}?`);
    assert.equal(asked[0].source, 'workspace');
    assert.equal(theirs.requests.length, 0, 'no request at all reached the workspace endpoint');
    assert.match(report.nothingDone ?? '', /did not approve sending your judge API key to http:\/\/127\.0\.0\.1:\d+; no request was sent with it/);
  });

  it('Send once lets this run through and asks again next time; Always is remembered', async () => {
    const asked: KeyQuestion[] = [];
    const { secret, store } = editorLikeSecret(endpointOrigin(mine.baseURL), ['once', 'always'], asked, [endpointOrigin(theirs.baseURL)]);
    for (let run = 0; run < 3; run++) {
      const its = items(2);
      const report = await runJudgePlan(judgePlan(theirs.baseURL), { file: join(tmpdir(), 'x.dialogues.jsonl'), items: its }, host(secret), new MemorySink(its));
      assert.equal(report.nothingDone, undefined, report.nothingDone);
    }
    assert.equal(asked.length, 2, 'asked on the first two runs (Send once, then Always), not on the third');
    assert.equal(theirs.requests.length, 6);
    assert.ok(theirs.requests.every((r) => r.headers.authorization === `Bearer ${KEY}`));
    assert.deepEqual(store.approvalsList, [{ purpose: 'judge', origin: endpointOrigin(theirs.baseURL), home: endpointOrigin(mine.baseURL) }]);
  });

  it('the origin the key was stored for is never asked about, and only it sees the key when the other is declined', async () => {
    const asked: KeyQuestion[] = [];
    const { secret } = editorLikeSecret(endpointOrigin(mine.baseURL), ['cancel'], asked, []);
    const its = items(2);
    const plan = validateJudgePlan(
      { judges: [{ backend: 'openai-chat', baseURL: mine.baseURL, model: 'a' }, { backend: 'openai-chat', baseURL: theirs.baseURL, model: 'b' }], bodies: ['instructions'], requests: ['rating'], cache: false, manifest: false },
      'settings',
    );
    const report = await runJudgePlan(plan, { file: join(tmpdir(), 'x.dialogues.jsonl'), items: its }, host(secret), new MemorySink(its));
    assert.equal(asked.length, 1);
    assert.equal(asked[0].origin, endpointOrigin(theirs.baseURL));
    // Keys are asked for before anything runs: the declined one stops the whole job, so neither endpoint was called.
    assert.equal(mine.requests.length + theirs.requests.length, 0);
    assert.ok(report.nothingDone);
  });

  it('an API generator from workspace settings is asked about too; Cancel stops generation before any request', async () => {
    const asked: KeyQuestion[] = [];
    const { secret } = editorLikeSecret(endpointOrigin(mine.baseURL), ['cancel'], asked, [endpointOrigin(theirs.baseURL)]);
    theirs.close();
    theirs = await startStubOpenAI(() => ({ rawBody: chatCompletion('It sounds like you are worried.') }));
    const plan = validateGeneratePlan({ generators: [{ backend: 'openai-chat', baseURL: theirs.baseURL, model: 'gen' }], preset: 'greedy', cache: false }, 'workspace settings');
    const its = items(2);
    const report = await runGeneratePlan(plan, { file: join(tmpdir(), 'x.dialogues.jsonl'), items: its }, host(secret), new MemorySink(its));
    assert.equal(asked.length, 1);
    assert.equal(asked[0].message, `Send your judge API key to ${endpointOrigin(theirs.baseURL)}?`, 'no generator key: the judges\' key is the one asked about');
    assert.equal(theirs.requests.length, 0);
    assert.match(report.nothingDone ?? '', /did not approve/);
  });

  it('for contrast, the editor host before this change (one stored key for any endpoint) sent it to the workspace endpoint unasked', async () => {
    // What storedSecret in src/extension/host.ts answered before: the failure, reproduced through the same job.
    const oldSecret = async (): Promise<SecretAnswer> => ({ key: KEY });
    const its = items(2);
    await runJudgePlan(judgePlan(theirs.baseURL), { file: join(tmpdir(), 'x.dialogues.jsonl'), items: its }, host(oldSecret), new MemorySink(its));
    assert.equal(theirs.requests.filter((r) => r.headers.authorization === `Bearer ${KEY}`).length, 2, 'the failure the issue reports');
  });
});
