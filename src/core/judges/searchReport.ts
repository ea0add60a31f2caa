/**
 * A prompt search's report (`<file>.prompt-search.json`, written by the prompt search job, src/core/jobs/searchPrompts.ts):
 * its shape — the leaderboard's entries with their development and held-out fits, the folds and the cross-fitted
 * number of a k-fold search, the synthesized templates — and reading it back: checking the file, turning it into
 * leaderboard rows (the search panel and any other reader show the same numbers), and rebuilding a variant's prompt
 * library so its exact prompt can be assembled again. Below the jobs, so the search panel's webview can name these
 * types without reaching into the job layer.
 */
import { readFileSync } from 'node:fs';
import { siblingFile } from '../dialogue/siblingFile';
import type { HumanGroup } from '../labels/groups';
import type { BootstrapInterval } from '../stats/bootstrap';
import { templateHash, type PromptLibrary } from '../templates/judgePrompt';
import type { SplitGrouping } from './promptSearch';
import type { ProposedPart } from './proposer';

/** The correlation of one judge × variant on one part. */
export interface PartFit {
  rho: number | null;
  /** Candidates with a usable score (and a human target). */
  n: number;
  /** Candidates whose judgement gave no usable score. */
  failures: number;
  /** Percentile cluster-bootstrap interval (resampling dialogue contexts). */
  ci?: BootstrapInterval;
}

/** One row of the leaderboard. */
export interface SearchEntry {
  judge: string;
  judgeIndex: number;
  body: string;
  request: string;
  parts?: string[];
  fewShot?: number;
  baseline: boolean;
  evaluatorId?: string;
  templateHash: string;
  dev?: PartFit;
  heldOut?: PartFit;
  /** Why the variant was not judged (budget, a judge that did not load). */
  skipped?: string;
  /** Judgements of this variant that reached a backend, and those answered from the cache (development + held-out). */
  calls?: number;
  cacheHits?: number;
}

/** The mustache text of a body the search synthesized (not in any prompts folder), and of its synthesized parts. */
export interface SearchTemplate {
  body: string;
  parts: Record<string, string>;
}

/** The search's outcome (also the JSON report). */
export interface SearchResult {
  /**
   * The split. For `kfold`: `k`, devFraction (k − 1)/k, devGroups 0 and testGroups all groups, testItems every labelled
   * item (each is held out once; `folds` says which fold), devItems empty.
   */
  split: { kind?: 'holdout' | 'kfold'; k?: number; seed: string | number; devFraction: number; groupBy: SplitGrouping; devGroups: number; testGroups: number; devItems: string[]; testItems: string[] };
  human: HumanGroup;
  /**
   * With a plan's `dimension`: the rubric dimension and the human-score rule of the target (absent: the share of
   * annotators who said coherent, ICMI 2023 §2.1).
   */
  target?: { dimension: string; humanScore: string; phrase: string };
  entries: SearchEntry[];
  /** Index into `entries` of the chosen variant, or −1. */
  winner: number;
  /** Development rho − held-out rho of the winner (the optimism of choosing on development items). */
  optimismGap: number | null;
  calls: number;
  cacheHits: number;
  /** The proposer's rewrites (part name, the part it replaces, text), when the plan has a proposer. */
  proposals?: ProposedPart[];
  /** What was shown before the search ran: the number of judgements and the cost bound (null: no priced API judge). */
  estimate?: { judgements: number; cost: number | null };
  /** The synthesized bodies of the entries by body name, so a variant's prompt can be assembled again from the report. */
  templates?: Record<string, SearchTemplate>;
  /** With `split.kind: "kfold"`: each fold's choice and its numbers (then `winner` is −1 unless every fold chose the same). */
  folds?: SearchFold[];
  /** With `split.kind: "kfold"`: the cross-fitted held-out correlation of the procedure (docs/prompt-search.md). */
  crossFit?: CrossFit;
}

/** One fold of a k-fold search: chosen on the other k − 1 folds, evaluated on this one. */
export interface SearchFold {
  devGroups: number;
  testGroups: number;
  testItems: string[];
  /** Index into `entries` of the variant chosen on this fold's development items, or −1. */
  winner: number;
  /** The chosen variant's development fit (the other folds' items) and held-out fit (this fold's items). */
  dev?: PartFit;
  heldOut?: PartFit;
}

/** The k folds' held-out correlations pooled into one number for the procedure, with its interval. */
export interface CrossFit {
  k: number;
  /** Mean of the folds' held-out Spearman rhos weighted by their usable candidates (folds without a rho left out). */
  rho: number | null;
  /** Stratified percentile cluster bootstrap: contexts resampled within each fold, the choices held fixed. */
  ci?: BootstrapInterval;
  n: number;
  /** The same weighted mean of the chosen variants' development rhos, and development − held-out. */
  devRho: number | null;
  optimismGap: number | null;
}

/** The synthesized templates of a body: its text and the `(search)` parts it includes; undefined for a library body. */
export function searchTemplateOf(lib: PromptLibrary, body: string): SearchTemplate | undefined {
  const b = lib.bodies[body];
  if (!b || !b.file.startsWith('(search)')) return undefined;
  const parts: Record<string, string> = {};
  for (const m of b.source.matchAll(/\{\{> ([^}]+)\}\}/g)) {
    const p = lib.parts[m[1]];
    if (p && p.file.startsWith('(search)')) parts[m[1]] = p.source;
  }
  return { body: b.source, parts };
}


/** The report file of a dialogue file: `x.dialogues.jsonl` → `x.prompt-search.json` (the job's default). */
export function searchReportFile(dialogueFile: string): string {
  return siblingFile(dialogueFile, '.prompt-search.json');
}

