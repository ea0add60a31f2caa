/**
 * The editor's job host and runner: a plan built from quick picks or settings runs through the same core job as
 * the CLI (src/core/jobs/), with relative paths read against the workspace folder, bundled models and prompts from
 * the installed extension, API keys from VS Code SecretStorage (each for its endpoint origin, other origins asked
 * about first: src/extension/keys.ts), progress in a cancellable notification, messages in
 * the "ReflectEval" output channel, and results applied to the open dialogue document as line edits (merged into the
 * document as it is when they arrive, so labels made during a run stay; undo, dirty state and save as usual).
 */
import { dirname, join } from 'node:path';
import * as vscode from 'vscode';
import type { DialogueFileDocument } from './dialogueDocument';
import type { DialogueItem } from '../core/dialogue/types';
import type { ItemSink, JobHost, JobReport } from '../core/jobs/host';
import type { EndpointSource } from '../core/jobs/apiKeyPolicy';
import type { FileJobPlan, JobPlan } from '../core/jobs/plans';
import { failFor } from '../core/config';
import { validateLocalRuntime, type LocalRuntimeOptions } from '../core/models/ortRuntime';
import { promptRoots, workspaceDir } from './commands/common';
import { parseDialogue, updateItems } from './dialogueDocument';
import { editorSecret, settingsEndpointSource } from './keys';

let channel: vscode.OutputChannel | undefined;

/**
 * How local models run, from `reflectEval.generator.threads` (0: onnxruntime's default),
 * `reflectEval.generator.executionProvider` and `reflectEval.generator.spinning`; a plan's `runtime` overrides them.
 *
 * @throws ConfigError naming the setting when a value is out of range
 */
export function localRuntimeSettings(): LocalRuntimeOptions {
  const cfg = vscode.workspace.getConfiguration('reflectEval.generator');
  return validateLocalRuntime(
    { threads: cfg.get<number>('threads', 0), executionProvider: cfg.get<string>('executionProvider', 'cpu'), spinning: cfg.get<boolean>('spinning', false) },
    'reflectEval.generator',
    failFor('settings'),
  );
}

/** The "ReflectEval" output channel (created on first use). */
export function outputChannel(): vscode.OutputChannel {
  channel ??= vscode.window.createOutputChannel('ReflectEval');
  return channel;
}

/** The dialogue file a document stands for (an untitled one: a file named after it in the workspace folder). */
export function documentFile(document: DialogueFileDocument): string {
  return document.uri.scheme === 'file' ? document.uri.fsPath : join(workspaceDir(document), `${document.uri.path.split('/').pop() || 'untitled'}.dialogues.jsonl`);
}

/**
 * The editor's job host: what differs from the CLI's, and nothing else.
 *
 * @param baseDir - relative paths are read against it (a document's workspace folder, or a plan file's folder)
 * @param endpointSource - where the plan's endpoints were written (settings by `inspect()`, or a plan file), for the
 *   question asked before a key goes to an origin the user has not approved (src/extension/keys.ts)
 */
export function editorHost(context: vscode.ExtensionContext, progress: vscode.Progress<{ message?: string; increment?: number }>, signal: AbortSignal, baseDir: string, endpointSource: (endpoint: string) => EndpointSource = settingsEndpointSource): JobHost {
  let last = 0;
  return {
    kind: 'vscode',
    baseDir,
    models: { bundledDir: vscode.Uri.joinPath(context.extensionUri, 'fixtures', 'models').fsPath, baseDir, hub: { log: (m) => outputChannel().appendLine(m) }, runtime: localRuntimeSettings() },
    promptRoots: promptRoots(context),
    dataDir: vscode.Uri.joinPath(context.extensionUri, 'data').fsPath,
    signal,
    secret: editorSecret(context, endpointSource),
    progress: (p) => {
      const fraction = p.total > 0 ? p.done / p.total : 0;
      progress.report({ increment: Math.max(0, fraction - last) * 100, message: `${p.done}/${p.total}${p.message ? ` · ${p.message}` : ''}` });
      last = fraction;
    },
    log: (message) => {
      outputChannel().appendLine(message);
      progress.report({ message });
    },
  };
}

/** A sink that applies updates to the document as it is now, as one WorkspaceEdit per batch. */
export function documentSink(document: DialogueFileDocument): ItemSink & { changed: number } {
  const sink = {
    changed: 0,
    async apply(updates: ReadonlyMap<string, (current: DialogueItem) => DialogueItem | undefined>) {
      sink.changed += await updateItems(document, (current) => updates.get(current.id)?.(current));
    },
  };
  return sink;
}

