/**
 * A decoder-only causal language model exported by Hugging Face Optimum, run with onnxruntime-node.
 *
 * Layouts (see layout.ts): `onnx/model.onnx`, `onnx/decoder_model_merged.onnx` (its
 * `use_cache_branch` fed false on the first step and true afterwards, with empty `[batch, heads, 0, headDim]`
 * past tensors on the first step, as transformers.js and Optimum feed it), or `onnx/decoder_model.onnx` +
 * `onnx/decoder_with_past_model.onnx`. Inputs `input_ids`, `attention_mask`, optional `position_ids`,
 * `past_key_values.{i}.key|value`; outputs `logits`, `present.{i}.key|value`.
 *
 * Batches of prompts are left-padded; `attention_mask` masks the padding and `position_ids` are
 * cumsum(mask) − 1 with padding positions set to 1, as Hugging Face transformers prepares them for GPT-2
 * (`GPT2LMHeadModel.prepare_inputs_for_generation`, v4.x). Models without a `position_ids` input derive
 * positions themselves and are fed the mask only.
 */
import type * as ort from 'onnxruntime-common';
import { relative } from 'node:path';
import { CacheBufferPool, GatherPool, isIdentity, lastPositionLogits, repeatRows, StaticKVCache } from './kvCache';
import { LOGITS_TO_KEEP, openCacheAppends, prefixInputName, type CacheAppendSource } from './onnxPatch';
import type { DecodingSession, GenerativeLM, RunTimer, SpecialTokens, StartedDecoding } from './languageModel';
import { describedModelId, type DescribedModel } from './describe';
import { ModelSourceError } from './errors';
import { readCausalLMConfig, readSpecialTokens, type CausalLMConfig } from './modelConfig';
import { DEFAULT_PREFIX_CACHE_BYTES, Int64Scratch, OnnxGraph, ortRuntime, requireFloat32, type OrtModule, type SessionOptions } from './onnxGraph';
import { PrefixCache, type PrefixMatch } from './prefixCache';
import { loadTokenizer, type ModelTokenizer } from './tokenizer';

export type { CausalLMConfig } from './modelConfig';
export { readCausalLMConfig } from './modelConfig';
export type { RunTimer } from './languageModel';

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

/** A loaded ONNX causal LM with its tokenizer. */
export class OnnxCausalLM implements GenerativeLM {
  readonly architecture = 'decoder-only' as const;

  private constructor(
    readonly ref: string,
    readonly folder: string,
    readonly config: CausalLMConfig,
    readonly tokenizer: ModelTokenizer,
    readonly specialTokens: SpecialTokens,
    private readonly rt: OrtModule,
    /** Graph of the first step (no past). */
    private readonly first: OnnxGraph,
    /** Graph of later steps (the same graph unless the layout is split). */
    private readonly next: OnnxGraph,
    private readonly pastNames: string[],
    /**
     * How each step reads the cache back: `static` when the later-steps graph exposes the positions a step adds
     * (`exposeCacheAppends`) and takes `position_ids` — steps then keep the cache in a {@link StaticKVCache} and
     * fetch only `logits` and those outputs; otherwise `present` (every step returns the whole cache) with the
     * reason. `loadedFrom`: how onnxruntime got the edited graph — `links` (a small file beside hard links to the
     * weights, `stageModel`) or `memory` (the whole model read and edited in memory: slower to load).
     * `sharedPrefix`: whether the graph also takes one prompt's cache shared by all rows (`prefix_key_values.*`,
     * `sharedPrefixOf` in onnxPatch.ts) — then the rows of one prompt hold only the positions decoded after it —
     * or why not.
     */
    readonly cacheMode:
      | { kind: 'static'; appended: ReadonlyMap<string, string>; fetches: readonly string[]; loadedFrom: 'links' | 'memory'; sharedPrefix: true | { skipped: string } }
      | { kind: 'present'; reason: string },
    /** Where the model came from: folder, ONNX files, dtype, hub commit (see `describedModelFiles`). */
    readonly description?: DescribedModel,
    prefixCacheBytes = DEFAULT_PREFIX_CACHE_BYTES,
  ) {
    if (cacheMode.kind === 'static' && cacheMode.sharedPrefix === true && prefixCacheBytes > 0) {
      this.prefixCache = new PrefixCache(rt.Tensor, pastNames, config.numKeyValueHeads, config.headDim, prefixCacheBytes);
    }
  }

