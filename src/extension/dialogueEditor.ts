/**
 * The dialogue editor: a CustomEditorProvider over `*.dialogues.jsonl`. The document (`DialogueFileDocument`, read by
 * ReflectEval, not by VS Code: issue 19 item 3) is the single source of truth; every change is a line edit on it that
 * goes on VS Code's undo stack (undo/redo, dirty state, save, revert and hot exit are this provider's), and any change
 * to the document — ours, undo, a reload after an external edit — re-renders.
 *
 * Labelling: the webview sends one {@link LabelOp} per key press or click; they are applied in the order sent, each
 * as one edit (so each is one undo step). Labelling keys are VS Code keybindings on `reflectEval.label.*`
 * commands (src/core/labels/labelKeys.ts); a command is routed here to the editor whose webview has focus.
 */
import * as vscode from 'vscode';
import { DialogueFileDocument, onDidChangeDialogue, onDidEditDialogue, onDidSaveDialogue } from './dialogueDocument';
import { applyLabelOp, labelStatus, type LabelOp } from '../core/labels/annotate';
import { annotatorView, blindCandidateId, candidateIdOfView, type ItemView } from '../core/labels/annotatorView';
import { documentItems, headerEditFor, parseDocument, parseRawLines, serializeItem, type DialogueDocument } from '../core/format/jsonl';
import { bytesVsCodeKeeps } from '../core/format/vsCodeSafe';
import { changedLinesInPlace, itemIndexOfLine, reparseLines, sameEvaluators, sameOrigins, sameTitleInputs } from '../core/format/lineUpdate';
import { problemLines, withDiskProblems, type ProblemLine } from '../core/format/lineReport';
import { keepProblemLines } from '../core/format/keepProblemLines';
import { decodeUtf8Lossy } from '../core/format/bytes';
import { writeTextAtomic } from '../core/format/files';
import type { DialogueItem, Score } from '../core/dialogue/types';
import { labelOpOfKey, type EditorAction, type LabelAction } from '../core/labels/labelKeys';
import { FOCUS_CONTEXT_KEY } from './labelKeybindings';
import type { EditorHostMessage, EditorWebviewMessage, ItemEntry } from '../../webview/editor/protocol';
import { displayNames, evaluatorSignatures } from '../core/evaluators/evaluatorNames';
import { evaluatorScale, summariseScores, type ScoreGroup, type ScoreScale } from '../core/navigation/scoreSummary';
import { loadPromptLibrary } from '../core/templates/judgePrompt';
import { itemDescription, itemTitleList, type ItemTitleParts } from '../core/dialogue/itemTitle';
import { getAnnotator, getBlindMode } from './settings';
import { BASE_DELAY_MS, ExternalChangeMerger } from './externalChanges';
import { webviewPage } from './panels';
import { candidateMarks, navigatorState, nextUnlabelledTarget, ProgressStatusBar, type ListSettings } from './itemNavigator';
import { labelProgressAfter, type LabelProgress } from '../core/navigation/itemNavigation';
import { traceLabel } from './labelTrace';
import { KeyRoute, type KeyTarget } from './keyRoute';

export const DIALOGUE_EDITOR_VIEW_TYPE = 'reflectEval.dialogueEditor';

/**
 * Parsed documents cached by version, so the editor, panel and commands parse each version once. `pending`: the
 * lines changed in place since `version` (every change event seen since, see {@link trackChanges}), or `'all'`
 * after a structural change; the next parse re-parses only those lines when it can (issue 19 item 3).
 */
const parsed = new WeakMap<DialogueFileDocument, { version: number; doc: DialogueDocument; pending?: Set<number> | 'all'; seen: number }>();
let tracking: vscode.Disposable | undefined;

/**
 * Records, for every cached document, which lines each change event touched (for as long as the extension runs;
 * registered before the first parse, so no event of a cached document is missed).
 */
function trackChanges(): void {
  tracking ??= onDidChangeDialogue((e) => {
    const hit = parsed.get(e.document);
    if (!hit || hit.version === e.document.version) return;
    const lines = changedLinesInPlace(e.contentChanges);
    if (!lines) hit.pending = 'all';
    else if (hit.pending !== 'all') {
      hit.pending ??= new Set();
      for (const l of lines) hit.pending.add(l);
    }
    hit.seen = e.document.version;
  });
}

/**
 * The parsed form of a dialogue document (cached per document version): re-parsed incrementally after label edits,
 * from its lines otherwise (no join and split of the whole text).
 */
export function parseDialogue(document: DialogueFileDocument): DialogueDocument {
  trackChanges();
  const hit = parsed.get(document);
  if (hit && hit.version === document.version) return hit.doc;
  // Lines changed in place since the cached version: re-parse just those (document.lineAt, not the whole text).
  // Only when the tracker has seen the change that made this version (a listener of the same event that runs
  // before it would otherwise miss that event's lines).
  const inPlace = hit && hit.pending instanceof Set && hit.seen === document.version && [...hit.pending].every((l) => l < document.lineCount) ? reparseLines(hit.doc, [...hit.pending].map((line) => ({ line, text: document.lineAt(line).text }))) : undefined;
  const name = vscode.workspace.asRelativePath(document.uri);
  const doc = inPlace ?? parseRawLines(document.rawLines(), name, hit?.doc);
  parsed.set(document, { version: document.version, doc, seen: document.version });
  return doc;
}

/**
 * Replaces items of `document` (matched by id) with the result of `update`, as one undoable edit that replaces
 * only the lines of items that changed. Items whose id no longer exists are skipped.
 *
 * @param label - what VS Code's undo and redo name the edit
 * @returns number of lines changed
 * @throws Error when a line is not where the parse says (nothing is changed then)
 */
