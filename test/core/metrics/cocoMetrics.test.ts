/**
 * nlg-eval's metrics (cocoBleu, cocoRougeL) and ROUGE-L's beta: hand-worked values, the edge cases of
 * pycocoevalcap's two tokenizations and constants, the metric contract (configuration, signatures, names,
 * warnings, the scoring loop and score plans) and the docs. Parity with pycocoevalcap itself: cocoParity.test.ts.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { displayName, displayNames } from '../../../src/core/evaluators/evaluatorNames';
import { getMetric, listMetrics, MetricConfigError, metricEvaluatorId, scoreItems, valueWarning, type MetricValues } from '../../../src/core/metrics';
import { cocoBleuCorpus, cocoBleuCounts, cocoBleuSentence, cookCocoReferences } from '../../../src/core/metrics/cocoBleu';
import { cocoRougeL, cocoRougeLCorpus, cocoRougeTokens } from '../../../src/core/metrics/cocoRougeL';
import { rougeFMeasure } from '../../../src/core/metrics/rougeL';
import { metricRuns } from '../../../src/core/metrics/runSpec';
import { crPow, decompose, exactForTests } from '../../../src/core/metrics/text/libm';
import { pyStrip } from '../../../src/core/metrics/text/python';
import { REFLECT_EVAL_VERSION } from '../../../src/core/version';

const TINY = 1e-15;
const SMALL = 1e-9;

function close(actual: number, expected: number, rel = 1e-12, what = ''): void {
  assert.ok(Math.abs(actual - expected) <= rel * Math.abs(expected), `${what}: ${actual} vs ${expected}`);
}

describe('cocoBleu: pycocoevalcap BLEU-1 … BLEU-4 as nlg-eval computes them', () => {
  it('a 3-word candidate against 4 reference words, worked by hand: BLEU-4 is not 0 but (1e-15/1e-9)^(1/4) · …', () => {
    const v = cocoBleuSentence('you feel tired', ['you feel tired today']);
    const p = [(3 + TINY) / (3 + SMALL), (2 + TINY) / (2 + SMALL), (1 + TINY) / (1 + SMALL), TINY / SMALL];
    const bp = Math.exp(1 - (4 + SMALL) / (3 + TINY)); // ≈ e^(−1/3)
    close(v[0], p[0] * bp, 1e-15, 'BLEU-1');
    close(v[1], Math.sqrt(p[0] * p[1]) * bp, 1e-15, 'BLEU-2');
    close(v[2], Math.cbrt(p[0] * p[1] * p[2]) * bp, 1e-14, 'BLEU-3');
    close(v[3], (p[0] * p[1] * p[2] * p[3]) ** 0.25 * bp, 1e-14, 'BLEU-4');
    close(v[3], 0.031622776601683794 * Math.exp(-1 / 3), 1e-8, 'BLEU-4 ≈ 10^-1.5 · e^(-1/3)');
  });

  it('counts as cook_refs/cook_test do: str.split() tokens, clipped matches, the closest reference length (ties to the shorter)', () => {
    const c = cocoBleuCounts('the the the the', cookCocoReferences(['the cat', 'the the dog']));
    assert.deepEqual(c, { testlen: 4, reflen: 3, guess: [4, 3, 2, 1], correct: [2, 1, 0, 0] });
    assert.equal(cocoBleuCounts('a b c d e', ['a b c d', 'a b c d e f']).reflen, 4);
    assert.equal(cocoBleuCounts('a b c d e', ['a b c d e f', 'a b c d']).reflen, 4);
    // Python's str.split(): NBSP, thin space, ideographic space, tab, U+001C … split; U+200B and U+FEFF do not.
    assert.deepEqual(cocoBleuCounts('you\u00a0feel\u2009tired\u3000now\x1cok\tyes', ['x']).testlen, 6);
    assert.deepEqual(cocoBleuCounts('zero\u200bwidth\ufeffspace', ['x']).testlen, 1);
    assert.deepEqual(cocoBleuSentence('you\u00a0feel\ttired', ['you feel tired today']), cocoBleuSentence('you feel tired', ['you feel tired today']));
  });

  it('an empty candidate scores 0; one without any shared word ≈ 1e-16 · guesses; a longer one has no brevity penalty', () => {
    assert.deepEqual(cocoBleuSentence('', ['you feel tired']), [0, 0, 0, 0]);
    assert.deepEqual(cocoBleuSentence('   ', ['']), [0, 0, 0, 0]);
    const none = cocoBleuSentence('x y z', ['a b c']);
    close(none[0], (TINY / (3 + SMALL)) * Math.exp(1 - (3 + SMALL) / (3 + TINY)), 1e-15, 'no overlap');
    assert.ok(none[3] > 0 && none[3] < 1e-10);
    // Repeated words are clipped by the reference count: 1 of 4 unigrams matches.
    close(cocoBleuSentence('the the the the', ['the cat'])[0], (1 + TINY) / (4 + SMALL), 1e-15, 'clipped');
    // Identical texts fall just short of 1 (the constants): 1 − ~1e-9.
    const same = cocoBleuSentence('you feel tired today', ['you feel tired today']);
    for (const v of same) assert.ok(v < 1 && v > 1 - 1e-8, String(v));
  });

  it('the corpus score pools counts: not the mean of the per-sentence scores', () => {
    const segments = [
      { hypothesis: 'a b c d', references: ['a b c d'] },
      { hypothesis: 'x', references: ['y'] },
    ];
    const corpus = cocoBleuCorpus(segments);
    // testlen 5 = reflen 5; unigrams 4 of 5 match.
    close(corpus[0], ((4 + TINY) / (5 + SMALL)) * Math.exp(1 - (5 + SMALL) / (5 + TINY)), 1e-15, 'corpus BLEU-1');
    const mean = (cocoBleuSentence('a b c d', ['a b c d'])[0] + cocoBleuSentence('x', ['y'])[0]) / 2;
    close(mean, 0.5, 1e-8, 'mean of per-sentence BLEU-1');
    assert.throws(() => cocoBleuSentence('a', []), RangeError);
  });

  it('is a registered metric with four outputs, no configuration and a signature', () => {
    const m = getMetric('cocoBleu');
    assert.ok(listMetrics().includes(m));
    assert.deepEqual(m.outputs.map((o) => o.name), ['bleu1', 'bleu2', 'bleu3', 'bleu4']);
    assert.ok(m.requiresReference && m.card.citation.includes('@') && m.card.reference?.includes('ad63453c'));
    assert.deepEqual(m.configure({}), {});
    assert.throws(() => m.configure({ n: 3 }), (e: unknown) => e instanceof MetricConfigError && e.field === 'n');
    assert.equal(m.signature({}), `impl:pycocoevalcap-1.2|tok:whitespace|rv:${REFLECT_EVAL_VERSION}`);
  });

  it('warns on BLEU-k, and only there, when some order from 2 to k has no match', async () => {
    const m = getMetric('cocoBleu');
    const [short, quit, none, empty] = await m.score(
      [
        { candidate: 'you feel tired', reference: 'you feel tired today' },
        { candidate: 'You want to quit smoking.', reference: 'You are not sure you want to quit.' },
        { candidate: 'x y', reference: 'a b' },
        { candidate: '', reference: 'a b' },
      ],
      {},
    );
    assert.deepEqual(['bleu1', 'bleu2', 'bleu3', 'bleu4'].map((o) => Boolean(valueWarning(short, o))), [false, false, false, true]);
    assert.deepEqual(['bleu1', 'bleu2', 'bleu3', 'bleu4'].map((o) => Boolean(valueWarning(quit, o))), [false, false, true, true]);
    assert.match(valueWarning(short, 'bleu4')!, /1e-15/);
    // No shared word at all (or no word): BLEU is ≈0 for a plain reason; nothing to warn about.
    for (const v of [none, empty] as MetricValues[]) for (const o of ['bleu1', 'bleu4']) assert.equal(valueWarning(v, o), undefined);
  });

  it('reproduces the values in its card (computed by pycocoevalcap)', async () => {
    const m = getMetric('cocoBleu');
    assert.ok((m.card.examples ?? []).length >= 2);
    for (const ex of m.card.examples ?? []) {
      const [got] = await m.score([ex.input], m.configure(ex.config ?? {}));
      for (const [k, v] of Object.entries(ex.values)) assert.equal(got[k], v, `${k} on ${ex.input.candidate}`);
    }
  });
});

describe('crPow: correctly rounded x ** y (pycocoevalcap\'s n-th roots)', () => {
  /** x as an exact fraction n / 2^s. */
  const exact = (x: number): [bigint, bigint] => {
    const { mant, exp } = decompose(x);
    return exp >= 0 ? [mant << BigInt(exp), 0n] : [mant, BigInt(-exp)];
  };

  it('fourth roots: the two midpoints around the result bracket x exactly (integer arithmetic)', () => {
    let state = 12345;
    for (let i = 0; i < 3000; i++) {
      state = (state * 48271) % 2147483647;
      const u = state / 2147483647;
      const x = u ** (1 + (i % 4) * 10); // down to ~1e-300
      if (x < 2.2250738585072014e-308) continue;
      const r = crPow(x, 0.25);
      const { mant, exp } = decompose(r);
      // midpoints (2m ± 1) · 2^(e−1); compare (2m ± 1)^4 · 2^(4e−4) with x = n / 2^s
      const [n, s] = exact(x);
      const shift = BigInt(4 * (exp - 1)) + s; // (2m±1)^4 · 2^shift vs n
      const cmp = (m: bigint): number => {
        const lhs = m ** 4n;
        const [a, b] = shift >= 0n ? [lhs << shift, n] : [lhs, n << -shift];
        return a < b ? -1 : a > b ? 1 : 0;
      };
      assert.equal(cmp(2n * mant - 1n), -1, `lower midpoint of ${x} ** 0.25 = ${r}`);
      assert.equal(cmp(2n * mant + 1n), 1, `upper midpoint of ${x} ** 0.25 = ${r}`);
    }
  });

  it('cube roots (y = 1/3 as a double) agree with the 240-bit evaluation; special cases as Python', () => {
    let state = 777;
    for (let i = 0; i < 300; i++) {
      state = (state * 48271) % 2147483647;
      const x = (state / 2147483647) ** 3;
      assert.equal(crPow(x, 1 / 3), exactForTests.pow(x, 1 / 3), `${x} ** (1/3)`);
    }
    assert.equal(crPow(0.0625, 0.25), 0.5);
    assert.equal(crPow(2, 0.5), Math.SQRT2);
    assert.equal(crPow(0.3, 1), 0.3);
    assert.equal(crPow(1, 0.3), 1);
    assert.equal(crPow(0, 0.25), 0);
    assert.equal(crPow(1e-6, 0.25), 0.03162277660168379);
  });
});

