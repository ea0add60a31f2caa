/**
 * Parity with PyTorch for the Llama-family fixtures (grouped-query attention, rotary positions, RMSNorm, SwiGLU;
 * Qwen3's q/k norm) at their real vocabularies: `chat_parity.json`, written by scripts/fixtures/reference_chat.py on
 * the ONNX files' own weights, for prompts ReflectEval's own code builds (scripts/fixtures/chat_cases.ts): a local chat
 * generator's prompt and two local chat judges' prompts, through the real Qwen3 / Llama 3 tokenizers and chat templates.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { AutoTokenizer } from '@huggingface/transformers';
import { decode } from '../../../src/core/decoding/engine';
import type { GenerationConfig } from '../../../src/core/decoding/generationConfig';
import { teacherForcing } from '../../../src/core/decoding/teacherForcing';
import { answerLogProbs } from '../../../src/core/judges/localJudge';
import type { OnnxCausalLM } from '../../../src/core/models/causalLM';
import { loadGenerativeModel } from '../../../src/core/models/registry';

const root = resolve(__dirname, '../../../fixtures/models');
const locator = { bundledDir: root, baseDir: root };

interface Run {
  settings: { strategy: 'greedy' | 'beamSearch'; maxNewTokens: number; numBeams: number; lengthPenalty: number; earlyStopping: boolean | 'never'; noRepeatNgramSize: number; repetitionPenalty: number };
  sequences: { ids: number[]; endedWithEos: boolean; score: number | null }[];
  decodingSteps?: number;
}
interface Case {
  name: string;
  promptIds: number[];
  distributions: { step: number; prefixIds: number[]; logitsF32: string }[];
  runs: Run[];
  teacherForcing: { responseIds: number[]; tokenLogProbs: number[]; sumLogProb: number }[];
  sampling: { settings: { topP: number; numReturnSequences: number; seed: number; maxNewTokens: number }; sequences: { ids: number[]; endedWithEos: boolean }[] }[];
  judge?: { answers: string[]; answerIds: number[][]; endIds: number[]; answerLogProbs: number[] };
}
interface ChatParity {
  model: string;
  eosTokenIds: number[];
  padTokenId: number;
  vocabSize: number;
  cases: Case[];
}

function f32(b64: string): Float32Array {
  const buf = Buffer.from(b64, 'base64');
  return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength));
}

const configOf = (s: Run['settings']): GenerationConfig =>
  s.strategy === 'greedy'
    ? { strategy: 'greedy', maxNewTokens: s.maxNewTokens, repetitionPenalty: s.repetitionPenalty, noRepeatNgramSize: s.noRepeatNgramSize }
    : { strategy: 'beamSearch', maxNewTokens: s.maxNewTokens, numBeams: s.numBeams, lengthPenalty: s.lengthPenalty, earlyStopping: s.earlyStopping, repetitionPenalty: s.repetitionPenalty, noRepeatNgramSize: s.noRepeatNgramSize };

for (const name of ['reflect-qwen3-tiny', 'reflect-llama-tiny']) {
  const folder = join(root, name);
  if (!existsSync(join(folder, 'chat_parity.json'))) continue;
  const parity = JSON.parse(readFileSync(join(folder, 'chat_parity.json'), 'utf8')) as ChatParity;
  describe(`parity with PyTorch: ${name} (Llama family, real tokenizer and chat template)`, function () {
    // 27 greedy and beam decodes of prompts up to 1,309 tokens: about a minute on an idle 2-core machine, several under load.
    this.timeout(600_000);
    let model: OnnxCausalLM;
    before(async () => {
      model = (await loadGenerativeModel(`bundled:${name}`, locator)) as OnnxCausalLM;
    });
    after(async () => model?.dispose());

    it('loads with its cache kept in place and one prompt cache shared by the rows (grouped-query attention edited)', () => {
      assert.equal(model.cacheMode.kind, 'static', JSON.stringify(model.cacheMode));
      assert.equal(model.cacheMode.kind === 'static' && model.cacheMode.sharedPrefix, true);
      assert.equal(model.vocabSize, parity.vocabSize);
      assert.deepEqual(model.specialTokens.eosTokenIds, parity.eosTokenIds);
      assert.equal(model.specialTokens.padTokenId, parity.padTokenId);
    });

    it('renders its chat template as transformers.js apply_chat_template does', async () => {
      const hf = (await AutoTokenizer.from_pretrained(folder, { local_files_only: true })) as unknown as { apply_chat_template(m: unknown, o: unknown): string };
      const messages = [
        { role: 'system' as const, content: 'You rate reflections.' },
        { role: 'user' as const, content: 'Dialogue\nClient: I drink  too much.\n\nRating (1-5):' },
      ];
      for (const kwargs of [{ enable_thinking: false }, {}]) {
        const ours = model.tokenizer.chatTemplate!.render(messages, { kwargs });
        assert.equal(ours, hf.apply_chat_template(messages, { tokenize: false, add_generation_prompt: true, ...kwargs }));
      }
    });

    it('matches the raw next-token logits (whole vocabulary) to 1e-4', async () => {
      for (const c of parity.cases) {
        for (const d of c.distributions) {
          const { session, logits } = await model.startDecoding([c.promptIds]);
          let row = logits;
          if (d.prefixIds.length) row = (await session.extend(d.prefixIds, d.prefixIds.length)).subarray((d.prefixIds.length - 1) * session.vocab);
          session.release?.();
          const ref = f32(d.logitsF32);
          let worst = 0;
          for (let v = 0; v < ref.length; v++) worst = Math.max(worst, Math.abs(row[v] - ref[v]));
          assert.ok(worst < 1e-4, `${c.name} step ${d.step}: max |Δlogit| = ${worst}`);
        }
      }
    });

    it('reproduces greedy and beam search (all k beams in order, scores to 1e-4, the same decoding steps)', async () => {
      for (const c of parity.cases) {
        for (const r of c.runs) {
          const timer = { runMs: 0, runs: 0 };
          const [got] = await decode(model, [c.promptIds], configOf(r.settings), { timer, reusePromptPass: false });
          const label = `${c.name} ${JSON.stringify(r.settings)}`;
          assert.equal(got.length, r.sequences.length, label);
          if (r.decodingSteps !== undefined) assert.equal(timer.runs, r.decodingSteps, `${label}: decoder passes`);
          r.sequences.forEach((want, i) => {
            assert.deepEqual(got[i].tokenIds, want.ids, `${label} sequence ${i}`);
            assert.equal(got[i].endedWithEos, want.endedWithEos, `${label} sequence ${i} endedWithEos`);
            if (want.score !== null) assert.ok(Math.abs((got[i].score as number) - want.score) < 1e-4, `${label} sequence ${i} score`);
          });
        }
      }
    });

    it('reproduces nucleus sampling (the same Alea draws by inversion over the same nucleus)', async () => {
      for (const c of parity.cases) {
        for (const s of c.sampling) {
          const [got] = await decode(model, [c.promptIds], { strategy: 'nucleusSampling', ...s.settings });
          assert.deepEqual(
            got.map((g) => g.tokenIds),
            s.sequences.map((q) => q.ids),
            `${c.name} p = ${s.settings.topP}`,
          );
        }
      }
    });

    it('scores the reference reply by teacher forcing to 1e-4 per token, with and without the prefix cache', async () => {
      for (const prefixCache of [false, true]) {
        for (const c of parity.cases) {
          for (const t of c.teacherForcing) {
            const [got] = await teacherForcing(model, [{ promptIds: c.promptIds, continuationIds: t.responseIds }], { prefixCache });
            got.tokenLogProbs.forEach((lp, j) => assert.ok(Math.abs(lp - t.tokenLogProbs[j]) < 1e-4, `${c.name} token ${j}: ${lp} vs ${t.tokenLogProbs[j]}`));
          }
        }
      }
    });

    it("gives the judge's answer log-probabilities (digits per tokenizer, the reply's end where answers nest) to 1e-4", async () => {
      const judged = parity.cases.filter((c) => c.judge);
      assert.ok(judged.length >= 2);
      for (const c of judged) {
        const j = c.judge!;
        const got = await answerLogProbs(model, c.promptIds, j.answerIds, j.endIds.length ? j.endIds : undefined);
        got.forEach((lp, i) => assert.ok(Math.abs(lp - j.answerLogProbs[i]) < 1e-4, `${c.name} answer "${j.answers[i]}": ${lp} vs ${j.answerLogProbs[i]}`));
      }
    });
  });
}
