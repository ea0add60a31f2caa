/**
 * Loading the repository's fixture models in tests and benchmarks the way a program does: through the model registry
 * (src/core/models/registry.ts) with a locator whose bundled folder is `fixtures/models` and whose base folder is
 * the repository, so `bundled:<name>`, a folder relative to the repository and an absolute folder all work. The typed
 * loaders say which architecture a test expects and fail naming the folder when it is the other one.
 */
import { join, resolve } from 'node:path';
import { OnnxCausalLM } from '../../src/core/models/causalLM';
import type { ModelLocator } from '../../src/core/models/describe';
import { loadGenerativeModel, type GenerativeLoadOptions } from '../../src/core/models/registry';
import { OnnxSeq2SeqLM } from '../../src/core/models/seq2seqLM';

const root = resolve(__dirname, '../..');

/** The locator of the fixtures: `bundled:<name>` is `fixtures/models/<name>`, relative folders are read against the repository. */
export const fixtureLocator: ModelLocator = { bundledDir: join(root, 'fixtures', 'models'), baseDir: root };

/** A decoder-only model by reference (a fixture folder, `bundled:<name>`). @throws Error when it is encoder-decoder */
export async function loadCausalLM(ref: string, options: GenerativeLoadOptions = {}): Promise<OnnxCausalLM> {
  const model = await loadGenerativeModel(ref, fixtureLocator, options);
  if (model instanceof OnnxCausalLM) return model;
  await model.dispose();
  throw new Error(`${ref} is an encoder-decoder model; this test expects a decoder-only one`);
}

/** An encoder-decoder model by reference. @throws Error when it is decoder-only */
export async function loadSeq2SeqLM(ref: string, options: GenerativeLoadOptions = {}): Promise<OnnxSeq2SeqLM> {
  const model = await loadGenerativeModel(ref, fixtureLocator, options);
  if (model instanceof OnnxSeq2SeqLM) return model;
  await model.dispose();
  throw new Error(`${ref} is a decoder-only model; this test expects an encoder-decoder one`);
}