/**
 * Runs a plan on an open dialogue document in a cancellable notification, logs its report to the output channel
 * and shows a summary (a warning when something did not run).
 *
 * @param options.baseDir - folder the plan's relative paths are read against (a plan file's folder; default the
 *   document's workspace folder)
 * @param options.endpointSource - where the plan's endpoints were written: `plan` for a plan or run config file
 *   (default: looked up in the settings with `inspect()`)
 * @returns the report (errors thrown by the job propagate to the command wrapper, which shows them)
 */
export async function runPlanInEditor(context: vscode.ExtensionContext, document: DialogueFileDocument, plan: FileJobPlan, title: string, options: { baseDir?: string; endpointSource?: EndpointSource } = {}): Promise<JobReport> {
  const { runPlan } = await import('../core/jobs/plans');
  const { documentItems } = await import('../core/format/jsonl');
  const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `ReflectEval: ${title}`, cancellable: true }, async (progress, token) => {
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort());
    const source = options.endpointSource;
    const host = editorHost(context, progress, abort.signal, options.baseDir ?? workspaceDir(document), source ? () => source : settingsEndpointSource);
    const sink = documentSink(document);
    const items = documentItems(parseDialogue(document));
    outputChannel().appendLine(`${new Date().toISOString()} ${plan.job} on ${document.uri.fsPath}`);
    const r = await runPlan(plan, { file: documentFile(document), items }, host, sink);
    r.itemsChanged = sink.changed;
    return r;
  });
  showReport(report);
  return report;
}

/**
 * Runs a plan of a job that creates a dialogue file (an import) in a cancellable notification: the core runner
 * (`runPlanOnFile`, as in the CLI and a pipeline) writes the job's items as the file `target`; the report is logged
 * and shown. The caller opens the file.
 *
 * @returns the report (`nothingDone` when nothing was written); errors thrown by the job (a table's problems)
 *   propagate to the caller
 */
export async function runPlanCreatingFile(context: vscode.ExtensionContext, plan: JobPlan, target: vscode.Uri, title: string): Promise<JobReport> {
  if (target.scheme !== 'file') throw new Error(`${target.toString()}: ReflectEval writes a new dialogue file on disk; choose a file in a local folder`);
  const { runPlanOnFile } = await import('../core/jobs/file');
  const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `ReflectEval: ${title}`, cancellable: true }, async (progress, token) => {
    const abort = new AbortController();
    token.onCancellationRequested(() => abort.abort());
    const host = editorHost(context, progress, abort.signal, dirname(target.fsPath), () => 'plan');
    outputChannel().appendLine(`${new Date().toISOString()} ${plan.job} to ${target.fsPath}`);
    return runPlanOnFile(plan, target.fsPath, host);
  });
  showReport(report);
  return report;
}

/** Logs a report and its summary to the output channel and shows the summary. */
export function showReport(report: JobReport): void {
  const out = outputChannel();
  for (const line of [...report.lines, ...report.warnings.map((w) => `warning: ${w}`), ...(report.files ?? []).map((f) => `wrote ${f}`)]) out.appendLine(`  ${line}`);
  // VS Code cuts notifications at 1,000 characters: readable names, and the full lines in the output channel.
  let what = report.nothingDone ? `nothing done: ${report.nothingDone}` : (report.summary ?? report.lines).join('; ');
  if (what.length > 700) what = `${what.slice(0, 700)}… (all of it in the ReflectEval output)`;
  const changed = report.itemsChanged ? ` ${report.itemsChanged} item(s) updated.` : '';
  const tail = `${report.cancelled ? ' (cancelled; finished work kept)' : ''}${report.warnings.length ? ` ${report.warnings.length} warning(s): ${report.warnings[0]}` : ''}`;
  const message = `ReflectEval ${report.job}: ${what}.${changed}${tail}`;
  // Also in the output: a notification fades, and VS Code shows none at all when more than three arrive within
  // 800 ms (its toasts' spam protection), which quick jobs run back to back can reach.
  out.appendLine(message);
  if (report.nothingDone || report.failed || report.warnings.length) {
    void vscode.window.showWarningMessage(message, 'Show Output').then((c) => c && out.show(true));
  } else void vscode.window.showInformationMessage(message);
}
