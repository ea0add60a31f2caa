/**
 * The full extension: registers the dialogue editor, the correlation panel and the commands. The package's `main`
 * is the small entry (entry.ts), which loads this bundle (dist/extension.js) when a command or the editor is first
 * used. Models and judges load lazily, only when a command runs.
 */
import * as vscode from 'vscode';
import { registerCommands } from './commands/index';
import { DIALOGUE_EDITOR_VIEW_TYPE, DialogueEditorProvider } from './dialogueEditor';
import { migrateLegacyKeys } from './keys';
import { watchLargeDialogueFiles } from './largeFiles';
import { PromptPreviewPanel } from './promptPreview';
import type { SearchVariantRef } from './searchPanel';

/** The annotation schema's check of a label sidecar line, for the entry's side bar (studiesView.ts), which reads sidecars as every job does. */
export { annotationSchemaProblem } from '../core/format/labelSidecars';

/**
 * @param fromEntry - set when the light entry (entry.ts, the package's `main`) loads this module on first use: the
 *   entry has then registered the custom editors (delegating to the returned provider) and the large-file watcher
 * @returns the dialogue editor provider, for the entry's editor registrations to delegate to
 */
export function activate(context: vscode.ExtensionContext, fromEntry?: { editorsRegistered: true }): DialogueEditorProvider {
  const editors = new DialogueEditorProvider(context);
  context.subscriptions.push(
    // The same editor under two view types: default for *.dialogues.jsonl, "Open With…" for any *.jsonl.
    ...(fromEntry
      ? []
      : [DIALOGUE_EDITOR_VIEW_TYPE, `${DIALOGUE_EDITOR_VIEW_TYPE}.any`].map((viewType) =>
          vscode.window.registerCustomEditorProvider(viewType, editors.provider(viewType), { supportsMultipleEditorsPerDocument: false }),
        )),
    ...registerCommands(context, editors),
    // Files over 50 MB opened as text: say why VS Code does not show them, and the way forward.
    ...(fromEntry ? [] : [watchLargeDialogueFiles()]),
  );
  // Keys stored before keys had origins are bound to the user's own endpoint setting (never a workspace's).
  void migrateLegacyKeys(context);
  const preview = new PromptPreviewPanel(context, editors);
  context.subscriptions.push(
    vscode.commands.registerCommand('reflectEval.showPromptPreview', () => preview.show()),
    // Internal (not in the palette): the prompt search leaderboard opens a clicked variant's prompt here.
    vscode.commands.registerCommand('reflectEval.previewSearchVariant', (ref: SearchVariantRef) => preview.showSearchVariant(ref)),
  );
  return editors;
}

export function deactivate(): void {}
