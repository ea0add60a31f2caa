/**
 * Dialogue files too large for VS Code's extension host (issue 19 item 3): VS Code hands no extension a file over
 * 50 MB, so "Open With → ReflectEval" fails inside VS Code with "Assertion Failed: Argument is `undefined` or
 * `null`", and its large-file placeholder's "Open Anyway" shows raw JSON — neither says why. ReflectEval watches the
 * tabs: when a `*.dialogues.jsonl` file (or any `*.jsonl` in ReflectEval's editor) over the limit is opened, it says
 * what happened and the way forward (compact it; split into parts the editor opens; or the CLI, which has no such limit).
 */
import * as vscode from 'vscode';
import { VSCODE_EXTENSION_FILE_LIMIT } from '../core/format/split';
import { DIALOGUE_EDITOR_VIEW_TYPE } from './dialogueEditor';

const MB = 1024 * 1024;

/** The file a tab shows, when it is a dialogue file (by name, or open in ReflectEval's editor). */
function dialogueUri(tab: vscode.Tab): vscode.Uri | undefined {
  const input = tab.input;
  if (input instanceof vscode.TabInputCustom) return input.viewType.startsWith(DIALOGUE_EDITOR_VIEW_TYPE) ? input.uri : undefined;
  if (input instanceof vscode.TabInputText) return /\.dialogues\.jsonl$/i.test(input.uri.path) ? input.uri : undefined;
  return undefined;
}

/** The message for a file of `bytes` bytes. */
export function largeFileMessage(name: string, bytes: number): string {
  return (
    `ReflectEval: ${name} is ${(bytes / MB).toFixed(1)} MB. VS Code hands no extension a file over 50 MB, so the ReflectEval editor cannot open it ` +
    `(VS Code shows an error or the raw text instead). Compact it — reflect-eval compact "${name}" — which lists the evaluators once and writes ` +
    'each score as its value (a full AnnoMI study goes from 250 MB to 46 MB); if it is still too large, split it into parts the editor opens — ' +
    `reflect-eval split "${name}" --max-mb 45 — and join them again as the command prints; or run jobs and analyses on the whole file with the reflect-eval CLI, which has no such limit.`
  );
}

/** Watches opened tabs and warns once per file and size about a dialogue file over the limit. */
export function watchLargeDialogueFiles(): vscode.Disposable {
  const warned = new Set<string>();
  const check = async (tab: vscode.Tab) => {
    const uri = dialogueUri(tab);
    if (!uri) return;
    let size: number;
    try {
      size = (await vscode.workspace.fs.stat(uri)).size;
    } catch {
      return;
    }
    const key = `${uri.toString()}@${size}`;
    if (size <= VSCODE_EXTENSION_FILE_LIMIT || warned.has(key)) return;
    warned.add(key);
    const name = vscode.workspace.asRelativePath(uri);
    const choice = await vscode.window.showWarningMessage(largeFileMessage(name, size), 'Copy Compact Command', 'Copy Split Command');
    if (choice === 'Copy Compact Command') await vscode.env.clipboard.writeText(`reflect-eval compact "${uri.fsPath}"`);
    if (choice === 'Copy Split Command') await vscode.env.clipboard.writeText(`reflect-eval split "${uri.fsPath}" --max-mb 45`);
  };
  for (const group of vscode.window.tabGroups.all) for (const tab of group.tabs) void check(tab);
  return vscode.window.tabGroups.onDidChangeTabs((e) => {
    for (const tab of [...e.opened, ...e.changed]) void check(tab);
  });
}
