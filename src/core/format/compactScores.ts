/**
 * Compact scores: a dialogue file's evaluators described once, in a header line, and each score written as little
 * more than its value (issue 19 item 3; docs/format.md, "Compact files").
 *
 * In the long form every score repeats its evaluator's full id and configuration (signature, judge, variant,
 * template hash) and carries its raw reply and time: a full AnnoMI study (1,288 contexts × 26 candidates × 17
 * evaluator outputs) is 250 MB, 88 % of it scores, five times what VS Code hands an extension. A compact file starts
 * with one header line
 *
 * ```json
 * {"reflectEval":{"format":"compact-scores","version":1,"evaluators":[{"id":"judge:…","at":"…","fields":{"signature":"…",…}}, …]}}
 * ```
 *
 * and a candidate's `scores` key `"#3"` stands for evaluator 3 of that list, its value for the score:
 * - a number `v`: `{...fields, at, value: v, status: "ok"}`;
 * - `[v, e]`: the same with `expected: e`;
 * - an object: `{...fields, at, ...object}` (a failed call, a repeated judgement, a score with its own time).
 *
 * Scores not in the header stay in the long form beside compact ones, so every writer stays lossless: encoding
 * falls back to the long form whenever the header cannot say a score exactly. Only {@link buildHeader}, run by
 * `reflect-eval compact`, drops anything, and only what it is asked to: each score's own time (the evaluator keeps
 * the time of its latest score) and the raw reply of a score that parsed (the reply cache keeps it).
 */
import { isDeepStrictEqual } from 'node:util';
import type { DialogueItem, Score } from '../dialogue/types';

/** The key of the header line's one field. */
export const HEADER_KEY = 'reflectEval';
/** The header's `format`. */
export const COMPACT_FORMAT = 'compact-scores';
/** The header version this code writes and reads. */
export const COMPACT_VERSION = 1;

/** One evaluator of a compact file: its id, the fields all its compact scores share, and their time. */
export interface EvaluatorEntry {
  /** The evaluator id the scores are stored under in memory (and in a long-form file). */
  id: string;
  /** Time of the scores written without one (ISO 8601): after compaction, the evaluator's latest score. */
  at?: string;
  /** Fields every compact score of this evaluator has with exactly these values (signature, judge, variant, …). */
  fields: Record<string, unknown>;
}

/** The header of a compact file: `{"reflectEval": FileHeader}` on its first line. Unknown fields are kept. */
export interface FileHeader {
  format: typeof COMPACT_FORMAT;
  version: number;
  /** Evaluator `#i` of the file is `evaluators[i]`. */
  evaluators: EvaluatorEntry[];
  [key: string]: unknown;
}

/** A problem with the header or a compact score: the field (dotted path) and what is wrong. */
export interface CompactProblem {
  field: string;
  message: string;
}

const ALIAS = /^#(0|[1-9]\d*)$/;
const indexes = new WeakMap<FileHeader, Map<string, number>>();

/** Evaluator id → its index in the header (cached per header object). */
function indexOf(header: FileHeader): Map<string, number> {
  let m = indexes.get(header);
  if (!m) {
    m = new Map(header.evaluators.map((e, i) => [e.id, i]));
    indexes.set(header, m);
  }
  return m;
}

/** Whether a parsed line is a header line: a JSON object with the field `reflectEval`. */
export function isHeaderLine(value: unknown): value is { reflectEval: unknown } {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.prototype.hasOwnProperty.call(value, HEADER_KEY);
}

/**
 * Checks a header line's value.
 *
 * @returns the header, or the problems that make it unusable (each naming its field)
 */
