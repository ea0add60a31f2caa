/**
 * Which files of a model folder (or a hub repository) a task needs: the configuration and tokenizer files, and
 * the ONNX files of its layout, by role, at a chosen weight precision (`dtype`).
 *
 * Layouts (Optimum `optimum-cli export onnx` names; each file looked for under `onnx/`, then at the top level):
 * - decoder-only: `model.onnx` (with `past_key_values.*` inputs), or `decoder_model_merged.onnx` (with
 *   `use_cache_branch`), or `decoder_model.onnx` + `decoder_with_past_model.onnx`;
 * - encoder-decoder (`config.json` has `is_encoder_decoder: true`): `encoder_model.onnx` plus
 *   `decoder_model_merged.onnx`, or `decoder_model.onnx` + `decoder_with_past_model.onnx`;
 * - encoder (feature extraction: BERTScore, sentence embeddings): `model.onnx`.
 *
 * Precision: transformers.js' `dtype` names and the file-name suffixes hub repositories (Xenova/…,
 * onnx-community/…) use: `model_quantized.onnx` is q8, `decoder_model_merged_fp16.onnx` is fp16, and so on
 * (`@huggingface/transformers` 4.3, `src/utils/dtypes.js`, `DEFAULT_DTYPE_SUFFIX_MAPPING`). Every ONNX file of
 * a layout has the same suffix.
 *
 * Layouts are found over a predicate "this relative path exists", so the same rules choose the files of a local
 * folder and the files to download from a hub repository's file list.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ModelSourceError } from './errors';

/** ONNX weight precisions by transformers.js `dtype` name, with the file-name suffix of each. */
export const MODEL_DTYPES = {
  fp32: '',
  fp16: '_fp16',
  q8: '_quantized',
  int8: '_int8',
  uint8: '_uint8',
  q4: '_q4',
  q4f16: '_q4f16',
  bnb4: '_bnb4',
} as const;

/** A weight precision (transformers.js `dtype`): `fp32` (default), `fp16`, `q8` (`_quantized`), `int8`, `uint8`, `q4`, `q4f16`, `bnb4`. */
export type ModelDtype = keyof typeof MODEL_DTYPES;

/** True for a known {@link ModelDtype} name. */
export function isModelDtype(x: unknown): x is ModelDtype {
  return typeof x === 'string' && Object.prototype.hasOwnProperty.call(MODEL_DTYPES, x);
}

/**
 * What a model is loaded for, which decides the files it needs: `generation` (a decoder-only or encoder-decoder
 * language model: generators, local judges, perplexity, follow-up likelihood), `feature-extraction` (an encoder:
 * BERTScore, sentence embeddings), `tokenizer` (the tokenizer alone: prompt previews, token counts).
 */
export type ModelTask = 'generation' | 'feature-extraction' | 'tokenizer';

/** The ONNX files of a model, by role (paths relative to the folder from {@link findLayout}, absolute in a described model). */
export type ModelLayout =
  | { architecture: 'decoder-only'; kind: 'single' | 'merged'; decoder: string }
  | { architecture: 'decoder-only'; kind: 'split'; decoder: string; decoderWithPast: string }
  | { architecture: 'encoder-decoder'; kind: 'merged'; encoder: string; decoder: string }
  | { architecture: 'encoder-decoder'; kind: 'split'; encoder: string; decoder: string; decoderWithPast: string }
  | { architecture: 'encoder'; kind: 'single'; model: string }
  | { architecture: 'tokenizer'; kind: 'none' };

/** A layout of generative models (what {@link findLayout} gives for the `generation` task). */
export type GenerativeLayout = Extract<ModelLayout, { architecture: 'decoder-only' | 'encoder-decoder' }>;

/** Files a task needs besides its ONNX files. */
export const REQUIRED_FILES: Readonly<Record<ModelTask, readonly string[]>> = {
  generation: ['config.json', 'tokenizer.json', 'tokenizer_config.json'],
  'feature-extraction': ['config.json', 'tokenizer.json', 'tokenizer_config.json'],
  tokenizer: ['tokenizer.json', 'tokenizer_config.json'],
};

/** Files a task reads when present (downloaded from a hub repository when it has them). */
export const OPTIONAL_FILES: Readonly<Record<ModelTask, readonly string[]>> = {
  generation: ['generation_config.json', 'special_tokens_map.json'],
  'feature-extraction': ['special_tokens_map.json', 'modules.json', 'sentence_bert_config.json', '1_Pooling/config.json'],
  tokenizer: ['config.json', 'special_tokens_map.json'],
};

