/**
 * Building a run's generators from {@link GeneratorSpec}s, shared by the CLI and the extension (which differ in
 * where API keys come from — an environment variable, or VS Code SecretStorage — and where the bundled models
 * and the cache live).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { BUNDLED_MODEL_ID } from '../judges/createJudge';
import { ResponseCache } from '../judges/cache';
import type { GenerativeLM } from '../models/languageModel';
import { loadLanguageModel } from '../models/loadModel';
import { ModelSourceError } from '../models/modelSource';
import { apiCandidateGenerator, ApiGenerator, type ApiReply } from './apiGenerator';
import { findChatTemplate, loadChatTemplate } from './chatTemplate';
import { localCandidateGenerator } from './localGenerator';
import type { GeneratorHandle } from './run';
import type { GeneratorSpec } from './runConfig';

/** The local model used when a spec names none. */
export const DEFAULT_LOCAL_MODEL = BUNDLED_MODEL_ID;

/** Prefix of references to models shipped with ReflectEval (`bundled:reflect-gpt2-tiny`). */
export const BUNDLED_PREFIX = 'bundled:';

/** Where a run finds what its generators need. */
export interface GeneratorEnvironment {
  /** Folder of the bundled models: `bundled:<name>` is `<bundledModels>/<name>`. */
  bundledModels: string;
  /** Relative model folders and chat templates are resolved against it (a config file's folder, or the cwd). */
  baseDir: string;
  /** Prompt folders searched for `generation/chat.mustache`, bundled first (later ones win). */
  promptRoots: string[];
  /** The API key of an API generator (undefined: the generator cannot run). */
  apiKey(spec: GeneratorSpec): Promise<string | undefined>;
  /** Where to explain how to provide a key, e.g. `set REFLECT_EVAL_API_KEY`. */
  apiKeyHint(spec: GeneratorSpec): string;
  /** API reply cache (shared by the run's API generators), or undefined for none. */
  cache?: ResponseCache<ApiReply>;
}

/** A short label: `local: bundled:reflect-gpt2-tiny` or `openai-chat: gpt-4o-mini`. */
export function generatorLabel(spec: GeneratorSpec): string {
  return `${spec.backend}: ${spec.model ?? DEFAULT_LOCAL_MODEL}`;
}

/**
 * The folder and recorded id of a local model reference: `bundled:<name>` → the bundled folder (id kept as
 * written, since install paths differ between machines); a relative folder → resolved against `baseDir` (id as
 * written); anything else (absolute folder, hub id) unchanged.
 *
 * @throws ModelSourceError for an empty bundled name
 */
export function resolveLocalModel(ref: string, env: Pick<GeneratorEnvironment, 'bundledModels' | 'baseDir'>): { path: string; id: string } {
  if (ref.startsWith(BUNDLED_PREFIX)) {
    const name = ref.slice(BUNDLED_PREFIX.length);
    if (!/^[\w.-]+$/.test(name)) throw new ModelSourceError(`"${ref}" does not name a bundled model (e.g. ${DEFAULT_LOCAL_MODEL})`);
    return { path: join(env.bundledModels, name), id: ref };
  }
  // A relative path that exists is a folder; `owner/name` that does not is a hub id (the loader fetches it).
  if (!isAbsolute(ref) && existsSync(resolve(env.baseDir, ref))) return { path: resolve(env.baseDir, ref), id: ref };
  return { path: ref, id: ref };
}

/**
 * Loads a local model by reference (`bundled:<name>`, a folder relative to `baseDir` or absolute, a hub id).
 *
 * @throws ModelSourceError naming the folder and the missing piece
 */
export async function loadLocalModel(ref: string, env: Pick<GeneratorEnvironment, 'bundledModels' | 'baseDir'>): Promise<GenerativeLM> {
  const { path, id } = resolveLocalModel(ref, env);
  return loadLanguageModel(path, { id, cwd: env.baseDir });
}

/**
 * A handle that loads the generator a spec describes when the run reaches it.
 *
 * @throws (from `open`) ModelSourceError for a model folder that lacks a file, Error for an API generator without
 *   a key, PromptTemplateError for a bad chat template
 */
export function generatorHandle(spec: GeneratorSpec, env: GeneratorEnvironment): GeneratorHandle {
  return {
    label: generatorLabel(spec),
    async open() {
      if (spec.backend === 'local') {
        return localCandidateGenerator(await loadLocalModel(spec.model ?? DEFAULT_LOCAL_MODEL, env), { inputSpecialTokens: spec.inputSpecialTokens });
      }
      const apiKey = await env.apiKey(spec);
      if (!apiKey) throw new Error(`no API key for the generator ${spec.model} at ${spec.baseURL}: ${env.apiKeyHint(spec)}`);
      const protocol = spec.backend === 'openai-chat' ? 'chat' : 'completions';
      const chatTemplate = protocol === 'chat' ? (spec.chatTemplate ? loadChatTemplate(resolve(env.baseDir, spec.chatTemplate)) : findChatTemplate(...env.promptRoots)) : undefined;
      const api = new ApiGenerator({
        protocol,
        baseURL: spec.baseURL as string,
        model: spec.model as string,
        apiKey,
        headers: spec.headers,
        maxRetries: spec.maxRetries,
        timeoutMs: spec.timeoutMs,
        stop: spec.stop,
        chatTemplate,
        cache: env.cache,
      });
      return apiCandidateGenerator(api);
    },
  };
}