export function validateHeader(value: { reflectEval: unknown }): { header: FileHeader } | { problems: CompactProblem[] } {
  const h = value.reflectEval as Partial<FileHeader> | null;
  const problems: CompactProblem[] = [];
  if (typeof h !== 'object' || h === null || Array.isArray(h)) return { problems: [{ field: HEADER_KEY, message: 'must be an object' }] };
  if (h.format !== COMPACT_FORMAT) problems.push({ field: `${HEADER_KEY}.format`, message: `must be "${COMPACT_FORMAT}"` });
  if (h.version !== COMPACT_VERSION) problems.push({ field: `${HEADER_KEY}.version`, message: `must be ${COMPACT_VERSION} (this is ReflectEval's only compact format; a newer ReflectEval wrote this file?)` });
  if (!Array.isArray(h.evaluators)) problems.push({ field: `${HEADER_KEY}.evaluators`, message: 'must be an array' });
  else {
    const seen = new Set<string>();
    h.evaluators.forEach((e: Partial<EvaluatorEntry> | null, i) => {
      const at = `${HEADER_KEY}.evaluators[${i}]`;
      if (typeof e !== 'object' || e === null || Array.isArray(e)) return problems.push({ field: at, message: 'must be an object' });
      if (typeof e.id !== 'string' || e.id === '') problems.push({ field: `${at}.id`, message: 'must be a non-empty string' });
      else if (ALIAS.test(e.id)) problems.push({ field: `${at}.id`, message: 'must not look like an alias (#n)' });
      else if (seen.has(e.id)) problems.push({ field: `${at}.id`, message: `"${e.id}" is listed twice` });
      else seen.add(e.id);
      if (e.at !== undefined && typeof e.at !== 'string') problems.push({ field: `${at}.at`, message: 'must be a string (ISO 8601 time)' });
      if (typeof e.fields !== 'object' || e.fields === null || Array.isArray(e.fields)) problems.push({ field: `${at}.fields`, message: 'must be an object' });
    });
  }
  return problems.length ? { problems } : { header: h as FileHeader };
}

/** The header line's text (no line ending). */
export function formatHeader(header: FileHeader): string {
  return JSON.stringify({ [HEADER_KEY]: header });
}

const bases = new WeakMap<EvaluatorEntry, Record<string, unknown>>();

/** The fields every score of `entry` starts from (its shared fields and time), built once per entry. */
function baseOf(entry: EvaluatorEntry): Record<string, unknown> {
  let base = bases.get(entry);
  if (!base) {
    base = { ...entry.fields, ...(entry.at !== undefined ? { at: entry.at } : {}) };
    bases.set(entry, base);
  }
  return base;
}

/** The score that compact value `v` of evaluator `entry` stands for, or a message why it stands for none. */
function expandScore(v: unknown, entry: EvaluatorEntry): Score | string {
  // Object.assign, not spread: a file has hundreds of thousands of scores, and spread was 10× slower here.
  const base = baseOf(entry);
  if (typeof v === 'number') return Object.assign({}, base, { value: v, status: 'ok' }) as Score;
  if (Array.isArray(v)) {
    if (v.length !== 2 || typeof v[0] !== 'number' || typeof v[1] !== 'number') return 'a list must be [value, expected], two numbers';
    return Object.assign({}, base, { value: v[0], status: 'ok', expected: v[1] }) as Score;
  }
  if (typeof v === 'object' && v !== null) return Object.assign({}, base, v) as Score;
  return 'must be a number, [value, expected] or an object';
}

/**
 * Replaces an item's compact scores (`"#i"` keys) by the scores they stand for, in place, keeping the order of
 * scores. Long-form scores are left as they are.
 *
 * @param item - a parsed line (not yet validated: candidates that are not objects are skipped)
 * @returns problems naming the field, e.g. `candidates[2].scores.#7: no evaluator #7 in the header (line 1)`
 */
