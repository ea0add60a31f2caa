/**
 * The dialogue editor: a CustomTextEditorProvider over `*.dialogues.jsonl`. The TextDocument is the single
 * source of truth; every change is a WorkspaceEdit on it (undo/redo, dirty state, save and hot exit then
 * behave as in any editor), and any change to the document — ours, undo, or an external edit — re-renders.
 */
import * as vscode from 'vscode';
import { setCoherence } from '../core/labels/annotate';
import { documentItems, parseDocument, type DialogueDocument } from '../core/format/jsonl';
import type { DialogueItem } from '../core/model/types';
import type { EditorHostMessage, EditorWebviewMessage, ItemEntry } from '../../webview/editor/protocol';
import { getAnnotator } from './settings';
import { webviewPage } from './webviewHtml';

export const DIALOGUE_EDITOR_VIEW_TYPE = 'reflectEval.dialogueEditor';

/** Parsed documents cached by version, so the editor, panel and commands parse each version once. */
const parsed = new WeakMap<vscode.TextDocument, { version: number; doc: DialogueDocument }>();

/** The parsed form of a dialogue TextDocument (cached per document version). */
export function parseTextDocument(document: vscode.TextDocument): DialogueDocument {
  const hit = parsed.get(document);
  if (hit && hit.version === document.version) return hit.doc;
  const doc = parseDocument(document.getText(), vscode.workspace.asRelativePath(document.uri), hit?.doc);
  parsed.set(document, { version: document.version, doc });
  return doc;
}

/**
 * Replaces items of `document` (matched by id) with the result of `update`, as one WorkspaceEdit that
 * touches only the lines of items that changed. Items whose id no longer exists are skipped.
 *
 * @returns number of lines changed
 */
export async function updateItems(document: vscode.TextDocument, update: (item: DialogueItem) => DialogueItem | undefined): Promise<number> {
  const doc = parseTextDocument(document);
  const edit = new vscode.WorkspaceEdit();
  let n = 0;
  for (const line of doc.itemLines) {
    const entry = doc.lines[line];
    if (entry.kind !== 'item') continue;
    const next = update(entry.item);
    if (!next) continue;
    const text = JSON.stringify(next);
    if (text === entry.raw.text) continue;
    const current = document.lineAt(line).text;
    if (current !== entry.raw.text.replace(/^\uFEFF/, '')) throw new Error(`line ${line + 1} of ${document.uri.fsPath} is not where ReflectEval expected it; nothing was changed`);
    edit.replace(document.uri, new vscode.Range(line, 0, line, current.length), text);
    n++;
  }
  if (n > 0 && !(await vscode.workspace.applyEdit(edit))) throw new Error(`could not edit ${document.uri.fsPath}`);
  return n;
}

function entryOf(item: DialogueItem, index: number, annotator: string | null): ItemEntry {
  const p = item.provenance;
  const label = p?.transcriptId !== undefined ? `${p.topic ?? p.dataset} · t${p.transcriptId}/u${p.utteranceId ?? '?'}` : item.id;
  return {
    index,
    id: item.id,
    label,
    candidates: item.candidates.length,
    labelled: annotator ? item.candidates.filter((c) => c.annotations.some((a) => a.annotator === annotator && typeof a.coherent === 'boolean')).length : 0,
  };
}

/** The item (and candidate) last selected in a dialogue editor. */
export interface DialogueSelection {
  document: vscode.TextDocument;
  itemIndex: number;
  candidateId: string | null;
}

/** Provider of the dialogue editor. Tracks the dialogue document last active, and its selection, for commands. */
export class DialogueEditorProvider implements vscode.CustomTextEditorProvider {
  private active: vscode.TextDocument | undefined;
  private readonly onDidChangeActiveEmitter = new vscode.EventEmitter<vscode.TextDocument | undefined>();
  /** Fires when another dialogue document becomes the active one. */
  readonly onDidChangeActive = this.onDidChangeActiveEmitter.event;
  private selectionState: DialogueSelection | undefined;
  private readonly onDidChangeSelectionEmitter = new vscode.EventEmitter<DialogueSelection | undefined>();
  /** Fires when the selected item or candidate changes. */
  readonly onDidChangeSelection = this.onDidChangeSelectionEmitter.event;

