/**
 * The prompt search job (docs/prompt-search.md): labelled items are split by dialogue context into development and
 * held-out parts; every judge × task body (ICMI 2023 parts A–D on/off, optionally in every order, optionally with
 * few-shot examples drawn from development items) × assessment request is judged on development items only; the
 * variant with the highest development Spearman rho against the human coherence target is chosen; only then are the
 * chosen variant and the paper's six variants (ICMI 2023 §2.4) judged on the held-out items, whose rho with its
 * cluster-bootstrap interval is the number to report — next to the development rho (the optimism gap).
 *
 * Every judgement runs through the judge job's runner (judgeRunner.ts): the plan's runtime options for local judges,
 * the judges' response cache beside the dialogue file (the judge job's cache, so a stopped search resumes without
 * asking again, and a judge run's replies are not asked again), and one adaptive concurrency pool per judge for the
 * whole search; `budget` caps the calls that reach a backend (cache misses).
 * Nothing is written into the dialogue file; the leaderboard goes to `<file>.prompt-search.json`.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { isObject, rejectUnknownFields } from '../config';
import type { Candidate, DialogueItem } from '../dialogue/types';
import { dimensionRequest, isBundledTarget } from '../judges/dimensionRequest';
import { DEFAULT_GROUP_RULES, inGroup } from '../labels/groups';
import { HUMAN_SCORE_RULES, humanScore, humanScorePhrase, humanScoreSpec, specScore, type HumanScoreRule, type HumanScoreSpec } from '../rubric/labelValues';
import { MI_RUBRIC } from '../rubric/presets';
import { scaleRange, type Rubric } from '../rubric/rubric';
import { loadRubric } from '../rubric/rubricFile';
import { judgeCacheKey, JudgeCache } from '../judges/cache';
import { judgeDescription, judgeLabel } from '../judges/createJudge';
import type { Judge } from '../judges/judge';
import {
  bodyShapes,
  chooseVariant,
  contextKey,
  fewShotBlock,
  humanCoherence,
  kFoldSplits,
  crossFitRho,
  type FoldPairs,
  paperVariants,
  pickFewShot,
  resolvePart,
  shapeName,
  splitByContext,
  type BodyShape,
  type FewShotExample,
  type PromptSearchSplit,
  type SplitGrouping,
} from '../judges/promptSearch';
import { assemblePrompt, loadPromptLibrary, templateHash, type PromptLibrary, type PromptVariant } from '../templates/judgePrompt';
import { costOf, type JudgeSpec, type Price } from '../judges/judgeSpec';
import type { HumanGroup } from '../labels/groups';
import { bootstrapStatistic, pick } from '../stats/clusterBootstrap';
import type { BootstrapInterval } from '../stats/bootstrap';
import { spearmanRho } from '../stats/correlation';
import { proposeRewrites, rewriteTemplate, validateProposer, type ProposedPart, type ProposerSpec } from '../judges/proposer';
import { searchReportFile, searchTemplateOf, type CrossFit, type PartFit, type SearchEntry, type SearchFold, type SearchResult } from '../judges/searchReport';
import { ResponseCache } from '../cache/responseCache';
import type { LocalRuntimeOptions } from '../models/ortRuntime';
import type { EstimateHost, ItemSink, JobHost, JobReport, JobTarget } from './host';
import { planFields } from './planFields';
import { cacheFileBeside, judgeKeys, validateJudgePlan, variantPromptTokens } from './judge';
import { openJudge, type OpenedJudge } from './judgeRunner';

/** A prompt search: the object a `search-prompts --config search.json` file holds. */
export interface SearchPromptsPlan {
  job?: 'search-prompts';
  judges: JudgeSpec[];
  /**
   * Task-body parts: `optional` parts are switched on and off (every subset; default the A, B and C parts), in their
   * listed order or, with `orders`, in every order; the `dialogue` part (default D) always comes last. Names are part
   * file names or their letter (`"A"` → `A-task-overview`).
   */
  parts?: { optional?: string[]; dialogue?: string; orders?: boolean };
  /**
   * Assessment requests (default `["rating", "scoring", "binary"]`; with a `dimension` other than the MI preset's
   * `coherent`, the dimension's request built from the rubric, and then none may be named).
   */
  requests?: string[];
  /**
   * The rubric dimension whose human score the variants are chosen on (`--dimension`): a binary, ordinal or numeric
   * dimension of the study's rubric, its score by `humanScore` as `correlate` takes it (mean rating for ordinal and
   * numeric, the count of yes for binary). Without it, the share of annotators who said coherent (ICMI 2023 §2.1).
   */
  dimension?: string;
  /** How the annotators' labels on `dimension` become one score: `mean`, `median`, `count`, `majority` (as correlate). */
  humanScore?: HumanScoreRule;
  /** Few-shot examples from development candidates: how many (each count is a variant; default [0]) and chosen how. */
  fewShot?: { counts: number[]; selection?: 'random' | 'spread' };
  /**
   * The split: `holdout` (default) puts a share of the groups in development (`devFraction`, default 0.5) and the
   * rest held out; `kfold` cross-fits over `k` folds (default 5): each fold is held out once, its variant chosen on
   * the other k − 1. Seed (default 0) and grouping (default `context`) as for both.
   */
  split?: { kind?: 'holdout' | 'kfold'; k?: number; devFraction?: number; seed?: string | number; groupBy?: SplitGrouping };
  /** Whose coherence labels make the target (default `experts`). */
  human?: HumanGroup;
  /** Score of a judgement: its `value` (default) or its probability-weighted `expected` score where it has one. */
  use?: 'value' | 'expected';
  /** Also judge the paper's six variants as baselines (default true). */
  baselines?: boolean;
  /** Held-out interval: percentile cluster bootstrap over dialogue contexts (default 1000 resamples, seed 1, 0.95). */
  bootstrap?: { resamples?: number; seed?: string | number; level?: number };
  /** At most this many calls reach a backend (cache hits are free); variants that would exceed it are skipped. */
  budget?: number;
  concurrency?: number;
  prices?: Record<string, Price>;
  /** The judge cache: `true` (default, the judge job's file beside the dialogue file), `false`, or a file. */
  cache?: boolean | string;
  /** How local judges run: threads and execution provider (over the host's settings), as in a judge plan. */
  runtime?: LocalRuntimeOptions;
  /** Write the chosen variant's templates into a prompts folder: `true` for `prompts/` in the base folder, or a folder. */
  writeWinner?: boolean | string;
  /** The leaderboard JSON: `true` (default) for `<file>.prompt-search.json`, `false`, or a file. */
  report?: boolean | string;
  /**
   * Rewrites of one part's text (default Part A) proposed by a chat model on an OpenAI-compatible endpoint
   * (judges/proposer.ts): each rewrite is swapped in wherever that part is on, as more variants to choose among on
   * development items.
   */
  proposer?: ProposerSpec;
}

const FIELDS = ['job', 'judges', 'parts', 'requests', 'dimension', 'humanScore', 'fewShot', 'split', 'human', 'use', 'baselines', 'bootstrap', 'budget', 'concurrency', 'prices', 'cache', 'runtime', 'writeWinner', 'report', 'proposer'];

/**
 * Checks a prompt search plan.
 *
 * @throws ConfigError naming the source and the field, e.g. `search.json: split.devFraction: must be in (0, 1)`
 */
