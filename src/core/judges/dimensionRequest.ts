/**
 * A judge's assessment request built from a rubric dimension (issue 39 item 4: "a judge's rating request can target
 * any ordinal dimension"). The bundled requests (prompts/requests: Rating, Scoring, Yes/No, error categories; ICMI
 * 2023 Appendix A Table 7) ask about coherence, the MI preset's primary dimension; for any other binary, ordinal or
 * numeric dimension the request is written from the rubric: its title, its question, its scale with every point's
 * anchor (ordinal) or its range (numeric), and the answer cue Table 7 ends with (`Fluency (1-5):`). Its spec holds the
 * scale (`min`, `max`, whole numbers, the points when they skip values) and the dimension's name, so replies outside
 * the scale are unparsable (never clamped), and the template hash and the cache key differ for every dimension and
 * scale. The MI preset's `coherent` is the bundled Yes/No request itself (the same prompt and evaluator id as
 * `--request binary`).
 */
import { MI_PRESET } from '../rubric/presets';
import { dimensionNamed, dimensionTitle, isScaleDimension, scaleRange, type Rubric } from '../rubric/rubric';
import type { PromptLibrary, RequestSpec } from '../templates/judgePrompt';

/** The prefix of requests built from a rubric dimension: `dimension:<name>`. */
export const DIMENSION_REQUEST_PREFIX = 'dimension:';

/**
 * The request name of a dimension: `dimension:<name>`, with `@`, `×` and `%` percent-encoded (they delimit judge
 * evaluator ids, `judge:<judge>:<body>×<request>@<hash>`).
 */
export function dimensionRequestName(name: string): string {
  return DIMENSION_REQUEST_PREFIX + name.replace(/[@×%]/g, (c) => encodeURIComponent(c));
}

/** Whether the dimension is the one the bundled requests ask about: the MI preset's `coherent`. */
export function isBundledTarget(rubric: Pick<Rubric, 'name'>, dimension: string): boolean {
  return rubric.name === MI_PRESET && dimension === 'coherent';
}

/** A request template built from a dimension (a member of `PromptLibrary.requests`). */
export interface DimensionRequest {
  name: string;
  /** Where its text came from, for messages: `<rubric file>#<dimension>`. */
  file: string;
  source: string;
  spec: RequestSpec;
}

const quote = (s: string) => `"${s}"`;

/**
 * The request of a binary, ordinal or numeric dimension (see the module docs for the text).
 *
 * - ordinal: "Rate the Response Candidate on a discrete scale from 1 to 5, where:" then one line per point
 *   (`1 means "disagree"`, or the bare point when it has no anchor), then `<Title> (1-5):`; whole numbers, and
 *   `values` when the points skip numbers;
 * - numeric: "Score the Response Candidate on a continuous scale from <min> to <max>" (with its step), then
 *   `<Title> (<min>-<max>):`; whole numbers when the range and step are whole (`values` for a step above 1);
 * - binary: the question, `Answer "Yes" or "No".`, the labels of the two answers when the rubric names them, then
 *   `Answer (Yes/No):`; Yes = 1, No = 0, as the bundled Yes/No request.
 *
 * @param rubricFile - the rubric's file, for messages (the rubric's name when it has none)
 * @throws Error naming the rubric's scale dimensions when `name` is not one of them; an Error naming the dimension
 *   when its text holds `{{` or `}}` (it would be read as a template placeholder)
 */
export function dimensionRequest(rubric: Rubric, name: string, rubricFile?: string): DimensionRequest {
  const d = dimensionNamed(rubric, name);
  const scales = rubric.dimensions.filter(isScaleDimension).map((s) => JSON.stringify(s.name)).join(', ') || 'none';
  if (!d) throw new Error(`the rubric "${rubric.name}" has no dimension ${JSON.stringify(name)}; a judge can rate its binary, ordinal and numeric dimensions: ${scales}`);
  if (!isScaleDimension(d)) throw new Error(`dimension ${JSON.stringify(name)} is ${d.type}: a judge rates binary, ordinal and numeric dimensions (${scales})`);
  const file = `${rubricFile ?? `rubric "${rubric.name}"`}#${name}`;
  const title = dimensionTitle(d);
  const { min, max } = scaleRange(d);
  const lines: string[] = [title];
  let spec: RequestSpec;
  if (d.type === 'binary') {
    lines.push(`${d.question ?? `Is the Response Candidate ${title}?`} Answer "Yes" or "No".`);
    if (d.labels) lines.push(`"Yes" means ${quote(d.labels.yes)}; "No" means ${quote(d.labels.no)}.`);
    lines.push('Answer (Yes/No):');
    spec = { min: 0, max: 1, integer: true, answers: { Yes: 1, No: 0 } };
  } else if (d.type === 'ordinal') {
    const points = d.points.map((p) => p.value);
    const contiguous = points.every((v, i) => i === 0 || v === points[i - 1] + 1);
    if (d.question) lines.push(d.question);
    lines.push(`Rate the Response Candidate on a discrete scale from ${min} to ${max}${contiguous ? '' : ` (one of ${points.join(', ')})`}, where:`);
    for (const p of d.points) lines.push(p.label ? `${p.value} means ${quote(p.label)}` : `${p.value}`);
    lines.push(`${title} (${min}-${max}):`);
    spec = { min, max, integer: true, ...(contiguous ? {} : { values: points }) };
  } else {
    const whole = Number.isInteger(min) && Number.isInteger(max) && (d.step === undefined || Number.isInteger(d.step));
    if (d.question) lines.push(d.question);
    lines.push(`Score the Response Candidate on a continuous scale from ${min} to ${max}${d.step !== undefined ? ` in steps of ${d.step}` : ''}.`);
    lines.push(`${title} (${min}-${max}):`);
    const grid = whole && d.step !== undefined && d.step > 1 ? Array.from({ length: Math.floor((max - min) / d.step) + 1 }, (_, i) => min + i * d.step!) : undefined;
    spec = { min, max, integer: whole, ...(grid ? { values: grid } : {}) };
  }
  const source = lines.join('\n') + '\n';
  if (/\{\{|\}\}/.test(source)) throw new Error(`${file}: the dimension's title, question or anchors hold "{{" or "}}", which a judge prompt would read as a template placeholder; write them without braces`);
  return {
    name: dimensionRequestName(name),
    file,
    source,
    spec: { ...spec, description: `Built from the rubric "${rubric.name}", dimension ${JSON.stringify(name)} (${d.type}).`, dimension: name },
  };
}

/**
 * The prompt library with the request a judge plan's `dimension` names, and that request's name: for the MI preset's
 * `coherent`, the bundled `binary` request (the library unchanged); for any other scale dimension, the library plus
 * {@link dimensionRequest}'s request (a new library object; `lib` is not changed).
 *
 * @throws Error as {@link dimensionRequest}, or when the MI preset's coherence is asked of a library without `binary`
 */
export function withDimensionRequest(lib: PromptLibrary, rubric: Rubric, name: string, rubricFile?: string): { lib: PromptLibrary; request: string } {
  if (isBundledTarget(rubric, name)) {
    if (!lib.requests.binary) throw new Error(`the prompts folder ${lib.root} has no "binary" request, the request of the MI preset's coherence`);
    return { lib, request: 'binary' };
  }
  const r = dimensionRequest(rubric, name, rubricFile);
  return { lib: { ...lib, requests: { ...lib.requests, [r.name]: { file: r.file, source: r.source, spec: r.spec } } }, request: r.name };
}
