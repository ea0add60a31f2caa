/**
 * Follow-up likelihood (De Bruyn et al., COLING 2022, "FULL"; as used in ICMI 2023 §2.3 and §3.2): how likely a
 * dialogue model, now in the listener's seat, is to reply to response r after history h with a follow-up f such as
 * "You're not understanding me!". Reference-free. The value of one follow-up is the mean log-likelihood per token
 * (natural log) of f given (h, r); a group of follow-ups averages its members' values (ICMI's
 * "likelihood-averaged follow-ups").
 *
 * Input as FULL 0.0.3 builds it (github.com/maximedb/full, full/eval.py at c66eba64cca6c434ebb6ddefca5cd518bb2090d4):
 * - encoder text: `"\t" + "\t".join(last 50 turns of h + [r])` (turn texts only, no speaker labels), tokenized with
 *   the tokenizer's special tokens and `add_prefix_space=True` (a byte-level BPE tokenizer gets a leading space);
 * - labels: the follow-up tokenized the same way (BlenderBot: `f </s>`; BART: `<s> f </s>`), the decoder reading
 *   `decoder_start_token_id` then the labels shifted right; the value is −(HF's mean cross-entropy over the labels).
 * FULL reports exp(loss) (a perplexity) averaged over follow-ups; ICMI uses the log-likelihood, as here.
 * One difference, configurable: FULL truncates the encoder text on the right to `model_max_length` (128 tokens for
 * BlenderBot), which cuts off the response itself once the history is long; the default here truncates on the left
 * (oldest turns first), keeping the response. `truncationSide: 'right'` reproduces FULL.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import shipped from '../../../data/followups/fed-followups.json';
import { teacherForcing } from '../decoding/teacherForcing';
import type { Turn } from '../dialogue/types';
import { truncateWithSpecialTokens } from '../models/encoder';
import type { GenerativeLM } from '../models/languageModel';
import { LoadCache } from '../models/loadCache';
import { ModelSourceError } from '../models/errors';
import { cwdLocator, modelKey, type ModelLocator } from '../models/describe';
import { buildSignature } from '../evaluators/signature';
import { MetricConfigError, type Metric, type MetricInput, type MetricOutput, type MetricRunOptions, type MetricValues } from './metric';

/** One follow-up utterance. */
export interface FollowUp {
  /** Output name: lowercase letters, digits and '-'. */
  id: string;
  text: string;
  /** Favourable follow-ups suggest a good response (high likelihood is good); unfavourable ones a bad one. */
  polarity: 'favourable' | 'unfavourable';
  [key: string]: unknown;
}

/** Follow-ups averaged together. */
export interface FollowUpGroup {
  id: string;
  description?: string;
  /** Ids of its follow-ups. */
  followUps: string[];
}

/** The follow-ups data file (data/followups/fed-followups.json). */
export interface FollowUpsData {
  description?: string;
  source?: unknown;
  followUps: FollowUp[];
  groups: FollowUpGroup[];
}

/** The FULL release whose input format is reproduced. */
export const FULL_REFERENCE = { version: '0.0.3', commit: 'c66eba64cca6c434ebb6ddefca5cd518bb2090d4' } as const;

const ID = /^[a-z0-9][a-z0-9-]*$/;

/**
 * Checks a follow-ups data object.
 *
 * @param where - file name used in messages
 * @throws Error naming the file and the field (e.g. `followUps[3].polarity`)
 */
