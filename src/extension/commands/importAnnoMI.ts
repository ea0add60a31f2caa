/**
 * ReflectEval: Import AnnoMI CSV…
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { importAnnoMI, parseAnnoMI } from '../../core/datasets/annomi';
import { formatItems } from '../../core/format/jsonl';
import { DIALOGUE_EDITOR_VIEW_TYPE } from '../dialogueEditor';

export async function importAnnoMICommand(): Promise<void> {
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
    defaultUri: vscode.Uri.joinPath(csv, '..', `${basename(csv.fsPath, '.csv')}.dialogues.jsonl`),
    filters: { 'Dialogue JSONL': ['jsonl'] },
  });
  if (!target) return;
  const dialogues = parseAnnoMI(await readFile(csv.fsPath, 'utf8'), basename(csv.fsPath));
  const items = importAnnoMI(dialogues, { sample: sampleText.trim() ? Number(sampleText) : undefined, seed, sourceFile: basename(csv.fsPath) });
  await vscode.workspace.fs.writeFile(target, Buffer.from(formatItems(items), 'utf8'));
  await vscode.commands.executeCommand('vscode.openWith', target, DIALOGUE_EDITOR_VIEW_TYPE);
  void vscode.window.showInformationMessage(`Imported ${items.length} AnnoMI contexts.`);
}
