/**
 * Resolving a model reference — a local folder in the Hugging Face / Optimum ONNX layout, or a Hugging Face
 * hub id — to a local folder and the ONNX files of its layout.
 *
 * Hub ids are downloaded once into a cache folder (online users only; nothing here downloads when the
 * reference is a local folder). Files are fetched from `${HF_ENDPOINT:-https://huggingface.co}/<id>/resolve/<revision>/<file>`.
 *
 * Layouts (Optimum `optimum-cli export onnx` names; each file looked for under `onnx/`, then at the top level):
 * - decoder-only: `model.onnx` (with `past_key_values.*` inputs), or `decoder_model_merged.onnx` (with
 *   `use_cache_branch`), or `decoder_model.onnx` + `decoder_with_past_model.onnx`;
 * - encoder-decoder (`config.json` has `is_encoder_decoder: true`): `encoder_model.onnx` plus
 *   `decoder_model_merged.onnx`, or `decoder_model.onnx` + `decoder_with_past_model.onnx`.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';

/** Files every model folder needs, besides its ONNX files. */
export const MODEL_CONFIG_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;
/** @deprecated use {@link MODEL_CONFIG_FILES} */
export const CAUSAL_LM_CONFIG_FILES = MODEL_CONFIG_FILES;

/** ONNX files looked for, in order of preference, for a decoder-only model with a single decoder file. */
export const CAUSAL_LM_ONNX_FILES = ['onnx/model.onnx', 'onnx/decoder_model_merged.onnx', 'model.onnx', 'decoder_model_merged.onnx'] as const;

/** A model folder lacks a file, its ONNX graphs do not match, or a hub download failed. Names the folder or id and what is missing. */
export class ModelSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelSourceError';
  }
}

/** The ONNX files of a model folder, by role (absolute paths). */
export type ModelLayout =
  | { architecture: 'decoder-only'; kind: 'single' | 'merged'; decoder: string }
  | { architecture: 'decoder-only'; kind: 'split'; decoder: string; decoderWithPast: string }
  | { architecture: 'encoder-decoder'; kind: 'merged'; encoder: string; decoder: string }
  | { architecture: 'encoder-decoder'; kind: 'split'; encoder: string; decoder: string; decoderWithPast: string };

/** True when `ref` looks like a hub id (`owner/name` or `name`) and is not an existing path. */
export function isHubId(ref: string, cwd = process.cwd()): boolean {
  if (existsSync(isAbsolute(ref) ? ref : resolve(cwd, ref))) return false;
  return /^[A-Za-z0-9][\w.-]*(\/[\w.-]+)?$/.test(ref) && !ref.startsWith('.');
}

/** Default cache folder for hub downloads (`$REFLECT_EVAL_CACHE` or `~/.cache/reflect-eval`). */
export function defaultCacheDir(): string {
  return process.env.REFLECT_EVAL_CACHE ?? join(homedir(), '.cache', 'reflect-eval');
}

async function download(url: string, dest: string, token?: string): Promise<boolean> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (res.status === 404) return false;
  if (!res.ok) throw new ModelSourceError(`downloading ${url} failed: HTTP ${res.status}`);
  mkdirSync(dirname(dest), { recursive: true });
  const tmp = `${dest}.part`;
  writeFileSync(tmp, Buffer.from(await res.arrayBuffer()));
  renameSync(tmp, dest);
  return true;
}

function readConfig(folder: string): Record<string, unknown> {
  const file = join(folder, 'config.json');
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new ModelSourceError(`model folder ${folder}: config.json is not valid JSON (${(e as Error).message})`);
  }
}

/** True when the folder's `config.json` describes an encoder-decoder model. */
export function isEncoderDecoderConfig(config: Record<string, unknown>): boolean {
  return config.is_encoder_decoder === true;
}

function find(folder: string, name: string): string | undefined {
  for (const f of [join(folder, 'onnx', name), join(folder, name)]) if (existsSync(f)) return f;
  return undefined;
}

/**
 * Checks that `folder` holds a complete model and returns the ONNX files of its layout.
 *
 * @throws ModelSourceError naming the folder and the first missing piece
 */
export function checkModelFolder(folder: string): ModelLayout {
  if (!existsSync(folder)) throw new ModelSourceError(`model folder ${folder} does not exist`);
  if (!statSync(folder).isDirectory()) throw new ModelSourceError(`model ${folder} is a file; expected a folder in the Hugging Face/Optimum ONNX layout`);
  for (const f of MODEL_CONFIG_FILES) {
    if (!existsSync(join(folder, f))) throw new ModelSourceError(`model folder ${folder} has no ${f}`);
  }
  const config = readConfig(folder);
  const merged = find(folder, 'decoder_model_merged.onnx');
  const plain = find(folder, 'decoder_model.onnx');
  const withPast = find(folder, 'decoder_with_past_model.onnx');
  if (isEncoderDecoderConfig(config)) {
    const encoder = find(folder, 'encoder_model.onnx');
    if (!encoder) throw new ModelSourceError(`model folder ${folder} has no onnx/encoder_model.onnx (config.json says is_encoder_decoder: true)`);
    if (merged) return { architecture: 'encoder-decoder', kind: 'merged', encoder, decoder: merged };
    if (plain && withPast) return { architecture: 'encoder-decoder', kind: 'split', encoder, decoder: plain, decoderWithPast: withPast };
    if (plain) throw new ModelSourceError(`model folder ${folder} has onnx/decoder_model.onnx but no onnx/decoder_with_past_model.onnx (export with KV cache: optimum-cli export onnx --task text2text-generation-with-past)`);
    throw new ModelSourceError(`model folder ${folder} has no ONNX decoder (looked for onnx/decoder_model_merged.onnx, or onnx/decoder_model.onnx + onnx/decoder_with_past_model.onnx)`);
  }
  const single = find(folder, 'model.onnx');
  if (single) return { architecture: 'decoder-only', kind: 'single', decoder: single };
  if (merged) return { architecture: 'decoder-only', kind: 'merged', decoder: merged };
  if (plain && withPast) return { architecture: 'decoder-only', kind: 'split', decoder: plain, decoderWithPast: withPast };
  if (plain) throw new ModelSourceError(`model folder ${folder} has onnx/decoder_model.onnx but no onnx/decoder_with_past_model.onnx (export with KV cache: optimum-cli export onnx --task text-generation-with-past)`);
  throw new ModelSourceError(`model folder ${folder} has no ONNX decoder (looked for onnx/model.onnx, onnx/decoder_model_merged.onnx, or onnx/decoder_model.onnx + onnx/decoder_with_past_model.onnx)`);
}

