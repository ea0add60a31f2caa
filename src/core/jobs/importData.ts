/**
 * The import job: a dataset in, a new dialogue file's items out — AnnoMI (GEM 2022's source), a long annotation
 * table in the layout of the ACL 2023 release, or any CSV/JSONL dataset through a column mapping (docs/importing.md).
 * Both programs run it: the CLI's `import annomi|annotations|generic` and `run`, a pipeline's first step, and the
 * editor's import commands; the runner writes the items as the new file (`runPlanOnFile`, file.ts).
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { importAnnoMI, parseAnnoMI, type AnnoMISelection } from '../datasets/annomi';
import { importAnnotationTable, type AnnotationImportOptions, type AnnotationImportResult } from '../datasets/annotationImport';
import { importDataset, MAPPING_PRESETS, type DatasetImportResult, type DatasetMapping } from '../datasets';
import { failFor, isObject, rejectUnknownFields } from '../config';
import type { DialogueItem } from '../dialogue/types';
import type { Rubric } from '../rubric/rubric';
import type { CreatedStudy, JobHost, JobReport } from './host';

/** Import an AnnoMI CSV (every therapist utterance of a behaviour becomes an item; optional seeded sample). */
export interface AnnoMIImportPlan extends Omit<AnnoMISelection, 'sourceFile'> {
  job: 'import';
  format: 'annomi';
  /** The CSV (relative to the host's base folder). */
  file: string;
}

/** Import a long annotation table (one row per response × annotator; docs/annotations.md). */
export interface AnnotationsImportPlan extends Omit<AnnotationImportOptions, 'file'> {
  job: 'import';
  format: 'annotations';
  file: string;
}

/** Import any CSV or JSONL dataset through a column mapping (docs/importing.md). */
export interface GenericImportPlan {
  job: 'import';
  format: 'generic';
  file: string;
  /** The column mapping: the object itself, or a JSON file holding it (relative to the host's base folder). */
  mapping?: DatasetMapping | string;
  /** Instead of `mapping`: a ready-made mapping by name (`MAPPING_PRESETS`, e.g. `annotation-table`). */
  preset?: string;
  /** Make each context's human-written response its reference (sets the mapping's `reference.fromHumanResponse`). */
  reference?: boolean;
}

export type ImportPlan = AnnoMIImportPlan | AnnotationsImportPlan | GenericImportPlan;

const FORMATS = ['annomi', 'annotations', 'generic'];
const FIELDS: Record<string, string[]> = {
  annomi: ['job', 'format', 'file', 'behaviour', 'quality', 'topic', 'sample', 'seed', 'onePerDialogue', 'referenceAsCandidate'],
  annotations: ['job', 'format', 'file', 'expertPrefix', 'reference', 'humanSources'],
  generic: ['job', 'format', 'file', 'mapping', 'preset', 'reference'],
};

/**
 * Checks an import plan. A generic import's mapping is checked against its schema and the file's columns when the
 * job runs (every problem at once, naming the mapping's field).
 *
 * @throws ConfigError naming the source and the field
 */
export function validateImportPlan(value: unknown, source: string): ImportPlan {
  const fail = failFor(source);
  if (!isObject(value)) fail('(root)', 'must be a JSON object like {"job": "import", "format": "annomi", "file": "AnnoMI-simple.csv"}');
  const c = value as Record<string, unknown>;
  if (!FORMATS.includes(c.format as string)) fail('format', 'must be "annomi", "annotations" or "generic"');
  rejectUnknownFields(c, FIELDS[c.format as string], '', fail);
  if (typeof c.file !== 'string' || !c.file) fail('file', 'must name the file to import');
  if (c.format === 'annomi') {
    if (c.sample !== undefined && !(Number.isInteger(c.sample) && (c.sample as number) >= 1)) fail('sample', 'must be an integer ≥ 1');
    if (c.quality !== undefined && !['high', 'low', 'all'].includes(String(c.quality))) fail('quality', 'must be "high", "low" or "all"');
    if (c.behaviour !== undefined && !['reflection', 'question', 'therapist_input', 'other'].includes(String(c.behaviour))) fail('behaviour', 'must be reflection, question, therapist_input or other');
    if (c.topic !== undefined && typeof c.topic !== 'string') fail('topic', 'must be a string');
    if (c.seed !== undefined && typeof c.seed !== 'string' && typeof c.seed !== 'number') fail('seed', 'must be a string or a number');
    for (const k of ['onePerDialogue', 'referenceAsCandidate']) if (c[k] !== undefined && typeof c[k] !== 'boolean') fail(k, 'must be true or false');
  } else if (c.format === 'annotations') {
    if (c.expertPrefix !== undefined && typeof c.expertPrefix !== 'string') fail('expertPrefix', 'must be a string');
    if (c.reference !== undefined && typeof c.reference !== 'boolean') fail('reference', 'must be true or false');
    if (c.humanSources !== undefined && !(Array.isArray(c.humanSources) && c.humanSources.every((s) => typeof s === 'string'))) fail('humanSources', 'must be an array of reflection_source values');
  } else {
    if ((c.mapping === undefined) === (c.preset === undefined)) fail('mapping', 'give either "mapping" (an object or a JSON file) or "preset", not both or neither');
    if (c.mapping !== undefined && !isObject(c.mapping) && !(typeof c.mapping === 'string' && c.mapping)) fail('mapping', 'must be a mapping object or the JSON file that holds one');
    if (c.preset !== undefined && !Object.hasOwn(MAPPING_PRESETS, c.preset as string)) fail('preset', `must be one of ${Object.keys(MAPPING_PRESETS).join(', ')}`);
    if (c.reference !== undefined && typeof c.reference !== 'boolean') fail('reference', 'must be true or false');
  }
  return { ...c, job: 'import' } as ImportPlan;
}

