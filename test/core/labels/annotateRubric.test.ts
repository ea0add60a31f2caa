/**
 * Label operations on any rubric (src/core/labels/annotate.ts), and the MI preset's operations written exactly as
 * before rubrics: random sequences of MI operations give the same bytes as the frozen pre-rubric implementation
 * (oracle/miAnnotate.ts).
 */
import assert from 'node:assert/strict';
import seedrandom from 'seedrandom';
import { applyLabelOpToAnnotation, dimensionOpOf, miLabelOpOf, type DimensionOp, type LabelOp } from '../../../src/core/labels/annotate';
import * as oracle from './oracle/miAnnotate';
import { ERROR_CATEGORIES } from '../../../src/core/labels/scheme';
import type { Annotation } from '../../../src/core/dialogue/types';
import type { Rubric } from '../../../src/core/rubric/rubric';

const T = new Date('2026-01-02T03:04:05.000Z');

/** A random MI operation (every kind, every value, clears included). */
function randomOp(r: () => number): oracle.LabelOp {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)];
  switch (Math.floor(r() * 5)) {
    case 0:
      return { kind: 'coherence', coherent: pick([true, false, null]) };
    case 1:
      return { kind: 'toggleError', error: pick(ERROR_CATEGORIES) };
    case 2:
      return { kind: 'mostEvidentError', error: pick([...ERROR_CATEGORIES, null]) };
    case 3:
      return { kind: 'empathy', value: pick([1, 2, 3, 4, 5, null] as const) };
    default:
      return { kind: 'otherText', text: pick(['', '  ', 'odd tone', 'says "you" twice']) };
  }
}

