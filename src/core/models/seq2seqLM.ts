/**
 * An encoder-decoder model (BART-style) exported by Hugging Face Optimum, run with onnxruntime-node.
 *
 * Layouts (see layout.ts): `onnx/encoder_model.onnx` (inputs `input_ids`, `attention_mask`;
 * output `last_hidden_state`) plus either `onnx/decoder_model_merged.onnx` or `onnx/decoder_model.onnx` +
 * `onnx/decoder_with_past_model.onnx`. Decoder inputs: `input_ids`, `encoder_attention_mask`,
 * `encoder_hidden_states` (the with-past graph may omit it), `use_cache_branch` (merged only) and
 * `past_key_values.{i}.decoder|encoder.key|value`; outputs `logits` and `present.{i}.decoder|encoder.key|value`
 * (the with-past graph: decoder presents only).
 *
 * Feeding follows transformers.js (`models.js`: `addPastKeyValues`, `getPastKeyValues`) and Optimum's
 * `ORTModelForSeq2SeqLM`: the first decoder step gets empty `[batch, heads, 0, headDim]` past tensors and
 * `use_cache_branch = false`; later steps `use_cache_branch = true`, the decoder self-attention cache from
 * the previous step's `present.*.decoder.*`, and the cross-attention cache (`present.*.encoder.*`) of the
 * first step, kept as is (the merged graph's later encoder outputs are constants and are ignored).
 *
 * Encoder inputs of a batch are right-padded with the pad id and masked (BART's learned positions start at
 * 0 on the left, as the Python tokenizer pads).
 */
import { closeSync, openSync } from 'node:fs';
import type * as ort from 'onnxruntime-common';
import { CacheBufferPool, GatherPool, gatherRows, giveBack, isIdentity, lastPositionLogits, repeatRows, repeatRowsPooled } from './kvCache';
import type { DecodingSession, GenerativeLM, RunTimer, SpecialTokens, StartedDecoding } from './languageModel';
import { describedModelId, type DescribedModel } from './describe';
import { ModelSourceError } from './errors';
import { readSeq2SeqConfig, readSpecialTokens, type Seq2SeqConfig } from './modelConfig';
import { Int64Scratch, OnnxGraph, ortRuntime, requireFloat32, type OrtModule, type SessionOptions } from './onnxGraph';
import { fileSource, rowSharing, type RowSharing } from './onnxPatch';
import { loadTokenizer, type ModelTokenizer } from './tokenizer';

type Cache = Map<string, ort.Tensor>;

/** A loaded ONNX encoder-decoder model with its tokenizer. */
export class OnnxSeq2SeqLM implements GenerativeLM {
  readonly architecture = 'encoder-decoder' as const;
  /** The encoder input is right-padded and masked: prompts of any lengths share a batch. */
  readonly paddingSafe = true;

  /**
   * See {@link GenerativeLM.cacheBytesPerRow}: the decoder's self-attention cache (start token + new tokens) and
   * cross-attention cache (prompt positions), layers × (key + value) × heads × headDim × 4 bytes per position, and
   * the encoder states tiled for the row (prompt × encoder width, taken as encoderHeads × headDim).
   */
  cacheBytesPerRow(promptLength: number, maxNewTokens: number): number {
    const { decoderLayers, decoderHeads, encoderHeads, headDim } = this.config;
    return decoderLayers * 2 * decoderHeads * headDim * 4 * (1 + maxNewTokens + promptLength) + promptLength * encoderHeads * headDim * 4;
  }

  private constructor(
    readonly ref: string,
    readonly folder: string,
    readonly config: Seq2SeqConfig,
    readonly tokenizer: ModelTokenizer,
    readonly specialTokens: SpecialTokens,
    private readonly rt: OrtModule,
    private readonly encoder: OnnxGraph,
    private readonly first: OnnxGraph,
    private readonly next: OnnxGraph,
    /** `past_key_values.{i}.decoder.key|value` */
    private readonly selfNames: string[],
    /** `past_key_values.{i}.encoder.key|value` */
    private readonly crossNames: string[],
    /**
     * Whether the rows decoded from one prompt (beams, samples, a grid's settings) are fed one copy of its
     * cross-attention cache, broadcast by the with-past graph's attention (`rowSharing`, onnxPatch.ts), instead of a
     * copy per row; when not, why. `hiddenUnread`: the with-past graph never reads `encoder_hidden_states`, so it
     * is fed one row as well.
     */
    readonly crossAttention: { shared: true; hiddenUnread: boolean } | { shared: false; reason: string },
    /** Where the model came from: folder, ONNX files, dtype, hub commit (see `describedModelFiles`). */
    readonly description?: DescribedModel,
  ) {}

