/**
 * The generation run configuration: generators (local ONNX models, OpenAI-compatible endpoints) × decoding
 * settings, with the seeds' grid as a preset (docs/generation.md, "Run config").
 *
 * The "GEM 2022 grid" (Wu et al., GEM 2022 §3.4; first study §3.4): greedy decoding; 5-beam search keeping all
 * 5 final sequences; nucleus sampling with p ∈ {0.4, 0.6, 0.8, 0.95}, 5 samples per p — 1 + 5 + 4 × 5 = 26
 * candidates per model per context.
 */
import type { TherapistBehaviour } from '../dialogue/types';
import { ConfigError as RunConfigError } from '../config';
import type { GenerationConfig, Strategy } from '../decoding/generationConfig';
import { MAX_CONTEXT_TOKENS } from '../templates/modelInput';

export { RunConfigError };

/** One generator of a run. API keys are never in the config: `apiKeyEnv` names the environment variable. */
export interface GeneratorSpec {
  backend: 'local' | 'openai-chat' | 'openai-completions';
  /**
   * `local`: a model folder (Hugging Face/Optimum ONNX layout, relative to the config file), a hub id, or
   * `bundled:<name>` for a model shipped in `fixtures/models/` (default `bundled:reflect-gpt2-tiny`).
   * API backends: the model name (required).
   */
  model?: string;
  /** API backends: the endpoint, e.g. `https://api.openai.com/v1` (required). */
  baseURL?: string;
  headers?: Record<string, string>;
  /** Environment variable holding the API key (CLI; default `REFLECT_EVAL_API_KEY`). */
  apiKeyEnv?: string;
  /**
   * `openai-chat`, and `local` instruct models: chat template file (default: `generation/chat.mustache` of the prompts
   * folders).
   */
  chatTemplate?: string;
  /**
   * `local`: read the chat template's messages in the model's own chat template — the default when the model folder
   * has one (an instruct model); false gives it the seeds' format (`<client> … |<therapist> ~<listening>`).
   */
  chat?: boolean;
  /** `local` chat generators: variables for the model's template (default `{"enable_thinking": false}`). */
  templateArgs?: Record<string, unknown>;
  /** API backends: stop sequences (completions default `[" |<"]`, chat none). */
  stop?: string[];
  maxRetries?: number;
  timeoutMs?: number;
  /**
   * `local`: wrap the model input in the tokenizer's special tokens (BART: `<s> … </s>`), for models fine-tuned on
   * inputs made by Python's `tokenizer(text)`; default false (the seeds' format as both bundled fixtures read it).
   */
  inputSpecialTokens?: boolean;
}

export type { Strategy };

/**
 * One decoding setting of a run: the engine's {@link GenerationConfig} (Hugging Face `GenerationConfig` names in
 * camelCase) without what the run or the model decides (the seed, special tokens). Unset fields take the
 * engine's defaults, which every candidate records. `maxNewTokens` overrides the run's for this setting.
 */
export type DecodingSpec = Omit<GenerationConfig, 'seed' | 'eosTokenIds' | 'forcedBosTokenId' | 'forcedEosTokenId'>;

/** Named presets. */
export type PresetName = 'greedy' | 'gem2022';

/** The settings of each preset, in order. */
export const PRESETS: Readonly<Record<PresetName, { label: string; description: string; settings: DecodingSpec[] }>> = {
  greedy: { label: 'Greedy', description: '1 candidate per model per context', settings: [{ strategy: 'greedy' }] },
  gem2022: {
    label: 'GEM 2022 grid',
    description: 'greedy + 5-beam (all 5) + nucleus p ∈ {0.4, 0.6, 0.8, 0.95} × 5: 26 candidates per model per context',
    settings: [
      { strategy: 'greedy' },
      { strategy: 'beamSearch', numBeams: 5, numReturnSequences: 5 },
      ...[0.4, 0.6, 0.8, 0.95].map((topP): DecodingSpec => ({ strategy: 'nucleusSampling', topP, numReturnSequences: 5 })),
    ],
  },
};

/** A generation run. */
export interface GenerationRunConfig {
  generators: GeneratorSpec[];
  /** Settings of a preset, run before `settings`. */
  preset?: PresetName;
  /** Custom settings (after the preset's). */
  settings?: DecodingSpec[];
  /** Seed of the samplers (default 0). */
  seed?: number;
  /** Tokens per candidate at most (default 128). */
  maxNewTokens?: number;
  /** Response type to condition on (default `reflection`, control code `<listening>`). */
  behaviour?: TherapistBehaviour;
  /** Context window of local models in tokens (default 384, GEM 2022 §3.2). */
  maxContextTokens?: number;
}

