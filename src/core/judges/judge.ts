/**
 * LLM judges behind one interface, and the loop that scores candidates with them
 * (Wu et al., ICMI 2023 §2.4: zero-shot judges prompted for a single number, temperature 0).
 */
import pLimit from 'p-limit';
import type { DialogueItem, Score } from '../dialogue/types';
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
  /** Stable id used in evaluator ids, e.g. `api:gpt-4o-mini` or `local:reflect-gpt2-tiny`. */
  readonly id: string;
  judge(request: JudgeRequest): Promise<JudgeResult>;
}

/** Turns a free-text reply into a {@link JudgeResult} (API judges). */
export function resultFromReply(raw: string, spec: RequestSpec): JudgeResult {
  const parsed = parseJudgeReply(raw, spec);
  return { raw, value: parsed.value, status: parsed.status, ...(parsed.message ? { message: parsed.message } : {}) };
}

/**
 * Evaluator id of a judge under a prompt variant: `judge:<judge id>:<body>×<request>@<template hash>`.
 * The hash changes when any template text changes, so results of edited prompts never mix.
 */
export function judgeEvaluatorId(judgeId: string, variant: PromptVariant, hash: string): string {
  return `judge:${judgeId}:${variant.body}×${variant.request}@${hash}`;
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
  const evaluatorId = judgeEvaluatorId(judge.id, variant, templateHash(lib, variant));
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
