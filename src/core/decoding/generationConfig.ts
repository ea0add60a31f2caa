/**
 * The generation configuration: a plain object in the shape of Hugging Face transformers' `GenerationConfig`
 * (camelCase names), as transformers.js keeps it (`generation/configuration_utils.js`). Every field has the
 * HF default unless noted; {@link resolveGenerationConfig} fills them in and checks ranges.
 *
 * | field | HF `generate` argument | default |
 * |---|---|---|
 * | `strategy` | greedy: `do_sample=False, num_beams=1`; beamSearch: `num_beams>1`; nucleusSampling: `do_sample=True` | — (required) |
 * | `maxNewTokens` | `max_new_tokens` | 128 (ReflectEval; GEM 2022 §3.2) |
 * | `numBeams` | `num_beams` | 5 for beamSearch (GEM 2022 §3.4), else 1 |
 * | `numReturnSequences` | `num_return_sequences` | beamSearch: `numBeams` (all k); else 1 |
 * | `lengthPenalty` | `length_penalty` | 1.0 |
 * | `earlyStopping` | `early_stopping` | false |
 * | `temperature` | `temperature` | 1.0 |
 * | `topK` | `top_k` | 0 (off; HF's default 50 is NOT applied, as GEM 2022 samples with top-p only) |
 * | `topP` | `top_p` | 1.0 (off) |
 * | `repetitionPenalty` | `repetition_penalty` | 1.0 (off) |
 * | `noRepeatNgramSize` | `no_repeat_ngram_size` | 0 (off) |
 * | `seed` | `torch.manual_seed(seed)` (our generator is not torch's: see `samplers.ts`) | 0 |
 * | `eosTokenIds` | `eos_token_id` | the model's |
 * | `forcedBosTokenId` | `forced_bos_token_id` | the model's (encoder-decoder) |
 * | `forcedEosTokenId` | `forced_eos_token_id` | the model's |
 */
import type { DecodingSettings } from '../dialogue/types';

/** A decoding strategy of GEM 2022 §3.4. */
export type Strategy = 'greedy' | 'beamSearch' | 'nucleusSampling';

/** What decodes a batch of prompts: strategy and every parameter (HF `GenerationConfig`, camelCase). */
export interface GenerationConfig {
  strategy: Strategy;
  /** New tokens at most per sequence, EOS included (≥ 1; default 128). */
  maxNewTokens?: number;
  /** Beam search: beams kept per step, k ≥ 1 (default 5). */
  numBeams?: number;
  /** Sequences returned per prompt: beam search, the best n ≤ k finished hypotheses (default k); sampling, n samples (default 1); greedy, 1. */
  numReturnSequences?: number;
  /** Beam search: finished scores are sum log-probs / generatedLength ** lengthPenalty (default 1.0). */
  lengthPenalty?: number;
  /** Beam search stopping rule: false (HF heuristic), true (stop at k finished), or "never" (default false). */
  earlyStopping?: boolean | 'never';
  /** Sampling: logits are divided by it (> 0; default 1.0). */
  temperature?: number;
  /** Sampling: keep the k most probable tokens (0 = off; default 0). */
  topK?: number;
  /** Sampling: nucleus, the smallest set of most probable tokens whose probability reaches topP, in [0, 1] (default 1.0 = off). */
  topP?: number;
  /** > 1 discourages tokens already in the sequence (CTRL, Keskar et al. 2019; default 1.0 = off). */
  repetitionPenalty?: number;
  /** Bans repeating any n-gram of this size (0 = off; default 0). */
  noRepeatNgramSize?: number;
  /** Sampling seed: the same settings and seed give the same samples on any machine (integer; default 0). */
  seed?: number;
  /** EOS ids overriding the model's. */
  eosTokenIds?: number[];
  /** Token forced first (encoder-decoder; HF `forced_bos_token_id`); null disables; default: the model's. */
  forcedBosTokenId?: number | null;
  /** Token forced at the last allowed position (HF `forced_eos_token_id`); null disables; default: the model's. */
  forcedEosTokenId?: number | null;
}

/** A configuration with every field set. */
export type ResolvedGenerationConfig = Required<Omit<GenerationConfig, 'forcedBosTokenId' | 'forcedEosTokenId'>> & {
  forcedBosTokenId: number | null;
  forcedEosTokenId: number | null;
};

/** Defaults of the fields (the model's special tokens are filled in by {@link resolveGenerationConfig}). */
export const GENERATION_DEFAULTS = {
  maxNewTokens: 128,
  numBeams: 5,
  lengthPenalty: 1.0,
  earlyStopping: false as boolean | 'never',
  temperature: 1.0,
  topK: 0,
  topP: 1.0,
  repetitionPenalty: 1.0,
  noRepeatNgramSize: 0,
  seed: 0,
} as const;

function check(ok: boolean, message: string): void {
  if (!ok) throw new RangeError(message);
}

/**
 * Fills in defaults and checks ranges.
 *
 * @param model - the model's special tokens, for `eosTokenIds`, `forcedBosTokenId`, `forcedEosTokenId`
 * @throws RangeError naming the field and the allowed range
 */