export function validateSearchPromptsPlan(value: unknown, source: string): SearchPromptsPlan {
  const { c, fail } = planFields(value, source, 'search-prompts', 'a prompt search plan', FIELDS, '{"judges": [...], "requests": ["rating"]}');
  // The judges (and how local ones run) are checked exactly as the judge job checks them.
  validateJudgePlan({ judges: c.judges, bodies: ['-'], requests: ['-'], ...(c.prices !== undefined ? { prices: c.prices } : {}), ...(c.runtime !== undefined ? { runtime: c.runtime } : {}) }, source);
  if (c.parts !== undefined) {
    if (!isObject(c.parts)) fail('parts', 'must be an object like {"optional": ["A", "B", "C"], "dialogue": "D", "orders": false}');
    const p = c.parts as Record<string, unknown>;
    rejectUnknownFields(p, ['optional', 'dialogue', 'orders'], 'parts', fail);
    if (p.optional !== undefined && !(Array.isArray(p.optional) && p.optional.every((x) => typeof x === 'string' && x))) fail('parts.optional', 'must be an array of part names');
    if (p.optional !== undefined && (p.optional as string[]).length > 6) fail('parts.optional', 'at most 6 optional parts (2^6 subsets)');
    if (p.dialogue !== undefined && (typeof p.dialogue !== 'string' || !p.dialogue)) fail('parts.dialogue', 'must be a part name');
    if (p.orders !== undefined && typeof p.orders !== 'boolean') fail('parts.orders', 'must be true or false');
  }
  if (c.requests !== undefined && !(Array.isArray(c.requests) && c.requests.length > 0 && c.requests.every((r) => typeof r === 'string' && r))) fail('requests', 'must be a non-empty array of request names');
  if (c.fewShot !== undefined) {
    if (!isObject(c.fewShot)) fail('fewShot', 'must be an object like {"counts": [0, 2], "selection": "spread"}');
    const f = c.fewShot as Record<string, unknown>;
    rejectUnknownFields(f, ['counts', 'selection'], 'fewShot', fail);
    if (!(Array.isArray(f.counts) && f.counts.length > 0 && f.counts.every((n) => Number.isInteger(n) && (n as number) >= 0 && (n as number) <= 20))) fail('fewShot.counts', 'must be a non-empty array of integers from 0 to 20');
    if (f.selection !== undefined && f.selection !== 'random' && f.selection !== 'spread') fail('fewShot.selection', 'must be "random" or "spread"');
  }
  if (c.split !== undefined) {
    if (!isObject(c.split)) fail('split', 'must be an object like {"devFraction": 0.5, "seed": 0, "groupBy": "context"}');
    const s = c.split as Record<string, unknown>;
    rejectUnknownFields(s, ['kind', 'k', 'devFraction', 'seed', 'groupBy'], 'split', fail);
    if (s.kind !== undefined && s.kind !== 'holdout' && s.kind !== 'kfold') fail('split.kind', 'must be "holdout" or "kfold"');
    if (s.kind === 'kfold' && s.devFraction !== undefined) fail('split.devFraction', 'is for a holdout split; with "kfold" each fold is held out once (use "k")');
    if (s.k !== undefined && s.kind !== 'kfold') fail('split.k', 'is for a k-fold split: add "kind": "kfold"');
    if (s.k !== undefined && !(Number.isInteger(s.k) && (s.k as number) >= 2 && (s.k as number) <= 20)) fail('split.k', 'must be an integer from 2 to 20');
    if (s.devFraction !== undefined && !(typeof s.devFraction === 'number' && s.devFraction > 0 && s.devFraction < 1)) fail('split.devFraction', 'must be a number in (0, 1)');
    if (s.seed !== undefined && typeof s.seed !== 'string' && typeof s.seed !== 'number') fail('split.seed', 'must be a string or a number');
    if (s.groupBy !== undefined && s.groupBy !== 'context' && s.groupBy !== 'transcript') fail('split.groupBy', 'must be "context" or "transcript"');
  }
  if (c.dimension !== undefined && (typeof c.dimension !== 'string' || c.dimension === '')) fail('dimension', "must name a binary, ordinal or numeric dimension of the study's rubric");
  if (c.humanScore !== undefined && !HUMAN_SCORE_RULES.includes(c.humanScore as HumanScoreRule)) fail('humanScore', `must be one of ${HUMAN_SCORE_RULES.join(', ')}`);
  if (c.humanScore !== undefined && c.dimension === undefined) fail('humanScore', 'applies with a "dimension" (without one the target is the share who said coherent)');
  if (c.human !== undefined && !['experts', 'laypeople', 'all'].includes(c.human as string)) fail('human', 'must be "experts", "laypeople" or "all"');
  if (c.use !== undefined && c.use !== 'value' && c.use !== 'expected') fail('use', 'must be "value" or "expected"');
  if (c.baselines !== undefined && typeof c.baselines !== 'boolean') fail('baselines', 'must be true or false');
  if (c.bootstrap !== undefined) {
    if (!isObject(c.bootstrap)) fail('bootstrap', 'must be an object like {"resamples": 1000, "seed": 1, "level": 0.95}');
    const b = c.bootstrap as Record<string, unknown>;
    rejectUnknownFields(b, ['resamples', 'seed', 'level'], 'bootstrap', fail);
    if (b.resamples !== undefined && !(Number.isInteger(b.resamples) && (b.resamples as number) >= 1)) fail('bootstrap.resamples', 'must be an integer ≥ 1');
    if (b.level !== undefined && !(typeof b.level === 'number' && b.level > 0 && b.level < 1)) fail('bootstrap.level', 'must be in (0, 1)');
  }
  if (c.budget !== undefined && !(Number.isInteger(c.budget) && (c.budget as number) >= 0)) fail('budget', 'must be an integer ≥ 0 (calls that reach a backend)');
  if (c.concurrency !== undefined && !(Number.isInteger(c.concurrency) && (c.concurrency as number) >= 1)) fail('concurrency', 'must be an integer ≥ 1');
  for (const k of ['cache', 'writeWinner', 'report']) if (c[k] !== undefined && typeof c[k] !== 'boolean' && typeof c[k] !== 'string') fail(k, 'must be true, false or a path');
  if (c.proposer !== undefined) validateProposer(c.proposer, 'proposer', fail);
  return c as unknown as SearchPromptsPlan;
}

/** One body × request of the search (judges are crossed with these). */
export interface SearchVariant extends PromptVariant {
  shape?: BodyShape;
  /** The few-shot examples of the body (development candidates), when any. */
  examples?: { itemId: string; candidateId: string }[];
  baseline?: boolean;
}

/** The labelled items (only candidates with a human target), the split, and the variants with their library. */
export interface SearchSpace {
  lib: PromptLibrary;
  items: DialogueItem[];
  human: Map<string, number>;
  split: PromptSearchSplit;
  dev: DialogueItem[];
  test: DialogueItem[];
  variants: SearchVariant[];
  baselines: SearchVariant[];
  warnings: string[];
  /** The folds of a k-fold search (1 for a holdout split), which fold this space is, and the prompt roots it was built from. */
  folds: number;
  fold: number;
  promptRoots: readonly string[];
  /** The proposer's rewrites the space was built with (every fold's space gets the same). */
  rewrites?: readonly ProposedPart[];
  /** The study's rubric (and its file) the space's `dimension` was read from. */
  rubric?: StudyRubric;
  /** With a plan's `dimension`: its name, the human-score rule and how tables name the score. */
  target?: { dimension: string; humanScore: string; phrase: string };
}

