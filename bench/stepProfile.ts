/**
 * `npm run bench -- generate --size real --step-profile`: where one decoder pass spends its time, for 1 row (greedy)
 * and 5 rows (beam search k = 5, or 5 nucleus samples), at the cache length of a real prompt. It says what limits the
 * generate bench's ratios, in numbers a reader can reproduce:
 *
 * - **onnxruntime's own time**: the `model_run` events of onnxruntime's profiler (session option `enableProfiling`),
 *   and within them the matrix products (MatMul, FusedMatMul, Gemm, MatMulInteger) and the cache concatenation
 *   (Concat) — what any engine calling onnxruntime pays;
 * - **the binding's time**: the wall time of `session.run` seen from JavaScript minus onnxruntime's own time. It is
 *   spent handing the inputs over and copying every output into a new JavaScript buffer (onnxruntime-node returns
 *   outputs by copy: its binding calls `napi_create_arraybuffer`, not an external buffer), so it grows with the
 *   bytes of the outputs — for a decoder-only model, the whole key/value cache of every row at every step;
 * - **the matrix products alone vs the memory-bandwidth limit**: if a pass spent nothing outside them, the
 *   greedy ratio could reach at most this.
 *
 * Inputs are synthetic (token 5 everywhere, caches filled with 0.01): speed does not depend on values. Each pass is
 * run 6 times and the last 4 are averaged (the first ones pay for allocations and prepacking).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type * as ort from 'onnxruntime-common';
import { ortRuntime } from '../src/core/models/ortRuntime';

/** One pass's breakdown, in milliseconds (means over the counted runs) and megabytes. */
export interface StepBreakdown {
  rows: number;
  /** `session.run` wall seen from JavaScript. */
  jsMs: number;
  /** onnxruntime's `model_run` time. */
  ortMs: number;
  matmulMs: number;
  concatMs: number;
  /** Bytes of all outputs of the pass, in MB (10⁶ bytes). */
  outputMB: number;
  /** Cache length fed, in positions (without the 8 masked ones of an in-place pass). */
  past: number;
  /** The cache kept in place (the patched graph, only logits and the new positions fetched). */
  inPlace?: boolean;
  /**
   * Encoder-decoder: one row of cross-attention cache fed for all rows, as the engine feeds the rows of one prompt; and
   * one row of encoder states, which the engine feeds only to a with-past graph that never reads them (the bench's).
   */
  sharedCross?: boolean;
}

interface ProfileEvent {
  cat?: string;
  name?: string;
  ts: number;
  dur: number;
  args?: { op_name?: string };
}

const MATMUL = new Set(['MatMul', 'FusedMatMul', 'Gemm', 'MatMulInteger', 'MatMulNBits', 'DynamicQuantizeMatMul']);

/**
 * Feeds for one decoder pass with a cache of `past` positions (decoder-only) or a decoder cache of `decoderPast`
 * positions and an encoder output of `past` positions (encoder-decoder, Optimum's merged or with-past decoder).
 *
 * @throws Error naming an input it cannot fill
 */
function feedsFor(rt: typeof import('onnxruntime-node'), session: ort.InferenceSession, rows: number, past: number, cfg: { heads: number; headDim: number; dModel: number }, decoderPast = 8, sharedCross = false): Record<string, ort.Tensor> {
  const T = rt.Tensor;
  const ints = (n: number, v: bigint, dims: number[]) => new T('int64', new BigInt64Array(n).fill(v), dims);
  const floats = (dims: number[]) => new T('float32', new Float32Array(dims.reduce((a, b) => a * b, 1)).fill(0.01), dims);
  const encoderDecoder = session.inputNames.includes('encoder_hidden_states');
  const feeds: Record<string, ort.Tensor> = {};
  for (const name of session.inputNames) {
    if (name === 'input_ids') feeds[name] = ints(rows, 5n, [rows, 1]);
    else if (name === 'attention_mask') feeds[name] = ints(rows * (past + 1), 1n, [rows, past + 1]);
    else if (name === 'position_ids') feeds[name] = ints(rows, BigInt(past), [rows, 1]);
    else if (name === 'use_cache_branch') feeds[name] = new T('bool', new Uint8Array([1]), [1]);
    else if (name === 'encoder_attention_mask') feeds[name] = ints(rows * past, 1n, [rows, past]);
    else if (name === 'encoder_hidden_states') feeds[name] = floats([sharedCross ? 1 : rows, past, cfg.dModel]);
    else if (name.startsWith('past_key_values.')) {
      const cross = encoderDecoder && name.includes('.encoder.');
      const length = encoderDecoder ? (cross ? past : decoderPast) : past;
      feeds[name] = floats([cross && sharedCross ? 1 : rows, cfg.heads, length, cfg.headDim]);
    } else throw new Error(`step profile: no synthetic value for input ${name}`);
  }
  return feeds;
}

