/**
 * Readable names for evaluator ids (the ids themselves stay the row keys: they say exactly what produced a score).
 *
 * - `metric:<name>.<output>@<signature>` → `BLEU-4`, `ROUGE-L (precision)`, `BLEU-2 (coco)`, `Follow-up: <output>`
 * - `judge:<judge id>:<body>×<request>@<template hash>` → `instructions × rating · reflect-gpt2-tiny`
 * - `average:<label>` (an average of several evaluators) → `<label>`
 * - `human:laypeople-vs-experts` → `Laypeople–experts`
 *
 * Configurations that read the same are told apart by the signature fields that differ ({@link displayNames}), and
 * outputs carry a legend from name to id and full signature ({@link evaluatorLegend}).
 */
import { parseSignature } from './signature';

/** What kind of evaluator an id names; the table lists kinds in this order. */
export type EvaluatorKind = 'human' | 'metric' | 'followUp' | 'average' | 'judge' | 'other' | 'baseline';

export const KIND_ORDER: readonly EvaluatorKind[] = ['human', 'metric', 'followUp', 'average', 'judge', 'other', 'baseline'];

/**
 * Trivial baseline rows of the correlation table (`correlate --baselines`): response length in whitespace tokens,
 * a constant, and a seeded random number — what an evaluator has to beat.
 */
export const BASELINE_IDS = { length: 'baseline:length', constant: 'baseline:constant', random: 'baseline:random' } as const;

/** Id of the human reference row: laypeople's coherence scores against the experts' (ICMI 2023 Table 2). */
export const HUMAN_REFERENCE_ID = 'human:laypeople-vs-experts';

const METRIC_TITLES: Record<string, string> = {
  bleu4: 'BLEU-4',
  sacrebleu: 'sacreBLEU',
  rougeL: 'ROUGE-L',
  meteor: 'METEOR',
  bertscore: 'BERTScore',
  bertScore: 'BERTScore',
  nmtBleu: 'BLEU (nmt, HF evaluate)',
  cocoBleu: 'BLEU (coco)',
  cocoRougeL: 'ROUGE-L (coco)',
};
/** Outputs whose name says the whole thing: pycocoevalcap's BLEU-k as nlg-eval reports them (`Bleu_1` … `Bleu_4`). */
const OUTPUT_TITLES: Record<string, string> = {
  'cocoBleu.bleu1': 'BLEU-1 (coco)',
  'cocoBleu.bleu2': 'BLEU-2 (coco)',
  'cocoBleu.bleu3': 'BLEU-3 (coco)',
  'cocoBleu.bleu4': 'BLEU-4 (coco)',
};
const PRIMARY_OUTPUTS = new Set(['score', 'value', 'f', 'f1', 'fmeasure']);

/** Kind of an evaluator id, from its prefix. */
export function evaluatorKind(id: string): EvaluatorKind {
  if (id === HUMAN_REFERENCE_ID || id.startsWith('human:')) return 'human';
  if (id.startsWith('average:')) return 'average';
  if (id.startsWith('baseline:')) return 'baseline';
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
  // `bundled:reflect-gpt2-tiny` → `reflect-gpt2-tiny`; a folder → its last part (the full reference is in the legend).
  const model = judge.replace(/^(local|api|openai-chat|openai-completions):/, '').replace(/^bundled:/, '');
  return /[\\/]/.test(model) && !/^[\w.-]+\/[\w.-]+$/.test(model) ? (model.split(/[\\/]+/).filter(Boolean).pop() ?? model) : model;
}

/**
 * A short readable name for an evaluator id (not unique by itself: {@link displayNames} disambiguates).
 * Unknown ids are returned unchanged.
 */
export function displayName(id: string): string {
  if (id === HUMAN_REFERENCE_ID) return 'Laypeople–experts';
  if (id.startsWith('average:')) return id.slice('average:'.length);
  if (id === BASELINE_IDS.length) return 'Baseline: length (whitespace tokens)';
  if (id === BASELINE_IDS.constant) return 'Baseline: a constant';
  if (id === BASELINE_IDS.random) return 'Baseline: random number';
  const j = parseJudgeId(id);
  if (j) {
    const mean = /\/mean-of-(\d+)$/.exec(j.hash);
    return `${j.body} × ${j.request} · ${judgeModel(j.judge)}${mean ? ` · mean of ${mean[1]}` : ''}`;
  }
  const m = parseMetricId(id);
  if (m) {
    if (/^followUp/i.test(m.name)) return m.output ? `Follow-up: ${m.output}` : 'Follow-up likelihood';
    const whole = OUTPUT_TITLES[`${m.name}.${m.output}`];
    if (whole) return whole;
    const title = METRIC_TITLES[m.name] ?? m.name;
    return !m.output || PRIMARY_OUTPUTS.has(m.output) ? title : `${title} (${m.output})`;
  }
  return id;
}

/**
 * How a signature field reads in a display name: `smooth:none` → `no smoothing`, `url:http://127.0.0.1:8001/v1` →
 * `127.0.0.1:8001`, `temperature:0.7` → `T=0.7`. Fields not listed read `key value`.
 */