export function validateFollowUps(data: unknown, where: string): FollowUpsData {
  const fail = (field: string, msg: string): never => {
    throw new Error(`${where}: ${field}: ${msg}`);
  };
  if (!data || typeof data !== 'object') fail('(file)', 'expected an object with followUps and groups');
  const d = data as Partial<FollowUpsData>;
  if (!Array.isArray(d.followUps) || d.followUps.length === 0) fail('followUps', 'expected a non-empty array');
  const ids = new Set<string>();
  d.followUps!.forEach((f, i) => {
    if (!f || typeof f !== 'object') fail(`followUps[${i}]`, 'expected an object');
    if (typeof f.id !== 'string' || !ID.test(f.id)) fail(`followUps[${i}].id`, 'lowercase letters, digits and "-", starting with a letter or digit');
    if (ids.has(f.id)) fail(`followUps[${i}].id`, `duplicate id ${f.id}`);
    ids.add(f.id);
    if (typeof f.text !== 'string' || f.text.trim() === '') fail(`followUps[${i}].text`, 'expected a non-empty string');
    if (f.polarity !== 'favourable' && f.polarity !== 'unfavourable') fail(`followUps[${i}].polarity`, 'expected "favourable" or "unfavourable"');
  });
  const groups = d.groups ?? [];
  if (!Array.isArray(groups)) fail('groups', 'expected an array');
  const gids = new Set<string>();
  groups.forEach((g, i) => {
    if (typeof g?.id !== 'string' || !ID.test(g.id)) fail(`groups[${i}].id`, 'lowercase letters, digits and "-", starting with a letter or digit');
    if (gids.has(g.id)) fail(`groups[${i}].id`, `duplicate id ${g.id}`);
    gids.add(g.id);
    if (!Array.isArray(g.followUps) || g.followUps.length === 0) fail(`groups[${i}].followUps`, 'expected a non-empty array of follow-up ids');
    g.followUps.forEach((m, k) => {
      if (!ids.has(m)) fail(`groups[${i}].followUps[${k}]`, `no follow-up has id ${JSON.stringify(m)}`);
    });
  });
  return { ...(d as FollowUpsData), groups };
}

/** Reads and checks a follow-ups JSON file. */
export function readFollowUps(path: string): FollowUpsData {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`${path}: not a JSON file (${(err as Error).message})`);
  }
  return validateFollowUps(raw, path);
}

/**
 * FULL's encoder text: `sep + sep.join(last `lookback` turn texts + [response])`.
 *
 * @param lookback - turns of history kept (FULL: 50), the response not counted
 */
export function followUpEncoderText(context: readonly Pick<Turn, 'text'>[], response: string, lookback = 50, separator = '\t'): string {
  const turns = lookback > 0 ? context.slice(-lookback).map((t) => t.text) : [];
  return separator + [...turns, response].join(separator);
}

/** Configuration of the follow-up likelihood metric. */
export interface FollowUpLikelihoodConfig {
  /** Encoder-decoder dialogue model: hub id or local Optimum seq2seq folder (default facebook/blenderbot-400M-distill). */
  model: string;
  /** History turns kept before the response (FULL: 50). */
  lookback: number;
  /** Joins turns (FULL: a tab). */
  separator: string;
  /** Which end of an over-long encoder input is cut: `left` (oldest turns; default) or `right` (FULL: the response first). */
  truncationSide: 'left' | 'right';
  /** Prefix a space before tokenizing (FULL: `add_prefix_space=True`); `auto`: when the tokenizer is byte-level BPE. */
  addPrefixSpace: 'auto' | boolean;
  /** Follow-ups decoded together in one batch. */
  maxRows: number;
}

/** Per input: mean log-likelihood per follow-up id, and per group id. */
export interface FollowUpScores {
  followUps: Map<string, number>;
  groups: Map<string, number>;
}

function prefixed(text: string, prefix: boolean): string {
  return prefix && !text.startsWith(' ') ? ` ${text}` : text;
}

/**
 * Follow-up likelihoods of each (context, response) input under an encoder-decoder model.
 *
 * @param options.maxLength - longest encoder input and label sequence in tokens (default: the model's positions)
 * @returns one {@link FollowUpScores} per input; values are mean log-likelihoods per token, ≤ 0
 * @throws RangeError from the engine when a follow-up is longer than the decoder allows
 */
export async function computeFollowUpLikelihood(
  model: GenerativeLM,
  inputs: readonly { context: readonly Pick<Turn, 'text'>[]; response: string }[],
  data: FollowUpsData,
  options: { lookback?: number; separator?: string; truncationSide?: 'left' | 'right'; addPrefixSpace?: boolean; maxLength?: number; maxRows?: number; signal?: AbortSignal },
): Promise<FollowUpScores[]> {
  if (model.architecture !== 'encoder-decoder') throw new Error(`model ${model.ref} is decoder-only; follow-up likelihood needs an encoder-decoder (seq2seq) model such as facebook/blenderbot-400M-distill`);
  const tok = model.tokenizer;
  const prefix = options.addPrefixSpace ?? true;
  const maxLength = Math.min(options.maxLength ?? Infinity, model.maxPositions);
  const encodeTruncated = (text: string, side: 'left' | 'right') =>
    truncateWithSpecialTokens(tok.encodeWithSpecialTokens(text), tok.encode(text), maxLength, side);
  const labels = data.followUps.map((f) => encodeTruncated(prefixed(f.text, prefix), 'right'));
  const requests = inputs.flatMap((x) => {
    const promptIds = encodeTruncated(prefixed(followUpEncoderText(x.context, x.response, options.lookback ?? 50, options.separator ?? '\t'), prefix), options.truncationSide ?? 'left');
    return labels.map((continuationIds) => ({ promptIds, continuationIds }));
  });
  const results = await teacherForcing(model, requests, { signal: options.signal, maxRows: options.maxRows });
  const n = data.followUps.length;
  return inputs.map((_, i) => {
    const followUps = new Map<string, number>();
    data.followUps.forEach((f, k) => {
      const r = results[i * n + k];
      followUps.set(f.id, r.sumLogProb / r.tokenLogProbs.length);
    });
    const groups = new Map<string, number>();
    for (const g of data.groups) groups.set(g.id, g.followUps.reduce((s, id) => s + followUps.get(id)!, 0) / g.followUps.length);
    return { followUps, groups };
  });
}

