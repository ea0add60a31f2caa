/**
 * Sentence embeddings as sentence-transformers computes them for models such as
 * `sentence-transformers/all-mpnet-base-v2` (the first study §4.2.1): the text is stripped, lower-cased when
 * `sentence_bert_config.json` says `do_lower_case`, tokenized with special tokens and truncated to its
 * `max_seq_length`; the last hidden state is mean-pooled over the attention mask (special tokens included, as in
 * sentence-transformers' `Pooling(pooling_mode_mean_tokens=True)`), then L2-normalised (`Normalize`: x / max(‖x‖, 1e-12)).
 *
 * A folder with `modules.json` is followed: its Pooling module must be mean pooling (anything else is refused) and
 * normalisation happens only when it lists a Normalize module. Without `modules.json`: mean pooling and L2
 * normalisation.
 */
import { EncoderModel, pythonStrip } from './encoder';
import { ModelSourceError } from './errors';

/** How embeddings are made, for signatures. */
export interface SentenceEmbeddingSpec {
  pooling: 'mean';
  normalize: boolean;
  maxSeqLength: number;
  lowerCase: boolean;
}

/** A sentence-embedding model over an ONNX encoder. */
export class SentenceEmbedder {
  private constructor(
    readonly encoder: EncoderModel,
    readonly spec: SentenceEmbeddingSpec,
  ) {}

  /** The encoder's reference (`EncoderModel.ref`): the model reference as given, or the `id` the encoder was opened with. */
  get ref(): string {
    return this.encoder.ref;
  }

  /**
   * A sentence embedder over a loaded encoder, configured by its sentence-transformers files (`modules.json`,
   * `1_Pooling/config.json`, `sentence_bert_config.json`). Disposes the encoder when it refuses it.
   *
   * @throws ModelSourceError for a pooling mode other than mean
   */
  static async fromEncoder(encoder: EncoderModel): Promise<SentenceEmbedder> {
    const st = encoder.sentenceTransformers;
    const pooling = st.pooling;
    if (pooling) {
      const modes = Object.entries(pooling).filter(([k, v]) => k.startsWith('pooling_mode_') && v === true).map(([k]) => k);
      if (modes.length !== 1 || modes[0] !== 'pooling_mode_mean_tokens') {
        await encoder.dispose();
        throw new ModelSourceError(`model ${encoder.ref}: 1_Pooling/config.json asks for ${modes.join(' + ') || 'no pooling'}; ReflectEval implements mean pooling (pooling_mode_mean_tokens) only`);
      }
    }
    const modules = st.modules as { type?: string }[] | undefined;
    const normalize = modules ? modules.some((m) => typeof m.type === 'string' && m.type.endsWith('.Normalize')) : true;
    const maxSeqLength = Math.min(st.maxSeqLength ?? Infinity, encoder.modelMaxLength);
    return new SentenceEmbedder(encoder, { pooling: 'mean', normalize, maxSeqLength, lowerCase: st.doLowerCase ?? false });
  }

  private prepare(text: string): string {
    const s = pythonStrip(text);
    return this.spec.lowerCase ? s.toLowerCase() : s;
  }

  /**
   * One embedding per text (float64 values of the float32 model output), in order.
   *
   * @param options.batchSize - texts per forward pass (default 32)
   */
  async embed(texts: readonly string[], options: { batchSize?: number; signal?: AbortSignal } = {}): Promise<Float64Array[]> {
    const ids = texts.map((t) => this.encoder.encode(this.prepare(t), this.spec.maxSeqLength));
    const states = await this.encoder.hiddenStates(ids, this.encoder.config.numLayers, { batchSize: options.batchSize ?? 32, signal: options.signal });
    return states.map(({ data, length, hiddenSize: d }) => {
      const v = new Float64Array(d);
      for (let t = 0; t < length; t++) for (let k = 0; k < d; k++) v[k] += data[t * d + k];
      for (let k = 0; k < d; k++) v[k] /= length;
      if (this.spec.normalize) {
        let n = 0;
        for (let k = 0; k < d; k++) n += v[k] * v[k];
        n = Math.max(Math.sqrt(n), 1e-12);
        for (let k = 0; k < d; k++) v[k] /= n;
      }
      return v;
    });
  }

  /** Tokens of `text` under the model's tokenizer, without special tokens and without truncation. */
  countTokens(text: string): number {
    return this.encoder.tokenize(text).length;
  }

  async dispose(): Promise<void> {
    await this.encoder.dispose();
  }
}
