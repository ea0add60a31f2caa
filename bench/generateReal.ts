/**
 * `npm run bench -- generate --size real [--prompts N (8)] [--max-new-tokens N (24)] [--grid-contexts N (2)] [--threads N]
 * [--dtype q8] [--only gpt2|bart] [--models DIR (.bench-models)] [--step-profile] [--static-cache off] [--shared-prefix off] [--spinning on]`: the decoding engine at the size researchers use (issue 19, item 2), on the
 * random-weight models `npm run bench:models` builds into `.bench-models/` — `gpt2-medium-shape` (decoder-only) and
 * `bart-large-shape` (encoder-decoder) — against @huggingface/transformers' `generate()` on the same ONNX files.
 *
 * Prompts: contexts of the committed AnnoMI sample (data/annomi/AnnoMI-sample.csv) before a therapist reflection,
 * in the seeds' input format, left-truncated to the 384-token window (GEM 2022 §3.2) — real prompt lengths, so the
 * prompt pass (decoder-only) or the encoder pass (encoder-decoder) weighs what it weighs in a study. By default 8
 * prompts × 24 new tokens, the size of issue 19's first measurement and about a reflection's length: with 8 new
 * tokens (the default until 2026-11-27) the one prompt pass each strategy pays is an eighth of its passes and
 * compresses the strategy ratios. Each prompt is
 * decoded on its own (batch 1, as transformers.js decodes one prompt); the runs of a prompt go back to back so
 * that changes in machine load hit all of them.
 *
 * Ratios printed per model (goals from issue 19):
 * - greedy tokens/s, ours ÷ transformers.js `generate()` (≥ 1.0), prompt pass included on both sides, with a check
 *   that both produced the same tokens. transformers.js leaves onnxruntime's threads spinning between runs and ours
 *   do not by default (`--spinning on` makes them spin): without `--spinning on` a second row compares with
 *   transformers.js on the same file with spinning off too, engine against engine at the same settings;
 * - greedy time per generated step vs the memory-bandwidth limit (≥ 60 %): the limit is the bytes of weights a
 *   decoder pass reads (every matrix it multiplies by, the tied LM head included; embedding tables only by row, so
 *   not counted; for the encoder-decoder the cross-attention key/value projections are not read after the first
 *   step, their outputs are cached) ÷ a memory bandwidth measured in the same run: Float32Array copies of 256 MB
 *   on 1 and on 2 threads (read + written bytes, best of 5), measured before, between and after the models, the
 *   highest of all used (other processes only lower a measurement, so the highest is the nearest to what the
 *   memory can do; every measurement is printed). A step's time is taken after the first new token (the prompt
 *   pass excluded): (time of the last step − time of the first) ÷ (steps − 1);
 * - beam search k = 5 (all 5 returned) wall per generated step ÷ greedy wall per step (≤ 1.5×), prompt pass
 *   included in both;
 * - nucleus p = 0.95 × 5 samples wall ÷ greedy wall (≤ 1.3×);
 * - the GEM 2022 grid (greedy + 5-beam + 4 p × 5 samples, 26 candidates, decoded as a run does: `decodeSettings`,
 *   the 4 p as one batch of 20 rows, the prompt pass made once per context) wall per context ÷ the greedy wall of
 *   the same context (≤ 4×); for reference, the same grid with one `decode` per setting (and whether it gave the
 *   same candidates), and with a prompt pass per setting too. The strategy ratios above run with
 *   `reusePromptPass: false`: each strategy pays its own prompt pass.
 *
 * With `--step-profile`, each model's table also breaks one decoder pass (1 row and 5 rows; 20 for the decoder-only
 * model, the grid's sampling batch) into onnxruntime's own time, its matrix products, and the binding's copy of the
 * outputs into JavaScript (stepProfile.ts): what limits the greedy, beam and nucleus ratios. For the decoder-only
 * model the same passes run again with a cache of only `--max-new-tokens` positions: the k rows ÷ 1 row cost with
 * and without the prompt's cache in every row.
 *
 * Speed is measured here, never asserted in tests. Loading the models takes a few GB of memory (ours and
 * transformers.js' sessions of one model at a time).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import { parse } from 'csv-parse/sync';
import { decode, decodeSettings } from '../src/core/decoding/engine';
import type { GenerationConfig } from '../src/core/decoding/generationConfig';
import { buildModelInput } from '../src/core/templates/modelInput';
import { generationConfigOf } from '../src/core/generation/localGenerator';
import { PRESETS } from '../src/core/generation/runConfig';
import { stageModel } from '../src/core/models/onnxPatch';
import { OnnxCausalLM } from '../src/core/models/causalLM';
import { cwdLocator, loadGenerativeModel } from '../src/core/models/registry';
import { OnnxSeq2SeqLM } from '../src/core/models/seq2seqLM';
import type { GenerativeLM } from '../src/core/models/languageModel';
import { isModelDtype, type ModelDtype } from '../src/core/models/modelFiles';
import type { Turn } from '../src/core/dialogue/types';
import { profileStep, stepProfileRows, type StepBreakdown } from './stepProfile';
import { arg, strArg } from './args';

/** Contexts of the committed AnnoMI sample: the turns before each therapist reflection that has ≥ `minTurns` turns before it, one per dialogue. */
export function sampleContexts(n: number, minTurns = 12): Turn[][] {
  const rows = parse(readFileSync(resolve(__dirname, '../data/annomi/AnnoMI-sample.csv')), { columns: true }) as Record<string, string>[];
  const out: Turn[][] = [];
  let dialogue: string | undefined;
  let turns: Turn[] = [];
  let taken = false;
  for (const r of rows) {
    if (r.transcript_id !== dialogue) {
      dialogue = r.transcript_id;
      turns = [];
      taken = false;
    }
    const speaker = r.interlocutor === 'therapist' ? 'therapist' : 'client';
    if (!taken && speaker === 'therapist' && r.main_therapist_behaviour === 'reflection' && turns.length >= minTurns && out.length < n) {
      out.push([...turns]);
      taken = true;
    }
    turns.push({ speaker, text: r.utterance_text });
  }
  return out;
}