describe('cocoRougeL: pycocoevalcap ROUGE-L (β = 1.2) as nlg-eval computes it', () => {
  it('tokens: str.strip() then str.split(" ") — double spaces give empty tokens, tabs and NBSP stay inside', () => {
    assert.deepEqual(cocoRougeTokens('  you  feel\ttired\u00a0now \u3000'), ['you', '', 'feel\ttired\u00a0now']);
    assert.deepEqual(cocoRougeTokens(''), ['']);
    assert.deepEqual(cocoRougeTokens(' \u2028\x1c '), ['']);
    assert.equal(pyStrip('\ufeffx\u200b'), '\ufeffx\u200b', 'U+FEFF and U+200B are not Python whitespace');
  });

  it('worked by hand: F = (1 + 1.2²)PR / (R + 1.2²P)', () => {
    // LCS("you want to quit smoking.", "You are not sure you want to quit.") = you want to: P = 3/5, R = 3/8.
    close(cocoRougeL('you want to quit smoking.', ['You are not sure you want to quit.']), (2.44 * 0.6 * 0.375) / (0.375 + 1.44 * 0.6), 1e-15);
    // An empty candidate is one empty token, and matches the empty token between two spaces: P = 1, R = 1/3.
    close(cocoRougeL('', ['you  feel']), 2.44 / 5.32, 1e-15, 'empty vs double space');
    assert.equal(cocoRougeL('', ['']), 1);
    assert.equal(cocoRougeL('\u3000you feel\u00a0', ['you feel']), 1);
    // A tab does not separate tokens: "you\tfeel" is one token that matches nothing.
    assert.equal(cocoRougeL('you\tfeel', ['you feel']), 0);
    assert.equal(cocoRougeL('You Feel', ['you feel']), 0, 'case kept');
    // Several references: precision and recall maximised separately (P from the first, R from the second).
    close(cocoRougeL('a b', ['a b c d e f', 'a']), (2.44 * 1 * 1) / (1 + 1.44 * 1), 1e-15, 'max P and max R');
  });

  it('corpus: NumPy\'s mean of the per-candidate values; NaN for no candidate', () => {
    const segments = [
      { hypothesis: 'a b', references: ['a b'] },
      { hypothesis: 'a', references: ['a b'] },
    ];
    close(cocoRougeLCorpus(segments), (1 + (2.44 * 0.5) / (0.5 + 1.44)) / 2, 1e-15);
    assert.ok(Number.isNaN(cocoRougeLCorpus([])));
    assert.deepEqual(getMetric('cocoRougeL').corpus!([], { beta: 1.2 }), { f: null });
  });

  it('is a registered metric: output f, β = 1.2 by default and always in its signature', () => {
    const m = getMetric('cocoRougeL');
    assert.deepEqual(m.outputs.map((o) => o.name), ['f']);
    assert.deepEqual(m.configure({}), { beta: 1.2 });
    assert.equal(m.signature(m.configure({})), `impl:pycocoevalcap-1.2|tok:space|beta:1.2|rv:${REFLECT_EVAL_VERSION}`);
    assert.equal(m.signature(m.configure({ beta: 1 })), `impl:pycocoevalcap-1.2|tok:space|beta:1|rv:${REFLECT_EVAL_VERSION}`);
    for (const beta of [0, -1, Number.NaN, Infinity, '1.2']) assert.throws(() => m.configure({ beta: beta as number }), (e: unknown) => e instanceof MetricConfigError && e.field === 'beta');
    assert.throws(() => m.configure({ stemmer: true } as never), (e: unknown) => e instanceof MetricConfigError && e.field === 'stemmer');
  });

  it('reproduces the values in its card (computed by pycocoevalcap)', async () => {
    const m = getMetric('cocoRougeL');
    for (const ex of m.card.examples ?? []) {
      const [got] = await m.score([ex.input], m.configure(ex.config ?? {}));
      for (const [k, v] of Object.entries(ex.values)) assert.equal(got[k], v, `${k} on ${ex.input.candidate}`);
    }
  });
});