  /**
   * Computed prompt caches kept for later prompts that begin the same way (see {@link PrefixCache}): single prompts
   * (a judge's prompts, a generation run's contexts, perplexity's contexts) compute only the tokens after the longest
   * cached beginning. Present when the cache is kept in place with a shared prefix and `prefixCacheBytes` is not 0.
   */
  readonly prefixCache?: PrefixCache;

  /**
   * The last single prompt's pass (its ids, last-position logits and cache): a grid decodes one context under
   * several settings in turn, and every setting starts from this same pass, so it runs once per context. Only
   * one-prompt calls are kept (a batch's cache can be large); the values are exactly what the pass computes.
   * `tiled` is the cache as last tiled to `expand` rows, which the next setting of that width starts from instead
   * of copying it again.
   */
  private lastPrompt: { key: string; logits: Float32Array; vocab: number; past: KVCache; tiled?: { expand: number; past: KVCache } } | undefined;

  /** An empty shared prefix (batch 1, no positions), fed where the graph takes one and no prompt is shared. */
  private emptyPrefix: KVCache | undefined;

  /** Cache buffers of finished static-cache sessions, reused by the next ones (see {@link CacheBufferPool}). */
  private readonly cacheBuffers = new CacheBufferPool();

  get vocabSize(): number {
    return this.config.vocabSize;
  }

  get maxPositions(): number {
    return this.config.maxPositions;
  }

  /** Whether the graphs take `position_ids`. */
  get usesPositionIds(): boolean {
    return this.next.inputs.has('position_ids') && this.first.inputs.has('position_ids');
  }

  /** See {@link GenerativeLM.cacheBytesPerRow}: layers × (key + value) × kvHeads × headDim × 4 bytes per position. */
  cacheBytesPerRow(promptLength: number, maxNewTokens: number): number {
    const { numLayers, numKeyValueHeads, headDim } = this.config;
    return numLayers * 2 * numKeyValueHeads * headDim * 4 * Math.min(this.maxPositions, promptLength + maxNewTokens);
  }

  /** Prompts of different lengths share a batch only when positions can be fed (see {@link GenerativeLM.paddingSafe}). */
  get paddingSafe(): boolean {
    return this.usesPositionIds;
  }