  /**
   * The last single prompt's encoder pass and first decoder step: a grid decodes one context under several
   * settings in turn, and each starts from the same passes, so they run once per context (as in `OnnxCausalLM`).
   * `tiled` holds the caches and encoder states as last tiled to `expand` rows, which the next setting of that
   * width starts from instead of copying them again.
   */
  private lastPrompt: { key: string; hidden: ort.Tensor; mask: ort.Tensor; logits: Float32Array; vocab: number; selfPresent: Cache; crossPresent: Cache; tiled?: Tiled } | undefined;
  /**
   * Buffers of tiled cross-attention caches and encoder states, handed back once no session and no kept prompt
   * pass reads them, for the next tiling: at bart-large's shape 5 rows of a 384-token prompt are 197 MB, and
   * fresh pages made starting 5 rows cost 135–380 ms more than starting 1 (docs/scale.md).
   */
  private readonly tilePool = new CacheBufferPool();

  get vocabSize(): number {
    return this.config.vocabSize;
  }

  get maxPositions(): number {
    return this.config.maxPositions;
  }

  /**
   * Opens a described encoder-decoder model (see `describeModel`, registry.ts): its `config.json` as parsed there.
   *
   * @param options.id - name recorded in candidate origins instead of the described id
   * @throws ModelSourceError when the model is decoder-only, an ONNX graph's inputs and outputs do not match the
   *   expected names (one error naming the folder, the file and every mismatch), or its tensors are not float32
   */
  static async fromDescription(d: DescribedModel, options: { id?: string } & SessionOptions = {}): Promise<OnnxSeq2SeqLM> {
    const { folder, layout } = d;
    if (layout.architecture !== 'encoder-decoder') throw new ModelSourceError(`model folder ${folder} holds a decoder-only model; load it with OnnxCausalLM or loadGenerativeModel`);
    const raw = d.config;
    const config = readSeq2SeqConfig(raw, folder);
    const tokenizer = await loadTokenizer(folder, raw as { eos_token_id?: number | number[]; pad_token_id?: number });
    const special = readSpecialTokens(raw, d.generationConfig, 'encoder-decoder', { eos: tokenizer.eosTokenIds[0], pad: tokenizer.padTokenId });
    const selfNames: string[] = [];
    const crossNames: string[] = [];
    for (let i = 0; i < config.decoderLayers; i++) {
      for (const kv of ['key', 'value']) {
        selfNames.push(`past_key_values.${i}.decoder.${kv}`);
        crossNames.push(`past_key_values.${i}.encoder.${kv}`);
      }
    }
    const present = (names: string[]) => names.map((n) => n.replace('past_key_values.', 'present.'));
    const rt = await ortRuntime();
    const encoder = await OnnxGraph.open(rt, folder, layout.encoder, { requiredInputs: ['input_ids', 'attention_mask'], requiredOutputs: ['last_hidden_state'] }, options);
    const decoderIn = ['input_ids', 'encoder_attention_mask'];
    let first: OnnxGraph;
    let next: OnnxGraph;
    try {
      if (layout.kind === 'merged') {
        first = next = await OnnxGraph.open(
          rt,
          folder,
          layout.decoder,
          {
            requiredInputs: [...decoderIn, 'encoder_hidden_states', 'use_cache_branch', ...selfNames, ...crossNames],
            requiredOutputs: ['logits', ...present(selfNames), ...present(crossNames)],
          },
          options,
        );
      } else {
        first = await OnnxGraph.open(rt, folder, layout.decoder, { requiredInputs: [...decoderIn, 'encoder_hidden_states'], requiredOutputs: ['logits', ...present(selfNames), ...present(crossNames)] }, options);
        next = await OnnxGraph.open(
          rt,
          folder,
          layout.decoderWithPast,
          { requiredInputs: [...decoderIn, ...selfNames, ...crossNames], optionalInputs: ['encoder_hidden_states'], requiredOutputs: ['logits', ...present(selfNames)] },
          options,
        );
      }
    } catch (e) {
      await encoder.release();
      throw e;
    }
    await requireFloat32(folder, [encoder, first, next], ['last_hidden_state', 'logits', ...selfNames, ...crossNames, ...present(selfNames), ...present(crossNames)]);
    const crossAttention = options.sharedPrefix === false ? { shared: false as const, reason: 'sharedPrefix is off' } : crossAttentionSharing(next.file, crossNames);
    return new OnnxSeq2SeqLM(describedModelId({ ref: options.id ?? d.ref, dtype: d.dtype }), folder, config, tokenizer, special, rt, encoder, first, next, selfNames, crossNames, crossAttention, d);
  }

