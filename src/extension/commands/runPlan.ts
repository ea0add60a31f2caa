/**
 * ReflectEval: Run Plan File… — runs a plan file (one job, as `reflect-eval run plan.json file` does) on the open
 * dialogue file, or a pipeline file (a dialogue file and its steps, as `reflect-eval run pipeline.json`) on disk,
 * then opens its dialogue file. Relative paths in the file are read against the file's folder, as in the CLI.
 */
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import * as vscode from 'vscode';
import { openDialogueDocuments } from '../dialogueDocument';
import { DIALOGUE_EDITOR_VIEW_TYPE, type DialogueEditorProvider } from '../dialogueEditor';
import { editorHost, outputChannel, runPlanInEditor, showReport } from '../host';
import { activeDialogue, requireTrust } from './common';

export async function runPlanCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider, uri?: vscode.Uri): Promise<void> {
  if (!requireTrust('run plans')) return;
  const picked = uri ? [uri] : await vscode.window.showOpenDialog({ title: 'Plan or pipeline file (JSON)', filters: { JSON: ['json'] }, canSelectMany: false, defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri });
  if (!picked?.[0]) return;
  const file = picked[0].fsPath;
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file}: not valid JSON: ${(err as Error).message}`);
  }
  const { isFileJobPlan, validatePipeline, validatePlan } = await import('../../core/jobs/plans');
  if (value && typeof value === 'object' && 'steps' in value) {
    const pipeline = validatePipeline(value, file);
    const { runPipeline } = await import('../../core/jobs/file');
    const { resolve } = await import('node:path');
    const target = resolve(dirname(file), pipeline.file);
    const open = [...vscode.workspace.textDocuments, ...openDialogueDocuments].find((d) => d.uri.fsPath === target && d.isDirty);
    if (open) throw new Error(`${target} has unsaved changes; save it before running a pipeline on it`);
    await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `ReflectEval: ${pipeline.steps.length} step(s) of ${file}`, cancellable: true }, async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      // The pipeline's steps run on the file on disk (an import step creates it), as in the CLI.
      const host = editorHost(context, progress, abort.signal, dirname(file), () => 'plan');
      outputChannel().appendLine(`${new Date().toISOString()} pipeline ${file}`);
      await runPipeline(pipeline, host, (_, report) => showReport(report));
    });
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(target), DIALOGUE_EDITOR_VIEW_TYPE);
    return;
  }
  const plan = validatePlan(value, file);
  if (!isFileJobPlan(plan)) throw new Error(`${file}: an ${plan.job} plan creates a file; put it first in a pipeline ({"file": …, "steps": [ … ]})`);
  const document = activeDialogue(editors);
  if (!document) return;
  await runPlanInEditor(context, document, plan, `${plan.job} (${file})`, { baseDir: dirname(file), endpointSource: 'plan' });
}
