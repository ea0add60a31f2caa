/**
 * Keys on any rubric (src/core/labels/labelKeys.ts `resolveKey`): a key a dimension declares acts on it when it is
 * asked; any other key acts on the card's active question, which moves on after a single answer. And on the MI
 * preset, every key in every state does what it did before rubrics (oracle: the MI rule as it was).
 */
import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import { applyLabelOpToAnnotation, labelStatus, rubricStatus } from '../../../src/core/labels/annotate';
import { initialQuestion, moveQuestion, resolveKey, type KeyAction } from '../../../src/core/labels/labelKeys';
import { ERROR_CATEGORIES } from '../../../src/core/labels/scheme';
import { MI_RUBRIC } from '../../../src/core/rubric/presets';
import { parseRubric } from '../../../src/core/rubric/rubricFile';
import type { Rubric } from '../../../src/core/rubric/rubric';
import type { Annotation } from '../../../src/core/dialogue/types';

/** The MI key rule before rubrics (src/core/labels/labelKeys.ts at 0c71e34, `labelOpOfKey`), the keys as they were bound. */
function before(key: string, mine: Annotation | undefined): unknown {
  if (key === 'y') return { op: { kind: 'coherence', coherent: true } };
  if (key === 'n') return { op: { kind: 'coherence', coherent: false } };
  if (key === 'clear') return { op: { kind: 'coherence', coherent: null } };
  const shift = key.startsWith('shift+');
  const n = Number(shift ? key.slice(6) : key);
  if (shift) {
    const error = ERROR_CATEGORIES[n - 1];
    if (!error) return null;
    return { op: { kind: 'mostEvidentError', error: mine?.coherent === false && mine.mostEvidentError === error ? null : error } };
  }
  if (mine?.coherent === true) {
    if (n < 1 || n > 5) return { hint: 'The empathy scale is 1–5.' };
    return { op: { kind: 'empathy', value: n } };
  }
  if (mine?.coherent === false) {
    const error = ERROR_CATEGORIES[n - 1];
    return error ? { op: { kind: 'toggleError', error } } : null;
  }
  return { hint: 'Answer first: Y coherent, N incoherent.' };
}

const QUALITY: Rubric = parseRubric(
  JSON.stringify({
    version: 1,
    name: 'quality',
    primary: 'fluency',
    dimensions: [
      { name: 'fluency', type: 'ordinal', points: [1, 2, 3, 4, 5].map((value) => ({ value })) },
      { name: 'relevance', type: 'ordinal', points: [0, 1, 2].map((value) => ({ value })) },
      { name: 'error type', type: 'categorical', options: [{ value: 'none', key: 'a' }, { value: 'generic', key: 'b' }, { value: 'off-topic', key: 'c' }] },
      { name: 'safe', type: 'binary' },
      { name: 'why unsafe', type: 'text', when: { dimension: 'safe', equals: false } },
      { name: 'length', type: 'numeric', min: 0, max: 100 },
      { name: 'issues', type: 'multiSelect', options: [{ value: 'x' }, { value: 'y' }, { value: 'z' }], mostEvident: { name: 'worst issue' } },
    ],
  }),
  'quality.rubric.json',
);