/** Defaults of a run. */
export const DEFAULT_MAX_NEW_TOKENS = 128;
export const DEFAULT_SEED = 0;

const GENERATOR_FIELDS = ['backend', 'model', 'baseURL', 'headers', 'apiKeyEnv', 'chatTemplate', 'stop', 'maxRetries', 'timeoutMs', 'inputSpecialTokens', 'chat', 'templateArgs'];
const SPEC_FIELDS = ['strategy', 'numBeams', 'numReturnSequences', 'lengthPenalty', 'earlyStopping', 'topP', 'topK', 'temperature', 'noRepeatNgramSize', 'repetitionPenalty', 'maxNewTokens'];
const RUN_FIELDS = ['generators', 'preset', 'settings', 'seed', 'maxNewTokens', 'behaviour', 'maxContextTokens'];
const BEHAVIOURS = ['reflection', 'question', 'therapist_input', 'other'];

type Fail = (field: string, msg: string) => never;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isInt = (v: unknown, min: number) => Number.isInteger(v) && (v as number) >= min;

function unknownFields(v: Record<string, unknown>, known: string[], at: string, fail: Fail): void {
  for (const k of Object.keys(v)) if (!known.includes(k)) fail(at ? `${at}.${k}` : k, `unknown field (known: ${known.join(', ')})`);
}

/**
 * Checks one decoding setting.
 *
 * @param at - field path for messages, e.g. `settings[2]`
 * @throws RunConfigError (through `fail`) naming the field
 */
export function validateDecodingSpec(value: unknown, at: string, fail: Fail): DecodingSpec {
  if (!isObject(value)) fail(at, 'must be an object like {"strategy": "nucleusSampling", "topP": 0.9, "numReturnSequences": 5}');
  const s = value as Record<string, unknown>;
  unknownFields(s, SPEC_FIELDS, at, fail);
  if (!['greedy', 'beamSearch', 'nucleusSampling'].includes(String(s.strategy))) fail(`${at}.strategy`, 'must be "greedy", "beamSearch" or "nucleusSampling"');
  const f = (k: string) => `${at}.${k}`;
  const onlyFor = (keys: string[], strategy: Strategy) => {
    for (const k of keys) if (s[k] !== undefined && s.strategy !== strategy) fail(f(k), `applies to ${strategy} only`);
  };
  onlyFor(['numBeams', 'lengthPenalty', 'earlyStopping'], 'beamSearch');
  onlyFor(['topP', 'topK', 'temperature'], 'nucleusSampling');
  if (s.strategy === 'greedy' && s.numReturnSequences !== undefined && s.numReturnSequences !== 1) fail(f('numReturnSequences'), 'greedy decoding returns 1 sequence');
  if (s.strategy === 'beamSearch') {
    if (!isInt(s.numBeams, 1)) fail(f('numBeams'), 'must be an integer ≥ 1');
    if (s.numReturnSequences !== undefined && !(isInt(s.numReturnSequences, 1) && (s.numReturnSequences as number) <= (s.numBeams as number))) fail(f('numReturnSequences'), `must be an integer in [1, numBeams = ${s.numBeams}]`);
    if (s.lengthPenalty !== undefined && typeof s.lengthPenalty !== 'number') fail(f('lengthPenalty'), 'must be a number');
    if (s.earlyStopping !== undefined && typeof s.earlyStopping !== 'boolean' && s.earlyStopping !== 'never') fail(f('earlyStopping'), 'must be true, false or "never"');
  }
  if (s.strategy === 'nucleusSampling') {
    if (!(typeof s.topP === 'number' && s.topP > 0 && s.topP <= 1)) fail(f('topP'), 'must be a number in (0, 1]');
    if (s.topK !== undefined && !isInt(s.topK, 0)) fail(f('topK'), 'must be an integer ≥ 0 (0 = off)');
    if (s.temperature !== undefined && !(typeof s.temperature === 'number' && s.temperature > 0)) fail(f('temperature'), 'must be a number > 0');
    if (s.numReturnSequences !== undefined && !isInt(s.numReturnSequences, 1)) fail(f('numReturnSequences'), 'must be an integer ≥ 1');
  }
  if (s.noRepeatNgramSize !== undefined && !isInt(s.noRepeatNgramSize, 0)) fail(f('noRepeatNgramSize'), 'must be an integer ≥ 0 (0 = off)');
  if (s.repetitionPenalty !== undefined && !(typeof s.repetitionPenalty === 'number' && s.repetitionPenalty > 0)) fail(f('repetitionPenalty'), 'must be a number > 0 (1 = off)');
  if (s.maxNewTokens !== undefined && !isInt(s.maxNewTokens, 1)) fail(f('maxNewTokens'), 'must be an integer ≥ 1');
  return s as unknown as DecodingSpec;
}

