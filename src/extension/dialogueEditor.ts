/**
 * The dialogue editor: a `CustomEditorProvider` over `*.dialogues.jsonl`, split by responsibility (issue 38):
 *
 * - the document model (`DialogueFileDocument`, dialogueDocument.ts): the bytes and text, the parse, edits on VS
 *   Code's undo stack, problem lines, the byte-preserving save and the merge of what a job writes to the file;
 * - one controller per open editor (editor/controller.ts): its state, the pure decision of what to send the
 *   webview (editor/updates.ts), where a labelling key is applied (editor/keyRoute.ts), and the label operations
 *   applied in order;
 * - the webview behind its message channel (webviewChannel.ts, webview/editor/protocol.ts);
 * - this provider: what VS Code asks of a custom editor (open, save, revert, hot-exit backup, undo stack), the
 *   editor's webview and the VS Code side of its controller (settings, commands, diagnostics), and what spans the
 *   open editors: the active document and selection the panels and commands follow, the focus context key of the
 *   labelling keys, the progress in the status bar.
 *
 * Labelling keys are VS Code keybindings on `reflectEval.label.*` commands (src/core/labels/labelKeys.ts); a command
 * is routed here to the editor whose webview has focus.
 */
import { basename, dirname } from 'node:path';
import * as vscode from 'vscode';
import { DialogueFileDocument, onDidEditDialogue, sidecarBackupOf, type SaveReport } from './dialogueDocument';
import { blindCandidateId } from '../core/labels/annotatorView';
import { responseListOrder } from '../core/navigation/responseList';
import { changedLinesInPlace } from '../core/format/lineUpdate';
import type { ProblemLine } from '../core/format/lineReport';
import { loadPromptLibrary } from '../core/templates/judgePrompt';
import type { EditorAction } from '../core/labels/labelKeys';
import type { EditorProtocol } from '../../webview/editor/protocol';
import { FOCUS_CONTEXT_KEY } from './labelKeybindings';
import { getAnnotator, getBlindMode } from './settings';
import { showPage } from './panels';
import { editorPlanState } from './labelPlan';
import { traceLabel } from './labelTrace';
import { EditorController, type EditorHost } from './editor/controller';
import { EDITOR_PAGE } from './editor/page';
import { ProgressStatusBar } from './editor/progressStatusBar';
import { scopeNow, type RequestSpecs } from './editor/updates';
import { DEFAULT_SETUP, labellingSettings, readStudySetup, setupFilesOf, type StudySetup } from './editor/study';
import { teamManifests, teamStatus } from './editor/teamProgress';

export const DIALOGUE_EDITOR_VIEW_TYPE = 'reflectEval.dialogueEditor';

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

/** Says what a save did beyond writing the text: lines kept byte for byte, or problem lines it had to change. */
function announceSave(report: SaveReport): void {
  const lines = (ls: { line: number }[]) => ls.map((l) => l.line).join(', ');
  if (report.kind === 'restored') vscode.window.setStatusBarMessage(`ReflectEval: saved ${report.name} keeping line${report.restored.length === 1 ? '' : 's'} ${report.restored.join(', ')} byte for byte`, 8000);
  if (report.kind !== 'edited') return;
  const n = report.changed.length;
  void vscode.window.showWarningMessage(
    `ReflectEval: this save changed problem line${n === 1 ? '' : 's'} ${lines(report.changed)} of ${report.name} (${report.changed[0].message}${n > 1 ? '; …' : ''}), and could not keep ${n === 1 ? 'it' : 'them'} byte for byte because ${report.reason}. The file as it was before the save is in ${vscode.workspace.asRelativePath(report.backup)}.`,
  );
}

/** The item (and candidate) last selected in a dialogue editor. */
export interface DialogueSelection {
  document: DialogueFileDocument;
  itemIndex: number;
  candidateId: string | null;
}

/** One open dialogue editor: its document, panel and controller, and its webview's focus. */
interface OpenEditor {
  document: DialogueFileDocument;
  panel: vscode.WebviewPanel;
  controller: EditorController;
  /** Whether its webview has keyboard focus. */
  focused: boolean;
  /** What the webview was last told by a `keys` message. */
  keysLive?: boolean;
  /** The study's rubric and packet manifest, as last read beside the file (re-read when either changes). */
  setup: StudySetup;
  /** The team's progress lines for the status bar tooltip, when the study's packets exist (computed a moment after a change). */
  team?: string[];
  /** The team's progress in the status bar's text (annotators' counts and α so far; editor/teamProgress.ts). */
  teamText?: string;
}