  /**
   * Opens a described decoder-only model (see `describeModel`, registry.ts): its `config.json` as parsed there.
   *
   * @param options.id - name recorded in candidate origins instead of the described id (e.g. for a bundled model
   *   loaded by absolute path, whose path means nothing on another machine)
   * @throws ModelSourceError when the model is encoder-decoder, its ONNX inputs and outputs do not match the
   *   expected names (one error naming the folder, the file and every mismatch), or its tensors are not float32
   */
  static async fromDescription(d: DescribedModel, options: { id?: string } & SessionOptions = {}): Promise<OnnxCausalLM> {
    const { folder, layout } = d;
    if (layout.architecture !== 'decoder-only') {
      throw new ModelSourceError(`model folder ${folder} holds an encoder-decoder model (config.json is_encoder_decoder); load it with OnnxSeq2SeqLM or loadGenerativeModel`);
    }
    const raw = d.config;
    const config = readCausalLMConfig(raw, folder);
    const tokenizer = await loadTokenizer(folder, raw as { eos_token_id?: number | number[]; pad_token_id?: number });
    const special = readSpecialTokens(raw, d.generationConfig, 'decoder-only', { eos: tokenizer.eosTokenIds[0], pad: tokenizer.padTokenId });
    const pastNames: string[] = [];
    const presentNames: string[] = [];
    for (let i = 0; i < config.numLayers; i++) {
      for (const kv of ['key', 'value']) {
        pastNames.push(`past_key_values.${i}.${kv}`);
        presentNames.push(`present.${i}.${kv}`);
      }
    }
    const rt = await ortRuntime();
    const base = ['input_ids', 'attention_mask'];
    // The shared-prefix inputs are ones the staged graph adds (see sharedPrefixOf).
    const withPast = { requiredInputs: [...base, ...pastNames], optionalInputs: ['position_ids', LOGITS_TO_KEEP, ...pastNames.map(prefixInputName)], requiredOutputs: ['logits', ...presentNames] };
    // The later-steps graph with the positions each step adds as outputs, when its cache follows Optimum's Concat
    // pattern (a merged decoder's presents come out of an If: loaded as it is).
    const nextFile = layout.kind === 'split' ? layout.decoderWithPast : layout.decoder;
    let patched: CacheAppendSource | undefined;
    let reason = 'staticCache is off';
    const windowed = staticCacheWindow(raw);
    if (options.staticCache !== false) {
      if (!STATIC_CACHE_MODEL_TYPES.has(config.modelType)) reason = `model_type ${config.modelType} is not one whose attention is known to ignore masked cache slots exactly (${[...STATIC_CACHE_MODEL_TYPES].join(', ')})`;
      else if (windowed) reason = windowed;
      else if (layout.kind === 'merged') reason = `${relative(folder, layout.decoder)} is a merged decoder (its presents come out of an If)`;
      else {
        try {
          const r = await openCacheAppends(nextFile, pastNames, options.stageWeights === false ? [] : undefined, { sharedPrefix: options.sharedPrefix !== false, logitsToKeep: true });
          if ('skipped' in r) reason = r.skipped;
          else patched = r;
        } catch (e) {
          // Not a protobuf this reader understands: onnxruntime loads (or refuses) the file as it is.
          reason = (e as Error).message;
        }
      }
    }
    const contract = layout.kind === 'merged' ? { ...withPast, requiredInputs: [...withPast.requiredInputs, 'use_cache_branch'] } : withPast;
    const first = layout.kind === 'split' ? await OnnxGraph.open(rt, folder, layout.decoder, { requiredInputs: base, optionalInputs: ['position_ids'], requiredOutputs: ['logits', ...presentNames] }, options) : undefined;
    const openNext = (source?: string | Uint8Array) => OnnxGraph.open(rt, folder, nextFile, contract, options, source);
    let next: OnnxGraph;
    try {
      next = await openNext(patched?.source).catch(async (e: unknown) => {
        if (typeof patched?.source !== 'string') throw e;
        // onnxruntime refused the staged file (another version's rules for external data): the same graph, edited in memory.
        await patched.dispose();
        const r = await openCacheAppends(nextFile, pastNames, [], { sharedPrefix: options.sharedPrefix !== false, logitsToKeep: true });
        patched = 'skipped' in r ? undefined : r;
        return openNext(patched?.source);
      });
    } finally {
      // onnxruntime has read the weights once the session exists.
      await patched?.dispose();
    }
    await requireFloat32(folder, [first ?? next, next], ['logits', ...pastNames, ...presentNames]);
    // The cache shapes come from the graph when it declares them; config.json otherwise.
    const heads = next.inputDim(pastNames[0], 1);
    const headDim = next.inputDim(pastNames[0], 3);
    if ((heads !== undefined && heads !== config.numKeyValueHeads) || (headDim !== undefined && headDim !== config.headDim)) {
      throw new ModelSourceError(`model folder ${folder}: ${next.name} has past_key_values of ${heads} heads × ${headDim}, config.json says ${config.numKeyValueHeads} × ${config.headDim}`);
    }
    if (patched && !next.inputs.has('position_ids')) {
      patched = undefined;
      reason = `${next.name} has no position_ids input (a masked slot would shift the positions the graph derives)`;
    }
    const cacheMode = patched
      ? {
          kind: 'static' as const,
          appended: patched.appended,
          fetches: ['logits', ...new Set(patched.appended.values())],
          loadedFrom: typeof patched.source === 'string' ? ('links' as const) : ('memory' as const),
          sharedPrefix: patched.sharedPrefix ?? { skipped: 'sharedPrefix is off' },
        }
      : { kind: 'present' as const, reason };
    return new OnnxCausalLM(describedModelId({ ref: options.id ?? d.ref, dtype: d.dtype }), folder, config, tokenizer, special, rt, first ?? next, next, pastNames, cacheMode, d, options.prefixCacheBytes);
  }

  /** An empty cache for `batch` rows (past length 0). */
  emptyCache(batch: number): KVCache {
    const { numKeyValueHeads: h, headDim: d } = this.config;
    return new Map(this.pastNames.map((n) => [n, new this.rt.Tensor('float32', new Float32Array(0), [batch, h, 0, d])]));
  }

  /**
   * One forward pass (low level; decoding goes through {@link startDecoding}).
   *
   * @param inputIds - [batch, seq] token ids, row-major
   * @param attentionMask - [batch, past + seq] of 0/1, row-major
   * @param positionIds - [batch, seq] positions, row-major (ignored by models without `position_ids`)
   * @param past - cache from the previous step, or `emptyCache(batch)`
   */
  async forward(inputIds: BigInt64Array, attentionMask: BigInt64Array, positionIds: BigInt64Array, batch: number, seq: number, past: KVCache, timer?: RunTimer): Promise<ForwardOutput> {
    const pastLen = attentionMask.length / batch - seq;
    const out = await this.run(inputIds, attentionMask, positionIds, batch, seq, pastLen, past, timer);
    return { logits: out.logits.data as Float32Array, batch, seq, vocab: out.logits.dims[2], present: this.presents(out) };
  }

