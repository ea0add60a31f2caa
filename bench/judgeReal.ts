/**
 * `npm run bench -- judge --size real [--only qwen3|llama] [--dtype fp32|q8|both] [--new-tokens N (16)]
 * [--candidates N (26)] [--matrix-candidates N (26)] [--threads N] [--models DIR (.bench-models)] [--no-tjs]`:
 * local chat judges at the size researchers use (issue 42, item 4), on the random-weight models of Qwen3-0.6B's and
 * Llama-3.2-1B's shapes that `npm run bench:models` builds into `.bench-models/` (`qwen3-0.6b-shape`,
 * `llama-3.2-1b-shape`; fp32 `onnx/model.onnx` and q8 `onnx/model_quantized.onnx`, as the hub names them), against
 * @huggingface/transformers on the same files, and against limits measured in the same run.
 *
 * The context: the AnnoMI sample's first dialogue with at least 12 turns before a reflection; its candidates: the
 * reference reflection and the dialogue's other therapist utterances (26 in all, the GEM 2022 grid's count). Prompts
 * are the judge's own: ICMI 2023's bodies × requests (prompts/), wrapped in the model's chat template.
 *
 * Printed per model and dtype:
 * - **prompt prefill tokens/s, ours ÷ transformers.js** on the same file (goal ≥ 1.0): one judge prompt (the
 *   error-explanations body × rating, ~700 tokens) computed whole — ours `promptLogits` with an empty prefix cache
 *   (the LM head for the last position only, `logits_to_keep`), theirs `generate({max_new_tokens: 1})`;
 * - **prefill ÷ the compute limit** (goal ≥ 50 %): the prefill's arithmetic (2 × tokens × the layers' matrix weights,
 *   attention's 2 × heads × head_dim × T² per layer, one LM-head row) ÷ its time, against onnxruntime running a
 *   MatMul of the model's largest shape (prompt tokens × hidden × intermediate; q8: DynamicQuantizeLinear →
 *   MatMulInteger, as the q8 file computes) with the same threads, best of 5, measured before each model;
 * - **greedy decode tokens/s, ours ÷ transformers.js** (goal ≥ 1.0): steps after the first (ours: the engine's step
 *   span; theirs: `generate` of N tokens minus `generate` of 1), with a check that both produced the same tokens;
 * - **greedy step vs the memory-bandwidth limit** (goal ≥ 60 %): the bytes a step reads (every matrix once, the tied
 *   LM head included; q8 matrices 1 byte a weight; the prompt's keys and values) ÷ the bandwidth measured as the
 *   generate bench does (Float32Array copies on 1 and 2 threads before, between and after the models; the highest
 *   is used and every measurement is printed: on a shared machine the spread is wide);
 * - **judging all candidates of the context under one variant ÷ judging one** (goal ≤ 3×), the prefix cache
 *   emptied before each;
 * - **the 12-variant matrix (3 bodies × 4 requests) on the context ÷ the floor its unshared tokens set** (goal ≤
 *   1.3×): the floor is the number of distinct prompt-token prefixes of all the matrix's prompts (a token trie of
 *   every prompt the model reads: numeric requests one each, error categories one per category), computed from the
 *   templates, at the prefill speed measured above; also the tokens the model actually computed (the prefix cache's
 *   misses) ÷ that floor, which no machine noise moves;
 * - q8 ÷ fp32 of each ratio's numerator.
 *
 * Speed is measured here, never asserted in tests.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import type { DialogueItem, Turn } from '../src/core/dialogue/types';
import { decode } from '../src/core/decoding/engine';
import { runJudge } from '../src/core/judges/judge';
import { categoryQuestion, JudgePromptCoder, localOnnxJudge } from '../src/core/judges/localJudge';
import type { OnnxCausalLM } from '../src/core/models/causalLM';
import { buildOnnxModel, ELEM } from '../src/core/models/onnxBuilder';
import { ortRuntime } from '../src/core/models/ortRuntime';
import { loadGenerativeModel } from '../src/core/models/registry';
import { assemblePromptWithin, loadPromptLibrary } from '../src/core/templates/judgePrompt';
import { copyBandwidth, sampleContexts } from './generateReal';
import { arg, strArg } from './args';
import { ROOT, SHAPES } from './realShapes';

const BODIES = ['instructions', 'instructions-error-explanations', 'instructions-tutorial'];
const REQUESTS = ['rating', 'scoring', 'binary', 'error-categories'];
const CATEGORY_NAMES = ['Malformed', 'Dialogue-contradicting', 'Parroting', 'Off-topic', 'On-topic but unverifiable', 'Other'];

type Config = { num_hidden_layers: number; hidden_size: number; intermediate_size: number; num_attention_heads: number; num_key_value_heads: number; head_dim: number; vocab_size: number };

/** Weights of one layer's matrices (q, k, v, o; gate, up, down). */
function layerMatrixWeights(c: Config): number {
  const q = c.num_attention_heads * c.head_dim;
  const kv = c.num_key_value_heads * c.head_dim;
  return c.hidden_size * q + 2 * c.hidden_size * kv + q * c.hidden_size + 3 * c.hidden_size * c.intermediate_size;
}

