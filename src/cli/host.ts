/**
 * The CLI's job host: relative paths against the working directory (or a plan file's folder), bundled models and
 * prompts from the package, API keys from environment variables named in the plan, progress as a bar on stderr,
 * Ctrl-C as cancellation (a second Ctrl-C exits at once).
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import cliProgress from 'cli-progress';
import type { JobHost, JobProgress, JobReport, SecretAnswer, SecretRequest } from '../core/jobs/host';
import { DEFAULT_API_KEY_ENV, endpointOrigin } from '../core/jobs/apiKeyPolicy';
import { log } from './common';
import { bundledData, bundledModels, bundledPrompts } from './paths';

/** Environment variable of API keys when a plan names none. */
export { DEFAULT_API_KEY_ENV };

/** Options of {@link cliHost}. */
export interface CliHostOptions {
  /** Relative paths are read against it (default: the working directory). */
  baseDir?: string;
  /** A prompts folder that overrides and extends the bundled templates (`--prompts`). */
  prompts?: string;
  /** Cancels the job (default: Ctrl-C). */
  signal?: AbortSignal;
}

/**
 * API keys come only from the environment variable a plan names beside the endpoint (`apiKeyEnv`, default
 * `REFLECT_EVAL_API_KEY`), so a key goes only to the endpoint written next to its variable; a plan that names one
 * variable beside two origins without listing them in `apiKeyOrigins` is refused before any request
 * (docs/security.md).
 */
export function envSecret(request: SecretRequest): SecretAnswer {
  const name = request.envVar ?? DEFAULT_API_KEY_ENV;
  if (request.sharedKeyProblem) return { declined: request.sharedKeyProblem };
  const key = process.env[name];
  if (key) return { key };
  return { missing: `set the environment variable ${name}` };
}

/**
 * Prompt template roots: the bundled `prompts/`, then `--prompts <dir>` or else a `prompts/` folder in the base
 * folder (the working directory, or a plan file's folder) when it exists — the editor's rule with the workspace.
 */
export function userPromptRoots(baseDir: string, prompts?: string): string[] {
  const bundled = bundledPrompts();
  const user = prompts ? resolve(baseDir, prompts) : join(baseDir, 'prompts');
  return user !== resolve(bundled) && (prompts || existsSync(user)) ? [bundled, user] : [bundled];
}

/** Where a key goes, for the log: `$VAR → https://host:port` (never the key). */
function keyRoute(request: SecretRequest): string {
  let origin = request.endpoint;
  try {
    origin = endpointOrigin(request.endpoint);
  } catch {
    // said as written
  }
  return `the ${request.purpose} key in $${request.envVar ?? DEFAULT_API_KEY_ENV} goes to ${origin}${request.model ? ` (${request.model})` : ''}`;
}

/** A CLI job host. */
export function cliHost(options: CliHostOptions = {}): JobHost & { close(): void } {
  const baseDir = resolve(options.baseDir ?? process.cwd());
  let bar: cliProgress.SingleBar | undefined;
  let barTotal = -1;
  return {
    kind: 'cli',
    baseDir,
    models: { bundledDir: bundledModels(), baseDir, hub: { log: (m) => log(m) } },
    promptRoots: userPromptRoots(baseDir, options.prompts),
    dataDir: bundledData(),
    signal: options.signal,
    async secret(request) {
      const answer = envSecret(request);
      if ('key' in answer) log(keyRoute(request));
      return answer;
    },
    progress(p: JobProgress) {
      if (!bar || barTotal !== p.total) {
        bar?.stop();
        bar = new cliProgress.SingleBar({ format: '[{bar}] {value}/{total} · {message}', stream: process.stderr, noTTYOutput: true, notTTYSchedule: 5000 }, cliProgress.Presets.shades_classic);
        bar.start(p.total, p.done, { message: p.message ?? '' });
        barTotal = p.total;
      } else bar.update(p.done, { message: p.message ?? '' });
    },
    log(message: string) {
      if (bar) {
        bar.stop();
        bar = undefined;
        barTotal = -1;
      }
      log(message);
    },
    close() {
      bar?.stop();
      bar = undefined;
    },
  };
}

/**
 * Runs `fn` with Ctrl-C turned into cancellation: the first Ctrl-C aborts the signal (the job keeps what is
 * finished and the result is written), a second exits at once with 130.
 */
export async function withInterrupt<T>(fn: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const abort = new AbortController();
  const onSigint = () => (abort.signal.aborted ? process.exit(130) : abort.abort());
  process.on('SIGINT', onSigint);
  try {
    return await fn(abort.signal);
  } finally {
    process.off('SIGINT', onSigint);
  }
}

/**
 * Prints a job's report on stderr and sets the exit code: non-zero when the job could do nothing or part of it
 * failed (the reason is printed).
 */
export function printReport(report: JobReport): void {
  for (const line of report.lines) log(line);
  for (const w of report.warnings) log(`warning: ${w}`);
  if (report.cancelled) log('interrupted: kept what was finished');
  if (report.files?.length && report.itemsChanged !== undefined) log(`wrote ${report.files[0]}: ${report.itemsChanged} item(s) changed`);
  // Only a job that changes items counts them (a report, a leaderboard, a plan record leave the file alone).
  else if (report.itemsChanged === 0) log('no item changed; the file was left as it was');
  for (const f of report.files?.slice(report.itemsChanged !== undefined ? 1 : 0) ?? []) log(`wrote ${f}`);
  if (report.nothingDone) {
    log(`reflect-eval ${report.job}: nothing done: ${report.nothingDone}`);
    process.exitCode = 1;
  } else if (report.failed) {
    log(`reflect-eval ${report.job}: ${report.failed}`);
    process.exitCode = 1;
  }
}