export async function updateItems(document: DialogueFileDocument, update: (item: DialogueItem) => DialogueItem | undefined, label = 'Label'): Promise<number> {
  const doc = parseDialogue(document);
  const updated: { line: number; raw: string; next: DialogueItem }[] = [];
  for (const line of doc.itemLines) {
    const entry = doc.lines[line];
    if (entry.kind !== 'item') continue;
    const next = update(entry.item);
    if (next) updated.push({ line, raw: entry.raw.text, next });
  }
  // A compact file lists new evaluators in its header, so their scores are written compactly too.
  const { header, edit: headerEdit } = headerEditFor(doc, updated.map((u) => u.next));
  const lines = [...(headerEdit ? [{ line: headerEdit.line, raw: headerEdit.oldText, text: headerEdit.newText }] : []), ...updated.map((u) => ({ line: u.line, raw: u.raw, text: serializeItem(u.next, header) }))];
  const edits: { line: number; text: string }[] = [];
  for (const { line, raw, text } of lines) {
    if (text === raw) continue;
    const current = document.lineAt(line).text;
    if (current !== raw.replace(/^\uFEFF/, '')) throw new Error(`line ${line + 1} of ${document.uri.fsPath} is not where ReflectEval expected it; nothing was changed`);
    edits.push({ line, text: text.replace(/^\uFEFF/, '') });
  }
  if (edits.length > 0) document.edit(edits, label);
  return edits.length;
}

/** What a save from this editor does to a line VS Code would change (see `DialogueEditorProvider.write`). */
export const SAVE_KEEPS_BYTES = 'a save from this editor keeps its bytes, unless the line is edited';

/** A problem line whose bytes VS Code's save would change, with what this editor's save does about it. */
function withSaveNote(line: ProblemLine): ProblemLine {
  if (!line.inVsCode.some((c) => c === 'invalidUtf8' || c === 'loneCr')) return line;
  return { ...line, reasons: [...line.reasons, SAVE_KEEPS_BYTES], message: `${line.message}; ${SAVE_KEEPS_BYTES}` };
}

/** Diagnostic source: the Problems panel shows it beside each message. */
export const DIAGNOSTIC_SOURCE = 'ReflectEval';

