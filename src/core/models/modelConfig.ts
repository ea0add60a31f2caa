/**
 * Shapes and special token ids read from a model folder's `config.json` and `generation_config.json`
 * (Hugging Face names; GPT-2 and BART spellings both accepted).
 */
import type { SpecialTokens } from './languageModel';
import { ModelSourceError } from './errors';

/** Shapes read from `config.json`. */
export interface CausalLMConfig {
  modelType: string;
  numLayers: number;
  /** Key/value heads (equals attention heads unless the model uses grouped-query attention). */
  numKeyValueHeads: number;
  headDim: number;
  vocabSize: number;
  /** Longest sequence (prompt + generated) the position embeddings allow. */
  maxPositions: number;
}

/** Shapes of an encoder-decoder model, read from `config.json` (BART/T5 spellings). */
export interface Seq2SeqConfig {
  modelType: string;
  encoderLayers: number;
  decoderLayers: number;
  decoderHeads: number;
  encoderHeads: number;
  /** Per-head width of the decoder's self- and cross-attention keys and values. */
  headDim: number;
  vocabSize: number;
  /** Longest encoder input, and longest decoder sequence (start token + generated). */
  maxPositions: number;
}

function num(config: Record<string, unknown>, keys: string[], folder: string): number {
  for (const k of keys) if (typeof config[k] === 'number') return config[k] as number;
  throw new ModelSourceError(`model folder ${folder}: config.json has none of ${keys.join(', ')}`);
}

/** Reads the shapes the decoder needs from a `config.json` object. */
export function readCausalLMConfig(config: Record<string, unknown>, folder: string): CausalLMConfig {
  const numLayers = num(config, ['n_layer', 'num_hidden_layers', 'num_layers'], folder);
  const numHeads = num(config, ['n_head', 'num_attention_heads'], folder);
  const hidden = num(config, ['n_embd', 'hidden_size', 'd_model'], folder);
  const numKeyValueHeads = typeof config.num_key_value_heads === 'number' ? config.num_key_value_heads : numHeads;
  const headDim = typeof config.head_dim === 'number' ? config.head_dim : hidden / numHeads;
  return {
    modelType: String(config.model_type ?? 'unknown'),
    numLayers,
    numKeyValueHeads,
    headDim,
    vocabSize: num(config, ['vocab_size'], folder),
    maxPositions: num(config, ['n_positions', 'max_position_embeddings', 'n_ctx'], folder),
  };
}

/** Reads the shapes of an encoder-decoder model from a `config.json` object. */
export function readSeq2SeqConfig(config: Record<string, unknown>, folder: string): Seq2SeqConfig {
  const decoderLayers = num(config, ['decoder_layers', 'num_decoder_layers', 'num_layers'], folder);
  const encoderLayers = num(config, ['encoder_layers', 'num_layers', 'decoder_layers'], folder);
  const decoderHeads = num(config, ['decoder_attention_heads', 'num_heads', 'num_attention_heads'], folder);
  const encoderHeads = num(config, ['encoder_attention_heads', 'num_heads', 'num_attention_heads'], folder);
  const dModel = num(config, ['d_model', 'hidden_size'], folder);
  return {
    modelType: String(config.model_type ?? 'unknown'),
    encoderLayers,
    decoderLayers,
    decoderHeads,
    encoderHeads,
    headDim: typeof config.d_kv === 'number' ? config.d_kv : dModel / decoderHeads,
    vocabSize: num(config, ['vocab_size'], folder),
    maxPositions: typeof config.max_position_embeddings === 'number' ? config.max_position_embeddings : typeof config.n_positions === 'number' ? config.n_positions : 1 << 30,
  };
}

function ids(v: unknown): number[] {
  if (typeof v === 'number') return [v];
  if (Array.isArray(v)) return v.filter((x): x is number => typeof x === 'number');
  return [];
}

function id(v: unknown): number | null {
  return typeof v === 'number' ? v : null;
}

/**
 * Special tokens as Hugging Face `generate` finds them: `generation_config.json` first, then `config.json`;
 * EOS falls back to the tokenizer's, padding to the EOS id (as HF warns and does for GPT-2).
 *
 * @param tokenizerIds - the tokenizer's own eos/pad ids, used when neither config names them
 */
export function readSpecialTokens(
  config: Record<string, unknown>,
  generation: Record<string, unknown>,
  architecture: 'decoder-only' | 'encoder-decoder',
  tokenizerIds: { eos?: number | null; pad?: number | null } = {},
): SpecialTokens {
  const pick = (key: string) => (generation[key] !== undefined && generation[key] !== null ? generation[key] : config[key]);
  let eos = ids(pick('eos_token_id'));
  if (eos.length === 0 && typeof tokenizerIds.eos === 'number') eos = [tokenizerIds.eos];
  const pad = id(pick('pad_token_id')) ?? (typeof tokenizerIds.pad === 'number' ? tokenizerIds.pad : (eos[0] ?? 0));
  const encDec = architecture === 'encoder-decoder';
  return {
    eosTokenIds: eos,
    padTokenId: pad,
    decoderStartTokenId: encDec ? (id(pick('decoder_start_token_id')) ?? id(pick('bos_token_id')) ?? pad) : null,
    forcedBosTokenId: encDec ? id(pick('forced_bos_token_id')) : null,
    forcedEosTokenId: id(pick('forced_eos_token_id')),
  };
}