/**
 * Parses a search report and checks the fields the leaderboard reads.
 *
 * @throws Error naming the file and the field, e.g. `x.prompt-search.json: entries[3].body: must be a string`
 */
export function parseSearchReport(text: string, file: string): SearchResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new Error(`${file}: not JSON (${(err as Error).message})`);
  }
  const fail = (field: string, what: string): never => {
    throw new Error(`${file}: ${field}: ${what}`);
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail('(root)', 'must be a prompt search report (an object with "entries")');
  const r = value as Record<string, unknown>;
  if (!Array.isArray(r.entries)) fail('entries', 'must be an array');
  if (!Number.isInteger(r.winner)) fail('winner', 'must be an integer (−1 when nothing was chosen)');
  if (typeof r.split !== 'object' || r.split === null) fail('split', 'must be an object');
  (r.entries as unknown[]).forEach((e, i) => {
    if (typeof e !== 'object' || e === null) fail(`entries[${i}]`, 'must be an object');
    const x = e as Record<string, unknown>;
    for (const k of ['judge', 'body', 'request', 'templateHash']) if (typeof x[k] !== 'string') fail(`entries[${i}].${k}`, 'must be a string');
    if (typeof x.baseline !== 'boolean') fail(`entries[${i}].baseline`, 'must be true or false');
  });
  return value as SearchResult;
}

/** Reads and checks a search report file. @throws Error naming the file (missing, not JSON, a bad field) */
export function readSearchReport(file: string): SearchResult {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`${file}: no prompt search report (run Search Judge Prompts… or reflect-eval search-prompts first)`);
  }
  return parseSearchReport(text, file);
}

/** A correlation with its interval, as a row shows it. */
export interface LeaderboardFit {
  rho: number | null;
  n: number;
  ci?: BootstrapInterval;
}

/** One leaderboard row: a judge × variant with its development and held-out numbers. */
export interface LeaderboardRow {
  /** Index into the report's `entries`. */
  index: number;
  judge: string;
  body: string;
  request: string;
  baseline: boolean;
  /** The variant chosen on development items (with k folds: chosen in at least one fold). */
  chosen: boolean;
  /** With k folds: the folds (1-based) in which it was chosen. */
  chosenInFolds?: number[];
  dev: LeaderboardFit | null;
  heldOut: LeaderboardFit | null;
  /** Development rho − held-out rho, when both exist. */
  gap: number | null;
  calls: number | null;
  cacheHits: number | null;
  skipped?: string;
  templateHash: string;
}

const fitOf = (f: SearchEntry['dev']): LeaderboardFit | null => (f ? { rho: f.rho, n: f.n, ...(f.ci ? { ci: f.ci } : {}) } : null);

/**
 * The report as leaderboard rows: the chosen variant first, then the other search variants by development rho
 * (highest first; unjudged last), then the paper's baselines in their order.
 */
export function leaderboardRows(r: SearchResult): LeaderboardRow[] {
  const chosenFolds = new Map<number, number[]>();
  (r.folds ?? []).forEach((f, i) => {
    if (f.winner >= 0) chosenFolds.set(f.winner, [...(chosenFolds.get(f.winner) ?? []), i + 1]);
  });
  const rows = r.entries.map((e, index): LeaderboardRow => {
    const dev = fitOf(e.dev);
    const heldOut = fitOf(e.heldOut);
    return {
      index,
      judge: e.judge,
      body: e.body,
      request: e.request,
      baseline: e.baseline,
      chosen: index === r.winner || chosenFolds.has(index),
      ...(chosenFolds.has(index) ? { chosenInFolds: chosenFolds.get(index) } : {}),
      dev,
      heldOut,
      gap: dev?.rho != null && heldOut?.rho != null ? dev.rho - heldOut.rho : null,
      calls: e.calls ?? null,
      cacheHits: e.cacheHits ?? null,
      ...(e.skipped ? { skipped: e.skipped } : {}),
      templateHash: e.templateHash,
    };
  });
  const rank = (x: LeaderboardRow) => (x.index === r.winner ? 0 : x.baseline ? 2 : 1);
  return rows.sort((a, b) => rank(a) - rank(b) || (rank(a) === 1 ? (b.dev?.rho ?? -Infinity) - (a.dev?.rho ?? -Infinity) : 0) || a.index - b.index);
}

/**
 * A copy of `base` with the synthesized templates of a report entry added (a body such as `parts-ABD` that the search
 * built), and whether the variant's template hash still equals the one the search recorded.
 *
 * @returns `lib`, and `hashMatches` false when the templates (a bundled or workspace part, the request) changed since
 * @throws Error when the body is neither in the report's templates nor in the library
 */
export function searchVariantLibrary(base: PromptLibrary, r: SearchResult, entry: Pick<SearchEntry, 'body' | 'request' | 'templateHash'>): { lib: PromptLibrary; hashMatches: boolean; hash: string } {
  const lib: PromptLibrary = { root: base.root, parts: { ...base.parts }, bodies: { ...base.bodies }, requests: { ...base.requests } };
  const t = r.templates?.[entry.body];
  if (t) {
    lib.bodies[entry.body] = { file: `(search) ${entry.body}`, source: t.body };
    for (const [name, source] of Object.entries(t.parts)) lib.parts[name] = { file: `(search) ${name}`, source };
  } else if (!lib.bodies[entry.body]) {
    throw new Error(`the body "${entry.body}" is neither in the report's templates nor in the prompts folders (a report from an older search?)`);
  }
  const hash = templateHash(lib, { body: entry.body, request: entry.request });
  return { lib, hashMatches: hash === entry.templateHash, hash };
}
