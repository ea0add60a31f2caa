import assert from 'node:assert/strict';
import { buildSignature, parseSignature, shortDigest } from '../../../src/core/evaluators/signature';

describe('signatures (one helper for every evaluator)', () => {
  it('joins fields in order, leaves out unset ones and ends with the ReflectEval version', () => {
    assert.equal(buildSignature([['impl', 'nltk-3.8'], ['tok', 'whitespace'], ['stem', undefined], ['smooth', 'none']], '9.9.9'), 'impl:nltk-3.8|tok:whitespace|smooth:none|rv:9.9.9');
  });

  it('round-trips values holding the separator or a percent sign', () => {
    const sig = buildSignature([['url', 'http://h/v1?a=1|2'], ['note', '100%|x']], '1');
    assert.equal(sig.split('|').length, 3);
    const back = parseSignature(sig);
    assert.equal(back.get('url'), 'http://h/v1?a=1|2');
    assert.equal(back.get('note'), '100%|x');
    assert.equal(back.get('rv'), '1');
  });

  it('refuses malformed, reserved and repeated keys', () => {
    assert.throws(() => buildSignature([['a b', 1]]), /signature key "a b"/);
    assert.throws(() => buildSignature([['rv', 1]]), /not "rv"/);
    assert.throws(() => buildSignature([['a', 1], ['a', 2]]), /given twice/);
  });

  it('reads signatures written before the helper', () => {
    const m = parseSignature('impl:rouge-score-0.1.2|tok:default|stem:none|rv:0.1.0');
    assert.deepEqual([...m.keys()], ['impl', 'tok', 'stem', 'rv']);
  });

  it('digests to short stable hex', () => {
    assert.match(shortDigest('x'), /^[0-9a-f]{8}$/);
    assert.equal(shortDigest('x'), shortDigest('x'));
    assert.notEqual(shortDigest('x'), shortDigest('y'));
  });
});
