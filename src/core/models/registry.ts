/**
 * The model registry: every model reference a user can write — `bundled:<name>`, a folder relative to the host's
 * base folder, an absolute folder, a Hugging Face hub id — resolves here, once, for every loader (generators,
 * local judges, perplexity, encoders, embedders, tokenizers).
 *
 * The reference as written is what outputs record (`origin.model`, judge ids): an install path differs between
 * machines, `bundled:reflect-gpt2-tiny` does not.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import type { GenerativeLM } from './languageModel';
import { loadLanguageModel } from './loadModel';
import { ModelSourceError } from './modelSource';
import type { SessionOptions } from './onnxGraph';

/** Prefix of references to models shipped with ReflectEval (`bundled:reflect-gpt2-tiny`). */
export const BUNDLED_PREFIX = 'bundled:';

/** The generator (and local judge) used when a plan names no model: the bundled GPT-2 fixture. */
export const DEFAULT_GENERATOR = 'bundled:reflect-gpt2-tiny';

/** Where model references are looked for; a job host provides it. */
export interface ModelLocator {
  /** Folder of the bundled models: `bundled:<name>` is `<bundledDir>/<name>`. */
  bundledDir: string;
  /** Relative folders are resolved against it (a workspace folder, the CLI's working directory, a plan file's folder). */
  baseDir: string;
}

/**
 * The local folder (or hub id) of a model reference and the id outputs record: `bundled:<name>` → the bundled
 * folder (id kept as written); a relative folder that exists under `baseDir` → resolved (id as written); anything
 * else (absolute folder, hub id) unchanged.
 *
 * @throws ModelSourceError for a `bundled:` reference without a valid name
 */
export function resolveModelRef(ref: string, locator: ModelLocator): { path: string; id: string } {
  if (ref.startsWith(BUNDLED_PREFIX)) {
    const name = ref.slice(BUNDLED_PREFIX.length);
    if (!/^[\w.-]+$/.test(name)) throw new ModelSourceError(`"${ref}" does not name a bundled model (e.g. ${DEFAULT_GENERATOR})`);
    return { path: join(locator.bundledDir, name), id: ref };
  }
  // A relative path that exists is a folder; `owner/name` that does not is a hub id (the loader fetches it).
  if (!isAbsolute(ref) && existsSync(resolve(locator.baseDir, ref))) return { path: resolve(locator.baseDir, ref), id: ref };
  return { path: ref, id: ref };
}

/**
 * Loads a generative model (decoder-only or encoder-decoder, decided by its `config.json`) by reference.
 *
 * @throws ModelSourceError naming the folder and the missing piece
 */
export async function loadGenerativeModel(ref: string, locator: ModelLocator, options: SessionOptions = {}): Promise<GenerativeLM> {
  const { path, id } = resolveModelRef(ref, locator);
  return loadLanguageModel(path, { ...options, id, cwd: locator.baseDir });
}
