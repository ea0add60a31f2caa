/**
 * The column (or field) mapping of the generic dataset importer: which column of a CSV file, or which field of a
 * JSONL record, plays which role — the dialogue context, the response, its source, the reference, the labels.
 * A mapping is plain JSON (a file for `reflect-eval import generic --mapping`, or what the VS Code wizard builds),
 * validated against {@link MAPPING_SCHEMA} (JSON Schema draft 7, with ajv) and against the file's columns.
 * See docs/importing.md.
 */
import Ajv, { type ErrorObject } from 'ajv';
import type { ErrorCategory } from '../dialogue/types';

/** The context as one cell per response row: a JSON list of turns (`[{"client": "…"}, …]` or `{speaker, text}`). */
export interface JsonContextMapping {
  layout: 'json';
  /** The column holding the JSON list. */
  column: string;
}

/**
 * The context as turn rows: each turn is a row with a dialogue id, a speaker and a text (and optionally an order);
 * response rows are the rows whose response column is filled. A response row's context is its dialogue's turns —
 * those before the response's own `order` when it has one, else all of them.
 */
export interface RowsContextMapping {
  layout: 'rows';
  /** The column grouping rows into dialogues. */
  dialogue: string;
  speaker: string;
  text: string;
  /** A column ordering the turns (numbers, or text compared as numbers when they are); else file order. */
  order?: string;
}

/** One row per (response, annotator): an annotator column and label columns. */
export interface LongLabelsMapping {
  layout: 'long';
  annotator: string;
  /** Coherent? (Yes/No, 1/0, true/false in any case, or the values of `coherentValues`). */
  coherent: string;
  /** Optional annotator-group column (`expert…` means expert); else the expert prefix decides. */
  group?: string;
  /** Optional error columns (Yes/No), read when the response is marked incoherent. */
  errors?: Partial<Record<ErrorCategory, string>>;
  mostEvidentError?: string;
  empathy?: string;
}

/** One row per response, one coherence column per annotator. */
export interface WideLabelsMapping {
  layout: 'wide';
  /** Coherence columns: a list (the column name is the annotator id) or an object column → annotator id. */
  coherent: string[] | Record<string, string>;
  /** Annotator id → `expert` or `layperson` (else the expert prefix decides). */
  groups?: Record<string, 'expert' | 'layperson'>;
}

/** How to read a dataset (see docs/importing.md). */
export interface DatasetMapping {
  /** `csv` (any delimiter: comma, tab or semicolon, detected) or `jsonl`; default from the file name. */
  format?: 'csv' | 'jsonl';
  /** Recorded as `provenance.dataset` (default: the file's base name). */
  dataset?: string;
  /** Columns whose values, joined, identify an item (json layout; default: the context itself). */
  itemId?: string[];
  /** Put before every item id (`annomi-` gives the annotation importer's ids). */
  itemIdPrefix?: string;
  context: JsonContextMapping | RowsContextMapping;
  /** Extra spellings of the two speakers (besides therapist/counsellor/counselor and client/patient). */
  speakers?: { therapist?: string[]; client?: string[] };
  response: {
    /** The response text. */
    text: string;
    /** Where it comes from (a model name, `Human`, …). */
    source?: string;
    /** The source of every response when there is no source column. */
    sourceName?: string;
  };
  reference?: {
    /** A column holding the item's reference text. */
    column?: string;
    /** Make the item's human-written response its reference (as `import annotations --reference`). */
    fromHumanResponse?: boolean;
  };
  /** Source values that mean a human-written response (case-insensitive; default Human, Therapist, Gold, …). */
  humanSources?: string[];
  labels?: LongLabelsMapping | WideLabelsMapping;
  /** Values read as coherent / incoherent besides Yes/No (e.g. `["coherent"]`, `["incoherent"]`). */
  coherentValues?: { yes?: string[]; no?: string[] };
  /** Annotator ids starting with this (any case) are experts (default `Expert`). */
  expertPrefix?: string;
}

const ERROR_KEYS: ErrorCategory[] = ['malformed', 'dialogueContradicting', 'parroting', 'offTopic', 'onTopicButUnverifiable', 'other'];
const str = { type: 'string', minLength: 1 };
const strList = { type: 'array', items: str };