/**
 * Checks that `folder` holds a decoder-only model and returns the path of its single ONNX file.
 *
 * @throws ModelSourceError naming the folder and the first missing piece
 */
export function checkCausalLMFolder(folder: string): string {
  const layout = checkModelFolder(folder);
  if (layout.architecture !== 'decoder-only') throw new ModelSourceError(`model folder ${folder} holds an encoder-decoder model; expected a decoder-only causal LM`);
  return layout.decoder;
}

/** ONNX file sets tried, in order, when downloading a hub model of each architecture. */
const HUB_ONNX_SETS: Record<'decoder-only' | 'encoder-decoder', string[][]> = {
  'decoder-only': [['onnx/model.onnx'], ['onnx/decoder_model_merged.onnx'], ['onnx/decoder_model.onnx', 'onnx/decoder_with_past_model.onnx'], ['model.onnx'], ['decoder_model_merged.onnx']],
  'encoder-decoder': [
    ['onnx/encoder_model.onnx', 'onnx/decoder_model_merged.onnx'],
    ['onnx/encoder_model.onnx', 'onnx/decoder_model.onnx', 'onnx/decoder_with_past_model.onnx'],
    ['encoder_model.onnx', 'decoder_model_merged.onnx'],
    ['encoder_model.onnx', 'decoder_model.onnx', 'decoder_with_past_model.onnx'],
  ],
};

/**
 * Returns the local folder of a model and its layout, downloading it from the hub when `ref` is a hub id
 * (config and tokenizer files, then the first complete ONNX file set of its architecture, with any
 * `<file>_data` external-weights files).
 *
 * @param ref - local folder (absolute or relative to `cwd`) or hub id such as `gpt2` or `facebook/bart-base`
 * @throws ModelSourceError when a local folder lacks a required file (naming the folder and the file), or a
 *   hub id cannot be fetched
 */
export async function resolveModel(ref: string, options: { cwd?: string; cacheDir?: string; revision?: string } = {}): Promise<{ folder: string; layout: ModelLayout }> {
  const cwd = options.cwd ?? process.cwd();
  if (!isHubId(ref, cwd)) {
    const folder = isAbsolute(ref) ? ref : resolve(cwd, ref);
    return { folder, layout: checkModelFolder(folder) };
  }
  const folder = join(options.cacheDir ?? defaultCacheDir(), 'hub', ref.replace(/\//g, '--'));
  const endpoint = (process.env.HF_ENDPOINT ?? 'https://huggingface.co').replace(/\/$/, '');
  const revision = options.revision ?? 'main';
  const token = process.env.HF_TOKEN;
  const url = (f: string) => `${endpoint}/${ref}/resolve/${revision}/${f}`;
  mkdirSync(folder, { recursive: true });
  for (const f of [...MODEL_CONFIG_FILES, 'generation_config.json', 'special_tokens_map.json']) {
    if (existsSync(join(folder, f))) continue;
    const ok = await download(url(f), join(folder, f), token);
    if (!ok && (MODEL_CONFIG_FILES as readonly string[]).includes(f)) throw new ModelSourceError(`hub model "${ref}" has no ${f}`);
  }
  const arch = isEncoderDecoderConfig(readConfig(folder)) ? 'encoder-decoder' : 'decoder-only';
  const sets = HUB_ONNX_SETS[arch];
  if (!sets.some((set) => set.every((f) => existsSync(join(folder, f))))) {
    let found = false;
    for (const set of sets) {
      let complete = true;
      for (const f of set) {
        if (existsSync(join(folder, f))) continue;
        if (!(await download(url(f), join(folder, f), token))) {
          complete = false;
          break;
        }
        await download(url(`${f}_data`), join(folder, `${f}_data`), token);
      }
      if (complete) {
        found = true;
        break;
      }
    }
    if (!found) throw new ModelSourceError(`hub model "${ref}" has no ONNX export (looked for ${sets.map((s) => s.join(' + ')).join('; ')})`);
  }
  return { folder, layout: checkModelFolder(folder) };
}

/**
 * Returns the local folder of a decoder-only causal LM and its ONNX file, downloading it from the hub when
 * `ref` is a hub id.
 *
 * @throws ModelSourceError as {@link resolveModel}, or when the model is not decoder-only
 */
export async function resolveCausalLM(ref: string, options: { cwd?: string; cacheDir?: string; revision?: string } = {}): Promise<{ folder: string; onnxFile: string }> {
  const { folder, layout } = await resolveModel(ref, options);
  if (layout.architecture !== 'decoder-only') throw new ModelSourceError(`model ${ref} is an encoder-decoder model; expected a decoder-only causal LM`);
  return { folder, onnxFile: layout.decoder };
}
