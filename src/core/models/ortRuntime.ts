/**
 * Loading onnxruntime-node, the native runtime behind every local model (generation, local judges, perplexity,
 * neural metrics, dedup embeddings). Each VSIX carries the binaries of one platform (scripts/package.mjs); on a
 * platform onnxruntime-node ships none for (e.g. an Intel Mac, darwin-x64, in onnxruntime-node 1.30) loading it
 * fails, and everything that does not run a local model (API judges and generators, metrics, statistics, import,
 * labelling) must still work. So onnxruntime-node is required only on first use, and a failure becomes a
 * {@link LocalRuntimeUnavailableError} that says what is missing and what still works.
 */
import type * as ortCommon from 'onnxruntime-common';

/** The onnxruntime-node module's type. */
export type OrtModule = typeof import('onnxruntime-node');

/**
 * The platforms (`${process.platform}-${process.arch}`, also `vsce package --target` names) onnxruntime-node 1.30
 * ships native binaries for (its `bin/napi-v6/<platform>/<arch>/` folders).
 */
export const ORT_BINARY_TARGETS = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'win32-x64', 'win32-arm64'] as const;

/** Local models cannot run here: onnxruntime-node has no native binaries for this platform, or they failed to load. */
export class LocalRuntimeUnavailableError extends Error {
  constructor(
    /** `${process.platform}-${process.arch}` of this machine. */
    readonly platform: string,
    /** The loader's own first message line, kept for bug reports. */
    readonly cause0: string,
  ) {
    super(
      `local models cannot run on ${platform}: onnxruntime-node's native binaries for this platform could not be loaded (${cause0}). ` +
        `Local generation, local judges, perplexity and neural metrics need them; onnxruntime-node ships binaries for ${ORT_BINARY_TARGETS.join(', ')}` +
        ` — install the ReflectEval build for your platform. API judges and generators (openai-chat, openai-completions) and everything else still work.`,
    );
    this.name = 'LocalRuntimeUnavailableError';
  }
}

function thisPlatform(): string {
  return `${process.platform}-${process.arch}`;
}

/** True for the errors a missing or unloadable native binary gives (not for a bug inside onnxruntime-node's JS). */
function isBinaryLoadFailure(e: unknown): boolean {
  const err = e as NodeJS.ErrnoException;
  const msg = String(err?.message ?? '');
  return (
    err?.code === 'MODULE_NOT_FOUND' ||
    err?.code === 'ERR_MODULE_NOT_FOUND' ||
    err?.code === 'ERR_DLOPEN_FAILED' ||
    /onnxruntime_binding\.node|libonnxruntime|onnxruntime\.dll|cannot open shared object|image not found|Library not loaded/i.test(msg)
  );
}

function unavailable(e: unknown): LocalRuntimeUnavailableError {
  return new LocalRuntimeUnavailableError(thisPlatform(), String((e as Error)?.message ?? e).split('\n')[0]!);
}

let ortModule: OrtModule | undefined;

/**
 * The onnxruntime-node module, imported once on first use.
 *
 * @throws LocalRuntimeUnavailableError when its native binaries are missing for this platform or fail to load
 */
export async function ortRuntime(): Promise<OrtModule> {
  if (ortModule) return ortModule;
  try {
    ortModule = await import('onnxruntime-node');
  } catch (e) {
    if (isBinaryLoadFailure(e)) throw unavailable(e);
    throw e;
  }
  return ortModule;
}

/**
 * What transformers.js (`@huggingface/transformers`, which requires onnxruntime-node when it loads) gets in
 * ReflectEval's bundles (scripts/build.mjs rewrites its one `require("onnxruntime-node")` to call this): the real
 * module where it loads, otherwise onnxruntime-common (tensors, env: all that tokenizers need) whose
 * `InferenceSession.create` rejects with {@link LocalRuntimeUnavailableError}. So tokenizers work on every
 * platform and only running a model says why it cannot.
 *
 * @param requireFn transformers.js's own `require` (resolution starts from its bundle)
 */