/**
 * Runs one decoder pass of `file` with `rows` rows, 6 times, under onnxruntime's profiler, and breaks down the last 4.
 *
 * @param past - cache length in positions (the prompt's tokens; for an encoder-decoder, the encoder's positions)
 * @param sessionOptions - as the engine opens sessions (threads, spinning)
 * @param inPlace - the graph as the engine runs it with the cache kept in place (the path of the file
 *   `stageModel` writes, or the bytes `exposeCacheAppends` makes) and the outputs a step fetches (logits and the new positions); the cache is then fed with 8 more (masked) positions
 */
export async function profileStep(
  file: string,
  rowsList: number[],
  past: number,
  cfg: { heads: number; headDim: number; dModel: number },
  sessionOptions: Record<string, unknown>,
  inPlace?: { model: Uint8Array | string; fetches: string[] },
  sharedCross = false,
): Promise<StepBreakdown[]> {
  const rt = await ortRuntime();
  const out: StepBreakdown[] = [];
  for (const rows of rowsList) {
    const dir = mkdtempSync(join(tmpdir(), 'reflect-eval-step-profile-'));
    const options = { graphOptimizationLevel: 'all', ...sessionOptions, enableProfiling: true, profileFilePrefix: join(dir, 'ort') } as ort.InferenceSession.SessionOptions;
    const model = inPlace?.model ?? file;
    const session = typeof model === 'string' ? await rt.InferenceSession.create(model, options) : await rt.InferenceSession.create(model, options);
    try {
      const feeds = feedsFor(rt, session, rows, inPlace ? past + 8 : past, cfg, 8, sharedCross);
      const js: number[] = [];
      let outputBytes = 0;
      for (let i = 0; i < 6; i++) {
        const t0 = performance.now();
        const result = inPlace ? await session.run(feeds, inPlace.fetches) : await session.run(feeds);
        js.push(performance.now() - t0);
        outputBytes = Object.values(result).reduce((s, t) => s + ((t.data as ArrayBufferView).byteLength ?? 0), 0);
      }
      session.endProfiling();
      const name = readdirSync(dir).find((f) => f.endsWith('.json'));
      if (!name) throw new Error(`step profile: onnxruntime wrote no profile in ${dir}`);
      const events = JSON.parse(readFileSync(join(dir, name), 'utf8')) as ProfileEvent[];
      const runs = events.filter((e) => e.name === 'model_run').slice(-4);
      if (runs.length < 4) throw new Error(`step profile: ${runs.length} model_run events in ${name}, expected ≥ 4`);
      const from = runs[0].ts;
      let matmul = 0;
      let concat = 0;
      for (const e of events) {
        if (e.cat !== 'Node' || e.ts < from || !e.name?.endsWith('_kernel_time')) continue;
        const op = e.args?.op_name ?? '';
        if (MATMUL.has(op)) matmul += e.dur;
        else if (op === 'Concat') concat += e.dur;
      }
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      out.push({
        rows,
        jsMs: mean(js.slice(-4)),
        ortMs: mean(runs.map((r) => r.dur)) / 1000,
        matmulMs: matmul / runs.length / 1000,
        concatMs: concat / runs.length / 1000,
        outputMB: outputBytes / 1e6,
        past,
        ...(inPlace ? { inPlace: true } : {}),
        ...(sharedCross ? { sharedCross: true } : {}),
      });
    } finally {
      await session.release();
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return out;
}

/**
 * Table rows (measure, value, detail) for the generate bench's output. `short`: the same passes (cache returned) with
 * a cache of only the new tokens' positions, beside the prompt's: how much of the k rows ÷ 1 row cost is every row
 * holding (and, in the graph's Concat, copying) its own copy of the prompt's cache.
 */
export function stepProfileRows(name: string, steps: StepBreakdown[], weightBytes: number, bandwidth: number, short: StepBreakdown[] = [], shared: StepBreakdown[] = []): string[][] {
  const limitMs = (weightBytes / bandwidth) * 1000;
  const rows: string[][] = [];
  for (const s of steps) {
    const outside = s.jsMs - s.ortMs;
    rows.push([
      `${name}: one pass, ${s.rows} row${s.rows === 1 ? '' : 's'}${s.inPlace ? ', cache in place' : ''} — session.run seen from JS`,
      `${s.jsMs.toFixed(0)} ms`,
      '',
      `onnxruntime ${s.ortMs.toFixed(0)} ms (matrix products ${s.matmulMs.toFixed(0)}, Concat ${s.concatMs.toFixed(0)}, other ${(s.ortMs - s.matmulMs - s.concatMs).toFixed(0)}); binding ${outside.toFixed(0)} ms, copying ${s.outputMB.toFixed(0)} MB of outputs into JS`,
    ]);
  }
  const one = steps.find((s) => s.rows === 1 && !s.inPlace);
  const five = steps.find((s) => s.rows === 5 && !s.inPlace);
  if (one) rows.push([`${name}: matrix products alone vs memory-bandwidth limit`, `${((100 * limitMs) / one.matmulMs).toFixed(0)} %`, '', `${one.matmulMs.toFixed(0)} ms of matrix products per 1-row pass vs ${limitMs.toFixed(0)} ms: the greedy ratio's ceiling with nothing else in the pass`]);
  if (one && five) rows.push([`${name}: 5 rows ÷ 1 row inside onnxruntime`, (five.ortMs / one.ortMs).toFixed(2), '', `with the binding: ${(five.jsMs / one.jsMs).toFixed(2)}; the beam and nucleus ratios' floor from the model alone`]);
  const shortOne = short.find((s) => s.rows === 1);
  for (const k of short) {
    const long = steps.find((s) => s.rows === k.rows && !s.inPlace);
    if (k.rows === 1 || !shortOne || !long || !one) continue;
    rows.push([
      `${name}: ${k.rows} rows ÷ 1 row inside onnxruntime, cache of ${long.past} vs ${k.past} positions`,
      `${(long.ortMs / one.ortMs).toFixed(2)} vs ${(k.ortMs / shortOne.ortMs).toFixed(2)}`,
      '',
      `${long.ortMs.toFixed(0)} vs ${one.ortMs.toFixed(0)} ms (Concat ${long.concatMs.toFixed(0)} vs ${one.concatMs.toFixed(0)}) with the prompt's cache in every row; ${k.ortMs.toFixed(0)} vs ${shortOne.ortMs.toFixed(0)} ms (Concat ${k.concatMs.toFixed(0)} vs ${shortOne.concatMs.toFixed(0)}) with only the new tokens'`,
    ]);
  }
  // Encoder-decoder: the same passes with one copy of the cross-attention cache for all rows, as the engine feeds a prompt's rows.
  const sharedOne = shared.find((s) => s.rows === 1);
  for (const k of shared) {
    const perRow = steps.find((s) => s.rows === k.rows && !s.inPlace);
    if (k.rows === 1 || !sharedOne || !perRow || !one) continue;
    rows.push([
      `${name}: ${k.rows} rows ÷ 1 row inside onnxruntime, cross-attention cache per row vs one copy`,
      `${(perRow.ortMs / one.ortMs).toFixed(2)} vs ${(k.ortMs / sharedOne.ortMs).toFixed(2)}`,
      '',
      `${perRow.ortMs.toFixed(0)} vs ${one.ortMs.toFixed(0)} ms with the encoder's ${perRow.past} positions tiled into every row; ${k.ortMs.toFixed(0)} vs ${sharedOne.ortMs.toFixed(0)} ms with one copy (session.run seen from JS ${k.jsMs.toFixed(0)} ms)`,
    ]);
  }
  const oneIn = steps.find((s) => s.rows === 1 && s.inPlace);
  const fiveIn = steps.find((s) => s.rows === 5 && s.inPlace);
  if (oneIn && fiveIn) rows.push([`${name}: 5 rows ÷ 1 row, cache in place`, (fiveIn.jsMs / oneIn.jsMs).toFixed(2), '', `inside onnxruntime ${(fiveIn.ortMs / oneIn.ortMs).toFixed(2)}`]);
  return rows;
}
