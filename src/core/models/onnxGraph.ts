/**
 * One ONNX graph of a model folder, opened with onnxruntime-node: its input and output names checked against
 * what ReflectEval feeds (one {@link ModelSourceError} listing every mismatch), and `run` timed.
 */
import { relative } from 'node:path';
import type * as ort from 'onnxruntime-common';
import type { RunTimer } from './languageModel';
import { ModelSourceError } from './errors';
import { stageModel } from './onnxPatch';

import type { LocalRuntimeOptions, OrtModule } from './ortRuntime';

export { ortRuntime, type OrtModule } from './ortRuntime';

/** Options for opening ONNX sessions. */
export interface SessionOptions {
  /** Threads inside one operator (onnxruntime default: one per core). */
  intraOpNumThreads?: number;
  /**
   * Let onnxruntime's worker threads spin-wait between runs (its default; default here false). Decoding
   * alternates short runs with JavaScript work on the main thread, and spinning workers compete with that work
   * for cores (see docs/generation.md, Speed).
   */
  allowSpinning?: boolean;
  /** onnxruntime execution providers in order of preference (default: onnxruntime's, CPU). */
  executionProviders?: string[];
  /**
   * Keep a decoder-only model's key/value cache in place between steps (default true): each step reads back only
   * the positions it adds, not the whole cache (see `StaticKVCache`, kvCache.ts). Applies to graphs whose cache
   * follows Optimum's Concat pattern (`exposeCacheAppends`, onnxPatch.ts) and that take `position_ids`; false
   * leaves every graph's outputs as they are (benchmarks compare both).
   */
  staticCache?: boolean;
  /**
   * With the cache kept in place, also give the graph one prompt's cache shared by all rows (default true;
   * `sharedPrefixOf`, onnxPatch.ts): rows decoded from one prompt (beams, samples, a grid's settings) then hold only
   * the positions after it, and each step reads the prompt's keys and values once for all rows instead of once per
   * row. Applies where the attention follows Optimum's Concat → Transpose → MatMul pattern and the graph is staged
   * (`stageWeights`); false keeps the per-row cache (benchmarks compare both).
   *
   * For an encoder-decoder model, the same choice for the cross-attention cache: the rows of one prompt are fed one
   * copy of it, which the with-past graph's attention broadcasts over the rows (`rowSharing`, onnxPatch.ts), instead
   * of a copy per row.
   */
  sharedPrefix?: boolean;
  /**
   * Let onnxruntime read each graph's weights as external data from the model file itself (default true): a small
   * file with the graph's structure is written beside hard links to the model's files (`stageModel`,
   * onnxPatch.ts), which loads faster and into less memory than onnxruntime parsing the whole file; false opens
   * the files as they are. Either way the graph and its weights are the same.
   */
  stageWeights?: boolean;
  /**
   * Decoder-only models whose cache is kept in place with a shared prefix: the most bytes of computed prompt caches
   * kept for later prompts that begin the same way (`PrefixCache`, prefixCache.ts; default
   * {@link DEFAULT_PREFIX_CACHE_BYTES}); 0 keeps none (each single prompt is computed whole, as before).
   */
  prefixCacheBytes?: number;
}

/** The default bound of a model's prefix cache: 1 GiB (about 4,700 prompt positions at Qwen3-0.6B's shape). */
export const DEFAULT_PREFIX_CACHE_BYTES = 1 << 30;

/** Session options for a plan's or a setting's {@link LocalRuntimeOptions}. */
export function sessionOptionsOf(runtime: LocalRuntimeOptions | undefined): SessionOptions {
  if (!runtime) return {};
  const ep = runtime.executionProvider;
  return {
    ...(runtime.threads ? { intraOpNumThreads: runtime.threads } : {}),
    ...(ep && ep !== 'cpu' ? { executionProviders: [ep, 'cpu'] } : {}),
    ...(runtime.spinning ? { allowSpinning: true } : {}),
  };
}

/** What a graph must declare and may declare; anything else is an input ReflectEval cannot feed. */
export interface GraphContract {
  requiredInputs: string[];
  optionalInputs?: string[];
  requiredOutputs: string[];
}

/** An opened ONNX graph. */
export class OnnxGraph {
  readonly inputs: ReadonlySet<string>;
  readonly outputs: ReadonlySet<string>;

  private constructor(
    /** Path of the `.onnx` file. */
    readonly file: string,
    /** Path relative to the model folder, for messages. */
    readonly name: string,
    readonly session: ort.InferenceSession,
    /**
     * What onnxruntime opened: `staged` (the graph's structure beside hard links to its weights, `stageModel`), `file`
     * (the file as it is) or `source` (the bytes or other file the caller gave).
     */
    readonly loadedFrom: 'staged' | 'file' | 'source',
  ) {
    this.inputs = new Set(session.inputNames);
    this.outputs = new Set(session.outputNames);
  }

