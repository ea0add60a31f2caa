/**
 * Encoder-only transformers (BERT, RoBERTa, MPNet, DeBERTa, …) exported to ONNX in the Hugging Face / Optimum
 * feature-extraction layout, run through `@huggingface/transformers` (`AutoTokenizer` + `AutoModel`; onnxruntime-node
 * underneath). Used by BERTScore (contextual token embeddings of a chosen layer) and by semantic deduplication
 * (sentence embeddings).
 *
 * Layers. A standard Optimum export has one output, `last_hidden_state` (the last layer). transformers.js returns
 * every output the ONNX graph has, so an export that also exposes `hidden_states.0` … `hidden_states.N` (the
 * embedding output, then each layer's, as `output_hidden_states=True` gives them in transformers) lets any layer be
 * chosen. A model truncated to its first L layers before export (what bert_score itself does in PyTorch) gives
 * layer L as `last_hidden_state`; its `config.json` then says `num_hidden_layers: L`. Anything else is refused with
 * {@link LayerUnavailableError}, which names the layers the export has; docs/metrics-neural.md shows both exports.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { describedModelId, type DescribedModel } from './describe';
import { ModelSourceError } from './errors';
import { MODEL_DTYPES } from './modelFiles';

// Python's str.isspace() characters (str.strip strips these), which differ from JavaScript's String.prototype.trim.
const PY_SPACE = '\\t\\n\\u000b\\f\\r\\u001c-\\u001f \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, 'g');

/** Python's `str.strip()` (whitespace as `str.isspace`). */
export function pythonStrip(s: string): string {
  return s.replace(PY_STRIP, '');
}

/** The chosen layer is not in the ONNX export. The message names the model, the layers it has, and the fix. */
export class LayerUnavailableError extends Error {
  constructor(
    readonly model: string,
    readonly layer: number,
    readonly available: number[],
  ) {
    super(
      `model ${model}: layer ${layer} is not available; the ONNX export has ${available.length === 1 ? 'only layer' : 'layers'} ${available.join(', ')} ` +
        `(an export with only "last_hidden_state" gives the last layer). Export the model truncated to ${layer} layers, or with every ` +
        `layer's hidden states as outputs "hidden_states.0" … "hidden_states.N": see docs/metrics-neural.md, "Exporting an encoder for BERTScore".`,
    );
    this.name = 'LayerUnavailableError';
  }
}

function readJson(path: string): Record<string, unknown> | undefined {
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>) : undefined;
}

/** A special token in `tokenizer_config.json`: a string or an AddedToken object. */
function tokenString(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') return (v as { content: string }).content;
  return undefined;
}

/** Minimal view of a transformers.js tokenizer (its typings are loose). */
interface HfTokenizer {
  encode(text: string, options?: { add_special_tokens?: boolean }): number[];
  convert_tokens_to_ids(tokens: string[]): (number | null | undefined)[];
  pad_token_id?: number | null;
  sep_token_id?: number | null;
  model_max_length?: number;
}
interface HfTensor {
  data: ArrayLike<number>;
  dims: number[];
}
type HfModel = ((inputs: Record<string, unknown>) => Promise<Record<string, HfTensor>>) & {
  sessions: Record<string, { outputNames: string[]; inputNames: string[] }>;
  dispose(): Promise<unknown>;
};

/** Token embeddings of one sentence: `data` is row-major [length, hiddenSize] (float32). */
export interface TokenEmbeddings {
  data: Float32Array;
  length: number;
  hiddenSize: number;
}

/** A loaded ONNX encoder with its tokenizer. */
export class EncoderModel {
  private constructor(
    /** The model reference as given (folder or hub id), or the `id` passed to `fromDescription`. */
    readonly ref: string,
    readonly folder: string,
    /** `config.json` fields used here. */
    readonly config: { modelType: string; numLayers: number; hiddenSize: number },
    /** `tokenizer_config.json`'s `tokenizer_class` (e.g. `RobertaTokenizer`), or the model type when absent. */
    readonly tokenizerClass: string,
    /** Longest input in tokens, special tokens included (`model_max_length`, capped by the position embeddings). */
    readonly modelMaxLength: number,
    /** Ids of the tokenizer's `cls_token`, `sep_token` and `pad_token` (undefined when it has none). */
    readonly specialIds: { cls?: number; sep?: number; pad: number },
    /** Layers the export returns, ascending (`hidden_states.i` outputs, else the last layer only). */
    readonly availableLayers: number[],
    /** sentence-transformers files, when the folder has them. */
    readonly sentenceTransformers: { maxSeqLength?: number; doLowerCase?: boolean; pooling?: Record<string, unknown>; modules?: unknown[] },
    private readonly tokenizer: HfTokenizer,
    private readonly model: HfModel,
    private readonly layerOutputs: Map<number, string>,
    /** Where the model came from: folder, ONNX file, dtype, hub commit (see `describedModelFiles`). */
    readonly description?: DescribedModel,
  ) {}

