/**
 * ReflectEval: Assign Packets… and Collect Packets… — the team jobs (src/core/jobs/team.ts) on the open study, as
 * `reflect-eval assign` and `collect` run them: annotator ids, labels per candidate and a folder by quick input;
 * the packets to collect by an open dialog. A packet made by either program is collected by the other.
 */
import * as vscode from 'vscode';
import type { DialogueEditorProvider } from '../dialogueEditor';
import { runPlanInEditor } from '../host';
import { activeDialogue } from './common';

/** The open study on disk, or a message why not. */
function studyOnDisk(editors: DialogueEditorProvider) {
  const document = activeDialogue(editors);
  if (!document) return undefined;
  if (document.uri.scheme !== 'file') throw new Error('a study handed to a team lives on disk: save the dialogue file first');
  return document;
}

export async function assignPacketsCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  const document = studyOnDisk(editors);
  if (!document) return;
  const ids = await vscode.window.showInputBox({
    title: 'Assign Packets (1/3): annotator ids',
    prompt: 'Comma-separated; one blind packet each (e.g. E1,E2,E3)',
    ignoreFocusOut: true,
    validateInput: (v) => (v.split(',').map((a) => a.trim()).filter(Boolean).length === 0 ? 'Give at least one annotator id' : undefined),
  });
  if (!ids) return;
  const annotators = ids.split(',').map((a) => a.trim()).filter(Boolean);
  const k = await vscode.window.showQuickPick(
    annotators.map((_, i) => ({ label: `${annotators.length - i} of ${annotators.length}`, description: i === 0 ? 'every annotator labels every candidate' : 'balanced across annotators', value: annotators.length - i })),
    { title: 'Assign Packets (2/3): annotators per candidate', ignoreFocusOut: true },
  );
  if (!k) return;
  const folder = await vscode.window.showOpenDialog({ title: 'Assign Packets (3/3): the folder to write the packets into', canSelectFolders: true, canSelectFiles: false, canSelectMany: false, defaultUri: vscode.Uri.joinPath(document.uri, '..'), openLabel: 'Write Packets Here' });
  if (!folder?.[0]) return;
  const { validateAssignPlan } = await import('../../core/jobs/team');
  const plan = validateAssignPlan({ annotators, labelsPerCandidate: k.value, out: folder[0].fsPath }, 'Assign Packets…');
  await runPlanInEditor(context, document, { ...plan, job: 'assign' }, `assigning packets to ${annotators.length} annotator(s)`);
}

export async function collectPacketsCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  const document = studyOnDisk(editors);
  if (!document) return;
  // A study with label sidecars is collected as the CLI does: the editor's document writes each annotator's labels
  // to their sidecar (dialogueDocument.ts, core routeItemEdit) when the study is saved.
  const picked = await vscode.window.showOpenDialog({ title: 'Collect Packets: the packets to bring back', canSelectMany: true, filters: { 'Packets (dialogue files)': ['jsonl'] }, defaultUri: vscode.Uri.joinPath(document.uri, '..'), openLabel: 'Collect' });
  if (!picked?.length) return;
  const { validateCollectPlan } = await import('../../core/jobs/team');
  const plan = validateCollectPlan({ packets: picked.map((u) => u.fsPath) }, 'Collect Packets…');
  await runPlanInEditor(context, document, { ...plan, job: 'collect' }, `collecting ${picked.length} packet(s)`);
}