  /** Runs the right graph for a step with `pastLen` cached positions. */
  private async run(
    inputIds: BigInt64Array,
    attentionMask: BigInt64Array,
    positionIds: BigInt64Array,
    batch: number,
    seq: number,
    pastLen: number,
    past: KVCache,
    timer?: RunTimer,
    /** Logits of the last `keep` positions only, where the graph takes `logits_to_keep` (default: every position). */
    keep = seq,
  ): Promise<ort.InferenceSession.ReturnType> {
    const T = this.rt.Tensor;
    const graph = pastLen === 0 ? this.first : this.next;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new T('int64', inputIds, [batch, seq]),
      attention_mask: new T('int64', attentionMask, [batch, pastLen + seq]),
    };
    if (graph.inputs.has('position_ids')) feeds.position_ids = new T('int64', positionIds, [batch, seq]);
    if (graph.inputs.has('use_cache_branch')) feeds.use_cache_branch = new T('bool', new Uint8Array([pastLen > 0 ? 1 : 0]), [1]);
    this.feedKeep(graph, feeds, keep);
    if (graph.inputs.has(this.pastNames[0])) {
      const cache = past.size > 0 ? past : this.emptyCache(batch);
      for (const [name, tensor] of cache) feeds[name] = tensor;
    }
    this.feedPrefix(graph, feeds);
    return graph.run(feeds, timer);
  }

  /** Feeds `logits_to_keep` (the last `keep` positions get logits) where the graph takes it. */
  private feedKeep(graph: OnnxGraph, feeds: Record<string, ort.Tensor>, keep: number): void {
    if (graph.inputs.has(LOGITS_TO_KEEP)) feeds[LOGITS_TO_KEEP] = new this.rt.Tensor('int64', BigInt64Array.of(BigInt(keep)), [1]);
  }

  /** Feeds a graph with shared-prefix inputs `prefix` (one prompt's cache, batch 1), or an empty prefix. */
  private feedPrefix(graph: OnnxGraph, feeds: Record<string, ort.Tensor>, prefix?: KVCache): void {
    if (!graph.inputs.has(prefixInputName(this.pastNames[0]))) return;
    const cache = prefix ?? (this.emptyPrefix ??= this.emptyCache(1));
    for (const [name, tensor] of cache) feeds[prefixInputName(name)] = tensor;
  }

  private presents(out: ort.InferenceSession.ReturnType): KVCache {
    const present: KVCache = new Map();
    for (const name of this.pastNames) present.set(name, out[name.replace('past_key_values.', 'present.')]);
    return present;
  }

  /**
   * A cache whose every row is a copy of row 0 of `past` (batch 1): `times` rows, for scoring or decoding
   * several continuations of one prompt without recomputing it.
   */
  repeatCache(past: KVCache, times: number): KVCache {
    const out: KVCache = new Map();
    for (const [name, t] of past) out.set(name, repeatRows(this.rt.Tensor, t, times));
    return out;
  }

  /**
   * Encodes the prompts in one left-padded batch and returns a session of `prompts.length × expand` rows.
   *
   * @throws RangeError on an empty prompt, one longer than `maxPositions − 1`, or prompts of different lengths
   *   for a model without `position_ids` (see {@link paddingSafe})
   */
  async startDecoding(prompts: number[][], options: { expand?: number; timer?: RunTimer; reusePromptPass?: boolean; maxNewTokens?: number; prefixCache?: boolean } = {}): Promise<StartedDecoding> {
    const expand = options.expand ?? 1;
    if (!Number.isInteger(expand) || expand < 1) throw new RangeError(`expand must be an integer ≥ 1, got ${expand}`);
    prompts.forEach((p, i) => {
      if (p.length === 0) throw new RangeError(`prompt ${i} is empty`);
      if (p.length >= this.maxPositions) throw new RangeError(`prompt ${i} has ${p.length} tokens; the model allows ${this.maxPositions} positions in all`);
    });
    const n = prompts.length;
    const longest = Math.max(...prompts.map((p) => p.length));
    if (!this.paddingSafe && prompts.some((p) => p.length !== longest)) {
      throw new RangeError(`model ${this.ref} has no position_ids input, so left padding would shift positions: batch only prompts of equal length`);
    }
    const pad = this.specialTokens.padTokenId;
    const ids = new BigInt64Array(n * longest);
    const pos = new BigInt64Array(n * longest);
    const mask = new BigInt64Array(n * longest);
    const padLen = new Int32Array(n);
    prompts.forEach((p, b) => {
      const padding = longest - p.length;
      padLen[b] = padding;
      for (let t = 0; t < longest; t++) {
        const real = t >= padding;
        ids[b * longest + t] = BigInt(real ? p[t - padding] : pad);
        pos[b * longest + t] = BigInt(real ? t - padding : 1);
        mask[b * longest + t] = real ? 1n : 0n;
      }
    });
    if (n === 1 && this.prefixCache && options.prefixCache === true && options.reusePromptPass !== false) {
      // The prompt's cache from the prefix cache: only the tokens after its longest cached beginning are computed, and
      // every row attends to the whole prompt's cache, fed once per step.
      const pass = await this.cachedPromptPass(prompts[0], options.timer);
      const vocab = pass.logits.length;
      const room = Math.max(0, Math.min(this.maxPositions - 1 - longest, options.maxNewTokens ?? STATIC_GROWTH));
      const cache = StaticKVCache.from(this.rt.Tensor, this.emptyCache(1), expand, room, this.cacheBuffers);
      const prefix = { past: this.prefixCache.materialize(pass.match), length: longest };
      const history = Array.from({ length: expand }, () => [...prompts[0]]);
      const logits = lastPositionLogits(pass.logits, 1, 1, vocab, expand);
      return { session: new StaticCausalDecodingSession(this, vocab, cache, new Int32Array(expand), this.cacheMode as StaticMode, options.timer, prefix), logits, history };
    }
    // A prompt decoded just before (another setting of the same context) starts from the pass already made.
    const key = n === 1 && options.reusePromptPass !== false ? prompts[0].join(',') : undefined;
    let pass = key !== undefined && this.lastPrompt?.key === key ? this.lastPrompt : undefined;
    if (!pass) {
      // Only the last position's logits are read (left padding puts every prompt's last token there).
      const out = await this.run(ids, mask, pos, n, longest, 0, new Map(), options.timer, 1);
      const vocab = out.logits.dims[2];
      pass = { key: key ?? '', logits: lastPositionLogits(out.logits.data as Float32Array, n, out.logits.dims[1], vocab), vocab, past: this.presents(out) };
      this.lastPrompt = key !== undefined ? pass : undefined;
    }
    const vocab = pass.vocab;
    // A fresh copy per call: the decoding loops process the logits in place.
    const logits = lastPositionLogits(pass.logits, n, 1, vocab, expand);
    const rowPad = new Int32Array(n * expand);
    for (let r = 0; r < n * expand; r++) rowPad[r] = padLen[Math.floor(r / expand)];
    const history: number[][] = [];
    for (let r = 0; r < n * expand; r++) history.push([...prompts[Math.floor(r / expand)]]);
    if (this.cacheMode.kind === 'static' && this.cacheMode.sharedPrefix === true && n === 1) {
      // One prompt: its cache is fed once per step, shared by every row (beams, samples, a grid's 20 rows), and
      // the rows hold only the positions decoded after it — no copy of the prompt per row.
      const room = Math.max(0, Math.min(this.maxPositions - 1 - longest, options.maxNewTokens ?? STATIC_GROWTH));
      const cache = StaticKVCache.from(this.rt.Tensor, this.emptyCache(1), expand, room, this.cacheBuffers);
      const prefix = { past: pass.past, length: longest };
      return { session: new StaticCausalDecodingSession(this, vocab, cache, rowPad, this.cacheMode, options.timer, prefix), logits, history };
    }
    if (this.cacheMode.kind === 'static') {
      // Room for the tokens the caller expects (a step past it grows the cache), within the positions the model
      // has: a step feeds capacity + 1 positions.
      const capacity = Math.max(longest, Math.min(this.maxPositions - 1, longest + (options.maxNewTokens ?? STATIC_GROWTH)));
      const cache = StaticKVCache.from(this.rt.Tensor, pass.past, expand, capacity, this.cacheBuffers);
      return { session: new StaticCausalDecodingSession(this, vocab, cache, rowPad, this.cacheMode, options.timer), logits, history };
    }
    // The session never writes into the tensors it starts from (each step returns new ones; selecting rows
    // gathers into its own buffers), so the kept cache can start the next setting as it is.
    let past = pass.past;
    if (expand > 1) {
      // Beam search and each nucleus setting of a grid decode the same prompt with the same width (5 in GEM 2022):
      // a tiled cache is never written into either, so one copy serves them all (at gpt2-medium's shape and 384
      // prompt tokens, 5 rows are 377 MB).
      if (key !== undefined && pass.tiled?.expand === expand) past = pass.tiled.past;
      else {
        past = this.repeatCache(past, expand);
        if (key !== undefined) pass.tiled = { expand, past };
      }
    }
    const session = new CausalDecodingSession(this, vocab, past, longest, rowPad, options.timer);
    return { session, logits, history };
  }

  /**
   * The next-token logits after `promptIds` (a copy: the caller may modify it), computed on top of the longest
   * cached beginning of the prompt and kept in the prefix cache; for models without one, one pass over the prompt.
   * A local judge whose answers are single tokens needs nothing else.
   *
   * @throws RangeError on an empty prompt or one longer than the model allows
   */
  async promptLogits(promptIds: number[], timer?: RunTimer): Promise<Float32Array> {
    if (promptIds.length === 0) throw new RangeError('the prompt is empty');
    if (promptIds.length >= this.maxPositions) throw new RangeError(`the prompt has ${promptIds.length} tokens; the model allows ${this.maxPositions} positions in all`);
    if (this.prefixCache) return (await this.cachedPromptPass(promptIds, timer)).logits.slice();
    const { session, logits } = await this.startDecoding([promptIds], { timer, reusePromptPass: false });
    session.release?.();
    return logits;
  }

  /**
   * One prompt's pass through the prefix cache: the longest cached beginning is fed as the shared prefix, the rest
   * of the prompt is computed in one pass (one row), and its keys, values and last logits are added to the cache.
   */
  private async cachedPromptPass(ids: number[], timer?: RunTimer): Promise<{ logits: Float32Array; match: PrefixMatch }> {
    const store = this.prefixCache as PrefixCache;
    let m = store.match(ids);
    if (m.length === ids.length && m.logits) return { logits: m.logits, match: m };
    // The whole prompt is cached but not its last logits: the last token is computed again.
    if (m.length === ids.length) m = store.match(ids, ids.length - 1);
    const rest = ids.slice(m.length);
    const T = this.rt.Tensor;
    const mode = this.cacheMode as StaticMode;
    const pos = new BigInt64Array(rest.length);
    for (let t = 0; t < rest.length; t++) pos[t] = BigInt(m.length + t);
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new T('int64', BigInt64Array.from(rest, BigInt), [1, rest.length]),
      attention_mask: new T('int64', new BigInt64Array(m.length + rest.length).fill(1n), [1, m.length + rest.length]),
      position_ids: new T('int64', pos, [1, rest.length]),
    };
    this.feedKeep(this.next, feeds, 1);
    // The cached beginning as a prefix kept between prompts (the task and the dialogue) and the row's own past after
    // it (this prompt's candidate): only the latter is copied per prompt.
    const split = store.materializeSplit(m);
    for (const [name, tensor] of this.emptyCache(1)) feeds[name] = split.own?.get(name) ?? tensor;
    this.feedPrefix(this.next, feeds, split.prefix);
    const out = await this.next.run(feeds, timer, mode.fetches);
    const vocab = out.logits.dims[2];
    const logits = lastPositionLogits(out.logits.data as Float32Array, 1, out.logits.dims[1], vocab);
    const kv = new Map(this.pastNames.map((name) => [name, out[mode.appended.get(name) as string]]));
    return { logits, match: store.insert(m, rest, kv, logits) };
  }

  /** @internal one step of a {@link CausalDecodingSession}. */
  async runSession(ids: BigInt64Array, mask: BigInt64Array, pos: BigInt64Array, rows: number, width: number, pastLen: number, past: KVCache, timer?: RunTimer) {
    const out = await this.run(ids, mask, pos, rows, width, pastLen, past, timer);
    return { logits: out.logits.data as Float32Array, present: this.presents(out) };
  }

  /**
   * @internal one step of a {@link StaticCausalDecodingSession}: the later-steps graph fed the whole cache
   * (`[rows, kvHeads, capacity, headDim]`) after the shared prefix when one is given (else an empty prefix, where
   * the graph takes one), returning only the logits and the positions it adds.
   */
  async runStatic(ids: BigInt64Array, mask: BigInt64Array, pos: BigInt64Array, rows: number, width: number, cache: StaticKVCache, fetches: readonly string[], timer?: RunTimer, prefix?: SharedPrefix) {
    const T = this.rt.Tensor;
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new T('int64', ids, [rows, width]),
      attention_mask: new T('int64', mask, [rows, (prefix?.length ?? 0) + cache.capacity + width]),
      position_ids: new T('int64', pos, [rows, width]),
    };
    this.feedKeep(this.next, feeds, width);
    for (const [name, tensor] of cache.tensors()) feeds[name] = tensor;
    this.feedPrefix(this.next, feeds, prefix?.past);
    return this.next.run(feeds, timer, fetches);
  }

  /** @internal a pool of gather buffers for one session */
  gatherPool(): GatherPool {
    return new GatherPool(this.rt.Tensor);
  }

  /** Releases the ONNX sessions. */
  async dispose(): Promise<void> {
    // The kept prompt pass and its tiled cache (hundreds of MB at real size) go with the sessions.
    this.lastPrompt = undefined;
    this.prefixCache?.clear();
    this.cacheBuffers.clear();
    await this.first.release();
    if (this.next !== this.first) await this.next.release();
  }
}

