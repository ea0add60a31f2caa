/**
 * Labelling commands: one `reflectEval.label.*` command per key of src/core/labels/labelKeys.ts (their default
 * keybindings are contributed in package.json), blind mode, the comparison view, and the key list.
 */
import * as vscode from 'vscode';
import type { DialogueEditorProvider } from '../dialogueEditor';
import { toggleBlindMode } from '../settings';
import { LABEL_KEYS } from '../../core/labels/labelKeys';

/** Argument of the warm-up call (see {@link labellingCommands}); a command called with it does nothing. */
const WARM_UP = Symbol('reflectEval.label warm-up');

/**
 * Registers the labelling commands.
 *
 * Key order: the workbench runs a command whose `onCommand:` activation event it has not seen yet only after a
 * round trip to the extension host, and a command it has seen at once (VS Code 1.100 `CommandService.
 * executeCommand`). So the first press of each key could overtake an earlier, different key typed just before
 * (e.g. `K` then `Y` labelling the candidate `K` moved away from). Executing each command once here, from the
 * extension host, makes the workbench record its activation event (`$fireCommandActivationEvent`), so key
 * presses reach the editor in the order they were typed from the first one on. The warm-up call does nothing.
 */
export function labellingCommands(editors: DialogueEditorProvider): vscode.Disposable[] {
  const noEditor = () => void vscode.window.showInformationMessage('Open a dialogue file (*.dialogues.jsonl) in the ReflectEval editor to label it.');
  const registered = LABEL_KEYS.map((k) => vscode.commands.registerCommand(k.command, (arg?: unknown) => (arg === WARM_UP || editors.dispatch(k.action) ? undefined : noEditor())));
  for (const k of LABEL_KEYS) void vscode.commands.executeCommand(k.command, WARM_UP);
  return [
    ...registered,
    vscode.commands.registerCommand('reflectEval.toggleBlindMode', () => toggleBlindMode()),
    vscode.commands.registerCommand('reflectEval.toggleComparison', () => (editors.toggleComparison() ? undefined : noEditor())),
    vscode.commands.registerCommand('reflectEval.showLabellingKeys', () => vscode.commands.executeCommand('workbench.action.openGlobalKeybindings', 'reflectEval.label')),
  ];
}
