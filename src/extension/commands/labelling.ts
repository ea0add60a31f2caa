/**
 * Labelling commands: the generic `reflectEval.label.*` commands of src/core/labels/labelKeys.ts (a rubric key as
 * the argument of `reflectEval.label.key`; their default keybindings are contributed in package.json), the MI
 * preset's commands before rubrics as the keys they were, blind mode, the comparison view, and the key list.
 */
import * as vscode from 'vscode';
import type { DialogueEditorProvider } from '../dialogueEditor';
import { toggleBlindMode } from '../settings';
import type { EditorAction } from '../../core/labels/labelKeys';
import { LABEL_COMMANDS, LEGACY_LABEL_COMMANDS } from '../../core/labels/labelKeys';

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
  const run = (action: EditorAction | null) => (!action || editors.dispatch(action) ? undefined : noEditor());
  const registered = [
    ...LABEL_COMMANDS.map((k) => vscode.commands.registerCommand(k.command, (arg?: unknown) => (arg === WARM_UP ? undefined : run(k.action(arg))))),
    ...LEGACY_LABEL_COMMANDS.map((k) => vscode.commands.registerCommand(k.command, (arg?: unknown) => (arg === WARM_UP ? undefined : run(k.action)))),
  ];
  for (const k of LABEL_COMMANDS) void vscode.commands.executeCommand(k.command, WARM_UP);
  return [
    ...registered,
    vscode.commands.registerCommand('reflectEval.toggleBlindMode', () => {
      const packet = editors.activePacket();
      // A team packet is labelled blind, always (issue 44 item 2).
      if (packet) return void vscode.window.showInformationMessage(`ReflectEval: this is ${packet.annotator}'s team packet: it is always labelled blind.`);
      return toggleBlindMode();
    }),
    vscode.commands.registerCommand('reflectEval.toggleComparison', () => (editors.toggleComparison() ? undefined : noEditor())),
    vscode.commands.registerCommand('reflectEval.showLabellingKeys', () => vscode.commands.executeCommand('workbench.action.openGlobalKeybindings', 'reflectEval.label')),
  ];
}
