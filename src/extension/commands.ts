/**
 * ReflectEval's commands: thin glue from VS Code UI to the core.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import * as vscode from 'vscode';
import { importAnnoMI, parseAnnoMI } from '../core/annomi/annomi';
import { documentItems, formatItems } from '../core/format/jsonl';
import { mergeNewCandidates, mergeScores } from '../core/model/merge';
import type { DialogueItem } from '../core/model/types';
import type { Judge } from '../core/judges/judge';
import { DIALOGUE_EDITOR_VIEW_TYPE, parseTextDocument, updateItems, type DialogueEditorProvider } from './dialogueEditor';
import { CorrelationPanel } from './correlationPanel';
import { promptAnnotator } from './settings';

const SECRET_KEY = 'reflectEval.judge.apiKey';

function config() {
  return vscode.workspace.getConfiguration('reflectEval');
}

function requireTrust(what: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showWarningMessage(`ReflectEval does not ${what} in an untrusted workspace. Trust the workspace to run models and judges.`);
  return false;
}

function activeDialogue(editors: DialogueEditorProvider): vscode.TextDocument | undefined {
  const doc = editors.activeDocument;
  if (!doc) void vscode.window.showInformationMessage('Open a dialogue file (*.dialogues.jsonl) in the ReflectEval editor first.');
  return doc;
}

/** Loads the model a setting names, or the bundled one (named `bundled:reflect-gpt2-tiny` in outputs). */
async function loadConfiguredModel(context: vscode.ExtensionContext, setting: string, progress: vscode.Progress<{ message?: string }>) {
  const { OnnxCausalLM } = await import('../core/models/causalLM');
  const configured = config().get<string>(setting)?.trim();
  progress.report({ message: `loading ${configured || 'the bundled model'}` });
  if (configured) return OnnxCausalLM.load(configured);
  return OnnxCausalLM.load(vscode.Uri.joinPath(context.extensionUri, 'fixtures', 'models', 'reflect-gpt2-tiny').fsPath, { id: 'bundled:reflect-gpt2-tiny' });
}

async function importAnnoMICommand(): Promise<void> {
  const picked = await vscode.window.showOpenDialog({ title: 'AnnoMI CSV (AnnoMI-simple.csv or AnnoMI-full.csv)', filters: { CSV: ['csv'] }, canSelectMany: false });
  if (!picked?.[0]) return;
  const csv = picked[0];
  const sampleText = await vscode.window.showInputBox({
    title: 'Import AnnoMI reflections',
    prompt: 'Number of contexts to sample, at most one per dialogue (empty: every reflection of high-quality dialogues)',
    value: '15',
    validateInput: (v) => (v.trim() === '' || /^[1-9]\d*$/.test(v.trim()) ? undefined : 'a positive whole number, or empty'),
  });
  if (sampleText === undefined) return;
  const seed = sampleText.trim() ? await vscode.window.showInputBox({ title: 'Sampling seed', value: '0' }) : '0';
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

async function generateCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  if (!requireTrust('run models')) return;
  const document = activeDialogue(editors);
  if (!document) return;
  const maxNewTokens = config().get<number>('generator.maxNewTokens') ?? 128;
  const snapshot = documentItems(parseTextDocument(document));
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'ReflectEval: generating greedy candidates', cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      const { generateCandidates } = await import('../core/generation/generate');
      const model = await loadConfiguredModel(context, 'generator.model', progress);
      let done = 0;
      try {
        const computed = await generateCandidates(model, snapshot, { strategy: 'greedy', maxNewTokens }, {
          signal: abort.signal,
          onProgress: (p) => {
            progress.report({
              increment: ((p.itemsDone - done) / p.itemsTotal) * 100,
              message: `${p.itemsDone}/${p.itemsTotal} contexts · ${((p.tokensGenerated / Math.max(p.elapsedMs, 1)) * 1000).toFixed(1)} tokens/s`,
            });
            done = p.itemsDone;
          },
        });
        const byId = new Map(snapshot.map((s, i) => [s.id, { snapshot: s, computed: computed[i] }]));
        const n = await updateItems(document, (current) => {
          const m = byId.get(current.id);
          return m ? mergeNewCandidates(current, m.snapshot, m.computed) : undefined;
        });
        void vscode.window.showInformationMessage(`ReflectEval: added candidates to ${n} item(s)${abort.signal.aborted ? ' (cancelled; finished contexts kept)' : ''}.`);
      } finally {
        await model.dispose();
      }
    },
  );
}