/** A problem line as a diagnostic: its range covers the line (every VS Code line it spans), all its reasons in one message. */
export function problemDiagnostic(document: DialogueFileDocument, line: ProblemLine): vscode.Diagnostic {
  const first = Math.min(line.editorLine - 1, Math.max(0, document.lineCount - 1));
  const last = Math.min(first + line.editorLineCount - 1, document.lineCount - 1);
  const range = new vscode.Range(first, 0, last, document.lineAt(last).text.length);
  const d = new vscode.Diagnostic(range, line.message, line.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
  d.source = DIAGNOSTIC_SOURCE;
  return d;
}

/** Shows a 1-based line of a dialogue document in a text editor beside the dialogue editor, selected. */
export async function revealLine(document: DialogueFileDocument, line: number): Promise<void> {
  const at = Math.min(Math.max(0, line - 1), Math.max(0, document.lineCount - 1));
  const range = document.lineAt(at).range;
  // The file as on disk: unsaved labels are in the dialogue editor only.
  await vscode.window.showTextDocument(document.uri, { viewColumn: vscode.ViewColumn.Beside, selection: range, preview: true });
}

function entryOf(item: DialogueItem, index: number, annotator: string | null, title: ItemTitleParts): ItemEntry {
  const mine = annotator ? item.candidates.map((c) => c.annotations.find((a) => a.annotator === annotator)) : [];
  return {
    index,
    id: item.id,
    label: title.where,
    snippet: title.words,
    description: itemDescription(item),
    candidates: item.candidates.length,
    labelled: mine.filter((a) => typeof a?.coherent === 'boolean').length,
    complete: mine.filter((a) => labelStatus(a) === 'complete').length,
  };
}

/** Readable names and scales of every evaluator of a document, by document version. */
const evaluatorInfo = new WeakMap<DialogueFileDocument, { version: number; names: Map<string, string>; scales: Map<string, ScoreScale | undefined> }>();

/**
 * Valid answers of the bundled judge requests (prompts/requests/*.json), read once; a request of the workspace's
 * own prompts folder that is not bundled has no scale shown.
 */
let requestSpecs: Record<string, { min: number; max: number; integer?: boolean }> | undefined;
function bundledRequestSpecs(extensionUri: vscode.Uri): Record<string, { min: number; max: number; integer?: boolean }> {
  if (!requestSpecs) {
    try {
      const lib = loadPromptLibrary(vscode.Uri.joinPath(extensionUri, 'prompts').fsPath);
      requestSpecs = Object.fromEntries(Object.entries(lib.requests).map(([name, r]) => [name, r.spec]));
    } catch {
      requestSpecs = {};
    }
  }
  return requestSpecs;
}

/** Readable names and scales of every evaluator of a document (cached by document version). */
export function evaluatorInfoOf(document: DialogueFileDocument, items: readonly DialogueItem[], extensionUri: vscode.Uri): { names: Map<string, string>; scales: Map<string, ScoreScale | undefined> } {
  let info = evaluatorInfo.get(document);
  if (!info || info.version !== document.version) {
    const ids = [...new Set(items.flatMap((it) => it.candidates.flatMap((c) => Object.keys(c.scores))))];
    const requests = bundledRequestSpecs(extensionUri);
    info = { version: document.version, names: displayNames(ids, evaluatorSignatures(items)), scales: new Map(ids.map((id) => [id, evaluatorScale(id, requests)])) };
    evaluatorInfo.set(document, info);
  }
  return info;
}

/** The selected item's candidates' scores as readable groups, by the id the view shows each candidate under. */
function scoreGroupsOf(document: DialogueFileDocument, items: readonly DialogueItem[], view: { candidates: { id: string; scores?: Record<string, Score> }[] }, extensionUri: vscode.Uri): Record<string, ScoreGroup[]> {
  const info = evaluatorInfoOf(document, items, extensionUri);
  const out: Record<string, ScoreGroup[]> = {};
  for (const c of view.candidates) if (c.scores && Object.keys(c.scores).length) out[c.id] = summariseScores(c.scores, info.names, info.scales);
  return out;
}

/** The item (and candidate) last selected in a dialogue editor. */
export interface DialogueSelection {
  document: DialogueFileDocument;
  itemIndex: number;
  candidateId: string | null;
}

/** One sequence of label edits (the webview's or the host's) and how far the document has got with it. */
interface EditSequence {
  /** The last number handed out (host edits only; the webview numbers its own). */
  last: number;
  /** The edit being applied now, 0 when none. */
  applying: number;
  /** The last edit applied. */
  applied: number;
  /** The message that acknowledges edit `seq`. */
  ack: (seq: number) => EditorHostMessage;
}

/** One open dialogue editor. */
interface OpenEditor {
  document: DialogueFileDocument;
  panel: vscode.WebviewPanel;
  send(msg: EditorHostMessage): void;
  /** Applies a labelling key: in the host when it knows the focused candidate, else in the webview (keyRoute.ts). */
  key(action: EditorAction): void;
  /** Shows an item with a candidate focused (a message that moves focus, numbered for {@link KeyRoute}). */
  reveal(index: number, candidateId: string | null): void;
  /** Whether its webview has keyboard focus. */
  focused: boolean;
  /** What the webview was last told by a `keys` message. */
  keysLive?: boolean;
  /** Whether it shows every annotator's labels. */
  comparison: boolean;
  /** Sends the index and the selected item again. */
  refresh(): void;
  /** The item list's filter and order (navigation, issue 18 item 3), the file indices it lists, and the progress last computed. */
  list: ListSettings;
  listed: number[] | null;
  progress: LabelProgress | null;
}

/** Provider of the dialogue editor. Tracks the dialogue document last active, and its selection, for commands. */
export class DialogueEditorProvider {
  private active: DialogueFileDocument | undefined;
  private readonly onDidChangeActiveEmitter = new vscode.EventEmitter<DialogueFileDocument | undefined>();
  /** Fires when another dialogue document becomes the active one. */
  readonly onDidChangeActive = this.onDidChangeActiveEmitter.event;
  private selectionState: DialogueSelection | undefined;
  private readonly onDidChangeSelectionEmitter = new vscode.EventEmitter<DialogueSelection | undefined>();
  /** Fires when the selected item or candidate changes. */
  readonly onDidChangeSelection = this.onDidChangeSelectionEmitter.event;
  private readonly open = new Set<OpenEditor>();
  /** One diagnostic per problem line of each open dialogue document (the Problems panel, squiggles, Go to Line). */
  private readonly diagnostics = vscode.languages.createDiagnosticCollection('reflectEval');

  /** The last selection in an open dialogue editor. */
  get selection(): DialogueSelection | undefined {
    return this.selectionState && !this.selectionState.document.isClosed ? this.selectionState : undefined;
  }

  private select(selection: DialogueSelection): void {
    this.selectionState = selection;
    this.onDidChangeSelectionEmitter.fire(selection);
  }

  /** Labelling progress of the active dialogue editor in the status bar. */
  private readonly status = new ProgressStatusBar();

  constructor(private readonly context: vscode.ExtensionContext) {
    context.subscriptions.push(this.diagnostics, this.status);
  }

  /** Shows the progress of the active dialogue editor in the status bar, or hides it when none is active. */
  private updateStatus(): void {
    const active = [...this.open].find((e) => e.panel.active);
    if (active?.progress) this.status.show(active.progress, getAnnotator());
    else this.status.hide();
  }

  /** Switches the item list of `document`'s editor to plan order (after "Plan Labels…"). */
  showPlan(document: DialogueFileDocument): void {
    for (const e of this.open) {
      if (e.document !== document) continue;
      e.list = { ...e.list, order: 'plan' };
      e.refresh();
    }
  }

  /** Problem lines read from each document's file (bytes), by the text VS Code shows for their first line. */
  private readonly onDisk = new WeakMap<DialogueFileDocument, Map<string, ProblemLine>>();

  /**
   * Reads the file's bytes (when the document is a file and has no unsaved changes) for what the text cannot show:
   * bytes that are not UTF-8 (VS Code shows U+FFFD and a save writes it), lone CRs (VS Code splits the line).
   *
   * @returns whether there were or are such lines (the index and diagnostics then need sending again)
   */
  private async readDisk(document: DialogueFileDocument): Promise<boolean> {
    if (document.uri.scheme !== 'file' || document.isDirty) return false;
    const version = document.version;
    let bytes: Uint8Array;
    try {
      bytes = await vscode.workspace.fs.readFile(document.uri);
    } catch {
      return false;
    }
    if (document.isClosed || document.version !== version || document.isDirty) return false;
    const before = this.onDisk.get(document);
    const byText = new Map<string, ProblemLine>();
    // Nothing VS Code would change (the usual case): no need to parse and validate every line again (issue 19 item 3).
    const lines = bytesVsCodeKeeps(bytes) ? [] : problemLines(parseDocument(bytes, vscode.workspace.asRelativePath(document.uri)));
    for (const l of lines) {
      // Only what the text cannot show: other problems are found in the text, wherever the line is now.
      if (l.inVsCode.length > 0 && l.editorLine - 1 < document.lineCount) byText.set(document.lineAt(l.editorLine - 1).text, l);
    }
    this.onDisk.set(document, byText);
    return (before?.size ?? 0) > 0 || byText.size > 0;
  }

  /**
   * The problem lines of a document as it is now — from its text, with what its file's bytes say about lines still
   * as they were read — set as its diagnostics (one per line); returns them for the banner.
   */
  private updateDiagnostics(document: DialogueFileDocument): ProblemLine[] {
    const disk = this.onDisk.get(document) ?? new Map<string, ProblemLine>();
    const lines = withDiskProblems(problemLines(parseDialogue(document)), disk, document.lineCount, (i) => document.lineAt(i).text).map(withSaveNote);
    this.diagnostics.set(document.uri, lines.map((l) => problemDiagnostic(document, l)));
    return lines;
  }

  /**
   * Writes a dialogue document to `target`, keeping problem lines byte for byte (issue 14 item 1). The document
   * holds the text VS Code would show: a line with bytes that are not UTF-8 holds U+FFFD, a lone CR is a line
   * break. When, against the file's bytes as they are now, only items changed, every problem line is written with its
   * old bytes (`keepProblemLines`, core); when more changed (a problem line edited, lines added or removed), the
   * text is written, the file as it was is kept in `.reflect-eval-cache/backups/` and a warning says which lines
   * changed. Every save goes through here: Ctrl+S, Save All, auto-save, saving on close, Save As. The file is
   * written atomically (a temporary sibling renamed over it).
   */
  private async write(document: DialogueFileDocument, target: vscode.Uri): Promise<void> {
    const bytes = document.toBytes();
    let before: Uint8Array | undefined;
    try {
      before = await vscode.workspace.fs.readFile(target);
    } catch {
      before = undefined;
    }
    const name = vscode.workspace.asRelativePath(target);
    // Bytes the text holds as they are (UTF-8, no CR: `bytesVsCodeKeeps`) have no line to keep; the usual case, and
    // at 45 MB the check costs milliseconds where `keepProblemLines` parses the file twice.
    const result = before && !bytesVsCodeKeeps(before) ? keepProblemLines(before, decodeUtf8Lossy(bytes), name) : ({ kind: 'unchanged' } as const);
    const lines = (ls: { line: number }[]) => ls.map((l) => l.line).join(', ');
    const out = result.kind === 'restore' ? result.bytes : bytes;
    if (target.scheme === 'file') writeTextAtomic(target.fsPath, out);
    else await vscode.workspace.fs.writeFile(target, out);
    if (result.kind === 'restore') vscode.window.setStatusBarMessage(`ReflectEval: saved ${name} keeping line${result.restored.length === 1 ? '' : 's'} ${lines(result.restored)} byte for byte`, 8000);
    if (result.kind !== 'edited' || !before) return;
    const dir = vscode.Uri.joinPath(target, '..', '.reflect-eval-cache', 'backups');
    const base = target.path.slice(target.path.lastIndexOf('/') + 1);
    const backup = vscode.Uri.joinPath(dir, `${base}.${new Date().toISOString().replace(/[:.]/g, '-')}.before-save`);
    await vscode.workspace.fs.createDirectory(dir);
    await vscode.workspace.fs.writeFile(backup, before);
    void vscode.window.showWarningMessage(
      `ReflectEval: this save changed problem line${result.changed.length === 1 ? '' : 's'} ${lines(result.changed)} of ${name} (${result.changed[0].message}${result.changed.length > 1 ? '; …' : ''}), and could not keep ${result.changed.length === 1 ? 'it' : 'them'} byte for byte because ${result.reason}. The file as it was before the save is in ${vscode.workspace.asRelativePath(backup)}.`,
    );
  }

  /**
   * The provider VS Code calls for one view type (the editor is registered under two): documents, saves, reverts,
   * hot-exit backups, and the undo stack of that view type's documents.
   */
  provider(viewType: string): vscode.CustomEditorProvider<DialogueFileDocument> {
    const onDidChangeCustomDocument: vscode.Event<vscode.CustomDocumentEditEvent<DialogueFileDocument>> = (listener, thisArg, disposables) =>
      onDidEditDialogue((e) => void (e.document.viewType === viewType && listener.call(thisArg, e)), undefined, disposables);
    return {
      onDidChangeCustomDocument,
      openCustomDocument: async (uri, openContext) => {
        const document = new DialogueFileDocument(uri, viewType, openContext.backupId ? vscode.Uri.parse(openContext.backupId) : undefined);
        // A file on disk is decoded when first needed (after VS Code has created the webview); anything else now.
        if (uri.scheme !== 'file' || openContext.backupId) await document.ready();
        return document;
      },
      resolveCustomEditor: (document, panel) => this.resolveCustomEditor(document, panel),
      saveCustomDocument: async (document) => {
        if (document.newerOnDisk) {
          // What VS Code asks of a text file that is newer on disk; here after the merge could not take the labels over.
          const name = vscode.workspace.asRelativePath(document.uri);
          const choice = await vscode.window.showWarningMessage(
            `${name} changed on disk, and the editor's unsaved changes are not only labels, so they could not be merged into it. Write the editor's version over the file's?`,
            { modal: true, detail: 'Overwrite replaces what was written to the file (a job’s results, say); Revert File instead takes the file’s version and drops the unsaved changes.' },
            'Overwrite',
          );
          if (choice !== 'Overwrite') throw new Error(`${name} was not saved: it changed on disk (Overwrite, or Revert File)`);
        }
        const top = document.stackTop;
        document.announceSave('will');
        try {
          await this.write(document, document.uri);
          document.newerOnDisk = false;
          document.markSaved(top);
        } finally {
          document.announceSave('did');
        }
      },
      saveCustomDocumentAs: (document, destination) => this.write(document, destination),
      revertCustomDocument: (document) => document.reload(),
      backupCustomDocument: async (document, context) => {
        await vscode.workspace.fs.writeFile(context.destination, document.toBytes());
        return { id: context.destination.toString(), delete: () => void vscode.workspace.fs.delete(context.destination).then(undefined, () => undefined) };
      },
    };
  }

  /** The dialogue document whose editor was last active, if still open. */
  get activeDocument(): DialogueFileDocument | undefined {
    return this.active && !this.active.isClosed ? this.active : undefined;
  }

  /** The editor labelling commands act on: the one whose webview has focus, else the active one. */
  private target(): OpenEditor | undefined {
    const all = [...this.open];
    return all.find((e) => e.focused && e.panel.active) ?? all.find((e) => e.panel.active) ?? all.find((e) => e.focused);
  }

  /**
   * Runs a labelling action (a `reflectEval.label.*` command) in the focused dialogue editor.
   *
   * @returns false when no dialogue editor is open and active
   */
  dispatch(action: EditorAction): boolean {
    const editor = this.target();
    if (!editor) return false;
    traceLabel('command');
    editor.key(action);
    return true;
  }

  /**
   * Opens `document` in the dialogue editor (or brings its editor forward) and shows one item with one candidate
   * focused: the drill-down from a plotted point or a cell.
   *
   * @returns false when no item has that id
   */
  async reveal(document: DialogueFileDocument, itemId: string, candidateId?: string): Promise<boolean> {
    const index = documentItems(parseDialogue(document)).findIndex((it) => it.id === itemId);
    if (index < 0) return false;
    let editor = [...this.open].find((e) => e.document === document);
    if (editor) editor.panel.reveal(editor.panel.viewColumn, false);
    else {
      await vscode.commands.executeCommand('vscode.openWith', document.uri, DIALOGUE_EDITOR_VIEW_TYPE, { viewColumn: vscode.ViewColumn.One });
      editor = [...this.open].find((e) => e.document.uri.toString() === document.uri.toString());
    }
    if (!editor) return false;
    // In blind mode the view shows candidates under opaque ids.
    const annotator = getAnnotator();
    const item = documentItems(parseDialogue(document))[index];
    const shownId = candidateId && getBlindMode() && annotator ? blindCandidateId(item.id, candidateId, annotator) : candidateId;
    editor.reveal(index, shownId ?? null);
    return true;
  }

  /** Shows or hides every annotator's labels in the focused or active dialogue editor. */
  toggleComparison(): boolean {
    const editor = this.target();
    if (!editor) return false;
    editor.comparison = !editor.comparison;
    editor.refresh();
    return true;
  }

  /**
   * Sets the context key of the labelling keybindings from the editors' focus, then tells each webview whether the
   * keys reach it now (`keys`; only the latest of overlapping updates is told).
   */
  private updateFocusContext(): void {
    const seq = ++this.focusContextSeq;
    const live = [...this.open].some((e) => e.focused);
    void vscode.commands.executeCommand('setContext', FOCUS_CONTEXT_KEY, live).then(() => {
      if (seq !== this.focusContextSeq) return;
      for (const e of this.open) {
        if (e.keysLive === e.focused) continue;
        e.keysLive = e.focused;
        e.send({ type: 'keys', live: e.focused });
      }
    });
  }
  private focusContextSeq = 0;

  resolveCustomEditor(document: DialogueFileDocument, panel: vscode.WebviewPanel): void {
    // The parse cache's change tracker listens before this editor's listener, so the editor's parse after a label
    // edit is incremental (see parseDialogue).
    trackChanges();
    const webview = panel.webview;
    webview.options = { enableScripts: true, localResourceRoots: [vscode.Uri.joinPath(this.context.extensionUri, 'dist'), vscode.Uri.joinPath(this.context.extensionUri, 'media')] };
    webview.html = webviewPage(webview, this.context.extensionUri, {
      title: 'ReflectEval',
      script: 'editor',
      style: 'editor',
      body: `<div id="toolbar" role="toolbar" aria-label="Dialogue editor">
  <button id="toggle-list" type="button" class="icon-button" aria-controls="item-list" aria-expanded="true" aria-label="Hide the item list (L)" title="Hide the item list (L)">☰</button>
  <span id="file"></span><span id="busy" class="muted" role="status"></span><span class="spacer"></span>
  <span id="mode" class="muted"></span>
  <span id="annotator" class="muted"></span>
  <span id="toolbar-actions">
  <vscode-button id="cmd-annotator" secondary title="Choose who you label as">Annotator…</vscode-button>
  <vscode-button id="cmd-blind" secondary aria-pressed="false" title="Hide origins, scores and the reference; shuffle candidates per annotator">Blind</vscode-button>
  <vscode-button id="cmd-compare" secondary aria-pressed="false" title="Show every annotator's labels (others' read-only)">Compare</vscode-button>
  <vscode-button id="cmd-generate" secondary title="Generate candidates for this file">Generate</vscode-button>
  <vscode-button id="cmd-judge" secondary title="Run a judge matrix on this file">Judge</vscode-button>
  <vscode-button id="cmd-correlation" secondary title="Show the correlation table beside the editor">Correlations</vscode-button>
  <vscode-button id="cmd-agreement" title="Show the agreement and meta-evaluation analyses">Analyses</vscode-button>
  </span>
  <button id="toolbar-more" type="button" class="icon-button collapsed" aria-haspopup="menu" aria-controls="toolbar-menu" aria-expanded="false" aria-label="More actions" title="More actions">⋯</button>
</div>
<div id="toolbar-menu" role="menu" aria-label="More actions" hidden></div>
<div id="problems" hidden></div>
<div id="layout">
  <div id="item-list" role="listbox" aria-label="Items" tabindex="0"><div id="item-list-spacer"></div><div id="item-list-rows"></div></div>
  <div id="splitter" role="separator" aria-orientation="vertical" aria-controls="item-list" aria-label="Resize the item list (arrow keys; Enter hides it)" tabindex="0"></div>
  <main id="item" aria-label="Selected item"></main>
</div>
<div id="announcer" class="sr-only" role="status" aria-live="polite"></div>
<div id="legend" role="note" aria-label="Labelling keys"></div>`,
    });
    let selected = 0;
    // Label operations are applied one at a time, in the order the webview sent them.
    let queue: Promise<void> = Promise.resolve();
    /**
     * Where each sequence of label edits stands: the webview's operations (`label`, numbered by `seq`) and the ones
     * the host applies itself (`labelled`, numbered by `hostSeq`). An item message acknowledges every edit it shows.
     */
    const webviewEdits: EditSequence = { last: 0, applying: 0, applied: 0, ack: (seq) => ({ type: 'ack', seq }) };
    const hostEdits: EditSequence = { last: 0, applying: 0, applied: 0, ack: (hostSeq) => ({ type: 'ack', hostSeq }) };
    const send = (msg: EditorHostMessage) => void webview.postMessage(msg);
    const route = new KeyRoute({
      // A failure shows a message and leaves the queue running for the keys after it.
      apply: (action, at) => void (queue = queue.then(() => applyKey(action, at)).catch((err: Error) => void vscode.window.showErrorMessage(`ReflectEval: ${err.message}`))),
      forward: (action, move) => {
        traceLabel('forwarded');
        send({ type: 'action', action, move });
      },
    });
    const editor: OpenEditor = {
      document,
      panel,
      send,
      key: (action) => {
        const holding = route.holding;
        route.key(action);
        if (route.holding > holding) traceLabel('held');
      },
      reveal: (index, candidateId) => send({ type: 'reveal', index, candidateId, move: route.nextMove() }),
      focused: false,
      comparison: false,
      refresh: () => {
        sendIndex();
        sendItem(selected);
      },
      list: { filter: {}, order: 'file' },
      listed: null,
      progress: null,
    };
    /** What the webview was last sent (index and navigator), for sending only what an edit in place changed. */
    let sent: { version: number; doc: DialogueDocument; items: DialogueItem[]; titles: ItemTitleParts[]; annotator: string | null } | undefined;
    let navSent: { items: readonly DialogueItem[]; origins: string[]; json: string } | undefined;
    /** Lines changed in place since the webview was last sent the document (`'all'`: a structural change). */
    let changedSinceSent: Set<number> | 'all' = new Set();
    /** The focused candidate last reported to the navigator (`select`). */
    let lastFocus: { index: number; candidateId: string } | undefined;
    /** The item list's filter, order, progress and plan state (after every index). `known`: see `navigatorState`. */
    const sendNavigator = (known?: { origins?: string[]; progress?: LabelProgress }) => {
      const doc = parseDialogue(document);
      const items = sent && sent.doc === doc ? sent.items : documentItems(doc);
      const annotator = getAnnotator();
      const blind = getBlindMode();
      const { state, listed } = navigatorState(document, items, editor.list, { annotator, blind, info: evaluatorInfoOf(document, items, this.context.extensionUri), known });
      editor.listed = listed;
      editor.progress = state.progress;
      // After an edit in place the state is often what the webview has (a second key on the same candidate).
      const json = JSON.stringify(state);
      const same = known !== undefined && navSent?.json === json;
      navSent = { items, origins: state.origins, json };
      if (!same) send({ type: 'navigator', state });
      if (panel.active) this.updateStatus();
    };
    /**
     * Answers the webview's `nextUnlabelled` request, always (the webview holds back keys until the answer);
     * `move`: numbered when the request arrived, so keys wait for the answer in the host too (keyRoute.ts).
     */
    const goNextUnlabelled = (index: number, candidateId: string | null, move: number) => {
      const notice = (text: string) => send({ type: 'notice', text, move, answers: 'nextUnlabelled' });
      try {
        const annotator = getAnnotator();
        if (!annotator) {
          notice('Choose who you label as first (Annotator…).');
          return void vscode.commands.executeCommand('reflectEval.setAnnotator');
        }
        const items = documentItems(parseDialogue(document));
        const target = nextUnlabelledTarget(items, editor.listed ?? items.map((_, i) => i), { index, candidateId }, { annotator, blind: getBlindMode() });
        if ('message' in target) notice(target.message);
        else send({ type: 'reveal', index: target.index, candidateId: target.candidateId, move, answers: 'nextUnlabelled' });
      } catch (err) {
        notice(`Next unlabelled: ${(err as Error).message}`);
      }
    };
    /** The index's entries and problem lines for one version and annotator (`prepared`: built ahead, see diskTimer). */
    type IndexParts = { version: number; annotator: string | null; doc: DialogueDocument; items: DialogueItem[]; titles: ItemTitleParts[]; lines: ProblemLine[]; entries: ItemEntry[] };
    let prepared: IndexParts | undefined;
    const indexParts = (): IndexParts => {
      const doc = parseDialogue(document);
      const annotator = getAnnotator();
      if (prepared && prepared.version === document.version && prepared.doc === doc && prepared.annotator === annotator) return prepared;
      const lines = this.updateDiagnostics(document);
      const items = documentItems(doc);
      const titles = itemTitleList(items);
      return { version: document.version, annotator, doc, items, titles, lines, entries: items.map((it, i) => entryOf(it, i, annotator, titles[i])) };
    };
    const sendIndex = () => {
      const { doc, annotator, items, titles, lines, entries } = indexParts();
      prepared = undefined;
      sent = { version: document.version, doc, items, titles, annotator };
      changedSinceSent = new Set();
      send({
        type: 'index',
        file: vscode.workspace.asRelativePath(document.uri),
        entries,
        problems: lines.map((l) => ({ line: l.editorLine, severity: l.severity, reasons: l.reasons })),
        annotator,
        blind: getBlindMode(),
        comparison: editor.comparison,
        move: route.nextMove(),
      });
      sendNavigator();
    };
    /**
     * What was last sent of the selected item, as JSON: its score lines by the id the view gives each candidate
     * (`byCandidate`), each candidate as shown (`cards`) and the rest of the view (`rest`). A label changes no score
     * and one candidate, so the item message after a key carries only that candidate and no score line, not the whole
     * item again (a study item with 26 candidates × 17 scores has ~140 KB of score lines). `stamp` numbers each full
     * message; the webview merges a partial one only into the full one it names, and asks for the item again otherwise.
     */
    let itemSent: { key: string; stamp: number; byCandidate: Map<string, string>; rest: string; cards: Map<string, string> } | undefined;
    let scoresStamp = 0;
    const sendItem = (index: number, full = false) => {
      const items = documentItems(parseDialogue(document));
      const item = items[index];
      if (!item) return;
      const annotator = getAnnotator();
      const blind = getBlindMode();
      const view = annotatorView(item, { annotator, blind, comparison: editor.comparison });
      const marks = candidateMarks(item, view, { blind, annotator, info: evaluatorInfoOf(document, items, this.context.extensionUri) });
      const scores = scoreGroupsOf(document, items, view, this.context.extensionUri);
      const key = JSON.stringify([index, item.id, annotator, blind, editor.comparison, view.candidates.map((c) => c.id)]);
      const byCandidate = new Map(view.candidates.map((c) => [c.id, JSON.stringify(scores[c.id] ?? [])]));
      // The webview renders score lines from `scores`; the view's own copy of every score is not sent.
      const slim = { ...view, candidates: view.candidates.map(({ scores: _scores, ...c }) => c) } as ItemView;
      // The view but its candidates (context, reference, modes), and each candidate as shown: sent again only when changed.
      const rest = JSON.stringify({ ...slim, candidates: null });
      const cards = new Map(slim.candidates.map((c) => [c.id, JSON.stringify(c)]));
      const acks = { ack: Math.max(webviewEdits.applied, webviewEdits.applying), hostAck: Math.max(hostEdits.applied, hostEdits.applying) };
      if (full || !itemSent || itemSent.key !== key || itemSent.rest !== rest) {
        itemSent = { key, stamp: ++scoresStamp, byCandidate, rest, cards };
        send({ type: 'item', index, view: slim, ...acks, scores, scoresStamp: itemSent.stamp, marks });
        return;
      }
      const changed: Record<string, ScoreGroup[]> = {};
      for (const [id, json] of byCandidate) if (itemSent.byCandidate.get(id) !== json) changed[id] = scores[id] ?? [];
      const candidates = slim.candidates.filter((c) => itemSent!.cards.get(c.id) !== cards.get(c.id));
      itemSent.byCandidate = byCandidate;
      itemSent.cards = cards;
      send({ type: 'item', index, candidates, ...acks, scores: changed, scoresBase: itemSent.stamp, marks });
    };
    /**
     * After a change event: when only item lines changed in place (their items still at the same index with the
     * same id, no problem line touched), sends the webview just those rows, the navigator if it changed, and the
     * selected item if it is one of them; otherwise the whole index (issue 19 item 3).
     */
    const update = () => {
      const lines = changedSinceSent;
      changedSinceSent = new Set();
      if (!(lines instanceof Set) || !updateInPlace(lines)) editor.refresh();
    };
    const updateInPlace = (lines: Set<number>): boolean => {
      if (!sent || sent.annotator !== getAnnotator() || (this.onDisk.get(document)?.size ?? 0) > 0) return false;
      const doc = parseDialogue(document);
      // Same arrays: the incremental parse kept every item at its line and found no new problem (lineUpdate.ts).
      if (doc.itemLines !== sent.doc.itemLines || doc.problems !== sent.doc.problems) return false;
      const indices: number[] = [];
      for (const line of lines) {
        const i = itemIndexOfLine(doc.itemLines, line);
        if (i < 0) return false;
        indices.push(i);
      }
      const previousItems = sent.items;
      const items = sent.items.slice();
      const before: DialogueItem[] = [];
      const after: DialogueItem[] = [];
      const changed: number[] = [];
      for (const i of indices) {
        const item = (doc.lines[doc.itemLines[i]] as { item: DialogueItem }).item;
        if (item === items[i]) continue;
        if (!sameTitleInputs(items[i], item)) return false;
        before.push(items[i]);
        after.push(item);
        changed.push(i);
        items[i] = item;
      }
      const info = evaluatorInfo.get(document);
      const evaluatorsKept = before.every((b, k) => sameEvaluators(b, after[k]));
      if (info && info.version === sent.version && evaluatorsKept) evaluatorInfo.set(document, { ...info, version: document.version });
      sent = { ...sent, version: document.version, doc, items };
      if (changed.length) send({ type: 'entries', entries: changed.map((i) => entryOf(items[i], i, sent!.annotator, sent!.titles[i])) });
      const known: { origins?: string[]; progress?: LabelProgress } = {};
      if (navSent && navSent.items === previousItems) {
        if (before.every((b, k) => sameOrigins(b, after[k]))) known.origins = navSent.origins;
        if (editor.progress) known.progress = labelProgressAfter(editor.progress, before, after, sent.annotator);
      }
      sendNavigator(known);
      if (changed.includes(selected)) sendItem(selected);
      return true;
    };
    /** Applies one label edit to the document, then acknowledges it; a failure is shown and still acknowledged. */
    const editAndAck = async (edits: EditSequence, seq: number, edit: () => Promise<unknown>) => {
      edits.applying = seq;
      try {
        traceLabel('edit');
        await edit();
      } catch (err) {
        void vscode.window.showErrorMessage(`ReflectEval: ${(err as Error).message}`);
      } finally {
        edits.applied = seq;
        edits.applying = 0;
        send(edits.ack(seq));
        traceLabel('ack');
      }
    };
    const applyLabel = (seq: number, itemId: string, candidateId: string, op: LabelOp) =>
      editAndAck(webviewEdits, seq, async () => {
        const annotator = getAnnotator();
        // Still acknowledged, so the webview drops the operation it shows.
        if (!annotator) return void (await vscode.commands.executeCommand('reflectEval.setAnnotator'));
        // In blind mode the view shows opaque ids (annotatorView): label the candidate the id stands for.
        await updateItems(document, (item) => (item.id === itemId ? applyLabelOp(item, candidateIdOfView(item, candidateId, annotator) ?? candidateId, annotator, op) : undefined));
      });
    /**
     * A labelling key applied in the host (keyRoute.ts): the operation is decided from the document, after every
     * operation queued before it, by the same rule as the webview's (`labelOpOfKey`); the webview is told at once
     * (`labelled`) and shows it until the ack.
     */
    const applyKey = async (action: LabelAction, at: KeyTarget) => {
      const annotator = getAnnotator();
      if (!annotator) return void (await vscode.commands.executeCommand('reflectEval.setAnnotator'));
      const items = documentItems(parseDialogue(document));
      const item = items[at.index]?.id === at.itemId ? items[at.index] : items.find((it) => it.id === at.itemId);
      const candidateId = item && candidateIdOfView(item, at.candidateId, annotator);
      const candidate = candidateId ? item.candidates.find((c) => c.id === candidateId) : undefined;
      if (!item || !candidateId || !candidate) return send({ type: 'notice', text: 'The focused candidate is no longer in the file.' });
      const result = labelOpOfKey(action, candidate.annotations.find((a) => a.annotator === annotator));
      if (!result) return;
      if ('hint' in result) return send({ type: 'notice', text: result.hint });
      const seq = ++hostEdits.last;
      send({ type: 'labelled', hostSeq: seq, itemId: at.itemId, candidateId: at.candidateId, op: result.op });
      await editAndAck(hostEdits, seq, () => updateItems(document, (it) => (it.id === at.itemId ? applyLabelOp(it, candidateId, annotator, result.op) : undefined)));
    };

    this.open.add(editor);
    // The index goes out when the webview is ready; again only if the bytes show lines the text cannot. While the
    // webview loads its page (~1 s), after VS Code has created it: the parse, the evaluators' names and the index's
    // entries (kept for the version and annotator), then the file's bytes (issue 19 item 3; see BASE_DELAY_MS).
    const diskTimer = setTimeout(() => {
      if (document.isClosed) return;
      if (!sent) {
        evaluatorInfoOf(document, documentItems(parseDialogue(document)), this.context.extensionUri);
        prepared = indexParts();
      }
      void this.readDisk(document).then((found) => {
        if (!found) return;
        // Problem lines the text cannot show: the prepared index does not have them.
        prepared = undefined;
        if (sent) sendIndex();
      });
    }, BASE_DELAY_MS);
    // Unsaved labels are merged into what a job writes to the file meanwhile (externalChanges.ts).
    const merger = new ExternalChangeMerger(document, send, () => parseDialogue(document));
    const subscriptions = [
      merger,
      onDidChangeDialogue((e) => {
        if (e.document !== document || e.contentChanges.length === 0) return;
        traceLabel('changed');
        const lines = changedLinesInPlace(e.contentChanges);
        if (!lines) changedSinceSent = 'all';
        else if (changedSinceSent !== 'all') for (const l of lines) changedSinceSent.add(l);
        update();
        traceLabel('handled');
        // Not dirty after a change: reloaded from disk (an external edit) or back at the saved text; read the bytes again.
        if (!document.isDirty) void this.readDisk(document).then((found) => found && sendIndex());
      }),
      onDidSaveDialogue((e) => {
        // Saved (problem lines kept byte for byte): what the bytes say now.
        if (e.document === document && e.phase === 'did') void this.readDisk(document).then(() => sendIndex());
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('reflectEval.annotator') || e.affectsConfiguration('reflectEval.blindMode') || e.affectsConfiguration('reflectEval.plan.target')) editor.refresh();
      }),
      panel.onDidChangeViewState(() => {
        if (panel.active) this.setActive(document);
        this.updateStatus();
        if (!panel.visible && editor.focused) {
          editor.focused = false;
          this.updateFocusContext();
        }
      }),
      webview.onDidReceiveMessage(async (msg: EditorWebviewMessage) => {
        try {
          switch (msg.type) {
            case 'ready':
              // A webview (re)loaded: it has not been told whether the keys are live.
              editor.keysLive = undefined;
              sendIndex();
              merger.sendConflicts();
              break;
            case 'resolveConflict':
              await merger.resolve(msg.id, msg.choice);
              break;
            case 'select':
              selected = msg.index;
              sendItem(selected, true);
              this.select({ document, itemIndex: selected, candidateId: null });
              break;
            case 'focusState': {
              route.report(msg);
              const { index, itemId, candidateId } = msg;
              if (itemId === null || candidateId === null || (index === lastFocus?.index && candidateId === lastFocus.candidateId)) break;
              lastFocus = { index, candidateId };
              const item = documentItems(parseDialogue(document))[index];
              this.select({ document, itemIndex: index, candidateId: item ? (candidateIdOfView(item, candidateId, getAnnotator() ?? '') ?? candidateId) : candidateId });
              break;
            }
            case 'focus':
              // Only one webview has focus at a time; a hidden one may never report its blur.
              if (msg.focused) for (const other of this.open) other.focused = false;
              editor.focused = msg.focused && panel.visible;
              if (msg.focused) this.setActive(document);
              this.updateFocusContext();
              break;
            case 'label':
              traceLabel('received');
              queue = queue.then(() => applyLabel(msg.seq, msg.itemId, msg.candidateId, msg.op));
              break;
            case 'revealLine':
              await revealLine(document, msg.line);
              break;
            case 'navigate':
              editor.list = { filter: msg.filter, order: msg.order };
              sendNavigator();
              break;
            case 'nextUnlabelled': {
              // After the label operations sent before it, so a label just made counts.
              const move = route.nextMove();
              queue = queue.then(() => goNextUnlabelled(msg.index, msg.candidateId, move));
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
      clearTimeout(diskTimer);
      route.dispose();
      subscriptions.forEach((s) => s.dispose());
      this.diagnostics.delete(document.uri);
      this.open.delete(editor);
      this.updateFocusContext();
      this.updateStatus();
      if (this.active === document) this.setActive(undefined);
    });
    this.setActive(document);
  }

  private setActive(document: DialogueFileDocument | undefined): void {
    if (this.active === document) return;
    this.active = document;
    this.onDidChangeActiveEmitter.fire(document);
  }
}
