/**
 * Prompt token counts for a judge, for previews and cost estimates. API judges are counted with OpenAI's
 * BPE encodings through `gpt-tokenizer` (o200k_base for the GPT-4o/4.1/o-series families, cl100k_base for
 * GPT-3.5/GPT-4); other API models (vLLM, Ollama, …) get an o200k_base count marked approximate. A local judge
 * is counted with its own tokenizer by the caller.
 */

/** A token count and the tokenizer that produced it. */
export interface TokenCount {
  tokens: number;
  tokenizer: string;
  /** True when the tokenizer is not the judge model's own. */
  approximate: boolean;
}

/** The OpenAI encoding of a model name, or undefined when the model is not an OpenAI one. */
export function openAIEncodingOf(model: string): 'o200k_base' | 'cl100k_base' | undefined {
  const m = model.toLowerCase();
  if (/^(gpt-4o|gpt-4\.1|gpt-4\.5|gpt-5|o1|o3|o4|chatgpt-4o)/.test(m)) return 'o200k_base';
  if (/^(gpt-4|gpt-3\.5|text-embedding-3|text-embedding-ada)/.test(m)) return 'cl100k_base';
  return undefined;
}

/** Counts `text` for an API judge model. */
export async function countApiTokens(model: string, text: string): Promise<TokenCount> {
  const encoding = openAIEncodingOf(model);
  if (encoding === 'cl100k_base') {
    const { encode } = await import('gpt-tokenizer/encoding/cl100k_base');
    return { tokens: encode(text).length, tokenizer: 'cl100k_base', approximate: false };
  }
  const { encode } = await import('gpt-tokenizer/encoding/o200k_base');
  return { tokens: encode(text).length, tokenizer: 'o200k_base', approximate: encoding === undefined };
}