/**
 * Memory bandwidth in bytes/s: `threads` workers each copy their own 256 MB / `threads` Float32Array into another
 * (TypedArray.set, a memcpy), 5 times; bytes read + written ÷ the slowest worker's time, best of the 5.
 */
export async function copyBandwidth(threads: number, totalBytes = 256 * 2 ** 20): Promise<number> {
  const code = `
    const { parentPort, workerData } = require('node:worker_threads');
    const n = workerData.bytes / 4;
    const a = new Float32Array(n).fill(1.5), b = new Float32Array(n);
    b.set(a); // touch the pages
    parentPort.on('message', () => { const t0 = performance.now(); b.set(a); a.set(b); parentPort.postMessage(performance.now() - t0); });
    parentPort.postMessage('ready');`;
  const workers = Array.from({ length: threads }, () => new Worker(code, { eval: true, workerData: { bytes: totalBytes / threads } }));
  await Promise.all(workers.map((w) => new Promise((r) => w.once('message', r))));
  let best = 0;
  for (let i = 0; i < 5; i++) {
    const ms = await Promise.all(workers.map((w) => new Promise<number>((r) => { w.once('message', r); w.postMessage('go'); })));
    best = Math.max(best, (4 * totalBytes) / (Math.max(...ms) / 1000)); // two copies, each reads and writes totalBytes
  }
  await Promise.all(workers.map((w) => w.terminate()));
  return best;
}

/**
 * Bytes of weights one decoder pass (one new token per row) reads, from config.json: fp32 matrices and vectors
 * (`bytesPerWeight` 4), or 1 byte per matrix weight for an int8 variant.
 */
