/**
 * Every job ReflectEval runs, as plain, validated, serialisable plans, and the one table ({@link JOBS}) that says
 * for each job how its plan is checked, what it writes, how it is estimated and how it runs. A plan is what a run
 * config file holds (`{"job": "judge", "judges": [...], ...}`); the CLI's flags and the editor's quick picks only
 * build plans, so both run exactly the same code.
 *
 * A pipeline is a list of plans on one dialogue file — the demo is one (`demo.ts`): an optional import step that
 * creates the file, then jobs that fill it.
 */
import { ConfigError, failFor, isObject } from '../config';
import { validateDedupPlan, runDedupPlan, type DedupPlan } from './dedup';
import { runGeneratePlan, validateGeneratePlan, type GeneratePlan } from './generate';
import type { CreatedStudy, EstimateHost, ItemSink, JobHost, JobReport, JobTarget } from './host';
import { runImportPlan, validateImportPlan, type ImportPlan } from './importData';
import { estimateJudgePlan, runJudgePlan, validateJudgePlan, type JudgeEstimate, type JudgePlan } from './judge';
import { runPlanLabelsPlan, validatePlanLabelsPlan, type PlanLabelsPlan } from './planLabels';
import { runEstimatePlan, validateEstimatePlan, type EstimatePlanJob } from './estimate';
import { runPerplexityPlan, validatePerplexityPlan, type PerplexityPlan } from './perplexity';
import { runReportPlan, validateReportPlan, type ReportPlan } from './report';
import { runScorePlan, validateScorePlan, type ScorePlan } from './score';
import { estimateSearchPromptsPlan, runSearchPromptsPlan, validateSearchPromptsPlan, type SearchPlanEstimate, type SearchPromptsPlan } from './searchPrompts';
import { runAssignPlan, runCollectPlan, validateAssignPlan, validateCollectPlan, type AssignPlan, type CollectPlan } from './team';

/**
 * What a run of a job writes, which is all the runner (`runPlanOnFile`, the editor's `runPlanInEditor`) needs to
 * know about it:
 * - `items`: it changes the items of the dialogue file it runs on (candidates, scores, clusters), through the sink;
 *   the runner writes back the lines of the items that changed (or edits the open document);
 * - `new-file`: it creates a dialogue file: its run returns the items, the runner writes them as the new file;
 * - `own-files`: it reads the dialogue file and writes only its own files (a report, a leaderboard, a plan record),
 *   named in its report's `files`; the dialogue file is never written.
 */
export type JobWrites = 'items' | 'new-file' | 'own-files';

/** Options every runner may pass to a job's run. */
export interface RunOptions {
  /** Folder that the plan's own relative paths are read against (a plan file's folder; default the host's). */
  baseDir?: string;
}

/** Everything the programs know about one job, in one record of {@link JOBS}. */
interface JobRecordBase<P, E> {
  /** What the job does, for messages and docs. */
  description: string;
  /**
   * Checks a plan of this job.
   *
   * @param source - the file or setting it came from, for messages (`plan.json`, `plan.json: steps[2]`)
   * @throws ConfigError naming the source and the field
   */
  validate(value: unknown, source: string): P;
  /**
   * What a run would do before it runs — judgements and a cost bound — for a confirmation or `--dry-run`; absent
   * when a job asks nothing that costs.
   */
  estimate?(plan: P, target: JobTarget, host: EstimateHost): Promise<E>;
}

/** A job that runs on a dialogue file's items (and may write its own files). */
export interface FileJobRecord<P, E = never> extends JobRecordBase<P, E> {
  writes: Exclude<JobWrites, 'new-file'>;
  run(plan: P, target: JobTarget, host: JobHost, sink: ItemSink, options?: RunOptions): Promise<JobReport>;
}

/** A job that creates a dialogue file: its run returns the new study, and the runner writes it. */
export interface CreateJobRecord<P, E = never> extends JobRecordBase<P, E> {
  writes: Extract<JobWrites, 'new-file'>;
  run(plan: P, host: JobHost): Promise<CreatedStudy>;
}

export type JobRecord<P, E = never> = FileJobRecord<P, E> | CreateJobRecord<P, E>;

/**
 * Every job ReflectEval runs, by the name a plan's `job` field gives: the one place a job is declared. Validation,
 * dispatch, the runners and the programs' commands all read it; nothing else branches on a job's name.
 */
