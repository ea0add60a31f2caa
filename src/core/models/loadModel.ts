/**
 * Loading any generative model by reference without a host (relative folders against the working directory).
 */
import type { OnnxCausalLM } from './causalLM';
import { describeModel } from './describe';
import type { ModelDtype } from './modelFiles';
import type { SessionOptions } from './onnxGraph';
import { openGenerativeModel } from './registry';
import type { OnnxSeq2SeqLM } from './seq2seqLM';

/**
 * Loads a decoder-only ({@link OnnxCausalLM}) or encoder-decoder ({@link OnnxSeq2SeqLM}) model from a local
 * folder in the Hugging Face/Optimum ONNX layout or a hub id.
 *
 * @deprecated use `loadGenerativeModel(ref, locator)` (registry.ts), which also resolves `bundled:` references and relative folders against a host
 * @param options.id - name recorded in candidate origins instead of `ref`
 * @throws ModelSourceError naming the folder and the missing piece when the folder or its graphs do not match
 */
export async function loadLanguageModel(ref: string, options: { cwd?: string; id?: string; dtype?: ModelDtype } & SessionOptions = {}): Promise<OnnxCausalLM | OnnxSeq2SeqLM> {
  const { cwd, dtype, ...rest } = options;
  return openGenerativeModel(await describeModel(ref, { bundledDir: '', baseDir: cwd ?? process.cwd() }, { task: 'generation', dtype }), rest);
}

export type { GenerativeLM } from './languageModel';