/** A study's rubric as `loadRubric` gives it: the rubric, and its file (null for the MI preset without one). */
export interface StudyRubric {
  rubric: Rubric;
  file: string | null;
}

const candKey = (itemId: string, candidateId: string) => `${itemId}\u0000${candidateId}`;

/**
 * Builds the search space of a plan on items: keeps the candidates with a human target, splits by context, and
 * adds one synthesized body per shape (and, with few-shot examples, per request) to a copy of the prompt library.
 * For a k-fold plan the space is fold `fold`'s (0-based): that fold held out, the others development (few-shot
 * examples come from them).
 *
 * @throws ConfigError-like Error naming the unknown part or request; RangeError from the split
 */
export function buildSearchSpace(plan: SearchPromptsPlan, items: readonly DialogueItem[], promptRoots: readonly string[], fold = 0, options: { rewrites?: readonly ProposedPart[]; rubric?: StudyRubric } = {}): SearchSpace {
  const base = loadPromptLibrary(...promptRoots);
  const lib: PromptLibrary = { root: base.root, parts: { ...base.parts }, bodies: { ...base.bodies }, requests: { ...base.requests } };
  const group = plan.human ?? 'experts';
  const target = searchTarget(plan, options.rubric ?? { rubric: MI_RUBRIC, file: null });
  const human = new Map<string, number>();
  // Few-shot answers are placed on the request's scale from the target in [0, 1].
  const unit = new Map<string, number>();
  const labelled: DialogueItem[] = [];
  for (const it of items) {
    const candidates = it.candidates.filter((c) => {
      const h = target.score(c, group);
      if (h !== null) {
        human.set(candKey(it.id, c.id), h);
        unit.set(candKey(it.id, c.id), target.unit(c, group) as number);
      }
      return h !== null;
    });
    if (candidates.length) labelled.push({ ...it, candidates });
  }
  if (labelled.length === 0) throw new Error(`no candidate has ${target.label} from the ${group}: nothing to search on`);
  const kfold = plan.split?.kind === 'kfold';
  const folds = kfold ? (plan.split?.k ?? 5) : 1;
  const split = kfold ? kFoldSplits(labelled, { k: folds, seed: plan.split?.seed, groupBy: plan.split?.groupBy })[fold] : splitByContext(labelled, plan.split ?? {});
  const dev = labelled.filter((it) => split.dev.has(it.id));
  const test = labelled.filter((it) => split.test.has(it.id));
  const part = (name: string, field: string) => {
    const p = resolvePart(lib, name);
    if (!p) throw new Error(`${field}: no task-body part "${name}" (known: ${Object.keys(lib.parts).join(', ')})`);
    return p;
  };
  const optional = (plan.parts?.optional ?? ['A', 'B', 'C']).map((n) => part(n, 'parts.optional'));
  const dialogue = part(plan.parts?.dialogue ?? 'D', 'parts.dialogue');
  let requests = plan.requests ?? ['rating', 'scoring', 'binary'];
  if (plan.dimension !== undefined && options.rubric && !isBundledTarget(options.rubric.rubric, plan.dimension)) {
    if (plan.requests) throw new Error(`requests: the request for dimension ${JSON.stringify(plan.dimension)} is built from the rubric${options.rubric.file ? ` (${options.rubric.file})` : ''}; leave "requests" out, the bundled ones ask about coherence`);
    const r = dimensionRequest(options.rubric.rubric, plan.dimension, options.rubric.file ?? undefined);
    lib.requests[r.name] = { file: r.file, source: r.source, spec: r.spec };
    requests = [r.name];
  }
  for (const r of requests) if (!lib.requests[r]) throw new Error(`requests: no assessment request "${r}" (known: ${Object.keys(lib.requests).join(', ')})`);
  for (const r of requests) if (lib.requests[r].spec.kind === 'errorCategories') throw new Error(`requests: "${r}" asks for error categories, which have no coherence score to search on`);
  const shapes = bodyShapes(optional, dialogue, { orders: plan.parts?.orders, fewShot: plan.fewShot?.counts });
  // A proposer's rewrite of a part: every shape that holds the part again, with the rewrite in its place.
  for (const rewrite of options.rewrites ?? []) {
    lib.parts[rewrite.name] = { file: `(proposer) ${rewrite.name}`, source: rewriteTemplate(rewrite) };
    for (const shape of shapes.filter((sh) => sh.parts.includes(rewrite.replaces))) shapes.push({ ...shape, parts: shape.parts.map((p) => (p === rewrite.replaces ? rewrite.name : p)) });
  }
  const pool: FewShotExample[] = dev.flatMap((it) => it.candidates.map((c) => ({ itemId: it.id, candidateId: c.id, human: unit.get(candKey(it.id, c.id))! })));
  const byKey = new Map(dev.flatMap((it) => it.candidates.map((c) => [candKey(it.id, c.id), { item: it, candidate: c }] as const)));
  const warnings: string[] = [];
  const variants: SearchVariant[] = [];
  for (const shape of shapes) {
    const name = shapeName(shape);
    if (shape.fewShot === 0) {
      lib.bodies[name] = { file: `(search) ${name}`, source: shape.parts.map((p) => `{{> ${p}}}`).join('\n\n') + '\n' };
      for (const request of requests) variants.push({ body: name, request, shape });
      continue;
    }
    const examples = pickFewShot(pool, shape.fewShot, plan.fewShot?.selection ?? 'spread', plan.split?.seed ?? 0);
    for (const request of requests) {
      const block = fewShotBlock(examples.map((e) => ({ ...byKey.get(candKey(e.itemId, e.candidateId))!, human: e.human })), lib.requests[request]);
      if (block === null) {
        warnings.push(`${name} × ${request}: an example's text contains "<%" or "%>", so it cannot be embedded; variant left out`);
        continue;
      }
      const partName = `examples-${contextKey({ context: [{ speaker: 'client', text: block }] }).slice(0, 8)}`;
      lib.parts[partName] = { file: `(search) ${partName}`, source: block + '\n' };
      const bodyName = `${name}-${request}`;
      const parts = [...shape.parts.slice(0, -1), partName, shape.parts[shape.parts.length - 1]];
      lib.bodies[bodyName] = { file: `(search) ${bodyName}`, source: parts.map((p) => `{{> ${p}}}`).join('\n\n') + '\n' };
      variants.push({ body: bodyName, request, shape, examples: examples.map((e) => ({ itemId: e.itemId, candidateId: e.candidateId })) });
    }
  }
  for (const v of variants) templateHash(lib, v);
  const baselines = plan.baselines === false ? [] : paperVariants(base).map((v) => ({ ...v, baseline: true }));
  return { lib, items: labelled, human, split, dev, test, variants, baselines, warnings, folds, fold, promptRoots, ...(options.rewrites?.length ? { rewrites: options.rewrites } : {}), ...(options.rubric ? { rubric: options.rubric } : {}), ...(target.spec ? { target: { dimension: target.spec.dimension.name, humanScore: target.spec.rule, phrase: humanScorePhrase(target.spec) } } : {}) };
}

/**
 * The human target of a search: without a dimension the share of a group's annotators who said coherent
 * ({@link humanCoherence}); with one, the dimension's human score as correlate takes it (`humanScoreSpec`), and for
 * few-shot answers the mean label rescaled to [0, 1] over the dimension's scale (the share who said yes, for binary).
 *
 * @throws Error when the dimension is not a scale dimension of the rubric or the rule does not fit it
 */
