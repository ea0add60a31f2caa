import { strict as assert } from 'node:assert';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  bertscore,
  bertScoreTokenIds,
  computeBertScore,
  idfWeights,
  pythonStrip,
  readBaseline,
  readIdfReferences,
  releaseBertScoreEncoders,
  type BertScoreResult,
} from '../../../src/core/metrics/bertscore';
import { MetricConfigError } from '../../../src/core/metrics/metric';
import { LayerUnavailableError, type EncoderModel } from '../../../src/core/models/encoder';
import { loadEncoder } from '../../../src/core/models/registry';
import { fixtureLocator } from '../../helpers/models';

const ROOT = join(__dirname, '..', '..', '..');
const FULL = join(ROOT, 'fixtures', 'models', 'reflect-roberta-tiny');
const L2 = join(ROOT, 'fixtures', 'models', 'reflect-roberta-tiny-l2');
const BASELINE = join(FULL, 'rescale_baseline.csv');

interface Pair {
  candidate: string;
  reference: string;
  kind: string;
}
interface Result {
  name: string;
  layer: number;
  idf: boolean;
  rescale: boolean;
  group: 'pairs' | 'dotGroup';
  values: (number | null)[][];
}
const ref = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'bertscore-reference.json'), 'utf8')) as {
  bertScore: { version: string };
  pairs: Pair[];
  dotGroup: Pair[];
  results: Result[];
  tokenIds: Record<string, number[]>;
};

/** Largest |ours − reference| over P, R, F of every pair; NaN must meet null. */
function maxDiff(got: BertScoreResult[], want: (number | null)[][], label: string): number {
  let m = 0;
  got.forEach((g, i) => {
    [g.precision, g.recall, g.f1].forEach((v, k) => {
      const w = want[i][k];
      if (w === null) assert.ok(Number.isNaN(v), `${label} pair ${i} output ${k}: expected NaN, got ${v}`);
      else m = Math.max(m, Math.abs(v - w));
    });
  });
  return m;
}

describe(`BERTScore on the tiny encoder fixture vs a float64 PyTorch reference (bert_score ${ref.bertScore.version} algorithm)`, () => {
  let enc: EncoderModel;
  before(async () => {
    enc = await loadEncoder(FULL, fixtureLocator);
  });
  after(async () => {
    await enc.dispose();
    await releaseBertScoreEncoders();
  });

  it('tokenizes as bert_score sent_encode (strip, prefix space, <s> … </s>, truncation to model_max_length)', () => {
    for (const [s, ids] of Object.entries(ref.tokenIds)) assert.deepEqual(bertScoreTokenIds(enc, s, true), ids, JSON.stringify(s));
    const long = ref.pairs.find((p) => p.kind === 'edge' && p.candidate.length > 1000)!.candidate;
    const ids = bertScoreTokenIds(enc, long, true);
    assert.equal(ids.length, 128);
    assert.deepEqual([ids[0], ids[127]], [0, 2]);
  });

  for (const r of ref.results) {
    it(`${r.name}: P, R, F1 of ${r.group === 'pairs' ? ref.pairs.length : ref.dotGroup.length} pairs within 5e-7`, async () => {
      const pairs = r.group === 'pairs' ? ref.pairs : ref.dotGroup;
      const got = await computeBertScore(enc, pairs, {
        layer: r.layer,
        idfReferences: r.idf ? pairs.map((p) => p.reference) : null,
        baseline: r.rescale ? readBaseline(BASELINE, r.layer) : null,
      });
      const d = maxDiff(got, r.values, r.name);
      assert.ok(d < 5e-7, `max |diff| ${d}`);
    });
  }

  it('the truncated 2-layer export gives layer 2 (last_hidden_state) the same scores, and refuses other layers naming the ones it has', async () => {
    const l2 = await loadEncoder(L2, fixtureLocator);
    try {
      assert.deepEqual(l2.availableLayers, [2]);
      const want = ref.results.find((r) => r.name === 'layer2')!;
      const got = await computeBertScore(l2, ref.pairs, { layer: 2 });
      assert.ok(maxDiff(got, want.values, 'l2') < 1e-6);
      await assert.rejects(computeBertScore(l2, ref.pairs.slice(0, 1), { layer: 1 }), (err: Error) => {
        assert.ok(err instanceof LayerUnavailableError);
        assert.match(err.message, /layer 1 is not available; the ONNX export has only layer 2/);
        assert.match(err.message, /docs\/metrics-neural\.md/);
        return true;
      });
    } finally {
      await l2.dispose();
    }
    assert.deepEqual(enc.availableLayers, [0, 1, 2, 3, 4]);
    await assert.rejects(computeBertScore(enc, ref.pairs.slice(0, 1), { layer: 5 }), /layer 5 is not available; the ONNX export has layers 0, 1, 2, 3, 4/);
  });

  it('scores empty sentences as bert_score does: P = R = F = 0', async () => {
    const got = await computeBertScore(enc, [{ candidate: '  ', reference: 'You want to cut down.' }, { candidate: 'You want to cut down.', reference: '' }], { layer: 4 });
    for (const g of got) assert.deepEqual(g, { precision: 0, recall: 0, f1: 0 });
  });
});

