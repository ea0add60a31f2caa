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
 * The context as plain text in one cell per response row, the turns separated by `separator` (default a line
 * break; empty pieces are dropped): `"hi there\nhello! how are you?\n"`. The speakers are either written before
 * each turn (`speakerPrefix`: `"User: hi there"`), or not written at all and alternating (`alternate`).
 */
export interface TextContextMapping {
  layout: 'text';
  column: string;
  /** What separates the turns (default `"\n"`; e.g. `"|||"`). */
  separator?: string;
  /**
   * Two speakers taking turns, counted back from the context's last turn: the last turn is the first speaker's,
   * the one before the second's, and so on — so the responses answer the first speaker and are the second's.
   */
  alternate?: [string, string];
  /** Each turn starts with its speaker and a colon (`User: hi there`). */
  speakerPrefix?: boolean;
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

/**
 * A rating column and the rubric dimension it holds (docs/format.md, "Rubrics"): the dimension is named after the
 * column, exactly, and each annotation keeps the value under that name. A cell the dimension does not cover is an
 * error naming the file, the line (or JSON path), the column and the value; an empty cell (or null) is no answer.
 */
export type DimensionColumn = { column: string; title?: string; question?: string } & (
  | {
      type: 'binary';
      /** The cell values meaning yes and no (any case); default yes/y/true/1 and no/n/false/0 — and then only those. */
      values?: { yes: string[]; no: string[] };
    }
  | {
      type: 'ordinal';
      /** The scale's points, increasing integers (`[1, 2, 3, 4, 5]`). */
      points: number[];
      /** Anchors by point (`{"1": "very poor", "5": "excellent"}`). */
      anchors?: Record<string, string>;
    }
  | { type: 'numeric'; min: number; max: number; step?: number }
  | { type: 'categorical'; options: string[] }
  | { type: 'text' }
);

/** One row per (response, annotator): an annotator column and label columns. */
export interface LongLabelsMapping {
  layout: 'long';
  annotator: string;
  /** Coherent? (Yes/No, 1/0, true/false in any case — or exactly the values of `coherentValues`). */
  coherent?: string;
  /** Optional annotator-group column (`expert…` means expert); else the expert prefix decides. */
  group?: string;
  /** Optional error columns (Yes/No), read when the response is marked incoherent. */
  errors?: Partial<Record<ErrorCategory, string>>;
  mostEvidentError?: string;
  empathy?: string;
  /** Rating columns: each is a rubric dimension named after its column. */
  dimensions?: DimensionColumn[];
}

/** One row per response, one coherence column per annotator. */
export interface WideLabelsMapping {
  layout: 'wide';
  /** Coherence columns: a list (the column name is the annotator id) or an object column → annotator id. */
  coherent: string[] | Record<string, string>;
  /** Annotator id → `expert` or `layperson` (else the expert prefix decides). */
  groups?: Record<string, 'expert' | 'layperson'>;
}

/**
 * One row per response; each rating column holds a list with one value per annotator (`"Overall": [5, 5, 4]`, or
 * a cell holding such a JSON list). The annotators are named by the list in the `annotators` column, position by
 * position (`["sm", "me", "er"]`), or else by their position (`1`, `2`, …).
 */
export interface ListsLabelsMapping {
  layout: 'lists';
  /** A column holding the annotator ids in the order of every rating list. */
  annotators?: string;
  dimensions: DimensionColumn[];
  /** Annotator id → `expert` or `layperson` (else the expert prefix decides). */
  groups?: Record<string, 'expert' | 'layperson'>;
}

/** The study's rubric, when the mapping declares rating dimensions (written beside the output as `<study>.rubric.json`). */
export interface RubricMapping {
  /** The rubric's name (default: the dataset's). */
  name?: string;
  description?: string;
  /** The dimension analyses use when none is named (default: `Overall`/`overall`/`quality` if there is one, else the first rating dimension). */
  primary?: string;
  /** The speaker whose turn the responses are (the MI preset's is `therapist`). */
  respondent?: string;
  /** Display names by speaker as the file writes them. */
  names?: Record<string, string>;
}

/** How to read a dataset (see docs/importing.md). */
export interface DatasetMapping {
  /** `csv` (any delimiter: comma, tab or semicolon, detected), `json` (an array of records) or `jsonl` (one record per line); default from the file name (and for JSON from the text). */
  format?: 'csv' | 'json' | 'jsonl';
  /** JSON: a list field of each record whose elements are the response records (each sees its parent's fields too): `"responses"`. */
  recordPath?: string;
  /** Recorded as `provenance.dataset` (default: the file's base name). */
  dataset?: string;
  /** Columns whose values, joined, identify an item (json and text layouts; default: the context itself). */
  itemId?: string[];
  /** Put before every item id (`annomi-` gives the annotation importer's ids). */
  itemIdPrefix?: string;
  context: JsonContextMapping | TextContextMapping | RowsContextMapping;
  /**
   * Speakers to store under another name: stored name → the spellings the file uses (any case), e.g.
   * `{"therapist": ["Coach"], "System": ["bot", "assistant"]}`. Every other speaker is kept as written — except
   * that a study in the MI preset (no rating `dimensions`) stores therapist/counsellor/counselor and client/patient
   * (any case) as `therapist` and `client`.
   */
  speakers?: Record<string, string[]>;
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
    /** Make the item's response from this source its reference (`"Original Ground Truth"`): a human-written candidate `ref`. */
    source?: string;
  };
  /** Source values that mean a human-written response (case-insensitive; default Human, Therapist, Gold, …). */
  humanSources?: string[];
  labels?: LongLabelsMapping | WideLabelsMapping | ListsLabelsMapping;
  /** The coherence column's values (long and wide), replacing yes/no: `{"yes": ["coherent"], "no": ["incoherent"]}`; any other value is an error. */
  coherentValues?: { yes?: string[]; no?: string[] };
  /** Annotator ids starting with this (any case) are experts (default `Expert`). */
  expertPrefix?: string;
  /** Rating cells meaning "no answer" besides an empty cell or null (`["N/A", "-"]`, as written). */
  missingValues?: string[];
  /** The study's rubric beyond its dimensions (needs rating `dimensions`). */
  rubric?: RubricMapping;
}