function searchTarget(plan: Pick<SearchPromptsPlan, 'dimension' | 'humanScore'>, study: StudyRubric): { label: string; spec?: HumanScoreSpec; score: (c: Candidate, group: HumanGroup) => number | null; unit: (c: Candidate, group: HumanGroup) => number | null } {
  if (plan.dimension === undefined) {
    const score = (c: Candidate, group: HumanGroup) => humanCoherence(c, group);
    return { label: 'a coherence label', score, unit: score };
  }
  const spec = humanScoreSpec(study.rubric, plan.dimension, plan.humanScore);
  const d = spec.dimension;
  const { min, max } = scaleRange(d);
  return {
    label: `a label of ${JSON.stringify(d.name)}`,
    spec,
    score: (c, group) => specScore(c, spec, inGroup(group, DEFAULT_GROUP_RULES)),
    unit: (c, group) => {
      const m = humanScore(c, d, spec.rubric, d.type === 'binary' ? 'mean' : spec.rule === 'median' ? 'median' : 'mean', inGroup(group, DEFAULT_GROUP_RULES));
      return m === null ? null : (m - min) / (max - min);
    },
  };
}

const countCandidates = (items: readonly DialogueItem[]) => items.reduce((n, it) => n + it.candidates.length, 0);

/** The search's judge cache: the judge job's file beside the dialogue file, a file of the plan's, or null. */
export function searchCacheFile(plan: Pick<SearchPromptsPlan, 'cache'>, file: string, baseDir: string): string | null {
  return plan.cache === false ? null : typeof plan.cache === 'string' ? resolve(baseDir, plan.cache) : cacheFileBeside(file, 'judge-cache.jsonl');
}

/** A search's estimate with the warnings of its search space (variants left out), as its job record gives it. */
export type SearchPlanEstimate = SearchEstimate & { warnings: string[] };

/**
 * The prompt search's estimate on a dialogue file (its job record's `estimate`): the search space of the plan on the
 * target's items, then {@link estimateSearchPlan} against the plan's judge cache.
 *
 * @throws Error for an unknown part or request, or too few labelled contexts to split
 */
export async function estimateSearchPromptsPlan(plan: SearchPromptsPlan, target: JobTarget, host: EstimateHost): Promise<SearchPlanEstimate> {
  const space = buildSearchSpace(plan, target.items, host.promptRoots, 0, { rubric: loadRubric(target.file) });
  return { ...(await estimateSearchPlan(plan, space, searchCacheFile(plan, target.file, host.baseDir))), warnings: space.warnings };
}

/** The estimate as lines for a confirmation or `--dry-run`. */
export function estimateLines(est: SearchEstimate, plan: Pick<SearchPromptsPlan, 'budget' | 'proposer'>): string[] {
  const k = est.folds ?? 1;
  const out = k > 1 ? [
    `split: ${k} folds by group (${est.testGroups} contexts, ${est.testItems} items, ${est.testCandidates} labelled candidates); each fold is held out once, its variant chosen on the other ${k - 1}`,
    `at most ${est.judgements} judgements over the ${k} folds: (${est.variants} variants + ${est.baselines} baselines) × ${est.judges} judge(s) × ${est.devCandidates} development candidate-folds + (1 winner + ${est.baselines} baselines × ${est.judges} judge(s)) × ${est.testCandidates} held-out candidates; a prompt repeated across folds is asked once`,
  ] : [
    `split: ${est.devItems} development items (${est.devCandidates} labelled candidates, ${est.devGroups} contexts), ${est.testItems} held-out items (${est.testCandidates} candidates, ${est.testGroups} contexts)`,
    `${est.judgements} judgements: (${est.variants} variants + ${est.baselines} baselines) × ${est.judges} judge(s) × ${est.devCandidates} development candidates + (1 winner + ${est.baselines} baselines × ${est.judges} judge(s)) × ${est.testCandidates} held-out candidates`,
  ];
  out.push(est.uncached === null ? 'no cache file yet: every judgement is a call' : `at most ${est.uncached} of them are not in the cache (calls)`);
  for (const j of est.perJudge) out.push(`${j.label}: ${j.promptTokens} prompt tokens${j.approximate ? ' (approximate tokenizer)' : ''}${j.cost === null ? ' (no price in the plan)' : `, cost ≤ ${j.cost.toFixed(4)}`}`);
  if (est.cost !== null) out.push(`estimated cost ≤ ${est.cost.toFixed(4)}`);
  if (plan.budget !== undefined) out.push(`budget: ${plan.budget} calls (variants that would pass it are skipped)`);
  if (plan.proposer) out.push(`proposer: ${plan.proposer.rewrites} rewrite(s) of part ${plan.proposer.part ?? 'A'} by ${plan.proposer.model} (${plan.proposer.rewrites} call(s) unless cached); each rewrite adds the variants that hold that part, not counted above`);
  return out;
}

/** What a search will ask, shown before it runs. */
export interface SearchEstimate {
  devItems: number;
  testItems: number;
  devCandidates: number;
  testCandidates: number;
  devGroups: number;
  testGroups: number;
  variants: number;
  baselines: number;
  judges: number;
  /** Development judgements (every variant and baseline × judge) + held-out (the winner and the baselines × judge). */
  judgements: number;
  /** Of those, prompts not in the cache yet (calls a backend will get), when the cache is known; null otherwise. */
  uncached: number | null;
  /** Per API judge with a price: prompt tokens of the development phase and the most expensive held-out phase; cost bound. */
  perJudge: { label: string; promptTokens: number; approximate: boolean; cost: number | null }[];
  cost: number | null;
  /** k of a k-fold search: then every count is the sum over the folds (each fold's development and held-out part). */
  folds?: number;
}

/**
 * Counts a search's judgements and bounds its cost before it runs: development = (variants + baselines) × judges ×
 * development candidates; held-out = (1 + baselines × judges) × held-out candidates. Prompt tokens as the judge job
 * counts them ({@link variantPromptTokens}); the held-out winner is bounded by the variant with the most tokens; at
 * most `maxTokens` (default 16) reply tokens per call. With a cache, the prompts already answered are counted apart.
 */
export async function estimateSearchPlan(plan: SearchPromptsPlan, space: SearchSpace, cacheFile: string | null): Promise<SearchEstimate> {
  if (space.folds <= 1) return estimateOneSplit(plan, space, cacheFile);
  // k folds: the sum of the folds' estimates (an upper bound: a prompt asked in several folds is asked once).
  const parts: SearchEstimate[] = [];
  for (let f = 0; f < space.folds; f++) parts.push(await estimateOneSplit(plan, f === space.fold ? space : buildSearchSpace(plan, space.items, space.promptRoots, f, { rewrites: space.rewrites, rubric: space.rubric }), cacheFile));
  const sum = (k: 'devItems' | 'testItems' | 'devCandidates' | 'testCandidates' | 'devGroups' | 'testGroups' | 'judgements') => parts.reduce((n, p) => n + p[k], 0);
  const costs = parts.map((p) => p.cost);
  return {
    devItems: sum('devItems'),
    testItems: sum('testItems'),
    devCandidates: sum('devCandidates'),
    testCandidates: sum('testCandidates'),
    devGroups: sum('devGroups'),
    testGroups: sum('testGroups'),
    variants: space.variants.length,
    baselines: space.baselines.length,
    judges: plan.judges.length,
    judgements: sum('judgements'),
    uncached: parts.some((p) => p.uncached === null) ? null : parts.reduce((n, p) => n + (p.uncached as number), 0),
    perJudge: parts[0].perJudge.map((j, i) => ({ ...j, promptTokens: parts.reduce((n, p) => n + p.perJudge[i].promptTokens, 0), cost: parts.some((p) => p.perJudge[i].cost === null) ? null : parts.reduce((n, p) => n + (p.perJudge[i].cost as number), 0) })),
    cost: costs.some((c) => c === null) ? null : costs.reduce((n: number, c) => n + (c as number), 0),
    folds: space.folds,
  };
}