/** Arithmetic of a prefill of `t` tokens with the LM head for the last position only (multiply-adds × 2). */
function prefillFlops(c: Config, t: number): number {
  const matrices = 2 * t * c.num_hidden_layers * layerMatrixWeights(c);
  const attention = c.num_hidden_layers * 2 * c.num_attention_heads * c.head_dim * t * (t + 1); // QKᵀ and PV, causal
  return matrices + attention + 2 * c.hidden_size * c.vocab_size;
}

/** Bytes a decode step reads: every matrix once (tied LM head included), and the keys and values of `context` positions. */
function stepBytes(c: Config, context: number, matrixByte: number): number {
  const matrices = c.num_hidden_layers * layerMatrixWeights(c) + c.hidden_size * c.vocab_size;
  const kv = c.num_hidden_layers * 2 * c.num_key_value_heads * c.head_dim * 4 * context;
  return matrices * matrixByte + kv;
}

/** onnxruntime's MatMul throughput at the model's largest shape (FLOP/s, best of 5): fp32, or q8 as the quantized file runs it. */
async function matmulLimit(t: number, d: number, f: number, q8: boolean, threads?: number): Promise<number> {
  const rt = await ortRuntime();
  const nodes = q8
    ? [
        { op: 'DynamicQuantizeLinear', inputs: ['x'], outputs: ['xq', 'xs', 'xz'] },
        { op: 'MatMulInteger', inputs: ['xq', 'w', 'xz', 'wz'], outputs: ['y'] },
      ]
    : [{ op: 'MatMul', inputs: ['x', 'w'], outputs: ['y'] }];
  const INT8 = 3;
  const INT32 = 6;
  const inputs = q8 ? [{ name: 'x', elem: ELEM.float, rank: 2 }, { name: 'w', elem: INT8, rank: 2 }, { name: 'wz', elem: INT8, rank: 0 }] : [{ name: 'x', elem: ELEM.float, rank: 2 }, { name: 'w', elem: ELEM.float, rank: 2 }];
  const session = await rt.InferenceSession.create(buildOnnxModel(nodes, inputs, [{ name: 'y', elem: q8 ? INT32 : ELEM.float, rank: 2 }]), { graphOptimizationLevel: 'all', ...(threads ? { intraOpNumThreads: threads } : {}) });
  const x = new rt.Tensor('float32', Float32Array.from({ length: t * d }, (_, i) => Math.sin(i)), [t, d]);
  const feeds: Record<string, unknown> = q8
    ? { x, w: new rt.Tensor('int8', Int8Array.from({ length: d * f }, (_, i) => (i % 255) - 127), [d, f]), wz: new rt.Tensor('int8', new Int8Array(1), []) }
    : { x, w: new rt.Tensor('float32', Float32Array.from({ length: d * f }, (_, i) => Math.cos(i) * 0.02), [d, f]) };
  let best = Infinity;
  for (let i = 0; i < 6; i++) {
    const t0 = performance.now();
    await session.run(feeds as never);
    if (i > 0) best = Math.min(best, performance.now() - t0);
  }
  await session.release();
  return (2 * t * d * f) / (best / 1000);
}

/** The context and 26 candidates: a reflection's context and the dialogue's therapist utterances. */
function judgeItem(candidates: number): DialogueItem {
  const [context] = sampleContexts(1);
  const texts = [...new Set(context.filter((t: Turn) => t.speaker === 'therapist').map((t) => t.text))];
  for (const c of sampleContexts(6).slice(1)) for (const t of c) if (t.speaker === 'therapist' && !texts.includes(t.text)) texts.push(t.text);
  return {
    id: 'bench',
    context,
    candidates: texts.slice(0, candidates).map((text, i) => ({ id: `c${i}`, text, origin: { kind: 'human' as const }, annotations: [], scores: {} })),
  };
}