/** The ONNX files of a layout, in role order. */
export function layoutFiles(layout: ModelLayout): string[] {
  switch (layout.architecture) {
    case 'tokenizer':
      return [];
    case 'encoder':
      return [layout.model];
    case 'decoder-only':
      return layout.kind === 'split' ? [layout.decoder, layout.decoderWithPast] : [layout.decoder];
    case 'encoder-decoder':
      return layout.kind === 'split' ? [layout.encoder, layout.decoder, layout.decoderWithPast] : [layout.encoder, layout.decoder];
  }
}

/** The layout with every path mapped by `f` (relative → absolute). */
export function mapLayout(layout: ModelLayout, f: (path: string) => string): ModelLayout {
  const out: Record<string, string> = { ...(layout as Record<string, string>) };
  for (const k of ['decoder', 'decoderWithPast', 'encoder', 'model']) if (typeof out[k] === 'string') out[k] = f(out[k]);
  return out as unknown as ModelLayout;
}

/**
 * The files of an ONNX file's external weights (`<file>_data`, and transformers.js' numbered chunks
 * `<file>_data_1`, …) among `files`.
 */
export function externalDataFiles(onnxFile: string, files: Iterable<string>): string[] {
  const out: string[] = [];
  for (const f of files) if (f === `${onnxFile}_data` || (f.startsWith(`${onnxFile}_data_`) && /^\d+$/.test(f.slice(onnxFile.length + 6)))) out.push(f);
  return out.sort();
}

/** True when a `config.json` object describes an encoder-decoder model. */
export function isEncoderDecoderConfig(config: Record<string, unknown>): boolean {
  return config.is_encoder_decoder === true;
}

/** A relative path that exists, for a folder or a repository file list. */
export type FileProbe = (relativePath: string) => boolean;

function finder(has: FileProbe) {
  return (name: string): string | undefined => [`onnx/${name}`, name].find(has);
}

/** The layout for one dtype; throws the first missing piece. */
function layoutFor(has: FileProbe, config: Record<string, unknown>, task: ModelTask, dtype: ModelDtype, where: string): ModelLayout {
  const s = MODEL_DTYPES[dtype];
  const find = finder(has);
  const n = (base: string) => `${base}${s}.onnx`;
  if (task === 'tokenizer') return { architecture: 'tokenizer', kind: 'none' };
  if (task === 'feature-extraction') {
    const model = find(n('model'));
    if (!model) throw new ModelSourceError(`${where} has no ONNX encoder (looked for onnx/${n('model')}, ${n('model')})`);
    return { architecture: 'encoder', kind: 'single', model };
  }
  const merged = find(n('decoder_model_merged'));
  const plain = find(n('decoder_model'));
  const withPast = find(n('decoder_with_past_model'));
  if (isEncoderDecoderConfig(config)) {
    const encoder = find(n('encoder_model'));
    if (!encoder) throw new ModelSourceError(`${where} has no onnx/${n('encoder_model')} (config.json says is_encoder_decoder: true)`);
    if (merged) return { architecture: 'encoder-decoder', kind: 'merged', encoder, decoder: merged };
    if (plain && withPast) return { architecture: 'encoder-decoder', kind: 'split', encoder, decoder: plain, decoderWithPast: withPast };
    if (plain) throw new ModelSourceError(`${where} has ${plain} but no onnx/${n('decoder_with_past_model')} (export with KV cache: optimum-cli export onnx --task text2text-generation-with-past)`);
    throw new ModelSourceError(`${where} has no ONNX decoder (looked for onnx/${n('decoder_model_merged')}, or onnx/${n('decoder_model')} + onnx/${n('decoder_with_past_model')})`);
  }
  const single = find(n('model'));
  if (single) return { architecture: 'decoder-only', kind: 'single', decoder: single };
  if (merged) return { architecture: 'decoder-only', kind: 'merged', decoder: merged };
  if (plain && withPast) return { architecture: 'decoder-only', kind: 'split', decoder: plain, decoderWithPast: withPast };
  if (plain) throw new ModelSourceError(`${where} has ${plain} but no onnx/${n('decoder_with_past_model')} (export with KV cache: optimum-cli export onnx --task text-generation-with-past)`);
  throw new ModelSourceError(`${where} has no ONNX decoder (looked for onnx/${n('model')}, onnx/${n('decoder_model_merged')}, or onnx/${n('decoder_model')} + onnx/${n('decoder_with_past_model')})`);
}