export function expandItemScores(item: Record<string, unknown>, header: FileHeader): CompactProblem[] {
  const problems: CompactProblem[] = [];
  if (!Array.isArray(item.candidates)) return problems;
  item.candidates.forEach((c: Record<string, unknown> | null, ci) => {
    const scores = c && typeof c === 'object' ? (c.scores as Record<string, unknown> | undefined) : undefined;
    if (!scores || typeof scores !== 'object' || Array.isArray(scores) || !Object.keys(scores).some((k) => ALIAS.test(k))) return;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(scores)) {
      const field = `candidates[${ci}].scores.${key}`;
      const m = ALIAS.exec(key);
      if (!m) {
        if (Object.prototype.hasOwnProperty.call(out, key)) problems.push({ field, message: `evaluator "${key}" is given twice (once as its alias)` });
        out[key] = v;
        continue;
      }
      const entry = header.evaluators[Number(m[1])];
      if (!entry) {
        problems.push({ field, message: `no evaluator ${key} in the header (line 1 lists ${header.evaluators.length})` });
        continue;
      }
      if (Object.prototype.hasOwnProperty.call(out, entry.id) || Object.prototype.hasOwnProperty.call(scores, entry.id)) {
        problems.push({ field, message: `evaluator "${entry.id}" is given twice (once as ${key})` });
        continue;
      }
      const score = expandScore(v, entry);
      if (typeof score === 'string') problems.push({ field, message: score });
      else out[entry.id] = score;
    }
    c!.scores = out;
  });
  return problems;
}

/**
 * The compact form of `score` as evaluator `entry`, or undefined when the header cannot say it exactly (a field
 * of the entry that the score lacks or has with another value; a score without a time when the entry has one).
 */
export function compactScore(score: Score, entry: EvaluatorEntry): unknown {
  for (const [k, v] of Object.entries(entry.fields)) if (!isDeepStrictEqual(score[k], v)) return undefined;
  if (entry.at !== undefined && typeof score.at !== 'string') return undefined;
  const residual: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(score)) {
    if (v === undefined || Object.prototype.hasOwnProperty.call(entry.fields, k)) continue;
    if (k === 'at' && v === entry.at) continue;
    residual[k] = v;
  }
  const keys = Object.keys(residual);
  const ok = (residual.status ?? entry.fields.status) === 'ok';
  if (ok && typeof residual.value === 'number' && Number.isFinite(residual.value)) {
    if (keys.every((k) => k === 'value' || k === 'status')) return residual.value;
    if (typeof residual.expected === 'number' && Number.isFinite(residual.expected) && keys.every((k) => k === 'value' || k === 'status' || k === 'expected')) return [residual.value, residual.expected];
  }
  return residual;
}

/**
 * One item as a line of a file with `header`: each score of an evaluator the header lists, and that the header can
 * say exactly, under its alias; every other field as JSON.stringify writes it. Without a header: the long form.
 */
export function encodeItem(item: DialogueItem, header?: FileHeader): string {
  if (!header || header.evaluators.length === 0) return JSON.stringify(item);
  const index = indexOf(header);
  let changed = false;
  const candidates = item.candidates.map((c) => {
    if (!c.scores) return c;
    let scores: Record<string, unknown> | undefined;
    for (const [id, s] of Object.entries(c.scores)) {
      const i = index.get(id);
      const compact = i === undefined || s === undefined ? undefined : compactScore(s, header.evaluators[i]);
      if (compact === undefined) {
        if (scores) scores[id] = s;
        continue;
      }
      if (!scores) {
        scores = {};
        // Keep the order of the scores before this one.
        for (const [k, v] of Object.entries(c.scores)) {
          if (k === id) break;
          scores[k] = v;
        }
      }
      scores[`#${i}`] = compact;
    }
    if (!scores) return c;
    changed = true;
    return { ...c, scores };
  });
  return JSON.stringify(changed ? { ...item, candidates } : item);
}

/** What {@link buildHeader} drops from each score while compacting. */
export interface CompactOptions {
  /** Keep each score's own time (default: dropped; the evaluator keeps the time of its latest score). */
  keepTimes?: boolean;
  /** Keep the raw reply of a score that parsed (default: dropped; the reply cache keeps it). Failed and unparsable replies are always kept. */
  keepRaw?: boolean;
}

