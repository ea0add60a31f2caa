/**
 * Resolving a model reference — a local folder in the Hugging Face / Optimum ONNX layout, or a Hugging Face
 * hub id — to a local folder.
 *
 * Hub ids are downloaded once into a cache folder (online users only; nothing here downloads when the
 * reference is a local folder). Files are fetched from `${HF_ENDPOINT:-https://huggingface.co}/<id>/resolve/<revision>/<file>`.
 */
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';

/** Files a decoder-only model needs, besides one of the ONNX layouts. */
export const CAUSAL_LM_CONFIG_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json'] as const;

/** ONNX files looked for, in order of preference, for a decoder-only model. */
export const CAUSAL_LM_ONNX_FILES = ['onnx/model.onnx', 'onnx/decoder_model_merged.onnx', 'model.onnx', 'decoder_model_merged.onnx'] as const;

/** A model folder lacks a file, or a hub download failed. Names the folder or id and what is missing. */
export class ModelSourceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ModelSourceError';
  }
}

/** True when `ref` looks like a hub id (`owner/name` or `name`) and is not an existing path. */
export function isHubId(ref: string, cwd = process.cwd()): boolean {
  if (existsSync(isAbsolute(ref) ? ref : resolve(cwd, ref))) return false;
  return /^[A-Za-z0-9][\w.-]*(\/[\w.-]+)?$/.test(ref) && !ref.startsWith('.');
}

/** Default cache folder for hub downloads (`$REFLECT_EVAL_CACHE` or `~/.cache/reflect-eval`). */
export function defaultCacheDir(): string {
  return process.env.REFLECT_EVAL_CACHE ?? join(homedir(), '.cache', 'reflect-eval');
}

/** Downloads `url` to `dest` (via `dest.part`); false on HTTP 404. */
export async function download(url: string, dest: string, token?: string): Promise<boolean> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  if (res.status === 404) return false;
  if (!res.ok) throw new ModelSourceError(`downloading ${url} failed: HTTP ${res.status}`);
  const tmp = `${dest}.part`;
  writeFileSync(tmp, Buffer.from(await res.arrayBuffer()));
  renameSync(tmp, dest);
  return true;
}

/**
 * Returns the local folder of a causal LM, downloading it from the hub when `ref` is a hub id.
 *
 * @param ref - local folder (absolute or relative to `cwd`) or hub id such as `gpt2`
 * @throws ModelSourceError when a local folder lacks a required file (naming the folder and the file), or a
 *   hub id cannot be fetched
 */
export async function resolveCausalLM(ref: string, options: { cwd?: string; cacheDir?: string; revision?: string } = {}): Promise<{ folder: string; onnxFile: string }> {
  const cwd = options.cwd ?? process.cwd();
  if (!isHubId(ref, cwd)) {
    const folder = isAbsolute(ref) ? ref : resolve(cwd, ref);
    if (!statSync(folder).isDirectory()) throw new ModelSourceError(`model "${ref}" is a file; expected a folder in the Hugging Face/Optimum ONNX layout`);
    return { folder, onnxFile: checkCausalLMFolder(folder) };
  }
  const folder = join(options.cacheDir ?? defaultCacheDir(), 'hub', ref.replace(/\//g, '--'));
  const endpoint = (process.env.HF_ENDPOINT ?? 'https://huggingface.co').replace(/\/$/, '');
  const revision = options.revision ?? 'main';
  const token = process.env.HF_TOKEN;
  mkdirSync(join(folder, 'onnx'), { recursive: true });
  for (const f of [...CAUSAL_LM_CONFIG_FILES, 'generation_config.json', 'special_tokens_map.json']) {
    if (existsSync(join(folder, f))) continue;
    const ok = await download(`${endpoint}/${ref}/resolve/${revision}/${f}`, join(folder, f), token);
    if (!ok && (CAUSAL_LM_CONFIG_FILES as readonly string[]).includes(f)) throw new ModelSourceError(`hub model "${ref}" has no ${f}`);
  }
  if (!CAUSAL_LM_ONNX_FILES.some((f) => existsSync(join(folder, f)))) {
    let found = false;
    for (const f of CAUSAL_LM_ONNX_FILES) {
      if (await download(`${endpoint}/${ref}/resolve/${revision}/${f}`, join(folder, f), token)) {
        found = true;
        break;
      }
    }
    if (!found) throw new ModelSourceError(`hub model "${ref}" has no ONNX export (looked for ${CAUSAL_LM_ONNX_FILES.join(', ')})`);
  }
  return { folder, onnxFile: checkCausalLMFolder(folder) };
}

/**
 * Checks that `folder` holds a decoder-only model and returns the path of its ONNX file.
 *
 * @throws ModelSourceError naming the folder and the first missing piece
 */
export function checkCausalLMFolder(folder: string): string {
  for (const f of CAUSAL_LM_CONFIG_FILES) {
    if (!existsSync(join(folder, f))) throw new ModelSourceError(`model folder ${folder} has no ${f}`);
  }
  const onnx = CAUSAL_LM_ONNX_FILES.find((f) => existsSync(join(folder, f)));
  if (!onnx) throw new ModelSourceError(`model folder ${folder} has no ONNX decoder (looked for ${CAUSAL_LM_ONNX_FILES.join(', ')})`);
  return join(folder, onnx);
}