export function describeField(key: string, value: string): string {
  switch (key) {
    case 'tok':
      return value === 'default' ? 'default tokens' : `${value} tokens`;
    case 'smooth':
      // `method1[epsilon=0.1]` reads `smoothing method 1, epsilon 0.1`.
      return value === 'none'
        ? 'no smoothing'
        : `smoothing ${value.replace(/^method(\d)/, 'method $1').replace(/\[([^\]]*)\]$/, (_, p: string) => `, ${p.split(',').map((kv) => kv.replace('=', ' ')).join(', ')}`)}`;
    case 'stem':
      return value === 'none' ? 'no stemming' : `${value.split('-')[0]} stemming`;
    case 'case':
      return value === 'lc' ? 'lowercased' : 'cased';
    case 'mode':
      return `${value} mode`;
    case 'eff':
      return value === 'yes' ? 'effective order' : 'fixed order';
    case 'layer':
      return `layer ${value}`;
    case 'idf':
      return value === 'no' || value === 'none' ? 'no idf' : 'idf';
    case 'rescale':
      return value === 'no' || value === 'none' ? 'not rescaled' : 'rescaled';
    case 'url':
      try {
        const u = new URL(value);
        return u.host + (u.pathname.replace(/\/+$/, '') === '/v1' ? '' : u.pathname.replace(/\/+$/, ''));
      } catch {
        return value;
      }
    case 'temperature':
      return `T=${value}`;
    case 'maxTokens':
      return `max ${value} tokens`;
    case 'logprobs':
      return value === 'true' ? 'logprobs' : 'no logprobs';
    case 'backend':
      return value.replace(/^openai-/, '');
    case 'model':
    case 'emb':
      return value;
    case 'rv':
      return `ReflectEval ${value}`;
    default:
      return `${key} ${value}`;
  }
}

/**
 * The signature of every evaluator id found in `items`: the `signature` its scores record (judges, metrics), else
 * the one a metric id carries. Ids written before signatures were recorded (ReflectEval 0.1.0 judges) have none.
 */
export function evaluatorSignatures(items: readonly { candidates: readonly { scores: Record<string, { signature?: unknown }> }[] }[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const it of items) {
    for (const c of it.candidates) {
      for (const [id, score] of Object.entries(c.scores)) {
        if (out.has(id)) continue;
        if (typeof score?.signature === 'string' && score.signature) out.set(id, score.signature);
        else {
          const m = parseMetricId(id);
          if (m?.signature) out.set(id, m.signature);
        }
      }
    }
  }
  return out;
}

/** The signature of an id: the recorded one, else the one a metric id carries. */
function signatureOf(id: string, signatures: ReadonlyMap<string, string>): string | undefined {
  return signatures.get(id) ?? (parseMetricId(id)?.signature || undefined);
}

/** Short, stable hex digest of a string (FNV-1a, 32 bits), to tell apart rows that still read the same. */
function shortHash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0').slice(0, 6);
}

/**
 * Display names for a set of ids, unique among them. Ids whose {@link displayName} collides are told apart by the
 * fields of their signatures that differ within the group, e.g. `BLEU-4 (whitespace tokens, no smoothing)` and
 * `BLEU-4 (13a tokens, no smoothing)` — only the fields that differ, read by {@link describeField}; an id without a
 * recorded signature (a ReflectEval 0.1.0 judge) reads `(configuration not recorded)`. Names that still collide
 * get a 6-digit digest, e.g. `BLEU-4 [a1b2c3]`.
 *
 * @param signatures - recorded signatures by id ({@link evaluatorSignatures}); metric ids carry their own
 */
export function displayNames(ids: readonly string[], signatures: ReadonlyMap<string, string> = new Map()): Map<string, string> {
  const base = new Map(ids.map((id) => [id, displayName(id)]));
  const groups = new Map<string, string[]>();
  for (const id of ids) {
    const n = base.get(id) as string;
    groups.set(n, [...(groups.get(n) ?? []), id]);
  }
  const named = new Map<string, string>();
  for (const [name, members] of groups) {
    if (members.length < 2) {
      named.set(members[0], name);
      continue;
    }
    const fields = new Map(members.map((id) => [id, parseSignature(signatureOf(id, signatures) ?? '')]));
    const keys = [...new Set([...fields.values()].flatMap((f) => [...f.keys()]))];
    const recorded = members.filter((id) => fields.get(id)!.size > 0);
    const differing = keys.filter((k) => new Set(recorded.map((id) => fields.get(id)!.get(k) ?? '\u0000')).size > 1);
    for (const id of members) {
      const f = fields.get(id)!;
      const parts = f.size === 0 ? ['configuration not recorded'] : differing.filter((k) => f.has(k)).map((k) => describeField(k, f.get(k) as string));
      named.set(id, parts.length ? `${name} (${parts.join(', ')})` : name);
    }
  }
  // Names that still read the same (signatures equal but for fields a name cannot show) get a digest.
  const count = new Map<string, number>();
  for (const n of named.values()) count.set(n, (count.get(n) ?? 0) + 1);
  const out = new Map<string, string>();
  for (const id of ids) {
    const n = named.get(id) as string;
    out.set(id, (count.get(n) ?? 0) < 2 ? n : `${n} [${shortHash(id)}]`);
  }
  return out;
}

/** One line of a legend: a display name and everything behind it. */
export interface LegendEntry {
  name: string;
  id: string;
  /** The full configuration, when recorded. */
  signature?: string;
}

/**
 * The legend an output carries: every evaluator's display name, id and full signature, in the order given, so a
 * reader of a table can reproduce each row.
 */
export function evaluatorLegend(ids: readonly string[], signatures: ReadonlyMap<string, string> = new Map()): LegendEntry[] {
  const names = displayNames(ids, signatures);
  return ids.map((id) => {
    const signature = signatureOf(id, signatures);
    return { name: names.get(id) as string, id, ...(signature ? { signature } : {}) };
  });
}
