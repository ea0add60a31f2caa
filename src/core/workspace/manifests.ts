/**
 * Run manifests as the side bar lists them: a judge manifest (`jobs/judge.ts` `writeJudgeManifest`, one per run,
 * overwritten by the next run on the same file) and a generation manifest (`generation/manifest.ts`, one record per
 * run, appended). Read leniently — a field missing or of the wrong type is left out of the summary, and a file that
 * is not a manifest at all is reported as a problem naming the file and the field — because these files are
 * written by any version of ReflectEval and may be edited by hand.
 */
import type { GenerationRunRecord } from '../generation/manifest';

/** One judge run (a judge manifest). */
export interface JudgeRunSummary {
  /** The manifest's path. */
  manifest: string;
  /** The dialogue file's name the manifest names (`file`), when it names one. */
  file?: string;
  finishedAt?: string;
  /** Judges by the id the run gave them (`local:bundled:reflect-gpt2-tiny`), else as the plan names them (`backend: model`). */
  judges: string[];
  /** Task bodies × assessment requests. */
  variants: number;
  /** Evaluators the run wrote (judge × body × request). */
  evaluators: number;
  judgements: number;
  calls: number;
  cacheHits: number;
  failures: number;
  /** Total cost at the plan's prices; null when no judge had a price. */
  cost: number | null;
  batch: boolean;
}

/** One generation run (a record of a generation manifest). */
export interface GenerationRunSummary {
  manifest: string;
  file?: string;
  finishedAt?: string;
  /** Generators as `backend: model`. */
  generators: string[];
  /** Decoding settings as described (`greedy`, `beam k=5 ×5`, …). */
  settings: string[];
  contextsDone: number;
  contextsTotal: number;
  added: number;
  duplicates: number;
  tokens: number;
  cancelled: boolean;
}

/** A file that should have been a manifest and is not: what is wrong, naming the field. */
export interface ManifestProblem {
  file: string;
  message: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) ? v : 0);
const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

function parse(text: string, path: string): { value: Record<string, unknown> } | { problem: ManifestProblem } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { problem: { file: path, message: `not valid JSON (${(err as Error).message})` } };
  }
  return isObject(value) ? { value } : { problem: { file: path, message: '(root): not a JSON object' } };
}

/** `backend: model` of a judge or generator as a manifest describes it. */
function label(spec: unknown): string {
  if (!isObject(spec)) return '?';
  const backend = str(spec.backend) ?? '?';
  const model = str(spec.model);
  return model ? `${backend}: ${model}` : backend;
}

/**
 * The judge run a judge manifest's text describes.
 *
 * @param path - the manifest's path, for the summary and for problems
 */
export function judgeRunOf(text: string, path: string): JudgeRunSummary | ManifestProblem {
  const parsed = parse(text, path);
  if ('problem' in parsed) return parsed.problem;
  const m = parsed.value;
  if (!Array.isArray(m.evaluators)) return { file: path, message: 'evaluators: missing or not a list (not a judge manifest)' };
  const records = m.evaluators.filter(isObject);
  const totals = isObject(m.totals) ? m.totals : {};
  const sum = (k: string) => records.reduce((s, r) => s + num(r[k]), 0);
  const bodies = Array.isArray(m.bodies) ? m.bodies.length : 0;
  const requests = Array.isArray(m.requests) ? m.requests.length : 0;
  const costs = records.map((r) => r.cost).filter((c): c is number => typeof c === 'number');
  // The judges as the run resolved them (`local:bundled:reflect-gpt2-tiny`), else as the plan named them.
  const judgeIds = [...new Set(records.map((r) => str(r.judge)).filter((j): j is string => !!j))];
  return {
    manifest: path,
    ...(str(m.file) ? { file: str(m.file) } : {}),
    ...(str(m.finishedAt) ? { finishedAt: str(m.finishedAt) } : {}),
    judges: judgeIds.length ? judgeIds : Array.isArray(m.judges) ? m.judges.map(label) : [],
    variants: bodies * requests,
    evaluators: records.length,
    judgements: 'judgements' in totals ? num(totals.judgements) : sum('judgements'),
    calls: 'calls' in totals ? num(totals.calls) : sum('calls'),
    cacheHits: 'cacheHits' in totals ? num(totals.cacheHits) : sum('cacheHits'),
    failures: 'failures' in totals ? num(totals.failures) : sum('failures'),
    cost: typeof totals.cost === 'number' ? totals.cost : costs.length ? costs.reduce((a, b) => a + b, 0) : null,
    batch: records.some((r) => r.batch === true),
  };
}

/**
 * The runs a generation manifest's text records, oldest first.
 *
 * @param path - the manifest's path, for the summaries and for problems
 */
export function generationRunsOf(text: string, path: string): GenerationRunSummary[] | ManifestProblem {
  const parsed = parse(text, path);
  if ('problem' in parsed) return parsed.problem;
  const m = parsed.value;
  if (!Array.isArray(m.runs)) return { file: path, message: 'runs: missing or not a list (not a generation manifest)' };
  const file = str(m.file);
  return m.runs.filter(isObject).map((r) => {
    const run = r as Partial<Record<keyof GenerationRunRecord, unknown>>;
    return {
      manifest: path,
      ...(file ? { file } : {}),
      ...(str(run.finishedAt) ? { finishedAt: str(run.finishedAt) } : {}),
      generators: Array.isArray(run.generators) ? run.generators.map(label) : [],
      settings: Array.isArray(run.settings) ? run.settings.map((s) => (isObject(s) ? (str(s.description) ?? '?') : '?')) : [],
      contextsDone: num(run.contextsDone),
      contextsTotal: num(run.contextsTotal),
      added: num(run.added),
      duplicates: num(run.duplicates),
      tokens: num(run.tokens),
      cancelled: run.cancelled === true,
    };
  });
}
