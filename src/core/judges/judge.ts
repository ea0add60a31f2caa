/**
 * LLM judges behind one interface, and the loop that scores candidates with them
 * (Wu et al., ICMI 2023 §2.4: zero-shot judges prompted for a single number, temperature 0).
 */
import pLimit from 'p-limit';
import type { DialogueItem, Score } from '../dialogue/types';
import { buildSignature, parseSignature, shortDigest } from '../evaluators/signature';
import { parseJudgeReply } from './parseReply';
import { assemblePrompt, templateHash, type PromptLibrary, type PromptVariant, type RequestSpec } from './prompts';

/** One judgement request. */
export interface JudgeRequest {
  prompt: string;
  spec: RequestSpec;
  signal?: AbortSignal;
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
  readonly signature: string;
  judge(request: JudgeRequest): Promise<JudgeResult>;
}

/** Turns a free-text reply into a {@link JudgeResult} (API judges). */
export function resultFromReply(raw: string, spec: RequestSpec): JudgeResult {
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
export function judgeScoreSignature(judgeSignature: string, variant: PromptVariant, hash: string): string {
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
 * under the evaluator id. Candidates that already have an `ok` score under that id are skipped, so a
 * cancelled run resumes where it stopped. Up to `concurrency` judgements run at once (default 1); results
 * land on their own candidates whatever order they finish in. Returns updated copies (inputs untouched),
 * the number of judgements asked, how many gave no usable score, and the tokens the backend reported.
 */
export async function runJudge(
  items: DialogueItem[],
  judge: Judge,
  lib: PromptLibrary,
  variant: PromptVariant,
  options: { signal?: AbortSignal; onProgress?: (p: JudgeProgress) => void; now?: () => Date; concurrency?: number } = {},
): Promise<{ items: DialogueItem[]; evaluatorId: string; calls: number; failures: number; usage: { promptTokens: number; completionTokens: number } }> {
  const hash = templateHash(lib, variant);
  const evaluatorId = judgeEvaluatorId(judge, variant, hash);
  const signature = judgeScoreSignature(judge.signature, variant, hash);
  const total = items.reduce((n, it) => n + it.candidates.length, 0);
  const limit = pLimit(Math.max(1, options.concurrency ?? 1));
  let done = 0;
  let failures = 0;
  let calls = 0;
  const usage = { promptTokens: 0, completionTokens: 0 };
  const progress = () => options.onProgress?.({ done, total, failures });
  const out = items.map((it) => structuredClone(it));
  const tasks: Promise<void>[] = [];
  for (const item of out) {
    for (const c of item.candidates) {
      if (c.scores[evaluatorId]?.status === 'ok') {
        done++;
        progress();
        continue;
      }
      tasks.push(
        limit(async () => {
          if (options.signal?.aborted) return;
          const prompt = assemblePrompt(lib, variant, item.context, c.text);
          calls++;
          let result: JudgeResult;
          try {
            result = await judge.judge({ prompt: prompt.text, spec: prompt.spec, signal: options.signal });
          } catch (err) {
            if (options.signal?.aborted) return;
            result = { raw: '', value: null, status: 'error', message: (err as Error).message };
          }
          if (result.status !== 'ok') failures++;
          if (result.usage) {
            usage.promptTokens += result.usage.promptTokens;
            usage.completionTokens += result.usage.completionTokens;
          }
          const score: Score = {
            value: result.value,
            status: result.status,
            raw: result.raw,
            ...(result.expected !== undefined ? { expected: result.expected } : {}),
            ...(result.message ? { message: result.message } : {}),
            signature,
            judge: judge.id,
            variant,
            templateHash: prompt.templateHash,
            at: (options.now?.() ?? new Date()).toISOString(),
          };
          c.scores[evaluatorId] = score;
          done++;
          progress();
        }),
      );
    }
  }
  await Promise.all(tasks);
  return { items: out, evaluatorId, calls, failures, usage };
}
