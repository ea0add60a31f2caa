import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import seedrandom from 'seedrandom';
import { getMetric, listMetrics, MetricConfigError, scoreItems } from '../../../src/core/metrics';
import { bleu4 } from '../../../src/core/metrics/bleu4';
import type { DialogueItem } from '../../../src/core/dialogue/types';
import { Fraction, fsum, pyLen, pyPow, pySplit, pyRstrip, ratioToNumber } from '../../../src/core/metrics/text/python';
import { crExp, crLog, exactForTests } from '../../../src/core/metrics/text/libm';
import { ngramStats, ngramStatsPrepared, prepareReference } from '../../../src/core/metrics/text/ngrams';
import { porterStem } from '../../../src/core/metrics/text/porter';
import { lcsLength } from '../../../src/core/metrics/rougeL';
import { rougeTokens, tokenize13a, wordTokens } from '../../../src/core/metrics/text/tokenize';
import { REFLECT_EVAL_VERSION } from '../../../src/core/version';

describe('Python semantics the reference metrics rely on', () => {
  it('str.split(): Python whitespace, including U+001C–U+001F and U+0085, excluding U+FEFF', () => {
    assert.deepEqual(pySplit(' a\x1cb\x85c\ufeffd '), ['a', 'b', 'c\ufeffd']);
    assert.deepEqual(pySplit('  '), []);
    assert.deepEqual(pySplit('a\u00a0b\u3000c\u2028d'), ['a', 'b', 'c', 'd']);
    assert.equal(pyRstrip('a \x1f\n'), 'a');
  });

  it('len(): code points', () => {
    assert.equal(pyLen('😀a'), 2);
    assert.equal(pyLen('\ud800'), 1);
  });

  it("math.fsum: CPython's test values, including the half-even fix-up across partials", () => {
    assert.equal(fsum(new Array(10).fill(0.1)), 1.0);
    assert.equal(fsum([1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50]), 1e-100);
    assert.equal(fsum([1e-16, 1, 1e16]), 10000000000000002);
    assert.equal(fsum([2 ** 53, -0.5, -(2 ** -54)]), 2 ** 53 - 1.0);
    assert.equal(fsum([2 ** 53, 1.0, 2 ** -100]), 2 ** 53 + 2.0);
    assert.equal(fsum([2 ** 53 + 10.0, 1.0, 2 ** -100]), 2 ** 53 + 12.0);
    assert.equal(fsum([2 ** 53 - 4.0, 0.5, 2 ** -54]), 2 ** 53 - 3.0);
    assert.equal(fsum([]), 0);
  });

  it('int / int: correctly rounded, ties to even, for integers beyond 2^53', () => {
    assert.equal(ratioToNumber(2n ** 53n + 1n, 1n), 2 ** 53);
    assert.equal(ratioToNumber(2n ** 53n + 3n, 1n), 2 ** 53 + 4);
    assert.equal(ratioToNumber(10n ** 30n + 1n, 3n * 10n ** 30n), 1 / 3);
    assert.equal(ratioToNumber(-(2n ** 70n), 3n * 2n ** 70n), -1 / 3);
    assert.equal(ratioToNumber(7n, 3n), 7 / 3);
    assert.equal(new Fraction(32n, 270n).add(Fraction.of(1)).toNumber(), 302 / 270);
  });

  it('float ** int: correctly rounded where JavaScript ** can be an ulp off', () => {
    // Python (glibc pow) gives 0.027000000000000014, the double nearest to the exact cube; V8's ** gives 0.02700000000000001.
    assert.equal(pyPow(0.1 + 0.2, 3), 0.027000000000000014);
    assert.equal(pyPow(0.5, 3), 0.125);
    assert.equal(pyPow(2, 0.5), Math.SQRT2);
  });

  it('float ** int equals the exactly computed power rounded once, on 60,000 random bases and every chunks/matches ratio', () => {
    const exact = (x: number, y: number): number => {
      const view = new DataView(new ArrayBuffer(8));
      view.setFloat64(0, x);
      const hi = view.getUint32(0);
      const biased = (hi >>> 20) & 0x7ff;
      let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(view.getUint32(4));
      if (biased) mant |= 1n << 52n;
      const e = ((biased || 1) - 1075) * y;
      const num = mant ** BigInt(y);
      return e >= 0 ? ratioToNumber(num << BigInt(e), 1n) : ratioToNumber(num, 1n << BigInt(-e));
    };
    const rng = seedrandom('pow');
    const wrong: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const x = rng() * (i % 3 ? 1 : 1000);
      for (const y of [2, 3, 4, 7]) if (pyPow(x, y) !== exact(x, y)) wrong.push(`${x}**${y}`);
    }
    for (let m = 1; m <= 80; m++) for (let c = 1; c <= m; c++) if (pyPow(c / m, 3) !== exact(c / m, 3)) wrong.push(`(${c}/${m})**3`);
    assert.deepEqual(wrong.slice(0, 5), []);
  });
});

