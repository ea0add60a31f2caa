/**
 * Live prompt preview: while a judge template (`prompts/{bodies,requests,parts}/*.mustache`) is open, a panel
 * beside it shows the exact prompt it assembles for the candidate selected in the dialogue editor, from the
 * template's current (unsaved) text, with the prompt's token count for the configured judge. A variant clicked in the
 * prompt search leaderboard (src/extension/searchPanel.ts) is shown the same way, assembled from the report's
 * synthesized templates and the prompt folders.
 */
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import { documentItems } from '../core/format/jsonl';
import type { PreviewProtocol, PreviewView } from '../../webview/preview/protocol';
import type { DialogueEditorProvider } from './dialogueEditor';
import { onDidChangeDialogue, openDialogueDocuments, parseDialogue } from './dialogueDocument';
import { readDialogueFile } from '../core/format/files';
import { promptRoots, workspaceDir } from './commands/common';
import type { SearchVariantRef } from './searchPanel';
import { openPanel } from './panels';
import type { HostChannel } from './webviewChannel';

const TEMPLATE_KINDS = ['bodies', 'requests', 'parts'] as const;

/** `{kind, name, root}` when `doc` is a prompt template, else undefined. */
function templateOf(doc: vscode.TextDocument): { kind: (typeof TEMPLATE_KINDS)[number]; name: string; root: string } | undefined {
  const file = doc.uri.fsPath;
  if (!file.endsWith('.mustache')) return undefined;
  const kind = basename(dirname(file)) as (typeof TEMPLATE_KINDS)[number];
  if (!TEMPLATE_KINDS.includes(kind)) return undefined;
  return { kind, name: basename(file, '.mustache'), root: dirname(dirname(file)) };
}