  private empty(names: string[], rows: number): Cache {
    const h = this.config.decoderHeads;
    const d = this.config.headDim;
    return new Map(names.map((n) => [n, new this.rt.Tensor('float32', new Float32Array(0), [rows, h, 0, d])]));
  }

  /**
   * Runs the encoder once on the (right-padded) prompts, then the first decoder step on
   * `[decoderStartTokenId]`, and tiles both caches `expand` times.
   *
   * @throws RangeError on an empty prompt or one longer than the model's positions
   */
  async startDecoding(prompts: number[][], options: { expand?: number; timer?: RunTimer; reusePromptPass?: boolean } = {}): Promise<StartedDecoding> {
    const expand = options.expand ?? 1;
    if (!Number.isInteger(expand) || expand < 1) throw new RangeError(`expand must be an integer ≥ 1, got ${expand}`);
    prompts.forEach((p, i) => {
      if (p.length === 0) throw new RangeError(`prompt ${i} is empty`);
      if (p.length > this.maxPositions) throw new RangeError(`prompt ${i} has ${p.length} tokens; the encoder allows ${this.maxPositions}`);
    });
    const start = this.specialTokens.decoderStartTokenId;
    if (start === null) throw new ModelSourceError(`model folder ${this.folder}: config.json has no decoder_start_token_id`);
    const T = this.rt.Tensor;
    const n = prompts.length;
    const S = Math.max(...prompts.map((p) => p.length));
    const ids = new BigInt64Array(n * S).fill(BigInt(this.specialTokens.padTokenId));
    const mask = new BigInt64Array(n * S);
    prompts.forEach((p, b) => {
      for (let t = 0; t < p.length; t++) {
        ids[b * S + t] = BigInt(p[t]);
        mask[b * S + t] = 1n;
      }
    });
    // A prompt decoded just before (another setting of the same context) starts from the passes already made.
    const key = n === 1 && options.reusePromptPass !== false ? prompts[0].join(',') : undefined;
    let pass = key !== undefined && this.lastPrompt?.key === key ? this.lastPrompt : undefined;
    if (!pass) {
      const maskTensor = new T('int64', mask, [n, S]);
      const enc = await this.encoder.run({ input_ids: new T('int64', ids, [n, S]), attention_mask: maskTensor }, options.timer);
      const hidden = enc.last_hidden_state;
      const feeds: Record<string, ort.Tensor> = {
        input_ids: new T('int64', new BigInt64Array(n).fill(BigInt(start)), [n, 1]),
        encoder_attention_mask: maskTensor,
        encoder_hidden_states: hidden,
      };
      if (this.first.inputs.has('use_cache_branch')) feeds.use_cache_branch = new T('bool', new Uint8Array([0]), [1]);
      if (this.first.inputs.has(this.selfNames[0])) {
        for (const [k, v] of this.empty(this.selfNames, n)) feeds[k] = v;
        for (const [k, v] of this.empty(this.crossNames, n)) feeds[k] = v;
      }
      const out = await this.first.run(feeds, options.timer);
      const vocab = out.logits.dims[2];
      const present = (names: string[]): Cache => new Map(names.map((name) => [name, out[name.replace('past_key_values.', 'present.')]]));
      pass = { key: key ?? '', hidden, mask: maskTensor, logits: lastPositionLogits(out.logits.data as Float32Array, n, 1, vocab), vocab, selfPresent: present(this.selfNames), crossPresent: present(this.crossNames) };
      const previous = this.lastPrompt?.tiled;
      this.lastPrompt = key !== undefined ? pass : undefined;
      if (previous) this.giveBackIfFree(previous);
    }
    const { vocab, hidden, mask: maskTensor } = pass;
    // A fresh copy per call: the decoding loops process the logits in place.
    const logits = lastPositionLogits(pass.logits, n, 1, vocab, expand);
    // Tiling copies (repeatRows); with expand 1 the session starts from the kept tensors, which it never writes into.
    // Nor does it write into tiled ones, so the next setting of the same input and width (beam search and the
    // nucleus settings of a grid: 5 rows, 189 MB of cross-attention cache at bart-large's shape) starts from them too.
    let tiled = key !== undefined && expand > 1 && pass.tiled?.expand === expand ? pass.tiled : undefined;
    // The rows of one prompt read one copy of its cross-attention cache where the graph broadcasts it.
    const share = n === 1 && this.crossAttention.shared ? this.crossAttention : undefined;
    if (!tiled && expand > 1) {
      // The cross-attention cache and the encoder states, the bulk, into pooled buffers (unless shared); the first
      // step's self-attention cache (one position) and the mask are small.
      const tile = (t: ort.Tensor) => repeatRows(T, t, expand);
      const pooled: ort.Tensor[] = [];
      const tilePooled = (t: ort.Tensor) => {
        const out = t.type === 'float32' ? repeatRowsPooled(T, t, expand, this.tilePool) : repeatRows(T, t, expand);
        if (t.type === 'float32') pooled.push(out);
        return out;
      };
      tiled = {
        expand,
        selfPast: new Map([...pass.selfPresent].map(([name, t]) => [name, tile(t)])),
        crossPast: share ? pass.crossPresent : new Map([...pass.crossPresent].map(([name, t]) => [name, tilePooled(t)])),
        hidden: share?.hiddenUnread ? hidden : tilePooled(hidden),
        mask: tile(maskTensor),
        pooled,
        users: 0,
      };
      if (key !== undefined) {
        const previous = pass.tiled;
        pass.tiled = tiled;
        if (previous) this.giveBackIfFree(previous);
      }
    }
    const rowContext = new Int32Array(n * expand);
    for (let r = 0; r < n * expand; r++) rowContext[r] = Math.floor(r / expand);
    const from = tiled ?? { selfPast: pass.selfPresent, crossPast: pass.crossPresent, hidden, mask: maskTensor };
    let onRelease: (() => void) | undefined;
    if (tiled) {
      const used = tiled;
      used.users++;
      onRelease = () => {
        used.users--;
        this.giveBackIfFree(used);
      };
    }
    const session = new Seq2SeqDecodingSession(this, vocab, from.selfPast, from.crossPast, from.hidden, from.mask, rowContext, share !== undefined, options.timer, onRelease);
    return { session, logits, history: Array.from({ length: n * expand }, () => [start]) };
  }

