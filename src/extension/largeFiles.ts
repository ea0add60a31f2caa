/**
 * Dialogue files too large for VS Code's text editor (issue 19 item 3). VS Code opens no file over 50 MB as text (its
 * large-file placeholder's "Open Anyway" shows raw JSON, and no extension is handed the text). The ReflectEval editor
 * reads its file itself (`DialogueFileDocument`), so it opens such a file; ReflectEval watches the tabs and, when a
 * `*.dialogues.jsonl` file over the limit is opened as text, says so and gives the ways forward: the ReflectEval
 * editor, a compact or split file for tools that read text, or the CLI.
 */
import * as vscode from 'vscode';
import { VSCODE_EXTENSION_FILE_LIMIT } from '../core/format/split';

const MB = 1024 * 1024;

/** The file a tab shows as text, when it is a dialogue file (by name). */
function dialogueUri(tab: vscode.Tab): vscode.Uri | undefined {
  const input = tab.input;
  if (input instanceof vscode.TabInputText) return /\.dialogues\.jsonl$/i.test(input.uri.path) ? input.uri : undefined;
  return undefined;
}

/** The message for a file of `bytes` bytes. */
export function largeFileMessage(name: string, bytes: number): string {
  return (
    `ReflectEval: ${name} is ${(bytes / MB).toFixed(1)} MB. VS Code opens no file over 50 MB as text; the ReflectEval editor reads the file itself and opens it ` +
    `(Reopen Editor With… → ReflectEval Dialogues). For tools that need it smaller, compact it — reflect-eval compact "${name}" — which lists the evaluators once and writes ` +
    'each score as its value (a full AnnoMI study goes from 250 MB to 46 MB); if it is still too large, split it into parts — ' +
    `reflect-eval split "${name}" --max-mb 45 — and join the parts again as the command prints; the reflect-eval CLI has no such limit.`
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
