/**
 * Building a run's generators from {@link GeneratorSpec}s, shared by the CLI and the extension (which differ in
 * where API keys come from — an environment variable, or VS Code SecretStorage — and where the bundled models
 * and the cache live).
 */
import { resolve } from 'node:path';
import type { ResponseCache } from '../cache/responseCache';
import { DEFAULT_GENERATOR, loadGenerativeModel, type ModelLocator } from '../models/registry';
import { apiCandidateGenerator, ApiGenerator, type ApiReply } from './apiGenerator';
import { findChatTemplate, loadChatTemplate } from '../templates/chatTemplate';
import { localCandidateGenerator } from './localGenerator';
import type { GeneratorHandle } from './run';
import type { GeneratorSpec } from './runConfig';

/** The local model used when a spec names none. */
export const DEFAULT_LOCAL_MODEL = DEFAULT_GENERATOR;

/** Where a run finds what its generators need. */
export interface GeneratorEnvironment {
  /** Bundled models and the base folder of relative references. */
  models: ModelLocator;
  /** Relative chat templates are resolved against it (a config file's folder, or the cwd). */
  baseDir: string;
  /** Prompt folders searched for `generation/chat.mustache`, bundled first (later ones win). */
  promptRoots: string[];
  /** The API key of an API generator, or what the user must do to provide one (the generator cannot run). */
  apiKey(spec: GeneratorSpec): Promise<{ key: string } | { missing: string }>;
  /** API reply cache (shared by the run's API generators), or undefined for none. */
  cache?: ResponseCache<ApiReply>;
  /** API generators answer only from the cache, failing a request not in it with this message (batch mode). */
  cacheOnly?: string;
}

/** A short label: `local: bundled:reflect-gpt2-tiny` or `openai-chat: gpt-4o-mini`. */
export function generatorLabel(spec: GeneratorSpec): string {
  return `${spec.backend}: ${spec.model ?? DEFAULT_LOCAL_MODEL}`;
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
        const model = await loadGenerativeModel(spec.model ?? DEFAULT_LOCAL_MODEL, env.models);
        // An instruct model (its folder has a chat template) reads the chat template's messages, unless "chat": false.
        const chat =
          spec.chat !== false && model.tokenizer.chatTemplate
            ? { template: spec.chatTemplate ? loadChatTemplate(resolve(env.baseDir, spec.chatTemplate)) : findChatTemplate(...env.promptRoots), ...(spec.templateArgs ? { templateArgs: spec.templateArgs } : {}) }
            : undefined;
        if (spec.chat === true && !chat) {
          await model.dispose();
          throw new Error(`the local generator ${spec.model ?? DEFAULT_LOCAL_MODEL} has no chat template (tokenizer_config.json chat_template, chat_template.jinja): generate with "chat": false`);
        }
        return localCandidateGenerator(model, { inputSpecialTokens: spec.inputSpecialTokens, ...(chat ? { chat } : {}) });
      }
      const answer = await env.apiKey(spec);
      if ('missing' in answer) throw new Error(`no API key for the generator ${spec.model} at ${spec.baseURL}: ${answer.missing}`);
      return apiCandidateGenerator(createApiGenerator(spec, env, answer.key));
    },
  };
}

/**
 * The {@link ApiGenerator} an API generator spec describes (its chat template read from the environment's prompt
 * folders or the spec's file), with the environment's cache.
 *
 * @throws PromptTemplateError for a bad chat template
 */
export function createApiGenerator(spec: GeneratorSpec, env: GeneratorEnvironment, apiKey: string): ApiGenerator {
  const protocol = spec.backend === 'openai-chat' ? 'chat' : 'completions';
  const chatTemplate = protocol === 'chat' ? (spec.chatTemplate ? loadChatTemplate(resolve(env.baseDir, spec.chatTemplate)) : findChatTemplate(...env.promptRoots)) : undefined;
  return new ApiGenerator({
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
    ...(env.cacheOnly ? { cacheOnly: env.cacheOnly } : {}),
  });
}
