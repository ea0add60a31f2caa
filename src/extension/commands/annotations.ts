/**
 * ReflectEval: Import Annotation Table (CSV)… and ReflectEval: Export Annotation Table (CSV)… — long tables in
 * the layout of the Wu et al. ACL 2023 release (docs/annotations.md).
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { exportAnnotationTable } from '../../core/datasets/annotationExport';
import { AnnotationTableError, DEFAULT_EXPERT_PREFIX, DEFAULT_HUMAN_SOURCES } from '../../core/datasets/annotationColumns';
import { documentItems, parseDocument } from '../../core/format/jsonl';
import { importedDialogueFile, siblingFile } from '../../core/dialogue/siblingFile';
import { DIALOGUE_EDITOR_VIEW_TYPE, type DialogueEditorProvider } from '../dialogueEditor';
import { parseDialogue } from '../dialogueDocument';
import { runPlanCreatingFile } from '../host';
import { config } from './common';

function expertPrefix(): string {
  return config().get<string>('annotations.expertPrefix')?.trim() || DEFAULT_EXPERT_PREFIX;
}

/** Shows every problem of a table in an untitled document next to an error message. */
async function showTableProblems(err: AnnotationTableError): Promise<void> {
  const first = `${err.file}: ${err.problems.length} problem${err.problems.length === 1 ? '' : 's'}; nothing was imported.`;
  const choice = await vscode.window.showErrorMessage(`ReflectEval: ${first} ${err.message.split('\n').slice(err.problems.length === 1 ? 0 : 1)[0]}`, 'Show All Problems');
  if (choice) {
    const doc = await vscode.workspace.openTextDocument({ content: `${err.message}\n`, language: 'log' });
    await vscode.window.showTextDocument(doc, { preview: true });
  }
}

/**
 * The picks become an import plan that the core job runs (src/core/jobs/importData.ts), as
 * `reflect-eval import annotations` does; the new dialogue file opens in the ReflectEval editor.
 */
export async function importAnnotationTableCommand(context: vscode.ExtensionContext): Promise<void> {
  const picked = await vscode.window.showOpenDialog({
    title: 'Annotation table (one row per response × annotator, ACL 2023 layout)',
    filters: { CSV: ['csv', 'tsv', 'txt'] },
    canSelectMany: false,
  });
  if (!picked?.[0]) return;
  const csv = picked[0];
  const reference = await vscode.window.showQuickPick(
    [
      { label: 'Keep human responses as candidates only', reference: false },
      { label: 'Also make each context’s human response its reference', description: `sources: ${(config().get<string[]>('annotations.humanSources') ?? DEFAULT_HUMAN_SOURCES).join(', ')}`, reference: true },
    ],
    { ignoreFocusOut: true, title: 'Import annotation table: the human responses' },
  );
  if (!reference) return;
  const target = await vscode.window.showSaveDialog({
    title: 'Save dialogue file',
    defaultUri: vscode.Uri.joinPath(csv, '..', importedDialogueFile(basename(csv.fsPath))),
    filters: { 'Dialogue JSONL': ['jsonl'] },
  });
  if (!target) return;
  const humanSources = config().get<string[]>('annotations.humanSources');
  const { validatePlan } = await import('../../core/jobs/plans');
  const plan = validatePlan({ job: 'import', format: 'annotations', file: csv.fsPath, expertPrefix: expertPrefix(), reference: reference.reference, ...(humanSources?.length ? { humanSources } : {}) }, 'settings (reflectEval.annotations.*) and picks');
  let report;
  try {
    report = await runPlanCreatingFile(context, plan, target, `importing ${basename(csv.fsPath)}`);
  } catch (err) {
    if (err instanceof AnnotationTableError) return showTableProblems(err);
    throw err;
  }
  if (!report.nothingDone) await vscode.commands.executeCommand('vscode.openWith', target, DIALOGUE_EDITOR_VIEW_TYPE);
}

export async function exportAnnotationTableCommand(editors: DialogueEditorProvider): Promise<void> {
  let items;
  let source: vscode.Uri;
  const active = editors.activeDocument;
  if (active) {
    items = documentItems(parseDialogue(active));
    source = active.uri;
  } else {
    const picked = await vscode.window.showOpenDialog({ title: 'Dialogue file to export', filters: { 'Dialogue JSONL': ['jsonl'] }, canSelectMany: false });
    if (!picked?.[0]) return;
    source = picked[0];
    items = documentItems(parseDocument(await readFile(source.fsPath, 'utf8'), basename(source.fsPath)));
  }
  const target = await vscode.window.showSaveDialog({
    title: 'Save annotation table',
    defaultUri: vscode.Uri.joinPath(source, '..', siblingFile(basename(source.fsPath), '.annotations.csv')),
    filters: { CSV: ['csv'] },
  });
  if (!target) return;
  const result = exportAnnotationTable(items, { expertPrefix: expertPrefix() });
  await vscode.workspace.fs.writeFile(target, Buffer.from(result.csv, 'utf8'));
  void vscode.window.showInformationMessage(`Wrote ${result.rows} rows (${result.columns.length} columns) to ${basename(target.fsPath)}.`);
}
