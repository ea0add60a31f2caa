import * as vscode from 'vscode';

/** The current annotator id (setting `reflectEval.annotator`), or null when not set. */
export function getAnnotator(): string | null {
  const v = vscode.workspace.getConfiguration('reflectEval').get<string>('annotator')?.trim();
  return v ? v : null;
}

/** Asks for the annotator id and stores it in the user settings. */
export async function promptAnnotator(): Promise<string | null> {
  const value = await vscode.window.showInputBox({
    title: 'ReflectEval: annotator id',
    prompt: 'Your labels are stored under this id in the dialogue files (e.g. "Expert-1" or your initials).',
    value: getAnnotator() ?? '',
    validateInput: (v) => (v.trim() ? undefined : 'An annotator id cannot be empty'),
  });
  if (!value) return null;
  await vscode.workspace.getConfiguration('reflectEval').update('annotator', value.trim(), vscode.ConfigurationTarget.Global);
  return value.trim();
}
