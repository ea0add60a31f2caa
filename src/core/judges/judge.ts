/**
 * LLM judges behind one interface, and the loop that scores candidates with them
 * (Wu et al., ICMI 2023 §2.4: zero-shot judges prompted for a single number, temperature 0).
 */
import type { DialogueItem, Score } from '../dialogue/types';
import { buildSignature, parseSignature, shortDigest, type Signature } from '../evaluators/signature';
import { AdaptiveConcurrency } from '../remote/adaptiveConcurrency';
import { parseErrorCategoriesReply, type ErrorCategoryJudgement } from './parseErrorCategories';
import { parseJudgeReply } from './parseReply';
import { assemblePrompt, assemblePromptWithin, templateHash, type AssembledPrompt, type PromptLibrary, type PromptVariant, type RequestSpec } from '../templates/judgePrompt';

/** One judgement request. */
export interface JudgeRequest {
  prompt: string;
  spec: RequestSpec;
  signal?: AbortSignal;
  /** Which repeat of the same prompt this is (0 or absent: the first); caches key each repeat apart. */
  repeat?: number;
}

/** One judgement. `value` is null unless `status` is `ok`. */
export interface JudgeResult {
  /** The reply verbatim (for the local judge: the chosen answer). */
  raw: string;
  value: number | null;
  status: 'ok' | 'unparsable' | 'error';
  /** Probability-weighted expected score over the valid answers, when token probabilities exist. */
  expected?: number;
  message?: string;
  /** Tokens billed for the call, when the backend reports them. */
  usage?: { promptTokens: number; completionTokens: number };
  /** An error-category request's answer (`kind: 'errorCategories'`), when `status` is `ok`. */
  errorCategories?: ErrorCategoryJudgement;
}

/** A judge backend. */
export interface Judge {
  /** Short readable part of evaluator ids, e.g. `api:gpt-4o-mini` or `local:bundled:reflect-gpt2-tiny`. */
  readonly id: string;
  /**
   * Everything that changes the judge's replies, as a signature ({@link buildSignature}): backend, endpoint,
   * model, sampling parameters, logprobs, reply length; never a secret. Two judges that differ in any of these
   * have different signatures, hence different evaluator ids.
   */
  readonly signature: Signature;
  /**
   * A prompt budget (local judges: the model's positions): prompts are assembled within it by leaving out the
   * oldest turns of the context ({@link assemblePromptWithin}).
   */
  readonly budget?: { maxTokens: number; count(text: string): number };
  judge(request: JudgeRequest): Promise<JudgeResult>;
}

/** Turns a free-text reply into a {@link JudgeResult} (API judges). */
export function resultFromReply(raw: string, spec: RequestSpec): JudgeResult {
  if (spec.kind === 'errorCategories') {
    const e = parseErrorCategoriesReply(raw);
    if (e.status !== 'ok') return { raw, value: null, status: 'unparsable', message: e.message };
    const { status: _ok, ...judgement } = e;
    return { raw, value: judgement.categories.length === 0 ? 1 : 0, status: 'ok', errorCategories: judgement };
  }
  const parsed = parseJudgeReply(raw, spec);
  return { raw, value: parsed.value, status: parsed.status, ...(parsed.message ? { message: parsed.message } : {}) };
}

/**
 * Evaluator id of a judge under a prompt variant: `judge:<judge id>:<body>×<request>@<template hash>~<config digest>`,
 * e.g. `judge:api:gpt-4o-mini:instructions×rating@3f2a9c0d1e4b~5a6b7c8d`. The template hash changes when any
 * template text the variant uses changes; the config digest is 8 hex digits of SHA-256 over the judge's signature
 * without its ReflectEval version (endpoint, model, sampling parameters, logprobs, reply length: see
 * {@link Judge.signature}), so two judges that differ in anything are two evaluators, and a new ReflectEval release
 * does not make a paid judge's results look like another evaluator's.
 *
 * Ids written by ReflectEval 0.1.0 have no `~<digest>` (their endpoint and parameters were not recorded); they
 * still read as evaluators of their own.
 */
export function judgeEvaluatorId(judge: Pick<Judge, 'id' | 'signature'>, variant: PromptVariant, hash: string): string {
  return `judge:${judge.id}:${variant.body}×${variant.request}@${hash}~${judgeConfigDigest(judge.signature)}`;
}

/** The `~<digest>` part of judge ids: 8 hex digits of SHA-256 over the signature without its `rv:` field. */
export function judgeConfigDigest(signature: string): string {
  return shortDigest(signature.replace(/\|rv:[^|]*$/, ''));
}