/**
 * What both ways of decoding a decoder-only model share: a row per left padding, `step` as a one-wide `extend`, and
 * a step's token ids and positions.
 */
abstract class CausalRows implements DecodingSession {
  private readonly ids = new Int64Scratch();
  private readonly positions = new Int64Scratch();
  protected readonly masks = new Int64Scratch();

  constructor(
    protected readonly model: OnnxCausalLM,
    readonly vocab: number,
    /** Left padding of each row. */
    protected padLen: Int32Array,
    protected readonly timer?: RunTimer,
  ) {}

  get rows(): number {
    return this.padLen.length;
  }

  step(tokens: ArrayLike<number>): Promise<Float32Array> {
    return this.extend(tokens, 1);
  }

  abstract extend(tokens: ArrayLike<number>, width: number): Promise<Float32Array>;
  abstract select(indices: ArrayLike<number>): void;

  /**
   * The ids and positions (`past` − padding + t) of `width` tokens per row after `past` cached positions.
   *
   * @throws RangeError when `tokens` is not rows × width long, or the rows would exceed the model's positions
   */
  protected tokenInputs(tokens: ArrayLike<number>, width: number, past: number): { ids: BigInt64Array; pos: BigInt64Array } {
    const rows = this.rows;
    if (tokens.length !== rows * width) throw new RangeError(`expected ${rows}×${width} tokens, got ${tokens.length}`);
    if (past + width - Math.min(...this.padLen) > this.model.maxPositions) throw new RangeError(`sequence of ${past + width} positions exceeds the model's ${this.model.maxPositions}`);
    const ids = this.ids.view(rows * width);
    const pos = this.positions.view(rows * width);
    for (let r = 0; r < rows; r++) {
      for (let t = 0; t < width; t++) {
        ids[r * width + t] = BigInt(tokens[r * width + t]);
        pos[r * width + t] = BigInt(past - this.padLen[r] + t);
      }
    }
    return { ids, pos };
  }
}

