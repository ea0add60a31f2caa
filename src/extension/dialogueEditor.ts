/**
 * The dialogue editor: a CustomTextEditorProvider over `*.dialogues.jsonl`. The TextDocument is the single
 * source of truth; every change is a WorkspaceEdit on it (undo/redo, dirty state, save and hot exit then
 * behave as in any editor), and any change to the document — ours, undo, or an external edit — re-renders.
 *
 * Labelling: the webview sends one {@link LabelOp} per key press or click; they are applied in the order sent, each
 * as one WorkspaceEdit (so each is one undo step). Labelling keys are VS Code keybindings on `reflectEval.label.*`
 * commands (webview/editor/keys.ts); a command is routed here to the editor whose webview has focus.
 */
import * as vscode from 'vscode';
import { applyLabelOp, labelStatus, type LabelOp } from '../core/labels/annotate';
import { annotatorView, blindCandidateId, candidateIdOfView, type ItemView } from '../core/labels/annotatorView';
import { documentItems, headerEditFor, parseDocument, serializeItem, type DialogueDocument } from '../core/format/jsonl';
import { bytesVsCodeKeeps } from '../core/format/vsCodeSafe';
import { changedLinesInPlace, itemIndexOfLine, reparseLines, sameEvaluators, sameOrigins, sameTitleInputs } from '../core/format/lineUpdate';
import { problemLines, withDiskProblems, type ProblemLine } from '../core/format/lineReport';
import { keepProblemLines } from '../core/format/keepProblemLines';
import { decodeUtf8Lossy } from '../core/format/bytes';
import { writeTextAtomic } from '../core/format/files';
import type { DialogueItem, Score } from '../core/dialogue/types';
import { FOCUS_CONTEXT_KEY, labelOpOfKey, type EditorAction, type LabelAction } from '../../webview/editor/keys';
import type { EditorHostMessage, EditorWebviewMessage, ItemEntry } from '../../webview/editor/protocol';
import { displayNames, evaluatorSignatures } from '../core/analysis/evaluatorNames';
import { evaluatorScale, summariseScores, type ScoreGroup, type ScoreScale } from '../core/analysis/scoreSummary';
import { loadPromptLibrary } from '../core/judges/prompts';
import { itemDescription, itemTitleList, type ItemTitleParts } from '../core/dialogue/itemTitle';
import { getAnnotator, getBlindMode } from './settings';
import { BASE_DELAY_MS, ExternalChangeMerger } from './externalChanges';
import { webviewPage } from './webviewHtml';
import { candidateMarks, navigatorState, nextUnlabelledTarget, ProgressStatusBar, type ListSettings } from './itemNavigator';
import { labelProgressAfter, type LabelProgress } from '../core/analysis/itemNavigation';
import { traceLabel } from './labelTrace';
import { KeyRoute, type KeyTarget } from './keyRoute';

export const DIALOGUE_EDITOR_VIEW_TYPE = 'reflectEval.dialogueEditor';

/**
 * Parsed documents cached by version, so the editor, panel and commands parse each version once. `pending`: the
 * lines changed in place since `version` (every change event seen since, see {@link trackChanges}), or `'all'`
 * after a structural change; the next parse re-parses only those lines when it can (issue 19 item 3).
 */
const parsed = new WeakMap<vscode.TextDocument, { version: number; doc: DialogueDocument; pending?: Set<number> | 'all'; seen: number }>();
let tracking: vscode.Disposable | undefined;

/**
 * Records, for every cached document, which lines each change event touched (for as long as the extension runs;
 * registered before the first parse, so no event of a cached document is missed).
 */
