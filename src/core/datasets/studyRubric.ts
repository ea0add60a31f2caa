/**
 * The rubric a dataset mapping declares (issue 39 items 1 and 5): each rating column of the mapping
 * (`labels.dimensions`) is a rubric dimension named after its column, exactly; the study's rubric is those
 * dimensions (after the MI preset's when the mapping also reads the MI labels) with the mapping's `rubric` fields.
 * Also the rules of a mapping a JSON Schema cannot say, and how a cell becomes a dimension's value — checked with
 * the rubric's own `labelProblem`, so a value the rubric cannot take is an error, never a default.
 */
import { labelProblem, type LabelValue } from '../rubric/labelValues';
import { MI_RUBRIC } from '../rubric/presets';
import { isScaleDimension, type Dimension, type Rubric } from '../rubric/rubric';
import { rubricProblems } from '../rubric/rubricFile';
import type { DatasetMapping, DimensionColumn } from './mapping';

/** The rating columns a mapping declares (long or lists labels), or none. */
export function dimensionColumns(m: DatasetMapping): DimensionColumn[] {
  const l = m.labels;
  return l && (l.layout === 'long' || l.layout === 'lists') ? (l.dimensions ?? []) : [];
}

/** True when the mapping reads any of the MI preset's labels (coherence, errors, most evident error, empathy). */
export function readsMiLabels(m: DatasetMapping): boolean {
  const l = m.labels;
  if (!l) return false;
  if (l.layout === 'wide') return true;
  if (l.layout === 'lists') return false;
  return Boolean(l.coherent || l.errors || l.mostEvidentError || l.empathy);
}

/** The rubric dimension of a rating column: named after the column, of its type. */
export function dimensionOf(c: DimensionColumn): Dimension {
  const base = { name: c.column, ...(c.title ? { title: c.title } : {}), ...(c.question ? { question: c.question } : {}) };
  switch (c.type) {
    case 'binary':
      return { ...base, type: 'binary' };
    case 'ordinal':
      return { ...base, type: 'ordinal', points: c.points.map((value) => ({ value, ...(c.anchors?.[String(value)] ? { label: c.anchors[String(value)] } : {}) })) };
    case 'numeric':
      return { ...base, type: 'numeric', min: c.min, max: c.max, ...(c.step !== undefined ? { step: c.step } : {}) };
    case 'categorical':
      return { ...base, type: 'categorical', options: c.options.map((value) => ({ value })) };
    case 'text':
      return { ...base, type: 'text' };
  }
}

const PRIMARY_NAMES = ['overall', 'overallquality', 'quality', 'score', 'rating'];

/**
 * The study's rubric: null when the mapping declares no rating dimensions (the study is the MI preset, and no
 * rubric file is written); else the declared dimensions — after the MI preset's when the mapping also reads MI
 * labels — named after their columns, with the mapping's `rubric` name, description, primary dimension and
 * speakers. The primary dimension defaults to the MI preset's `coherent` when MI labels are read, else to a scale
 * dimension named like "Overall" or "quality", else to the first scale dimension.
 *
 * @param datasetName - the rubric's name when `rubric.name` is not given
 */
export function rubricOfMapping(m: DatasetMapping, datasetName: string): Rubric | null {
  const declared = dimensionColumns(m);
  if (declared.length === 0) return null;
  const mi = readsMiLabels(m);
  const dimensions = [...(mi ? MI_RUBRIC.dimensions : []), ...declared.map(dimensionOf)];
  const scale = dimensions.filter(isScaleDimension);
  const named = scale.find((d) => PRIMARY_NAMES.includes(d.name.toLowerCase().replace(/[^a-z]/g, '')));
  const primary = m.rubric?.primary ?? (mi ? MI_RUBRIC.primary : (named ?? scale[0])?.name ?? dimensions[0].name);
  const r = m.rubric;
  const speakers = r?.respondent || r?.names ? { ...(r.respondent ? { respondent: r.respondent } : {}), ...(r.names ? { names: r.names } : {}) } : mi ? MI_RUBRIC.speakers : undefined;
  return {
    version: 1,
    name: r?.name ?? datasetName,
    ...(r?.description ? { description: r.description } : {}),
    primary,
    dimensions,
    ...(speakers ? { speakers } : {}),
  };
}