  /**
   * Opens a described encoder (task `feature-extraction`, see `describeModel` in registry.ts) through transformers.js,
   * without network; `config.json` as parsed there.
   *
   * @param options.id - name recorded in outputs instead of the described id
   * @throws ModelSourceError when the description is not of an encoder, `config.json` lacks the shapes, or the
   *   export has no `last_hidden_state` output
   */
  static async fromDescription(d: DescribedModel, options: { id?: string } = {}): Promise<EncoderModel> {
    const { folder, layout, dtype } = d;
    if (layout.architecture !== 'encoder') throw new ModelSourceError(`model ${d.ref}: described for ${d.task}, not as an encoder (describe it with task "feature-extraction")`);
    const onnxFile = layout.model;
    const cfg = d.config;
    const tcfg = readJson(join(folder, 'tokenizer_config.json')) ?? {};
    const numLayers = Number(cfg.num_hidden_layers ?? cfg.n_layers ?? cfg.num_layers ?? NaN);
    const hiddenSize = Number(cfg.hidden_size ?? cfg.dim ?? cfg.d_model ?? NaN);
    if (!Number.isInteger(numLayers) || !Number.isInteger(hiddenSize)) {
      throw new ModelSourceError(`model folder ${folder}: config.json lacks num_hidden_layers or hidden_size`);
    }
    const { AutoModel, AutoTokenizer } = await import('@huggingface/transformers');
    const tokenizer = (await AutoTokenizer.from_pretrained(folder, { local_files_only: true })) as unknown as HfTokenizer;
    // transformers.js opens `<subfolder>/model<suffix of dtype>.onnx`: the file describeModel chose. The parsed
    // config is handed over so config.json is not read again.
    const subfolder = relative(folder, dirname(onnxFile)).split(sep).join('/');
    if (relative(folder, onnxFile).split(sep).join('/') !== (subfolder ? `${subfolder}/` : '') + `model${MODEL_DTYPES[dtype]}.onnx`) {
      throw new ModelSourceError(`model folder ${folder}: ${onnxFile} is not where transformers.js looks for a ${dtype} encoder`);
    }
    const model = (await AutoModel.from_pretrained(folder, {
      local_files_only: true,
      dtype,
      subfolder,
      config: cfg as never,
    })) as unknown as HfModel;
    const session = model.sessions.model;
    const outputs = session?.outputNames ?? [];
    if (!outputs.includes('last_hidden_state')) {
      await model.dispose();
      throw new ModelSourceError(`model ${onnxFile} has no "last_hidden_state" output (outputs: ${outputs.join(', ')}); expected an Optimum feature-extraction export`);
    }
    const layerOutputs = new Map<number, string>();
    for (const o of outputs) {
      const m = /^hidden_states\.(\d+)$/.exec(o);
      if (m) layerOutputs.set(Number(m[1]), o);
    }
    if (!layerOutputs.has(numLayers)) layerOutputs.set(numLayers, 'last_hidden_state');
    const idOf = (key: string): number | undefined => {
      const t = tokenString(tcfg[key]);
      if (t === undefined) return undefined;
      const id = tokenizer.convert_tokens_to_ids([t])[0];
      return typeof id === 'number' ? id : undefined;
    };
    const maxPositions = Number(cfg.max_position_embeddings ?? Infinity);
    // RoBERTa-family position ids start after padding_idx: usable length is max_position_embeddings - pad - 1.
    const positionLimit = ['roberta', 'xlm-roberta', 'camembert', 'longformer', 'mpnet'].includes(String(cfg.model_type)) ? maxPositions - Number(cfg.pad_token_id ?? 1) - 1 : maxPositions;
    const tokMax = Number(tcfg.model_max_length ?? Infinity);
    const modelMaxLength = Math.min(tokMax > 1e12 ? Infinity : tokMax, positionLimit);
    const st = readJson(join(folder, 'sentence_bert_config.json'));
    return new EncoderModel(
      describedModelId({ ref: options.id ?? d.ref, dtype }),
      folder,
      { modelType: String(cfg.model_type ?? 'unknown'), numLayers, hiddenSize },
      String(tcfg.tokenizer_class ?? cfg.model_type ?? 'unknown'),
      modelMaxLength,
      { cls: idOf('cls_token'), sep: idOf('sep_token') ?? (tokenizer.sep_token_id ?? undefined), pad: idOf('pad_token') ?? Number(tokenizer.pad_token_id ?? 0) },
      [...layerOutputs.keys()].sort((a, b) => a - b),
      {
        maxSeqLength: typeof st?.max_seq_length === 'number' ? st.max_seq_length : undefined,
        doLowerCase: typeof st?.do_lower_case === 'boolean' ? st.do_lower_case : undefined,
        pooling: readJson(join(folder, '1_Pooling', 'config.json')),
        modules: (() => {
          const m = readJson(join(folder, 'modules.json')) as unknown;
          return Array.isArray(m) ? m : undefined;
        })(),
      },
      tokenizer,
      model,
      layerOutputs,
      d,
    );
  }