/** The rows of a decoder-only model being decoded: left padding per row, the cache, and the past length. */
class CausalDecodingSession extends CausalRows {
  private readonly pool: GatherPool;

  constructor(
    model: OnnxCausalLM,
    vocab: number,
    private past: KVCache,
    /** Positions in the cache (padding included); the same for every row. */
    private pastLen: number,
    padLen: Int32Array,
    timer?: RunTimer,
  ) {
    super(model, vocab, padLen, timer);
    this.pool = model.gatherPool();
  }

  async extend(tokens: ArrayLike<number>, width: number): Promise<Float32Array> {
    const { ids, pos } = this.tokenInputs(tokens, width, this.pastLen);
    const rows = this.rows;
    const total = this.pastLen + width;
    const mask = this.masks.view(rows * total);
    for (let r = 0; r < rows; r++) {
      const p = this.padLen[r];
      mask.fill(0n, r * total, r * total + p);
      mask.fill(1n, r * total + p, (r + 1) * total);
    }
    const { logits, present } = await this.model.runSession(ids, mask, pos, rows, width, this.pastLen, this.past, this.timer);
    this.past = present;
    this.pastLen = total;
    return logits;
  }

  select(indices: ArrayLike<number>): void {
    if (isIdentity(indices, this.rows)) return;
    const past: KVCache = new Map();
    for (const [name, t] of this.past) past.set(name, this.pool.gather(name, t, indices));
    this.past = past;
    this.padLen = Int32Array.from(indices, (i) => this.padLen[i]);
  }
}

