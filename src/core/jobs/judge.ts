/**
 * The judge job: judges × task bodies × assessment requests over every candidate (ICMI 2023 §2.4), with the
 * response cache and the run manifest beside the dialogue file — the same files whether the CLI or the editor runs
 * it, so a matrix started in one re-uses the other's replies.
 */
import { validateLocalRuntime, type LocalRuntimeOptions } from '../models/ortRuntime';
import { writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { isObject, rejectUnknownFields } from '../config';
import { mergeScores } from '../dialogue/merge';
import type { DialogueItem } from '../dialogue/types';
import { batchAnsweredJudge, batchOwner, runJudgeBatches, type JudgeBatchRun } from '../judges/batch';
import { JudgeCache, type CacheStats } from '../judges/cache';
import { judgeDescription, judgeLabel } from '../judges/createJudge';
import { judgeScoreSignature, meanOfRepeatsId } from '../judges/judge';
import { displayNames } from '../evaluators/evaluatorNames';
import { assemblePrompt, loadPromptLibrary, templateHash, type PromptLibrary, type PromptVariant } from '../templates/judgePrompt';
import { costOf, type JudgeSpec, type Price } from '../judges/judgeSpec';
import { countApiTokens } from '../judges/tokenCount';
import { BatchStateLog } from '../remote/openaiBatch';
import { REFLECT_EVAL_VERSION } from '../version';
import type { ItemSink, JobHost, JobReport, JobTarget, SecretAnswer } from './host';
import { planFields } from './planFields';
import { keyRouteProblems, validateApiKeyOrigins, DEFAULT_API_KEY_ENV, type KeyedEndpoint } from './apiKeyPolicy';
import { updatesFor } from './memorySink';
import { judgeApiKey, openJudge, type OpenedJudge } from './judgeRunner';
import { siblingFile } from '../dialogue/siblingFile';
import { isBundledTarget, withDimensionRequest } from '../judges/dimensionRequest';
import { MI_PRESET, MI_RUBRIC } from '../rubric/presets';
import { loadRubric } from '../rubric/rubricFile';

/** A judge run: the object a `judge --config run.json` file holds (docs/judging.md), plus where caches go. */
export interface JudgePlan {
  job?: 'judge';
  judges: JudgeSpec[];
  bodies: string[];
  /**
   * Assessment request templates of the prompt library (they ask about coherence). May be left out with
   * `dimension`, and must be for any dimension but the MI preset's `coherent`.
   */
  requests?: string[];
  /**
   * The rubric dimension the judges rate (its name exactly, as `--dimension`): a binary, ordinal or numeric dimension
   * of the study's rubric (`*.rubric.json` beside the file, else the MI preset). Its request is built from the rubric
   * (judges/dimensionRequest.ts: its question, scale and anchors); the MI preset's `coherent` is the bundled `binary`
   * request, or the plan's `requests` when it names them. Without it, the plan's `requests` as written.
   */
  dimension?: string;
  /** Judgements in flight at once (default 4). */
  concurrency?: number;
  /**
   * Ask each prompt this many times (default 1): every reply is kept on the score (`repeats`), cached under its own
   * key, and the mean of the K replies is stored as its own evaluator (`<id>/mean-of-K`); see docs/meta-evaluation.md.
   */
  repeats?: number;
  /** Prices by model name, per million tokens (editable; no built-in prices). */
  prices?: Record<string, Price>;
  /**
   * Response cache: `true` (default) for `.reflect-eval-cache/judge-cache.jsonl` beside the dialogue file, `false`
   * for none, or a file (relative to the host's base folder).
   */
  cache?: boolean | string;
  /** Run manifest: `true` (default) for `<file>.judge-manifest.json` beside the dialogue file, `false`, or a file. */
  manifest?: boolean | string;
  /**
   * Send the API judges' judgements through OpenAI's Batch API (docs/scale.md): uploaded as one file per 50 000
   * requests, answered within 24 h at half the price, resumed by batch id after a restart (state in
   * `.reflect-eval-cache/batches.jsonl` beside the dialogue file). API judges only.
   */
  batch?: boolean;
  /** First wait between polls of a batch, in seconds (default 15; each next wait 1.5 × longer, at most 10 min). */
  batchPollSeconds?: number;
  /**
   * The CLI's consent to send one environment variable's key to several origins: variable name → every origin it
   * may go to (docs/security.md). Without it, a plan naming one variable beside two origins is refused by the CLI.
   * The editor ignores it (its keys come from SecretStorage and go only to origins the user approved).
   */
  apiKeyOrigins?: Record<string, string[]>;
  /** How local judges run: threads and execution provider (over the host's settings). */
  runtime?: LocalRuntimeOptions;
}

const PLAN_FIELDS = ['job', 'judges', 'bodies', 'requests', 'dimension', 'concurrency', 'repeats', 'prices', 'cache', 'manifest', 'batch', 'batchPollSeconds', 'apiKeyOrigins', 'runtime'];

/** The Batch API's price: half the online price per token (https://platform.openai.com/docs/guides/batch). */
export const BATCH_PRICE_FACTOR = 0.5;
const JUDGE_FIELDS = ['backend', 'model', 'baseURL', 'headers', 'apiKeyEnv', 'logprobs', 'maxTokens', 'temperature', 'jsonSchema', 'chat', 'system', 'templateArgs', 'rationale', 'rationaleTokens'];

/**
 * Checks a judge plan (a run config file's contents).
 *
 * @param source - file or setting the value came from, for messages
 * @throws ConfigError naming the source and the field, e.g. `run.json: judges[1].baseURL: is required for API judges`
 */
export function validateJudgePlan(value: unknown, source: string): JudgePlan {
  const { c, fail } = planFields(value, source, 'judge', 'a judge plan', PLAN_FIELDS, '{"judges": [...], "bodies": [...], "requests": [...]}');
  if (c.dimension !== undefined && (typeof c.dimension !== 'string' || c.dimension === '')) fail('dimension', "must name a binary, ordinal or numeric dimension of the study's rubric");
  for (const key of ['judges', 'bodies', 'requests']) {
    if (key === 'requests' && c.dimension !== undefined && c.requests === undefined) continue;
    if (!Array.isArray(c[key]) || (c[key] as unknown[]).length === 0) fail(key, key === 'requests' ? 'must be a non-empty array (or leave it out and name a "dimension")' : 'must be a non-empty array');
  }
  (c.judges as unknown[]).forEach((j, i) => {
    const at = `judges[${i}]`;
    if (!isObject(j)) fail(at, 'must be an object like {"backend": "local"}');
    const s = j as Record<string, unknown>;
    if ('apiKey' in s) fail(`${at}.apiKey`, 'keys do not belong in a run config: name an environment variable in "apiKeyEnv"');
    rejectUnknownFields(s, JUDGE_FIELDS, at, fail);
    if (!['openai-chat', 'openai-completions', 'local'].includes(String(s.backend))) fail(`${at}.backend`, 'must be "openai-chat", "openai-completions" or "local"');
    if (s.model !== undefined && (typeof s.model !== 'string' || s.model.trim() === '')) fail(`${at}.model`, 'must be a non-empty string');
    if (s.backend === 'local') {
      for (const k of ['baseURL', 'headers', 'apiKeyEnv', 'logprobs', 'maxTokens', 'temperature', 'jsonSchema']) if (s[k] !== undefined) fail(`${at}.${k}`, 'applies to API judges only');
      for (const k of ['chat', 'rationale']) if (s[k] !== undefined && typeof s[k] !== 'boolean') fail(`${at}.${k}`, 'must be true or false');
      if (s.system !== undefined && typeof s.system !== 'string') fail(`${at}.system`, 'must be a string (the system turn)');
      if (s.templateArgs !== undefined && !isObject(s.templateArgs)) fail(`${at}.templateArgs`, 'must be an object of chat-template variables, e.g. {"enable_thinking": false}');
      if (s.rationaleTokens !== undefined && !(Number.isInteger(s.rationaleTokens) && (s.rationaleTokens as number) >= 1)) fail(`${at}.rationaleTokens`, 'must be an integer ≥ 1');
      if (s.chat === false) for (const k of ['system', 'templateArgs']) if (s[k] !== undefined) fail(`${at}.${k}`, 'applies to chat judges only ("chat": false uses prompts as they are)');
      return;
    }
    for (const k of ['chat', 'system', 'templateArgs', 'rationale', 'rationaleTokens']) if (s[k] !== undefined) fail(`${at}.${k}`, 'applies to local judges only');
    if (typeof s.model !== 'string') fail(`${at}.model`, 'is required for API judges');
    if (typeof s.baseURL !== 'string' || !/^https?:\/\//.test(s.baseURL)) fail(`${at}.baseURL`, 'is required for API judges: an http(s) URL such as "https://api.openai.com/v1"');
    if (s.headers !== undefined && !(isObject(s.headers) && Object.values(s.headers).every((v) => typeof v === 'string'))) fail(`${at}.headers`, 'must map header names to strings');
    if (s.apiKeyEnv !== undefined && (typeof s.apiKeyEnv !== 'string' || !/^[A-Za-z_][A-Za-z0-9_]*$/.test(s.apiKeyEnv))) fail(`${at}.apiKeyEnv`, 'must name an environment variable');
    if (s.logprobs !== undefined && typeof s.logprobs !== 'boolean') fail(`${at}.logprobs`, 'must be true or false');
    if (s.maxTokens !== undefined && !(Number.isInteger(s.maxTokens) && (s.maxTokens as number) >= 1)) fail(`${at}.maxTokens`, 'must be an integer ≥ 1');
    if (s.jsonSchema !== undefined && typeof s.jsonSchema !== 'boolean') fail(`${at}.jsonSchema`, 'must be true or false');
    if (s.jsonSchema === true && s.backend !== 'openai-chat') fail(`${at}.jsonSchema`, 'applies to "openai-chat" judges only (the JSON-schema response format is a chat completions feature)');
    if (s.temperature !== undefined && !(typeof s.temperature === 'number' && s.temperature >= 0 && s.temperature <= 2)) fail(`${at}.temperature`, 'must be a number in [0, 2]');
  });
  (c.bodies as unknown[]).forEach((b, i) => (typeof b === 'string' && b) || fail(`bodies[${i}]`, 'must be a template name'));
  ((c.requests as unknown[] | undefined) ?? []).forEach((r, i) => (typeof r === 'string' && r) || fail(`requests[${i}]`, 'must be a template name'));
  if (c.concurrency !== undefined && !(Number.isInteger(c.concurrency) && (c.concurrency as number) >= 1)) fail('concurrency', 'must be an integer ≥ 1');
  if (c.repeats !== undefined && !(Number.isInteger(c.repeats) && (c.repeats as number) >= 1 && (c.repeats as number) <= 100)) fail('repeats', 'must be an integer from 1 to 100');
  if (c.prices !== undefined && !isObject(c.prices)) fail('prices', 'must map model names to {"inputPerMTok", "outputPerMTok"}');
  for (const [model, p] of Object.entries((c.prices as Record<string, Price> | undefined) ?? {})) {
    if (!(typeof p?.inputPerMTok === 'number' && typeof p?.outputPerMTok === 'number')) fail(`prices.${model}`, 'needs numeric "inputPerMTok" and "outputPerMTok"');
  }
  for (const k of ['cache', 'manifest']) if (c[k] !== undefined && typeof c[k] !== 'boolean' && typeof c[k] !== 'string') fail(k, 'must be true, false or a file path');
  if (c.batch !== undefined && typeof c.batch !== 'boolean') fail('batch', 'must be true or false');
  if (c.batch) {
    const local = (c.judges as { backend: string }[]).findIndex((j) => j.backend === 'local');
    if (local >= 0) fail('batch', `judges[${local}] is a local judge, and local judges cannot run through the Batch API: run them without "batch" (or --batch), or in a plan of their own`);
  }
  if (c.batchPollSeconds !== undefined && !(typeof c.batchPollSeconds === 'number' && c.batchPollSeconds > 0 && c.batchPollSeconds <= 3600)) fail('batchPollSeconds', 'must be a number of seconds in (0, 3600]');
  validateApiKeyOrigins(c.apiKeyOrigins, fail);
  if (c.runtime !== undefined) validateLocalRuntime(c.runtime, 'runtime', fail);
  return c as unknown as JudgePlan;
}

/** `.reflect-eval-cache/<name>` beside a dialogue file: where both hosts keep response caches. */
export function cacheFileBeside(file: string, name: string): string {
  return join(dirname(file), '.reflect-eval-cache', name);
}

/** Where the plan's manifest goes (null for none). */
export function judgeManifestFile(plan: JudgePlan, target: Pick<JobTarget, 'file'>, baseDir: string): string | null {
  if (plan.manifest === false) return null;
  if (typeof plan.manifest === 'string') return resolve(baseDir, plan.manifest);
  return siblingFile(target.file, '.judge-manifest.json');
}

function cacheFileOf(plan: JudgePlan, target: Pick<JobTarget, 'file'>, baseDir: string): string | null {
  if (plan.cache === false) return null;
  if (typeof plan.cache === 'string') return resolve(baseDir, plan.cache);
  return cacheFileBeside(target.file, 'judge-cache.jsonl');
}

/** What a run did, per judge × body × request; written as the manifest. */
export interface JudgeRunRecord {
  evaluatorId: string;
  judge: string;
  /** The judge's signature (no secrets): what makes its evaluator id. */
  signature: string;
  body: string;
  request: string;
  templateHash: string;
  judgements: number;
  calls: number;
  cacheHits: number;
  failures: number;
  usage: { promptTokens: number; completionTokens: number };
  /** At the plan's prices; in batch mode at the Batch API's (half). */
  cost: number | null;
  /** Answered through the Batch API. */
  batch?: boolean;
}

/** The number of judgements and an upper bound of their cost, for a confirmation before a run. */
export interface JudgeEstimate {
  candidates: number;
  variants: number;
  judgements: number;
  /** Per API judge with a model name: prompt tokens counted exactly (OpenAI models) or approximately, and a cost bound. */
  perJudge: { label: string; promptTokens: number; approximate: boolean; cost: number | null }[];
  /** Sum of the known cost bounds (null when no judge has a price). */
  cost: number | null;
}

/** The price a plan pays for a judge's tokens: the plan's price of its model, halved in batch mode. */
export function priceOf(plan: Pick<JudgePlan, 'prices' | 'batch'>, spec: JudgeSpec): Price | undefined {
  const price = spec.model ? plan.prices?.[spec.model] : undefined;
  if (!price || !plan.batch) return price;
  return { inputPerMTok: price.inputPerMTok * BATCH_PRICE_FACTOR, outputPerMTok: price.outputPerMTok * BATCH_PRICE_FACTOR };
}

/**
 * Prompt tokens of one variant over every candidate of `items` for an API model: exact for OpenAI models, approximate
 * otherwise (see {@link countApiTokens}). Shared by the judge job's and the prompt search's estimates.
 *
 * @throws PromptTemplateError for an unknown body or request
 */
export async function variantPromptTokens(model: string, lib: PromptLibrary, variant: { body: string; request: string }, items: readonly DialogueItem[]): Promise<{ tokens: number; approximate: boolean }> {
  let tokens = 0;
  let approximate = false;
  for (const it of items) {
    for (const c of it.candidates) {
      const n = await countApiTokens(model, assemblePrompt(lib, variant, it.context, c.text).text);
      tokens += n.tokens;
      approximate ||= n.approximate;
    }
  }
  return { tokens, approximate };
}

/**
 * The prompt library and variants of a plan on a study (`file`: the dialogue file; without it, the MI preset): bodies × requests, where with `dimension` the request is
 * built from the study's rubric (`withDimensionRequest`). Also a warning when the plan names no dimension on a study
 * whose rubric is not the MI preset (the bundled requests ask about coherence, whatever the rubric's primary is).
 *
 * @throws Error when the dimension is not a scale dimension of the rubric, or a plan names `requests` beside a
 *   dimension other than the MI preset's `coherent`; PromptTemplateError for an unknown body or request
 */
export function judgePlanVariants(plan: Pick<JudgePlan, 'bodies' | 'requests' | 'dimension'>, promptRoots: readonly string[], file?: string): { lib: PromptLibrary; variants: PromptVariant[]; warning?: string } {
  let lib = loadPromptLibrary(...promptRoots);
  const { rubric, file: rubricFile } = file !== undefined ? loadRubric(file) : { rubric: MI_RUBRIC, file: null };
  let requests = plan.requests ?? [];
  let warning: string | undefined;
  if (plan.dimension !== undefined) {
    const target = withDimensionRequest(lib, rubric, plan.dimension, rubricFile ?? undefined);
    if (plan.requests && !isBundledTarget(rubric, plan.dimension)) {
      throw new Error(`requests: the request for dimension ${JSON.stringify(plan.dimension)} is built from the rubric${rubricFile ? ` (${rubricFile})` : ''}; leave "requests" (--request) out, the bundled ones ask about coherence`);
    }
    lib = target.lib;
    if (!plan.requests) requests = [target.request];
  } else if (rubric.name !== MI_PRESET) {
    warning = `no dimension named: the requests ${requests.join(', ')} ask about coherence, not the rubric "${rubric.name}"'s dimensions; name one with --dimension (its primary is ${JSON.stringify(rubric.primary)})`;
  }
  const variants = plan.bodies.flatMap((body) => requests.map((request) => ({ body, request })));
  for (const v of variants) templateHash(lib, v);
  return { lib, variants, ...(warning ? { warning } : {}) };
}

/**
 * Counts the judgements of a plan and bounds its cost: prompt tokens of every assembled prompt, plus at most
 * `maxTokens` (default 16) reply tokens per call, at the plan's prices (half of them with `batch`), times the plan's
 * repeats. Cached replies are not subtracted.
 *
 * @throws PromptTemplateError for an unknown body or request
 */
export async function estimateJudgePlan(plan: JudgePlan, items: readonly DialogueItem[], promptRoots: readonly string[], file?: string): Promise<JudgeEstimate> {
  const { lib, variants } = judgePlanVariants(plan, promptRoots, file);
  const candidates = items.reduce((n, it) => n + it.candidates.length, 0);
  const repeats = plan.repeats ?? 1;
  const perJudge: JudgeEstimate['perJudge'] = [];
  let cost: number | null = null;
  for (const spec of plan.judges) {
    if (spec.backend === 'local' || !spec.model) continue;
    let promptTokens = 0;
    let approximate = false;
    for (const v of variants) {
      const n = await variantPromptTokens(spec.model, lib, v, items);
      promptTokens += n.tokens * repeats;
      approximate ||= n.approximate;
    }
    const bound = costOf({ promptTokens, completionTokens: (spec.maxTokens ?? 16) * candidates * variants.length * repeats }, priceOf(plan, spec));
    perJudge.push({ label: judgeLabel(spec), promptTokens, approximate, cost: bound });
    if (bound !== null) cost = (cost ?? 0) + bound;
  }
  return { candidates, variants: variants.length, judgements: candidates * variants.length * plan.judges.length * repeats, perJudge, cost };
}

/**
 * Runs every judge × body × request of a plan over the target's candidates. Scores reach the sink after each
 * variant (so a cancelled run keeps every finished variant, and a killed one resumes from the cache); a judge that
 * cannot be created (no key, a model that does not load) is reported and the others run.
 *
 * @returns a report whose `data.records` are the manifest's evaluators
 * @throws PromptTemplateError for an unknown body or request (before anything runs)
 */
export async function runJudgePlan(plan: JudgePlan, target: JobTarget, host: JobHost, sink: ItemSink): Promise<JobReport> {
  const { lib, variants, warning } = judgePlanVariants(plan, host.promptRoots, target.file);
  const snapshot = target.items;
  const perVariant = snapshot.reduce((n, it) => n + it.candidates.length, 0);
  const repeats = plan.repeats ?? 1;
  const total = perVariant * variants.length * plan.judges.length * repeats;
  const cacheFile = cacheFileOf(plan, target, host.baseDir);
  const cache = cacheFile ? new JudgeCache(cacheFile) : null;
  const report: JobReport = { job: 'judge', lines: [], warnings: warning ? [warning] : [], files: [] };
  host.log(`${total} judgements planned (${perVariant} candidates × ${plan.judges.length} judge(s) × ${plan.bodies.length} bodies × ${variants.length / plan.bodies.length} requests${repeats > 1 ? ` × ${repeats} repeats` : ''})`);
  const records: JudgeRunRecord[] = [];
  // Every key is asked for before anything runs: a declined one stops the job with no request sent (batch mode
  // included: its batches are created only after every key was given).
  const keys = await judgeKeys(plan, host);
  if ('declined' in keys) {
    report.nothingDone = keys.declined;
    return report;
  }
  const apiKeyOf = async (spec: JudgeSpec, i: number): Promise<string> => judgeApiKey(keys, spec, i);
  const batchRuns = plan.batch ? await runBatches(plan, target, host, lib, variants, cache, apiKeyOf, report) : new Map<number, JudgeBatchRun | Error>();
  let base = 0;
  for (const [i, spec] of plan.judges.entries()) {
    if (host.signal?.aborted) break;
    let opened: OpenedJudge;
    try {
      const batchRun = batchRuns.get(i);
      if (batchRun instanceof Error) throw batchRun;
      opened = await openJudge(spec, i, keys, plan, host, cache);
    } catch (err) {
      report.warnings.push(`judge ${judgeLabel(spec)} did not run: ${(err as Error).message}`);
      base += perVariant * variants.length * repeats;
      continue;
    }
    // One pool per judge across its variants (the runner's): after a 429 the lowered limit carries over to the next variant.
    try {
      for (const variant of variants) {
        if (host.signal?.aborted) break;
        const batchRun = batchRuns.get(i) as JudgeBatchRun | undefined;
        const judge = batchRun ? batchAnsweredJudge(opened.judge, batchRun, cache, opened.backend) : opened.cached();
        const res = await opened.judgeItems(snapshot, lib, variant, {
          answering: judge,
          repeats,
          onProgress: (p) => host.progress({ done: base + p.done, total, message: `${opened.judge.id} ${variant.body} × ${variant.request} (${p.failures} without a usable score)` }),
        });
        base += perVariant * repeats;
        const computed = new Map(res.items.map((it) => [it.id, it]));
        const ids = repeats > 1 ? [res.evaluatorId, meanOfRepeatsId(res.evaluatorId, repeats)] : [res.evaluatorId];
        await sink.apply(updatesFor(computed.keys(), (id, current) => ids.reduce((next, evaluatorId) => mergeScores(next, computed.get(id)!, evaluatorId), current)));
        const stats: CacheStats = 'stats' in judge ? (judge as { stats: CacheStats }).stats : { hits: 0, calls: res.calls };
        records.push({
          evaluatorId: res.evaluatorId,
          judge: opened.judge.id,
          signature: opened.judge.signature,
          body: variant.body,
          request: variant.request,
          templateHash: templateHash(lib, variant),
          judgements: res.calls,
          calls: stats.calls,
          cacheHits: stats.hits,
          failures: res.failures,
          usage: res.usage,
          cost: costOf(res.usage, priceOf(plan, spec)),
          ...(batchRun ? { batch: true } : {}),
        });
        report.lines.push(`${res.evaluatorId}: ${res.calls} judgements, ${stats.calls} ${batchRun ? 'answered by batch' : 'calls'}, ${stats.hits} from cache, ${res.failures} without a usable score`);
      }
      const limited = opened.rateLimitLine();
      if (limited) report.lines.push(limited);
    } finally {
      await opened.dispose();
    }
  }
  const names = displayNames(records.map((r) => r.evaluatorId), new Map(records.map((r) => [r.evaluatorId, judgeScoreSignature(r.signature, r, r.templateHash)])));
  report.summary = records.map((r) => `${names.get(r.evaluatorId)}: ${r.judgements} judged, ${r.calls} calls, ${r.cacheHits} cached, ${r.failures} failed`);
  report.cancelled = Boolean(host.signal?.aborted);
  if (records.length === 0 && !report.cancelled) report.nothingDone = perVariant === 0 ? 'the file has no candidates to judge' : `no judge could run (${report.warnings.join('; ')})`;
  const manifest = judgeManifestFile(plan, target, host.baseDir);
  if (manifest && records.length > 0) {
    // Paths relative to the dialogue file's folder ("bundled" for ReflectEval's own prompts), so the CLI and the
    // editor write the same manifest wherever ReflectEval is installed.
    const dir = dirname(target.file);
    const prompts = host.promptRoots.map((r, i) => (i === 0 ? 'bundled' : relative(dir, r) || '.'));
    const batches = [...batchRuns.values()].flatMap((r) => (r instanceof Error ? [] : r.batches));
    writeJudgeManifest(manifest, plan, records, { file: basename(target.file), cache: cacheFile && relative(dir, cacheFile), prompts, ...(plan.batch ? { batches } : {}) });
    report.files!.push(manifest);
  }
  report.data = { records, cache: cacheFile };
  return report;
}

/**
 * Batch mode: every API judge's outstanding judgements through the Batch API, all judges at once (each resumes its
 * own open batches first). Returns per judge index its batch results, or the error that stopped its batches.
 */
async function runBatches(
  plan: JudgePlan,
  target: JobTarget,
  host: JobHost,
  lib: PromptLibrary,
  variants: PromptVariant[],
  cache: JudgeCache | null,
  apiKeyOf: (spec: JudgeSpec, i: number) => Promise<string>,
  report: JobReport,
): Promise<Map<number, JudgeBatchRun | Error>> {
  const state = new BatchStateLog(cacheFileBeside(target.file, 'batches.jsonl'));
  const out = new Map<number, JudgeBatchRun | Error>();
  const done = new Map<number, { done: number; total: number }>();
  await Promise.all(
    plan.judges.map(async (spec, i) => {
      try {
        const run = await runJudgeBatches({
          spec,
          apiKey: await apiKeyOf(spec, i),
          items: target.items,
          lib,
          variants,
          repeats: plan.repeats ?? 1,
          cache,
          state,
          pollMs: (plan.batchPollSeconds ?? 15) * 1000,
          signal: host.signal,
          log: (m) => host.log(m),
          progress: (d, t, message) => {
            done.set(i, { done: d, total: t });
            const sum = [...done.values()].reduce((a, b) => ({ done: a.done + b.done, total: a.total + b.total }), { done: 0, total: 0 });
            host.progress({ done: sum.done, total: sum.total, message });
          },
        });
        out.set(i, run);
        for (const b of run.batches) report.lines.push(`batch ${b.batchId} (${judgeLabel(spec)}${b.created ? '' : ', resumed'}): ${b.status}, ${b.answered} answered, ${b.failed} failed of ${b.requests} requests`);
        if (run.stillRunning > 0) report.warnings.push(`${run.stillRunning} request(s) of ${judgeLabel(spec)} are still in a running batch (${state.open(batchOwner(spec)).map((b) => b.batchId).join(', ')}): rerun with --batch to collect them; no new batch is created for them`);
      } catch (err) {
        out.set(i, err as Error);
      }
    }),
  );
  return out;
}

/** The API endpoints of a plan's judges, for the key rules. */
export function judgeKeyedEndpoints(plan: Pick<JudgePlan, 'judges'>): KeyedEndpoint[] {
  return plan.judges.flatMap((j, i) => (j.backend === 'local' ? [] : [{ at: `judges[${i}]`, baseURL: j.baseURL ?? '', apiKeyEnv: j.apiKeyEnv }]));
}

/**
 * Asks the host for the key of every API judge, in order, before any judge runs; `declined` as soon as one is
 * declined (the rest are not asked).
 */
export async function judgeKeys(plan: Pick<JudgePlan, 'judges' | 'apiKeyOrigins'>, host: JobHost): Promise<Map<number, SecretAnswer> | { declined: string }> {
  const endpoints = judgeKeyedEndpoints(plan);
  let problems = new Map<string, string>();
  try {
    problems = keyRouteProblems(endpoints, plan.apiKeyOrigins);
  } catch {
    // A baseURL that is not a URL: the judge fails on its own below.
  }
  const answers = new Map<number, SecretAnswer>();
  for (const [index, spec] of plan.judges.entries()) {
    if (spec.backend === 'local') continue;
    const shared = problems.get(spec.apiKeyEnv ?? DEFAULT_API_KEY_ENV);
    const answer = await host.secret({ purpose: 'judge', endpoint: spec.baseURL ?? '', envVar: spec.apiKeyEnv, model: spec.model, ...(shared ? { sharedKeyProblem: shared } : {}) });
    if ('declined' in answer) return { declined: `judge ${judgeLabel(spec)}: ${answer.declined}` };
    answers.set(index, answer);
  }
  return answers;
}

/** Writes the run manifest: judges (no secrets) with their signatures, templates with hashes, counts, tokens, cost. */
export function writeJudgeManifest(path: string, plan: JudgePlan, records: JudgeRunRecord[], extra: Record<string, unknown>): void {
  const totals = records.reduce(
    (t, r) => ({
      judgements: t.judgements + r.judgements,
      calls: t.calls + r.calls,
      cacheHits: t.cacheHits + r.cacheHits,
      failures: t.failures + r.failures,
      promptTokens: t.promptTokens + r.usage.promptTokens,
      completionTokens: t.completionTokens + r.usage.completionTokens,
      cost: r.cost === null ? t.cost : (t.cost ?? 0) + r.cost,
    }),
    { judgements: 0, calls: 0, cacheHits: 0, failures: 0, promptTokens: 0, completionTokens: 0, cost: null as number | null },
  );
  const manifest = {
    tool: 'reflect-eval',
    version: REFLECT_EVAL_VERSION,
    node: process.version,
    finishedAt: new Date().toISOString(),
    ...extra,
    judges: plan.judges.map(judgeDescription),
    bodies: plan.bodies,
    requests: plan.requests ?? [...new Set(records.map((r) => r.request))],
    ...(plan.dimension !== undefined ? { dimension: plan.dimension } : {}),
    concurrency: plan.concurrency ?? 4,
    prices: plan.prices ?? {},
    evaluators: records,
    totals,
  };
  writeFileSync(path, JSON.stringify(manifest, null, 2) + '\n');
}