async function judgeCommand(context: vscode.ExtensionContext, editors: DialogueEditorProvider): Promise<void> {
  if (!requireTrust('run judges')) return;
  const document = activeDialogue(editors);
  if (!document) return;
  const backend = config().get<string>('judge.backend') ?? 'local';
  const body = config().get<string>('judge.body') ?? 'instructions';
  const request = config().get<string>('judge.request') ?? 'rating';
  const snapshot: DialogueItem[] = documentItems(parseTextDocument(document));
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `ReflectEval: judging (${backend}, ${body} × ${request})`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      token.onCancellationRequested(() => abort.abort());
      const { runJudge } = await import('../core/judges/judge');
      const { loadPromptLibrary } = await import('../core/judges/prompts');
      const roots = [vscode.Uri.joinPath(context.extensionUri, 'prompts').fsPath];
      const custom = config().get<string>('promptsPath')?.trim();
      if (custom) roots.push(custom);
      else if (vscode.workspace.workspaceFolders?.[0]) roots.push(vscode.Uri.joinPath(vscode.workspace.workspaceFolders[0].uri, 'prompts').fsPath);
      const lib = loadPromptLibrary(...roots);
      let dispose: () => Promise<void> = async () => {};
      let judge: Judge;
      if (backend === 'openai') {
        const apiKey = await context.secrets.get(SECRET_KEY);
        if (!apiKey) {
          void vscode.window.showWarningMessage('ReflectEval: no API key stored. Run "ReflectEval: Set Judge API Key" first.');
          return;
        }
        const { openAIChatJudge } = await import('../core/judges/openaiJudge');
        const model = config().get<string>('judge.model')?.trim();
        if (!model) {
          void vscode.window.showWarningMessage('ReflectEval: set reflectEval.judge.model to the judge model name.');
          return;
        }
        judge = openAIChatJudge({ baseURL: config().get<string>('judge.baseURL') ?? 'https://api.openai.com/v1', model, apiKey });
      } else {
        const { localOnnxJudge } = await import('../core/judges/localJudge');
        const model = await loadConfiguredModel(context, 'judge.localModel', progress);
        judge = localOnnxJudge(model);
        dispose = () => model.dispose();
      }
      // Replies are cached per backend and prompt (never keyed by the API key) in the extension's storage.
      const { cachedJudge, JudgeCache } = await import('../core/judges/cache');
      const backendKey =
        backend === 'openai'
          ? { kind: 'openai-chat', baseURL: config().get<string>('judge.baseURL'), model: config().get<string>('judge.model'), temperature: 0 }
          : { kind: 'local-onnx', model: judge.id };
      judge = cachedJudge(judge, new JudgeCache(vscode.Uri.joinPath(context.globalStorageUri, 'judge-cache.jsonl').fsPath), backendKey);
      try {
        let last = 0;
        const res = await runJudge(snapshot, judge, lib, { body, request }, {
          concurrency: 4,
          signal: abort.signal,
          onProgress: (p) => {
            progress.report({ increment: ((p.done - last) / Math.max(p.total, 1)) * 100, message: `${p.done}/${p.total} candidates (${p.failures} without a usable score)` });
            last = p.done;
          },
        });
        const byId = new Map(res.items.map((it) => [it.id, it]));
        const n = await updateItems(document, (current) => {
          const computed = byId.get(current.id);
          return computed ? mergeScores(current, computed, res.evaluatorId) : undefined;
        });
        void vscode.window.showInformationMessage(`ReflectEval: ${res.calls} judgements under ${res.evaluatorId}; ${n} item(s) updated.`);
      } finally {
        await dispose();
      }
    },
  );
}

async function setApiKeyCommand(context: vscode.ExtensionContext): Promise<void> {
  const key = await vscode.window.showInputBox({ title: 'Judge API key', prompt: 'Stored in VS Code SecretStorage; never written to settings or files.', password: true, ignoreFocusOut: true });
  if (key === undefined) return;
  if (key.trim() === '') await context.secrets.delete(SECRET_KEY);
  else await context.secrets.store(SECRET_KEY, key.trim());
  void vscode.window.showInformationMessage(key.trim() ? 'ReflectEval: API key stored.' : 'ReflectEval: API key removed.');
}

/** Registers every command. */
export function registerCommands(context: vscode.ExtensionContext, editors: DialogueEditorProvider): vscode.Disposable[] {
  const wrap = (fn: () => Promise<void>) => async () => {
    try {
      await fn();
    } catch (err) {
      void vscode.window.showErrorMessage(`ReflectEval: ${(err as Error).message}`);
    }
  };
  return [
    vscode.commands.registerCommand('reflectEval.importAnnoMI', wrap(importAnnoMICommand)),
    vscode.commands.registerCommand('reflectEval.generate', wrap(() => generateCommand(context, editors))),
    vscode.commands.registerCommand('reflectEval.judge', wrap(() => judgeCommand(context, editors))),
    vscode.commands.registerCommand('reflectEval.showCorrelation', wrap(async () => CorrelationPanel.show(context, editors))),
    vscode.commands.registerCommand('reflectEval.setAnnotator', wrap(async () => void (await promptAnnotator()))),
    vscode.commands.registerCommand('reflectEval.setApiKey', wrap(() => setApiKeyCommand(context))),
  ];
}