async function estimateOneSplit(plan: SearchPromptsPlan, space: SearchSpace, cacheFile: string | null): Promise<SearchEstimate> {
  const devC = countCandidates(space.dev);
  const testC = countCandidates(space.test);
  const devVariants = [...space.variants, ...space.baselines];
  const judges = plan.judges.length;
  const judgements = devVariants.length * judges * devC + (1 + space.baselines.length * judges) * testC;
  let uncached: number | null = null;
  if (cacheFile && existsSync(cacheFile)) {
    const cache = new JudgeCache(cacheFile);
    uncached = 0;
    for (const spec of plan.judges) {
      const backend = judgeDescription(spec);
      const miss = (v: PromptVariant, its: readonly DialogueItem[]) =>
        its.reduce((n, it) => n + it.candidates.filter((c) => {
          const a = assemblePrompt(space.lib, v, it.context, c.text);
          return !cache.get(judgeCacheKey(backend, { prompt: a.text, spec: a.spec }));
        }).length, 0);
      for (const v of devVariants) uncached += miss(v, space.dev);
      for (const v of space.baselines) uncached += miss(v, space.test);
    }
    uncached += testC; // the winner on held-out items (unknown yet: counted as uncached)
  }
  const perJudge: SearchEstimate['perJudge'] = [];
  let cost: number | null = null;
  for (const spec of plan.judges) {
    if (spec.backend === 'local' || !spec.model) continue;
    let promptTokens = 0;
    let approximate = false;
    let maxTest = 0;
    for (const v of devVariants) {
      const d = await variantPromptTokens(spec.model, space.lib, v, space.dev);
      const t = await variantPromptTokens(spec.model, space.lib, v, space.test);
      promptTokens += d.tokens + (v.baseline ? t.tokens : 0);
      maxTest = Math.max(maxTest, t.tokens);
      approximate ||= d.approximate || t.approximate;
    }
    promptTokens += maxTest;
    const calls = devVariants.length * devC + (1 + space.baselines.length) * testC;
    const bound = costOf({ promptTokens, completionTokens: (spec.maxTokens ?? 16) * calls }, plan.prices?.[spec.model]);
    perJudge.push({ label: judgeLabel(spec), promptTokens, approximate, cost: bound });
    if (bound !== null) cost = (cost ?? 0) + bound;
  }
  return {
    devItems: space.dev.length,
    testItems: space.test.length,
    devCandidates: devC,
    testCandidates: testC,
    devGroups: space.split.devGroups,
    testGroups: space.split.testGroups,
    variants: space.variants.length,
    baselines: space.baselines.length,
    judges,
    judgements,
    uncached,
    perJudge,
    cost,
  };
}

function fit(items: readonly DialogueItem[], evaluatorId: string, human: Map<string, number>, use: 'value' | 'expected', groupOf: Map<string, string>, bootstrap?: { resamples: number; seed: string | number; level: number }): PartFit {
  return fitOfPairs(pairsOf(items, evaluatorId, human, use, groupOf), bootstrap);
}

/** The usable (score, human target, context) pairs of one evaluator on items, and how many judgements were unusable. */
function pairsOf(items: readonly DialogueItem[], evaluatorId: string, human: Map<string, number>, use: 'value' | 'expected', groupOf: Map<string, string>): FoldPairs & { failures: number } {
  const x: number[] = [];
  const y: number[] = [];
  const clusters: string[] = [];
  let failures = 0;
  for (const it of items) {
    for (const c of it.candidates) {
      const s = c.scores[evaluatorId];
      const v = s && s.status === 'ok' ? (use === 'expected' && typeof s.expected === 'number' ? s.expected : s.value) : null;
      if (typeof v !== 'number' || !Number.isFinite(v)) {
        failures++;
        continue;
      }
      x.push(v);
      y.push(human.get(candKey(it.id, c.id))!);
      clusters.push(groupOf.get(it.id)!);
    }
  }
  return { x, y, clusters, failures };
}

function fitOfPairs({ x, y, clusters, failures }: FoldPairs & { failures: number }, bootstrap?: { resamples: number; seed: string | number; level: number }): PartFit {
  const rho = x.length >= 3 ? spearmanRho(x, y).statistic : null;
  const out: PartFit = { rho, n: x.length, failures };
  if (bootstrap && rho !== null) {
    out.ci = bootstrapStatistic(x.length, (idx) => spearmanRho(pick(x, idx), pick(y, idx)).statistic, { ...bootstrap, clusters: [...clusters] });
  }
  return out;
}

/**
 * Runs a prompt search on the target's labelled candidates (see the module comment). Nothing reaches the sink: the
 * dialogue file is not changed.
 *
 * @returns a report whose `data` is the {@link SearchResult}; the leaderboard JSON and, with `writeWinner`, the
 *   chosen templates are its `files`
 * @throws Error for an unknown part or request, or when the items have fewer than 2 labelled contexts
 */