const ERROR_KEYS: ErrorCategory[] = ['malformed', 'dialogueContradicting', 'parroting', 'offTopic', 'onTopicButUnverifiable', 'other'];
const str = { type: 'string', minLength: 1 };
const strList = { type: 'array', items: str };

const dimensionColumn = {
  type: 'object',
  required: ['column', 'type'],
  discriminator: { propertyName: 'type' },
  oneOf: [
    { properties: { column: str, title: { type: 'string' }, question: { type: 'string' }, type: { const: 'binary' }, values: { type: 'object', additionalProperties: false, required: ['yes', 'no'], properties: { yes: { ...strList, minItems: 1 }, no: { ...strList, minItems: 1 } } } }, additionalProperties: false },
    { properties: { column: str, title: { type: 'string' }, question: { type: 'string' }, type: { const: 'ordinal' }, points: { type: 'array', minItems: 2, items: { type: 'integer' } }, anchors: { type: 'object', additionalProperties: { type: 'string' } } }, required: ['points'], additionalProperties: false },
    { properties: { column: str, title: { type: 'string' }, question: { type: 'string' }, type: { const: 'numeric' }, min: { type: 'number' }, max: { type: 'number' }, step: { type: 'number', exclusiveMinimum: 0 } }, required: ['min', 'max'], additionalProperties: false },
    { properties: { column: str, title: { type: 'string' }, question: { type: 'string' }, type: { const: 'categorical' }, options: { type: 'array', minItems: 2, items: str } }, required: ['options'], additionalProperties: false },
    { properties: { column: str, title: { type: 'string' }, question: { type: 'string' }, type: { const: 'text' } }, additionalProperties: false },
  ],
};
const groupsSchema = { type: 'object', additionalProperties: { enum: ['expert', 'layperson'] } };

