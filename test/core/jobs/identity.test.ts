/**
 * Evaluator identity of judges: everything that changes a judge's output is in its id, never a secret.
 */
import assert from 'node:assert/strict';
import { judgeConfigDigest, judgeEvaluatorId } from '../../../src/core/judges/judge';
import { openAIJudgeSignature } from '../../../src/core/judges/openaiJudge';
import { parseJudgeId } from '../../../src/core/evaluators/evaluatorNames';

const variant = { body: 'instructions', request: 'rating' };
const base = { baseURL: 'http://127.0.0.1:8001/v1', model: 'same-judge' };
const id = (o: Parameters<typeof openAIJudgeSignature>[0]) => judgeEvaluatorId({ id: `api:${o.model}`, signature: openAIJudgeSignature(o) }, variant, 'abcdef012345');

describe('judge evaluator ids', () => {
  it('differ when the endpoint, temperature, reply length, logprobs, protocol or header names differ', () => {
    const ids = [
      id(base),
      id({ ...base, baseURL: 'http://127.0.0.1:8002/v1' }),
      id({ ...base, temperature: 0.7 }),
      id({ ...base, maxTokens: 32 }),
      id({ ...base, logprobs: true }),
      id({ ...base, endpoint: 'completions' }),
      id({ ...base, headers: { 'X-Org': 'a' } }),
    ];
    assert.equal(new Set(ids).size, ids.length);
  });

  it('are equal for the same configuration written differently (trailing slash, credentials in the URL, header values)', () => {
    assert.equal(id(base), id({ ...base, baseURL: 'http://127.0.0.1:8001/v1/' }));
    assert.equal(id(base), id({ ...base, baseURL: 'http://user:pw@127.0.0.1:8001/v1' }));
    assert.equal(id({ ...base, headers: { 'api-key': 'secret-1' } }), id({ ...base, headers: { 'Api-Key': 'secret-2' } }));
  });

  it('never contain a header value, a credential or an API key', () => {
    const sig = openAIJudgeSignature({ ...base, baseURL: 'http://user:pw@127.0.0.1:8001/v1', headers: { 'api-key': 'sk-SECRET' } });
    assert.ok(!sig.includes('sk-SECRET') && !sig.includes('pw'), sig);
    assert.match(sig, /headers:api-key/);
  });

  it('keep the 0.1.0 shape readable: judge, body, request, template hash, then ~config digest', () => {
    const parsed = parseJudgeId(id(base));
    assert.equal(parsed?.judge, 'api:same-judge');
    assert.equal(parsed?.body, 'instructions');
    assert.equal(parsed?.request, 'rating');
    assert.match(parsed?.hash ?? '', /^abcdef012345~[0-9a-f]{8}$/);
  });

  it('do not change with the ReflectEval version (a paid judge is not re-asked after an upgrade)', () => {
    assert.equal(judgeConfigDigest('backend:local|model:x|rv:0.1.0'), judgeConfigDigest('backend:local|model:x|rv:0.2.0'));
    assert.notEqual(judgeConfigDigest('backend:local|model:x|rv:0.1.0'), judgeConfigDigest('backend:local|model:y|rv:0.1.0'));
  });
});