  /** The last selection in an open dialogue editor. */
  get selection(): DialogueSelection | undefined {
    return this.selectionState && !this.selectionState.document.isClosed ? this.selectionState : undefined;
  }

  private select(selection: DialogueSelection): void {
    this.selectionState = selection;
    this.onDidChangeSelectionEmitter.fire(selection);
  }

  constructor(private readonly context: vscode.ExtensionContext) {}

  /** The dialogue document whose editor was last active, if still open. */
  get activeDocument(): vscode.TextDocument | undefined {
    return this.active && !this.active.isClosed ? this.active : undefined;
  }

  async resolveCustomTextEditor(document: vscode.TextDocument, panel: vscode.WebviewPanel): Promise<void> {
    const webview = panel.webview;
    webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(this.context.extensionUri, 'dist'), vscode.Uri.joinPath(this.context.extensionUri, 'media')] };
    webview.html = webviewPage(webview, this.context.extensionUri, {
      title: 'ReflectEval',
      script: 'editor',
      style: 'editor',
      body: `<div id="toolbar">
  <span id="file"></span><span id="busy" class="muted"></span><span class="spacer"></span>
  <span id="annotator" class="muted"></span>
  <vscode-button id="cmd-annotator" secondary>Annotator…</vscode-button>
  <vscode-button id="cmd-generate" secondary>Generate</vscode-button>
  <vscode-button id="cmd-judge" secondary>Judge</vscode-button>
  <vscode-button id="cmd-correlation">Correlations</vscode-button>
</div>
<div id="problems" hidden></div>
<div id="layout">
  <div id="item-list" role="listbox" aria-label="Items"><div id="item-list-spacer"></div><div id="item-list-rows"></div></div>
  <div id="item"></div>
</div>`,
    });
    let selected = 0;
    const send = (msg: EditorHostMessage) => void webview.postMessage(msg);
    const sendIndex = () => {
      const doc = parseTextDocument(document);
      const annotator = getAnnotator();
      send({
        type: 'index',
        file: vscode.workspace.asRelativePath(document.uri),
        entries: documentItems(doc).map((it, i) => entryOf(it, i, annotator)),
        problems: doc.problems.map((p) => ({ line: p.line, field: p.field, message: p.message })),
        annotator,
      });
    };
    const sendItem = (index: number) => {
      const items = documentItems(parseTextDocument(document));
      const item = items[index];
      if (item) send({ type: 'item', index, item });
    };

    const subscriptions = [
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.toString() === document.uri.toString() && e.contentChanges.length > 0) sendIndex();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('reflectEval.annotator')) sendIndex();
      }),
      panel.onDidChangeViewState(() => {
        if (panel.active) this.setActive(document);
      }),
      webview.onDidReceiveMessage(async (msg: EditorWebviewMessage) => {
        try {
          switch (msg.type) {
            case 'ready':
              sendIndex();
              break;
            case 'select':
              selected = msg.index;
              sendItem(selected);
              this.select({ document, itemIndex: selected, candidateId: null });
              break;
            case 'focusCandidate':
              this.select({ document, itemIndex: msg.index, candidateId: msg.candidateId });
              break;
            case 'setCoherence': {
              const annotator = getAnnotator();
              if (!annotator) {
                await vscode.commands.executeCommand('reflectEval.setAnnotator');
                break;
              }
              await updateItems(document, (item) =>
                item.id === msg.itemId ? setCoherence(item, msg.candidateId, annotator, msg.coherent ?? undefined) : undefined,
              );
              break;
            }
            case 'command': {
              this.setActive(document);
              await vscode.commands.executeCommand(`reflectEval.${msg.command}`);
              break;
            }
          }
        } catch (err) {
          void vscode.window.showErrorMessage(`ReflectEval: ${(err as Error).message}`);
        }
      }),
    ];
    panel.onDidDispose(() => {
      subscriptions.forEach((s) => s.dispose());
      if (this.active === document) this.setActive(undefined);
    });
    this.setActive(document);
  }

  private setActive(document: vscode.TextDocument | undefined): void {
    if (this.active === document) return;
    this.active = document;
    this.onDidChangeActiveEmitter.fire(document);
  }
}