describe('correctly rounded log and exp (BLEU)', () => {
  it('the fast double-double paths equal the 240-bit evaluation on 20,000 random arguments each', function () {
    this.timeout(120_000);
    const rng = seedrandom('libm');
    const wrong: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const x = i % 4 === 0 ? rng() * 1e-300 + 2.3e-308 : i % 4 === 1 ? rng() * 1000 : rng();
      if (crLog(x) !== exactForTests.log(x)) wrong.push(`log(${x})`);
      const y = i % 3 === 0 ? -rng() * 700 : (rng() - 0.5) * 8;
      if (crExp(y) !== exactForTests.exp(y)) wrong.push(`exp(${y})`);
    }
    assert.deepEqual(wrong.slice(0, 5), []);
  });

  it('round where V8 and even glibc do not (values checked with Python decimal at 60 digits)', () => {
    // glibc's exp gives 0.19634420247384105 here (math.exp); V8's Math.exp differs from both on other arguments.
    assert.equal(crExp(-1.627886024883257), 0.19634420247384102);
    assert.equal(crExp(-1.6501456081768546), 0.19202194661949215);
    assert.equal(crLog(1), 0);
    assert.equal(crExp(0), 1);
    assert.equal(crLog(2.2250738585072014e-308), -708.3964185322641);
    assert.equal(crExp(-1e10), 0);
  });
});

describe('tokenizers of the reference implementations', () => {
  it("sacreBLEU's tokenizer_13a (values from the sacreBLEU-equivalent Python)", () => {
    assert.equal(tokenize13a('Hello, world!'), 'Hello , world !');
    assert.equal(tokenize13a('It costs $3.50, or 1,000 dollars -5.'), 'It costs $ 3.50 , or 1,000 dollars -5 .');
    assert.equal(tokenize13a('&amp;lt;b&amp;gt; &quot;hi&quot;'), '< b > " hi "');
    assert.equal(tokenize13a('1990-1995 well-\nbeing <skipped>'), '1990 - 1995 wellbeing');
    assert.equal(tokenize13a('U.S.A. e.g., 3.'), 'U . S . A . e . g . , 3 .');
    assert.deepEqual(wordTokens('So, you see. ', '13a'), ['So', ',', 'you', 'see', '.']);
    assert.deepEqual(wordTokens('So, You', 'lowercase'), ['so,', 'you']);
  });

  it("rouge-score's default tokenizer, with and without the Porter stemmer", () => {
    assert.deepEqual(rougeTokens("Don't you feel İstanbul-ish, café?", false), ['don', 't', 'you', 'feel', 'i', 'stanbul', 'ish', 'caf']);
    assert.deepEqual(rougeTokens('running 3x faster!!', true), ['run', '3x', 'faster']);
    assert.deepEqual(rougeTokens('...', true), []);
  });

  it("NLTK's Porter stemmer: its extensions and quirks", () => {
    const cases: [string, string][] = [
      ['skies', 'sky'],
      ['dying', 'die'],
      ['ties', 'tie'],
      ['agreed', 'agre'],
      ['hopping', 'hop'],
      ['generalization', 'gener'],
      ['ba*ded', 'bad'],
      ['Running', 'run'],
      ['by', 'by'],
    ];
    for (const [w, s] of cases) assert.equal(porterStem(w), s, w);
  });
});