export function resolveGenerationConfig(
  config: GenerationConfig,
  model: { eosTokenIds: number[]; forcedBosTokenId: number | null; forcedEosTokenId: number | null },
): ResolvedGenerationConfig {
  const strategy = config.strategy;
  check(strategy === 'greedy' || strategy === 'beamSearch' || strategy === 'nucleusSampling', `strategy must be greedy, beamSearch or nucleusSampling, got ${String(strategy)}`);
  const numBeams = strategy === 'beamSearch' ? (config.numBeams ?? GENERATION_DEFAULTS.numBeams) : 1;
  const numReturnSequences = config.numReturnSequences ?? (strategy === 'beamSearch' ? numBeams : 1);
  const r: ResolvedGenerationConfig = {
    strategy,
    maxNewTokens: config.maxNewTokens ?? GENERATION_DEFAULTS.maxNewTokens,
    numBeams,
    numReturnSequences,
    lengthPenalty: config.lengthPenalty ?? GENERATION_DEFAULTS.lengthPenalty,
    earlyStopping: config.earlyStopping ?? GENERATION_DEFAULTS.earlyStopping,
    temperature: config.temperature ?? GENERATION_DEFAULTS.temperature,
    topK: config.topK ?? GENERATION_DEFAULTS.topK,
    topP: config.topP ?? GENERATION_DEFAULTS.topP,
    repetitionPenalty: config.repetitionPenalty ?? GENERATION_DEFAULTS.repetitionPenalty,
    noRepeatNgramSize: config.noRepeatNgramSize ?? GENERATION_DEFAULTS.noRepeatNgramSize,
    seed: config.seed ?? GENERATION_DEFAULTS.seed,
    eosTokenIds: config.eosTokenIds ?? model.eosTokenIds,
    forcedBosTokenId: config.forcedBosTokenId === undefined ? model.forcedBosTokenId : config.forcedBosTokenId,
    forcedEosTokenId: config.forcedEosTokenId === undefined ? model.forcedEosTokenId : config.forcedEosTokenId,
  };
  check(Number.isInteger(r.maxNewTokens) && r.maxNewTokens >= 1, `maxNewTokens must be an integer ≥ 1, got ${r.maxNewTokens}`);
  check(Number.isInteger(r.numBeams) && r.numBeams >= 1, `numBeams must be an integer ≥ 1, got ${r.numBeams}`);
  check(Number.isInteger(r.numReturnSequences) && r.numReturnSequences >= 1, `numReturnSequences must be an integer ≥ 1, got ${r.numReturnSequences}`);
  if (strategy === 'beamSearch') check(r.numReturnSequences <= r.numBeams, `numReturnSequences (${r.numReturnSequences}) must be ≤ numBeams (${r.numBeams})`);
  if (strategy === 'greedy') check(r.numReturnSequences === 1, `greedy decoding returns one sequence; numReturnSequences must be 1, got ${r.numReturnSequences}`);
  check(Number.isFinite(r.lengthPenalty), `lengthPenalty must be a finite number, got ${r.lengthPenalty}`);
  check(r.earlyStopping === true || r.earlyStopping === false || r.earlyStopping === 'never', `earlyStopping must be true, false or "never", got ${String(r.earlyStopping)}`);
  check(Number.isFinite(r.temperature) && r.temperature > 0, `temperature must be > 0, got ${r.temperature}`);
  check(Number.isInteger(r.topK) && r.topK >= 0, `topK must be an integer ≥ 0, got ${r.topK}`);
  check(r.topP >= 0 && r.topP <= 1, `topP must be in [0, 1], got ${r.topP}`);
  check(Number.isFinite(r.repetitionPenalty) && r.repetitionPenalty > 0, `repetitionPenalty must be > 0, got ${r.repetitionPenalty}`);
  check(Number.isInteger(r.noRepeatNgramSize) && r.noRepeatNgramSize >= 0, `noRepeatNgramSize must be an integer ≥ 0, got ${r.noRepeatNgramSize}`);
  check(Number.isSafeInteger(r.seed), `seed must be an integer, got ${r.seed}`);
  check(r.eosTokenIds.every((id) => Number.isInteger(id) && id >= 0), `eosTokenIds must be token ids, got ${JSON.stringify(r.eosTokenIds)}`);
  return r;
}

/**
 * The decoding settings recorded on a candidate made under `config`: only the parameters that shaped it
 * (sampling parameters for sampling, beam parameters for beam search, penalties when on).
 */
export function decodingSettingsOf(config: ResolvedGenerationConfig): DecodingSettings {
  const s: DecodingSettings = { strategy: config.strategy, maxNewTokens: config.maxNewTokens };
  if (config.strategy === 'beamSearch') Object.assign(s, { numBeams: config.numBeams, lengthPenalty: config.lengthPenalty, earlyStopping: config.earlyStopping });
  if (config.strategy === 'nucleusSampling') Object.assign(s, { topP: config.topP, topK: config.topK, temperature: config.temperature, seed: config.seed });
  if (config.repetitionPenalty !== 1) s.repetitionPenalty = config.repetitionPenalty;
  if (config.noRepeatNgramSize !== 0) s.noRepeatNgramSize = config.noRepeatNgramSize;
  return s;
}