/** JSON Schema (draft 7) of {@link DatasetMapping}. */
export const MAPPING_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'ReflectEval dataset mapping',
  type: 'object',
  additionalProperties: false,
  required: ['context', 'response'],
  properties: {
    $schema: { type: 'string' },
    format: { enum: ['csv', 'jsonl'] },
    dataset: str,
    itemId: strList,
    itemIdPrefix: { type: 'string' },
    context: {
      type: 'object',
      required: ['layout'],
      discriminator: { propertyName: 'layout' },
      oneOf: [
        { properties: { layout: { const: 'json' }, column: str }, required: ['layout', 'column'], additionalProperties: false },
        { properties: { layout: { const: 'rows' }, dialogue: str, speaker: str, text: str, order: str }, required: ['layout', 'dialogue', 'speaker', 'text'], additionalProperties: false },
      ],
    },
    speakers: { type: 'object', additionalProperties: false, properties: { therapist: strList, client: strList } },
    response: { type: 'object', additionalProperties: false, required: ['text'], properties: { text: str, source: str, sourceName: str } },
    reference: { type: 'object', additionalProperties: false, properties: { column: str, fromHumanResponse: { type: 'boolean' } } },
    humanSources: strList,
    labels: {
      type: 'object',
      required: ['layout'],
      discriminator: { propertyName: 'layout' },
      oneOf: [
        {
          properties: {
            layout: { const: 'long' },
            annotator: str,
            coherent: str,
            group: str,
            errors: { type: 'object', additionalProperties: false, properties: Object.fromEntries(ERROR_KEYS.map((k) => [k, str])) },
            mostEvidentError: str,
            empathy: str,
          },
          required: ['layout', 'annotator', 'coherent'],
          additionalProperties: false,
        },
        {
          properties: {
            layout: { const: 'wide' },
            coherent: { oneOf: [{ ...strList, minItems: 1 }, { type: 'object', minProperties: 1, additionalProperties: str }] },
            groups: { type: 'object', additionalProperties: { enum: ['expert', 'layperson'] } },
          },
          required: ['layout', 'coherent'],
          additionalProperties: false,
        },
      ],
    },
    coherentValues: { type: 'object', additionalProperties: false, properties: { yes: strList, no: strList } },
    expertPrefix: str,
  },
} as const;

/** A mapping that is not valid, or names columns the file lacks: every problem, each with its field. */
export class MappingError extends Error {
  constructor(
    readonly source: string,
    readonly problems: { field: string; message: string }[],
  ) {
    super(problems.length === 1 ? `${source}: ${problems[0].field}: ${problems[0].message}` : `${problems.length} problems in ${source}:\n${problems.map((p) => `  ${p.field}: ${p.message}`).join('\n')}`);
    this.name = 'MappingError';
  }
}

let validator: ReturnType<Ajv['compile']> | undefined;

function field(e: ErrorObject): string {
  const path = e.instancePath.replace(/^\//, '').split('/').filter(Boolean).map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required') path.push((e.params as { missingProperty: string }).missingProperty);
  if (e.keyword === 'additionalProperties') path.push((e.params as { additionalProperty: string }).additionalProperty);
  return path.reduce((s, p) => (/^\d+$/.test(p) ? `${s}[${p}]` : s ? `${s}.${p}` : p), '') || '(mapping)';
}

function message(e: ErrorObject): string {
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'additionalProperties':
      return 'is not a mapping field (misspelt?)';
    case 'enum':
      return `must be one of ${(e.params as { allowedValues: unknown[] }).allowedValues.join(', ')}`;
    case 'discriminator':
      return e.instancePath.endsWith('context') ? 'layout must be "json" (a JSON list of turns per row) or "rows" (speaker/text rows grouped by a dialogue id)' : 'layout must be "long" (one row per response and annotator) or "wide" (one coherence column per annotator)';
    case 'minLength':
      return 'must not be empty';
    default:
      return e.message ?? 'is not valid';
  }
}

/**
 * Checks that `value` is a {@link DatasetMapping}.
 *
 * @param source - where the mapping came from, for messages (`mapping.json`)
 * @throws MappingError listing every problem with its field (`labels.layout: must be …`)
 */
export function validateMapping(value: unknown, source = 'mapping'): DatasetMapping {
  validator ??= new Ajv({ allErrors: true, strict: false, discriminator: true }).compile(MAPPING_SCHEMA);
  if (validator(value)) return value as DatasetMapping;
  const seen = new Set<string>();
  const problems = (validator.errors ?? [])
    // a oneOf of the wide coherence field repeats its branches' errors: one message is enough
    .filter((e) => !(e.keyword === 'oneOf' && e.instancePath.endsWith('/coherent')))
    .map((e) => ({ field: field(e), message: e.instancePath.endsWith('/coherent') && e.keyword !== 'additionalProperties' ? 'must be a list of columns or an object column → annotator id' : message(e) }))
    .filter((p) => !seen.has(`${p.field}\u0000${p.message}`) && seen.add(`${p.field}\u0000${p.message}`));
  throw new MappingError(source, problems);
}

