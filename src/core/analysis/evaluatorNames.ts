/**
 * Readable names for evaluator ids (the ids themselves stay the row keys: they say exactly what produced a score).
 *
 * - `metric:<name>.<output>@<signature>` → `BLEU-4`, `ROUGE-L (precision)`, `Follow-up: <output>`
 * - `judge:<judge id>:<body>×<request>@<template hash>` → `instructions × rating · reflect-gpt2-tiny`
 * - `average:<label>` (an average of several evaluators) → `<label>`
 * - `human:laypeople-vs-experts` → `Laypeople–experts`
 */

/** What kind of evaluator an id names; the table lists kinds in this order. */
export type EvaluatorKind = 'human' | 'metric' | 'followUp' | 'average' | 'judge' | 'other';

export const KIND_ORDER: readonly EvaluatorKind[] = ['human', 'metric', 'followUp', 'average', 'judge', 'other'];

/** Id of the human reference row: laypeople's coherence scores against the experts' (ICMI 2023 Table 2). */
export const HUMAN_REFERENCE_ID = 'human:laypeople-vs-experts';

const METRIC_TITLES: Record<string, string> = {
  bleu4: 'BLEU-4',
  sacrebleu: 'sacreBLEU',
  rougeL: 'ROUGE-L',
  meteor: 'METEOR',
  bertscore: 'BERTScore',
  bertScore: 'BERTScore',
};
const PRIMARY_OUTPUTS = new Set(['score', 'value', 'f', 'f1', 'fmeasure']);

/** Kind of an evaluator id, from its prefix. */
export function evaluatorKind(id: string): EvaluatorKind {
  if (id === HUMAN_REFERENCE_ID || id.startsWith('human:')) return 'human';
  if (id.startsWith('average:')) return 'average';
  if (id.startsWith('judge:')) return 'judge';
  if (id.startsWith('metric:')) return /^metric:followUp/i.test(id) ? 'followUp' : 'metric';
  return 'other';
}

/** Splits `metric:<name>.<output>@<signature>`; the signature may itself contain `@`, `.` and `|`. */
export function parseMetricId(id: string): { name: string; output: string; signature: string } | null {
  const m = /^metric:([^.@]+)(?:\.([^@]*))?(?:@(.*))?$/.exec(id);
  if (!m) return null;
  return { name: m[1], output: m[2] ?? '', signature: m[3] ?? '' };
}

/** Splits `judge:<judge id>:<body>×<request>@<hash>`; the judge id may contain `:`. */
export function parseJudgeId(id: string): { judge: string; body: string; request: string; hash: string } | null {
  const m = /^judge:(.+):([^:×]+)×([^@]+)@(.*)$/.exec(id);
  if (!m) return null;
  return { judge: m[1], body: m[2], request: m[3], hash: m[4] };
}

/** The model part of a judge id: `local:bundled:x` → `bundled:x`, `api:gpt-4o` → `gpt-4o`. */
function judgeModel(judge: string): string {
  return judge.replace(/^(local|api|openai-chat|openai-completions):/, '');
}

/**
 * A short readable name for an evaluator id (not unique by itself: {@link displayNames} disambiguates).
 * Unknown ids are returned unchanged.
 */
export function displayName(id: string): string {
  if (id === HUMAN_REFERENCE_ID) return 'Laypeople–experts';
  if (id.startsWith('average:')) return id.slice('average:'.length);
  const j = parseJudgeId(id);
  if (j) return `${j.body} × ${j.request} · ${judgeModel(j.judge)}`;
  const m = parseMetricId(id);
  if (m) {
    if (/^followUp/i.test(m.name)) return m.output ? `Follow-up: ${m.output}` : 'Follow-up likelihood';
    const title = METRIC_TITLES[m.name] ?? m.name;
    return !m.output || PRIMARY_OUTPUTS.has(m.output) ? title : `${title} (${m.output})`;
  }
  return id;
}

/** Short, stable hex digest of a string (FNV-1a, 32 bits), to tell apart rows that would read the same. */
function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0').slice(0, 6);
}

/**
 * Display names for a set of ids, unique among them: ids whose {@link displayName} collides get the judge's
 * template hash or a 6-digit digest of the metric signature appended, e.g. `BLEU-4 [a1b2c3]`.
 */
export function displayNames(ids: readonly string[]): Map<string, string> {
  const base = new Map(ids.map((id) => [id, displayName(id)]));
  const count = new Map<string, number>();
  for (const n of base.values()) count.set(n, (count.get(n) ?? 0) + 1);
  const out = new Map<string, string>();
  for (const id of ids) {
    const n = base.get(id) as string;
    if ((count.get(n) ?? 0) < 2) {
      out.set(id, n);
      continue;
    }
    const j = parseJudgeId(id);
    const m = parseMetricId(id);
    out.set(id, `${n} [${j ? j.hash.slice(0, 8) : shortHash(m ? m.signature : id)}]`);
  }
  return out;
}