describe('ROUGE-L (rouge-score) with beta', () => {
  const rouge = getMetric('rougeL');

  it('keeps β = 1 out of the signature, so existing ids are unchanged; any other β is in it', () => {
    const v = REFLECT_EVAL_VERSION;
    assert.equal(rouge.signature(rouge.configure()), `impl:rouge-score-0.1.2|tok:default|stem:none|rv:${v}`);
    assert.equal(rouge.signature(rouge.configure({ beta: 1 })), rouge.signature(rouge.configure()));
    assert.equal(rouge.signature(rouge.configure({ beta: 1.2 })), `impl:rouge-score-0.1.2|tok:default|stem:none|beta:1.2|rv:${v}`);
    assert.equal(rouge.signature(rouge.configure({ stemmer: true, beta: 2 })), `impl:rouge-score-0.1.2|tok:default|stem:porter-nltk-3.8|beta:2|rv:${v}`);
    for (const beta of [0, -0.5, Number.NaN, Infinity, null]) assert.throws(() => rouge.configure({ beta }), (e: unknown) => e instanceof MetricConfigError && e.field === 'beta');
  });

  it('changes F only: precision and recall stay; β → ∞ tends to recall, β → 0 to precision', async () => {
    const input = { candidate: 'You want to quit smoking.', reference: 'You are not sure you want to quit.' };
    const [one] = await rouge.score([input], rouge.configure());
    const [b12] = await rouge.score([input], rouge.configure({ beta: 1.2 }));
    const [big] = await rouge.score([input], rouge.configure({ beta: 1e4 }));
    const [small] = await rouge.score([input], rouge.configure({ beta: 1e-4 }));
    assert.equal(one.precision, b12.precision);
    assert.equal(one.recall, b12.recall);
    assert.equal(one.f, (2 * 0.8 * 0.5) / 1.3);
    close(b12.f as number, (2.44 * 0.8 * 0.5) / (0.5 + 1.44 * 0.8), 1e-15);
    close(big.f as number, 0.5, 1e-6);
    close(small.f as number, 0.8, 1e-6);
    // At β = 1 the expression is rouge-score's fmeasure bit for bit.
    for (const [p, r] of [[0.1, 0.7], [1 / 3, 2 / 7], [0.8, 0.5], [1, 1e-3]]) assert.equal(rougeFMeasure(p, r, 1), (2 * p * r) / (p + r));
  });
});

