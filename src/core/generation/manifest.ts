/**
 * The generation manifest: `<file>.generation-manifest.json` beside a dialogue file, one record per generation run
 * on it (appended, oldest first) — what generators and decoding settings made its candidates, how many contexts and
 * tokens, how many candidates were new. The judge job writes its manifest the same way (`jobs/judge.ts`); the side
 * bar and `reflect-eval studies` read both (`core/workspace`). No secrets: an API generator is named by backend,
 * model and endpoint, its headers by name only, never its key or the variable that holds it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeTextAtomic } from '../format/files';
import { REFLECT_EVAL_VERSION } from '../version';
import { describeSpec, type DecodingSpec, type GeneratorSpec } from './runConfig';
import { siblingFile } from '../dialogue/siblingFile';

/** The manifest beside `file`: `study.dialogues.jsonl` → `study.generation-manifest.json` (as the judge manifest is named). */
export function generationManifestFile(file: string): string {
  return siblingFile(file, '.generation-manifest.json');
}

/** A generator as the manifest names it: no key, no key variable, header names without their values. */
export interface GeneratorRecord {
  backend: GeneratorSpec['backend'];
  /** The model (default `bundled:reflect-gpt2-tiny` for local generators). */
  model: string;
  baseURL?: string;
  /** Names of the extra HTTP headers sent (their values are not written: they may be credentials). */
  headerNames?: string[];
}

/** One generation run on the file. */
export interface GenerationRunRecord {
  /** ISO 8601 time the run ended. */
  finishedAt: string;
  tool: 'reflect-eval';
  version: string;
  generators: GeneratorRecord[];
  /** Each decoding setting as run (`maxNewTokens` filled in), with its short description (`greedy`, `beam k=5 ×5`). */
  settings: { description: string; spec: DecodingSpec }[];
  seed: number;
  contextsDone: number;
  contextsTotal: number;
  /** New tokens generated, all generators. */
  tokens: number;
  /** Candidates added, exact duplicates recorded as further origins, and candidates already present. */
  added: number;
  duplicates: number;
  unchanged: number;
  /** Generators that could not be loaded, and (generator, context) pairs that failed. */
  loadErrors: number;
  failures: number;
  cancelled: boolean;
  /** Answered through the Batch API (API generators). */
  batch?: boolean;
}

/** The file's contents. */
export interface GenerationManifest {
  /** The dialogue file's base name. */
  file: string;
  runs: GenerationRunRecord[];
}

/** How a generator spec is written into the manifest. */
export function generatorRecord(spec: GeneratorSpec, defaultLocalModel: string): GeneratorRecord {
  return {
    backend: spec.backend,
    model: spec.model ?? defaultLocalModel,
    ...(spec.baseURL ? { baseURL: spec.baseURL } : {}),
    ...(spec.headers && Object.keys(spec.headers).length ? { headerNames: Object.keys(spec.headers).sort() } : {}),
  };
}

/** A record of a run, from what it ran and what it did. */
export function generationRunRecord(
  run: { generators: readonly GeneratorSpec[]; settings: readonly DecodingSpec[]; seed: number },
  done: Omit<GenerationRunRecord, 'finishedAt' | 'tool' | 'version' | 'generators' | 'settings' | 'seed'>,
  defaultLocalModel: string,
  now: Date = new Date(),
): GenerationRunRecord {
  return {
    finishedAt: now.toISOString(),
    tool: 'reflect-eval',
    version: REFLECT_EVAL_VERSION,
    generators: run.generators.map((g) => generatorRecord(g, defaultLocalModel)),
    settings: run.settings.map((spec) => ({ description: describeSpec(spec), spec: { ...spec } })),
    seed: run.seed,
    ...done,
  };
}

/**
 * Appends a run to the manifest at `path` (created when missing), atomically.
 *
 * @param file - the dialogue file's base name, written as the manifest's `file`
 * @throws Error naming the manifest when it exists but is not a generation manifest (it is left as it is)
 */
export function appendGenerationRun(path: string, file: string, record: GenerationRunRecord): GenerationManifest {
  let runs: GenerationRunRecord[] = [];
  if (existsSync(path)) {
    let value: unknown;
    try {
      value = JSON.parse(readFileSync(path, 'utf8'));
    } catch (err) {
      throw new Error(`${path}: not valid JSON (${(err as Error).message}); the run's record was not added — move the file away to start a new manifest`);
    }
    const old = value as Partial<GenerationManifest> | null;
    if (!old || typeof old !== 'object' || !Array.isArray(old.runs)) throw new Error(`${path}: runs: not a generation manifest (no "runs" list); the run's record was not added`);
    runs = old.runs;
  }
  const manifest: GenerationManifest = { file, runs: [...runs, record] };
  writeTextAtomic(path, JSON.stringify(manifest, null, 2) + '\n');
  return manifest;
}