/** Workspace-state key: folders team packets were assigned into, by study file (the team's progress reads them). */
export const TEAM_FOLDERS_KEY = 'reflectEval.teamFolders';

/** How long after a change the team's progress is computed again (ms): a key press should not wait for it. */
const TEAM_DELAY_MS = 800;

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
  /** Labelling progress of the active dialogue editor in the status bar. */
  private readonly status = new ProgressStatusBar();
  /**
   * Valid answers of the bundled judge requests (prompts/requests/*.json), read once; a request of the workspace's
   * own prompts folder that is not bundled has no scale shown.
   */
  private requestSpecs: RequestSpecs | undefined;
  private focusContextSeq = 0;

  constructor(private readonly context: vscode.ExtensionContext) {
    context.subscriptions.push(this.diagnostics, this.status);
  }

  /** The last selection in an open dialogue editor. */
  get selection(): DialogueSelection | undefined {
    return this.selectionState && !this.selectionState.document.isClosed ? this.selectionState : undefined;
  }

  /** The dialogue document whose editor was last active, if still open. */
  get activeDocument(): DialogueFileDocument | undefined {
    return this.active && !this.active.isClosed ? this.active : undefined;
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
          const name = document.name;
          const choice = await vscode.window.showWarningMessage(
            `${name} changed on disk, and the editor's unsaved changes are not only labels, so they could not be merged into it. Write the editor's version over the file's?`,
            { modal: true, detail: 'Overwrite replaces what was written to the file (a job’s results, say); Revert File instead takes the file’s version and drops the unsaved changes.' },
            'Overwrite',
          );
          if (choice !== 'Overwrite') throw new Error(`${name} was not saved: it changed on disk (Overwrite, or Revert File)`);
        }
        announceSave(await document.save());
      },
      saveCustomDocumentAs: async (document, destination) => announceSave(await document.saveAs(destination)),
      revertCustomDocument: (document) => document.reload(),
      backupCustomDocument: async (document, context) => {
        await document.backupTo(context.destination);
        const sidecars = sidecarBackupOf(context.destination);
        return {
          id: context.destination.toString(),
          delete: () => {
            void vscode.workspace.fs.delete(context.destination).then(undefined, () => undefined);
            void vscode.workspace.fs.delete(sidecars).then(undefined, () => undefined);
          },
        };
      },
    };
  }

  resolveCustomEditor(document: DialogueFileDocument, panel: vscode.WebviewPanel): void {
    const { channel, subscription } = showPage<EditorProtocol>(panel.webview, this.context.extensionUri, EDITOR_PAGE);
    // Unsaved labels are merged into what a job writes to the file meanwhile (externalChanges.ts); the merger hears
    // of each change before the editor does.
    document.watchDisk();
    const onDisk = document.uri.scheme === 'file';
    const editor = { document, panel, focused: false, setup: onDisk ? readStudySetup(document.uri.fsPath) : DEFAULT_SETUP } as OpenEditor;
    editor.controller = new EditorController(document, this.hostFor(editor), channel);
    this.open.add(editor);
    // The rubric and a packet's manifest beside the file: read again when either is created, changed or deleted.
    const setupWatchers = onDisk
      ? setupFilesOf(document.uri.fsPath).map((f) => {
          const w = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(dirname(f)), basename(f)));
          const reread = () => {
            editor.setup = readStudySetup(document.uri.fsPath);
            editor.controller.setupChanged();
            this.scheduleTeam(editor);
          };
          return [w, w.onDidCreate(reread), w.onDidChange(reread), w.onDidDelete(reread)];
        })
      : [];
    this.scheduleTeam(editor);
    const subscriptions = [
      ...setupWatchers.flat(),
      subscription,
      document.onDidChange((e) => {
        if (e.contentChanges.length > 0) editor.controller.documentChanged(changedLinesInPlace(e.contentChanges));
      }),
      document.onDidSave((phase) => phase === 'did' && editor.controller.saved()),
      document.onDidChangeConflicts((conflicts) => editor.controller.conflictsChanged(conflicts)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('reflectEval.annotator') || e.affectsConfiguration('reflectEval.blindMode') || e.affectsConfiguration('reflectEval.plan.target')) {
          editor.controller.refresh();
          this.updateStatus();
        }
      }),
      panel.onDidChangeViewState(() => {
        if (panel.active) this.setActive(document);
        this.updateStatus();
        if (!panel.visible && editor.focused) {
          editor.focused = false;
          this.updateFocusContext();
        }
      }),
    ];
    panel.onDidDispose(() => {
      clearTimeout(this.teamTimers.get(editor));
      this.teamTimers.delete(editor);
      editor.controller.dispose();
      subscriptions.forEach((s) => s.dispose());
      this.diagnostics.delete(document.uri);
      this.open.delete(editor);
      this.updateFocusContext();
      this.updateStatus();
      if (this.active === document) this.setActive(undefined);
    });
    // The index goes out when the webview is ready; until then the controller builds it ahead.
    editor.controller.start();
    this.setActive(document);
  }

  /** What the controller of `editor` asks of VS Code. */
  private hostFor(editor: OpenEditor): EditorHost {
    const { document, panel } = editor;
    return {
      // A team packet is labelled as its annotator, always blind (issue 44 item 2): no prompt, no change.
      settings: () => labellingSettings(editor.setup, { annotator: getAnnotator(), blind: getBlindMode() }),
      setup: () => editor.setup,
      requestSpecs: () => this.bundledRequestSpecs(),
      plan: (items, blind, names) => editorPlanState(document, items, blind, names),
      setDiagnostics: (lines) => this.diagnostics.set(document.uri, lines.map((l) => problemDiagnostic(document, l))),
      showError: (message) => void vscode.window.showErrorMessage(`ReflectEval: ${message}`),
      runCommand: (command) => Promise.resolve(vscode.commands.executeCommand(`reflectEval.${command}`)),
      activate: () => this.setActive(document),
      webviewReady: () => (editor.keysLive = undefined),
      revealLine: (line) => revealLine(document, line),
      selected: (itemIndex, candidateId) => this.select({ document, itemIndex, candidateId }),
      focused: (focused) => {
        // Only one webview has focus at a time; a hidden one may never report its blur.
        if (focused) for (const other of this.open) other.focused = false;
        editor.focused = focused && panel.visible;
        if (focused) this.setActive(document);
        this.updateFocusContext();
      },
      progress: () => {
        if (panel.active) this.updateStatus();
        this.scheduleTeam(editor);
      },
      trace: traceLabel,
    };
  }

  private bundledRequestSpecs(): RequestSpecs {
    if (!this.requestSpecs) {
      try {
        const lib = loadPromptLibrary(vscode.Uri.joinPath(this.context.extensionUri, 'prompts').fsPath);
        this.requestSpecs = Object.fromEntries(Object.entries(lib.requests).map(([name, r]) => [name, r.spec]));
      } catch {
        this.requestSpecs = {};
      }
    }
    return this.requestSpecs;
  }

  private select(selection: DialogueSelection): void {
    this.selectionState = selection;
    this.onDidChangeSelectionEmitter.fire(selection);
  }

  /** Shows the progress of the active dialogue editor in the status bar, or hides it when none is active. */
  private updateStatus(): void {
    const active = [...this.open].find((e) => e.panel.active);
    const progress = active?.controller.progress;
    if (!active || !progress) {
      this.status.showTeam(undefined);
      return this.status.hide();
    }
    const packet = active.setup.packet;
    this.status.show(progress, packet ? packet.annotator : getAnnotator(), { packet, team: active.team, scope: scopeNow(active.controller.state, { setup: active.setup }), toGo: active.controller.state.toGo });
    this.status.showTeam(active.teamText, active.team);
  }

  private readonly teamTimers = new Map<OpenEditor, ReturnType<typeof setTimeout>>();

  /**
   * Computes the team's progress of a study a moment after a change (not for a packet, whose annotator sees only
   * their own): when packets of it exist beside it or in a folder they were assigned into, or two annotators labelled it.
   */
  private scheduleTeam(editor: OpenEditor): void {
    if (editor.document.uri.scheme !== 'file' || editor.setup.packet || !editor.setup.rubric) {
      editor.team = undefined;
      editor.teamText = undefined;
      return;
    }
    clearTimeout(this.teamTimers.get(editor));
    this.teamTimers.set(
      editor,
      setTimeout(() => {
        this.teamTimers.delete(editor);
        if (editor.document.isClosed || !editor.setup.rubric) return;
        const file = editor.document.uri.fsPath;
        const remembered = this.context.workspaceState.get<Record<string, string[]>>(TEAM_FOLDERS_KEY, {})[file] ?? [];
        const found = teamManifests(file, remembered);
        try {
          const status = teamStatus(editor.document.items(), editor.setup.rubric, found, (p) => vscode.workspace.asRelativePath(p));
          editor.team = status?.lines;
          editor.teamText = status?.text;
        } catch (err) {
          editor.team = [`Team progress: ${(err as Error).message}`];
          editor.teamText = '$(organization) team progress: see tooltip';
        }
        if (editor.panel.active) this.updateStatus();
      }, TEAM_DELAY_MS),
    );
  }

  /** The team packet open in the focused or active dialogue editor, if it is one (blind mode and the annotator are the packet's there). */
  activePacket(): StudySetup['packet'] {
    return this.target()?.setup.packet ?? null;
  }

  /** The study's packets were assigned into or collected from `folder`: remember it, and show the team's progress. */
  rememberTeamFolder(studyFile: string, folder: string): void {
    const all = { ...this.context.workspaceState.get<Record<string, string[]>>(TEAM_FOLDERS_KEY, {}) };
    all[studyFile] = [...new Set([...(all[studyFile] ?? []), folder])];
    void this.context.workspaceState.update(TEAM_FOLDERS_KEY, all);
    for (const e of this.open) if (e.document.uri.scheme === 'file' && e.document.uri.fsPath === studyFile) this.scheduleTeam(e);
  }

  /** Switches the item list of `document`'s editor to plan order (after "Plan Labels…"). */
  showPlan(document: DialogueFileDocument): void {
    for (const e of this.open) if (e.document === document) e.controller.showPlan();
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
    editor.controller.key(action);
    return true;
  }

  /**
   * Opens `document` in the dialogue editor (or brings its editor forward) and shows one item with one candidate
   * focused: the drill-down from a plotted point or a cell.
   *
   * @returns false when no item has that id
   */
  async reveal(document: DialogueFileDocument, itemId: string, candidateId?: string): Promise<boolean> {
    const index = document.items().findIndex((it) => it.id === itemId);
    if (index < 0) return false;
    const editor = await this.brought(document);
    if (!editor) return false;
    editor.controller.reveal(index, candidateId ? this.shownId(itemId, candidateId) : null);
    return true;
  }

  /**
   * Opens `document` in the dialogue editor (or brings its editor forward) in response-list mode (issue 41 item 4):
   * the responses behind one correlation, ordered by the evaluator's score (core `responseListOrder`), the one at
   * `at` (else the first) shown and focused; J/K move through them and Escape returns.
   *
   * @param points - the responses by item id and candidate id in the file; those whose item is gone are left out
   * @returns how many responses the list has (0: none of them is in the file, nothing was opened)
   */
  async revealResponses(document: DialogueFileDocument, head: { title: string; evaluator: string }, points: readonly { itemId: string; candidateId: string; score: number; human: number }[], at?: { itemId: string; candidateId: string }): Promise<number> {
    const indexOf = new Map(document.items().map((it, i) => [it.id, i] as const));
    const placed = points.flatMap((p) => {
      const index = indexOf.get(p.itemId);
      return index === undefined ? [] : [{ ...p, index, fileCandidateId: p.candidateId, candidateId: this.shownId(p.itemId, p.candidateId) }];
    });
    if (placed.length === 0) return 0;
    const entries = responseListOrder(placed);
    const start = at ? Math.max(0, entries.findIndex((e) => e.itemId === at.itemId && e.fileCandidateId === at.candidateId)) : 0;
    const editor = await this.brought(document);
    if (!editor) return 0;
    editor.controller.showResponses({ ...head, start, entries: entries.map(({ index, itemId, candidateId, score, human }) => ({ index, itemId, candidateId, score, human })) });
    return entries.length;
  }

  /** The editor of `document`, brought forward (opened in the first column when it is not open). */
  private async brought(document: DialogueFileDocument): Promise<OpenEditor | undefined> {
    const editor = [...this.open].find((e) => e.document === document);
    if (editor) {
      editor.panel.reveal(editor.panel.viewColumn, false);
      return editor;
    }
    await vscode.commands.executeCommand('vscode.openWith', document.uri, DIALOGUE_EDITOR_VIEW_TYPE, { viewColumn: vscode.ViewColumn.One });
    return [...this.open].find((e) => e.document.uri.toString() === document.uri.toString());
  }

  /** The id the view shows a candidate under: in blind mode an opaque one. */
  private shownId(itemId: string, candidateId: string): string {
    const annotator = getAnnotator();
    return getBlindMode() && annotator ? blindCandidateId(itemId, candidateId, annotator) : candidateId;
  }

  /** Shows or hides every annotator's labels in the focused or active dialogue editor. */
  toggleComparison(): boolean {
    const editor = this.target();
    if (!editor) return false;
    editor.controller.toggleComparison();
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
        e.controller.keysLive(e.focused);
      }
    });
  }

  private setActive(document: DialogueFileDocument | undefined): void {
    if (this.active === document) return;
    this.active = document;
    this.onDidChangeActiveEmitter.fire(document);
  }
}