/** Distinct prompt-token prefixes of `prompts` (the nodes of their token trie): what no prompt shares with another. */
function trieTokens(prompts: number[][]): number {
  const root = new Map<number, unknown>();
  let nodes = 0;
  for (const p of prompts) {
    let at = root;
    for (const t of p) {
      let next = at.get(t) as Map<number, unknown> | undefined;
      if (!next) {
        next = new Map();
        at.set(t, next);
        nodes++;
      }
      at = next;
    }
  }
  return nodes;
}

type Tjs = typeof import('@huggingface/transformers');

async function benchOne(shape: keyof typeof SHAPES, dtype: 'fp32' | 'q8', tjs: Tjs | undefined, opts: { models: string; newTokens: number; candidates: number; matrixCandidates: number; threads?: number; folder?: string }) {
  const folder = opts.folder ? resolve(opts.folder) : resolve(opts.models, SHAPES[shape]);
  if (!opts.folder && !existsSync(join(folder, 'reflect_eval_bench_model.json'))) throw new Error(`${folder} is missing: build it with \`npm run bench:models\` (scripts/bench/build_real_size_models.py --only ${shape})`);
  const cfg = JSON.parse(readFileSync(join(folder, 'config.json'), 'utf8')) as Config;
  const name = `${opts.folder ? basename(folder) : SHAPES[shape]} ${dtype}`;
  const session = opts.threads ? { intraOpNumThreads: opts.threads } : {};
  const t0 = performance.now();
  const ours = (await loadGenerativeModel(folder, { bundledDir: '', baseDir: ROOT }, { dtype, ...session })) as OnnxCausalLM;
  const oursLoad = performance.now() - t0;
  const lib = loadPromptLibrary(join(ROOT, 'prompts'));
  const item = judgeItem(opts.candidates);
  const judge = localOnnxJudge(ours);
  const coder = new JudgePromptCoder(ours);
  const promptText = assemblePromptWithin(lib, { body: 'instructions-error-explanations', request: 'rating' }, item.context, item.candidates[0].text, judge.budget!).text;
  const prompt = ours.tokenizer.encode(coder.wrap(promptText));

  // The compute limit at the prefill's shape, measured now (the machine's load changes).
  const limits: number[] = [];
  for (let i = 0; i < 2; i++) limits.push(await matmulLimit(prompt.length, cfg.hidden_size, cfg.intermediate_size, dtype === 'q8', opts.threads));
  const limit = Math.max(...limits);

  // Prefill: the whole prompt, the prefix cache empty.
  await ours.promptLogits(prompt.slice(0, 64)); // warm-up
  const prefillMs: number[] = [];
  for (let i = 0; i < 2; i++) {
    ours.prefixCache?.clear();
    const s = performance.now();
    await ours.promptLogits(prompt);
    prefillMs.push(performance.now() - s);
  }
  const prefill = Math.min(...prefillMs);

  // Greedy decode after the prompt.
  let first: number | undefined;
  let last = 0;
  let steps = 0;
  const [seq] = await decode(ours, [prompt], { strategy: 'greedy', maxNewTokens: opts.newTokens }, { reusePromptPass: false, onProgress: (e) => ((first ??= e.elapsedMs), (last = e.elapsedMs), steps++) });
  const oursStep = (last - (first as number)) / (steps - 1);
  const oursTokens = seq[0].tokenIds;

  // transformers.js on the same file.
  let theirs: { load: number; prefill: number; step: number; same: boolean } | undefined;
  if (tjs) {
    const file = join(folder, 'onnx', dtype === 'q8' ? 'model_quantized.onnx' : 'model.onnx');
    const t1 = performance.now();
    const model = await tjs.AutoModelForCausalLM.from_pretrained(folder, { local_files_only: true, dtype, device: 'cpu', use_external_data_format: existsSync(`${file}_data`), ...(opts.threads ? { session_options: { intraOpNumThreads: opts.threads } } : {}) });
    const load = performance.now() - t1;
    const input = new tjs.Tensor('int64', BigInt64Array.from(prompt, BigInt), [1, prompt.length]);
    const mask = new tjs.Tensor('int64', new BigInt64Array(prompt.length).fill(1n), [1, prompt.length]);
    const gen = async (n: number) => {
      const s = performance.now();
      const out = (await model.generate({ inputs: input, attention_mask: mask, max_new_tokens: n, do_sample: false })) as unknown as { tolist(): bigint[][] };
      return { ms: performance.now() - s, ids: out.tolist()[0].map(Number).slice(prompt.length) };
    };
    await gen(1); // warm-up
    const p = Math.min((await gen(1)).ms, (await gen(1)).ms);
    const full = await gen(opts.newTokens);
    const eos = new Set(ours.specialTokens.eosTokenIds);
    const theirIds = full.ids.filter((t) => !eos.has(t));
    theirs = { load, prefill: p, step: (full.ms - p) / (full.ids.length - 1), same: JSON.stringify(theirIds) === JSON.stringify(oursTokens) };
    await model.dispose();
  }

  // One candidate, then all of them, under one variant; then the 12-variant matrix.
  const variant = { body: 'instructions', request: 'rating' };
  const timeJudge = async (it: DialogueItem, variants: { body: string; request: string }[]) => {
    ours.prefixCache?.clear();
    const before = { ...(ours.prefixCache?.stats ?? { lookedUpTokens: 0, hitTokens: 0, evictions: 0 }) };
    const s = performance.now();
    for (const v of variants) {
      const r = await runJudge([it], judge, lib, v, { concurrency: it.candidates.length });
      if (r.failures) throw new Error(`${name}: ${r.failures} judgements failed under ${v.body} × ${v.request}`);
    }
    const after = ours.prefixCache?.stats ?? before;
    return { ms: performance.now() - s, computed: after.lookedUpTokens - before.lookedUpTokens - (after.hitTokens - before.hitTokens), evictions: after.evictions - before.evictions };
  };
  const one = await timeJudge({ ...item, candidates: item.candidates.slice(0, 1) }, [variant]);
  const all = await timeJudge(item, [variant]);
  const matrixItem = { ...item, candidates: item.candidates.slice(0, opts.matrixCandidates) };
  const variants = BODIES.flatMap((body) => REQUESTS.map((request) => ({ body, request })));
  const matrixPrompts = variants.flatMap((v) =>
    matrixItem.candidates.flatMap((c) => {
      const text = assemblePromptWithin(lib, v, matrixItem.context, c.text, judge.budget!).text;
      const texts = v.request === 'error-categories' ? CATEGORY_NAMES.map((n) => `${text}\n\n${categoryQuestion(n)}`) : [text];
      return texts.map((t) => ours.tokenizer.encode(coder.wrap(t)));
    }),
  );
  const floorTokens = trieTokens(matrixPrompts);
  const matrix = await timeJudge(matrixItem, variants);
  const prefillTps = prompt.length / (prefill / 1000);
  const floorMs = (floorTokens / prefillTps) * 1000;
  await ours.dispose();

  return {
    name,
    prefillTps,
    decodeTps: 1000 / oursStep,
    rows: (bandwidth: number) => {
      const flops = prefillFlops(cfg, prompt.length);
      const limitMs = (stepBytes(cfg, prompt.length, dtype === 'q8' ? 1 : 4) / bandwidth) * 1000;
      return [
        [`${name}: prompt prefill tokens/s, ours ÷ transformers.js`, theirs ? (theirs.prefill / prefill).toFixed(2) : '–', '≥ 1.0', `${prompt.length} tokens in ${prefill.toFixed(0)} vs ${theirs ? theirs.prefill.toFixed(0) : '–'} ms (${prefillTps.toFixed(0)} tokens/s); runs ${prefillMs.map((x) => x.toFixed(0)).join(', ')} ms`],
        [`${name}: prefill ÷ compute limit (onnxruntime ${dtype === 'q8' ? 'MatMulInteger' : 'MatMul'} ${prompt.length}×${cfg.hidden_size}×${cfg.intermediate_size})`, `${((100 * flops) / (prefill / 1000) / limit).toFixed(0)} %`, '≥ 50 %', `${(flops / 1e9).toFixed(0)} GFLOP at ${(flops / (prefill / 1000) / 1e9).toFixed(1)} GFLOP/s vs ${(limit / 1e9).toFixed(1)} GFLOP/s (measured ${limits.map((l) => (l / 1e9).toFixed(1)).join(', ')})`],
        [`${name}: greedy decode tokens/s, ours ÷ transformers.js`, theirs ? (theirs.step / oursStep).toFixed(2) : '–', '≥ 1.0', `${oursStep.toFixed(0)} vs ${theirs ? theirs.step.toFixed(0) : '–'} ms per step after the first, ${prompt.length}-token prompt; same tokens: ${theirs ? (theirs.same ? 'yes' : 'NO') : '–'}`],
        [`${name}: greedy step vs memory-bandwidth limit`, `${((100 * limitMs) / oursStep).toFixed(0)} %`, '≥ 60 %', `${oursStep.toFixed(0)} ms vs ${limitMs.toFixed(0)} ms (${(stepBytes(cfg, prompt.length, dtype === 'q8' ? 1 : 4) / 1e9).toFixed(2)} GB at ${(bandwidth / 1e9).toFixed(1)} GB/s)`],
        [`${name}: judging ${item.candidates.length} candidates ÷ one (instructions × rating)`, (all.ms / one.ms).toFixed(2), '≤ 3', `${(all.ms / 1000).toFixed(1)} vs ${(one.ms / 1000).toFixed(1)} s; tokens computed ${all.computed} vs ${one.computed}`],
        [`${name}: 12-variant matrix ÷ its unshared-token floor (${matrixItem.candidates.length} candidates)`, (matrix.ms / floorMs).toFixed(2), '≤ 1.3', `${(matrix.ms / 1000).toFixed(0)} s vs ${(floorMs / 1000).toFixed(0)} s = ${floorTokens} trie tokens at ${prefillTps.toFixed(0)} tokens/s; ${matrixPrompts.length} prompts`],
        [`${name}: the matrix's computed tokens ÷ the floor's`, (matrix.computed / floorTokens).toFixed(2), '', `${matrix.computed} vs ${floorTokens} tokens (prefix cache: ${matrix.evictions} evictions)`],
        [`${name}: load`, '', '', `${(oursLoad / 1000).toFixed(1)} s ours${theirs ? `, ${(theirs.load / 1000).toFixed(1)} s transformers.js` : ''}; cache ${ours.cacheMode.kind === 'static' ? `in place, shared prefix ${ours.cacheMode.sharedPrefix === true ? 'yes' : 'no'}` : `returned (${ours.cacheMode.reason})`}`],
      ];
    },
  };
}