describe('label operations on a rubric', () => {
  it('write the MI preset exactly as before rubrics: 20,000 random sequences, byte for byte (MI names and dimension names)', () => {
    const r = seedrandom('mi-bytes');
    let changed = 0;
    for (let run = 0; run < 2000; run++) {
      let old: Annotation | undefined = r() < 0.2 ? { annotator: 'me', note: 'kept', group: 'expert' } : undefined;
      let mi: Annotation | undefined = old && structuredClone(old);
      let dim: Annotation | undefined = old && structuredClone(old);
      for (let step = 0; step < 10; step++) {
        const op = randomOp(r);
        const o = oracle.applyLabelOpToAnnotation(old, 'me', op, T);
        const m = applyLabelOpToAnnotation(mi, 'me', op as LabelOp, T);
        const d = applyLabelOpToAnnotation(dim, 'me', dimensionOpOf(op as LabelOp), T);
        assert.equal(JSON.stringify(m), JSON.stringify(o), `run ${run} step ${step}: ${JSON.stringify(op)} after ${JSON.stringify(old)}`);
        assert.equal(JSON.stringify(d), JSON.stringify(o), `run ${run} step ${step} (as a dimension op): ${JSON.stringify(op)}`);
        assert.equal(m === mi, o === old, 'no change returns the input itself');
        if (o !== old) changed++;
        [old, mi, dim] = [o, m, d];
      }
    }
    assert.ok(changed > 10000, `${changed} steps changed the annotation`);
  });

  it('names each MI operation as it was, and each dimension operation on the preset by its MI name', () => {
    const ops: LabelOp[] = [
      { kind: 'coherence', coherent: null },
      { kind: 'toggleError', error: 'other' },
      { kind: 'mostEvidentError', error: 'parroting' },
      { kind: 'empathy', value: 3 },
      { kind: 'otherText', text: 'x' },
    ];
    for (const op of ops) assert.deepEqual(miLabelOpOf(dimensionOpOf(op)), op);
    assert.deepEqual(miLabelOpOf({ kind: 'set', dimension: 'Overall', value: 3 }), { kind: 'set', dimension: 'Overall', value: 3 });
  });

  const rubric: Rubric = {
    version: 1,
    name: 'quality',
    primary: 'fluency',
    dimensions: [
      { name: 'fluency', type: 'ordinal', points: [1, 2, 3, 4, 5].map((value) => ({ value })) },
      { name: 'relevant', type: 'binary' },
      { name: 'why not', type: 'categorical', when: { dimension: 'relevant', equals: false }, options: [{ value: 'generic' }, { value: 'off-topic' }] },
      { name: 'flaws', type: 'multiSelect', options: [{ value: 'a' }, { value: 'b' }, { value: 'c' }], mostEvident: { name: 'worst' } },
      { name: 'flaw note', type: 'text', when: { dimension: 'flaws', includes: 'c' } },
      { name: 'length', type: 'numeric', min: 0, max: 10, step: 0.5 },
    ],
  };
  const run = (ops: DimensionOp[], start?: Annotation) => ops.reduce<Annotation | undefined>((a, op) => applyLabelOpToAnnotation(a, 'E1', op, T, rubric), start);
  const plain = (a: Annotation | undefined) => {
    const { updatedAt: _, ...rest } = a ?? ({} as Annotation);
    return rest;
  };

  it('sets each type of dimension under its name, and refuses a value it cannot take', () => {
    const a = run([
      { kind: 'set', dimension: 'fluency', value: 4 },
      { kind: 'set', dimension: 'relevant', value: true },
      { kind: 'toggle', dimension: 'flaws', option: 'b' },
      { kind: 'toggle', dimension: 'flaws', option: 'a' },
      { kind: 'mostEvident', dimension: 'flaws', option: 'b' },
      { kind: 'set', dimension: 'length', value: 2.5 },
    ]);
    assert.equal(JSON.stringify(plain(a)), JSON.stringify({ annotator: 'E1', fluency: 4, relevant: true, flaws: ['a', 'b'], worst: 'b', length: 2.5 }));
    assert.throws(() => run([{ kind: 'set', dimension: 'fluency', value: 6 }]), /fluency must be one of 1, 2, 3, 4, 5, got 6/);
    assert.throws(() => run([{ kind: 'set', dimension: 'length', value: 2.25 }]), /length must be 0 plus a multiple of 0.5/);
    assert.throws(() => run([{ kind: 'set', dimension: 'nope', value: 1 }]), /has no dimension "nope"/);
    assert.throws(() => run([{ kind: 'toggle', dimension: 'flaws', option: 'z' }]), /flaws has no option "z"/);
    assert.throws(() => run([{ kind: 'toggle', dimension: 'fluency', option: 'a' }]), /fluency is ordinal, not a multi-select/);
  });

  it('answers what a dimension is asked under, and stashes it when that answer changes, then brings it back', () => {
    const why = run([{ kind: 'set', dimension: 'why not', value: 'generic' }]);
    assert.deepEqual(plain(why), { annotator: 'E1', relevant: false, 'why not': 'generic' });
    const flipped = run([{ kind: 'set', dimension: 'relevant', value: true }], why);
    assert.deepEqual(plain(flipped), { annotator: 'E1', relevant: true, stashed: { 'why not': 'generic' } });
    assert.deepEqual(plain(run([{ kind: 'set', dimension: 'relevant', value: false }], flipped)), plain(why));
    // A multi-select's option a text is asked under: chosen by the text, stashed with the option, back with it.
    const note = run([{ kind: 'set', dimension: 'flaw note', value: 'too long' }]);
    assert.deepEqual(plain(note), { annotator: 'E1', flaws: ['c'], 'flaw note': 'too long' });
    const off = run([{ kind: 'toggle', dimension: 'flaws', option: 'c' }], note);
    assert.deepEqual(plain(off), { annotator: 'E1', stashed: { 'flaw note': 'too long' } });
    assert.deepEqual(plain(run([{ kind: 'toggle', dimension: 'flaws', option: 'c' }], off)), plain(note));
    // Clearing stashes what is asked under it; blank text clears.
    assert.deepEqual(plain(run([{ kind: 'set', dimension: 'relevant', value: null }], why)), { annotator: 'E1', stashed: { 'why not': 'generic' } });
    assert.deepEqual(plain(run([{ kind: 'set', dimension: 'flaw note', value: ' ' }], note)), { annotator: 'E1', flaws: ['c'] });
  });

  it('unmarks the most evident option when it is unchosen or the list is replaced without it', () => {
    const a = run([{ kind: 'mostEvident', dimension: 'flaws', option: 'a' }, { kind: 'toggle', dimension: 'flaws', option: 'b' }]);
    assert.deepEqual(plain(a), { annotator: 'E1', flaws: ['a', 'b'], worst: 'a' });
    assert.deepEqual(plain(run([{ kind: 'toggle', dimension: 'flaws', option: 'a' }], a)), { annotator: 'E1', flaws: ['b'] });
    assert.deepEqual(plain(run([{ kind: 'set', dimension: 'flaws', value: ['c', 'b'] }], a)), { annotator: 'E1', flaws: ['b', 'c'] });
    assert.deepEqual(plain(run([{ kind: 'mostEvident', dimension: 'flaws', option: null }], a)), { annotator: 'E1', flaws: ['a', 'b'] });
  });
});