/** JSON Schema (draft 7) of {@link DatasetMapping} (also docs/mapping.schema.json, kept equal by a test). */
export const MAPPING_SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  title: 'ReflectEval dataset mapping',
  type: 'object',
  additionalProperties: false,
  required: ['context', 'response'],
  properties: {
    $schema: { type: 'string' },
    format: { enum: ['csv', 'json', 'jsonl'] },
    recordPath: str,
    dataset: str,
    itemId: strList,
    itemIdPrefix: { type: 'string' },
    context: {
      type: 'object',
      required: ['layout'],
      discriminator: { propertyName: 'layout' },
      oneOf: [
        { properties: { layout: { const: 'json' }, column: str }, required: ['layout', 'column'], additionalProperties: false },
        {
          properties: { layout: { const: 'text' }, column: str, separator: { type: 'string', minLength: 1 }, alternate: { type: 'array', items: str, minItems: 2, maxItems: 2 }, speakerPrefix: { type: 'boolean' } },
          required: ['layout', 'column'],
          additionalProperties: false,
        },
        { properties: { layout: { const: 'rows' }, dialogue: str, speaker: str, text: str, order: str }, required: ['layout', 'dialogue', 'speaker', 'text'], additionalProperties: false },
      ],
    },
    speakers: { type: 'object', additionalProperties: strList },
    response: { type: 'object', additionalProperties: false, required: ['text'], properties: { text: str, source: str, sourceName: str } },
    reference: { type: 'object', additionalProperties: false, properties: { column: str, fromHumanResponse: { type: 'boolean' }, source: str } },
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
            dimensions: { type: 'array', minItems: 1, items: dimensionColumn },
          },
          required: ['layout', 'annotator'],
          additionalProperties: false,
        },
        {
          properties: {
            layout: { const: 'wide' },
            coherent: { oneOf: [{ ...strList, minItems: 1 }, { type: 'object', minProperties: 1, additionalProperties: str }] },
            groups: groupsSchema,
          },
          required: ['layout', 'coherent'],
          additionalProperties: false,
        },
        {
          properties: { layout: { const: 'lists' }, annotators: str, dimensions: { type: 'array', minItems: 1, items: dimensionColumn }, groups: groupsSchema },
          required: ['layout', 'dimensions'],
          additionalProperties: false,
        },
      ],
    },
    coherentValues: { type: 'object', additionalProperties: false, properties: { yes: strList, no: strList } },
    expertPrefix: str,
    missingValues: strList,
    rubric: {
      type: 'object',
      additionalProperties: false,
      properties: { name: str, description: { type: 'string' }, primary: str, respondent: str, names: { type: 'object', additionalProperties: str } },
    },
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
      if (e.instancePath.endsWith('context')) return 'layout must be "json" (a JSON list of turns per row), "text" (the turns as text, one per line) or "rows" (speaker/text rows grouped by a dialogue id)';
      if (/\/dimensions\/\d+$/.test(e.instancePath)) return 'type must be "binary", "ordinal", "numeric", "categorical" or "text"';
      return 'layout must be "long" (one row per response and annotator), "wide" (one coherence column per annotator) or "lists" (one row per response, a list of ratings per column)';
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
  if (m.context.layout !== 'rows') add('context.column', m.context.column);
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
  } else if (l?.layout === 'lists') add('labels.annotators', l.annotators);
  if (l?.layout === 'long' || l?.layout === 'lists') (l.dimensions ?? []).forEach((d, i) => add(`labels.dimensions[${i}].column`, d.column));
  if (l?.layout === 'wide') {
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
export function norm(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]/g, '');
}

/** The first column whose normalised name is one of `names` (in the order of `names`), else one containing one of `parts`. */
export function findColumn(columns: readonly string[], names: string[], parts: string[] = [], exclude: ReadonlySet<string> = new Set()): string | undefined {
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
const RATER_COLUMN = /^(expert|layperson|lay|annotator|annot|rater|judge|worker|coder)([\s_-]*[0-9]+|[\s_-]+[a-z])$/i;

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
