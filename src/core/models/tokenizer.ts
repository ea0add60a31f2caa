/**
 * Tokenizers through `@huggingface/transformers` (`AutoTokenizer`), loaded from a local model folder.
 */
import { resolve } from 'node:path';
import { readChatTemplate, type ModelChatTemplate } from './modelChatTemplate';

/** The subset of a tokenizer the input builder needs. Token ids are non-negative integers. */
export interface TextTokenizer {
  /** Token ids of `text`, with no special tokens added. */
  encode(text: string): number[];
  /** Text of `ids`, special tokens skipped. */
  decode(ids: number[]): string;
}

/** A loaded tokenizer with the ids the decoder needs. */
export interface ModelTokenizer extends TextTokenizer {
  /** End-of-sequence token id(s). */
  eosTokenIds: number[];
  /** Padding id used for left padding (the pad token, else the first EOS id). */
  padTokenId: number;
  /**
   * Token ids of `text` with the tokenizer's special tokens added, as `tokenizer(text)` does in Python (BART:
   * `<s> … </s>`; GPT-2: none). Encoder inputs of encoder-decoder models are encoded this way.
   */
  encodeWithSpecialTokens(text: string): number[];
  /**
   * The model's chat template (instruct models: Llama-3.x-Instruct, Qwen3, Gemma-3-it…), read from the folder; absent
   * for a base model. Encode what it renders with {@link encode}: the template writes the special tokens itself (as
   * transformers.js's `apply_chat_template` tokenizes with `add_special_tokens: false`).
   */
  chatTemplate?: ModelChatTemplate;
}

/**
 * Loads the tokenizer of a local model folder (`tokenizer.json` + `tokenizer_config.json`) without network.
 *
 * @param folder - model folder; made absolute so transformers.js treats it as a path, not a hub id
 * @param config - the model's `config.json`, used for `eos_token_id` when the tokenizer has none
 */
export async function loadTokenizer(folder: string, config: { eos_token_id?: number | number[]; pad_token_id?: number } = {}): Promise<ModelTokenizer> {
  const { AutoTokenizer } = await import('@huggingface/transformers');
  const tok = await AutoTokenizer.from_pretrained(resolve(folder), { local_files_only: true });
  const fromConfig = config.eos_token_id === undefined ? [] : Array.isArray(config.eos_token_id) ? config.eos_token_id : [config.eos_token_id];
  const eos = fromConfig.length > 0 ? fromConfig : tok.eos_token_id !== undefined && tok.eos_token_id !== null ? [Number(tok.eos_token_id)] : [];
  const pad = config.pad_token_id ?? (tok.pad_token_id !== undefined && tok.pad_token_id !== null ? Number(tok.pad_token_id) : eos[0] ?? 0);
  const chatTemplate = readChatTemplate(resolve(folder));
  return {
    ...(chatTemplate ? { chatTemplate } : {}),
    encode: (text: string) => tok.encode(text, { add_special_tokens: false }).map(Number),
    encodeWithSpecialTokens: (text: string) => tok.encode(text, { add_special_tokens: true }).map(Number),
    // An empty sequence (a model that ends at once) is the empty text; transformers.js throws on it.
    decode: (ids: number[]) => (ids.length === 0 ? '' : tok.decode(ids, { skip_special_tokens: true })),
    eosTokenIds: eos,
    padTokenId: pad,
  };
}