export async function runSearchPromptsPlan(plan: SearchPromptsPlan, target: JobTarget, host: JobHost, _sink?: ItemSink): Promise<JobReport> {
  const rubric = loadRubric(target.file);
  let space = buildSearchSpace(plan, target.items as DialogueItem[], host.promptRoots, 0, { rubric });
  const report: JobReport = { job: 'search-prompts', lines: [], warnings: [...space.warnings], files: [] };
  const cacheFile = searchCacheFile(plan, target.file, host.baseDir);
  let est = await estimateSearchPlan(plan, space, cacheFile);
  // Every key is asked for before anything runs (the judge job's rule), the proposer's with the judges': a declined
  // one stops the search.
  const proposer = plan.proposer;
  const keys = await judgeKeys({ judges: [...plan.judges, ...(proposer ? [{ backend: 'openai-chat' as const, baseURL: proposer.baseURL, model: proposer.model, apiKeyEnv: proposer.apiKeyEnv, headers: proposer.headers }] : [])] }, host);
  if ('declined' in keys) return { ...report, nothingDone: keys.declined };
  let proposals: ProposedPart[] | undefined;
  if (proposer) {
    const replaces = resolvePart(space.lib, proposer.part ?? 'A');
    if (!replaces) throw new Error(`proposer.part: no task-body part "${proposer.part ?? 'A'}" (known: ${Object.keys(space.lib.parts).join(', ')})`);
    const answer = keys.get(plan.judges.length);
    if (!answer || !('key' in answer)) report.warnings.push(`the proposer ${proposer.model} did not run (no rewrites): ${answer && 'missing' in answer ? answer.missing : 'no key'}`);
    else {
      const proposerCache = cacheFile ? new ResponseCache<{ text: string }>(join(dirname(cacheFile), 'proposer-cache.jsonl')) : null;
      const proposal = await proposeRewrites(proposer, answer.key, replaces, space.lib.parts[replaces].source, proposerCache, host.signal);
      proposals = proposal.parts;
      report.warnings.push(...proposal.warnings);
      report.lines.push(`proposer ${proposer.model}: ${proposal.parts.length} rewrite(s) of ${replaces} (${proposal.calls} call(s), ${proposal.cacheHits} from cache)`);
      space = buildSearchSpace(plan, target.items as DialogueItem[], host.promptRoots, 0, { rewrites: proposal.parts, rubric });
      if (proposal.parts.length && !space.variants.some((v) => v.shape?.parts.some((p) => proposal.parts.some((r) => r.name === p)))) {
        report.warnings.push(`the proposer's rewrites of ${replaces} are in no variant: ${replaces} is not among the parts switched on and off`);
      }
      est = await estimateSearchPlan(plan, space, cacheFile);
    }
  }
  host.log(
    est.folds && est.folds > 1 ? `prompt search: ${est.folds} folds over ${est.testGroups} contexts (${est.testCandidates} labelled candidates), each held out once; ${est.variants} variants + ${est.baselines} baselines × ${est.judges} judge(s); at most ${est.judgements} judgements${est.uncached !== null ? `, at most ${est.uncached} not cached` : ''}${est.cost !== null ? `, cost ≤ ${est.cost.toFixed(4)}` : ''}${plan.budget !== undefined ? `; budget ${plan.budget} calls` : ''}` :
    `prompt search: ${est.devItems} development items (${est.devCandidates} candidates, ${est.devGroups} contexts), ${est.testItems} held-out (${est.testCandidates} candidates, ${est.testGroups} contexts); ${est.variants} variants + ${est.baselines} baselines × ${est.judges} judge(s); ${est.judgements} judgements${est.uncached !== null ? `, at most ${est.uncached} not cached` : ''}${est.cost !== null ? `, cost ≤ ${est.cost.toFixed(4)}` : ''}${plan.budget !== undefined ? `; budget ${plan.budget} calls` : ''}`,
  );
  const cache = cacheFile ? new JudgeCache(cacheFile) : null;
  const use = plan.use ?? 'value';
  const level = plan.bootstrap?.level ?? 0.95;
  const bootstrap = { resamples: plan.bootstrap?.resamples ?? 1000, seed: plan.bootstrap?.seed ?? 1, level };
  const budget = plan.budget ?? Infinity;
  const testC = countCandidates(space.test);
  // Held-out calls are reserved first, so the search cannot spend the budget the honest number needs.
  const reserved = testC * (1 + space.baselines.length * plan.judges.length);
  let calls = 0;
  let hits = 0;
  let done = 0;
  const total = est.judgements;
  // The judges run as the judge job runs them (judgeRunner.ts): the plan's runtime options, the response cache, one
  // adaptive pool per judge for every variant of the search — development, held-out and every fold.
  const made: ({ opened: OpenedJudge; answering: Judge } | undefined)[] = [];
  const entries: SearchEntry[] = [];
  // A prompt asked twice in one search (a body equal to a bundled one; the same item in several folds) is asked once.
  const memo = new Map<string, ReturnType<Judge['judge']>>();
  const counting = (opened: OpenedJudge): Judge => {
    const inner = opened.cached();
    return {
      id: inner.id,
      signature: inner.signature,
      ...(inner.budget ? { budget: inner.budget } : {}),
      judge(req) {
        const key = judgeCacheKey(opened.backend, req);
        const seen = memo.get(key);
        if (seen) {
          hits++;
          return seen;
        }
        const hit = cache ? Boolean(cache.get(key)) : false;
        if (hit) hits++;
        else calls++;
        const answer = inner.judge(req);
        memo.set(key, answer);
        answer.catch(() => memo.delete(key));
        return answer;
      },
    };
  };
  const uncachedOf = (k: number, v: PromptVariant, its: readonly DialogueItem[], lib = space.lib) =>
    its.reduce((n, it) => n + it.candidates.filter((c) => { const a = assemblePrompt(lib, v, it.context, c.text); const key = judgeCacheKey(made[k]!.opened.backend, { prompt: a.text, spec: a.spec }); return !memo.has(key) && !cache?.get(key); }).length, 0);
  const judgeOn = async (k: number, v: SearchVariant, its: readonly DialogueItem[], label: string, entry?: SearchEntry, lib = space.lib) => {
    const [c0, h0] = [calls, hits];
    const { opened, answering } = made[k]!;
    const res = await opened.judgeItems(its, lib, v, {
      answering,
      onProgress: (p) => host.progress({ done: done + p.done, total, message: `${label}: ${opened.judge.id} ${v.body} × ${v.request}` }),
    });
    done += countCandidates(its);
    if (entry) {
      entry.calls = (entry.calls ?? 0) + calls - c0;
      entry.cacheHits = (entry.cacheHits ?? 0) + hits - h0;
    }
    return res;
  };
  try {
    for (let k = 0; k < plan.judges.length; k++) {
      const spec = plan.judges[k];
      made.push(undefined);
      try {
        const opened = await openJudge(spec, k, keys, plan, host, cache);
        made[k] = { opened, answering: counting(opened) };
      } catch (err) {
        report.warnings.push(`judge ${judgeLabel(spec)} did not run: ${(err as Error).message}`);
      }
    }
    const libOf = new Map<number, PromptLibrary>();
    let winner: number;
    let optimismGap: number | null;
    let folds: SearchFold[] | undefined;
    let crossFit: CrossFit | undefined;
    if (space.folds > 1) ({ winner, optimismGap, folds, crossFit } = await runFolds());
    else ({ winner, optimismGap } = await runHoldout());
    async function runHoldout(): Promise<{ winner: number; optimismGap: number | null }> {
    // Development phase: every judge × variant (and the baselines, for their development rho).
    for (let k = 0; k < plan.judges.length; k++) {
      for (const v of [...space.variants, ...space.baselines]) {
        const entry: SearchEntry = { judge: judgeLabel(plan.judges[k]), judgeIndex: k, body: v.body, request: v.request, ...(v.shape ? { parts: v.shape.parts, fewShot: v.shape.fewShot } : {}), baseline: Boolean(v.baseline), templateHash: templateHash(space.lib, v) };
        entries.push(entry);
        if (!made[k]) {
          entry.skipped = 'the judge did not load';
          continue;
        }
        if (host.signal?.aborted) {
          entry.skipped = 'cancelled';
          continue;
        }
        const need = uncachedOf(k, v, space.dev);
        if (calls + need + reserved > budget) {
          entry.skipped = `budget: ${need} uncached calls would pass ${budget} (${calls} spent, ${reserved} reserved for held-out)`;
          done += countCandidates(space.dev);
          continue;
        }
        const res = await judgeOn(k, v, space.dev, 'development', entry);
        entry.evaluatorId = res.evaluatorId;
        entry.dev = fit(res.items, res.evaluatorId, space.human, use, space.split.groupOf, bootstrap);
      }
    }
    const searchRows = entries.map((e, i) => ({ e, i })).filter(({ e }) => !e.baseline);
    const pickAt = chooseVariant(searchRows.map(({ e }) => ({ rho: e.dev?.rho ?? null, n: e.dev?.n ?? 0 })));
    const winner = pickAt < 0 ? -1 : searchRows[pickAt].i;
    // Held-out phase: only now are held-out items judged — the winner, then the baselines.
    const heldOut = async (e: SearchEntry) => {
      if (host.signal?.aborted || !made[e.judgeIndex]) return;
      const v = space.variants.find((x) => x.body === e.body && x.request === e.request) ?? { body: e.body, request: e.request };
      const res = await judgeOn(e.judgeIndex, v, space.test, 'held-out', e);
      e.heldOut = fit(res.items, res.evaluatorId, space.human, use, space.split.groupOf, bootstrap);
    };
    if (winner >= 0) await heldOut(entries[winner]);
    for (const e of entries) if (e.baseline && !e.skipped) await heldOut(e);
    const w = winner >= 0 ? entries[winner] : undefined;
    return { winner, optimismGap: w?.dev?.rho != null && w?.heldOut?.rho != null ? w.dev.rho - w.heldOut.rho : null };
    }

    /** k-fold cross-fitting: per fold, choose on the other folds' items, then judge the choice on the fold's items. */
    async function runFolds(): Promise<{ winner: number; optimismGap: number | null; folds: SearchFold[]; crossFit: CrossFit }> {
      const K = space.folds;
      const spaces = Array.from({ length: K }, (_, f) => (f === 0 ? space : buildSearchSpace(plan, target.items as DialogueItem[], host.promptRoots, f, { rewrites: space.rewrites, rubric })));
      const index = new Map<string, number>();
      const devFits: (PartFit | undefined)[][] = [];
      const heldPairs: ((FoldPairs & { failures: number }) | undefined)[][] = [];
      const entryOf = (k: number, v: SearchVariant, sp: SearchSpace): number => {
        const key = `${k}\u0000${v.body}\u0000${v.request}`;
        let i = index.get(key);
        if (i === undefined) {
          i = entries.push({ judge: judgeLabel(plan.judges[k]), judgeIndex: k, body: v.body, request: v.request, ...(v.shape ? { parts: v.shape.parts, fewShot: v.shape.fewShot } : {}), baseline: Boolean(v.baseline), templateHash: templateHash(sp.lib, v) }) - 1;
          index.set(key, i);
          libOf.set(i, sp.lib);
          devFits.push([]);
          heldPairs.push([]);
        }
        return i;
      };
      // The held-out calls of this and the later folds are reserved first, as in a holdout search.
      const heldOutCalls = spaces.map((sp) => countCandidates(sp.test) * (1 + sp.baselines.length * plan.judges.length));
      const foldsOut: SearchFold[] = [];
      for (let f = 0; f < K; f++) {
        const sp = spaces[f];
        const reservedLeft = heldOutCalls.slice(f).reduce((a, b) => a + b, 0);
        for (let k = 0; k < plan.judges.length; k++) {
          for (const v of [...sp.variants, ...sp.baselines]) {
            const i = entryOf(k, v, sp);
            const e = entries[i];
            if (!made[k]) {
              e.skipped = 'the judge did not load';
              continue;
            }
            if (host.signal?.aborted) {
              e.skipped = 'cancelled';
              continue;
            }
            const need = uncachedOf(k, v, sp.dev, sp.lib);
            if (calls + need + reservedLeft > budget) {
              e.skipped = `${e.skipped ? `${e.skipped}; ` : ''}fold ${f + 1}: budget: ${need} uncached calls would pass ${budget} (${calls} spent, ${reservedLeft} reserved for held-out)`;
              done += countCandidates(sp.dev);
              continue;
            }
            const res = await judgeOn(k, v, sp.dev, `fold ${f + 1}/${K} development`, e, sp.lib);
            e.evaluatorId ??= res.evaluatorId;
            devFits[i][f] = fit(res.items, res.evaluatorId, sp.human, use, sp.split.groupOf);
          }
        }
        const rows = entries.map((e, i) => ({ e, i })).filter(({ e }) => !e.baseline);
        const at = chooseVariant(rows.map(({ i }) => ({ rho: devFits[i][f]?.rho ?? null, n: devFits[i][f]?.n ?? 0 })));
        const w = at < 0 ? -1 : rows[at].i;
        const fold: SearchFold = { devGroups: sp.split.devGroups, testGroups: sp.split.testGroups, testItems: sp.test.map((it) => it.id), winner: w };
        // Only now is this fold's held-out part judged: its chosen variant, then the baselines.
        const judgeHeldOut = async (i: number) => {
          const e = entries[i];
          if (host.signal?.aborted || !made[e.judgeIndex]) return;
          const v = sp.variants.find((x) => x.body === e.body && x.request === e.request) ?? { body: e.body, request: e.request };
          const res = await judgeOn(e.judgeIndex, v, sp.test, `fold ${f + 1}/${K} held-out`, e, sp.lib);
          heldPairs[i][f] = pairsOf(res.items, res.evaluatorId, sp.human, use, sp.split.groupOf);
        };
        if (w >= 0) {
          await judgeHeldOut(w);
          fold.dev = devFits[w][f];
          const p = heldPairs[w][f];
          if (p) fold.heldOut = fitOfPairs(p, bootstrap);
        }
        for (let i = 0; i < entries.length; i++) if (entries[i].baseline && devFits[i][f]) await judgeHeldOut(i);
        foldsOut.push(fold);
      }
      const weighted = (fits: (PartFit | undefined)[]) => {
        const ok = fits.filter((x): x is PartFit => x !== undefined && x.rho !== null);
        const n = ok.reduce((s, x) => s + x.n, 0);
        return n > 0 ? ok.reduce((s, x) => s + x.n * (x.rho as number), 0) / n : null;
      };
      entries.forEach((e, i) => {
        const devs = devFits[i].filter((x): x is PartFit => x !== undefined);
        if (devs.length) e.dev = { rho: weighted(devs), n: devs.reduce((s, x) => s + x.n, 0), failures: devs.reduce((s, x) => s + x.failures, 0) };
        const held = heldPairs[i].filter((x): x is FoldPairs & { failures: number } => x !== undefined);
        if (held.length) {
          const cf = crossFitRho(held, bootstrap);
          e.heldOut = { rho: cf.rho, n: cf.n, failures: held.reduce((s, x) => s + x.failures, 0), ...(cf.ci ? { ci: cf.ci } : {}) };
        }
      });
      const winnerPairs = foldsOut.flatMap((fo, f) => (fo.winner >= 0 && heldPairs[fo.winner][f] ? [heldPairs[fo.winner][f]!] : []));
      const cf = crossFitRho(winnerPairs, bootstrap);
      const devRho = weighted(foldsOut.map((fo) => fo.dev));
      const crossFit: CrossFit = { k: K, rho: cf.rho, n: cf.n, ...(cf.ci ? { ci: cf.ci } : {}), devRho, optimismGap: devRho !== null && cf.rho !== null ? devRho - cf.rho : null };
      const chosen = new Set(foldsOut.map((fo) => fo.winner));
      const single = chosen.size === 1 ? foldsOut[0].winner : -1;
      return { winner: single, optimismGap: crossFit.optimismGap, folds: foldsOut, crossFit };
    }

    const result: SearchResult = {
      split: space.folds > 1
        ? { kind: 'kfold', k: space.folds, seed: plan.split?.seed ?? 0, devFraction: (space.folds - 1) / space.folds, groupBy: plan.split?.groupBy ?? 'context', devGroups: 0, testGroups: space.split.devGroups + space.split.testGroups, devItems: [], testItems: space.items.map((it) => it.id) }
        : {
        kind: 'holdout',
        seed: plan.split?.seed ?? 0,
        devFraction: plan.split?.devFraction ?? 0.5,
        groupBy: plan.split?.groupBy ?? 'context',
        devGroups: space.split.devGroups,
        testGroups: space.split.testGroups,
        devItems: space.dev.map((it) => it.id),
        testItems: space.test.map((it) => it.id),
      },
      human: plan.human ?? 'experts',
      ...(space.target ? { target: space.target } : {}),
      entries,
      winner,
      optimismGap,
      calls,
      cacheHits: hits,
      ...(proposals ? { proposals } : {}),
      estimate: { judgements: est.judgements, cost: est.cost },
      templates: Object.fromEntries(entries.flatMap((e, i) => { const t = searchTemplateOf(libOf.get(i) ?? space.lib, e.body); return t ? [[e.body, t] as const] : []; })),
      ...(folds ? { folds } : {}),
      ...(crossFit ? { crossFit } : {}),
    };
    report.lines.push(...searchReportLines(result, level));
    report.summary = report.lines.slice(0, 3);
    for (const m of made) {
      const limited = m?.opened.rateLimitLine();
      if (limited) report.lines.push(limited);
    }
    report.cancelled = Boolean(host.signal?.aborted);
    const anyChoice = winner >= 0 || (folds ?? []).some((fo) => fo.winner >= 0);
    if (!anyChoice && !report.cancelled) report.nothingDone = entries.every((e) => e.skipped) ? `no variant was judged (${entries[0]?.skipped ?? 'no variants'})` : 'no variant has a development correlation (constant scores or fewer than 3 usable judgements)';
    const reportFile = plan.report === false ? null : typeof plan.report === 'string' ? resolve(host.baseDir, plan.report) : searchReportFile(target.file);
    if (reportFile) {
      writeFileSync(reportFile, JSON.stringify(result, null, 2) + '\n');
      report.files!.push(reportFile);
    }
    const w = winner >= 0 ? entries[winner] : undefined;
    if (w && plan.writeWinner) {
      const dir = typeof plan.writeWinner === 'string' ? resolve(host.baseDir, plan.writeWinner) : join(host.baseDir, 'prompts');
      report.files!.push(...writeWinnerTemplates(libOf.get(winner) ?? space.lib, w, dir));
    } else if (plan.writeWinner && anyChoice) report.warnings.push('the folds chose different variants: no single winner to write (see the folds in the report)');
    report.data = result as unknown as Record<string, unknown>;
    return report;
  } finally {
    for (const m of made) if (m) await m.opened.dispose();
  }
}