export function requireOrtForTransformers(requireFn: (id: string) => unknown): unknown {
  try {
    return requireFn('onnxruntime-node');
  } catch (e) {
    if (!isBinaryLoadFailure(e)) throw e;
    const err = unavailable(e);
    const common = requireFn('onnxruntime-common') as typeof ortCommon;
    return {
      ...common,
      InferenceSession: {
        create: () => Promise.reject(err),
      },
    };
  }
}

/**
 * onnxruntime-node execution providers a user can ask for. `cpu` works everywhere; `cuda` needs onnxruntime-node's
 * CUDA binaries (linux-x64, downloaded at install unless `.npmrc` skips it, as ReflectEval's does), `dml` Windows
 * (DirectML), `coreml` macOS, `webgpu` where onnxruntime-node was built with it. A provider the installed
 * binaries lack fails when the model is opened, with onnxruntime's own message.
 */
export const EXECUTION_PROVIDERS = ['cpu', 'cuda', 'dml', 'coreml', 'webgpu'] as const;
export type ExecutionProvider = (typeof EXECUTION_PROVIDERS)[number];

/**
 * How local models run (plans' `runtime` field, CLI `--threads` / `--execution-provider` / `--spinning`, settings
 * `reflectEval.generator.threads` / `.executionProvider` / `.spinning`). None changes what a model computes beyond
 * float rounding, so none is part of an evaluator id.
 */
export interface LocalRuntimeOptions {
  /** onnxruntime's `intraOpNumThreads`: threads inside one operator; unset or 0: onnxruntime's default (one per physical core). */
  threads?: number;
  /** Execution provider (default `cpu`); any other is tried first, with `cpu` as onnxruntime's fallback for unsupported nodes. */
  executionProvider?: ExecutionProvider;
  /**
   * Let onnxruntime's threads spin-wait for work (its own default, and transformers.js's) instead of sleeping (default
   * false): faster on an otherwise idle machine at real model sizes, slower where other work needs the cores
   * (docs/generation.md, Speed).
   */
  spinning?: boolean;
}

/**
 * Checks a `runtime` value (a plan field or settings).
 *
 * @param fail - reports `(field, message)`; `at` prefixes the field (e.g. `runtime`)
 * @throws whatever `fail` throws, naming `runtime.threads`, `runtime.executionProvider` or `runtime.spinning`
 */
export function validateLocalRuntime(value: unknown, at: string, fail: (field: string, message: string) => never): LocalRuntimeOptions {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(at, 'must be an object like {"threads": 2, "executionProvider": "cpu", "spinning": false}');
  const v = value as Record<string, unknown>;
  for (const k of Object.keys(v)) if (k !== 'threads' && k !== 'executionProvider' && k !== 'spinning') fail(`${at}.${k}`, 'unknown field (known: threads, executionProvider, spinning)');
  if (v.threads !== undefined && !(Number.isInteger(v.threads) && (v.threads as number) >= 0 && (v.threads as number) <= 256)) fail(`${at}.threads`, 'must be an integer from 0 (onnxruntime default) to 256');
  if (v.executionProvider !== undefined && !EXECUTION_PROVIDERS.includes(v.executionProvider as ExecutionProvider)) fail(`${at}.executionProvider`, `must be one of ${EXECUTION_PROVIDERS.join(', ')}`);
  if (v.spinning !== undefined && typeof v.spinning !== 'boolean') fail(`${at}.spinning`, 'must be true or false');
  return {
    ...(v.threads ? { threads: v.threads as number } : {}),
    ...(v.executionProvider !== undefined ? { executionProvider: v.executionProvider as ExecutionProvider } : {}),
    ...(v.spinning !== undefined ? { spinning: v.spinning as boolean } : {}),
  };
}
