/**
 * ReflectEval: Import AnnoMI CSV… — the picks become an import plan that the core job runs (src/core/jobs/importData.ts),
 * as `reflect-eval import annomi` does; the new dialogue file opens in the ReflectEval editor.
 */
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { importedDialogueFile } from '../../core/dialogue/siblingFile';
import { DIALOGUE_EDITOR_VIEW_TYPE } from '../dialogueEditor';
import { runPlanCreatingFile } from '../host';

export async function importAnnoMICommand(context: vscode.ExtensionContext): Promise<void> {
  const picked = await vscode.window.showOpenDialog({ title: 'AnnoMI CSV (AnnoMI-simple.csv or AnnoMI-full.csv)', filters: { CSV: ['csv'] }, canSelectMany: false });
  if (!picked?.[0]) return;
  const csv = picked[0];
  const sampleText = await vscode.window.showInputBox({
    ignoreFocusOut: true,
    title: 'Import AnnoMI reflections',
    prompt: 'Number of contexts to sample, at most one per dialogue (empty: every reflection of high-quality dialogues)',
    value: '15',
    validateInput: (v) => (v.trim() === '' || /^[1-9]\d*$/.test(v.trim()) ? undefined : 'a positive whole number, or empty'),
  });
  if (sampleText === undefined) return;
  const seed = sampleText.trim() ? await vscode.window.showInputBox({ ignoreFocusOut: true, title: 'Sampling seed', value: '0' }) : '0';
  if (seed === undefined) return;
  const target = await vscode.window.showSaveDialog({
    title: 'Save dialogue file',
    defaultUri: vscode.Uri.joinPath(csv, '..', importedDialogueFile(basename(csv.fsPath))),
    filters: { 'Dialogue JSONL': ['jsonl'] },
  });
  if (!target) return;
  const { validatePlan } = await import('../../core/jobs/plans');
  const plan = validatePlan({ job: 'import', format: 'annomi', file: csv.fsPath, ...(sampleText.trim() ? { sample: Number(sampleText) } : {}), seed }, 'picks');
  const report = await runPlanCreatingFile(context, plan, target, `importing ${basename(csv.fsPath)}`);
  if (!report.nothingDone) await vscode.commands.executeCommand('vscode.openWith', target, DIALOGUE_EDITOR_VIEW_TYPE);
}