  /**
   * Hands a tiling's pooled buffers back once no session reads them and the model no longer keeps it for the next
   * setting of its prompt.
   */
  private giveBackIfFree(tiled: Tiled): void {
    if (tiled.users > 0 || this.lastPrompt?.tiled === tiled || tiled.pooled.length === 0) return;
    for (const t of tiled.pooled) giveBack(t, this.tilePool);
    tiled.pooled = [];
  }

  /** @internal one decoder step with a cache (the with-past graph). */
  async runWithPast(ids: BigInt64Array, rows: number, width: number, selfPast: Cache, crossPast: Cache, hidden: ort.Tensor, encMask: ort.Tensor, timer?: RunTimer) {
    const T = this.rt.Tensor;
    const g = this.next;
    const feeds: Record<string, ort.Tensor> = { input_ids: new T('int64', ids, [rows, width]), encoder_attention_mask: encMask };
    if (g.inputs.has('encoder_hidden_states')) feeds.encoder_hidden_states = hidden;
    if (g.inputs.has('use_cache_branch')) feeds.use_cache_branch = new T('bool', new Uint8Array([1]), [1]);
    for (const [k, v] of selfPast) feeds[k] = v;
    for (const [k, v] of crossPast) feeds[k] = v;
    const out = await g.run(feeds, timer);
    const present: Cache = new Map(this.selfNames.map((name) => [name, out[name.replace('past_key_values.', 'present.')]]));
    return { logits: out.logits.data as Float32Array, present };
  }

  /** @internal a pool of gather buffers for one session */
  gatherPool(): GatherPool {
    return new GatherPool(this.rt.Tensor);
  }

  /** @internal */
  gather(cache: Cache, indices: ArrayLike<number>): Cache {
    const out: Cache = new Map();
    for (const [name, t] of cache) out.set(name, gatherRows(this.rt.Tensor, t, indices));
    return out;
  }

  /** @internal */
  gatherTensor(t: ort.Tensor, indices: ArrayLike<number>): ort.Tensor {
    return gatherRows(this.rt.Tensor, t, indices);
  }

  async dispose(): Promise<void> {
    // The kept prompt pass and its tiled cache (hundreds of MB at real size) go with the sessions.
    this.lastPrompt = undefined;
    this.tilePool.clear();
    await this.encoder.release();
    await this.first.release();
    if (this.next !== this.first) await this.next.release();
  }
}

