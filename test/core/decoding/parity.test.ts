/**
 * Parity with PyTorch: every fixture folder holding a `parity.json` (written by scripts/fixtures/reference_outputs.py
 * on the ONNX files' own weights, HF transformers 4.5x `generate()` semantics; contract in COORDINATION.md).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { decode } from '../../../src/core/decoding/engine';
import type { GenerationConfig } from '../../../src/core/decoding/generationConfig';
import { teacherForcing } from '../../../src/core/decoding/teacherForcing';
import type { GenerativeLM } from '../../../src/core/models/languageModel';
import { loadGenerativeModel } from '../../../src/core/models/registry';
import { fixtureLocator } from '../../helpers/models';

const root = resolve(__dirname, '../../../fixtures/models');

interface ParityRun {
  settings: { strategy: 'greedy' | 'beamSearch'; maxNewTokens: number; numBeams: number; lengthPenalty: number; earlyStopping: boolean | 'never'; noRepeatNgramSize: number; repetitionPenalty: number };
  sequences: { ids: number[]; endedWithEos: boolean; score: number | null }[];
  /** Beam runs: decoder forward passes HF made before stopping. */
  decodingSteps?: number;
}
interface ParityCase {
  name: string;
  promptIds: number[];
  distributions: { step: number; prefixIds: number[]; logitsF32: string }[];
  runs: ParityRun[];
  teacherForcing: { responseIds: number[]; tokenLogProbs: number[]; sumLogProb: number; decoderPrefixIds?: number[] }[];
}
interface Parity {
  model: string;
  architecture: 'decoder-only' | 'encoder-decoder';
  eosTokenId: number;
  padTokenId: number;
  decoderStartTokenId?: number | null;
  forcedBosTokenId?: number | null;
  vocabSize: number;
  cases: ParityCase[];
}

/** Fixture folders with a parity.json: fixtures/models/* and fixtures/models/layouts/*. */
export function parityFolders(): string[] {
  const out: string[] = [];
  for (const base of [root, join(root, 'layouts')]) {
    if (!existsSync(base)) continue;
    for (const d of readdirSync(base).sort()) if (existsSync(join(base, d, 'parity.json'))) out.push(join(base, d));
  }
  return out;
}

function f32(b64: string): Float32Array {
  const buf = Buffer.from(b64, 'base64');
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}

function configOf(s: ParityRun['settings']): GenerationConfig {
  return s.strategy === 'greedy'
    ? { strategy: 'greedy', maxNewTokens: s.maxNewTokens, repetitionPenalty: s.repetitionPenalty, noRepeatNgramSize: s.noRepeatNgramSize }
    : {
        strategy: 'beamSearch',
        maxNewTokens: s.maxNewTokens,
        numBeams: s.numBeams,
        lengthPenalty: s.lengthPenalty,
        earlyStopping: s.earlyStopping,
        repetitionPenalty: s.repetitionPenalty,
        noRepeatNgramSize: s.noRepeatNgramSize,
      };
}

const label = (s: ParityRun['settings']) =>
  s.strategy === 'greedy'
    ? `greedy rp=${s.repetitionPenalty} ngram=${s.noRepeatNgramSize}`
    : `beam k=${s.numBeams} lp=${s.lengthPenalty} es=${String(s.earlyStopping)} rp=${s.repetitionPenalty} ngram=${s.noRepeatNgramSize}`;