  /**
   * Opens `file` and checks its names against `contract`.
   *
   * @param source - the model to load instead of `file`, as bytes or as the path of another file (`file` edited:
   *   `exposeCacheAppends`, `stageModel`); messages still name `file`
   * @throws ModelSourceError naming the folder, the file and every missing or unexpected input/output
   */
  static async open(rt: OrtModule, folder: string, file: string, contract: GraphContract, options: SessionOptions = {}, source?: Uint8Array | string): Promise<OnnxGraph> {
    const name = relative(folder, file) || file;
    const sessionOptions: ort.InferenceSession.SessionOptions = {
      graphOptimizationLevel: 'all',
      ...(options.allowSpinning ? {} : { extra: { session: { intra_op: { allow_spinning: '0' } } } }),
      ...(options.intraOpNumThreads ? { intraOpNumThreads: options.intraOpNumThreads } : {}),
      ...(options.executionProviders ? { executionProviders: options.executionProviders } : {}),
    };
    let session: ort.InferenceSession | undefined;
    let loadedFrom: 'staged' | 'file' | 'source' = source === undefined ? 'file' : 'source';
    try {
      if (source === undefined && options.stageWeights !== false) {
        // The weights read as external data from the file itself: faster, and into less memory (stageModel). Any
        // failure — no folder for the links, a file this reader does not understand, onnxruntime refusing the
        // staged file — leaves onnxruntime to open the file as it is.
        const staged = await stageModel(file).catch(() => undefined);
        if (staged && 'path' in staged) {
          try {
            session = await rt.InferenceSession.create(staged.path, sessionOptions);
            loadedFrom = 'staged';
          } catch {
            session = undefined;
          } finally {
            await staged.dispose();
          }
        }
      }
      session ??= typeof source === 'object' ? await rt.InferenceSession.create(source, sessionOptions) : await rt.InferenceSession.create(source ?? file, sessionOptions);
    } catch (e) {
      throw new ModelSourceError(`model folder ${folder}: ${name} could not be loaded by onnxruntime (${(e as Error).message.split('\n')[0]})`);
    }
    const g = new OnnxGraph(file, name, session, loadedFrom);
    const problems: string[] = [];
    const missingIn = contract.requiredInputs.filter((n) => !g.inputs.has(n));
    if (missingIn.length) problems.push(`no input ${missingIn.map((n) => `"${n}"`).join(', ')}`);
    const known = new Set([...contract.requiredInputs, ...(contract.optionalInputs ?? [])]);
    const unknown = session.inputNames.filter((n) => !known.has(n));
    if (unknown.length) problems.push(`unexpected input ${unknown.map((n) => `"${n}"`).join(', ')}`);
    const missingOut = contract.requiredOutputs.filter((n) => !g.outputs.has(n));
    if (missingOut.length) problems.push(`no output ${missingOut.map((n) => `"${n}"`).join(', ')}`);
    if (problems.length) {
      await session.release();
      throw new ModelSourceError(
        `model folder ${folder}: ${name} does not match the Optimum export ReflectEval expects: ${problems.join('; ')} ` +
          `(inputs: ${session.inputNames.join(', ')}; outputs: ${session.outputNames.join(', ')})`,
      );
    }
    return g;
  }

  /** The declared static size of dimension `dim` of input `name`, or undefined when symbolic. */
  inputDim(name: string, dim: number): number | undefined {
    const meta = this.session.inputMetadata.find((m) => m.name === name);
    if (!meta || !meta.isTensor) return undefined;
    const d = meta.shape[dim];
    return typeof d === 'number' && d > 0 ? d : undefined;
  }

  /**
   * Names and element types of the floating-point inputs and outputs that are not float32 (e.g. `logits: float16`
   * in an fp16 export), among `names`.
   */
  nonFloat32(names: readonly string[]): string[] {
    const out: string[] = [];
    for (const m of [...this.session.inputMetadata, ...this.session.outputMetadata]) {
      if (m.isTensor && names.includes(m.name) && /^(float16|bfloat16|float64)$/.test(String(m.type))) out.push(`${m.name}: ${String(m.type)}`);
    }
    return out;
  }

  /**
   * Runs the graph, adding the time spent to `timer`.
   *
   * @param fetches - the outputs to return (default: all); onnxruntime-node copies each returned output
   */
  async run(feeds: Record<string, ort.Tensor>, timer?: RunTimer, fetches?: readonly string[]): Promise<ort.InferenceSession.ReturnType> {
    if (!timer) return fetches ? this.session.run(feeds, fetches) : this.session.run(feeds);
    const t0 = performance.now();
    const out = fetches ? await this.session.run(feeds, fetches) : await this.session.run(feeds);
    timer.runMs += performance.now() - t0;
    timer.runs++;
    return out;
  }

  async release(): Promise<void> {
    await this.session.release();
  }
}

/**
 * Refuses graphs whose named inputs or outputs (logits, key/value caches, encoder states) are not float32 — fp16
 * and q4f16 exports — releasing every graph first: ReflectEval's decoding feeds and reads float32 tensors.
 *
 * @throws ModelSourceError naming the folder, each file and tensor, and the precisions that load
 */
export async function requireFloat32(folder: string, graphs: readonly OnnxGraph[], names: readonly string[]): Promise<void> {
  const found = [...new Set(graphs)]
    .map((g) => ({ g, bad: g.nonFloat32(names) }))
    .filter((x) => x.bad.length > 0)
    .map(({ g, bad }) => `${g.name} has ${bad.slice(0, 3).join(', ')}${bad.length > 3 ? ` and ${bad.length - 3} more` : ''}`);
  if (found.length === 0) return;
  for (const g of new Set(graphs)) await g.release();
  throw new ModelSourceError(
    `model folder ${folder}: ${found.join('; ')}. ReflectEval's decoding feeds and reads float32 tensors, so fp16 exports cannot generate here; ` +
      'load an fp32 or integer-quantized variant (dtype fp32, q8, int8, uint8, q4 or bnb4)',
  );
}

/** A reusable int64 buffer handing out exact-length views, so per-step masks and ids do not allocate. */
export class Int64Scratch {
  private buf = new ArrayBuffer(0);
  /** A zero-copy view of `length` elements (contents unspecified). Valid until the next call. */
  view(length: number): BigInt64Array {
    if (this.buf.byteLength < length * 8) this.buf = new ArrayBuffer(Math.max(length * 8, this.buf.byteLength * 2));
    return new BigInt64Array(this.buf, 0, length);
  }
}
