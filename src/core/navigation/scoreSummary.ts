/**
 * Scores as a person reads them beside a candidate: each evaluator by its readable name ({@link displayNames}), a
 * rounded value with the evaluator's scale, and the full id with the raw value for a tooltip; grouped into metrics
 * and judges. The dialogue editor shows these; the raw ids stay in the file and in the tooltip.
 */
import type { ErrorCategory, Score } from '../dialogue/types';
import { ERROR_CATEGORIES, ERROR_LABELS } from '../labels/scheme';
import { listMetrics } from '../metrics';
import { displayNames, evaluatorKind, parseJudgeId, parseMetricId } from '../evaluators/evaluatorNames';

/** The closed or half-open range an evaluator's values lie in. */
export interface ScoreScale {
  /** `-Infinity` for an open lower end (log-likelihoods). */
  min: number;
  /** `Infinity` for an open upper end. */
  max: number;
  /** Only whole numbers (a judge's 1–5 rating; its mean of K is not). */
  integer?: boolean;
}

/** Which group a score is shown in. */
export type ScoreGroupName = 'metrics' | 'judges' | 'other';

/** One score as shown. */
export interface ScoreLine {
  id: string;
  /** Readable name, unique among the names given to {@link summariseScores}. */
  name: string;
  /** Rounded value (`0.132`, `4`, `≈0`), or the status when there is no value (`unparsable`, `error`). */
  value: string;
  /** The scale, e.g. `0–1`, `1–5`, `≤ 0`; empty when unknown. */
  scale: string;
  /** Whether the value is usable (status `ok`). */
  ok: boolean;
  /** Full id, raw value and, when present, expected value, raw reply and message: for a tooltip. */
  title: string;
  /**
   * Set when the judge was asked K times (`judge --repeats K`) and its replies differ: e.g. `repeats differ: 4, 4, 2`
   * (the values in repeat order; `—` for a reply without a usable value). The editor marks such a candidate.
   */
  repeatsDiffer?: string;
  /** An error-category judge's verdict ({@link errorVerdict}), shown beside the candidate with its rationale. */
  verdict?: ErrorVerdict;
}

/** An error-category judgement as read beside a candidate (issue 17: the judge explains its verdict). */
export interface ErrorVerdict {
  /** Readable names of the categories that apply (first study §4.1.3), e.g. `Parroting`; empty: coherent. */
  categories: string[];
  /** Readable name of the most evident one, when the judge named it. */
  mostEvidentError?: string;
  /** The judge's rationale, verbatim as parsed (quoting the context or response it rests on). */
  rationale?: string;
}

/**
 * The verdict an error-category judge stored with its score (`categories`, `mostEvidentError`, `rationale`, written
 * by src/core/judges/judge.ts), with readable category names; undefined for any other score, an unusable one, or
 * fields that are not the scheme's categories.
 */
export function errorVerdict(score: Score): ErrorVerdict | undefined {
  if (score.status !== 'ok' || !Array.isArray(score.categories)) return undefined;
  const known = (c: unknown): c is ErrorCategory => typeof c === 'string' && (ERROR_CATEGORIES as readonly string[]).includes(c);
  if (!score.categories.every(known)) return undefined;
  const mee = known(score.mostEvidentError) ? ERROR_LABELS[score.mostEvidentError] : undefined;
  const rationale = typeof score.rationale === 'string' && score.rationale.trim() ? score.rationale.trim() : undefined;
  return { categories: score.categories.map((c) => ERROR_LABELS[c]), ...(mee ? { mostEvidentError: mee } : {}), ...(rationale ? { rationale } : {}) };
}

/**
 * Whether a score's repeated replies (`score.repeats`, written by `judge --repeats K`) disagree, and how: the values
 * in repeat order when at least two differ (a reply without a usable value counts as different), else undefined.
 */
export function repeatDisagreement(score: Score): string | undefined {
  const repeats = score.repeats;
  if (!Array.isArray(repeats) || repeats.length < 2) return undefined;
  const values = repeats.map((r) => (r && typeof r === 'object' && (r as Score).status === 'ok' && typeof (r as Score).value === 'number' ? ((r as Score).value as number) : null));
  if (values.every((v) => v === values[0])) return undefined;
  return `repeats differ: ${values.map((v) => (v === null ? '—' : String(v))).join(', ')}`;
}

/** A group of score lines. */
export interface ScoreGroup {
  group: ScoreGroupName;
  /** `Metrics`, `Judges`, `Other`. */
  title: string;
  lines: ScoreLine[];
}

const GROUP_TITLES: Record<ScoreGroupName, string> = { metrics: 'Metrics', judges: 'Judges', other: 'Other' };

/**
 * The scale of an evaluator id: a metric's from its card (the registered metric's output range), a judge's from
 * its request's valid answers. A judge's mean of K (`…/mean-of-K`) has the request's range but is not whole.
 *
 * @param requests - valid answers by request name (a prompt library's `requests[name].spec`); without them a
 *   judge's scale is unknown
 * @returns undefined when the scale is not known (an unregistered metric, a request not given)
 */