/** The dtypes for which `has` holds a complete layout for `task`. */
export function availableDtypes(has: FileProbe, config: Record<string, unknown>, task: ModelTask): ModelDtype[] {
  return (Object.keys(MODEL_DTYPES) as ModelDtype[]).filter((d) => {
    try {
      layoutFor(has, config, task, d, '');
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * The ONNX files of a model for `task` at precision `dtype` (paths relative to the folder or repository).
 *
 * @param has - whether a relative path exists (a folder's files, or a hub repository's file list)
 * @param config - the parsed `config.json` (decides encoder-decoder vs decoder-only for `generation`)
 * @param where - how messages name the model, e.g. `model folder /x/gpt2` or `hub model "org/name"`
 * @throws ModelSourceError naming the first missing piece; when another dtype has a complete layout, naming the
 *   dtypes present instead (e.g. `has no … for dtype q4; variants present: fp32, q8`)
 */
export function findLayout(has: FileProbe, config: Record<string, unknown>, task: ModelTask, dtype: ModelDtype, where: string): ModelLayout {
  try {
    return layoutFor(has, config, task, dtype, where);
  } catch (err) {
    const present = availableDtypes(has, config, task);
    if (present.length === 0) throw err;
    const suffixes = present.map((d) => `${d} (${layoutFiles(layoutFor(has, config, task, d, where)).join(' + ')})`);
    throw new ModelSourceError(`${(err as Error).message.replace(/\s*\(looked for[^)]*\)$/, '')} for dtype ${dtype}; variants present: ${suffixes.join(', ')}. Choose one of them as dtype`);
  }
}

/** `config.json` (required unless `optional`) and `generation_config.json` (empty when absent) of a folder, parsed once. */
export function readFolderConfigs(
  folder: string,
  where: string,
  options: { configOptional?: boolean; knownConfig?: Record<string, unknown> } = {},
): { config: Record<string, unknown>; generationConfig: Record<string, unknown> } {
  const read = (name: string, optional: boolean): Record<string, unknown> => {
    const file = join(folder, name);
    if (!existsSync(file)) {
      if (optional) return {};
      throw new ModelSourceError(`${where} has no ${name}`);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(readFileSync(file, 'utf8'));
    } catch (e) {
      throw new ModelSourceError(`${where}: ${name} is not valid JSON (${(e as Error).message})`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ModelSourceError(`${where}: ${name} is not a JSON object`);
    return parsed as Record<string, unknown>;
  };
  return { config: options.knownConfig ?? read('config.json', options.configOptional ?? false), generationConfig: read('generation_config.json', true) };
}

/**
 * Checks that `folder` holds a complete model for `task` (default `generation`) at `dtype` (default fp32) and
 * returns its layout (absolute paths).
 *
 * @throws ModelSourceError naming the folder and the first missing piece
 */
export function checkModelFolder(folder: string, options: { task?: ModelTask; dtype?: ModelDtype } = {}): ModelLayout {
  return inspectFolder(folder, options.task ?? 'generation', options.dtype ?? 'fp32').layout;
}

/**
 * The configuration and layout of a local folder, `config.json` parsed once (not at all when `knownConfig` is given).
 *
 * @throws ModelSourceError naming the folder and the first missing piece
 */
export function inspectFolder(folder: string, task: ModelTask, dtype: ModelDtype, where = `model folder ${folder}`, knownConfig?: Record<string, unknown>) {
  if (!existsSync(folder)) throw new ModelSourceError(`${where} does not exist`);
  if (!statSync(folder).isDirectory()) throw new ModelSourceError(`model ${folder} is a file; expected a folder in the Hugging Face/Optimum ONNX layout`);
  for (const f of REQUIRED_FILES[task]) {
    if (!existsSync(join(folder, f))) throw new ModelSourceError(`${where} has no ${f}`);
  }
  const { config, generationConfig } = readFolderConfigs(folder, where, { configOptional: task === 'tokenizer', knownConfig });
  const relative = findLayout((p) => existsSync(join(folder, p)), config, task, dtype, where);
  return { config, generationConfig, layout: mapLayout(relative, (p) => join(folder, p)) };
}