export function weightBytesPerStep(config: Record<string, number>, bytesPerMatrixWeight = 4): { bytes: number; what: string } {
  const f = bytesPerMatrixWeight;
  if (config.n_layer !== undefined) {
    const d = config.n_embd;
    const V = config.vocab_size;
    const inner = config.n_inner ?? 4 * d;
    const matrices = config.n_layer * (3 * d * d + d * d + 2 * d * inner) + V * d; // c_attn, c_proj, c_fc, mlp proj; tied LM head
    const vectors = config.n_layer * (3 * d + d + inner + d + 4 * d) + 2 * d;
    return { bytes: f * matrices + 4 * vectors, what: `${config.n_layer} × (attention 4d² + MLP 2·d·${inner}) + LM head V·d` };
  }
  const d = config.d_model;
  const V = config.vocab_size;
  const ffn = config.decoder_ffn_dim;
  const matrices = config.decoder_layers * (4 * d * d + 2 * d * d + 2 * d * ffn) + V * d; // self q,k,v,o; cross q,o; fc1, fc2; LM head
  const vectors = config.decoder_layers * (6 * d + ffn + d + 6 * d) + 2 * d + V;
  return { bytes: f * matrices + 4 * vectors, what: `${config.decoder_layers} × (self-attention 4d² + cross-attention q,o 2d² + FFN 2·d·${ffn}) + LM head V·d` };
}

interface Timing {
  wallMs: number;
  /** Decoder passes (session runs of the decoder; the prompt pass included). */
  runs: number;
  tokens: number;
  /** Sum over runs of (time of the last step − time of the first step), and of (steps − 1). */
  stepSpanMs: number;
  stepsAfterFirst: number;
}
const zero = (): Timing => ({ wallMs: 0, runs: 0, tokens: 0, stepSpanMs: 0, stepsAfterFirst: 0 });

type Tjs = typeof import('@huggingface/transformers');

/**
 * The grid's rows. The first context of a process allocates what the 20-row sampling batch needs (onnxruntime's
 * arena and the pooled cache: ~2.4 GB more resident at gpt2-medium's shape); a run pays that once per model, so with two or
 * more grid contexts the goal row is the mean over the contexts after the first, and the first is printed beside it.
 */
function gridRows(name: string, grid: readonly { together: number; separate: number; unshared: number; greedy: number }[], candidates: number, same: number): string[][] {
  if (grid.length === 0) return [];
  const later = grid.length > 1 ? grid.slice(1) : grid;
  const sum = (rows: typeof grid, k: 'together' | 'separate' | 'unshared' | 'greedy') => rows.reduce((n, r) => n + r[k], 0);
  const ratio = (k: 'together' | 'separate' | 'unshared') => (sum(later, k) / sum(later, 'greedy')).toFixed(2);
  const per = (k: 'together' | 'separate' | 'unshared' | 'greedy') => (sum(later, k) / later.length).toFixed(0);
  const which = grid.length > 1 ? `mean of contexts 2–${grid.length}` : 'one context (its first: buffers allocated)';
  const first = grid.length > 1 ? `; first context ${grid[0].together.toFixed(0)} vs ${grid[0].greedy.toFixed(0)} ms (${(grid[0].together / grid[0].greedy).toFixed(2)}: the 20-row batch's buffers allocated)` : '';
  return [
    [`${name}: GEM 2022 grid per context ÷ greedy`, ratio('together'), '≤ 4', `${per('together')} vs ${per('greedy')} ms per context, ${which}${first}; ${candidates} candidates over ${grid.length} context(s)`],
    [`${name}: the same grid, one decode per setting ÷ greedy`, ratio('separate'), '(reference)', `${per('separate')} ms per context: what one batch for the 4 p saves; same candidates: ${same} of ${grid.length}`],
    [`${name}: the same grid, one decode and prompt pass per setting ÷ greedy`, ratio('unshared'), '(reference)', `${per('unshared')} ms per context: what sharing the prompt pass saves`],
  ];
}