export class PromptPreviewPanel {
  private panel: { panel: vscode.WebviewPanel; channel: HostChannel<PreviewProtocol> } | undefined;
  private template: vscode.TextDocument | undefined;
  /** A prompt search variant on screen instead of a template (from the leaderboard). */
  private search: SearchVariantRef | undefined;
  private readonly tokenizers = new Map<string, Promise<{ encode(t: string): number[] }>>();
  private generation = 0;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly editors: DialogueEditorProvider,
  ) {
    context.subscriptions.push(
      vscode.window.onDidChangeActiveTextEditor((e) => {
        if (e && templateOf(e.document)) this.show(e.document);
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (this.panel && e.document === this.template) void this.update();
      }),
      onDidChangeDialogue((e) => {
        if (this.panel && e.document === this.editors.selection?.document) void this.update();
      }),
      editors.onDidChangeSelection(() => this.panel && void this.update()),
      vscode.workspace.onDidChangeConfiguration((e) => e.affectsConfiguration('reflectEval') && this.panel && void this.update()),
    );
  }

  /** Opens (or reveals) the panel for `doc`, or for the active template editor. */
  show(doc?: vscode.TextDocument): void {
    const target = doc ?? vscode.window.activeTextEditor?.document;
    if (!target || !templateOf(target)) {
      void vscode.window.showInformationMessage('Open a judge template (prompts/bodies, requests or parts/*.mustache) to preview its prompt.');
      return;
    }
    this.template = target;
    this.search = undefined;
    this.open();
  }

  /** Opens (or reveals) the panel on a prompt search variant: its assembled prompt for the selected candidate. */
  showSearchVariant(ref: SearchVariantRef): void {
    this.template = undefined;
    this.search = ref;
    this.open();
  }

  private open(): void {
    if (!this.panel) {
      const opened = openPanel<PreviewProtocol>(this.context.extensionUri, 'reflectEval.promptPreview', {
        title: 'ReflectEval: Prompt Preview',
        script: 'preview',
        style: 'preview',
        body: '<div id="header"></div><ul id="warnings" role="status" hidden></ul><div id="error" hidden></div><pre id="prompt"></pre>',
      });
      opened.channel.on('ready', () => void this.update());
      opened.panel.onDidDispose(() => (this.panel = undefined));
      this.panel = opened;
    } else {
      this.panel.panel.reveal(vscode.ViewColumn.Beside, true);
      void this.update();
    }
  }

  /** The tokenizer of a local judge model (any reference the registry resolves), loaded once per reference. */
  private tokenizerFor(ref: string, baseDir: string) {
    const key = `${baseDir}\u0000${ref}`;
    let t = this.tokenizers.get(key);
    if (!t) {
      const bundledDir = vscode.Uri.joinPath(this.context.extensionUri, 'fixtures', 'models').fsPath;
      t = import('../core/models/registry').then((m) => m.loadModelTokenizer(ref, { bundledDir, baseDir }));
      t.catch(() => this.tokenizers.delete(key));
      this.tokenizers.set(key, t);
    }
    return t;
  }


  /** The search variant's prompt: the report's synthesized templates over the prompt folders, for the selected candidate. */
  private async updateSearch(channel: HostChannel<PreviewProtocol>, ref: SearchVariantRef, run: number): Promise<void> {
    const msg: PreviewView = { template: `prompt search: ${vscode.workspace.asRelativePath(ref.reportFile)}`, variant: { body: '?', request: '?' }, candidate: null, prompt: null, tokens: null, error: null, warnings: [] };
    try {
      const { readSearchReport, searchVariantLibrary } = await import('../core/judges/searchReport');
      const { loadPromptLibrary, assemblePrompt } = await import('../core/templates/judgePrompt');
      const report = readSearchReport(ref.reportFile);
      const entry = report.entries[ref.index];
      if (!entry) throw new Error(`${ref.reportFile}: no entry ${ref.index}`);
      msg.variant = { body: entry.body, request: entry.request };
      msg.template = `prompt search: ${vscode.workspace.asRelativePath(ref.reportFile)} · ${entry.judge}`;
      const { lib, hashMatches, hash } = searchVariantLibrary(loadPromptLibrary(...promptRoots(this.context)), report, entry);
      if (!hashMatches) msg.warnings.push(`The templates changed since the search: this prompt's template hash is ${hash}, the search judged ${entry.templateHash}.`);
      const sel = this.editors.selection;
      let item = sel ? documentItems(parseDialogue(sel.document))[sel.itemIndex] : undefined;
      let where = sel ? vscode.workspace.asRelativePath(sel.document.uri) : '';
      if (!item && ref.dialogueFile) {
        // The file as open in a dialogue editor (unsaved labels and all), else as on disk.
        const open = [...openDialogueDocuments].find((d) => d.uri.fsPath === ref.dialogueFile);
        item = documentItems(open ? parseDialogue(open) : readDialogueFile(ref.dialogueFile)).find((it) => it.candidates.length > 0);
        where = vscode.workspace.asRelativePath(ref.dialogueFile);
      }
      const candidate = item ? (item.candidates.find((c) => c.id === sel?.candidateId) ?? item.candidates[0]) : undefined;
      if (!item || !candidate) msg.error = 'Select an item with a candidate in a ReflectEval dialogue editor to see its prompt.';
      else {
        msg.candidate = `${where} · ${item.id} · ${candidate.id}`;
        msg.prompt = assemblePrompt(lib, msg.variant, item.context, candidate.text).text;
      }
    } catch (err) {
      msg.error = (err as Error).message;
    }
    if (run === this.generation) channel.notify('preview', msg);
  }

  private async update(): Promise<void> {
    const channel = this.panel?.channel;
    if (channel && this.search) return this.updateSearch(channel, this.search, ++this.generation);
    const doc = this.template;
    const tpl = doc && templateOf(doc);
    if (!channel || !doc || !tpl) return;
    const run = ++this.generation;
    const config = vscode.workspace.getConfiguration('reflectEval');
    const variant = {
      body: tpl.kind === 'bodies' ? tpl.name : (config.get<string>('judge.body') ?? 'instructions'),
      request: tpl.kind === 'requests' ? tpl.name : (config.get<string>('judge.request') ?? 'rating'),
    };
    const msg: PreviewView = { template: vscode.workspace.asRelativePath(doc.uri), variant, candidate: null, prompt: null, tokens: null, error: null, warnings: [] };
    try {
      const { loadPromptLibrary, assemblePrompt, variantIndentWarnings } = await import('../core/templates/judgePrompt');
      const roots = [vscode.Uri.joinPath(this.context.extensionUri, 'prompts').fsPath];
      if (tpl.root !== roots[0]) roots.push(tpl.root);
      const lib = loadPromptLibrary(...roots);
      // The template's unsaved text wins over what is on disk.
      const live = { file: doc.uri.fsPath, source: doc.getText() };
      if (tpl.kind === 'requests') {
        const existing = lib.requests[tpl.name];
        if (!existing) throw new Error(`request "${tpl.name}" needs a ${tpl.name}.json with its range beside the template`);
        lib.requests[tpl.name] = { ...existing, ...live };
      } else {
        lib[tpl.kind][tpl.name] = live;
      }
      msg.warnings = variantIndentWarnings(lib, variant).map((w) => w.message);
      const sel = this.editors.selection;
      const item = sel ? documentItems(parseDialogue(sel.document))[sel.itemIndex] : undefined;
      const candidate = item ? (item.candidates.find((c) => c.id === sel?.candidateId) ?? item.candidates[0]) : undefined;
      if (!sel || !item || !candidate) {
        msg.error = 'Select an item with a candidate in a ReflectEval dialogue editor to see its prompt.';
      } else {
        msg.candidate = `${vscode.workspace.asRelativePath(sel.document.uri)} · ${item.id} · ${candidate.id}`;
        const prompt = assemblePrompt(lib, variant, item.context, candidate.text);
        msg.prompt = prompt.text;
        if ((config.get<string>('judge.backend') ?? 'local') === 'openai') {
          const model = config.get<string>('judge.model')?.trim() || 'gpt-4o-mini';
          const { countApiTokens } = await import('../core/judges/tokenCount');
          const c = await countApiTokens(model, prompt.text);
          msg.tokens = { count: c.tokens, tokenizer: c.tokenizer, approximate: c.approximate, judge: `api:${model}` };
        } else {
          const ref = config.get<string>('judge.localModel')?.trim() || 'bundled:reflect-gpt2-tiny';
          const tok = await this.tokenizerFor(ref, workspaceDir(sel.document));
          msg.tokens = { count: tok.encode(prompt.text).length, tokenizer: 'the local model’s', approximate: false, judge: `local:${ref}` };
        }
      }
    } catch (err) {
      msg.error = (err as Error).message;
    }
    if (run === this.generation) channel.notify('preview', msg);
  }
}
