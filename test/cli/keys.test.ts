/**
 * The CLI sends a key only to the endpoint named beside its variable in the run config (docs/security.md): two
 * loopback servers, two variables, and every Authorization header checked; one variable beside two origins is
 * refused before any request unless `apiKeyOrigins` lists both; a redirect from the approved endpoint does not carry
 * the key to another origin.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { cliAsync as cli } from '../helpers/cli';
import { startStubOpenAI, type StubServer } from '../helpers/stubOpenAI';

const root = resolve(__dirname, '../..');
const KEY_A = 'sk-key-for-A-0123456789';
const KEY_B = 'sk-key-for-B-9876543210';

describe('reflect-eval: API keys only to the endpoint beside their variable', function () {
  this.timeout(180_000);
  let a: StubServer;
  let b: StubServer;
  let dir = '';
  let file = '';
  const origin = (s: StubServer) => new URL(s.baseURL).origin;
  const judge = (s: StubServer, apiKeyEnv: string) => ({ backend: 'openai-chat', baseURL: s.baseURL, model: 'm', apiKeyEnv });
  const plan = (judges: object[], extra: object = {}) => {
    const path = join(dir, `run-${Math.random().toString(36).slice(2)}.json`);
    writeFileSync(path, JSON.stringify({ judges, bodies: ['instructions'], requests: ['rating'], cache: false, ...extra }));
    return path;
  };
  const authorizations = (s: StubServer) => new Set(s.requests.map((r) => r.headers.authorization));

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cli-keys-'));
    file = join(dir, 'study.dialogues.jsonl');
    assert.equal((await cli(['import', 'annomi', join(root, 'data/annomi/AnnoMI-sample.csv'), '--sample', '2', '-o', file], {})).code, 0);
  });
  beforeEach(async () => {
    a = await startStubOpenAI(() => ({ reply: '4' }));
    b = await startStubOpenAI(() => ({ reply: '2' }));
  });
  afterEach(async () => {
    await a.close();
    await b.close();
  });

  it('each key reaches only the server named beside its variable, and the log says where each went', async () => {
    const r = await cli(['judge', file, '--config', plan([judge(a, 'KEY_A'), judge(b, 'KEY_B')])], { KEY_A, KEY_B });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(a.requests.length, 2);
    assert.equal(b.requests.length, 2);
    assert.deepEqual(authorizations(a), new Set([`Bearer ${KEY_A}`]));
    assert.deepEqual(authorizations(b), new Set([`Bearer ${KEY_B}`]));
    assert.ok(r.stderr.includes(`the judge key in $KEY_A goes to ${origin(a)} (m)`), r.stderr);
    assert.ok(r.stderr.includes(`the judge key in $KEY_B goes to ${origin(b)} (m)`), r.stderr);
    assert.ok(!r.stderr.includes(KEY_A) && !r.stderr.includes(KEY_B) && !r.stdout.includes(KEY_A), 'no key in the output');
  });

  it('one variable beside two origins is refused before any request, naming the variable, the origins and the fix', async () => {
    const r = await cli(['judge', file, '--config', plan([judge(a, 'KEY_A'), judge(b, 'KEY_A')])], { KEY_A });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(a.requests.length + b.requests.length, 0, 'no server was called');
    assert.ok(r.stderr.includes(`the key in $KEY_A would go to 2 different origins (${origin(a)}, ${origin(b)})`), r.stderr);
    assert.match(r.stderr, /"apiKeyOrigins": \{"KEY_A": \[/);
    // Listing only one of them is no consent to the other.
    const partial = await cli(['judge', file, '--config', plan([judge(a, 'KEY_A'), judge(b, 'KEY_A')], { apiKeyOrigins: { KEY_A: [origin(a)] } })], { KEY_A });
    assert.equal(partial.code, 1);
    assert.equal(a.requests.length + b.requests.length, 0);
  });

  it('with both origins listed in apiKeyOrigins, the one key goes to both', async () => {
    const r = await cli(['judge', file, '--config', plan([judge(a, 'KEY_A'), judge(b, 'KEY_A')], { apiKeyOrigins: { KEY_A: [origin(a), origin(b)] } })], { KEY_A });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(authorizations(a), new Set([`Bearer ${KEY_A}`]));
    assert.deepEqual(authorizations(b), new Set([`Bearer ${KEY_A}`]));
  });

  it('API generators follow the same rule', async () => {
    const gen = (s: StubServer, apiKeyEnv: string) => ({ backend: 'openai-completions', baseURL: s.baseURL, model: 'g', apiKeyEnv });
    const path = join(dir, 'gen.json');
    writeFileSync(path, JSON.stringify({ generators: [gen(a, 'KEY_A'), gen(b, 'KEY_A')], preset: 'greedy', cache: false }));
    const r = await cli(['generate', file, '--config', path, '-o', join(dir, 'out.jsonl')], { KEY_A });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(a.requests.length + b.requests.length, 0);
    assert.ok(r.stderr.includes('the key in $KEY_A would go to 2 different origins'), r.stderr);
  });

  it('a redirect from the approved endpoint to another origin does not carry the key there', async () => {
    await a.close();
    a = await startStubOpenAI(() => ({ status: 307, headers: { location: `${b.baseURL.replace(/\/+$/, '')}/chat/completions` } }));
    const r = await cli(['judge', file, '--config', plan([judge(a, 'KEY_A')])], { KEY_A });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(b.requests.length, 2, 'the redirect was followed');
    assert.deepEqual(authorizations(a), new Set([`Bearer ${KEY_A}`]));
    assert.deepEqual(authorizations(b), new Set([undefined]), 'the redirected requests carried no key');
  });
});
