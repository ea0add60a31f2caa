/**
 * Resolving a model reference once, for every loader: `bundled:<name>`, a folder relative to the host's base
 * folder, an absolute folder, or a Hugging Face hub id (`org/name`, `org/name@revision`) becomes one
 * {@link DescribedModel} — the local folder, the ONNX files of its layout by role at the chosen precision, the
 * parsed `config.json` and `generation_config.json`, and for hub models the revision and commit.
 *
 * The reference as written is what outputs record (`origin.model`, judge and metric ids): an install path differs
 * between machines, `bundled:reflect-gpt2-tiny` does not.
 */
import type { LocalRuntimeOptions } from './ortRuntime';
import { existsSync } from 'node:fs';
import { isAbsolute, relative, resolve, join, sep } from 'node:path';
import { ModelSourceError } from './errors';
import { cachedSnapshot, downloadHubSnapshot, hubSettings, parseHubRef, type HubOptions, type HubRef } from './hub';
import { externalDataFiles, findLayout, inspectFolder, layoutFiles, OPTIONAL_FILES, readFolderConfigs, REQUIRED_FILES, type ModelDtype, type ModelLayout, type ModelTask } from './modelFiles';

/** Prefix of references to models shipped with ReflectEval (`bundled:reflect-gpt2-tiny`). */
export const BUNDLED_PREFIX = 'bundled:';

/** The generator (and local judge) used when a plan names no model: the bundled GPT-2 fixture. */
export const DEFAULT_GENERATOR = 'bundled:reflect-gpt2-tiny';

/** Where model references are looked for; a job host provides it. */
export interface ModelLocator {
  /** Folder of the bundled models: `bundled:<name>` is `<bundledDir>/<name>`. */
  bundledDir: string;
  /** Relative folders are resolved against it (a workspace folder, the CLI's working directory, a plan file's folder). */
  baseDir: string;
  /** Hub endpoint, cache, token, offline mode, download log; unset fields come from the environment (`HF_*`). */
  hub?: HubOptions;
  /** How local generative models run (threads, execution provider); see {@link LocalRuntimeOptions}. */
  runtime?: LocalRuntimeOptions;
}

/** A model reference resolved to a local folder, with everything loaders read from it. */
export interface DescribedModel {
  /** The reference as the user wrote it (what outputs record). */
  ref: string;
  source: 'bundled' | 'folder' | 'hub';
  /** Absolute local folder (for hub models, the snapshot folder in the hub cache). */
  folder: string;
  task: ModelTask;
  dtype: ModelDtype;
  /** The ONNX files by role (absolute paths). */
  layout: ModelLayout;
  /** `config.json`, parsed (empty for a tokenizer-only folder without one). */
  config: Record<string, unknown>;
  /** `generation_config.json`, parsed (empty when absent). */
  generationConfig: Record<string, unknown>;
  /** For hub models: the id, the revision asked for and the commit it resolved to, the cache, and the files this call downloaded. */
  hub?: { id: string; revision: string; commit: string; cacheDir: string; downloaded: string[] };
}

/** What is being described: the task decides the files needed; dtype the ONNX variant (default fp32). */
export interface DescribeOptions {
  task?: ModelTask;
  dtype?: ModelDtype;
}

/** Where a reference points, before anything is read: a local folder, or a hub model. */
export type ParsedModelRef = { source: 'bundled' | 'folder'; folder: string } | { source: 'hub'; hub: HubRef; folder: string };

/**
 * Where `ref` points: `bundled:<name>` → `<bundledDir>/<name>`; an absolute path → itself; a relative path that
 * exists under `baseDir`, or that cannot be a hub id (`./x`, `../x`, `a/b/c`) → `<baseDir>/<ref>`; otherwise a hub
 * id (`org/name`, `name`, `org/name@revision`), with `folder` the path a local folder of that name would have had.
 *
 * @throws ModelSourceError for a `bundled:` reference without a valid name, or when no bundled folder is known
 */
export function parseModelRef(ref: string, locator: ModelLocator): ParsedModelRef {
  if (ref.startsWith(BUNDLED_PREFIX)) {
    const name = ref.slice(BUNDLED_PREFIX.length);
    if (!/^[\w.-]+$/.test(name) || name === '.' || name === '..') throw new ModelSourceError(`"${ref}" does not name a bundled model (e.g. ${DEFAULT_GENERATOR})`);
    if (!locator.bundledDir) throw new ModelSourceError(`"${ref}" names a model bundled with ReflectEval, but this caller gave no folder of bundled models (ModelLocator.bundledDir)`);
    return { source: 'bundled', folder: join(locator.bundledDir, name) };
  }
  if (isAbsolute(ref)) return { source: 'folder', folder: ref };
  const local = resolve(locator.baseDir, ref);
  const hub = existsSync(local) ? undefined : parseHubRef(ref);
  return hub ? { source: 'hub', hub, folder: local } : { source: 'folder', folder: local };
}

function describeLocal(folder: string, ref: string, source: DescribedModel['source'], task: ModelTask, dtype: ModelDtype, where?: string, knownConfig?: Record<string, unknown>): DescribedModel {
  const { config, generationConfig, layout } = inspectFolder(folder, task, dtype, where, knownConfig);
  return { ref, source, folder, task, dtype, layout, config, generationConfig };
}

