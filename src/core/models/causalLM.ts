/**
 * A decoder-only causal language model exported by Hugging Face Optimum, run with onnxruntime-node.
 *
 * Supported layouts: `onnx/model.onnx` (or `onnx/decoder_model_merged.onnx` with its `use_cache_branch`
 * input), inputs `input_ids`, `attention_mask`, optional `position_ids`, and `past_key_values.{i}.key|value`;
 * outputs `logits` and `present.{i}.key|value`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as ort from 'onnxruntime-common';
import { ModelSourceError, resolveCausalLM } from './modelSource';
import { loadTokenizer, type ModelTokenizer } from './tokenizer';

/** Shapes read from `config.json`. */
export interface CausalLMConfig {
  modelType: string;
  numLayers: number;
  /** Key/value heads (equals attention heads unless the model uses grouped-query attention). */
  numKeyValueHeads: number;
  headDim: number;
  vocabSize: number;
  /** Longest sequence (prompt + generated) the position embeddings allow. */
  maxPositions: number;
}

/** The key/value cache: one tensor per `past_key_values.*` input, shape [batch, kvHeads, pastLength, headDim]. */
export type KVCache = Map<string, ort.Tensor>;

/** Output of one forward pass. */
export interface ForwardOutput {
  /** Logits, row-major [batch, seq, vocab]. */
  logits: Float32Array;
  batch: number;
  seq: number;
  vocab: number;
  /** The cache to feed the next step (past length + seq). */
  present: KVCache;
}

/** Time spent inside `session.run`, in milliseconds, for benchmarks. */
export interface RunTimer {
  runMs: number;
  runs: number;
}

type OrtModule = typeof import('onnxruntime-node');
let ortModule: OrtModule | undefined;
async function ortRuntime(): Promise<OrtModule> {
  ortModule ??= await import('onnxruntime-node');
  return ortModule;
}

function num(config: Record<string, unknown>, keys: string[], folder: string): number {
  for (const k of keys) if (typeof config[k] === 'number') return config[k] as number;
  throw new ModelSourceError(`model folder ${folder}: config.json has none of ${keys.join(', ')}`);
}

/** Reads the shapes the decoder needs from a `config.json` object. */
export function readCausalLMConfig(config: Record<string, unknown>, folder: string): CausalLMConfig {
  const numLayers = num(config, ['n_layer', 'num_hidden_layers', 'num_layers'], folder);
  const numHeads = num(config, ['n_head', 'num_attention_heads'], folder);
  const hidden = num(config, ['n_embd', 'hidden_size', 'd_model'], folder);
  const numKeyValueHeads = typeof config.num_key_value_heads === 'number' ? config.num_key_value_heads : numHeads;
  const headDim = typeof config.head_dim === 'number' ? config.head_dim : hidden / numHeads;
  return {
    modelType: String(config.model_type ?? 'unknown'),
    numLayers,
    numKeyValueHeads,
    headDim,
    vocabSize: num(config, ['vocab_size'], folder),
    maxPositions: num(config, ['n_positions', 'max_position_embeddings', 'n_ctx'], folder),
  };
}

/** A loaded ONNX causal LM with its tokenizer. */
export class OnnxCausalLM {
  private constructor(
    /** The model reference as given (folder or hub id), or the `id` passed to `load`; recorded in candidate origins. */
    readonly ref: string,
    readonly folder: string,
    readonly config: CausalLMConfig,
    readonly tokenizer: ModelTokenizer,
    private readonly session: ort.InferenceSession,
    private readonly ort: OrtModule,
    private readonly pastNames: string[],
    private readonly usesPositionIds: boolean,
    private readonly usesCacheBranch: boolean,
  ) {}