export async function runJudgeReal(args: string[]): Promise<void> {
  const only = strArg(args, '--only') as keyof typeof SHAPES | undefined;
  const dtypeArg = strArg(args, '--dtype') ?? 'both';
  const dtypes: ('fp32' | 'q8')[] = dtypeArg === 'both' ? ['fp32', 'q8'] : [dtypeArg as 'fp32' | 'q8'];
  const opts = {
    models: strArg(args, '--models') ?? join(ROOT, '.bench-models'),
    newTokens: arg(args, '--new-tokens', 16),
    candidates: arg(args, '--candidates', 26),
    matrixCandidates: arg(args, '--matrix-candidates', 26),
    threads: args.includes('--threads') ? arg(args, '--threads', 0) : undefined,
    folder: strArg(args, '--folder'),
  };
  const tjs = args.includes('--no-tjs') ? undefined : await import('@huggingface/transformers');
  const bandwidths: number[] = [];
  const probe = async (when: string) => {
    const one = await copyBandwidth(1);
    const two = await copyBandwidth(2);
    bandwidths.push(one, two);
    console.log(`memory bandwidth ${when}: ${(one / 1e9).toFixed(1)} GB/s on 1 thread, ${(two / 1e9).toFixed(1)} GB/s on 2`);
  };
  await probe('before');
  const results: Awaited<ReturnType<typeof benchOne>>[] = [];
  for (const shape of (only ? [only] : Object.keys(SHAPES)) as (keyof typeof SHAPES)[]) {
    for (const dtype of dtypes) {
      console.log(`${SHAPES[shape]} ${dtype}…`);
      results.push(await benchOne(shape, dtype, tjs, opts));
      await probe(`after ${SHAPES[shape]} ${dtype}`);
    }
  }
  const bandwidth = Math.max(...bandwidths);
  const spread = `${(Math.min(...bandwidths) / 1e9).toFixed(1)}–${(bandwidth / 1e9).toFixed(1)} GB/s`;
  console.log(`the bandwidth limit uses the highest measured: ${(bandwidth / 1e9).toFixed(1)} GB/s (spread over ${bandwidths.length} probes: ${spread})`);
  const rows = results.flatMap((r) => r.rows(bandwidth));
  for (const shape of Object.values(SHAPES)) {
    const f = results.find((r) => r.name === `${shape} fp32`);
    const q = results.find((r) => r.name === `${shape} q8`);
    if (f && q) {
      rows.push([`${shape}: q8 ÷ fp32, prefill tokens/s`, (q.prefillTps / f.prefillTps).toFixed(2), '', '']);
      rows.push([`${shape}: q8 ÷ fp32, decode tokens/s`, (q.decodeTps / f.decodeTps).toFixed(2), '', '']);
    }
  }
  const w = [Math.max(...rows.map((r) => r[0].length)), 8, 7];
  console.log('');
  for (const r of rows) console.log(`${r[0].padEnd(w[0])}  ${r[1].padStart(w[1])}  ${r[2].padEnd(w[2])}  ${r[3]}`);
}
