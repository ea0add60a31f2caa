/**
 * ReflectEval: Import Dataset (CSV/JSONL)… — a short wizard over the generic importer (docs/importing.md): pick
 * the file, pick a column for each role from its header (guessed defaults first, with sample values), look at a
 * preview of the first items in a read-only document, then run the import job (src/core/jobs/importData.ts) with the
 * mapping to write the dialogue file, and open it.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { importedDialogueFile } from '../../core/dialogue/siblingFile';
import { DatasetImportError, guessDatasetMapping, importDataset, MappingError, type Dataset, type DatasetMapping } from '../../core/datasets';
import { columnChoices, guessedLabelsSummary, mappingFromAnswers, previewDocument, type WizardAnswers } from '../../core/datasets/importWizard';
import { DIALOGUE_EDITOR_VIEW_TYPE } from '../dialogueEditor';
import { runPlanCreatingFile } from '../host';

/** URI scheme of the read-only preview documents. */
export const PREVIEW_SCHEME = 'reflect-eval-import-preview';

const previews = new Map<string, string>();
const changed = new vscode.EventEmitter<vscode.Uri>();
let registered: vscode.Disposable | undefined;

/** Shows `text` as a read-only document (a virtual document of {@link PREVIEW_SCHEME}). */
async function showPreview(context: vscode.ExtensionContext, name: string, text: string): Promise<void> {
  if (!registered) {
    registered = vscode.workspace.registerTextDocumentContentProvider(PREVIEW_SCHEME, { onDidChange: changed.event, provideTextDocumentContent: (uri) => previews.get(uri.path) ?? '' });
    context.subscriptions.push(registered, changed);
  }
  const uri = vscode.Uri.from({ scheme: PREVIEW_SCHEME, path: `/${name} (preview).txt` });
  previews.set(uri.path, text);
  changed.fire(uri);
  await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(uri), { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

type Pick = vscode.QuickPickItem & { column?: string };

/** A quick pick of the columns for one role; `optional` adds a "(none)" entry. Undefined when cancelled. */
async function pickColumn(data: Dataset, title: string, guessed: string | undefined, options: { optional?: string; exclude?: string[] } = {}): Promise<string | null | undefined> {
  const items: Pick[] = columnChoices(data, guessed, options.exclude).map((c) => ({ label: c.column, description: c.guessed ? 'guessed from its name' : undefined, detail: c.samples.length ? `e.g. ${c.samples.join(' · ')}` : '(empty in the first rows)', column: c.column }));
  if (options.optional) {
    const none: Pick = { label: '(none)', description: options.optional };
    if (guessed) items.push(none);
    else items.unshift(none);
  }
  const picked = await vscode.window.showQuickPick(items, { title: `Import dataset: ${title}`, matchOnDetail: true, ignoreFocusOut: true });
  if (!picked) return undefined;
  return picked.column ?? null;
}

/** Multi-select of columns (preselected: `preselect`). Undefined when cancelled. */
async function pickColumns(data: Dataset, title: string, preselect: readonly string[], exclude: readonly string[] = []): Promise<string[] | undefined> {
  const items: Pick[] = columnChoices(data, undefined, exclude).map((c) => ({ label: c.column, detail: c.samples.length ? `e.g. ${c.samples.join(' · ')}` : undefined, picked: preselect.includes(c.column), column: c.column }));
  const picked = await vscode.window.showQuickPick(items, { title: `Import dataset: ${title}`, canPickMany: true, ignoreFocusOut: true });
  return picked?.map((p) => p.column as string);
}

/** `items` with the one whose value is `first` moved to the front (the guessed answer). */
function guessedFirst<T>(items: (vscode.QuickPickItem & { value: T })[], first: T): (vscode.QuickPickItem & { value: T })[] {
  return [...items.filter((i) => i.value === first), ...items.filter((i) => i.value !== first)];
}

async function choose<T>(title: string, items: (vscode.QuickPickItem & { value: T })[]): Promise<T | undefined> {
  return (await vscode.window.showQuickPick(items, { title: `Import dataset: ${title}`, ignoreFocusOut: true }))?.value;
}

/** Asks the wizard's questions; undefined when the user cancels. */
async function ask(data: Dataset, file: string, guessed: DatasetMapping): Promise<DatasetMapping | undefined> {
  const g = guessed;
  const layout = await choose<'json' | 'text' | 'rows'>('how is the dialogue context given?', guessedFirst([
    { label: 'A JSON list of turns in one column', description: g.context.layout === 'json' ? 'guessed' : undefined, detail: 'each response row carries its context, e.g. [{"therapist": "…"}, {"client": "…"}]', value: 'json' },
    { label: 'Text in one column, one turn per line', description: g.context.layout === 'text' ? 'guessed' : undefined, detail: g.context.layout === 'text' && g.context.speakerPrefix ? 'each turn starts with its speaker ("User: …")' : 'speakers as guessed, or alternating A (the last turn) and B', value: 'text' },
    { label: 'Speaker/text rows grouped by a dialogue id', description: g.context.layout === 'rows' ? 'guessed' : undefined, detail: 'one row per turn (dialogue id, speaker, text, optional order); response rows have the response column filled', value: 'rows' },
  ], g.context.layout));
  if (!layout) return undefined;
  const used: string[] = [];
  const answers: Partial<WizardAnswers> = { format: data.format, dataset: file };
  if (layout === 'json' || layout === 'text') {
    const column = await pickColumn(data, `the column with the dialogue context (${layout === 'json' ? 'JSON list of turns' : 'text, one turn per line'})`, g.context.layout !== 'rows' ? g.context.column : undefined);
    if (!column) return undefined;
    used.push(column);
    answers.context = layout === 'json' ? { layout, column } : g.context.layout === 'text' ? { ...g.context, column } : { layout, column, alternate: ['A', 'B'] };
  } else {
    const rows = g.context.layout === 'rows' ? g.context : undefined;
    const dialogue = await pickColumn(data, 'the dialogue id column (groups turns into dialogues)', rows?.dialogue);
    if (!dialogue) return undefined;
    const speaker = await pickColumn(data, 'the speaker column', rows?.speaker, { exclude: [dialogue] });
    if (!speaker) return undefined;
    const text = await pickColumn(data, 'the turn text column', rows?.text, { exclude: [dialogue, speaker] });
    if (!text) return undefined;
    const order = await pickColumn(data, 'the turn order column', rows?.order, { optional: 'the turns are in file order', exclude: [dialogue, speaker, text] });
    if (order === undefined) return undefined;
    used.push(dialogue, speaker, text, ...(order ? [order] : []));
    answers.context = { layout: 'rows', dialogue, speaker, text, ...(order ? { order } : {}) };
  }
  const responseText = await pickColumn(data, 'the response column (the reflection to evaluate)', g.response.text, { exclude: used });
  if (!responseText) return undefined;
  used.push(responseText);
  answers.responseText = responseText;
  const source = await pickColumn(data, 'the column saying where a response comes from (model name, Human, …)', g.response.source, { optional: 'no such column', exclude: used });
  if (source === undefined) return undefined;
  if (source) {
    used.push(source);
    answers.source = source;
  } else {
    const name = await vscode.window.showInputBox({ title: 'Import dataset: the source of every response', prompt: 'e.g. the model that wrote them (empty: unknown)', ignoreFocusOut: true });
    if (name === undefined) return undefined;
    if (name.trim()) answers.sourceName = name.trim();
  }
  const refKind = await choose<'none' | 'column' | 'human' | 'source'>('the reference (for BLEU, ROUGE-L, METEOR)', [
    ...(g.reference?.source ? [{ label: `The response from "${g.reference.source}"`, description: 'guessed', value: 'source' as const }] : []),
    ...(g.reference?.column ? [{ label: `The column "${g.reference.column}"`, description: 'guessed', value: 'column' as const }] : []),
    { label: 'The human-written response of each context', detail: 'responses whose source is Human, Therapist, Gold, Reference, …', value: 'human' },
    ...(g.reference?.column ? [] : [{ label: 'A column…', value: 'column' as const }]),
    { label: 'No reference', value: 'none' },
  ]);
  if (!refKind) return undefined;
  if (refKind === 'column') {
    const column = g.reference?.column ?? (await pickColumn(data, 'the reference column', undefined, { exclude: used }));
    if (!column) return undefined;
    used.push(column);
    answers.reference = { kind: 'column', column };
  } else answers.reference = refKind === 'source' ? { kind: 'source', source: g.reference!.source! } : { kind: refKind };
  const ratings = guessedLabelsSummary(g);
  const labelKind = await choose<'none' | 'long' | 'wide' | 'guessed'>('the human labels', guessedFirst<'none' | 'long' | 'wide' | 'guessed'>([
    ...(ratings ? [{ label: 'Ratings, as guessed', description: 'guessed', detail: `${ratings} (each a rubric dimension named after its column; edit the mapping to change a scale)`, value: 'guessed' as const }] : []),
    { label: 'One row per response and annotator', description: g.labels?.layout === 'long' ? 'guessed' : undefined, detail: 'an annotator column and a coherent (yes/no) column', value: 'long' },
    { label: 'One coherence column per annotator', description: g.labels?.layout === 'wide' ? 'guessed' : undefined, detail: 'e.g. rater_A, rater_B, Expert 1 holding yes/no', value: 'wide' },
    { label: 'No labels yet', value: 'none' },
  ], ratings ? 'guessed' : g.labels?.layout === 'lists' ? 'none' : (g.labels?.layout ?? 'none')));
  if (!labelKind) return undefined;
  if (labelKind === 'long') {
    const gl = g.labels?.layout === 'long' ? g.labels : undefined;
    const annotator = await pickColumn(data, 'the annotator column', gl?.annotator, { exclude: used });
    if (!annotator) return undefined;
    const coherent = await pickColumn(data, 'the coherence column (yes/no)', gl?.coherent, { exclude: [...used, annotator] });
    if (!coherent) return undefined;
    answers.labels = { kind: 'long', annotator, coherent };
  } else if (labelKind === 'wide') {
    const columns = await pickColumns(data, 'the annotators\' coherence columns (the column name is the annotator id; names starting with "Expert" are experts)', g.labels?.layout === 'wide' && Array.isArray(g.labels.coherent) ? g.labels.coherent : [], used);
    if (!columns?.length) return undefined;
    answers.labels = { kind: 'wide', columns };
  } else answers.labels = { kind: labelKind === 'guessed' ? 'guessed' : 'none' };
  return mappingFromAnswers(answers as WizardAnswers, guessed);
}

/** Shows every problem of a mapping or a file in a document next to an error message. */
async function showProblems(context: vscode.ExtensionContext, file: string, err: Error, mapping: DatasetMapping): Promise<void> {
  const count = err instanceof MappingError || err instanceof DatasetImportError ? err.problems.length : 1;
  const choice = await vscode.window.showErrorMessage(`ReflectEval: ${count} problem${count === 1 ? '' : 's'} importing ${file}; nothing was imported. ${err.message.split('\n')[count === 1 ? 0 : 1]}`, 'Show All Problems');
  if (choice) await showPreview(context, `${file} problems`, `${err.message}\n\nMapping used:\n${JSON.stringify(mapping, null, 2)}\n`);
}

export async function importDatasetCommand(context: vscode.ExtensionContext): Promise<void> {
  const picked = await vscode.window.showOpenDialog({ title: 'Dataset to import (CSV, JSON or JSONL)', filters: { 'CSV, JSON or JSONL': ['csv', 'tsv', 'txt', 'jsonl', 'ndjson', 'json'] }, canSelectMany: false });
  if (!picked?.[0]) return;
  const uri = picked[0];
  const file = basename(uri.fsPath);
  const text = await readFile(uri.fsPath, 'utf8');
  let guessed: ReturnType<typeof guessDatasetMapping>;
  try {
    guessed = guessDatasetMapping(text, file);
  } catch (err) {
    if (err instanceof DatasetImportError) return showProblems(context, file, err, { context: { layout: 'json', column: '?' }, response: { text: '?' } });
    throw err;
  }
  const mapping = await ask(guessed.data, file, guessed.mapping);
  if (!mapping) return;
  let result;
  try {
    result = importDataset(text, mapping, { file, mappingSource: 'the wizard\'s mapping' });
  } catch (err) {
    if (err instanceof MappingError || err instanceof DatasetImportError) return showProblems(context, file, err, mapping);
    throw err;
  }
  await showPreview(context, file, previewDocument(result, file));
  const go = await vscode.window.showInformationMessage(`${file}: ${result.items.length} contexts read (preview beside). Write the dialogue file?`, 'Write Dialogue File…', 'Cancel');
  if (go !== 'Write Dialogue File…') return;
  const target = await vscode.window.showSaveDialog({
    title: 'Save dialogue file',
    defaultUri: vscode.Uri.joinPath(uri, '..', importedDialogueFile(file)),
    filters: { 'Dialogue JSONL': ['jsonl'] },
  });
  if (!target) return;
  // The preview read the file with this mapping; the import job reads it again and writes the dialogue file, as
  // `reflect-eval import generic --mapping` does.
  const { validatePlan } = await import('../../core/jobs/plans');
  const plan = validatePlan({ job: 'import', format: 'generic', file: uri.fsPath, mapping }, 'the wizard');
  const report = await runPlanCreatingFile(context, plan, target, `importing ${file}`);
  if (!report.nothingDone) await vscode.commands.executeCommand('vscode.openWith', target, DIALOGUE_EDITOR_VIEW_TYPE);
}