  /**
   * Loads a model from a local folder or a hub id.
   *
   * @param options.id - name recorded in candidate origins instead of `ref` (e.g. for a bundled model whose
   *   absolute path means nothing on another machine)
   * @throws ModelSourceError when the folder lacks a file or the ONNX inputs do not match the expected names
   */
  static async load(ref: string, options: { cwd?: string; intraOpNumThreads?: number; id?: string } = {}): Promise<OnnxCausalLM> {
    const { folder, onnxFile } = await resolveCausalLM(ref, { cwd: options.cwd });
    const rawConfig = JSON.parse(readFileSync(join(folder, 'config.json'), 'utf8')) as Record<string, unknown>;
    const config = readCausalLMConfig(rawConfig, folder);
    const tokenizer = await loadTokenizer(folder, rawConfig as { eos_token_id?: number | number[]; pad_token_id?: number });
    const rt = await ortRuntime();
    const session = await rt.InferenceSession.create(onnxFile, {
      graphOptimizationLevel: 'all',
      ...(options.intraOpNumThreads ? { intraOpNumThreads: options.intraOpNumThreads } : {}),
    });
    const inputs = session.inputNames;
    for (const need of ['input_ids', 'attention_mask']) {
      if (!inputs.includes(need)) throw new ModelSourceError(`model ${onnxFile} has no "${need}" input (inputs: ${inputs.join(', ')})`);
    }
    if (!session.outputNames.includes('logits')) throw new ModelSourceError(`model ${onnxFile} has no "logits" output`);
    const pastNames: string[] = [];
    for (let i = 0; i < config.numLayers; i++) {
      for (const kv of ['key', 'value']) {
        const name = `past_key_values.${i}.${kv}`;
        if (!inputs.includes(name)) {
          throw new ModelSourceError(`model ${onnxFile} has no "${name}" input: ReflectEval needs an Optimum export with KV cache (config says ${config.numLayers} layers)`);
        }
        if (!session.outputNames.includes(`present.${i}.${kv}`)) throw new ModelSourceError(`model ${onnxFile} has no "present.${i}.${kv}" output`);
        pastNames.push(name);
      }
    }
    return new OnnxCausalLM(options.id ?? ref, folder, config, tokenizer, session, rt, pastNames, inputs.includes('position_ids'), inputs.includes('use_cache_branch'));
  }

  /** An empty cache for `batch` rows (past length 0). */
  emptyCache(batch: number): KVCache {
    const { numKeyValueHeads: h, headDim: d } = this.config;
    return new Map(this.pastNames.map((n) => [n, new this.ort.Tensor('float32', new Float32Array(0), [batch, h, 0, d])]));
  }

  /**
   * One forward pass.
   *
   * @param inputIds - [batch, seq] token ids, row-major
   * @param attentionMask - [batch, past + seq] of 0/1, row-major
   * @param positionIds - [batch, seq] positions, row-major (ignored by models without `position_ids`)
   * @param past - cache from the previous step, or `emptyCache(batch)`
   */
  async forward(
    inputIds: BigInt64Array,
    attentionMask: BigInt64Array,
    positionIds: BigInt64Array,
    batch: number,
    seq: number,
    past: KVCache,
    timer?: RunTimer,
  ): Promise<ForwardOutput> {
    const T = this.ort.Tensor;
    const pastLen = attentionMask.length / batch - seq;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new T('int64', inputIds, [batch, seq]),
      attention_mask: new T('int64', attentionMask, [batch, pastLen + seq]),
    };
    if (this.usesPositionIds) feeds.position_ids = new T('int64', positionIds, [batch, seq]);
    if (this.usesCacheBranch) feeds.use_cache_branch = new T('bool', new Uint8Array([pastLen > 0 ? 1 : 0]), [1]);
    for (const [name, tensor] of past) feeds[name] = tensor;
    const t0 = timer ? performance.now() : 0;
    const out = await this.session.run(feeds);
    if (timer) {
      timer.runMs += performance.now() - t0;
      timer.runs++;
    }
    const present: KVCache = new Map();
    for (const name of this.pastNames) present.set(name, out[name.replace('past_key_values.', 'present.')]);
    const logits = out.logits;
    const vocab = logits.dims[2];
    return { logits: logits.data as Float32Array, batch, seq, vocab, present };
  }

  /**
   * A cache whose every row is a copy of row 0 of `past` (batch 1): `times` rows, for scoring or decoding
   * several continuations of one prompt without recomputing it.
   */
  repeatCache(past: KVCache, times: number): KVCache {
    const out: KVCache = new Map();
    for (const [name, t] of past) {
      const data = t.data as Float32Array;
      const tiled = new Float32Array(data.length * times);
      for (let i = 0; i < times; i++) tiled.set(data, i * data.length);
      out.set(name, new this.ort.Tensor('float32', tiled, [times, ...t.dims.slice(1)]));
    }
    return out;
  }

  /** Releases the ONNX session. */
  async dispose(): Promise<void> {
    await this.session.release();
  }
}
