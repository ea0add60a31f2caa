/**
 * Loading any supported model by reference: the folder's `config.json` decides the family.
 */
import { OnnxCausalLM } from './causalLM';
import type { GenerativeLM } from './languageModel';
import { resolveModel } from './modelSource';
import type { SessionOptions } from './onnxGraph';
import { OnnxSeq2SeqLM } from './seq2seqLM';

/**
 * Loads a decoder-only ({@link OnnxCausalLM}) or encoder-decoder ({@link OnnxSeq2SeqLM}) model from a local
 * folder in the Hugging Face/Optimum ONNX layout or a hub id.
 *
 * @param options.id - name recorded in candidate origins instead of `ref`
 * @throws ModelSourceError naming the folder and the missing piece when the folder or its graphs do not match
 */
export async function loadLanguageModel(ref: string, options: { cwd?: string; id?: string } & SessionOptions = {}): Promise<OnnxCausalLM | OnnxSeq2SeqLM> {
  const { folder, layout } = await resolveModel(ref, { cwd: options.cwd });
  const opts = { ...options, id: options.id ?? ref, cwd: undefined };
  return layout.architecture === 'encoder-decoder' ? OnnxSeq2SeqLM.load(folder, opts) : OnnxCausalLM.load(folder, opts);
}

export type { GenerativeLM } from './languageModel';
