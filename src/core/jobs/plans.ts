/**
 * Every job ReflectEval runs, as plain, validated, serialisable plans, and the one place that dispatches a plan
 * to its run. A plan is what a run config file holds (`{"job": "judge", "judges": [...], ...}`); the CLI's flags
 * and the editor's quick picks only build plans, so both run exactly the same code.
 *
 * A pipeline is a list of plans on one dialogue file — the demo is one (`demo.ts`): an optional import step that
 * creates the file, then jobs that fill it.
 */
import { ConfigError, failFor, isObject } from '../config';
import { validateDedupPlan, runDedupPlan, type DedupPlan } from './dedup';
import { runGeneratePlan, validateGeneratePlan, type GeneratePlan } from './generate';
import type { ItemSink, JobHost, JobReport, JobTarget } from './host';
import { validateImportPlan, type ImportPlan } from './importData';
import { runJudgePlan, validateJudgePlan, type JudgePlan } from './judge';
import { runPerplexityPlan, validatePerplexityPlan, type PerplexityPlan } from './perplexity';
import { runReportPlan, validateReportPlan, type ReportPlan } from './report';
import { runScorePlan, validateScorePlan, type ScorePlan } from './score';
import { runSearchPromptsPlan, validateSearchPromptsPlan, type SearchPromptsPlan } from './searchPrompts';

/** The jobs that work on a dialogue file's items. */
export type FileJobPlan =
  | (GeneratePlan & { job: 'generate' })
  | (JudgePlan & { job: 'judge' })
  | (ScorePlan & { job: 'score' })
  | (DedupPlan & { job: 'dedup' })
  | (PerplexityPlan & { job: 'perplexity' })
  | (ReportPlan & { job: 'report' })
  | (SearchPromptsPlan & { job: 'search-prompts' });

export type JobPlan = FileJobPlan | ImportPlan;

/** Job names and what each does, for messages and docs. */
export const JOBS = {
  import: 'create a dialogue file from AnnoMI or an annotation table',
  generate: 'generate candidates: generators × decoding settings',
  judge: 'judge candidates: judges × task bodies × assessment requests',
  score: 'score candidates with reference metrics and model-based metrics',
  dedup: 'cluster each item\'s candidates (semantic deduplication)',
  perplexity: 'perplexity of local models on the reference responses',
  report: 'write a Markdown report: the correlation table with intervals and legend, agreement per group',
  'search-prompts': 'search judge prompt variants on development items, report the chosen one on held-out items',
} as const;

export type JobName = keyof typeof JOBS;

/**
 * Checks one plan; its `job` field says which.
 *
 * @param source - the file or setting it came from, for messages (`plan.json`, `plan.json: steps[2]`)
 * @throws ConfigError naming the source and the field
 */
export function validatePlan(value: unknown, source: string): JobPlan {
  const fail = failFor(source);
  if (!isObject(value)) fail('(root)', 'must be a JSON object with a "job" field');
  const job = (value as Record<string, unknown>).job;
  switch (job) {
    case 'generate':
      return validateGeneratePlan(value, source) as JobPlan;
    case 'judge':
      return validateJudgePlan(value, source) as JobPlan;
    case 'score':
      return validateScorePlan(value, source) as JobPlan;
    case 'dedup':
      return validateDedupPlan(value, source) as JobPlan;
    case 'perplexity':
      return validatePerplexityPlan(value, source) as JobPlan;
    case 'search-prompts':
      return validateSearchPromptsPlan(value, source) as JobPlan;
    case 'import':
      return validateImportPlan(value, source);
    case 'report':
      return validateReportPlan(value, source) as JobPlan;
    default:
      return fail('job', `must be one of ${Object.keys(JOBS).map((j) => `"${j}"`).join(', ')}`);
  }
}

/**
 * Runs a plan that works on a file's items.
 *
 * @param options.baseDir - folder that the plan's own relative paths are read against (a plan file's folder)
 */
export async function runPlan(plan: FileJobPlan, target: JobTarget, host: JobHost, sink: ItemSink, options: { baseDir?: string } = {}): Promise<JobReport> {
  switch (plan.job) {
    case 'generate':
      return runGeneratePlan(plan, target, host, sink, options);
    case 'judge':
      return runJudgePlan(plan, target, host, sink);
    case 'score':
      return runScorePlan(plan, target, host, sink);
    case 'dedup':
      return runDedupPlan(plan, target, host, sink);
    case 'perplexity':
      return runPerplexityPlan(plan, target, host);
    case 'report':
      return runReportPlan(plan, target, host);
    case 'search-prompts':
      return runSearchPromptsPlan(plan, target, host, sink);
  }
}

/** A list of plans on one dialogue file. */
export interface Pipeline {
  /** The dialogue file (relative to the pipeline file's folder); an import step creates it. */
  file: string;
  steps: JobPlan[];
}

/**
 * Checks a pipeline: a `file` and `steps`, each a valid plan; an import step may only come first.
 *
 * @throws ConfigError naming the source and the step's field, e.g. `demo.json: steps[2].judges: …`
 */
export function validatePipeline(value: unknown, source: string): Pipeline {
  const fail = failFor(source);
  if (!isObject(value)) fail('(root)', 'must be a JSON object like {"file": "study.dialogues.jsonl", "steps": [...]}');
  const c = value as Record<string, unknown>;
  if (typeof c.file !== 'string' || !c.file) fail('file', 'must name the dialogue file');
  if (!Array.isArray(c.steps) || c.steps.length === 0) fail('steps', 'must be a non-empty array of plans');
  const steps = (c.steps as unknown[]).map((s, i) => {
    try {
      return validatePlan(s, source);
    } catch (err) {
      if (err instanceof ConfigError) throw new ConfigError(source, `steps[${i}].${err.field}`, err.message.slice(`${err.file}: ${err.field}: `.length));
      throw err;
    }
  });
  steps.forEach((s, i) => {
    if (s.job === 'import' && i > 0) fail(`steps[${i}].job`, 'an import step creates the file, so it can only be the first step');
  });
  return { file: c.file as string, steps };
}