/**
 * A score as compaction stores it: with its evaluator's latest time instead of its own, and without the raw reply
 * when it parsed, unless asked to keep them.
 */
function trimmed(score: Score, latest: string | undefined, options: CompactOptions): Score {
  const retime = !options.keepTimes && score.at !== undefined && score.at !== latest;
  const unraw = !options.keepRaw && score.status === 'ok' && score.raw !== undefined;
  if (!retime && !unraw) return score;
  const out = { ...score };
  if (retime) out.at = latest;
  if (unraw) delete out.raw;
  return out;
}

/** Fields the header never takes out of a score: what differs from score to score. */
const OWN_FIELDS = new Set(['value', 'expected', 'raw', 'message', 'at', 'repeats']);

/**
 * The header listing every evaluator of `items` (in order of first appearance), each with the fields all its scores
 * share; and the items with their scores trimmed as `options` says. Encoding the items with the header and reading
 * them back gives the trimmed items exactly.
 */
export function buildHeader(items: readonly DialogueItem[], options: CompactOptions = {}, extra: Record<string, unknown> = {}): { header: FileHeader; items: DialogueItem[] } {
  const latest = new Map<string, string>();
  for (const item of items)
    for (const c of item.candidates)
      for (const [id, s] of Object.entries(c.scores ?? {})) {
        const at = s && typeof s === 'object' ? s.at : undefined;
        if (typeof at === 'string' && !((latest.get(id) ?? '') >= at)) latest.set(id, at);
      }
  const shared = new Map<string, { fields: Record<string, unknown> | undefined }>();
  const out = items.map((item) => ({
    ...item,
    candidates: item.candidates.map((c) => {
      if (!c.scores) return c;
      const scores: Record<string, Score> = {};
      for (const [id, s] of Object.entries(c.scores)) {
        if (!s || typeof s !== 'object') {
          scores[id] = s;
          continue;
        }
        const t = trimmed(s, latest.get(id), options);
        scores[id] = t;
        let e = shared.get(id);
        if (!e) {
          e = { fields: undefined };
          shared.set(id, e);
        }
        if (!e.fields) e.fields = Object.fromEntries(Object.entries(t).filter(([k, v]) => !OWN_FIELDS.has(k) && v !== undefined));
        else for (const k of Object.keys(e.fields)) if (!isDeepStrictEqual(t[k], e.fields[k])) delete e.fields[k];
      }
      return { ...c, scores };
    }),
  }));
  // Dropped times: every score of the evaluator reads back with its latest. Kept times: each score keeps its own
  // (the entry has no time, so the encoder drops none).
  const evaluators: EvaluatorEntry[] = [...shared].map(([id, e]) => ({ id, ...(!options.keepTimes && latest.has(id) ? { at: latest.get(id) } : {}), fields: e.fields ?? {} }));
  return { header: { ...extra, format: COMPACT_FORMAT, version: COMPACT_VERSION, evaluators }, items: out };
}

/**
 * The header with an entry added for each evaluator of `items` it does not list (their shared fields, no time), so
 * a job's new scores are written compactly too; the same header object when nothing is new.
 */
export function extendHeader(header: FileHeader, items: readonly DialogueItem[]): FileHeader {
  const index = indexOf(header);
  const added = new Map<string, Record<string, unknown>>();
  for (const item of items)
    for (const c of item.candidates)
      for (const [id, s] of Object.entries(c.scores ?? {})) {
        if (index.has(id) || !s || typeof s !== 'object') continue;
        const fields = added.get(id);
        if (!fields) added.set(id, Object.fromEntries(Object.entries(s).filter(([k, v]) => !OWN_FIELDS.has(k) && v !== undefined)));
        else for (const k of Object.keys(fields)) if (!isDeepStrictEqual(s[k], fields[k])) delete fields[k];
      }
  if (added.size === 0) return header;
  return { ...header, evaluators: [...header.evaluators, ...[...added].map(([id, fields]) => ({ id, fields }))] };
}