describe('BERTScore building blocks', () => {
  it("strips as Python's str.strip, not as JavaScript's trim", () => {
    assert.equal(pythonStrip('\u001c\u0085 hi \u3000\u00a0'), 'hi');
    assert.equal(pythonStrip('\ufeffhi\ufeff'), '\ufeffhi\ufeff');
    assert.equal(pythonStrip(' \t\n'), '');
  });

  it("computes bert_score's idf: ln((M+1)/(df+1)), repeats counting, unseen ln(M+1)", () => {
    const w = idfWeights([[0, 5, 6, 2], [0, 5, 5, 2], [0, 7, 2]]);
    assert.equal(w.table.get(0), Math.log(4 / 4));
    assert.equal(w.table.get(5), Math.log(4 / 3));
    assert.equal(w.table.get(7), Math.log(4 / 2));
    assert.equal(w.unseen, Math.log(4));
  });

  it('reads a bert_score baseline file by layer and names the file and line of a bad one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bs-'));
    assert.deepEqual(readBaseline(BASELINE, 0).length, 3);
    const bad = join(dir, 'b.csv');
    writeFileSync(bad, 'LAYER,P,R\n0,1,2\n');
    assert.throws(() => readBaseline(bad, 0), /b\.csv:1: expected the header LAYER,P,R,F/);
    writeFileSync(bad, 'LAYER,P,R,F\n0,0.1,0.2,0.3\n1,0.1,x,0.3\n');
    assert.throws(() => readBaseline(bad, 1), /b\.csv:3: expected "1,P,R,F"/);
    assert.throws(() => readBaseline(bad, 4), /no row for layer 4 \(the file has layers 0–1\)/);
  });

  it('takes idf references from a dialogue file: one per candidate of an item with a reference', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bs-'));
    const f = join(dir, 'x.dialogues.jsonl');
    const item = (id: string, ref: string | undefined, n: number) =>
      JSON.stringify({ id, context: [], ...(ref === undefined ? {} : { reference: { text: ref } }), candidates: Array.from({ length: n }, (_, k) => ({ id: `${id}-${k}`, text: 'x', origin: { kind: 'model' }, annotations: [], scores: {} })) });
    writeFileSync(f, [item('a', 'Ref A.', 2), item('b', undefined, 3), item('c', 'Ref C.', 1)].join('\n') + '\n');
    assert.deepEqual(readIdfReferences(f), ['Ref A.', 'Ref A.', 'Ref C.']);
    writeFileSync(f, '{"id": 1}\nnot json\n');
    assert.throws(() => readIdfReferences(f), /x\.dialogues\.jsonl:2: not JSON/);
  });
});

describe('bertscore metric (registry contract)', () => {
  after(() => releaseBertScoreEncoders());

  it("defaults to roberta-large layer 17 (bert_score's default) and says which layer is missing for other models", () => {
    const c = bertscore.configure();
    assert.equal(c.model, 'roberta-large');
    assert.equal(c.layer, 17);
    assert.match(bertscore.signature(c), /^impl:bert_score-0\.3\.13\|model:roberta-large\|layer:17\|idf:no\|rescale:no\|prefix:auto\|dtype:fp32\|rv:/);
    assert.throws(() => bertscore.configure({ model: 'some/encoder' }), (e: Error) => e instanceof MetricConfigError && /layer: no default layer for model some\/encoder/.test(e.message));
    assert.throws(() => bertscore.configure({ model: 'x', layer: -1 }), /layer: must be an integer/);
    assert.throws(() => bertscore.configure({ idf: true }), /idfReferences: idf needs the reference sentences/);
    assert.throws(() => bertscore.configure({ rescaleWithBaseline: true }), /baselineFile: rescaling needs a baseline file/);
    assert.equal(bertscore.configure({ model: 'microsoft/deberta-xlarge-mnli' }).layer, 40);
  });

  it('puts the idf corpus and the baseline file in the signature', () => {
    const a = bertscore.signature(bertscore.configure({ model: FULL, layer: 2, idf: true, idfReferences: ['a b', 'c'] }));
    const b = bertscore.signature(bertscore.configure({ model: FULL, layer: 2, idf: true, idfReferences: ['a b', 'd'] }));
    assert.match(a, /idf:refs2-[0-9a-f]{8}/);
    assert.notEqual(a, b);
    assert.match(bertscore.signature(bertscore.configure({ model: FULL, layer: 2, rescaleWithBaseline: true, baselineFile: BASELINE })), /rescale:rescale_baseline\.csv-[0-9a-f]{8}/);
  });

  it('scores inputs like computeBertScore, null without a reference, rescaled with the baseline file', async () => {
    const want = ref.results.find((r) => r.name === 'layer2-rescale')!;
    const inputs = ref.pairs.slice(0, 10).map((p) => ({ candidate: p.candidate, reference: p.reference }));
    const c = bertscore.configure({ model: FULL, layer: 2, rescaleWithBaseline: true, baselineFile: BASELINE });
    const got = await bertscore.score([...inputs, { candidate: 'no reference' }], c);
    got.slice(0, 10).forEach((v, i) => {
      assert.ok(Math.abs(v.precision! - want.values[i][0]!) < 1e-6);
      assert.ok(Math.abs(v.recall! - want.values[i][1]!) < 1e-6);
      assert.ok(Math.abs(v.f1! - want.values[i][2]!) < 1e-6);
    });
    assert.deepEqual(got[10], { f1: null, precision: null, recall: null });
  });
});

describe('bertscore in the metric registry', () => {
  it('is registered by the metrics index under its name', async () => {
    const { getMetric } = await import('../../../src/core/metrics/index');
    assert.equal(getMetric('bertscore'), bertscore);
  });
});