/** A rule of a mapping that its JSON Schema cannot say, broken: the mapping field and what is wrong. */
export interface MappingRuleProblem {
  field: string;
  message: string;
}

/**
 * The rules of a (schema-valid) mapping beyond its schema: one reference rule; long labels read coherence or
 * rating dimensions; a text context names its speakers one way; rating columns are distinct, read no column
 * another role reads, have disjoint yes/no values and distinct options; the coherence values are disjoint; a
 * `rubric` needs dimensions; and the rubric they make passes every rubric rule (rubricFile.ts), reported by
 * mapping field.
 */
export function mappingRuleProblems(m: DatasetMapping, datasetName: string): MappingRuleProblem[] {
  const out: MappingRuleProblem[] = [];
  const ref = m.reference ?? {};
  const refKinds = [ref.column !== undefined && 'column', ref.fromHumanResponse && 'fromHumanResponse', ref.source !== undefined && 'source'].filter(Boolean);
  if (refKinds.length > 1) out.push({ field: 'reference', message: `give one of "column" (a reference column), "fromHumanResponse" or "source", not ${refKinds.map((k) => `"${k}"`).join(' and ')}` });
  const l = m.labels;
  if (l?.layout === 'long' && !l.coherent && !l.dimensions?.length) out.push({ field: 'labels', message: 'long labels read a coherence column ("coherent") or rating columns ("dimensions"), or both' });
  if (m.context.layout === 'text') {
    const c = m.context;
    if (Boolean(c.alternate) === Boolean(c.speakerPrefix)) out.push({ field: 'context', message: 'a text context names its speakers one way: "alternate": ["<speaker of the last turn>", "<the other speaker>"] when the text does not name them, or "speakerPrefix": true when each turn starts with "<speaker>: "' });
    if (c.alternate && c.alternate[0].trim() === c.alternate[1].trim()) out.push({ field: 'context.alternate', message: 'the two speakers must differ' });
  }
  const cv = m.coherentValues;
  if (cv) {
    const no = new Set((cv.no ?? []).map((s) => s.trim().toLowerCase()));
    const both = (cv.yes ?? []).filter((s) => no.has(s.trim().toLowerCase()));
    if (both.length) out.push({ field: 'coherentValues', message: `${both.map((s) => JSON.stringify(s)).join(', ')} cannot mean both yes and no` });
  }
  const declared = dimensionColumns(m);
  if (m.rubric && declared.length === 0) out.push({ field: 'rubric', message: 'a rubric of its own needs rating columns ("labels.dimensions"); without them the study is the MI preset' });
  const otherRoles = new Set(
    [m.response.text, m.response.source, m.reference?.column, ...(m.itemId ?? []), m.context.layout === 'rows' ? [m.context.dialogue, m.context.speaker, m.context.text, m.context.order] : [m.context.column], l?.layout === 'long' ? [l.annotator, l.coherent, l.group, l.mostEvidentError, l.empathy, ...Object.values(l.errors ?? {})] : [], l?.layout === 'lists' ? l.annotators : undefined].flat().filter((c): c is string => typeof c === 'string'),
  );
  const seen = new Map<string, number>();
  declared.forEach((d, i) => {
    const at = `labels.dimensions[${i}]`;
    if (seen.has(d.column)) out.push({ field: `${at}.column`, message: `column ${JSON.stringify(d.column)} is already dimension ${seen.get(d.column)! + 1}` });
    else seen.set(d.column, i);
    if (otherRoles.has(d.column)) out.push({ field: `${at}.column`, message: `column ${JSON.stringify(d.column)} already plays another role in the mapping` });
    if (d.column === 'extraColumns') out.push({ field: `${at}.column`, message: '"extraColumns" is where an annotation keeps unmapped columns; rename the column' });
    if (d.type === 'binary' && d.values) {
      const no = new Set(d.values.no.map((s) => s.trim().toLowerCase()));
      const both = d.values.yes.filter((s) => no.has(s.trim().toLowerCase()));
      if (both.length) out.push({ field: `${at}.values`, message: `${both.map((s) => JSON.stringify(s)).join(', ')} cannot mean both yes and no` });
    }
    if (d.type === 'categorical') {
      const dup = d.options.find((o, j) => d.options.indexOf(o) !== j);
      if (dup !== undefined) out.push({ field: `${at}.options`, message: `${JSON.stringify(dup)} is listed twice` });
    }
  });
  if (out.length) return out;
  const rubric = rubricOfMapping(m, datasetName);
  if (rubric && !m.rubric?.primary && !rubric.dimensions.some(isScaleDimension)) {
    out.push({ field: 'labels.dimensions', message: 'a study needs a binary, ordinal or numeric dimension (its primary dimension, which analyses use when none is named)' });
  }
  if (rubric) {
    const offset = readsMiLabels(m) ? MI_RUBRIC.dimensions.length : 0;
    for (const p of rubricProblems(rubric)) {
      const [head, i, ...rest] = p.path;
      if (head === 'dimensions' && typeof i === 'number' && i >= offset) {
        const sub = rest[0] === 'name' ? '.column' : rest.map((x) => (typeof x === 'number' ? `[${x}]` : `.${x}`)).join('');
        out.push({ field: `labels.dimensions[${i - offset}]${sub}`, message: offset && rest[0] === 'name' ? `${p.message} (the MI preset's dimensions come first: this mapping also reads MI labels)` : p.message });
      } else if (head === 'primary') {
        // a primary the mapping did not name is the guess of a dimension whose own problem is already listed
        if (m.rubric?.primary) out.push({ field: 'rubric.primary', message: p.message });
      }
      else if (head === 'speakers') out.push({ field: ['rubric', ...p.path.slice(1)].join('.'), message: p.message });
      else out.push({ field: ['rubric', ...p.path].join('.'), message: p.message });
    }
  }
  return out;
}