const f3 = (v: number | null | undefined) => (v === null || v === undefined ? '–' : v.toFixed(3));
const ci3 = (ci?: BootstrapInterval) => (ci ? ` [${f3(ci.lower)}, ${f3(ci.upper)}]` : '');

/** The leaderboard as lines: the winner with its held-out and development rho and the gap, the baselines, then the development ranking. */
export function searchReportLines(r: SearchResult, level = 0.95): string[] {
  const out: string[] = [];
  const pct = Math.round(level * 100);
  const name = (e: SearchEntry) => `${e.judge} · ${e.body} × ${e.request}`;
  const w = r.winner >= 0 ? r.entries[r.winner] : undefined;
  const cf = r.crossFit;
  if (r.target) out.push(`target: the ${r.target.phrase} (dimension ${JSON.stringify(r.target.dimension)}, human score ${r.target.humanScore}, ${r.human})`);
  if (cf && r.folds) {
    out.push(`cross-fitted over ${cf.k} folds (each fold's variant chosen on the other ${cf.k - 1}): held-out Spearman rho ${f3(cf.rho)}${ci3(cf.ci)} (n-weighted mean of the folds' rhos, n = ${cf.n}; ${pct}% bootstrap over contexts within folds, choices fixed); development rho ${f3(cf.devRho)}; optimism gap ${f3(cf.optimismGap)}`);
    r.folds.forEach((fo, i) => {
      const e = fo.winner >= 0 ? r.entries[fo.winner] : undefined;
      out.push(`  fold ${i + 1} (${fo.testGroups} held-out contexts): ${e ? `${name(e)} — development rho ${f3(fo.dev?.rho)}, held-out ${f3(fo.heldOut?.rho)}${ci3(fo.heldOut?.ci)} (n = ${fo.heldOut?.n ?? 0})` : 'no variant chosen'}`);
    });
  } else if (w) {
    out.push(`chosen on development items: ${name(w)}`);
    out.push(`  held-out Spearman rho ${f3(w.heldOut?.rho)}${ci3(w.heldOut?.ci)} (${pct}% cluster bootstrap over contexts, n = ${w.heldOut?.n ?? 0}); development rho ${f3(w.dev?.rho)} (n = ${w.dev?.n ?? 0}); optimism gap ${f3(r.optimismGap)}`);
  } else out.push('no variant chosen');
  const baselines = r.entries.filter((e) => e.baseline);
  if (baselines.length) {
    out.push(cf ? `paper variants (ICMI 2023), held-out rho cross-fitted over the ${cf.k} folds [interval] · development rho (mean over folds):` : 'paper variants (ICMI 2023), held-out rho [interval] · development rho:');
    for (const e of baselines) out.push(`  ${name(e)}: ${e.skipped ? `skipped (${e.skipped})` : `${f3(e.heldOut?.rho)}${ci3(e.heldOut?.ci)} · ${f3(e.dev?.rho)}`}`);
  }
  const ranked = r.entries.filter((e) => !e.baseline).sort((a, b) => (b.dev?.rho ?? -Infinity) - (a.dev?.rho ?? -Infinity));
  out.push(cf ? `development ranking (${ranked.length} variants; n-weighted mean of the folds' development rhos):` : `development ranking (${ranked.length} variants; held-out items not used):`);
  for (const e of ranked) out.push(`  ${f3(e.dev?.rho)}  n=${e.dev?.n ?? 0}${e.dev?.failures ? ` (${e.dev.failures} unusable)` : ''}  ${name(e)}${e.skipped ? `  skipped: ${e.skipped}` : ''}`);
  out.push(`${r.calls} calls to backends, ${r.cacheHits} answers from the cache`);
  return out;
}

/**
 * Writes a chosen variant's body (and its few-shot examples part) into a prompts folder as template files, so the
 * judge job can use it by name. Refuses to overwrite a file with different text.
 *
 * @returns the files written
 * @throws Error naming a file that exists with other text
 */
export function writeWinnerTemplates(lib: PromptLibrary, e: Pick<SearchEntry, 'body'>, dir: string): string[] {
  const files: { path: string; text: string }[] = [{ path: join(dir, 'bodies', `${e.body}.mustache`), text: lib.bodies[e.body].source }];
  for (const m of lib.bodies[e.body].source.matchAll(/\{\{> ([^}]+)\}\}/g)) {
    const p = lib.parts[m[1]];
    if (p && p.file.startsWith('(search)')) files.push({ path: join(dir, 'parts', `${m[1]}.mustache`), text: p.source });
  }
  for (const f of files) if (existsSync(f.path) && readFileSync(f.path, 'utf8') !== f.text) throw new Error(`${f.path} exists with other text; not overwritten`);
  for (const f of files) {
    mkdirSync(dirname(f.path), { recursive: true });
    writeFileSync(f.path, f.text);
  }
  return files.map((f) => f.path);
}