  /**
   * Token ids of `text` with the tokenizer's special tokens (e.g. `<s> … </s>`), the content truncated so the
   * whole fits in `maxLength` (default {@link modelMaxLength}) — Hugging Face's `truncation=True` for one sequence,
   * which keeps the special tokens.
   */
  encode(text: string, maxLength: number = this.modelMaxLength): number[] {
    const withSpecial = this.tokenizer.encode(text, { add_special_tokens: true }).map(Number);
    if (withSpecial.length <= maxLength) return withSpecial;
    return truncateWithSpecialTokens(withSpecial, this.tokenizer.encode(text, { add_special_tokens: false }).map(Number), maxLength, 'right');
  }

  /** Token ids of `text` without special tokens and without truncation. */
  tokenize(text: string): number[] {
    return this.tokenizer.encode(text, { add_special_tokens: false }).map(Number);
  }

  /**
   * Hidden states of `layer` (0 = embedding output, N = last layer) for each id sequence, computed in right-padded
   * batches of `batchSize` sequences of similar length (attention mask 0 on padding, which the real positions never
   * see).
   *
   * @throws LayerUnavailableError when the export does not return that layer
   */
  async hiddenStates(idLists: readonly number[][], layer: number, options: { batchSize?: number; signal?: AbortSignal } = {}): Promise<TokenEmbeddings[]> {
    const output = this.layerOutputs.get(layer);
    if (output === undefined) throw new LayerUnavailableError(this.ref, layer, this.availableLayers);
    const { Tensor } = await import('@huggingface/transformers');
    const order = idLists.map((_, i) => i).sort((a, b) => idLists[b].length - idLists[a].length);
    const out: TokenEmbeddings[] = new Array(idLists.length);
    const batchSize = Math.max(1, options.batchSize ?? 16);
    const d = this.config.hiddenSize;
    for (let start = 0; start < order.length; start += batchSize) {
      options.signal?.throwIfAborted();
      const rows = order.slice(start, start + batchSize);
      const len = Math.max(1, ...rows.map((i) => idLists[i].length));
      const ids = new BigInt64Array(rows.length * len).fill(BigInt(this.specialIds.pad));
      const mask = new BigInt64Array(rows.length * len);
      rows.forEach((i, r) => {
        idLists[i].forEach((t, k) => {
          ids[r * len + k] = BigInt(t);
          mask[r * len + k] = 1n;
        });
      });
      const result = await this.model({
        input_ids: new Tensor('int64', ids, [rows.length, len]),
        attention_mask: new Tensor('int64', mask, [rows.length, len]),
      });
      const t = result[output];
      const data = t.data instanceof Float32Array ? t.data : Float32Array.from(t.data);
      rows.forEach((i, r) => {
        const n = idLists[i].length;
        out[i] = { data: data.slice(r * len * d, (r * len + n) * d), length: n, hiddenSize: d };
      });
    }
    return out;
  }

  /** Releases the ONNX session. */
  async dispose(): Promise<void> {
    await this.model.dispose();
  }
}

/**
 * Truncates a sequence to `maxLength` tokens the way Hugging Face tokenizers truncate one sequence: content tokens are
 * removed (from the end for `right`, from the start for `left`) and the special tokens around them are kept.
 *
 * @param withSpecial - the ids with special tokens (prefix + content + suffix)
 * @param content - the same text's ids without special tokens
 * @throws Error when `withSpecial` does not contain `content`
 */
export function truncateWithSpecialTokens(withSpecial: readonly number[], content: readonly number[], maxLength: number, side: 'left' | 'right'): number[] {
  if (withSpecial.length <= maxLength) return [...withSpecial];
  const prefix = findPrefix(withSpecial, content);
  const head = withSpecial.slice(0, prefix);
  const tail = withSpecial.slice(prefix + content.length);
  const keep = Math.max(0, maxLength - head.length - tail.length);
  const kept = side === 'right' ? content.slice(0, keep) : content.slice(content.length - keep);
  return [...head, ...kept, ...tail];
}

/** Offset of `inner` inside `outer` (outer = prefix + inner + suffix). */
function findPrefix(outer: readonly number[], inner: readonly number[]): number {
  for (let p = 0; p + inner.length <= outer.length; p++) {
    let ok = true;
    for (let k = 0; k < inner.length && ok; k++) ok = outer[p + k] === inner[k];
    if (ok) return p;
  }
  throw new Error('tokenizer: the ids with special tokens do not contain the ids without them; cannot truncate');
}