/** Every column a mapping reads, with the mapping field that names it (for messages). */
export function mappedColumns(m: DatasetMapping): { field: string; column: string }[] {
  const out: { field: string; column: string }[] = [];
  const add = (fieldName: string, column: string | undefined) => column !== undefined && out.push({ field: fieldName, column });
  (m.itemId ?? []).forEach((c, i) => add(`itemId[${i}]`, c));
  if (m.context.layout === 'json') add('context.column', m.context.column);
  else {
    add('context.dialogue', m.context.dialogue);
    add('context.speaker', m.context.speaker);
    add('context.text', m.context.text);
    add('context.order', m.context.order);
  }
  add('response.text', m.response.text);
  add('response.source', m.response.source);
  add('reference.column', m.reference?.column);
  const l = m.labels;
  if (l?.layout === 'long') {
    add('labels.annotator', l.annotator);
    add('labels.coherent', l.coherent);
    add('labels.group', l.group);
    for (const [k, c] of Object.entries(l.errors ?? {})) add(`labels.errors.${k}`, c);
    add('labels.mostEvidentError', l.mostEvidentError);
    add('labels.empathy', l.empathy);
  } else if (l?.layout === 'wide') {
    const cols = Array.isArray(l.coherent) ? l.coherent : Object.keys(l.coherent);
    cols.forEach((c) => add(`labels.coherent`, c));
  }
  return out;
}

/**
 * Checks that every column the mapping names is in the file (`columns`: the CSV header, or the fields of the
 * JSONL records; JSONL fields may be dotted paths into nested objects, checked by their first part).
 *
 * @throws MappingError naming each mapping field whose column is missing, and the columns there are
 */
export function checkColumns(m: DatasetMapping, columns: readonly string[], source: string, dotted = false): void {
  const have = new Set(columns);
  const missing = mappedColumns(m).filter(({ column }) => !have.has(column) && !(dotted && have.has(column.split('.')[0])));
  if (missing.length) {
    const list = columns.length > 30 ? `${columns.slice(0, 30).join(', ')}, …` : columns.join(', ');
    throw new MappingError(source, missing.map(({ field: f, column }) => ({ field: f, message: `column ${JSON.stringify(column)} is not in the file (its columns: ${list})` })));
  }
}

