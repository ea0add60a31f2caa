/**
 * Model errors and folder layouts (re-exported from errors.ts and layout.ts), and two deprecated helpers kept for
 * callers not yet on the model registry (registry.ts: `describeModel`, `loadGenerativeModel`, …).
 */
import { describeModel, parseModelRef } from './describe';
import { ModelSourceError } from './errors';

export { ModelSourceError } from './errors';
export { checkModelFolder, isEncoderDecoderConfig, REQUIRED_FILES, type ModelLayout } from './modelFiles';

/**
 * True when `ref` would be fetched from the hub: it is not an existing path (absolute or relative to `cwd`) and
 * has the form of a hub id.
 *
 * @deprecated use `parseModelRef(ref, locator).source === 'hub'` (registry.ts)
 */
export function isHubId(ref: string, cwd = process.cwd()): boolean {
  return !ref.startsWith('bundled:') && parseModelRef(ref, { bundledDir: '', baseDir: cwd }).source === 'hub';
}

/**
 * The local folder of a decoder-only model and its ONNX decoder, downloading a hub model into the hub cache.
 *
 * @deprecated use `describeModel(ref, locator)` (registry.ts), which also takes `bundled:` references and any generative model
 * @throws ModelSourceError as `describeModel`, or when the model is not decoder-only
 */
export async function resolveCausalLM(ref: string, options: { cwd?: string } = {}): Promise<{ folder: string; onnxFile: string }> {
  const d = await describeModel(ref, { bundledDir: '', baseDir: options.cwd ?? process.cwd() });
  if (d.layout.architecture !== 'decoder-only') throw new ModelSourceError(`model ${ref} is an encoder-decoder model; expected a decoder-only causal LM`);
  return { folder: d.folder, onnxFile: d.layout.decoder };
}