describe('fast kernels against their textbook definitions (random token sequences)', () => {
  const rng = seedrandom('kernels');
  const seq = (len: number, vocab: number): string[] => Array.from({ length: len }, () => `w${Math.floor(rng() * vocab)}`);

  it("LCS length: the bit-parallel recurrence equals rouge-score's dynamic-programming table, across word boundaries", () => {
    const table = (a: string[], b: string[]): number => {
      const t = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
      for (let i = 1; i <= a.length; i++) for (let j = 1; j <= b.length; j++) t[i][j] = a[i - 1] === b[j - 1] ? t[i - 1][j - 1] + 1 : Math.max(t[i - 1][j], t[i][j - 1]);
      return t[a.length][b.length];
    };
    for (let k = 0; k < 600; k++) {
      const a = seq(Math.floor(rng() * 140), 2 + Math.floor(rng() * 20));
      const b = seq(Math.floor(rng() * 140), 2 + Math.floor(rng() * 20));
      assert.equal(lcsLength(a, b), table(a, b), `${a.length}×${b.length}`);
    }
  });

  it('n-gram statistics equal counting n-gram tuples, including references too varied for numeric keys', () => {
    const naive = (hyp: string[], ref: string[], n: number): number => {
      const count = (xs: string[]) => {
        const m = new Map<string, number>();
        for (let i = 0; i + n <= xs.length; i++) m.set(xs.slice(i, i + n).join('\u0000'), (m.get(xs.slice(i, i + n).join('\u0000')) ?? 0) + 1);
        return m;
      };
      const r = count(ref);
      let total = 0;
      for (const [g, c] of count(hyp)) total += Math.min(c, r.get(g) ?? 0);
      return total;
    };
    const cases: [string[], string[]][] = [];
    for (let k = 0; k < 500; k++) cases.push([seq(Math.floor(rng() * 60), 1 + Math.floor(rng() * 8)), seq(Math.floor(rng() * 60), 1 + Math.floor(rng() * 8))]);
    const wide = Array.from({ length: 1500 }, (_, i) => `v${i}`);
    cases.push([[...wide.slice(10, 400), ...wide.slice(0, 5)], wide]);
    for (const [hyp, ref] of cases) {
      const s = ngramStats(hyp, ref, 5);
      const prepared = prepareReference(ref, 5);
      // A prepared reference serves several hypotheses: use it twice.
      for (const p of [ngramStatsPrepared(hyp, prepared, 5), ngramStatsPrepared(hyp, prepared, 5)]) assert.deepEqual(p, s);
      for (let n = 1; n <= 5; n++) {
        assert.equal(s.matches[n - 1], naive(hyp, ref, n), `order ${n}`);
        assert.equal(s.totals[n - 1], Math.max(0, hyp.length - n + 1));
      }
    }
  });
});