/** Lower case, letters and digits only: how {@link guessMapping} compares column names. */
function norm(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The first column whose normalised name is one of `names` (in the order of `names`), else one containing one of `parts`. */
function findColumn(columns: readonly string[], names: string[], parts: string[] = [], exclude: ReadonlySet<string> = new Set()): string | undefined {
  const free = columns.filter((c) => !exclude.has(c));
  for (const n of names) {
    const hit = free.find((c) => norm(c) === n);
    if (hit) return hit;
  }
  for (const p of parts) {
    const hit = free.find((c) => norm(c).includes(p));
    if (hit) return hit;
  }
  return undefined;
}

/** Column names that look like one annotator's labels: `Expert 1`, `rater_a`, `annotator2`, `Layperson-3`. */
const RATER_COLUMN = /^(expert|layperson|lay|annotator|annot|rater|judge|worker|coder)[\s_-]*([0-9]+|[a-z])$/i;

/**
 * A mapping guessed from column names, for the wizard's defaults and `import generic --guess`: a JSON context
 * column (`dialogue_context`, `context`, `history`, …) or turn rows (`speaker`/`role` + `text`/`utterance` +
 * a dialogue id), the response (`reflection`, `response`, `candidate`, …), its source, a reference, and labels —
 * long (an `annotator` column and a coherence column) or wide (columns named like annotators: `Expert 1`,
 * `rater_a`, `annotator2`, …). Only a starting point: every field can be changed.
 */
export function guessMapping(columns: readonly string[]): DatasetMapping {
  const used = new Set<string>();
  const take = (c: string | undefined) => (c !== undefined && used.add(c), c);
  const contextColumn = take(findColumn(columns, ['dialoguecontext', 'context', 'history', 'dialoguehistory', 'conversation', 'dialogue', 'turns'], ['context', 'history']));
  let context: DatasetMapping['context'];
  if (contextColumn) context = { layout: 'json', column: contextColumn };
  else {
    const dialogue = take(findColumn(columns, ['dialogueid', 'conversationid', 'convid', 'transcriptid', 'sessionid', 'dialogue', 'id'], ['dialogue', 'conversation', 'transcript', 'session'], used));
    const speaker = take(findColumn(columns, ['speaker', 'role', 'interlocutor', 'who'], ['speaker', 'role'], used));
    const order = take(findColumn(columns, ['order', 'turn', 'turnid', 'turnno', 'turnnumber', 'utteranceid', 'index', 'position'], ['turn', 'order'], used));
    const text = take(findColumn(columns, ['text', 'utterance', 'utterancetext', 'turntext', 'message'], ['utterance'], used));
    context = { layout: 'rows', dialogue: dialogue ?? columns[0] ?? 'dialogue_id', speaker: speaker ?? 'speaker', text: text ?? 'text', ...(order ? { order } : {}) };
  }
  const responseText = take(findColumn(columns, ['reflection', 'response', 'candidate', 'generated', 'generation', 'hypothesis', 'prediction', 'output', 'responsetext'], ['response', 'reflection', 'candidate'], used));
  const source = take(findColumn(columns, ['reflectionsource', 'responsesource', 'source', 'model', 'system', 'generator'], ['source', 'model', 'system'], used));
  const reference = take(findColumn(columns, ['reference', 'goldresponse', 'gold', 'groundtruth', 'target', 'humanresponse'], ['reference', 'gold'], used));
  const mapping: DatasetMapping = { context, response: { text: responseText ?? 'response', ...(source ? { source } : {}) } };
  if (reference) mapping.reference = { column: reference };
  const annotator = findColumn(columns, ['annotator', 'rater', 'annotatorid', 'raterid', 'worker', 'workerid', 'judge'], [], used);
  const coherent = findColumn(columns, ['coherentandcontextconsistent', 'coherent', 'coherence', 'iscoherent', 'label'], ['coheren'], used);
  if (annotator && coherent) {
    used.add(annotator).add(coherent);
    const errors: Partial<Record<ErrorCategory, string>> = {};
    const errorNames: [ErrorCategory, string[]][] = [
      ['dialogueContradicting', ['dialoguecontradicting', 'contradicting']],
      ['malformed', ['malformed']],
      ['offTopic', ['offtopic']],
      ['onTopicButUnverifiable', ['ontopicbutunverifiable', 'unverifiable']],
      ['parroting', ['parroting']],
      ['other', ['other', 'othererror']],
    ];
    for (const [cat, names] of errorNames) {
      const c = findColumn(columns, names, [], used);
      if (c) errors[cat] = take(c) as string;
    }
    const group = take(findColumn(columns, ['annotatorgroup', 'group', 'ratergroup'], [], used));
    const mee = take(findColumn(columns, ['mostevidenterror', 'mee'], [], used));
    const empathy = take(findColumn(columns, ['empathy', 'empathetic'], [], used));
    mapping.labels = { layout: 'long', annotator, coherent, ...(group ? { group } : {}), ...(Object.keys(errors).length ? { errors } : {}), ...(mee ? { mostEvidentError: mee } : {}), ...(empathy ? { empathy } : {}) };
  } else {
    const raters = columns.filter((c) => !used.has(c) && RATER_COLUMN.test(c.trim()));
    if (raters.length) mapping.labels = { layout: 'wide', coherent: raters };
  }
  return mapping;
}

/**
 * Ready-made mappings. `annotation-table`: the long layout of the ACL 2023 release (`import annotations` reads
 * the same files with more: cell spellings kept for a byte-exact export, `other`/`empathy` columns, repeats).
 */
export const MAPPING_PRESETS: Record<string, DatasetMapping> = {
  'annotation-table': {
    format: 'csv',
    dataset: 'AnnoMI',
    itemId: ['annomi_dialogue_id', 'stage'],
    itemIdPrefix: 'annomi-',
    context: { layout: 'json', column: 'dialogue_context' },
    response: { text: 'reflection', source: 'reflection_source' },
    labels: {
      layout: 'long',
      annotator: 'annotator',
      coherent: 'coherent_and_context_consistent',
      errors: { dialogueContradicting: 'dialogue_contradicting', malformed: 'malformed', offTopic: 'off_topic', onTopicButUnverifiable: 'on_topic_but_unverifiable', parroting: 'parroting' },
    },
  },
};