describe('nlg-eval metrics in the score job, the tables\' names and the docs', () => {
  const item = (id: string, reference: string | undefined, texts: string[]): DialogueItem => ({
    id,
    context: [{ speaker: 'client', text: 'I am so tired.' }],
    ...(reference !== undefined ? { reference: { text: reference } } : {}),
    candidates: texts.map((text, k) => ({ id: `c${k}`, text, origin: { kind: 'model' as const }, annotations: [], scores: {} })),
  });

  it('scores every candidate under four BLEU ids, the warning only where it belongs, never the reference against itself', async () => {
    const items = [item('i1', 'you feel tired today', ['you feel tired', 'you feel tired today', 'so tired']), item('i2', undefined, ['anything'])];
    items[0].candidates[1].origin = { kind: 'human' } as never;
    const res = await scoreItems(items, getMetric('cocoBleu'));
    const sig = `impl:pycocoevalcap-1.2|tok:whitespace|rv:${REFLECT_EVAL_VERSION}`;
    assert.deepEqual(res.evaluatorIds, ['bleu1', 'bleu2', 'bleu3', 'bleu4'].map((o) => metricEvaluatorId('cocoBleu', o, sig as never)));
    const [b1, , , b4] = res.evaluatorIds;
    const c0 = res.items[0].candidates[0].scores;
    assert.equal(c0[b4].value, 0.022658709544448513);
    assert.ok(c0[b4].warning && !c0[b1].warning);
    assert.equal(res.items[0].candidates[1].scores[b1].reason, 'is-reference');
    assert.equal(res.references, 1);
    assert.equal(res.items[1].candidates[0].scores[b1].status, 'error');
    assert.equal(res.failures, 1);
  });

  it('reads as BLEU-1 … BLEU-4 (coco) and ROUGE-L (coco); ROUGE-L with β names its β beside the default', () => {
    const sig = `impl:pycocoevalcap-1.2|tok:whitespace|rv:${REFLECT_EVAL_VERSION}`;
    assert.deepEqual(
      ['bleu1', 'bleu2', 'bleu3', 'bleu4'].map((o) => displayName(`metric:cocoBleu.${o}@${sig}`)),
      ['BLEU-1 (coco)', 'BLEU-2 (coco)', 'BLEU-3 (coco)', 'BLEU-4 (coco)'],
    );
    const coco = `metric:cocoRougeL.f@impl:pycocoevalcap-1.2|tok:space|beta:1.2|rv:${REFLECT_EVAL_VERSION}`;
    assert.equal(displayName(coco), 'ROUGE-L (coco)');
    const r1 = `metric:rougeL.f@impl:rouge-score-0.1.2|tok:default|stem:none|rv:${REFLECT_EVAL_VERSION}`;
    const r12 = `metric:rougeL.f@impl:rouge-score-0.1.2|tok:default|stem:none|beta:1.2|rv:${REFLECT_EVAL_VERSION}`;
    const names = displayNames([r1, r12, coco]);
    assert.deepEqual([names.get(r1), names.get(r12), names.get(coco)], ['ROUGE-L', 'ROUGE-L (beta 1.2)', 'ROUGE-L (coco)']);
  });

  it('score plans: --metric cocoBleu cocoRougeL, and --config \'{"rougeL": {"beta": 1.2}}\'', () => {
    const runs = metricRuns(['cocoBleu', 'cocoRougeL'], undefined);
    assert.deepEqual(runs.map((r) => [r.metric.name, r.config]), [['cocoBleu', {}], ['cocoRougeL', { beta: 1.2 }]]);
    const beta = metricRuns(undefined, { rougeL: { beta: 1.2 } });
    assert.deepEqual(beta.map((r) => r.config), [{ stemmer: false, beta: 1.2 }]);
    assert.throws(() => metricRuns(undefined, { rougeL: { beta: -1 } }, 'flags'), /flags: rougeL\.beta: must be a positive number/);
    assert.throws(() => metricRuns(['cocoBleu'], { smoothing: 'method1' }, 'flags'), /flags: cocoBleu\.smoothing: unknown field/);
  });

  it('are documented in docs/metrics.md with their default signatures', () => {
    const doc = readFileSync(join(__dirname, '../../../docs/metrics.md'), 'utf8');
    for (const n of ['cocoBleu', 'cocoRougeL']) {
      const m = getMetric(n);
      assert.ok(doc.includes(m.signature(m.configure({})).replace(/\|rv:.*$/, '')), `${n}'s signature`);
    }
    assert.ok(doc.includes('beta:1.2'));
    assert.ok(doc.includes('ad63453c'));
  });
});
