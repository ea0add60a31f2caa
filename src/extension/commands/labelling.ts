/**
 * Labelling commands: one `reflectEval.label.*` command per key of webview/editor/keys.ts (their default
 * keybindings are contributed in package.json), blind mode, the comparison view, and the key list.
 */
import * as vscode from 'vscode';
import type { DialogueEditorProvider } from '../dialogueEditor';
import { toggleBlindMode } from '../settings';
import { LABEL_KEYS } from '../../../webview/editor/keys';

/** Registers the labelling commands. */
export function labellingCommands(editors: DialogueEditorProvider): vscode.Disposable[] {
  const noEditor = () => void vscode.window.showInformationMessage('Open a dialogue file (*.dialogues.jsonl) in the ReflectEval editor to label it.');
  return [
    ...LABEL_KEYS.map((k) => vscode.commands.registerCommand(k.command, () => (editors.dispatch(k.action) ? undefined : noEditor()))),
    vscode.commands.registerCommand('reflectEval.toggleBlindMode', () => toggleBlindMode()),
    vscode.commands.registerCommand('reflectEval.toggleComparison', () => (editors.toggleComparison() ? undefined : noEditor())),
    vscode.commands.registerCommand('reflectEval.showLabellingKeys', () => vscode.commands.executeCommand('workbench.action.openGlobalKeybindings', 'reflectEval.label')),
  ];
}