/** Whether a model folder's tokenizer is byte-level BPE (FULL's `add_prefix_space=True` then adds a space). */
export function isByteLevelTokenizer(folder: string): boolean {
  try {
    const t = JSON.parse(readFileSync(join(folder, 'tokenizer.json'), 'utf8')) as { pre_tokenizer?: { type?: string; pretokenizers?: { type?: string }[] } | null };
    const p = t.pre_tokenizer;
    return p?.type === 'ByteLevel' || (p?.type === 'Sequence' && (p.pretokenizers ?? []).some((x) => x.type === 'ByteLevel'));
  } catch {
    return false;
  }
}

function dataHash(data: FollowUpsData): string {
  const canonical = JSON.stringify({ f: data.followUps.map((f) => [f.id, f.text, f.polarity]), g: data.groups.map((g) => [g.id, g.followUps]) });
  return createHash('sha256').update(canonical).digest('hex').slice(0, 8);
}

const models = new LoadCache<GenerativeLM>();

/**
 * The seq2seq model for `ref`, loaded once per process and model through the model registry.
 *
 * @param locator - where `bundled:` and relative references resolve (default: the working directory, no bundled models)
 */
function seq2seqModel(ref: string, locator: ModelLocator = cwdLocator()): Promise<GenerativeLM> {
  return models.get(modelKey(ref, locator), async () => {
    const { loadGenerativeModel } = await import('../models/registry');
    return loadGenerativeModel(ref, locator).catch((err: Error) => {
      if (err instanceof ModelSourceError) throw err;
      throw new ModelSourceError(`loading the follow-up likelihood model "${ref}" failed (${err.message}); pass a local Optimum seq2seq folder (docs/metrics-neural.md)`);
    });
  });
}

/** Releases every model the follow-up likelihood metric loaded. */
export function releaseFollowUpModels(): Promise<void> {
  return models.clear();
}

const DEFAULTS: FollowUpLikelihoodConfig = {
  model: 'facebook/blenderbot-400M-distill',
  lookback: 50,
  separator: '\t',
  truncationSide: 'left',
  addPrefixSpace: 'auto',
  maxRows: 16,
};

/** Output name of a group. */
export function groupOutput(id: string): string {
  return `group-${id}`;
}

/**
 * The follow-up likelihood metric for a follow-ups data set: one output per group (`group-<id>`, the first one
 * primary) then one per follow-up (`<id>`).
 *
 * @param source - where the data came from (a file name), recorded in the signature with the data's hash
 */