function trackChanges(): void {
  tracking ??= vscode.workspace.onDidChangeTextDocument((e) => {
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

/** The parsed form of a dialogue TextDocument (cached per document version). */
export function parseTextDocument(document: vscode.TextDocument): DialogueDocument {
  trackChanges();
  const hit = parsed.get(document);
  if (hit && hit.version === document.version) return hit.doc;
  // Lines changed in place since the cached version: re-parse just those (document.lineAt, not the whole text).
  // Only when the tracker has seen the change that made this version (a listener of the same event that runs
  // before it would otherwise miss that event's lines).
  const inPlace = hit && hit.pending instanceof Set && hit.seen === document.version && [...hit.pending].every((l) => l < document.lineCount) ? reparseLines(hit.doc, [...hit.pending].map((line) => ({ line, text: document.lineAt(line).text }))) : undefined;
  const doc = inPlace ?? parseDocument(document.getText(), vscode.workspace.asRelativePath(document.uri), hit?.doc);
  parsed.set(document, { version: document.version, doc, seen: document.version });
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
  let n = 0;
  for (const { line, raw, text } of lines) {
    if (text === raw) continue;
    const current = document.lineAt(line).text;
    if (current !== raw.replace(/^\uFEFF/, '')) throw new Error(`line ${line + 1} of ${document.uri.fsPath} is not where ReflectEval expected it; nothing was changed`);
    edit.replace(document.uri, new vscode.Range(line, 0, line, current.length), text.replace(/^\uFEFF/, ''));
    n++;
  }
  if (n > 0 && !(await vscode.workspace.applyEdit(edit))) throw new Error(`could not edit ${document.uri.fsPath}`);
  return n;
}

/** What a save from this editor does to a line VS Code would change (see `keepProblemLinesAfterSave`). */
export const SAVE_KEEPS_BYTES = 'a save from this editor keeps its bytes: ReflectEval writes them back right after VS Code saves, unless the line is edited';

/** A problem line whose bytes VS Code's save would change, with what this editor's save does about it. */
function withSaveNote(line: ProblemLine): ProblemLine {
  if (!line.inVsCode.some((c) => c === 'invalidUtf8' || c === 'loneCr')) return line;
  return { ...line, reasons: [...line.reasons, SAVE_KEEPS_BYTES], message: `${line.message}; ${SAVE_KEEPS_BYTES}` };
}

/** Diagnostic source: the Problems panel shows it beside each message. */
export const DIAGNOSTIC_SOURCE = 'ReflectEval';

/** A problem line as a diagnostic: its range covers the line (every VS Code line it spans), all its reasons in one message. */
export function problemDiagnostic(document: vscode.TextDocument, line: ProblemLine): vscode.Diagnostic {
  const first = Math.min(line.editorLine - 1, Math.max(0, document.lineCount - 1));
  const last = Math.min(first + line.editorLineCount - 1, document.lineCount - 1);
  const range = new vscode.Range(first, 0, last, document.lineAt(last).text.length);
  const d = new vscode.Diagnostic(range, line.message, line.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning);
  d.source = DIAGNOSTIC_SOURCE;
  return d;
}

/** Shows a 1-based line of a dialogue document in a text editor beside the dialogue editor, selected. */
export async function revealLine(document: vscode.TextDocument, line: number): Promise<void> {
  const at = Math.min(Math.max(0, line - 1), Math.max(0, document.lineCount - 1));
  const range = document.lineAt(at).range;
  await vscode.window.showTextDocument(document, { viewColumn: vscode.ViewColumn.Beside, selection: range, preview: true });
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
const evaluatorInfo = new WeakMap<vscode.TextDocument, { version: number; names: Map<string, string>; scales: Map<string, ScoreScale | undefined> }>();

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
export function evaluatorInfoOf(document: vscode.TextDocument, items: readonly DialogueItem[], extensionUri: vscode.Uri): { names: Map<string, string>; scales: Map<string, ScoreScale | undefined> } {
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
function scoreGroupsOf(document: vscode.TextDocument, items: readonly DialogueItem[], view: { candidates: { id: string; scores?: Record<string, Score> }[] }, extensionUri: vscode.Uri): Record<string, ScoreGroup[]> {
  const info = evaluatorInfoOf(document, items, extensionUri);
  const out: Record<string, ScoreGroup[]> = {};
  for (const c of view.candidates) if (c.scores && Object.keys(c.scores).length) out[c.id] = summariseScores(c.scores, info.names, info.scales);
  return out;
}

/** The item (and candidate) last selected in a dialogue editor. */
export interface DialogueSelection {
  document: vscode.TextDocument;
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
  document: vscode.TextDocument;
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
export class DialogueEditorProvider implements vscode.CustomTextEditorProvider {
  private active: vscode.TextDocument | undefined;
  private readonly onDidChangeActiveEmitter = new vscode.EventEmitter<vscode.TextDocument | undefined>();
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
  showPlan(document: vscode.TextDocument): void {
    for (const e of this.open) {
      if (e.document !== document) continue;
      e.list = { ...e.list, order: 'plan' };
      e.refresh();
    }
  }

  /** Problem lines read from each document's file (bytes), by the text VS Code shows for their first line. */
  private readonly onDisk = new WeakMap<vscode.TextDocument, Map<string, ProblemLine>>();

  /**
   * Reads the file's bytes (when the document is a file and has no unsaved changes) for what the text cannot show:
   * bytes that are not UTF-8 (VS Code shows U+FFFD and a save writes it), lone CRs (VS Code splits the line).
   *
   * @returns whether there were or are such lines (the index and diagnostics then need sending again)
   */
  private async readDisk(document: vscode.TextDocument): Promise<boolean> {
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
  private updateDiagnostics(document: vscode.TextDocument): ProblemLine[] {
    const disk = this.onDisk.get(document) ?? new Map<string, ProblemLine>();
    const lines = withDiskProblems(problemLines(parseTextDocument(document)), disk, document.lineCount, (i) => document.lineAt(i).text).map(withSaveNote);
    this.diagnostics.set(document.uri, lines.map((l) => problemDiagnostic(document, l)));
    return lines;
  }

  /**
   * The byte-preserving path for a save from VS Code (issue 14 item 1). VS Code writes the text it decoded: a line
   * with bytes that are not UTF-8 is saved with U+FFFD, a lone CR as a line break. An extension can neither cancel
   * a save nor ask during one (`onWillSaveTextDocument` gives a listener 1.75 s and edits of the text only), so
   * this runs right after it: given the file's bytes read just before the save, when the save changed problem
   * lines and otherwise only items, the file is written again (atomically) with every problem line's old bytes
   * and the saved items (`keepProblemLines`, core); VS Code reloads the same text. When the save changed more
   * than items (a problem line edited, lines added or removed), it stands, the file as it was is kept in
   * `.reflect-eval-cache/backups/` and a warning says which lines changed. Any save of the document goes through
   * here: Ctrl+S, Save All, auto-save, saving on close.
   */
  private async keepProblemLinesAfterSave(document: vscode.TextDocument, before: Uint8Array | undefined): Promise<void> {
    if (!before || document.uri.scheme !== 'file') return;
    const name = vscode.workspace.asRelativePath(document.uri);
    const written = await vscode.workspace.fs.readFile(document.uri);
    const result = keepProblemLines(before, decodeUtf8Lossy(written), name);
    if (result.kind === 'unchanged') return;
    const lines = (ls: { line: number }[]) => ls.map((l) => l.line).join(', ');
    if (result.kind === 'restore') {
      // Only over what VS Code wrote: a job that rewrote the file meanwhile wins (and is merged as usual).
      const now = await vscode.workspace.fs.readFile(document.uri);
      if (Buffer.compare(Buffer.from(now), Buffer.from(written)) !== 0 || Buffer.compare(Buffer.from(result.bytes), Buffer.from(written)) === 0) return;
      writeTextAtomic(document.uri.fsPath, result.bytes);
      vscode.window.setStatusBarMessage(`ReflectEval: saved ${name} keeping line${result.restored.length === 1 ? '' : 's'} ${lines(result.restored)} byte for byte`, 8000);
      return;
    }
    const dir = vscode.Uri.joinPath(document.uri, '..', '.reflect-eval-cache', 'backups');
    const base = document.uri.path.slice(document.uri.path.lastIndexOf('/') + 1);
    const backup = vscode.Uri.joinPath(dir, `${base}.${new Date().toISOString().replace(/[:.]/g, '-')}.before-save`);
    await vscode.workspace.fs.createDirectory(dir);
    await vscode.workspace.fs.writeFile(backup, before);
    void vscode.window.showWarningMessage(
      `ReflectEval: this save changed problem line${result.changed.length === 1 ? '' : 's'} ${lines(result.changed)} of ${name} (${result.changed[0].message}${result.changed.length > 1 ? '; …' : ''}), and could not keep ${result.changed.length === 1 ? 'it' : 'them'} byte for byte because ${result.reason}. The file as it was before the save is in ${vscode.workspace.asRelativePath(backup)}.`,
    );
  }

  /** The dialogue document whose editor was last active, if still open. */
  get activeDocument(): vscode.TextDocument | undefined {
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
  async reveal(document: vscode.TextDocument, itemId: string, candidateId?: string): Promise<boolean> {
    const index = documentItems(parseTextDocument(document)).findIndex((it) => it.id === itemId);
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
    const item = documentItems(parseTextDocument(document))[index];
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

  async resolveCustomTextEditor(document: vscode.TextDocument, panel: vscode.WebviewPanel): Promise<void> {
    // The parse cache's change tracker listens before this editor's listener, so the editor's parse after a label
    // edit is incremental (see parseTextDocument).
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
      const doc = parseTextDocument(document);
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
        const items = documentItems(parseTextDocument(document));
        const target = nextUnlabelledTarget(items, editor.listed ?? items.map((_, i) => i), { index, candidateId }, { annotator, blind: getBlindMode() });
        if ('message' in target) notice(target.message);
        else send({ type: 'reveal', index: target.index, candidateId: target.candidateId, move, answers: 'nextUnlabelled' });
      } catch (err) {
        notice(`Next unlabelled: ${(err as Error).message}`);
      }
    };
    const sendIndex = () => {
      const doc = parseTextDocument(document);
      const annotator = getAnnotator();
      const lines = this.updateDiagnostics(document);
      const items = documentItems(doc);
      const titles = itemTitleList(items);
      sent = { version: document.version, doc, items, titles, annotator };
      changedSinceSent = new Set();
      send({
        type: 'index',
        file: vscode.workspace.asRelativePath(document.uri),
        entries: items.map((it, i) => entryOf(it, i, annotator, titles[i])),
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
      const items = documentItems(parseTextDocument(document));
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
      const doc = parseTextDocument(document);
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
      const items = documentItems(parseTextDocument(document));
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
    let bytesBeforeSave: Uint8Array | undefined;
    // The index goes out when the webview is ready; again only if the bytes show lines the text cannot. While the
    // webview loads its page (~1 s), after VS Code has created it: the parse and the evaluators' names the index
    // needs (cached by version), then the file's bytes (issue 19 item 3; see BASE_DELAY_MS).
    const diskTimer = setTimeout(() => {
      if (document.isClosed) return;
      if (!sent) evaluatorInfoOf(document, documentItems(parseTextDocument(document)), this.context.extensionUri);
      void this.readDisk(document).then((found) => found && sent && sendIndex());
    }, BASE_DELAY_MS);
    // Unsaved labels are merged into what a job writes to the file meanwhile (externalChanges.ts).
    const merger = new ExternalChangeMerger(document, panel, send, () => parseTextDocument(document));
    const subscriptions = [
      merger,
      vscode.workspace.onDidChangeTextDocument((e) => {
        if (e.document.uri.toString() !== document.uri.toString() || e.contentChanges.length === 0) return;
        traceLabel('changed');
        const lines = changedLinesInPlace(e.contentChanges);
        if (!lines) changedSinceSent = 'all';
        else if (changedSinceSent !== 'all') for (const l of lines) changedSinceSent.add(l);
        update();
        traceLabel('handled');
        // Not dirty after a change: reloaded from disk (an external edit) or back at the saved text; read the bytes again.
        if (!document.isDirty) void this.readDisk(document).then((found) => found && sendIndex());
      }),
      vscode.workspace.onWillSaveTextDocument((e) => {
        // The file's bytes just before VS Code writes the text: what the byte-preserving path keeps.
        if (e.document.uri.toString() !== document.uri.toString() || document.uri.scheme !== 'file') return;
        e.waitUntil(
          vscode.workspace.fs.readFile(document.uri).then(
            (bytes) => void (bytesBeforeSave = bytes),
            () => void (bytesBeforeSave = undefined),
          ),
        );
      }),
      vscode.workspace.onDidSaveTextDocument((d) => {
        if (d.uri.toString() !== document.uri.toString()) return;
        const before = bytesBeforeSave;
        bytesBeforeSave = undefined;
        // Problem lines get their bytes back first; then what the bytes say now.
        void this.keepProblemLinesAfterSave(document, before)
          .catch((err: Error) => void vscode.window.showErrorMessage(`ReflectEval: keeping problem lines of ${vscode.workspace.asRelativePath(document.uri)} after the save: ${err.message}`))
          .then(() => this.readDisk(document))
          .then(() => sendIndex());
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
              const item = documentItems(parseTextDocument(document))[index];
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

  private setActive(document: vscode.TextDocument | undefined): void {
    if (this.active === document) return;
    this.active = document;
    this.onDidChangeActiveEmitter.fire(document);
  }
}
