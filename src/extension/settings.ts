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

/** Whether blind labelling is on (setting `reflectEval.blindMode`). */
export function getBlindMode(): boolean {
  return vscode.workspace.getConfiguration('reflectEval').get<boolean>('blindMode') === true;
}

/**
 * Turns blind labelling on or off where the setting is defined (workspace folder, workspace, else user
 * settings), and says which way it went.
 */
export async function toggleBlindMode(): Promise<boolean> {
  const cfg = vscode.workspace.getConfiguration('reflectEval');
  const next = !getBlindMode();
  const where = cfg.inspect<boolean>('blindMode');
  const target = where?.workspaceFolderValue !== undefined ? vscode.ConfigurationTarget.WorkspaceFolder : where?.workspaceValue !== undefined ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await cfg.update('blindMode', next, target);
  void vscode.window.setStatusBarMessage(`ReflectEval: blind labelling ${next ? 'on: origins, scores and references hidden, candidates shuffled per annotator' : 'off'}`, 4000);
  return next;
}