/**
 * The signature a judge's scores record: the judge's own, then the prompt variant and its template hash (before
 * the ReflectEval version), e.g. `backend:openai-chat|url:…|model:m|…|body:instructions|request:rating|tmpl:3f2a…|rv:0.1.0`.
 */
export function judgeScoreSignature(judgeSignature: string, variant: PromptVariant, hash: string): Signature {
  const fields = [...parseSignature(judgeSignature)].filter(([k]) => k !== 'rv');
  return buildSignature([...fields, ['body', variant.body], ['request', variant.request], ['tmpl', hash]]);
}

/** Progress of a judge run. */
export interface JudgeProgress {
  done: number;
  total: number;
  failures: number;
}

/**
 * Scores every candidate of `items` with `judge` under `variant`, storing each result on the candidate
 * under the evaluator id. Candidates that already have an `ok` score under that id (and, with repeats, all K
 * replies) are skipped, so a cancelled run resumes where it stopped. Up to `concurrency` judgements run at once
 * (default 1); results land on their own candidates whatever order they finish in. The pool is an
 * {@link AdaptiveConcurrency} (pass `limiter` to share one across variants of a judge): a judge that throws
 * `RateLimitedError` (HTTP 429) halves it and is asked again after `Retry-After`; successes grow it back to
 * `concurrency`. A judge that is never throttled sees a fixed pool of `concurrency`.
 *
 * With `repeats` K > 1 each prompt is asked K times (repeat r is its own request, cached under its own key, so
 * re-runs reuse every reply): the score keeps reply 0 as its value (comparable with a one-reply run) and every
 * reply in `repeats`; a second score under `<evaluator id>/mean-of-K` holds the mean of the usable replies (the
 * "mean of K" evaluator). Returns updated copies (inputs untouched), the judgements asked, how many gave no usable
 * score, and the tokens the backend reported.
 */
export async function runJudge(
  items: DialogueItem[],
  judge: Judge,
  lib: PromptLibrary,
  variant: PromptVariant,
  options: { signal?: AbortSignal; onProgress?: (p: JudgeProgress) => void; now?: () => Date; concurrency?: number; repeats?: number; limiter?: AdaptiveConcurrency } = {},
): Promise<{ items: DialogueItem[]; evaluatorId: string; calls: number; failures: number; usage: { promptTokens: number; completionTokens: number } }> {
  const hash = templateHash(lib, variant);
  const evaluatorId = judgeEvaluatorId(judge, variant, hash);
  const signature = judgeScoreSignature(judge.signature, variant, hash);
  const repeats = Math.max(1, Math.floor(options.repeats ?? 1));
  const meanId = meanOfRepeatsId(evaluatorId, repeats);
  const total = items.reduce((n, it) => n + it.candidates.length, 0) * repeats;
  const limiter = options.limiter ?? new AdaptiveConcurrency({ max: Math.max(1, Math.floor(options.concurrency ?? 1)) });
  let done = 0;
  let failures = 0;
  let calls = 0;
  const usage = { promptTokens: 0, completionTokens: 0 };
  const progress = () => options.onProgress?.({ done, total, failures });
  const out = items.map((it) => structuredClone(it));
  const tasks: Promise<void>[] = [];
  for (const item of out) {
    for (const c of item.candidates) {
      const existing = c.scores[evaluatorId];
      const replies: (RepeatReply | undefined)[] = repliesOf(existing, repeats);
      const missing = replies.flatMap((r, i) => (r?.status === 'ok' ? [] : [i]));
      done += repeats - missing.length;
      if (missing.length === 0) {
        progress();
        continue;
      }
      let pending = missing.length;
      for (const r of missing) {
        tasks.push(
          (async () => {
            let prompt: (AssembledPrompt & { droppedTurns?: number }) | undefined;
            let result: JudgeResult;
            try {
              result = await limiter.run(async () => {
                if (options.signal?.aborted) throw new Error('cancelled');
                if (!prompt) {
                  // Assembled when its turn comes (as many prompts as candidates would not fit in memory at once).
                  prompt = judge.budget ? assemblePromptWithin(lib, variant, item.context, c.text, judge.budget) : assemblePrompt(lib, variant, item.context, c.text);
                  calls++;
                }
                return judge.judge({ prompt: prompt.text, spec: prompt.spec, signal: options.signal, ...(r > 0 ? { repeat: r } : {}) });
              });
            } catch (err) {
              if (options.signal?.aborted) return;
              result = { raw: '', value: null, status: 'error', message: (err as Error).message };
            }
            if (result.status !== 'ok') failures++;
            if (result.usage) {
              usage.promptTokens += result.usage.promptTokens;
              usage.completionTokens += result.usage.completionTokens;
            }
            const dropped = prompt?.droppedTurns ? `the ${prompt.droppedTurns} oldest of ${item.context.length} turns left out to fit ${judge.budget?.maxTokens} tokens` : '';
            const message = [dropped, result.message].filter(Boolean).join('; ');
            replies[r] = {
              value: result.value,
              status: result.status,
              raw: result.raw,
              ...(result.expected !== undefined ? { expected: result.expected } : {}),
              ...(message ? { message } : {}),
              ...(result.errorCategories ? errorCategoryFields(result.errorCategories) : {}),
            };
            done++;
            progress();
            if (--pending > 0) return;
            // Every missing reply of this candidate is in: store its score (reply 0) with all replies.
            const first = replies[0] as RepeatReply;
            const at = (options.now?.() ?? new Date()).toISOString();
            c.scores[evaluatorId] = {
              ...first,
              signature,
              judge: judge.id,
              variant,
              templateHash: prompt!.templateHash,
              at,
              ...(repeats > 1 ? { repeats: replies as RepeatReply[] } : {}),
            };
            if (repeats > 1) c.scores[meanId] = meanScore(replies as RepeatReply[], `${signature.replace(/\|rv:[^|]*$/, '')}|repeats:${repeats}|agg:mean${signature.match(/\|rv:[^|]*$/)?.[0] ?? ''}`, at);
          })(),
        );
      }
    }
  }
  await Promise.all(tasks);
  return { items: out, evaluatorId, calls, failures, usage };
}