/** A table row's warning as the user reads it: `file:line: row N: message` (the row only where it differs from the line). */
export function tableWarning(file: string, w: { line: number; row: number; message: string }): string {
  return `${file}:${w.line}: ${w.row !== w.line ? `row ${w.row}: ` : ''}${w.message}`;
}

/** What an annotation table's import read, as lines for the user (also `agreement <table.csv>`'s). */
export function annotationTableLines(result: AnnotationImportResult, file: string): string[] {
  const experts = result.annotators.filter((a) => a.group === 'expert').length;
  const candidates = result.items.reduce((s, i) => s + i.candidates.length, 0);
  return [
    `read ${result.rows} rows of ${file}: ${result.items.length} contexts, ${candidates} responses, ${result.annotators.length} annotators (${experts} experts, ${result.annotators.length - experts} laypeople)`,
    ...(result.extraColumns.length ? [`kept extra column(s): ${result.extraColumns.map((c) => `${c.name} (per ${c.level})`).join(', ')}`] : []),
  ];
}

/** What a generic import read, as lines for the user. */
function datasetLines(result: DatasetImportResult, file: string): string[] {
  const candidates = result.items.reduce((s, it) => s + it.candidates.length, 0);
  const experts = result.annotators.filter((a) => a.group === 'expert').length;
  return [
    `read ${result.records} records of ${file}${result.turnRows ? ` (${result.turnRows} turn rows, ${result.responseRows} response rows)` : ''}: ${result.items.length} contexts, ${candidates} responses, ` +
      `${result.annotators.length} annotators (${experts} experts, ${result.annotators.length - experts} laypeople), ${result.items.filter((i) => i.reference).length} references`,
    ...(result.keptColumns.length ? [`kept unmapped column(s): ${result.keptColumns.map((c) => `${c.name} (per ${c.level})`).join(', ')}`] : []),
  ];
}

/**
 * A generic plan's mapping and the name its problems are reported under: a preset's (a copy), the plan's object, or
 * the JSON file it names (read against `baseDir`), with `reference` laid over it.
 *
 * @throws Error naming the mapping file when it cannot be read or is not JSON
 */
function mappingOf(plan: GenericImportPlan, baseDir: string): { value: unknown; source: string } {
  let value: unknown;
  let source: string;
  if (plan.preset !== undefined) {
    value = structuredClone(MAPPING_PRESETS[plan.preset]);
    source = `preset ${plan.preset}`;
  } else if (typeof plan.mapping === 'string') {
    const path = resolve(baseDir, plan.mapping);
    source = basename(path);
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      throw new Error(`${path}: the mapping file could not be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
    }
    try {
      value = JSON.parse(text);
    } catch (err) {
      throw new Error(`${source}: not valid JSON: ${(err as Error).message}`);
    }
  } else {
    value = structuredClone(plan.mapping);
    source = 'mapping';
  }
  if (plan.reference && isObject(value)) {
    const m = value as unknown as DatasetMapping;
    m.reference = { ...m.reference, fromHumanResponse: true };
  }
  return { value, source };
}

/**
 * Reads the dataset a plan names and returns the items of a new dialogue file (the runner writes them).
 *
 * @throws AnnotationTableError / DatasetImportError / MappingError / AnnoMI format errors naming the file, row and column
 */
export function runImportPlan(plan: ImportPlan, host: Pick<JobHost, 'baseDir'>): CreatedStudy {
  const file = resolve(host.baseDir, plan.file);
  const name = basename(file);
  const text = readFileSync(file, 'utf8');
  const report: JobReport = { job: 'import', lines: [], warnings: [] };
  let items: DialogueItem[];
  let rubric: Rubric | null = null;
  if (plan.format === 'annomi') {
    const { job: _j, format: _f, file: _file, ...selection } = plan;
    items = importAnnoMI(parseAnnoMI(text, name), { ...selection, sourceFile: name });
    report.lines.push(`imported ${items.length} AnnoMI ${plan.behaviour ?? 'reflection'} contexts from ${plan.file}`);
  } else if (plan.format === 'annotations') {
    const { job: _j, format: _f, file: _file, ...options } = plan;
    const result = importAnnotationTable(text, { ...options, file: name });
    items = result.items;
    report.warnings.push(...result.warnings.map((w) => tableWarning(name, w)));
    report.lines.push(...annotationTableLines(result, plan.file));
  } else {
    const { value, source } = mappingOf(plan, host.baseDir);
    const result = importDataset(text, value, { file: name, mappingSource: source });
    items = result.items;
    rubric = result.rubric;
    if (rubric) report.lines.push(`the study's rubric: ${rubric.dimensions.length} dimension(s) (${rubric.dimensions.map((d) => d.name).join(', ')}), primary ${rubric.primary}`);
    report.warnings.push(...result.warnings.map((w) => tableWarning(name, w)));
    report.lines.push(...datasetLines(result, plan.file));
  }
  if (items.length === 0) report.nothingDone = `${plan.file}: nothing to import with these options`;
  return { items, rubric, report };
}