/**
 * Resolves a model reference once and describes it: local folders are checked; hub models are taken from the hub
 * cache when complete there (no request), else downloaded (only the files `task` needs at `dtype`; see hub.ts).
 *
 * @param ref - `bundled:<name>`, a folder (absolute, or relative to `locator.baseDir`), or a hub id (`org/name[@revision]`)
 * @throws ModelSourceError naming the folder or hub id, the missing file and what to do
 */
export async function describeModel(ref: string, locator: ModelLocator, options: DescribeOptions = {}): Promise<DescribedModel> {
  const task = options.task ?? 'generation';
  const dtype = options.dtype ?? 'fp32';
  const parsed = parseModelRef(ref, locator);
  if (parsed.source !== 'hub') return describeLocal(parsed.folder, ref, parsed.source, task, dtype);
  const settings = hubSettings(locator.hub);
  const hubRef = parsed.hub;
  const where = (commit: string) => `hub model "${hubRef.id}" (revision ${hubRef.revision}, commit ${commit.slice(0, 7)})`;
  const cached = cachedSnapshot(settings.cacheDir, hubRef);
  let cacheProblem: string | undefined;
  if (cached) {
    try {
      const d = describeLocal(cached.folder, ref, 'hub', task, dtype, where(cached.commit));
      return { ...d, hub: { id: hubRef.id, revision: hubRef.revision, commit: cached.commit, cacheDir: settings.cacheDir, downloaded: [] } };
    } catch (err) {
      if (!(err instanceof ModelSourceError)) throw err;
      cacheProblem = err.message;
    }
  }
  const localHint = ` (no folder ${parsed.folder} exists either)`;
  if (settings.offline && cacheProblem) {
    throw new ModelSourceError(
      `HF_HUB_OFFLINE is set and the cached copy of hub model "${hubRef.id}" in ${settings.cacheDir} is not complete (${cacheProblem}): ` +
        `download the rest once with network (unset HF_HUB_OFFLINE), or pass a local folder${localHint}`,
    );
  }
  let config: Record<string, unknown> | undefined;
  const snap = await downloadHubSnapshot(
    hubRef,
    settings,
    async ({ files, folder, where: at, fetchFile }) => {
      for (const f of REQUIRED_FILES[task]) if (!files.has(f)) throw new ModelSourceError(`${at} has no ${f}`);
      if (files.has('config.json')) await fetchFile('config.json');
      config = files.has('config.json') ? readFolderConfigs(folder, at).config : {};
      const layout = findLayout((p) => files.has(p), config, task, dtype, at);
      const onnx = layoutFiles(layout).flatMap((f) => [f, ...externalDataFiles(f, files)]);
      return [...REQUIRED_FILES[task], ...OPTIONAL_FILES[task].filter((f) => files.has(f)), ...onnx];
    },
    localHint,
  );
  const d = describeLocal(snap.folder, ref, 'hub', task, dtype, where(snap.commit), config);
  return { ...d, hub: { id: hubRef.id, revision: hubRef.revision, commit: snap.commit, cacheDir: settings.cacheDir, downloaded: snap.downloaded } };
}

/**
 * A locator for callers without a host: `bundled:` references are refused, relative folders resolve against
 * `baseDir` (default: the process's working directory).
 */
export function cwdLocator(baseDir: string = process.cwd()): ModelLocator {
  return { bundledDir: '', baseDir };
}

/**
 * A key that is equal for two references to the same model under the same hub settings (for caches of loaded
 * models): the resolved folder, or the hub endpoint, id and revision.
 *
 * @throws ModelSourceError as {@link parseModelRef}
 */
export function modelKey(ref: string, locator: ModelLocator): string {
  const p = parseModelRef(ref, locator);
  if (p.source !== 'hub') return `folder:${p.folder}`;
  const s = hubSettings(locator.hub);
  return `hub:${s.endpoint}|${s.cacheDir}|${p.hub.id}@${p.hub.revision}`;
}

/**
 * The id outputs record for a described model: the reference as written, followed by `|dtype:<dtype>` when the
 * weights are not fp32 (e.g. `Xenova/gpt2|dtype:q8`), so results of two precisions never share an id.
 */
export function describedModelId(d: Pick<DescribedModel, 'ref' | 'dtype'>): string {
  return d.dtype === 'fp32' ? d.ref : `${d.ref}|dtype:${d.dtype}`;
}

/**
 * The exact files a described model was loaded from, for signatures and manifests: the id of
 * {@link describedModelId}, the hub commit when from the hub, and the ONNX files relative to the folder, e.g.
 * `Xenova/gpt2|dtype:q8|commit:0123abc…|files:onnx/decoder_model_merged_quantized.onnx`.
 */
export function describedModelFiles(d: DescribedModel): string {
  const files = layoutFiles(d.layout).map((f) => relative(d.folder, f).split(sep).join('/'));
  return [describedModelId(d), ...(d.hub ? [`commit:${d.hub.commit}`] : []), `files:${files.join('+') || 'tokenizer'}`].join('|');
}
