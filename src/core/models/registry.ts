/**
 * The model registry: every model reference a user can write — `bundled:<name>`, a folder relative to the host's
 * base folder, an absolute folder, a Hugging Face hub id (`org/name`, `org/name@revision`) — resolves here, once,
 * to a {@link DescribedModel} (describe.ts), which every loader opens: generators and local judges (decoder-only
 * and encoder-decoder alike), perplexity, follow-up likelihood, BERTScore's encoder, sentence embedders, and
 * tokenizers (prompt previews).
 *
 * The reference as written is what outputs record (`origin.model`, judge and metric ids), followed by
 * `|dtype:<dtype>` for weights that are not fp32; {@link describedModelFiles} names the exact files (and hub commit).
 */
import { describeModel, type DescribedModel, type ModelLocator } from './describe';
import { EncoderModel } from './encoder';
import type { ModelDtype } from './modelFiles';
import { OnnxCausalLM } from './causalLM';
import { sessionOptionsOf, type SessionOptions } from './onnxGraph';
import { OnnxSeq2SeqLM } from './seq2seqLM';
import { SentenceEmbedder } from './sentenceEmbedding';
import { loadTokenizer, type ModelTokenizer } from './tokenizer';

export {
  BUNDLED_PREFIX,
  cwdLocator,
  DEFAULT_GENERATOR,
  describedModelFiles,
  describedModelId,
  describeModel,
  modelKey,
  parseModelRef,
  type DescribedModel,
  type DescribeOptions,
  type ModelLocator,
  type ParsedModelRef,
} from './describe';
export { hubSettings, type HubOptions, type HubSettings } from './hub';
export { isModelDtype, MODEL_DTYPES, type ModelDtype, type ModelLayout, type ModelTask } from './modelFiles';
export { ModelSourceError } from './errors';

/** Options of {@link loadGenerativeModel}: ONNX session options and the weight precision. */
export interface GenerativeLoadOptions extends SessionOptions {
  /** ONNX variant (default fp32): `q8` loads `…_quantized.onnx`, and so on (layout.ts). */
  dtype?: ModelDtype;
}

/** Opens a described generative model with the class its layout needs. */
export function openGenerativeModel(d: DescribedModel, options: SessionOptions & { id?: string } = {}): Promise<OnnxCausalLM | OnnxSeq2SeqLM> {
  return d.layout.architecture === 'encoder-decoder' ? OnnxSeq2SeqLM.fromDescription(d, options) : OnnxCausalLM.fromDescription(d, options);
}

/**
 * Loads a generative model — decoder-only ({@link OnnxCausalLM}) or encoder-decoder ({@link OnnxSeq2SeqLM}),
 * decided by its `config.json` — by reference: any local model can be a generator, a local judge, a perplexity
 * model or a follow-up likelihood model.
 *
 * @throws ModelSourceError naming the folder or hub id, the missing piece and what to do
 */
export async function loadGenerativeModel(ref: string, locator: ModelLocator, options: GenerativeLoadOptions = {}): Promise<OnnxCausalLM | OnnxSeq2SeqLM> {
  const { dtype, ...session } = options;
  return openGenerativeModel(await describeModel(ref, locator, { task: 'generation', dtype }), { ...sessionOptionsOf(locator.runtime), ...session });
}

/**
 * Loads an encoder (feature extraction: BERTScore's contextual embeddings) by reference.
 *
 * @throws ModelSourceError naming the folder or hub id, the missing piece and what to do
 */
export async function loadEncoder(ref: string, locator: ModelLocator, options: { dtype?: ModelDtype } = {}): Promise<EncoderModel> {
  return EncoderModel.fromDescription(await describeModel(ref, locator, { task: 'feature-extraction', dtype: options.dtype }));
}

/**
 * Loads a sentence-embedding model (semantic deduplication) by reference.
 *
 * @throws ModelSourceError naming the folder or hub id, the missing piece and what to do, or for a pooling mode other than mean
 */
export async function loadSentenceEmbedder(ref: string, locator: ModelLocator, options: { dtype?: ModelDtype } = {}): Promise<SentenceEmbedder> {
  return SentenceEmbedder.fromEncoder(await loadEncoder(ref, locator, options));
}

/**
 * Loads the tokenizer of a model by reference (only `tokenizer.json`, `tokenizer_config.json` and, when present,
 * `config.json` are read or downloaded; no ONNX file): prompt previews and token counts.
 *
 * @throws ModelSourceError naming the folder or hub id, the missing piece and what to do
 */
export async function loadModelTokenizer(ref: string, locator: ModelLocator): Promise<ModelTokenizer> {
  const d = await describeModel(ref, locator, { task: 'tokenizer' });
  return loadTokenizer(d.folder, d.config as { eos_token_id?: number | number[]; pad_token_id?: number });
}