export function createFollowUpLikelihood(data: FollowUpsData, source: string): Metric<FollowUpLikelihoodConfig> {
  const checked = validateFollowUps(data, source);
  const byId = new Map(checked.followUps.map((f) => [f.id, f]));
  const hash = dataHash(checked);
  const higherIsBetter = (ids: string[]) => ids.every((id) => byId.get(id)!.polarity === 'favourable');
  const outputs: MetricOutput[] = [
    ...checked.groups.map((g) => ({
      name: groupOutput(g.id),
      description: `mean over ${g.followUps.length} follow-ups of their mean log-likelihood per token${g.description ? ` — ${g.description}` : ''}`,
      range: [-Infinity, 0] as [number, number],
      higherIsBetter: higherIsBetter(g.followUps),
    })),
    ...checked.followUps.map((f) => ({
      name: f.id,
      description: `mean log-likelihood per token of the ${f.polarity} follow-up "${f.text}"`,
      range: [-Infinity, 0] as [number, number],
      higherIsBetter: f.polarity === 'favourable',
    })),
  ];
  return {
    name: 'followUpLikelihood',
    card: {
      title: 'Follow-up likelihood',
      description:
        'Reference-free: the mean log-likelihood per token (natural log) that an encoder-decoder dialogue model assigns to a follow-up utterance ' +
        '(e.g. "You\'re not understanding me!") after the dialogue history and the response. A likely unfavourable follow-up suggests a poor response; ' +
        'a likely favourable one a good response. Groups average their follow-ups.',
      citation:
        'Maxime De Bruyn, Ehsan Lotfi, Jeska Buhmann and Walter Daelemans. 2022. Open-Domain Dialog Evaluation Using Follow-Ups Likelihood. In COLING 2022, 496–504. https://aclanthology.org/2022.coling-1.40',
      reference: `FULL ${FULL_REFERENCE.version} input format (github.com/maximedb/full @ ${FULL_REFERENCE.commit.slice(0, 7)}); log-likelihood as in ICMI 2023 §2.3; left truncation by default (see docs/metrics-neural.md)`,
      inputs: 'the dialogue context (turns) and the candidate; no reference',
    },
    outputs,
    requiresReference: false,
    defaultConfig: DEFAULTS,
    configure(partial = {}) {
      const c: FollowUpLikelihoodConfig = { ...DEFAULTS, ...partial };
      const bad = (field: string, msg: string) => new MetricConfigError('followUpLikelihood', field, msg);
      if (typeof c.model !== 'string' || c.model.trim() === '') throw bad('model', 'a hub id or a local Optimum seq2seq folder is required');
      if (!Number.isInteger(c.lookback) || c.lookback < 0) throw bad('lookback', `must be an integer ≥ 0, got ${String(c.lookback)}`);
      if (typeof c.separator !== 'string') throw bad('separator', 'must be a string');
      if (c.truncationSide !== 'left' && c.truncationSide !== 'right') throw bad('truncationSide', `must be "left" or "right", got ${String(c.truncationSide)}`);
      if (c.addPrefixSpace !== 'auto' && typeof c.addPrefixSpace !== 'boolean') throw bad('addPrefixSpace', 'must be "auto", true or false');
      if (!Number.isInteger(c.maxRows) || c.maxRows < 1) throw bad('maxRows', 'must be a positive integer');
      return c;
    },
    signature(c) {
      return buildSignature([
        ['impl', `full-${FULL_REFERENCE.version}`],
        ['model', c.model],
        ['followups', `${basename(source)}-${hash}`],
        ['join', JSON.stringify(c.separator).slice(1, -1)],
        ['lookback', c.lookback],
        ['trunc', c.truncationSide],
        ['prefix', c.addPrefixSpace],
        ['ll', 'mean-token-ln'],
      ]);
    },
    async score(inputs: readonly MetricInput[], c: FollowUpLikelihoodConfig, options: MetricRunOptions = {}): Promise<MetricValues[]> {
      const model = await seq2seqModel(c.model, options.models);
      const scores = await computeFollowUpLikelihood(
        model,
        inputs.map((x) => ({ context: x.context ?? [], response: x.candidate })),
        checked,
        {
          lookback: c.lookback,
          separator: c.separator,
          truncationSide: c.truncationSide,
          addPrefixSpace: c.addPrefixSpace === 'auto' ? isByteLevelTokenizer(model.folder) : c.addPrefixSpace,
          maxRows: c.maxRows,
          signal: options.signal,
        },
      );
      options.onProgress?.(inputs.length, inputs.length);
      return scores.map((s) => {
        const v: MetricValues = {};
        for (const [id, x] of s.groups) v[groupOutput(id)] = Number.isFinite(x) ? x : null;
        for (const [id, x] of s.followUps) v[id] = Number.isFinite(x) ? x : null;
        return v;
      });
    },
  };
}

/** The follow-up likelihood metric over the shipped follow-ups (data/followups/fed-followups.json). */
export const followUpLikelihood = createFollowUpLikelihood(shipped as FollowUpsData, 'fed-followups.json');

/** The metric over a follow-ups file of your own (same format as data/followups/fed-followups.json). */
export function followUpLikelihoodFromFile(path: string): Metric<FollowUpLikelihoodConfig> {
  return createFollowUpLikelihood(readFollowUps(path), path);
}