export const JOBS = {
  import: {
    description: 'create a dialogue file from AnnoMI, an annotation table, or any CSV/JSONL dataset through a column mapping',
    validate: validateImportPlan,
    writes: 'new-file',
    run: async (plan: ImportPlan, host: JobHost) => runImportPlan(plan, host),
  } satisfies CreateJobRecord<ImportPlan>,
  generate: {
    description: 'generate candidates: generators × decoding settings',
    validate: validateGeneratePlan,
    writes: 'items',
    run: runGeneratePlan,
  } satisfies FileJobRecord<GeneratePlan>,
  judge: {
    description: 'judge candidates: judges × task bodies × assessment requests',
    validate: validateJudgePlan,
    writes: 'items',
    estimate: (plan: JudgePlan, target: JobTarget, host: EstimateHost) => estimateJudgePlan(plan, target.items, host.promptRoots, target.file),
    run: runJudgePlan,
  } satisfies FileJobRecord<JudgePlan, JudgeEstimate>,
  score: {
    description: 'score candidates with reference metrics and model-based metrics',
    validate: validateScorePlan,
    writes: 'items',
    run: runScorePlan,
  } satisfies FileJobRecord<ScorePlan>,
  dedup: {
    description: 'cluster each item\'s candidates (semantic deduplication)',
    validate: validateDedupPlan,
    writes: 'items',
    run: runDedupPlan,
  } satisfies FileJobRecord<DedupPlan>,
  perplexity: {
    description: 'perplexity of local models on the reference responses',
    validate: validatePerplexityPlan,
    writes: 'own-files',
    run: runPerplexityPlan,
  } satisfies FileJobRecord<PerplexityPlan>,
  report: {
    description: 'write a Markdown report: the correlation table with intervals and legend, agreement per group',
    validate: validateReportPlan,
    writes: 'own-files',
    run: runReportPlan,
  } satisfies FileJobRecord<ReportPlan>,
  'search-prompts': {
    description: 'search judge prompt variants on development items, report the chosen one on held-out items',
    validate: validateSearchPromptsPlan,
    writes: 'own-files',
    estimate: estimateSearchPromptsPlan,
    run: runSearchPromptsPlan,
  } satisfies FileJobRecord<SearchPromptsPlan, SearchPlanEstimate>,
  'plan-labels': {
    description: 'start or follow a labelling plan: which candidates to label next so the interval on an evaluator\'s agreement with the humans narrows fastest',
    validate: validatePlanLabelsPlan,
    writes: 'own-files',
    run: runPlanLabelsPlan,
  } satisfies FileJobRecord<PlanLabelsPlan>,
  estimate: {
    description: 'start or follow an estimate plan: an expert-level estimate per group from expert labels on the candidates it draws and predictions on all, with an anytime-valid interval and labels to go',
    validate: validateEstimatePlan,
    writes: 'own-files',
    run: runEstimatePlan,
  } satisfies FileJobRecord<EstimatePlanJob>,
  assign: {
    description: 'hand a study to a team: one packet per annotator (only what that annotator may see), its rubric and a manifest, written into a folder; the study is not changed',
    validate: validateAssignPlan,
    writes: 'own-files',
    run: runAssignPlan,
  } satisfies FileJobRecord<AssignPlan>,
  collect: {
    description: 'bring the annotators\' labels back from their packets, all or nothing',
    validate: validateCollectPlan,
    writes: 'items',
    run: runCollectPlan,
  } satisfies FileJobRecord<CollectPlan>,
};

export type JobName = keyof typeof JOBS;

type PlanOf<R> = R extends JobRecord<infer P, infer _E> ? P : never;

/** A plan of any job, its `job` field naming the job. */
export type JobPlan = { [K in JobName]: PlanOf<(typeof JOBS)[K]> & { job: K } }[JobName];

/** The names of the jobs that run on a dialogue file's items (every job but those that create a file). */
export type FileJobName = { [K in JobName]: (typeof JOBS)[K] extends FileJobRecord<infer _P, infer _E> ? K : never }[JobName];

/** A plan of a job that runs on a dialogue file. */
export type FileJobPlan = Extract<JobPlan, { job: FileJobName }>;

/** The record of a job by name. @throws Error for a name that is not a job */
export function jobRecord(name: string): JobRecord<unknown, unknown> {
  if (!Object.hasOwn(JOBS, name)) throw new Error(`no job "${name}" (jobs: ${Object.keys(JOBS).join(', ')})`);
  return JOBS[name as JobName] as JobRecord<unknown, unknown>;
}

/** Whether a plan's job runs on a dialogue file (rather than creating one). */
export function isFileJobPlan(plan: JobPlan): plan is FileJobPlan {
  return jobRecord(plan.job).writes !== 'new-file';
}

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
  if (typeof job !== 'string' || !Object.hasOwn(JOBS, job)) return fail('job', `must be one of ${Object.keys(JOBS).map((j) => `"${j}"`).join(', ')}`);
  return jobRecord(job).validate(value, source) as JobPlan;
}

/**
 * Runs a plan that works on a file's items, through its job's record.
 *
 * @param options.baseDir - folder that the plan's own relative paths are read against (a plan file's folder)
 * @throws Error for a plan of a job that creates a file (run it with `runPlanOnFile`)
 */
export async function runPlan(plan: FileJobPlan, target: JobTarget, host: JobHost, sink: ItemSink, options: RunOptions = {}): Promise<JobReport> {
  const record = jobRecord(plan.job);
  if (record.writes === 'new-file') throw new Error(`a ${plan.job} plan creates a dialogue file; run it on the file to create`);
  return record.run(plan, target, host, sink, options);
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
    if (jobRecord(s.job).writes === 'new-file' && i > 0) fail(`steps[${i}].job`, `an ${s.job} step creates the file, so it can only be the first step`);
  });
  return { file: c.file as string, steps };
}