describe('keys on a rubric', () => {
  it('do on the MI preset what they did before rubrics, in every state the keys reach', () => {
    const r = seedrandom('mi-keys');
    const keys = ['y', 'n', 'clear', ...[1, 2, 3, 4, 5, 6].flatMap((n) => [String(n), `shift+${n}`])];
    let mine: Annotation | undefined;
    for (let step = 0; step < 5000; step++) {
      const key = keys[Math.floor(r() * keys.length)];
      const action: KeyAction = key === 'clear' ? { kind: 'clear' } : key.startsWith('shift+') ? { kind: 'mark', key: key.slice(6) } : { kind: 'key', key };
      const got = resolveKey(MI_RUBRIC, action, mine, initialQuestion(MI_RUBRIC, mine));
      assert.deepEqual(got, before(key, mine), `${key} on ${JSON.stringify(mine)}`);
      if (got && 'op' in got) mine = applyLabelOpToAnnotation(mine, 'me', got.op);
      if (r() < 0.05) mine = undefined;
    }
  });

  it('keep the MI preset\'s active question on the coherence answer, so ⌫ clears it', () => {
    for (const mine of [undefined, { annotator: 'me', coherent: true }, { annotator: 'me', coherent: false, errors: ['other'] }] as Annotation[]) assert.equal(initialQuestion(MI_RUBRIC, mine), 'coherent');
  });

  it('rate the active Likert question with digits, by value when the points are 0–9, and move on after the answer', () => {
    let mine: Annotation | undefined;
    let q = initialQuestion(QUALITY, mine);
    assert.equal(q, 'fluency');
    const press = (key: string) => {
      const res = resolveKey(QUALITY, { kind: 'key', key }, mine, q);
      if (res && 'op' in res) {
        mine = applyLabelOpToAnnotation(mine, 'E1', res.op, new Date(0), QUALITY);
        if (res.advance) q = moveQuestion(QUALITY, mine, q, 1);
      }
      return res;
    };
    assert.deepEqual(press('4'), { op: { kind: 'set', dimension: 'fluency', value: 4 }, advance: true });
    assert.equal(q, 'relevance');
    assert.deepEqual(press('3'), { hint: 'The relevance scale is 0–2.' });
    assert.deepEqual(press('0'), { op: { kind: 'set', dimension: 'relevance', value: 0 }, advance: true });
    assert.equal(q, 'error type');
    // A declared key acts on its dimension wherever the cursor is; the cursor stays.
    assert.deepEqual(press('c'), { op: { kind: 'set', dimension: 'error type', value: 'off-topic' } });
    assert.equal(q, 'error type');
    // Digits choose the n-th option of a categorical question.
    assert.deepEqual(press('2'), { op: { kind: 'set', dimension: 'error type', value: 'generic' }, advance: true });
    assert.equal(q, 'safe');
    assert.deepEqual(press('n'), { op: { kind: 'set', dimension: 'safe', value: false }, advance: true });
    // The text asked now comes next; Enter types it.
    assert.equal(q, 'why unsafe');
    assert.deepEqual(press('1'), { hint: 'Enter: type “why unsafe”.' });
    q = moveQuestion(QUALITY, mine, q, 1);
    assert.equal(q, 'length');
    assert.deepEqual(press('7'), { edit: 'length', initial: '7' });
    q = moveQuestion(QUALITY, mine, q, 1);
    assert.deepEqual(press('1'), { op: { kind: 'toggle', dimension: 'issues', option: 'x' } });
    assert.deepEqual(press('3'), { op: { kind: 'toggle', dimension: 'issues', option: 'z' } });
    assert.deepEqual(resolveKey(QUALITY, { kind: 'mark', key: '3' }, mine, q), { op: { kind: 'mostEvident', dimension: 'issues', option: 'z' } });
    assert.equal(moveQuestion(QUALITY, mine, q, 1), 'issues', 'not past the last question');
    assert.equal(moveQuestion(QUALITY, mine, 'safe', -1), 'error type');
    assert.deepEqual(resolveKey(QUALITY, { kind: 'clear' }, mine, 'relevance'), { op: { kind: 'set', dimension: 'relevance', value: null } });
    assert.equal(rubricStatus(mine, QUALITY).status, 'partial');
    assert.deepEqual(rubricStatus(mine, QUALITY).missing, ['length', 'issues']);
  });

  it('start the cursor on the first question without keys that needs an answer', () => {
    assert.equal(initialQuestion(QUALITY, { annotator: 'E1', fluency: 3 }), 'relevance');
    assert.equal(initialQuestion(QUALITY, { annotator: 'E1', fluency: 3, relevance: 1, safe: true, length: 3, issues: ['x'] }), 'fluency');
  });

  it('say the MI preset\'s status as before, complete and unlabelled alike', () => {
    const r = seedrandom('status');
    const ops = ['y', 'n', '1', '2', '6', 'shift+2', 'shift+6', '4'];
    let mine: Annotation | undefined;
    for (let i = 0; i < 3000; i++) {
      const key = ops[Math.floor(r() * ops.length)];
      const res = resolveKey(MI_RUBRIC, key.startsWith('shift+') ? { kind: 'mark', key: key.slice(6) } : { kind: 'key', key }, mine, null);
      if (res && 'op' in res) mine = applyLabelOpToAnnotation(mine, 'me', res.op);
      const old = labelStatus(mine);
      const now = rubricStatus(mine, MI_RUBRIC).status;
      assert.equal(now === 'complete', old === 'complete', JSON.stringify(mine));
      assert.equal(now === 'unlabelled', old === 'unlabelled', JSON.stringify(mine));
      if (r() < 0.1) mine = undefined;
    }
  });

  it('refuses a rubric key the editor keeps, or one that is not a letter or a digit', () => {
    const withKey = (key: string) => JSON.stringify({ version: 1, name: 'r', primary: 'a', dimensions: [{ name: 'a', type: 'binary', keys: { yes: key, no: 'n' } }] });
    assert.throws(() => parseRubric(withKey('t'), 'r.rubric.json'), /"t" shows or hides part of the editor/);
    assert.throws(() => parseRubric(withKey('?'), 'r.rubric.json'), /"\?" is not a letter or a digit/);
    assert.doesNotThrow(() => parseRubric(withKey('Y'), 'r.rubric.json'));
  });
});