/** One prompt's cache (batch 1, `length` positions) that every row of a session attends to before its own cache. */
interface SharedPrefix {
  past: KVCache;
  length: number;
}

/** The cache mode of a model whose cache is kept in place. */
type StaticMode = { appended: ReadonlyMap<string, string>; fetches: readonly string[] };

/** Positions a static cache grows by when the caller gave no `maxNewTokens` or decodes past it. */
const STATIC_GROWTH = 32;

/**
 * The rows of a decoder-only model being decoded with the cache kept in place ({@link StaticKVCache}): each step
 * feeds every slot of the cache, masks the slots not yet written (and each row's left padding), gives the positions
 * explicitly, and writes back only the positions the step adds.
 */
class StaticCausalDecodingSession extends CausalRows {
  constructor(
    model: OnnxCausalLM,
    vocab: number,
    private readonly cache: StaticKVCache,
    padLen: Int32Array,
    private readonly mode: { appended: ReadonlyMap<string, string>; fetches: readonly string[] },
    timer?: RunTimer,
    /** The prompt's cache, shared by every row and fed before each row's own positions (see `sharedPrefixOf`). */
    private readonly prefix?: SharedPrefix,
  ) {
    super(model, vocab, padLen, timer);
  }

  async extend(tokens: ArrayLike<number>, width: number): Promise<Float32Array> {
    const shared = this.prefix?.length ?? 0;
    const past = this.cache.length;
    const { ids, pos } = this.tokenInputs(tokens, width, shared + past);
    const rows = this.rows;
    this.cache.reserve(width, Math.min(this.model.maxPositions - width - shared, past + width + STATIC_GROWTH));
    // Keys per row: the shared prefix's, the row's own slots (written up to `past`), the new positions.
    const held = shared + past;
    const slots = shared + this.cache.capacity;
    const keys = slots + width;
    const mask = this.masks.view(rows * keys);
    for (let r = 0; r < rows; r++) {
      const p = this.padLen[r];
      mask.fill(0n, r * keys, r * keys + p);
      mask.fill(1n, r * keys + p, r * keys + held);
      mask.fill(0n, r * keys + held, r * keys + slots);
      mask.fill(1n, r * keys + slots, (r + 1) * keys);
    }
    const out = await this.model.runStatic(ids, mask, pos, rows, width, this.cache, this.mode.fetches, this.timer, this.prefix);
    this.cache.append(out, this.mode.appended, width);
    return out.logits.data as Float32Array;
  }