/** The text of a cell as written: strings as they are, numbers and booleans written out, objects as JSON. */
export function cellText(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return JSON.stringify(v);
}

const YES = ['yes', 'y', 'true', '1'];
const NO = ['no', 'n', 'false', '0'];
const NUMBER = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Reads one cell (or one element of a rating list) as a value of a rating column's dimension.
 *
 * - empty (`""`, null, or one of `missing`) → undefined: no answer;
 * - binary: the column's `values` (any case), else exactly yes/y/true/1 and no/n/false/0 (and JSON booleans);
 * - ordinal and numeric: a number (JSON number, or text written as a number), which must be a point of the scale
 *   (ordinal) or in its range and on its step (numeric);
 * - categorical: one of the options, as written (surrounding spaces aside);
 * - text: the text as written.
 *
 * @throws Error (message only; the caller adds file, line or path, and column) naming the value and what the
 *   dimension takes
 */
export function readDimensionValue(raw: unknown, c: DimensionColumn, d: Dimension, missing: ReadonlySet<string> = new Set()): LabelValue | undefined {
  if (raw === undefined || raw === null) return undefined;
  const text = cellText(raw);
  if (text.trim() === '' || missing.has(text.trim())) return undefined;
  let value: unknown;
  switch (c.type) {
    case 'binary': {
      if (typeof raw === 'boolean') {
        value = raw;
        break;
      }
      const s = text.trim().toLowerCase();
      const yes = c.values ? c.values.yes.map((v) => v.trim().toLowerCase()) : YES;
      const no = c.values ? c.values.no.map((v) => v.trim().toLowerCase()) : NO;
      if (yes.includes(s)) value = true;
      else if (no.includes(s)) value = false;
      else throw new Error(`${JSON.stringify(raw)} is neither yes (${(c.values?.yes ?? YES).map((v) => JSON.stringify(v)).join(', ')}) nor no (${(c.values?.no ?? NO).map((v) => JSON.stringify(v)).join(', ')}); list it under "values" of this dimension`);
      break;
    }
    case 'ordinal':
    case 'numeric': {
      if (typeof raw === 'number') value = raw;
      else if (typeof raw === 'string' && NUMBER.test(raw.trim())) value = Number(raw.trim());
      else throw new Error(`${JSON.stringify(raw)} is not a number (${d.name} is ${c.type === 'ordinal' ? `a scale of ${c.points.join(', ')}` : `a number from ${c.min} to ${c.max}`})`);
      break;
    }
    case 'categorical':
      value = typeof raw === 'string' ? raw.trim() : text;
      break;
    case 'text':
      value = text;
      break;
  }
  const problem = labelProblem(value, d);
  if (problem) throw new Error(`${problem}${typeof raw === 'string' && raw.trim() !== String(value) ? ` (written ${JSON.stringify(raw)})` : ''}`);
  return value as LabelValue;
}