describe('built-in text metrics', () => {
  const item = (candidate: string, reference?: string): DialogueItem => ({
    id: 'i',
    context: [{ speaker: 'client', text: 'I smoke too much.' }],
    ...(reference !== undefined ? { reference: { text: reference } } : {}),
    candidates: [{ id: 'c', text: candidate, origin: { kind: 'model' }, annotations: [], scores: {} }],
  });

  it('are registered with cards, outputs and reference-based flags', () => {
    const names = listMetrics().map((m) => m.name);
    for (const n of ['bleu4', 'sacrebleu', 'rougeL', 'meteor']) assert.ok(names.includes(n), n);
    for (const n of ['bleu4', 'sacrebleu', 'rougeL', 'meteor', 'nmtBleu']) {
      const m = getMetric(n);
      assert.ok(m.card.title && m.card.description && m.card.citation.includes('@') && m.card.reference && m.card.inputs);
      assert.ok(m.outputs.length > 0 && m.requiresReference);
      assert.ok(m.card.examples && m.card.examples.length > 0);
    }
    assert.deepEqual(getMetric('rougeL').outputs.map((o) => o.name), ['f', 'precision', 'recall']);
  });

  it('reproduce the values in their cards (computed by the reference implementations)', async () => {
    for (const m of listMetrics().filter((x) => ['bleu4', 'sacrebleu', 'rougeL', 'meteor', 'nmtBleu'].includes(x.name))) {
      for (const ex of m.card.examples ?? []) {
        const [got] = await m.score([ex.input], m.configure(ex.config ?? {}));
        for (const [k, v] of Object.entries(ex.values)) assert.equal(got[k], v, `${m.name} ${k} on ${ex.input.candidate}`);
      }
    }
  });

  it('sign every configuration, as metric.ts documents', () => {
    const v = REFLECT_EVAL_VERSION;
    assert.equal(bleu4.signature(bleu4.configure()), `impl:nltk-3.8|tok:whitespace|smooth:none|rv:${v}`);
    assert.equal(bleu4.signature(bleu4.configure({ tokenizer: '13a', smoothing: 'method1' })), `impl:nltk-3.8|tok:13a|smooth:method1[epsilon=0.1]|rv:${v}`);
    assert.equal(bleu4.signature(bleu4.configure({ smoothing: 'method7', k: 3, autoReweigh: true })), `impl:nltk-3.8|tok:whitespace|smooth:method7[k=3]|reweigh:auto|rv:${v}`);
    const sacre = getMetric('sacrebleu');
    assert.equal(sacre.signature(sacre.configure()), `impl:sacrebleu-2.6.0|nrefs:1|case:mixed|eff:yes|tok:13a|smooth:exp|rv:${v}`);
    assert.equal(sacre.signature(sacre.configure({ smoothMethod: 'floor', lowercase: true })), `impl:sacrebleu-2.6.0|nrefs:1|case:lc|eff:yes|tok:13a|smooth:floor[0.10]|rv:${v}`);
    assert.notEqual(sacre.signature(sacre.configure({ smoothMethod: 'floor', smoothValue: 0.125 })), sacre.signature(sacre.configure({ smoothMethod: 'floor', smoothValue: 0.12 })), 'values that differ past 2 decimals get different ids');
    const rouge = getMetric('rougeL');
    assert.equal(rouge.signature(rouge.configure({ stemmer: true })), `impl:rouge-score-0.1.2|tok:default|stem:porter-nltk-3.8|rv:${v}`);
    const meteor = getMetric('meteor');
    assert.equal(meteor.signature(meteor.configure()), `impl:nltk-3.8|mode:tokens|tok:whitespace+lower|alpha:0.9|beta:3|gamma:0.5|stem:porter-nltk-3.8|wn:3.0|rv:${v}`);
    assert.equal(meteor.signature(meteor.configure({ mode: 'string' })), `impl:nltk-3.8|mode:string|tok:lower-split|alpha:0.9|beta:3|gamma:0.5|stem:porter-nltk-3.8|wn:3.0|rv:${v}`);
  });

  it('are documented in docs/metrics.md with their default signatures', () => {
    const doc = readFileSync(join(__dirname, '../../../docs/metrics.md'), 'utf8');
    for (const n of ['bleu4', 'sacrebleu', 'rougeL', 'meteor', 'nmtBleu']) {
      const m = getMetric(n);
      assert.ok(doc.includes(`### \`${n}\``), `${n} section`);
      assert.ok(doc.includes(m.signature(m.configure({})).replace(`rv:${REFLECT_EVAL_VERSION}`, 'rv:0.1.0')), `${n} signature`);
      for (const field of Object.keys(m.defaultConfig)) assert.ok(doc.includes(`\`${field}\``), `${n}.${field}`);
    }
  });

  it('reject bad configurations naming metric and field', () => {
    assert.throws(() => bleu4.configure({ smoothing: 'method9' as never }), (e: unknown) => e instanceof MetricConfigError && e.field === 'smoothing' && /method1/.test(e.message));
    assert.throws(() => bleu4.configure({ tokenizer: 'spaces' as never }), /metric bleu4: tokenizer: must be one of whitespace, 13a, lowercase/);
    assert.throws(() => bleu4.configure({ smooth: 'method1' } as never), /metric bleu4: smooth: unknown field/);
    assert.throws(() => getMetric('meteor').configure({ alpha: 2 }), /metric meteor: alpha/);
    assert.throws(() => getMetric('meteor').configure({ mode: 'string', tokenizer: '13a' }), /string mode/);
    assert.throws(() => getMetric('sacrebleu').configure({ smoothMethod: 'log' }), /smoothMethod/);
    assert.throws(() => getMetric('rougeL').configure({ stemmer: 'yes' }), /rougeL: stemmer/);
  });

  it('score candidates of a file: errors without a reference, null (error) where NLTK raises', async () => {
    const items = [item('You want to stop smoking.', 'You want to quit smoking.'), item('You want to stop.'), item('Yes.', 'You want to quit smoking.')];
    const res = await scoreItems(items, getMetric('bleu4'), { smoothing: 'method6' });
    const id = res.evaluatorIds[0];
    assert.equal(id, `metric:bleu4.score@impl:nltk-3.8|tok:whitespace|smooth:method6[alpha=5]|rv:${REFLECT_EVAL_VERSION}`);
    assert.equal(res.items[0].candidates[0].scores[id].status, 'ok');
    // NLTK 3.8: sentence_bleu([r.split()], h.split(), smoothing_function=SmoothingFunction().method6)
    assert.ok(Math.abs((res.items[0].candidates[0].scores[id].value as number) - 0.3701867781534458) < 1e-15);
    assert.match(res.items[1].candidates[0].scores[id].message as string, /no reference/);
    // 'Yes.' has no unigram match: NLTK returns 0 before smoothing.
    assert.deepEqual(res.items[2].candidates[0].scores[id], { value: 0, status: 'ok', signature: res.signature });
    const short = await scoreItems([item('You want it', 'You want it now')], getMetric('bleu4'), { smoothing: 'method6' });
    assert.equal(short.items[0].candidates[0].scores[id].status, 'ok');
    const noTrigram = await scoreItems([item('want to go you', 'you want to quit')], getMetric('bleu4'), { smoothing: 'method6' });
    assert.equal(noTrigram.items[0].candidates[0].scores[id].status, 'error');
    assert.equal(noTrigram.failures, 1);
  });
});
