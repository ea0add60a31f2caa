/**
 * Where an API key may go (src/core/jobs/apiKeyPolicy.ts, docs/security.md): a key goes to the origin it was stored
 * for, or to one the user approved; any other origin is asked about; the CLI's rule refuses one variable's key at
 * two origins unless the plan lists them.
 */
import assert from 'node:assert/strict';
import type { SecretRequest } from '../../../src/core/jobs/host';
import { approvedKey, decideKey, endpointOrigin, keyQuestion, keyRouteProblems, validateApiKeyOrigins, type KeyApproval, type KeyQuestion, type StoredKeys } from '../../../src/core/jobs/apiKeyPolicy';
import { validateJudgePlan } from '../../../src/core/jobs/judge';
import { validateGeneratePlan } from '../../../src/core/jobs/generate';
import { ConfigError } from '../../../src/core/config';
import { memoryKeyStore } from '../../helpers/keyStore';

const OPENAI = 'https://api.openai.com';
const EVIL = 'http://203.0.113.7:8080';
const none: StoredKeys = { judge: [], generator: [] };

describe('API key policy', () => {
  it('origins are scheme://host[:port] as the URL standard writes them, and nothing but http(s) has one', () => {
    assert.equal(endpointOrigin('https://API.openai.com:443/v1/chat'), OPENAI);
    assert.equal(endpointOrigin('http://127.0.0.1:8000/v1'), 'http://127.0.0.1:8000');
    assert.equal(endpointOrigin('http://user:pw@127.0.0.1:80/v1'), 'http://127.0.0.1');
    assert.notEqual(endpointOrigin('http://api.openai.com/v1'), OPENAI, 'http and https are different origins');
    assert.notEqual(endpointOrigin('https://api.openai.com.evil.example/v1'), OPENAI);
    assert.throws(() => endpointOrigin('file:///etc/passwd'), /not an http\(s\) URL/);
    assert.throws(() => endpointOrigin('api.openai.com/v1'), /not an absolute http\(s\) URL/);
  });

  it('sends a key to the origin it was stored for, and to an approved origin while the key is stored', () => {
    const keys: StoredKeys = { judge: [OPENAI], generator: [] };
    assert.deepEqual(decideKey('judge', OPENAI, keys, []), { send: { purpose: 'judge', home: OPENAI } });
    const approved: KeyApproval[] = [{ purpose: 'judge', origin: 'http://127.0.0.1:8000', home: OPENAI }];
    assert.deepEqual(decideKey('judge', 'http://127.0.0.1:8000', keys, approved), { send: { purpose: 'judge', home: OPENAI } });
    // The approval names the key it was given for: once that key is gone, it approves nothing.
    assert.deepEqual(decideKey('judge', 'http://127.0.0.1:8000', { judge: ['https://other.example'], generator: [] }, approved), { ask: { purpose: 'judge', home: 'https://other.example' } });
    // An approval for judges is not one for generators.
    assert.deepEqual(decideKey('generator', 'http://127.0.0.1:8000', keys, approved), { ask: { purpose: 'judge', home: OPENAI } });
  });

  it('asks before a key goes to any other origin, and never guesses between several keys', () => {
    assert.deepEqual(decideKey('judge', EVIL, { judge: [OPENAI], generator: [] }, []), { ask: { purpose: 'judge', home: OPENAI } });
    assert.deepEqual(decideKey('judge', EVIL, { judge: [null], generator: [] }, []), { ask: { purpose: 'judge', home: null } });
    const many = decideKey('judge', EVIL, { judge: [OPENAI, 'https://api.together.xyz'], generator: [] }, []);
    assert.ok('none' in many && /no judge API key is stored for http:\/\/203\.0\.113\.7:8080.*Set Judge API Key/.test(many.none), JSON.stringify(many));
    const nothing = decideKey('judge', OPENAI, none, []);
    assert.ok('none' in nothing && /Set Judge API Key" and enter https:\/\/api\.openai\.com/.test(nothing.none));
  });

  it('generators use their own key, else the judges\' key at its own origin or after asking', () => {
    assert.deepEqual(decideKey('generator', OPENAI, { judge: [OPENAI], generator: [] }, []), { send: { purpose: 'judge', home: OPENAI } });
    assert.deepEqual(decideKey('generator', OPENAI, { judge: [OPENAI], generator: ['https://gen.example'] }, []), { send: { purpose: 'judge', home: OPENAI } });
    assert.deepEqual(decideKey('generator', EVIL, { judge: [OPENAI], generator: ['https://gen.example'] }, []), { ask: { purpose: 'generator', home: 'https://gen.example' } });
  });

  it('the question names the origin, where the address came from and where the key was stored', () => {
    const q = keyQuestion('judge', EVIL, { purpose: 'judge', home: OPENAI }, 'workspace');
    assert.equal(q.message, 'Send your judge API key to http://203.0.113.7:8080?');
    assert.match(q.detail, /workspace's settings \(\.vscode\/settings\.json\)/);
    assert.match(q.detail, /stored for https:\/\/api\.openai\.com/);
    assert.match(keyQuestion('judge', EVIL, { purpose: 'judge', home: null }, 'plan').detail, /plan or run config file.*"Always" binds it to this origin/);
  });

  describe('approvedKey (the editor host\'s rule through a store and a dialog)', () => {
    const request = (endpoint: string, purpose: SecretRequest['purpose'] = 'judge'): SecretRequest => ({ purpose, endpoint: `${endpoint}/v1`, model: 'm' });

    it('Cancel declines without reading the key; Send once sends it and remembers nothing', async () => {
      const store = memoryKeyStore({ [`judge@${OPENAI}`]: 'sk-user' });
      const asked: KeyQuestion[] = [];
      const declined = await approvedKey(request(EVIL), 'workspace', store, async (q) => (asked.push(q), 'cancel'));
      assert.ok('declined' in declined && /did not approve sending your judge API key to http:\/\/203\.0\.113\.7:8080; no request was sent/.test(declined.declined));
      assert.equal(asked.length, 1);
      assert.deepEqual(await approvedKey(request(EVIL), 'workspace', store, async () => 'once'), { key: 'sk-user' });
      assert.deepEqual(store.approvalsList, []);
      assert.ok('declined' in (await approvedKey(request(EVIL), 'workspace', store, async () => 'cancel')), 'asked again after Send once');
    });

    it('Always remembers the origin for that key; the key\'s own origin is never asked about', async () => {
      const store = memoryKeyStore({ [`judge@${OPENAI}`]: 'sk-user' });
      const ask = async (): Promise<'always'> => 'always';
      assert.deepEqual(await approvedKey(request(EVIL), 'workspace', store, ask), { key: 'sk-user' });
      assert.deepEqual(store.approvalsList, [{ purpose: 'judge', origin: EVIL, home: OPENAI }]);
      const never = async (): Promise<'cancel'> => assert.fail('asked again');
      assert.deepEqual(await approvedKey(request(EVIL), 'workspace', store, never), { key: 'sk-user' });
      assert.deepEqual(await approvedKey(request(OPENAI), 'workspace', store, never), { key: 'sk-user' });
    });

    it('a key stored before keys had origins is asked about on first use; Always binds it there', async () => {
      const store = memoryKeyStore({ 'judge@': 'sk-legacy' });
      assert.deepEqual(await approvedKey(request(OPENAI), 'default', store, async () => 'always'), { key: 'sk-legacy' });
      assert.deepEqual(store.keys, { [`judge@${OPENAI}`]: 'sk-legacy' });
      const asked: string[] = [];
      await approvedKey(request(EVIL), 'workspace', store, async (q) => (asked.push(q.origin), 'cancel'));
      assert.deepEqual(asked, [EVIL], 'once bound, other origins are asked about');
    });

    it('an endpoint that is not an http(s) URL gets no key', async () => {
      const store = memoryKeyStore({ [`judge@${OPENAI}`]: 'sk-user' });
      const r = await approvedKey({ purpose: 'judge', endpoint: 'ftp://x' }, 'workspace', store, async () => 'always');
      assert.ok('missing' in r);
    });
  });

  describe('the CLI rule: one variable, one origin, unless the plan lists them', () => {
    const judge = (baseURL: string, apiKeyEnv?: string) => ({ backend: 'openai-chat' as const, model: 'm', baseURL, ...(apiKeyEnv ? { apiKeyEnv } : {}) });
    const endpoints = (...specs: ReturnType<typeof judge>[]) => specs.map((s, i) => ({ at: `judges[${i}]`, baseURL: s.baseURL, apiKeyEnv: s.apiKeyEnv }));

    it('refuses one variable beside two origins, naming the variable, the origins and the fix', () => {
      const problems = keyRouteProblems(endpoints(judge('http://127.0.0.1:1/v1', 'K'), judge('http://127.0.0.1:2/v1', 'K')), undefined);
      assert.equal(problems.size, 1);
      assert.match(problems.get('K')!, /the key in \$K would go to 2 different origins \(http:\/\/127\.0\.0\.1:1, http:\/\/127\.0\.0\.1:2\).*"apiKeyOrigins": \{"K": \["http:\/\/127\.0\.0\.1:1", "http:\/\/127\.0\.0\.1:2"\]\}/);
      // The unnamed variable is one variable too.
      assert.equal(keyRouteProblems(endpoints(judge('https://a.example/v1'), judge('https://b.example/v1')), undefined).size, 1);
    });

    it('accepts one origin per variable (paths do not matter), or every origin listed', () => {
      assert.equal(keyRouteProblems(endpoints(judge('http://127.0.0.1:1/v1', 'K'), judge('http://127.0.0.1:1/other', 'K'), judge('http://127.0.0.1:2/v1', 'L')), undefined).size, 0);
      const two = endpoints(judge('http://127.0.0.1:1/v1', 'K'), judge('http://127.0.0.1:2/v1', 'K'));
      assert.equal(keyRouteProblems(two, { K: ['http://127.0.0.1:1', 'http://127.0.0.1:2/v1'] }).size, 0);
      assert.equal(keyRouteProblems(two, { K: ['http://127.0.0.1:1'] }).size, 1, 'listing only one of them is not consent to the other');
      assert.equal(keyRouteProblems(two, { L: ['http://127.0.0.1:1', 'http://127.0.0.1:2'] }).size, 1, 'another variable\'s list does not count');
    });

    it('plans accept apiKeyOrigins and name the field of a mistake', () => {
      const base = { judges: [judge('http://127.0.0.1:1/v1', 'K')], bodies: ['instructions'], requests: ['rating'] };
      assert.deepEqual(validateJudgePlan({ ...base, apiKeyOrigins: { K: ['http://127.0.0.1:1'] } }, 'p.json').apiKeyOrigins, { K: ['http://127.0.0.1:1'] });
      assert.throws(() => validateJudgePlan({ ...base, apiKeyOrigins: { K: 'http://x' } }, 'p.json'), /p\.json: apiKeyOrigins\.K: must be a non-empty list of origins/);
      assert.throws(() => validateJudgePlan({ ...base, apiKeyOrigins: { K: ['nope'] } }, 'p.json'), /p\.json: apiKeyOrigins\.K\[0\]: "nope" is not an absolute http\(s\) URL/);
      const gen = { generators: [{ backend: 'openai-chat', model: 'm', baseURL: 'http://127.0.0.1:1/v1', apiKeyEnv: 'K' }], preset: 'greedy' };
      assert.deepEqual(validateGeneratePlan({ ...gen, apiKeyOrigins: { K: ['http://127.0.0.1:1'] } }, 'g.json').apiKeyOrigins, { K: ['http://127.0.0.1:1'] });
      assert.throws(() => validateGeneratePlan({ ...gen, apiKeyOrigins: [] }, 'g.json'), ConfigError);
      assert.throws(() => validateApiKeyOrigins(3, (f, m) => assert.fail(`${f}: ${m}`)), /apiKeyOrigins: must map/);
    });
  });
});