async function benchOne(kind: 'gpt2' | 'bart', tjs: Tjs, opts: { models: string; prompts: number; maxNewTokens: number; gridContexts: number; threads?: number; dtype: ModelDtype; stepProfile: boolean; staticCache: boolean; sharedPrefix: boolean; allowSpinning: boolean }): Promise<(bandwidth: number) => string[][]> {
  const folder = join(opts.models, kind === 'gpt2' ? 'gpt2-medium-shape' : 'bart-large-shape');
  if (!existsSync(join(folder, 'reflect_eval_bench_model.json'))) throw new Error(`${folder} is missing: build it with \`npm run bench:models\` (scripts/bench/build_real_size_models.py)`);
  const threads = opts.threads ? { intraOpNumThreads: opts.threads } : {};
  const session = { ...threads, staticCache: opts.staticCache, sharedPrefix: opts.sharedPrefix, allowSpinning: opts.allowSpinning };
  const t0 = performance.now();
  const ours: GenerativeLM = await loadGenerativeModel(folder, cwdLocator(), { dtype: opts.dtype, ...session });
  const oursLoad = performance.now() - t0;
  const tjsDtype = opts.dtype;
  const t1 = performance.now();
  const fromPretrained = { local_files_only: true, dtype: tjsDtype, device: 'cpu' as const, ...(opts.threads ? { session_options: { intraOpNumThreads: opts.threads } } : {}) };
  const load = (o: typeof fromPretrained) => (kind === 'gpt2' ? tjs.AutoModelForCausalLM.from_pretrained(folder, o) : tjs.AutoModelForSeq2SeqLM.from_pretrained(folder, o));
  const theirs = await load(fromPretrained);
  const theirsLoad = performance.now() - t1;
  // transformers.js leaves onnxruntime's threads spinning (its default). When ours do not, the same file is also
  // decoded by transformers.js with spinning off: the like-for-like comparison of the two engines.
  const theirsNoSpin = opts.allowSpinning ? undefined : await load({ ...fromPretrained, session_options: { ...fromPretrained.session_options, extra: { session: { intra_op: { allow_spinning: '0' } } } } } as typeof fromPretrained);
  const maxNewTokens = opts.maxNewTokens;
  const contexts = sampleContexts(opts.prompts);
  const prompts = contexts.map((c) => buildModelInput(c, ours.tokenizer).inputIds);
  const eos = ours.specialTokens.eosTokenIds[0];
  const forcedBos = kind === 'bart' ? 1 : 0; // the forced <s> is a decoder step the engine strips from tokenIds

  async function oursOne(p: number[], config: GenerationConfig, t: Timing): Promise<number[]> {
    const timer = { runMs: 0, runs: 0, helperMs: 0 };
    let first: number | undefined;
    let last = 0;
    let steps = 0;
    const start = performance.now();
    // Every strategy pays its own prompt pass: the ratios compare strategies at equal work.
    const [seqs] = await decode(ours, [p], { ...config, maxNewTokens }, {
      timer,
      reusePromptPass: false,
      onProgress: (e) => {
        first ??= e.elapsedMs;
        last = e.elapsedMs;
        steps++;
      },
    });
    t.wallMs += performance.now() - start;
    t.runs += timer.runs;
    if (steps > 1) {
      t.stepSpanMs += last - first!;
      t.stepsAfterFirst += steps - 1;
    }
    for (const s of seqs) t.tokens += s.tokenIds.length + (s.endedWithEos ? 1 : 0) + forcedBos;
    return [...seqs[0].tokenIds, ...(seqs[0].endedWithEos ? [eos] : [])];
  }
  async function theirsOne(p: number[], t: Timing, model = theirs): Promise<number[]> {
    const input = new tjs.Tensor('int64', BigInt64Array.from(p, BigInt), [1, p.length]);
    const mask = new tjs.Tensor('int64', new BigInt64Array(p.length).fill(1n), [1, p.length]);
    const start = performance.now();
    const seq = (await model.generate({ inputs: input, attention_mask: mask, max_new_tokens: maxNewTokens, do_sample: false })) as unknown as { tolist(): bigint[][] };
    t.wallMs += performance.now() - start;
    // decoder-only: prompt + new tokens; encoder-decoder: decoder start + forced <s> + new tokens
    const all = seq.tolist()[0].map(Number);
    const fresh = kind === 'gpt2' ? all.slice(p.length) : all.slice(1);
    t.tokens += fresh.length;
    return kind === 'gpt2' ? fresh : fresh.slice(1);
  }

  const greedyCfg: GenerationConfig = { strategy: 'greedy' };
  const beamCfg: GenerationConfig = { strategy: 'beamSearch', numBeams: 5, numReturnSequences: 5 };
  const nucleusCfg = (seed: number): GenerationConfig => ({ strategy: 'nucleusSampling', topP: 0.95, numReturnSequences: 5, seed });

  // Warm-up: one short run of each path (session initialisation, first-run allocations).
  const short = prompts[0].slice(-32);
  await decode(ours, [short], { strategy: 'greedy', maxNewTokens: 3 });
  await decode(ours, [short], { strategy: 'beamSearch', numBeams: 5, numReturnSequences: 5, maxNewTokens: 3 });
  await decode(ours, [short], { strategy: 'nucleusSampling', topP: 0.95, numReturnSequences: 5, seed: 1, maxNewTokens: 3 });
  await theirsOne(short, zero());
  if (theirsNoSpin) await theirsOne(short, zero(), theirsNoSpin);

  const greedy = zero();
  const tjsGreedy = zero();
  const tjsNoSpinGreedy = zero();
  let sameNoSpin = 0;
  const beam = zero();
  const nucleus = zero();
  let same = 0;
  // Per grid context: the grid as a run decodes it, one decode per setting, also one prompt pass per setting, and greedy.
  const grid: { together: number; separate: number; unshared: number; greedy: number }[] = [];
  let gridSame = 0;
  let gridCandidates = 0;
  for (const [i, p] of prompts.entries()) {
    const g = zero();
    const a = await oursOne(p, greedyCfg, g);
    const b = await theirsOne(p, tjsGreedy);
    if (a.join(' ') === b.join(' ')) same++;
    if (theirsNoSpin && a.join(' ') === (await theirsOne(p, tjsNoSpinGreedy, theirsNoSpin)).join(' ')) sameNoSpin++;
    await oursOne(p, beamCfg, beam);
    await oursOne(p, nucleusCfg(i), nucleus);
    for (const k of Object.keys(g) as (keyof Timing)[]) greedy[k] += g[k];
    if (i < opts.gridContexts) {
      // The GEM 2022 grid as a run decodes one context (decodeSettings: the 4 p as one batch, one prompt pass);
      // then with one decode per setting, every setting after the first starting from the prompt pass already
      // made; then with a prompt pass per setting too.
      const gridConfigs = PRESETS.gem2022.settings.map((spec) => generationConfigOf({ ...spec, maxNewTokens }, 7 + i));
      const start = performance.now();
      const together = await decodeSettings(ours, p, gridConfigs);
      const togetherMs = performance.now() - start;
      gridCandidates += together.reduce((n, seqs) => n + seqs.length, 0);
      const separate = performance.now();
      const alone = [];
      // The first setting makes its own prompt pass (the one `together` left is not reused), as in a run.
      for (const [k, config] of gridConfigs.entries()) alone.push((await decode(ours, [p], config, { reusePromptPass: k > 0 }))[0]);
      const separateMs = performance.now() - separate;
      if (JSON.stringify(alone) === JSON.stringify(together)) gridSame++;
      const unshared = performance.now();
      for (const config of gridConfigs) await decode(ours, [p], config, { reusePromptPass: false });
      grid.push({ together: togetherMs, separate: separateMs, unshared: performance.now() - unshared, greedy: g.wallMs });
    }
  }
  const layout = (ours as OnnxCausalLM | OnnxSeq2SeqLM).description?.layout;
  const staticMode = ours instanceof OnnxCausalLM && ours.cacheMode.kind === 'static' ? ours.cacheMode : undefined;
  const crossAttention = ours instanceof OnnxSeq2SeqLM ? ours.crossAttention : undefined;
  const crossShared = crossAttention?.shared === true;
  await ours.dispose();
  await theirs.dispose();
  await theirsNoSpin?.dispose();

  const config = JSON.parse(readFileSync(join(folder, 'config.json'), 'utf8')) as Record<string, number>;
  const w = weightBytesPerStep(config, opts.dtype === 'fp32' ? 4 : 1);

  // Where one decoder pass spends its time (bench/stepProfile.ts), at the mean prompt's cache length.
  let steps: StepBreakdown[] = [];
  let shortSteps: StepBreakdown[] = [];
  let sharedSteps: StepBreakdown[] = [];
  if (opts.stepProfile && layout && 'decoder' in layout) {
    const file = layout.kind === 'split' ? layout.decoderWithPast : layout.decoder;
    const dModel = config.n_embd ?? config.d_model;
    const heads = config.n_head ?? config.decoder_attention_heads;
    const past = Math.round(prompts.reduce((s, p) => s + p.length, 0) / prompts.length);
    const cfg = { heads, headDim: dModel / heads, dModel };
    const sessionOptions = { ...threads, ...(opts.allowSpinning ? {} : { extra: { session: { intra_op: { allow_spinning: '0' } } } }) };
    steps = await profileStep(file, [1, 5, 20], past, cfg, sessionOptions);
    // Encoder-decoder: the same passes with one copy of the cross-attention cache, as the engine feeds one prompt's rows.
    if (kind === 'bart' && crossShared) sharedSteps = await profileStep(file, [1, 5, 20], past, cfg, sessionOptions, undefined, true);
    // Decoder-only: every row of a prompt holds the prompt's cache; the same passes with only the new tokens' positions
    // show what that costs the beam, nucleus and grid ratios (20 rows: the grid's sampling batch).
    if (kind === 'gpt2') shortSteps = await profileStep(file, [1, 5, 20], maxNewTokens, cfg, sessionOptions);
    // The same pass as the engine runs it with the cache kept in place: the patched graph, only logits and the new positions fetched.
    if (staticMode) {
      const staged = await stageModel(file, [...staticMode.appended.keys()]);
      if ('path' in staged) {
        try {
          steps.push(...(await profileStep(file, [1, 5], past, cfg, sessionOptions, { model: staged.path, fetches: [...staticMode.fetches] })));
        } finally {
          await staged.dispose();
        }
      }
    }
  }

  const stepMs = greedy.stepSpanMs / greedy.stepsAfterFirst;
  const tps = (t: Timing) => (t.tokens / t.wallMs) * 1000;
  const perStep = (t: Timing) => t.wallMs / t.runs;
  const name = kind === 'gpt2' ? 'gpt2-medium shape' : 'bart-large shape';
  const meanPrompt = prompts.reduce((s, p) => s + p.length, 0) / prompts.length;
  console.log(
    `${name}${opts.dtype === 'fp32' ? '' : ` (dtype ${opts.dtype})`}: ${prompts.length} prompts (mean ${meanPrompt.toFixed(0)} tokens) × ${maxNewTokens} new tokens; ` +
      `load ${(oursLoad / 1000).toFixed(1)} s ours, ${(theirsLoad / 1000).toFixed(1)} s transformers.js; weights read per step ${(w.bytes / 1e9).toFixed(3)} GB (${w.what}); cache ${ours instanceof OnnxCausalLM ? (ours.cacheMode.kind === 'static' ? `kept in place (static; graph loaded from ${ours.cacheMode.loadedFrom}; one prompt's cache shared by its rows: ${ours.cacheMode.sharedPrefix === true ? 'yes' : `no, ${ours.cacheMode.sharedPrefix.skipped}`})` : `returned every step (${ours.cacheMode.reason})`) : `returned every step; one cross-attention cache for a prompt's rows: ${crossAttention?.shared ? 'yes' : `no, ${crossAttention?.reason}`}`}`,
  );
  return (bandwidth) => {
    const limitMs = (w.bytes / bandwidth) * 1000;
    return [
      [`${name}: greedy tokens/s, ours ÷ transformers.js generate()`, (tps(greedy) / tps(tjsGreedy)).toFixed(2), '≥ 1.0', `${tps(greedy).toFixed(2)} vs ${tps(tjsGreedy).toFixed(2)} tokens/s; same tokens: ${same} of ${prompts.length}`],
      ...(theirsNoSpin
        ? [[`${name}: the same, transformers.js with onnxruntime's threads not spinning, as ours`, (tps(greedy) / tps(tjsNoSpinGreedy)).toFixed(2), '(like for like)', `${tps(greedy).toFixed(2)} vs ${tps(tjsNoSpinGreedy).toFixed(2)} tokens/s; same tokens: ${sameNoSpin} of ${prompts.length}`]]
        : []),
      [`${name}: greedy step vs memory-bandwidth limit`, `${((100 * limitMs) / stepMs).toFixed(0)} %`, '≥ 60 %', `${stepMs.toFixed(0)} ms per step after the first vs ${limitMs.toFixed(0)} ms (${(w.bytes / 1e9).toFixed(2)} GB at ${(bandwidth / 1e9).toFixed(1)} GB/s)`],
      [`${name}: beam k=5 (all 5) wall per step ÷ greedy`, (perStep(beam) / perStep(greedy)).toFixed(2), '≤ 1.5', `${perStep(beam).toFixed(0)} vs ${perStep(greedy).toFixed(0)} ms per decoder pass (prompt pass included); passes ${beam.runs} vs ${greedy.runs}; after the first step ${(beam.stepSpanMs / beam.stepsAfterFirst).toFixed(0)} vs ${stepMs.toFixed(0)} ms`],
      [`${name}: nucleus p=0.95 × 5 wall ÷ greedy`, (nucleus.wallMs / greedy.wallMs).toFixed(2), '≤ 1.3', `${nucleus.wallMs.toFixed(0)} vs ${greedy.wallMs.toFixed(0)} ms; passes ${nucleus.runs} vs ${greedy.runs}`],
      ...gridRows(name, grid, gridCandidates, gridSame),
      ...stepProfileRows(name, steps, w.bytes, bandwidth, shortSteps, sharedSteps),
    ];
  };
}

export async function runReal(args: string[]): Promise<void> {
  const opts = {
    models: resolve(strArg(args, '--models') ?? resolve(__dirname, '../.bench-models')),
    // Issue 19's own measurement size. With fewer new tokens the prompt pass, which every strategy pays once,
    // weighs more in each wall time and pulls the beam, nucleus and grid ratios towards 1 (docs/scale.md).
    prompts: arg(args, '--prompts', 8),
    maxNewTokens: arg(args, '--max-new-tokens', 24),
    gridContexts: arg(args, '--grid-contexts', 2),
    threads: args.includes('--threads') ? arg(args, '--threads', 0) : undefined,
    dtype: (strArg(args, '--dtype') ?? 'fp32') as ModelDtype,
    stepProfile: args.includes('--step-profile'),
    staticCache: strArg(args, '--static-cache') !== 'off',
    sharedPrefix: strArg(args, '--shared-prefix') !== 'off',
    // onnxruntime's threads spin-wait between runs (transformers.js's default; ReflectEval's is off, see docs/generation.md).
    allowSpinning: strArg(args, '--spinning') === 'on',
  };
  if (!isModelDtype(opts.dtype)) throw new Error(`--dtype ${opts.dtype}: not a transformers.js dtype (fp32, fp16, q8, int8, uint8, q4, q4f16, bnb4)`);
  const only = strArg(args, '--only');
  const kinds = (['gpt2', 'bart'] as const).filter((k) => !only || only === k);
  const bandwidths: number[] = [];
  const measure = async (when: string) => {
    const one = await copyBandwidth(1);
    const two = await copyBandwidth(2);
    bandwidths.push(one, two);
    console.log(`memory bandwidth ${when} (Float32Array copies, read + written bytes): ${(one / 1e9).toFixed(1)} GB/s on 1 thread, ${(two / 1e9).toFixed(1)} GB/s on 2`);
  };
  await measure('at the start');
  const tjs = await import('@huggingface/transformers');
  tjs.env.allowRemoteModels = false;
  const results: ((bandwidth: number) => string[][])[] = [];
  for (const kind of kinds) {
    results.push(await benchOne(kind, tjs, opts));
    await measure(`after ${kind}`);
  }
  const bandwidth = Math.max(...bandwidths);
  console.log(`the limit uses the highest: ${(bandwidth / 1e9).toFixed(1)} GB/s`);
  const rows = results.flatMap((r) => r(bandwidth));
  const w = [0, 1, 2, 3].map((c) => Math.max(...rows.map((r) => r[c].length), ['measure', 'ratio', 'goal', 'detail'][c].length));
  const line = (r: string[]) => '| ' + r.map((x, c) => x.padEnd(w[c])).join(' | ') + ' |';
  console.log(`generate bench --size real: threads ${opts.threads ?? 'onnxruntime default'}, dtype ${opts.dtype}, grid on ${opts.gridContexts} context(s); onnxruntime's threads ${opts.allowSpinning ? 'spin between runs (--spinning on)' : 'do not spin'}`);
  console.log(line(['measure', 'ratio', 'goal', 'detail']));
  console.log('|' + w.map((n) => '-'.repeat(n + 2)).join('|') + '|');
  for (const r of rows) console.log(line(r));
}