/**
 * Checks one generator.
 *
 * @throws RunConfigError (through `fail`) naming the field
 */
export function validateGeneratorSpec(value: unknown, at: string, fail: Fail): GeneratorSpec {
  if (!isObject(value)) fail(at, 'must be an object like {"backend": "local", "model": "bundled:reflect-gpt2-tiny"}');
  const g = value as Record<string, unknown>;
  unknownFields(g, GENERATOR_FIELDS, at, fail);
  const f = (k: string) => `${at}.${k}`;
  if (!['local', 'openai-chat', 'openai-completions'].includes(String(g.backend))) fail(f('backend'), 'must be "local", "openai-chat" or "openai-completions"');
  if (g.model !== undefined && (typeof g.model !== 'string' || g.model.trim() === '')) fail(f('model'), 'must be a non-empty string');
  if (g.inputSpecialTokens !== undefined && (typeof g.inputSpecialTokens !== 'boolean' || g.backend !== 'local')) fail(f('inputSpecialTokens'), 'must be true or false, for local generators only');
  if (g.backend === 'local') {
    for (const k of ['baseURL', 'headers', 'apiKeyEnv', 'stop', 'maxRetries', 'timeoutMs']) if (g[k] !== undefined) fail(f(k), 'applies to API generators only');
    if (g.chat !== undefined && typeof g.chat !== 'boolean') fail(f('chat'), 'must be true or false');
    if (g.chatTemplate !== undefined && (typeof g.chatTemplate !== 'string' || g.chat === false)) fail(f('chatTemplate'), 'must be a file path, for chat generators ("chat": false reads the seeds\' format)');
    if (g.templateArgs !== undefined && (!isObject(g.templateArgs) || g.chat === false)) fail(f('templateArgs'), 'must be an object of chat-template variables, for chat generators');
    if (g.chat === true && g.inputSpecialTokens) fail(f('inputSpecialTokens'), 'applies to the seeds\' format, not to chat prompts');
  } else {
    for (const k of ['chat', 'templateArgs']) if (g[k] !== undefined) fail(f(k), 'applies to local generators only');
    if (typeof g.model !== 'string') fail(f('model'), 'is required for API generators (the model name, e.g. "gpt-3.5-turbo-instruct")');
    if (typeof g.baseURL !== 'string' || !/^https?:\/\//.test(g.baseURL)) fail(f('baseURL'), 'is required for API generators: an http(s) URL such as "https://api.openai.com/v1"');
    if (g.chatTemplate !== undefined && (typeof g.chatTemplate !== 'string' || g.backend !== 'openai-chat')) fail(f('chatTemplate'), 'must be a file path, for "openai-chat" only');
    if (g.headers !== undefined && !(isObject(g.headers) && Object.values(g.headers).every((v) => typeof v === 'string'))) fail(f('headers'), 'must map header names to strings');
    if (g.apiKeyEnv !== undefined && typeof g.apiKeyEnv !== 'string') fail(f('apiKeyEnv'), 'must name an environment variable');
    if (g.stop !== undefined && !(Array.isArray(g.stop) && g.stop.length <= 4 && g.stop.every((x) => typeof x === 'string'))) fail(f('stop'), 'must be an array of at most 4 strings');
    if (g.maxRetries !== undefined && !isInt(g.maxRetries, 0)) fail(f('maxRetries'), 'must be an integer ≥ 0');
    if (g.timeoutMs !== undefined && !isInt(g.timeoutMs, 1)) fail(f('timeoutMs'), 'must be an integer ≥ 1 (milliseconds)');
  }
  if ('apiKey' in g) fail(f('apiKey'), 'keys do not belong in a run config: name an environment variable in "apiKeyEnv"');
  return g as unknown as GeneratorSpec;
}

/**
 * Checks a parsed generation run config.
 *
 * @param file - the config file, for messages
 * @throws RunConfigError naming the file and the offending field
 */
export function validateGenerationConfig(value: unknown, file: string): GenerationRunConfig {
  const fail: Fail = (field, msg) => {
    throw new RunConfigError(file, field, msg);
  };
  if (!isObject(value)) fail('(root)', 'must be a JSON object');
  const c = value as Record<string, unknown>;
  unknownFields(c, RUN_FIELDS, '', fail);
  if (!Array.isArray(c.generators) || c.generators.length === 0) fail('generators', 'must be a non-empty array');
  (c.generators as unknown[]).forEach((g, i) => validateGeneratorSpec(g, `generators[${i}]`, fail));
  if (c.preset !== undefined && !(typeof c.preset === 'string' && c.preset in PRESETS)) fail('preset', `must be one of ${Object.keys(PRESETS).map((p) => `"${p}"`).join(', ')}`);
  if (c.settings !== undefined && !Array.isArray(c.settings)) fail('settings', 'must be an array of decoding settings');
  ((c.settings as unknown[] | undefined) ?? []).forEach((s, i) => validateDecodingSpec(s, `settings[${i}]`, fail));
  if (c.preset === undefined && !(c.settings as unknown[] | undefined)?.length) fail('settings', 'give a "preset" or at least one decoding setting');
  if (c.seed !== undefined && !(Number.isSafeInteger(c.seed) && (c.seed as number) >= 0)) fail('seed', 'must be an integer ≥ 0');
  if (c.maxNewTokens !== undefined && !isInt(c.maxNewTokens, 1)) fail('maxNewTokens', 'must be an integer ≥ 1');
  if (c.maxContextTokens !== undefined && !isInt(c.maxContextTokens, 1)) fail('maxContextTokens', 'must be an integer ≥ 1');
  if (c.behaviour !== undefined && !BEHAVIOURS.includes(String(c.behaviour))) fail('behaviour', `must be one of ${BEHAVIOURS.join(', ')}`);
  return c as unknown as GenerationRunConfig;
}

/** A run config with every default filled in. */
export interface ResolvedGenerationRun {
  generators: GeneratorSpec[];
  /** The preset's settings then the custom ones, each with `maxNewTokens` set. */
  settings: (DecodingSpec & { maxNewTokens: number })[];
  seed: number;
  behaviour: TherapistBehaviour;
  maxContextTokens: number;
}

/** Fills in the defaults of a (validated) config and expands its preset. */
export function resolveGenerationRun(config: GenerationRunConfig): ResolvedGenerationRun {
  const maxNewTokens = config.maxNewTokens ?? DEFAULT_MAX_NEW_TOKENS;
  const specs = [...(config.preset ? PRESETS[config.preset].settings : []), ...(config.settings ?? [])];
  return {
    generators: config.generators,
    settings: specs.map((s) => ({ ...s, maxNewTokens: s.maxNewTokens ?? maxNewTokens })),
    seed: config.seed ?? DEFAULT_SEED,
    behaviour: config.behaviour ?? 'reflection',
    maxContextTokens: config.maxContextTokens ?? MAX_CONTEXT_TOKENS,
  };
}

/** Sequences one setting yields per context: 1 (greedy), numReturnSequences of beamSearch (default numBeams) or of sampling (default 1). */
export function sequencesPerContext(spec: DecodingSpec): number {
  if (spec.strategy === 'beamSearch') return spec.numReturnSequences ?? spec.numBeams ?? 1;
  if (spec.strategy === 'nucleusSampling') return spec.numReturnSequences ?? 1;
  return 1;
}

/** A short human label of a setting, e.g. `nucleus p=0.8 ×5`. */
export function describeSpec(spec: DecodingSpec): string {
  if (spec.strategy === 'greedy') return 'greedy';
  if (spec.strategy === 'beamSearch') return `beam k=${spec.numBeams} ×${sequencesPerContext(spec)}`;
  return `nucleus p=${spec.topP}${spec.temperature !== undefined ? ` T=${spec.temperature}` : ''}${spec.topK ? ` k=${spec.topK}` : ''} ×${sequencesPerContext(spec)}`;
}