/**
 * A prompt pass's caches and encoder states tiled to `expand` rows. `pooled`: the tensors whose buffers came from
 * the model's pool (emptied once given back); `users`: sessions started from it and not released. The model keeps
 * a tiling for the next setting of the same prompt while it is `lastPrompt.tiled`.
 */
interface Tiled {
  expand: number;
  selfPast: Cache;
  crossPast: Cache;
  hidden: ort.Tensor;
  mask: ort.Tensor;
  pooled: ort.Tensor[];
  users: number;
}

/** The rows of an encoder-decoder model being decoded. */
class Seq2SeqDecodingSession implements DecodingSession {
  private readonly ids = new Int64Scratch();
  private readonly pool: GatherPool;

  constructor(
    private readonly model: OnnxSeq2SeqLM,
    readonly vocab: number,
    private selfPast: Cache,
    private crossPast: Cache,
    private hidden: ort.Tensor,
    private encMask: ort.Tensor,
    /** Which prompt each row continues: rows of one prompt share the encoder states and cross-attention cache. */
    private rowContext: Int32Array,
    /**
     * Every row continues one prompt and the cross-attention cache (and the encoder states, when one row of them
     * was fed) is held once for all of them: dropping or reordering rows leaves it as it is.
     */
    private readonly oneContext: boolean,
    private readonly timer?: RunTimer,
    /** Called once by {@link release}: the tiled tensors the session started from may serve another tiling. */
    private onRelease?: () => void,
  ) {
    this.pool = model.gatherPool();
  }

  release(): void {
    const done = this.onRelease;
    this.onRelease = undefined;
    this.selfPast = new Map();
    this.crossPast = new Map();
    done?.();
  }

  get rows(): number {
    return this.rowContext.length;
  }

  step(tokens: ArrayLike<number>): Promise<Float32Array> {
    return this.extend(tokens, 1);
  }

  async extend(tokens: ArrayLike<number>, width: number): Promise<Float32Array> {
    const rows = this.rows;
    if (tokens.length !== rows * width) throw new RangeError(`expected ${rows}×${width} tokens, got ${tokens.length}`);
    const ids = this.ids.view(rows * width);
    for (let i = 0; i < ids.length; i++) ids[i] = BigInt(tokens[i]);
    const { logits, present } = await this.model.runWithPast(ids, rows, width, this.selfPast, this.crossPast, this.hidden, this.encMask, this.timer);
    this.selfPast = present;
    return logits;
  }

  select(indices: ArrayLike<number>): void {
    if (isIdentity(indices, this.rows)) return;
    const selfPast: Cache = new Map();
    for (const [name, t] of this.selfPast) selfPast.set(name, this.pool.gather(name, t, indices));
    this.selfPast = selfPast;
    const ctx = Int32Array.from(indices, (i) => this.rowContext[i]);
    // Rows of one prompt have identical encoder states: reordering beams within prompts needs no copy.
    const same = ctx.length === this.rowContext.length && ctx.every((c, i) => c === this.rowContext[i]);
    if (!same) {
      if (!this.oneContext) this.crossPast = this.model.gather(this.crossPast, indices);
      if (!this.oneContext || this.hidden.dims[0] !== 1) this.hidden = this.model.gatherTensor(this.hidden, indices);
      this.encMask = this.model.gatherTensor(this.encMask, indices);
    }
    this.rowContext = ctx;
  }
}

/**
 * Whether the with-past graph in `file` broadcasts a one-row cross-attention cache over its rows (every
 * `crossNames` input read only as a `MatMul` operand, `rowSharing`), and whether it reads `encoder_hidden_states`.
 */
function crossAttentionSharing(file: string, crossNames: readonly string[]): OnnxSeq2SeqLM['crossAttention'] {
  let found: Map<string, RowSharing>;
  try {
    const fd = openSync(file, 'r');
    try {
      found = rowSharing(fileSource(fd), [...crossNames, 'encoder_hidden_states'], ['use_cache_branch']);
    } finally {
      closeSync(fd);
    }
  } catch (e) {
    return { shared: false, reason: `the graph could not be read (${(e as Error).message})` };
  }
  for (const name of crossNames) {
    const how = found.get(name)!;
    if (typeof how === 'object') return { shared: false, reason: how.skipped };
  }
  return { shared: true, hiddenUnread: found.get('encoder_hidden_states') === 'unread' };
}