/** One reply of a repeated judgement, as kept in a score's `repeats`. */
export interface RepeatReply {
  value: number | null;
  status: 'ok' | 'unparsable' | 'error';
  raw?: string;
  expected?: number;
  message?: string;
  /** Error-category requests: the categories that apply (empty: coherent), the most evident one and the rationale. */
  categories?: ErrorCategoryJudgement['categories'];
  mostEvidentError?: ErrorCategoryJudgement['mostEvidentError'];
  rationale?: string;
}

/** The score fields of an error-category judgement: `categories`, `mostEvidentError`, `rationale`. */
function errorCategoryFields(e: ErrorCategoryJudgement): Pick<RepeatReply, 'categories' | 'mostEvidentError' | 'rationale'> {
  return { categories: e.categories, ...(e.mostEvidentError ? { mostEvidentError: e.mostEvidentError } : {}), ...(e.rationale ? { rationale: e.rationale } : {}) };
}

/** The evaluator id of the mean of K replies of a judge variant: `<evaluator id>/mean-of-K`. */
export function meanOfRepeatsId(evaluatorId: string, repeats: number): string {
  return `${evaluatorId}/mean-of-${repeats}`;
}

/** The repeats (0 … K−1) of a candidate's judgement that have no `ok` reply yet in its stored score: the ones to ask. */
export function missingRepeats(score: Score | undefined, repeats: number): number[] {
  return repliesOf(score, repeats).flatMap((r, i) => (r?.status === 'ok' ? [] : [i]));
}

/** The K replies a stored score already holds (reply 0 is the score itself when it has no `repeats`). */
function repliesOf(score: Score | undefined, repeats: number): (RepeatReply | undefined)[] {
  const out: (RepeatReply | undefined)[] = new Array(repeats).fill(undefined);
  if (!score) return out;
  const kept = Array.isArray(score.repeats) ? (score.repeats as RepeatReply[]) : [{ value: score.value, status: score.status, raw: score.raw, ...(score.expected !== undefined ? { expected: score.expected } : {}), ...(score.message ? { message: score.message } : {}) }];
  kept.slice(0, repeats).forEach((r, i) => (out[i] = r));
  return out;
}

/** The "mean of K" score: the mean of the usable replies (and of their expected scores, when every one has one). */
function meanScore(replies: readonly RepeatReply[], signature: string, at: string): Score {
  const ok = replies.filter((r) => r.status === 'ok' && typeof r.value === 'number');
  if (ok.length === 0) return { value: null, status: 'error', message: `none of the ${replies.length} replies gave a usable score`, signature, at };
  const mean = ok.reduce((s, r) => s + (r.value as number), 0) / ok.length;
  const expected = ok.every((r) => typeof r.expected === 'number') ? ok.reduce((s, r) => s + (r.expected as number), 0) / ok.length : undefined;
  return { value: mean, status: 'ok', usable: ok.length, ...(expected !== undefined ? { expected } : {}), signature, at };
}
