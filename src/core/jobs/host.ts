/**
 * What a job needs from the program that runs it — the CLI or VS Code — and nothing more. A job is written once
 * in core; the two hosts differ only in what this interface answers: where relative paths point, where bundled
 * models and prompts are, where secrets come from, how progress and messages are shown, and how results reach
 * the dialogue file (an atomic rewrite of lines on disk, or WorkspaceEdits on an open TextDocument).
 */
import type { DialogueItem } from '../dialogue/types';
import type { ModelLocator } from '../models/registry';
import type { Rubric } from '../rubric/rubric';

/** Progress of a job: `done` of `total` units (candidates, contexts, items), with a short message. */
export interface JobProgress {
  done: number;
  total: number;
  message?: string;
}

/** Who asks for an API key, for which endpoint; a host decides whether and where to find one. */
export interface SecretRequest {
  /** `judge` or `generator`: they may have different keys. */
  purpose: 'judge' | 'generator';
  /** The endpoint the key would be sent to (`baseURL` as written in the plan). */
  endpoint: string;
  /** The environment variable a plan names for the key (`apiKeyEnv`), when it names one. */
  envVar?: string;
  /** Model name, for messages. */
  model?: string;
  /**
   * Set when the plan would send this variable's key to several origins without listing them in `apiKeyOrigins`
   * (docs/security.md): hosts that take keys from variables named in the plan (the CLI) refuse with it.
   */
  sharedKeyProblem?: string;
}

/**
 * The answer to a {@link SecretRequest}: a key; or why there is none (said to the user as is; that judge or
 * generator does not run, the others do); or `declined`: the user (or the CLI's rule) refused to send a key there,
 * and the job stops before sending anything.
 */
export type SecretAnswer = { key: string } | { missing: string } | { declined: string };

/** Everything a job may ask of the program running it. */
export interface JobHost {
  /** `cli` or `vscode`: for messages only; a job never branches on it. */
  readonly kind: 'cli' | 'vscode';
  /** Relative paths in a plan (models, files, templates) are resolved against this folder. */
  readonly baseDir: string;
  /** Bundled models and the base folder of relative model references. */
  readonly models: ModelLocator;
  /** Prompt template folders: ReflectEval's bundled `prompts/` first, then the user's; later ones override and extend earlier ones. */
  readonly promptRoots: readonly string[];
  /** The folder of ReflectEval's own data (WordNet, follow-ups, the AnnoMI sample, EvalReflections). */
  readonly dataDir: string;
  /** The API key to send to an endpoint, or why there is none. Hosts never log or store what they return. */
  secret(request: SecretRequest): Promise<SecretAnswer>;
  /** Reports progress (a progress bar, a notification). */
  progress(p: JobProgress): void;
  /** A line for the user (stderr, an output channel). */
  log(message: string): void;
  /** Fires when the user cancels; jobs stop at the next unit and keep what is finished. */
  readonly signal?: AbortSignal;
}

/**
 * Where a job's results go. A job computes on a snapshot of the items and hands over, as results arrive, one
 * update function per item id; the sink applies each to the item as it is *now* (the editor's document may have
 * changed meanwhile: labels made during a run survive), and returns `undefined` when nothing changes.
 */
export interface ItemSink {
  apply(updates: ReadonlyMap<string, (current: DialogueItem) => DialogueItem | undefined>): Promise<void>;
}

/** What a job's estimate may ask of the program: the prompt folders, and the folder relative paths are read against. */
export type EstimateHost = Pick<JobHost, 'baseDir' | 'promptRoots'>;

/** The dialogue file a job works on: its path (for caches and manifests beside it) and its items. */
export interface JobTarget {
  /** Absolute path of the dialogue file (the document's file in VS Code). */
  file: string;
  /** The items as they are when the job starts (a snapshot; jobs never mutate it). */
  items: readonly DialogueItem[];
}

/**
 * What a job reports when it ends: lines for the user, warnings, and whether it did anything at all. A job that
 * was asked to do something and could do nothing (no candidate to score, every judge failed to load) sets
 * `nothingDone` with the reason; the CLI then exits non-zero.
 */
export interface JobReport {
  job: string;
  /** One line per evaluator / generator / step, with full evaluator ids: the CLI's stderr, the editor's output channel. */
  lines: string[];
  /** The same with readable evaluator names instead of ids, short enough for a notification (default: `lines`). */
  summary?: string[];
  warnings: string[];
  /** Items whose line changed (filled in by the runner that applied the updates). */
  itemsChanged?: number;
  cancelled?: boolean;
  nothingDone?: string;
  /** Part of what the plan asked for did not run (a generator that did not load); the rest was applied. */
  failed?: string;
  /** Files the job wrote besides the dialogue file (manifests, reports), absolute paths. */
  files?: string[];
  /** Machine-readable outcome (counts, evaluator ids), JSON-serialisable. */
  data?: Record<string, unknown>;
}

/**
 * What a job that creates a dialogue file returns: the new file's items, and the study's rubric when it is not the MI
 * preset (written beside the file as `<study>.rubric.json`).
 */
export interface CreatedStudy {
  items: DialogueItem[];
  rubric?: Rubric | null;
  report: JobReport;
}
