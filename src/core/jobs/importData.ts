/**
 * The import job: a dataset in, a new dialogue file's items out — AnnoMI (GEM 2022's source) or a long annotation
 * table in the layout of the ACL 2023 release. It makes the first step of a pipeline (`pipeline.ts`).
 */
import { readFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { importAnnoMI, parseAnnoMI, type AnnoMISelection } from '../datasets/annomi';
import { importAnnotationTable, type AnnotationImportOptions } from '../datasets/annotationImport';
import { failFor, isObject, rejectUnknownFields } from '../config';
import type { DialogueItem } from '../dialogue/types';
import type { JobHost, JobReport } from './host';

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

export type ImportPlan = AnnoMIImportPlan | AnnotationsImportPlan;

const ANNOMI_FIELDS = ['job', 'format', 'file', 'behaviour', 'quality', 'topic', 'sample', 'seed', 'onePerDialogue', 'referenceAsCandidate'];
const ANNOTATION_FIELDS = ['job', 'format', 'file', 'expertPrefix', 'reference', 'humanSources'];

/**
 * Checks an import plan.
 *
 * @throws ConfigError naming the source and the field
 */
export function validateImportPlan(value: unknown, source: string): ImportPlan {
  const fail = failFor(source);
  if (!isObject(value)) fail('(root)', 'must be a JSON object like {"job": "import", "format": "annomi", "file": "AnnoMI-simple.csv"}');
  const c = value as Record<string, unknown>;
  if (c.format !== 'annomi' && c.format !== 'annotations') fail('format', 'must be "annomi" or "annotations"');
  rejectUnknownFields(c, c.format === 'annomi' ? ANNOMI_FIELDS : ANNOTATION_FIELDS, '', fail);
  if (typeof c.file !== 'string' || !c.file) fail('file', 'must name the file to import');
  if (c.format === 'annomi') {
    if (c.sample !== undefined && !(Number.isInteger(c.sample) && (c.sample as number) >= 1)) fail('sample', 'must be an integer ≥ 1');
    if (c.quality !== undefined && !['high', 'low', 'all'].includes(String(c.quality))) fail('quality', 'must be "high", "low" or "all"');
    if (c.behaviour !== undefined && !['reflection', 'question', 'therapist_input', 'other'].includes(String(c.behaviour))) fail('behaviour', 'must be reflection, question, therapist_input or other');
    for (const k of ['onePerDialogue', 'referenceAsCandidate']) if (c[k] !== undefined && typeof c[k] !== 'boolean') fail(k, 'must be true or false');
  } else {
    if (c.reference !== undefined && typeof c.reference !== 'boolean') fail('reference', 'must be true or false');
    if (c.humanSources !== undefined && !(Array.isArray(c.humanSources) && c.humanSources.every((s) => typeof s === 'string'))) fail('humanSources', 'must be an array of reflection_source values');
  }
  return { ...c, job: 'import' } as ImportPlan;
}

/**
 * Reads the dataset a plan names and returns the items of a new dialogue file.
 *
 * @throws AnnotationTableError / AnnoMI format errors naming the file, row and column
 */
export function runImportPlan(plan: ImportPlan, host: Pick<JobHost, 'baseDir' | 'log'>): { items: DialogueItem[]; report: JobReport } {
  const file = resolve(host.baseDir, plan.file);
  const text = readFileSync(file, 'utf8');
  const report: JobReport = { job: 'import', lines: [], warnings: [] };
  let items: DialogueItem[];
  if (plan.format === 'annomi') {
    const { job: _j, format: _f, file: _file, ...selection } = plan;
    items = importAnnoMI(parseAnnoMI(text, basename(file)), { ...selection, sourceFile: basename(file) });
    report.lines.push(`imported ${items.length} AnnoMI ${plan.behaviour ?? 'reflection'} contexts from ${plan.file}`);
  } else {
    const { job: _j, format: _f, file: _file, ...options } = plan;
    const result = importAnnotationTable(text, { ...options, file: basename(file) });
    items = result.items;
    for (const w of result.warnings) report.warnings.push(`${basename(file)}:${w.line}: ${w.row !== w.line ? `row ${w.row}: ` : ''}${w.message}`);
    const experts = result.annotators.filter((a) => a.group === 'expert').length;
    const candidates = items.reduce((s, i) => s + i.candidates.length, 0);
    report.lines.push(`read ${result.rows} rows of ${plan.file}: ${items.length} contexts, ${candidates} responses, ${result.annotators.length} annotators (${experts} experts, ${result.annotators.length - experts} laypeople)`);
    if (result.extraColumns.length) report.lines.push(`kept extra column(s): ${result.extraColumns.map((c) => `${c.name} (per ${c.level})`).join(', ')}`);
  }
  if (items.length === 0) report.nothingDone = `${plan.file}: nothing to import with these options`;
  return { items, report };
}