export function evaluatorScale(id: string, requests: Readonly<Record<string, { min: number; max: number; integer?: boolean }>> = {}): ScoreScale | undefined {
  const j = parseJudgeId(id);
  if (j) {
    const spec = requests[j.request];
    if (!spec) return undefined;
    const mean = /\/mean-of-\d+$/.test(j.hash);
    return { min: spec.min, max: spec.max, integer: !!spec.integer && !mean };
  }
  const m = parseMetricId(id);
  if (m) {
    const metric = listMetrics().find((x) => x.name === m.name);
    const output = metric?.outputs.find((o) => o.name === m.output) ?? (m.output ? undefined : metric?.outputs[0]);
    return output ? { min: output.range[0], max: output.range[1] } : undefined;
  }
  return undefined;
}

/** How a scale reads: `0–1`, `1–5`, `-1–1`, `≤ 0`, `≥ 0`. */
export function formatScale(scale: ScoreScale | undefined): string {
  if (!scale) return '';
  const n = (x: number) => (x < 0 ? `−${-x}` : String(x));
  if (!Number.isFinite(scale.min) && !Number.isFinite(scale.max)) return '';
  if (!Number.isFinite(scale.min)) return `≤ ${n(scale.max)}`;
  if (!Number.isFinite(scale.max)) return `≥ ${n(scale.min)}`;
  return `${n(scale.min)}–${n(scale.max)}`;
}

/**
 * A score value rounded for reading: whole numbers on an integer scale as they are; otherwise to a precision that
 * suits the scale's width (3 decimals up to a width of 2, 2 decimals up to 10, 1 decimal above, 2 decimals when
 * unbounded). A non-zero value that rounds to zero reads `≈0` (unsmoothed BLEU-4's 9.4e-232); `-0` reads `0`.
 */
export function formatScoreValue(value: number, scale?: ScoreScale): string {
  if (!Number.isFinite(value)) return String(value);
  if (scale?.integer && Number.isInteger(value)) return String(value);
  const width = scale && Number.isFinite(scale.min) && Number.isFinite(scale.max) ? scale.max - scale.min : Infinity;
  const digits = width <= 2 ? 3 : width <= 10 ? 2 : Number.isFinite(width) ? 1 : 2;
  const text = value.toFixed(digits);
  if (Number(text) === 0) return value === 0 ? (0).toFixed(digits) : '≈0';
  return text.startsWith('-') ? `−${text.slice(1)}` : text;
}

function groupOf(id: string): ScoreGroupName {
  const kind = evaluatorKind(id);
  return kind === 'judge' ? 'judges' : kind === 'metric' || kind === 'followUp' ? 'metrics' : 'other';
}

/**
 * A candidate's scores as grouped, readable lines: groups in the order metrics, judges, other (empty groups left
 * out); lines within a group by name.
 *
 * @param scores - the candidate's scores by evaluator id
 * @param names - readable names by id ({@link displayNames} over every id of the file, so they match the tables);
 *   ids not in it are named on their own
 * @param scales - scale by id ({@link evaluatorScale}); ids not in it have no scale shown
 */
export function summariseScores(scores: Readonly<Record<string, Score>>, names: ReadonlyMap<string, string> = new Map(), scales: ReadonlyMap<string, ScoreScale | undefined> = new Map()): ScoreGroup[] {
  const ids = Object.keys(scores);
  const own = displayNames(ids.filter((id) => !names.has(id)));
  const groups = new Map<ScoreGroupName, ScoreLine[]>();
  for (const id of ids) {
    const s = scores[id];
    const scale = scales.get(id);
    const ok = s.status === 'ok' && typeof s.value === 'number';
    const value = ok ? formatScoreValue(s.value as number, scale) : s.status;
    const title = [
      id,
      `value: ${s.value === null ? 'none' : String(s.value)}${ok ? '' : ` (${s.status})`}`,
      ...(typeof s.expected === 'number' ? [`expected value: ${s.expected}`] : []),
      ...(s.raw !== undefined ? [`raw reply: ${s.raw}`] : []),
      ...(s.message ? [`${s.message}`] : []),
    ].join('\n');
    const differ = repeatDisagreement(s);
    const verdict = errorVerdict(s);
    const line: ScoreLine = { id, name: names.get(id) ?? own.get(id) ?? id, value, scale: formatScale(scale), ok, title: differ ? `${title}\n${differ}` : title, ...(differ ? { repeatsDiffer: differ } : {}), ...(verdict ? { verdict } : {}) };
    const g = groupOf(id);
    groups.set(g, [...(groups.get(g) ?? []), line]);
  }
  return (['metrics', 'judges', 'other'] as const)
    .filter((g) => groups.has(g))
    .map((g) => ({ group: g, title: GROUP_TITLES[g], lines: (groups.get(g) as ScoreLine[]).sort((a, b) => a.name.localeCompare(b.name)) }));
}