  select(indices: ArrayLike<number>): void {
    if (isIdentity(indices, this.rows)) return;
    this.cache.select(indices);
    this.padLen = Int32Array.from(indices, (i) => this.padLen[i]);
  }

  release(): void {
    this.cache.release();
    this.padLen = new Int32Array(0);
  }
}

/**
 * Model types whose attention over the cache depends on the positions fed (`position_ids`) and the mask only, not on
 * a key's index in the cache: a masked slot then changes nothing but the order of sums (Hugging Face transformers
 * 4.x: GPT-2's learned positions, GPT-J / GPT-NeoX / Llama / Mistral / Qwen2 / Qwen3 / Phi / Gemma / StableLM / CodeGen's
 * rotary embeddings; Qwen3's q/k norm acts per position). Not, for example, GPT-Neo, whose local layers attend to the last 256 cache indices.
 */
const STATIC_CACHE_MODEL_TYPES = new Set(['gpt2', 'gptj', 'gpt_neox', 'llama', 'mistral', 'qwen2', 'qwen3', 'phi', 'phi3', 'gemma', 'stablelm', 'codegen']);

/** Why a config's attention window (sliding or local, counted in cache indices) rules out masked cache slots, if it does. */
function staticCacheWindow(raw: Record<string, unknown>): string | undefined {
  if (raw.sliding_window !== undefined && raw.sliding_window !== null && raw.use_sliding_window !== false) return `config.json has sliding_window ${String(raw.sliding_window)} (a window counted in cache slots)`;
  const types = [raw.attention_types, raw.attention_layers, raw.layer_types].flat(3);
  if (types.some((t) => typeof t === 'string' && /local|sliding/.test(t))) return 'config.json lists local or sliding attention layers (a window counted in cache slots)';
  return undefined;
}