for (const folder of parityFolders()) {
  const parity = JSON.parse(readFileSync(join(folder, 'parity.json'), 'utf8')) as Parity;
  describe(`parity with PyTorch: ${folder.slice(root.length + 1)} (${parity.architecture})`, () => {
    let model: GenerativeLM;
    before(async () => {
      model = await loadGenerativeModel(folder, fixtureLocator);
    });
    after(async () => model?.dispose());

    it('reads the special tokens the references were made with', () => {
      assert.equal(model.architecture, parity.architecture);
      assert.equal(model.vocabSize, parity.vocabSize);
      assert.deepEqual(model.specialTokens.eosTokenIds, [parity.eosTokenId]);
      assert.equal(model.specialTokens.padTokenId, parity.padTokenId);
      if (parity.architecture === 'encoder-decoder') {
        assert.equal(model.specialTokens.decoderStartTokenId, parity.decoderStartTokenId);
        assert.equal(model.specialTokens.forcedBosTokenId, parity.forcedBosTokenId ?? null);
      }
    });

    it('matches the raw next-token logits (whole vocabulary) to 1e-4, through the KV cache', async () => {
      let compared = 0;
      for (const c of parity.cases) {
        for (const d of c.distributions) {
          const { session, logits } = await model.startDecoding([c.promptIds]);
          let row = logits;
          if (d.prefixIds.length > 0) {
            const out = await session.extend(d.prefixIds, d.prefixIds.length);
            row = out.subarray((d.prefixIds.length - 1) * session.vocab);
          }
          const ref = f32(d.logitsF32);
          assert.equal(ref.length, session.vocab);
          let worst = 0;
          for (let v = 0; v < ref.length; v++) worst = Math.max(worst, Math.abs(row[v] - ref[v]));
          assert.ok(worst < 1e-4, `${c.name} step ${d.step}: max |Δlogit| = ${worst}`);
          compared++;
        }
      }
      assert.ok(compared > 0);
    });

    const runs = parity.cases.flatMap((c) => c.runs.map((r) => ({ c, r })));
    const settings = [...new Map(runs.map(({ r }) => [JSON.stringify(r.settings), r.settings])).values()];
    const variants = (s: ParityRun['settings']) => (s.strategy === 'beamSearch' ? [false, true] : [false]);
    for (const s of settings) for (const noKernel of variants(s)) {
      const path = s.strategy === 'beamSearch' ? (noKernel ? ' (JavaScript step)' : ' (onnxruntime step kernel where no processors)') : '';
      it(`reproduces ${label(s)}${path}: identical token ids${s.strategy === 'beamSearch' ? ', all k beams in order, scores to 1e-4' : ''}`, async () => {
        for (const { c, r } of runs.filter(({ r }) => JSON.stringify(r.settings) === JSON.stringify(s))) {
          const timer = { runMs: 0, runs: 0 };
          const [got] = await decode(model, [c.promptIds], configOf(s), { timer, noKernel });
          assert.equal(got.length, r.sequences.length, `${c.name}: number of sequences`);
          if (r.decodingSteps !== undefined) {
            const encoderRuns = model.architecture === 'encoder-decoder' ? 1 : 0;
            assert.equal(timer.runs - encoderRuns, r.decodingSteps, `${c.name}: decoder passes before stopping (early-stopping rule)`);
          }
          r.sequences.forEach((want, i) => {
            assert.deepEqual(got[i].tokenIds, want.ids, `${c.name} sequence ${i}`);
            assert.equal(got[i].endedWithEos, want.endedWithEos, `${c.name} sequence ${i} endedWithEos`);
            if (want.score === null) assert.equal(got[i].score, null);
            else assert.ok(Math.abs((got[i].score as number) - want.score) < 1e-4, `${c.name} sequence ${i}: score ${got[i].score} vs ${want.score}`);
          });
        }
      });
    }

    it('gives the same results for all cases decoded together (left-padded where positions allow it) as one by one', async () => {
      const prompts = parity.cases.map((c) => c.promptIds);
      for (const s of settings) {
        const batched = await decode(model, prompts, configOf(s));
        parity.cases.forEach((c, i) => {
          const want = c.runs.find((r) => JSON.stringify(r.settings) === JSON.stringify(s));
          if (!want) return;
          assert.deepEqual(
            batched[i].map((q) => q.tokenIds),
            want.sequences.map((q) => q.ids),
            `${c.name} under ${label(s)}`,
          );
          batched[i].forEach((q, j) => {
            if (want.sequences[j].score !== null) assert.ok(Math.abs((q.score as number) - (want.sequences[j].score as number)) < 1e-4);
          });
        });
      }
    });

    it('matches teacher-forcing log-probabilities to 1e-4', async () => {
      const reqs = parity.cases.flatMap((c) =>
        c.teacherForcing.map((t) => ({ promptIds: c.promptIds, continuationIds: t.responseIds, prefixIds: t.decoderPrefixIds?.slice(1), want: t })),
      );
      assert.ok(reqs.length > 0);
      const got = await teacherForcing(model, reqs);
      got.forEach((g, i) => {
        const want = reqs[i].want;
        assert.equal(g.tokenLogProbs.length, want.tokenLogProbs.length);
        g.tokenLogProbs.forEach((lp, j) => assert.ok(Math.abs(lp - want.tokenLogProbs[j]) < 1e-4, `request ${i} token ${j}: ${lp} vs ${want.tokenLogProbs[j]}`));
        assert.ok(Math.abs(g.sumLogProb - want.sumLogProb) < 1e-3, `request ${i} sum: ${g.sumLogProb} vs ${want.sumLogProb}`);
      });
    });
  });
}
