/**
 * A model's own chat template (the Jinja template an instruct model was trained with), read from its folder and
 * rendered with `@huggingface/jinja` exactly as transformers.js's `apply_chat_template` renders it
 * (`@huggingface/transformers` 4.3, `tokenization_utils.js`: the template's variables are `messages`,
 * `add_generation_prompt`, `tools`, `documents`, the tokenizer config's special tokens `bos_token`, `eos_token`,
 * `unk_token`, `sep_token`, `pad_token`, `cls_token`, `mask_token`, then the caller's keyword arguments, e.g.
 * Qwen3's `enable_thinking`).
 *
 * Where the template comes from, as Hugging Face writes it: `tokenizer_config.json`'s `chat_template` (a string, or a
 * list of `{name, template}` of which `default` is used), else a `chat_template.jinja` file, else
 * `chat_template.json`'s `chat_template`.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Template } from '@huggingface/jinja';
import { ModelSourceError } from './errors';

/** One turn of a conversation. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** A model's chat template, ready to render. */
export interface ModelChatTemplate {
  /** The Jinja source. */
  readonly source: string;
  /** Where it was read: `tokenizer_config.json`, `chat_template.jinja` or `chat_template.json`. */
  readonly file: string;
  /** First 12 hex digits of SHA-256 over the source: what evaluator ids record. */
  readonly hash: string;
  /**
   * The conversation as the model reads it.
   *
   * @param options.addGenerationPrompt - end with the assistant's turn opened (default true)
   * @param options.kwargs - further template variables (`enable_thinking: false` for Qwen3)
   * @throws Error from the template (`raise_exception`, an unknown filter) naming the model folder
   */
  render(messages: readonly ChatMessage[], options?: { addGenerationPrompt?: boolean; kwargs?: Record<string, unknown> }): string;
}

const SPECIAL_TOKEN_ATTRIBUTES = ['bos_token', 'eos_token', 'unk_token', 'sep_token', 'pad_token', 'cls_token', 'mask_token'];

/** A special token as tokenizer_config.json writes it: a string or `{__type: 'AddedToken', content}`. */
function tokenText(v: unknown): string | undefined {
  if (typeof v === 'string' && v) return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') return (v as { content: string }).content;
  return undefined;
}

function readJson(file: string): Record<string, unknown> {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (e) {
    throw new ModelSourceError(`${file} is not valid JSON: ${(e as Error).message}`);
  }
}

/**
 * The chat template of a model folder, or undefined when it has none (a base model: prompts are used as they are).
 *
 * @throws ModelSourceError when a template is there but cannot be read or parsed (naming the file)
 */
export function readChatTemplate(folder: string): ModelChatTemplate | undefined {
  const configFile = join(folder, 'tokenizer_config.json');
  const config = existsSync(configFile) ? readJson(configFile) : {};
  let source: string | undefined;
  let file = configFile;
  const inConfig = config.chat_template;
  if (typeof inConfig === 'string') source = inConfig;
  else if (Array.isArray(inConfig)) {
    const named = (inConfig as { name?: unknown; template?: unknown }[]).find((t) => t?.name === 'default');
    if (!named || typeof named.template !== 'string') throw new ModelSourceError(`${configFile}: chat_template lists templates but none named "default"`);
    source = named.template;
  } else if (existsSync(join(folder, 'chat_template.jinja'))) {
    file = join(folder, 'chat_template.jinja');
    source = readFileSync(file, 'utf8');
  } else if (existsSync(join(folder, 'chat_template.json'))) {
    file = join(folder, 'chat_template.json');
    const t = readJson(file).chat_template;
    if (typeof t === 'string') source = t;
  }
  if (source === undefined) return undefined;
  let template: Template;
  try {
    template = new Template(source);
  } catch (e) {
    throw new ModelSourceError(`${file}: the chat template does not parse: ${(e as Error).message}`);
  }
  const special: Record<string, string> = {};
  for (const key of SPECIAL_TOKEN_ATTRIBUTES) {
    const t = tokenText(config[key]);
    if (t !== undefined) special[key] = t;
  }
  const text = source;
  return {
    source: text,
    file,
    hash: createHash('sha256').update(text).digest('hex').slice(0, 12),
    render(messages, options = {}) {
      try {
        return template.render({
          messages: messages.map((m) => ({ ...m })),
          add_generation_prompt: options.addGenerationPrompt ?? true,
          tools: null,
          documents: null,
          ...special,
          ...(options.kwargs ?? {}),
        });
      } catch (e) {
        throw new Error(`the chat template of ${folder} (${file}) failed: ${(e as Error).message}`);
      }
    },
  };
}
