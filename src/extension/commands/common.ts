/**
 * Helpers shared by ReflectEval's VS Code commands (src/extension/commands/*.ts).
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import * as vscode from 'vscode';
import type { DialogueFileDocument } from '../dialogueDocument';
import type { DialogueEditorProvider } from '../dialogueEditor';

/** The `reflectEval.*` settings. */
export function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration('reflectEval');
}

/** False (with a warning) in an untrusted workspace: models and judges run only in trusted ones. */
export function requireTrust(what: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showWarningMessage(`ReflectEval does not ${what} in an untrusted workspace. Trust the workspace to run models and judges.`);
  return false;
}

/** The dialogue document of the last active ReflectEval editor, or undefined (with a hint). */
export function activeDialogue(editors: DialogueEditorProvider): DialogueFileDocument | undefined {
  const doc = editors.activeDocument;
  if (!doc) void vscode.window.showInformationMessage('Open a dialogue file (*.dialogues.jsonl) in the ReflectEval editor first.');
  return doc;
}

/**
 * Prompt template roots: the bundled `prompts/`, then `reflectEval.promptsPath` (relative to the workspace folder)
 * or else the workspace's `prompts/` when it exists — the rule the CLI's host follows for `--prompts` and `./prompts`,
 * so a judge manifest lists the same folders from both programs.
 */
export function promptRoots(context: vscode.ExtensionContext): string[] {
  const bundled = vscode.Uri.joinPath(context.extensionUri, 'prompts').fsPath;
  const base = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const custom = config().get<string>('promptsPath')?.trim();
  const user = custom ? (base ? resolve(base, custom) : custom) : base ? join(base, 'prompts') : undefined;
  return user && user !== bundled && (custom || existsSync(user)) ? [bundled, user] : [bundled];
}

/**
 * The folder a setting's relative paths mean: the workspace folder of `document`, else the first workspace folder,
 * else the document's own folder. (The extension host's working directory is not the user's.)
 */
export function workspaceDir(document: DialogueFileDocument): string {
  const folder = vscode.workspace.getWorkspaceFolder(document.uri) ?? vscode.workspace.workspaceFolders?.[0];
  return folder ? folder.uri.fsPath : vscode.Uri.joinPath(document.uri, '..').fsPath;
}

/**
 * For runs with API generators or judges: ask now, or through OpenAI's Batch API (`batch` in a generate or judge
 * plan: about half the price, answered within 24 h, resumed by batch id after a restart). Runs with local models
 * only are not asked.
 *
 * @returns true for the Batch API, false for now, undefined when the user cancels
 */
export async function pickBatchMode(backends: readonly string[], what: string): Promise<boolean | undefined> {
  if (!backends.some((b) => b !== 'local')) return false;
  const picked = await vscode.window.showQuickPick(
    [
      { label: 'Ask now', description: 'online requests, results as they arrive', batch: false },
      { label: 'OpenAI Batch API', description: 'about half the price, results within 24 h; resumes after a restart', detail: 'The endpoint must offer /v1/files and /v1/batches (OpenAI does; most self-hosted servers do not). Local models run as usual.', batch: true },
    ],
    { ignoreFocusOut: true, title: `${what}: how to ask the API` },
  );
  return picked?.batch;
}

/** Fields of metric configurations that name a file or a local model folder. */
const METRIC_PATH_FIELDS = ['model', 'idfReferencesFile', 'baselineFile'];

/**
 * `reflectEval.metrics` with relative paths made absolute against `dir` where such a file or folder exists there
 * (a hub id like `roberta-large` has no folder of that name and is kept as written).
 */
export function resolveMetricPaths(configured: Record<string, unknown>, dir: string): Record<string, unknown> {
  const fix = (c: unknown): unknown => {
    if (c === null || typeof c !== 'object' || Array.isArray(c)) return c;
    const out: Record<string, unknown> = { ...(c as Record<string, unknown>) };
    for (const k of METRIC_PATH_FIELDS) {
      const v = out[k];
      if (typeof v === 'string' && v && !isAbsolute(v) && existsSync(join(dir, v))) out[k] = join(dir, v);
    }
    return out;
  };
  return Object.fromEntries(Object.entries(configured).map(([name, v]) => [name, Array.isArray(v) ? v.map(fix) : fix(v)]));
}
