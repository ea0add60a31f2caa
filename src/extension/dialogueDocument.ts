/**
 * The dialogue editor's document model (issue 19 item 3; one object since issue 38): a dialogue file open in the
 * dialogue editor. The editor is a `CustomEditorProvider`: VS Code does not read the file into a text model first
 * (~5 s for a 45 MB file, and no file over 50 MB at all), so the document is ours. It holds
 *
 * - the bytes as text: the text VS Code would hold (`LineText`, core) with its undo stack and saved point
 *   (`LineDocument`, core), answering the lookups the editor made of a `TextDocument` (`getText`, `lineAt`,
 *   `lineCount`, `version`, `isDirty`), and reporting every change through {@link onDidChangeDialogue};
 * - the parse, cached by version and re-parsed incrementally after label edits ({@link DialogueFileDocument.parse});
 * - edits: whole lines replaced as one step of VS Code's undo stack (`edit`, `updateItems`);
 * - its problem lines, from the text and from the bytes on disk the text cannot show (`problemLines`, for the
 *   diagnostics and the editor's banner);
 * - the byte-preserving save (`save`, `saveAs`: problem lines written back byte for byte);
 * - the merge of what a job writes to the file meanwhile into its unsaved labels (`watchDisk`, externalChanges.ts);
 * - the study's label sidecars (`<study>.labels/<annotator>.jsonl`, issue 44 item 1), read as every job reads them
 *   (core `readLabelsFolder`) and laid over the items the editor shows (`parse`, core `sidecarView`); a label of an
 *   annotator whose labels live in a sidecar is written to that sidecar (core `routeItemEdit`), in the same step of
 *   the undo stack as the study's lines, and saved with the study (sidecars first, only those that changed).
 *
 * A file on disk is read and decoded on first use, after VS Code has created the editor's webview (reading and
 * decoding 45 MB takes ~0.2 s of the extension host's single thread, which VS Code's round trips wait for).
 */
import * as vscode from 'vscode';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { LineText, type LineReplacement } from '../core/format/lineText';
import { LineDocument } from '../core/format/lineDocument';
import { documentItems, headerEditFor, parseDocument, parseRawLines, serializeItem, type DialogueDocument, type RawLine } from '../core/format/jsonl';
import { changedLinesInPlace, reparseLines } from '../core/format/lineUpdate';
import { problemLines, withDiskProblems, type ProblemLine } from '../core/format/lineReport';
import { bytesVsCodeKeeps } from '../core/format/vsCodeSafe';
import { keepProblemLines } from '../core/format/keepProblemLines';
import { decodeUtf8Lossy } from '../core/format/bytes';
import { writeTextAtomic } from '../core/format/files';
import { bytesEqual } from '../core/format/bytes';
import { labelsFolderOf, withSidecarWrites, type LabelProblem, type LabelSidecars } from '../core/format/labelSidecars';
import { readLabelsFolder } from '../core/format/studyFiles';
import { routeItemEdit, sidecarView, type SidecarView } from '../core/format/sidecarEdits';
import { existsSync, mkdirSync, readFileSync as readBytes } from 'node:fs';
import { join } from 'node:path';
import type { DialogueItem } from '../core/dialogue/types';
import type { ConflictEntry } from '../../webview/editor/protocol';
import { ExternalChangeMerger, type MergedDocument } from './externalChanges';

/** A change of a dialogue document, shaped as VS Code's `TextDocumentChangeEvent` for the listeners that had one. */
export interface DialogueChange {
  document: DialogueFileDocument;
  /** The replaced ranges (lines of the document before the change) and their new text; empty when only the dirty state changed. */
  contentChanges: { range: vscode.Range; text: string }[];
}

const changeEmitter = new vscode.EventEmitter<DialogueChange>();
/** Fires after any change of any open dialogue document: an edit, an undo or redo, a reload, a save (dirty state). */
export const onDidChangeDialogue = changeEmitter.event;
const saveEmitter = new vscode.EventEmitter<{ document: DialogueFileDocument; phase: 'will' | 'did' }>();
/** Fires when a save of a dialogue document begins (`will`) and when it has ended (`did`: written, or failed). */
export const onDidSaveDialogue = saveEmitter.event;

const editEmitter = new vscode.EventEmitter<vscode.CustomDocumentEditEvent<DialogueFileDocument>>();
/** Fires for every undoable edit of a dialogue document: the provider's `onDidChangeCustomDocument`. */
export const onDidEditDialogue = editEmitter.event;

/** Every dialogue document VS Code has open. */
export const openDialogueDocuments = new Set<DialogueFileDocument>();

/** What a save from this editor does to a line VS Code would change (see `DialogueFileDocument.save`). */
export const SAVE_KEEPS_BYTES = 'a save from this editor keeps its bytes, unless the line is edited';

/** A problem line whose bytes VS Code's save would change, with what this editor's save does about it. */
function withSaveNote(line: ProblemLine): ProblemLine {
  if (!line.inVsCode.some((c) => c === 'invalidUtf8' || c === 'loneCr')) return line;
  return { ...line, reasons: [...line.reasons, SAVE_KEEPS_BYTES], message: `${line.message}; ${SAVE_KEEPS_BYTES}` };
}

/**
 * What a save did beyond writing the text: problem lines written back byte for byte (`restored`, 1-based file
 * lines), or problem lines the save had to change (`changed`, why, and where the file as it was is kept).
 */
export type SaveReport =
  | { kind: 'written' }
  | { kind: 'restored'; name: string; restored: number[] }
  | { kind: 'edited'; name: string; changed: { line: number; message: string }[]; reason: string; backup: vscode.Uri };

/** One line of a dialogue document, as `TextDocument.lineAt` gave it. */
export interface DialogueLine {
  text: string;
  range: vscode.Range;
}

/** A dialogue file open in the dialogue editor. */
export class DialogueFileDocument implements vscode.CustomDocument {
  /** The text, its undo stack and its saved point (core `LineDocument`), once read. */
  private state: LineDocument | undefined;
  private readonly source: vscode.Uri;
  private closed = false;
  /**
   * Set when the file changed on disk in a way the editor could not merge its unsaved changes into
   * (externalChanges.ts): a save then asks before writing over it. Cleared by a reload or a save.
   */
  newerOnDisk = false;
  /**
   * The parse of version `version`, and the lines changed in place since (every change this document fired), or
   * `'all'` after a structural change: the next parse re-parses only those lines when it can (issue 19 item 3).
   */
  private parsed: { version: number; doc: DialogueDocument; pending?: Set<number> | 'all'; seen: number } | undefined;
  /** Problem lines read from the file's bytes that the text cannot show, by the text VS Code shows for their first line. */
  private onDisk = new Map<string, ProblemLine>();
  private merger: ExternalChangeMerger | undefined;
  /**
   * The study's labels folder as the editor holds it (unsaved sidecar labels included), undefined when the study
   * has none; `sidecarsRead` once it was looked for.
   */
  private sidecars: LabelSidecars | undefined;
  private sidecarsRead = false;
  /** Each sidecar's bytes as last read from or written to disk, by file name (what a save compares with). */
  private savedSidecars = new Map<string, Uint8Array>();
  /** The sidecars as last read or written (while they are the same object, none is dirty). */
  private savedSidecarState: LabelSidecars | undefined;
  /** Problems of reading the labels folder itself (it is a file, it cannot be read). */
  private sidecarFolderProblems: LabelProblem[] = [];
  /** The parse with the sidecars laid over, for one text parse and one state of the sidecars. */
  private view: { raw: DialogueDocument; sidecars: LabelSidecars | undefined; view: SidecarView } | undefined;
  private sidecarWatcher: vscode.Disposable | undefined;
  /** Sidecars as a hot-exit backup held them (unsaved), laid over the folder on disk when it is first read. */
  private backupSidecars: { name: string; bytes: Uint8Array }[] | undefined;
  private readonly conflictsEmitter = new vscode.EventEmitter<ConflictEntry[]>();
  /** Fires with every unsaved label a merge with the file on disk could not settle, whenever that list changes. */
  readonly onDidChangeConflicts = this.conflictsEmitter.event;

  /**
   * @param uri - the file
   * @param viewType - the editor's view type (its undo stack is VS Code's for that view type)
   * @param from - where to read the text: the file itself, or a hot-exit backup (the document is then dirty)
   */
  constructor(
    readonly uri: vscode.Uri,
    readonly viewType: string,
    from?: vscode.Uri,
  ) {
    this.source = from ?? uri;
    openDialogueDocuments.add(this);
  }

  private get fromBackup(): boolean {
    return this.source !== this.uri;
  }

  /**
   * Reads and decodes the file (or backup) now, not on first use: for what is not a file on disk, which cannot be
   * read synchronously.
   *
   * @throws when it cannot be read
   */
  async ready(): Promise<void> {
    const bytes = this.source.scheme === 'file' ? await readFile(this.source.fsPath) : await vscode.workspace.fs.readFile(this.source);
    this.state ??= new LineDocument(LineText.fromBytes(bytes), !this.fromBackup);
    if (this.fromBackup && !this.sidecarsRead) {
      // The unsaved sidecar labels of a hot-exit backup (`backupTo`), laid over the sidecars on disk when first read.
      try {
        const saved = JSON.parse(new TextDecoder().decode(await vscode.workspace.fs.readFile(sidecarBackupOf(this.source)))) as { files: { name: string; base64: string }[] };
        this.backupSidecars = saved.files.map((f) => ({ name: f.name, bytes: Buffer.from(f.base64, 'base64') }));
      } catch {
        // No sidecar labels were unsaved.
      }
    }
  }

  /**
   * The document, read on first use: not while VS Code creates the editor's webview, whose round trips wait for the
   * extension host (reading and decoding 45 MB takes ~0.2 s).
   */
  private get doc(): LineDocument {
    if (!this.state) {
      if (this.source.scheme !== 'file') throw new Error(`${this.source.toString()} has not been read (DialogueFileDocument.ready)`);
      this.state = new LineDocument(LineText.fromBytes(readFileSync(this.source.fsPath)), !this.fromBackup);
    }
    return this.state;
  }

  /** Increases with every change of the text. */
  get version(): number {
    return this.state?.version ?? 1;
  }

  /** Whether the text differs from the file as last read or saved (by the undo stack's position). */
  get isDirty(): boolean {
    return (this.state ? this.state.isDirty : this.fromBackup) || this.sidecarsDirty;
  }

  get isClosed(): boolean {
    return this.closed;
  }

  get lineCount(): number {
    return this.doc.text.lineCount;
  }

  /** The whole text (no BOM). */
  getText(): string {
    return this.doc.text.getText();
  }

  /** The lines as `splitLines` would split {@link getText} (`LineText.rawLines`). */
  rawLines(): RawLine[] {
    return this.doc.text.rawLines();
  }

  /** @throws RangeError for a line out of range */
  lineAt(line: number): DialogueLine {
    const text = this.doc.text.line(line);
    return { text, range: new vscode.Range(line, 0, line, text.length) };
  }

  /** The bytes a save writes (BOM and line ending as read). */
  toBytes(): Uint8Array {
    return this.doc.text.toBytes();
  }

  private fire(contentChanges: DialogueChange['contentChanges']): void {
    this.trackParse(contentChanges);
    changeEmitter.fire({ document: this, contentChanges });
  }

  /** Notes, for the cached parse, which lines a change touched (before anyone else hears of it). */
  private trackParse(contentChanges: DialogueChange['contentChanges']): void {
    const hit = this.parsed;
    if (!hit || contentChanges.length === 0 || hit.version === this.version) return;
    const lines = changedLinesInPlace(contentChanges);
    if (!lines) hit.pending = 'all';
    else if (hit.pending !== 'all') {
      hit.pending ??= new Set();
      for (const l of lines) hit.pending.add(l);
    }
    hit.seen = this.version;
  }

  /** The file's name as the workspace shows it (in messages and parse errors). */
  get name(): string {
    return vscode.workspace.asRelativePath(this.uri);
  }

  /**
   * The parsed document, cached by version: re-parsed incrementally after label edits (the lines changed in place
   * since the cached version, `document.lineAt`), from its lines otherwise (no join and split of the whole text).
   * Treat it as read-only: the editor, the panels and the commands share it.
   */
  parse(): DialogueDocument {
    return this.sidecarView().doc;
  }

  /** The parse of the study's text alone (inline labels only), cached by version: what its file holds. */
  parseText(): DialogueDocument {
    const hit = this.parsed;
    if (hit && hit.version === this.version) return hit.doc;
    // Only when every change that made this version was seen (each is, through `fire`; a version reached without
    // one is parsed from its lines).
    const inPlace = hit && hit.pending instanceof Set && hit.seen === this.version && [...hit.pending].every((l) => l < this.lineCount) ? reparseLines(hit.doc, [...hit.pending].map((line) => ({ line, text: this.lineAt(line).text }))) : undefined;
    const doc = inPlace ?? parseRawLines(this.rawLines(), this.name, hit?.doc);
    this.parsed = { version: this.version, doc, seen: this.version };
    return doc;
  }

  /**
   * The study's parse with its sidecars laid over (core `sidecarView`), cached per text parse and sidecar state.
   */
  sidecarView(): SidecarView {
    const raw = this.parseText();
    this.readSidecars();
    const hit = this.view;
    if (hit && hit.raw === raw && hit.sidecars === this.sidecars) return hit.view;
    const view = sidecarView(raw, this.sidecars);
    this.view = { raw, sidecars: this.sidecars, view };
    return view;
  }

  /** Whether the study keeps labels in sidecar files (its labels folder exists). */
  get usesSidecars(): boolean {
    this.readSidecars();
    return this.sidecars !== undefined;
  }

  /**
   * The problems of the study's labels in sidecar files — lines that are not labels, labels of items or candidates
   * not in the study, conflicts with inline labels — each with its file and line (never dropped silently).
   */
  labelProblems(): LabelProblem[] {
    if (!this.usesSidecars && this.sidecarFolderProblems.length === 0) return [];
    return [...this.sidecarFolderProblems, ...this.sidecarView().overlay.problems];
  }

  /** Reads the labels folder once, on first use (a file on disk that is not a hot-exit backup's text only). */
  private readSidecars(): void {
    if (this.sidecarsRead) return;
    this.sidecarsRead = true;
    if (this.uri.scheme !== 'file') return;
    try {
      this.setSidecarsFromDisk(readLabelsFolder(this.uri.fsPath));
      if (this.backupSidecars?.length) {
        const folder = this.sidecars?.folder ?? labelsFolderOf(this.uri.fsPath).split(/[\\/]/).pop()!;
        this.sidecars = withSidecarWrites(this.sidecars, this.backupSidecars.map((f) => ({ name: f.name, file: `${folder}/${f.name}`, annotator: '', bytes: f.bytes, created: false, linesChanged: 0 })), folder);
      }
    } catch (err) {
      this.sidecarFolderProblems = [{ file: vscode.workspace.asRelativePath(labelsFolderOf(this.uri.fsPath)), line: 1, code: 'fileName', message: (err as Error).message }];
    }
  }

  private setSidecarsFromDisk(sidecars: LabelSidecars | undefined): void {
    this.sidecars = sidecars;
    this.savedSidecarState = sidecars;
    this.savedSidecars = new Map((sidecars?.files ?? []).map((f) => [f.name, f.bytes]));
  }

  /** Whether a sidecar differs from the file as last read or written. */
  private get sidecarsDirty(): boolean {
    if (this.sidecars === this.savedSidecarState) return false;
    const files = this.sidecars?.files ?? [];
    if (files.length !== this.savedSidecars.size) return true;
    return files.some((f) => {
      const saved = this.savedSidecars.get(f.name);
      return !saved || !bytesEqual(saved, f.bytes);
    });
  }

  /** The items of {@link parse}, in file order. */
  items(): DialogueItem[] {
    return documentItems(this.parse());
  }

  /**
   * Replaces items (matched by id) with the result of `update`, as one undoable edit that replaces only the lines of
   * items that changed (and the header of a compact file, when new evaluators join it). Items for which `update`
   * returns undefined are left alone.
   *
   * @param label - what VS Code's undo and redo name the edit
   * @returns number of lines changed
   * @throws Error when a line is not where the parse says (nothing is changed then)
   */
  updateItems(update: (item: DialogueItem) => DialogueItem | undefined, label = 'Label'): number {
    if (this.usesSidecars) return this.updateWithSidecars(update, label);
    return this.updateText(update, label);
  }

  /**
   * {@link updateItems} for a study with sidecars: each label where its annotator's labels are kept (core
   * `routeItemEdit`), the study's lines and the sidecars in one step of the undo stack.
   *
   * @throws LabelWriteError (nothing changed) when a label cannot be written where it belongs
   */
  private updateWithSidecars(update: (item: DialogueItem) => DialogueItem | undefined, label: string): number {
    const raw = this.parseText();
    const { overlay } = this.sidecarView();
    const routed = routeItemEdit(raw, overlay, update);
    if (routed.itemLines.length === 0) return 0;
    const edits: { line: number; text: string }[] = [];
    for (const { line, raw: was, text } of routed.lines) {
      if (this.lineAt(line).text !== was.replace(/^\uFEFF/, '')) throw new Error(`line ${line + 1} of ${this.uri.fsPath} is not where ReflectEval expected it; nothing was changed`);
      edits.push({ line, text: text.replace(/^\uFEFF/, '') });
    }
    const before = this.sidecars;
    const after = routed.sidecars.length ? withSidecarWrites(before, routed.sidecars, before?.folder) : before;
    if (edits.length === 0 && after === before) return 0;
    const lines = routed.itemLines;
    const also = after === before ? undefined : { redo: () => ((this.sidecars = after), lines), undo: () => ((this.sidecars = before), lines) };
    return this.edit(edits, label, also);
  }

  /** {@link updateItems} on the study's text alone. */
  private updateText(update: (item: DialogueItem) => DialogueItem | undefined, label: string): number {
    const doc = this.parseText();
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
      const current = this.lineAt(line).text;
      if (current !== raw.replace(/^\uFEFF/, '')) throw new Error(`line ${line + 1} of ${this.uri.fsPath} is not where ReflectEval expected it; nothing was changed`);
      edits.push({ line, text: text.replace(/^\uFEFF/, '') });
    }
    if (edits.length > 0) this.edit(edits, label);
    return edits.length;
  }

  /**
   * Reads the file's bytes (when the document is a file and has no unsaved changes) for what the text cannot show:
   * bytes that are not UTF-8 (VS Code shows U+FFFD and a save writes it), lone CRs (VS Code splits the line).
   *
   * @returns whether there were or are such lines (the editor's index and the diagnostics then need updating)
   */
  async readDiskProblems(): Promise<boolean> {
    if (this.uri.scheme !== 'file' || this.isDirty) return false;
    const version = this.version;
    let bytes: Uint8Array;
    try {
      bytes = await vscode.workspace.fs.readFile(this.uri);
    } catch {
      return false;
    }
    if (this.isClosed || this.version !== version || this.isDirty) return false;
    const before = this.onDisk;
    const byText = new Map<string, ProblemLine>();
    // Nothing VS Code would change (the usual case): no need to parse and validate every line again (issue 19 item 3).
    const lines = bytesVsCodeKeeps(bytes) ? [] : problemLines(parseDocument(bytes, this.name));
    for (const l of lines) {
      // Only what the text cannot show: other problems are found in the text, wherever the line is now.
      if (l.inVsCode.length > 0 && l.editorLine - 1 < this.lineCount) byText.set(this.lineAt(l.editorLine - 1).text, l);
    }
    this.onDisk = byText;
    return before.size > 0 || byText.size > 0;
  }

  /** How many problem lines only the file's bytes show (last read by {@link readDiskProblems}). */
  get diskProblemCount(): number {
    return this.onDisk.size;
  }

  /**
   * The problem lines of the document as it is now — from its text, with what its file's bytes say about lines
   * still as they were read — each with what this editor's save does about it.
   */
  problemLines(): ProblemLine[] {
    return withDiskProblems(problemLines(this.parseText()), this.onDisk, this.lineCount, (i) => this.lineAt(i).text).map(withSaveNote);
  }

  /**
   * Saves the document to its file (Ctrl+S, Save All, auto-save, saving on close), keeping problem lines byte for
   * byte (see {@link saveAs}), and marks it saved. Listeners hear `will` before and `did` after (written, or failed).
   */
  async save(): Promise<SaveReport> {
    const top = this.stackTop;
    this.announceSave('will');
    try {
      const report = await this.saveAs(this.uri);
      this.newerOnDisk = false;
      this.markSaved(top);
      return report;
    } finally {
      this.announceSave('did');
    }
  }

  /**
   * Writes the document to `target`, keeping problem lines byte for byte (issue 14 item 1). The document holds the
   * text VS Code would show: a line with bytes that are not UTF-8 holds U+FFFD, a lone CR is a line break. When,
   * against the file's bytes as they are now, only items changed, every problem line is written with its old bytes
   * (`keepProblemLines`, core); when more changed (a problem line edited, lines added or removed), the text is
   * written and the file as it was is kept in `.reflect-eval-cache/backups/` (the report says which lines changed
   * and where the backup is). The file is written atomically (a temporary sibling renamed over it).
   */
  async saveAs(target: vscode.Uri): Promise<SaveReport> {
    const bytes = this.toBytes();
    let before: Uint8Array | undefined;
    try {
      before = await vscode.workspace.fs.readFile(target);
    } catch {
      before = undefined;
    }
    const name = vscode.workspace.asRelativePath(target);
    if (target.scheme === 'file') this.writeSidecars(target.fsPath);
    // Bytes the text holds as they are (UTF-8, no CR: `bytesVsCodeKeeps`) have no line to keep; the usual case, and
    // at 45 MB the check costs milliseconds where `keepProblemLines` parses the file twice.
    const result = before && !bytesVsCodeKeeps(before) ? keepProblemLines(before, decodeUtf8Lossy(bytes), name) : ({ kind: 'unchanged' } as const);
    const out = result.kind === 'restore' ? result.bytes : bytes;
    if (target.scheme === 'file') writeTextAtomic(target.fsPath, out);
    else await vscode.workspace.fs.writeFile(target, out);
    if (result.kind === 'restore') return { kind: 'restored', name, restored: result.restored.map((l) => l.line) };
    if (result.kind !== 'edited' || !before) return { kind: 'written' };
    const dir = vscode.Uri.joinPath(target, '..', '.reflect-eval-cache', 'backups');
    const base = target.path.slice(target.path.lastIndexOf('/') + 1);
    const backup = vscode.Uri.joinPath(dir, `${base}.${new Date().toISOString().replace(/[:.]/g, '-')}.before-save`);
    await vscode.workspace.fs.createDirectory(dir);
    await vscode.workspace.fs.writeFile(backup, before);
    return { kind: 'edited', name, changed: result.changed, reason: result.reason, backup };
  }

  /**
   * Writes the study's sidecars beside `studyPath` before the study itself (a save cut short leaves a label in two
   * places, reported as a conflict when read, never in none): to its own labels folder, those that changed since
   * read or saved; to another study's, every one. Nothing is written when a sidecar this save replaces changed on
   * disk since it was read.
   *
   * @throws Error naming the sidecar that changed on disk (nothing written)
   */
  private writeSidecars(studyPath: string): void {
    if (!this.sidecars) return;
    const own = studyPath === this.uri.fsPath;
    const folder = labelsFolderOf(studyPath);
    const files = this.sidecars.files.filter((f) => !own || !this.savedSidecars.has(f.name) || !bytesEqual(this.savedSidecars.get(f.name)!, f.bytes));
    if (own) {
      for (const f of files) {
        const path = join(folder, f.name);
        const saved = this.savedSidecars.get(f.name);
        const now = existsSync(path) ? readBytes(path) : undefined;
        if ((saved === undefined) !== (now === undefined) || (saved && now && !bytesEqual(saved, now))) throw new Error(`${vscode.workspace.asRelativePath(path)} changed on disk since it was read: nothing saved (close the study without saving and open it again, or run the job again)`);
      }
    }
    if (files.length) mkdirSync(folder, { recursive: true });
    for (const f of files) writeTextAtomic(join(folder, f.name), f.bytes);
    if (own) {
      for (const f of files) this.savedSidecars.set(f.name, f.bytes);
      this.savedSidecarState = this.sidecars;
    }
  }

  /** Writes the bytes a save would write to a hot-exit backup at `destination`. */
  async backupTo(destination: vscode.Uri): Promise<void> {
    await vscode.workspace.fs.writeFile(destination, this.toBytes());
    // Unsaved sidecar labels go beside it (restored by `ready`), so a hot exit loses none.
    const dirty = this.sidecarsDirty ? (this.sidecars?.files ?? []).filter((f) => !this.savedSidecars.has(f.name) || !bytesEqual(this.savedSidecars.get(f.name)!, f.bytes)) : [];
    if (dirty.length) await vscode.workspace.fs.writeFile(sidecarBackupOf(destination), new TextEncoder().encode(JSON.stringify({ files: dirty.map((f) => ({ name: f.name, base64: Buffer.from(f.bytes).toString('base64') })) })));
    else await vscode.workspace.fs.delete(sidecarBackupOf(destination)).then(undefined, () => undefined);
  }

  /**
   * Starts merging what a job writes to the file into the document's unsaved labels (externalChanges.ts), once;
   * the merge stops when the document is disposed.
   */
  watchDisk(): void {
    if (this.merger) return;
    // The merger works on the study's text: its labels inline, the job's write to the file (sidecars are watched below).
    const self = this;
    const text: MergedDocument = {
      get uri() { return self.uri; },
      get version() { return self.version; },
      get isDirty() { return self.state ? self.state.isDirty : self.fromBackup; },
      get isClosed() { return self.isClosed; },
      get name() { return self.name; },
      get newerOnDisk() { return self.newerOnDisk; },
      set newerOnDisk(v: boolean) { self.newerOnDisk = v; },
      getText: () => self.getText(),
      toBytes: () => self.toBytes(),
      reload: (bytes) => self.reload(bytes),
      parse: () => self.parseText(),
      updateItems: (update, label) => self.updateText(update, label),
      onDidChange: (l) => self.onDidChange(l),
      onDidSave: (l) => self.onDidSave(l),
    };
    this.merger = new ExternalChangeMerger(text, (conflicts) => this.conflictsEmitter.fire(conflicts));
    if (this.uri.scheme !== 'file') return;
    // A sidecar written by a job (collect, labels split) while the study is open: read again when the editor has no
    // unsaved sidecar labels; otherwise the next save refuses to write over it (writeSidecars).
    const folder = vscode.Uri.file(labelsFolderOf(this.uri.fsPath));
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, '*.jsonl'));
    const changed = () => {
      if (this.closed || !this.sidecarsRead || this.sidecarsDirty) return;
      let read: LabelSidecars | undefined;
      try {
        read = readLabelsFolder(this.uri.fsPath);
      } catch {
        return;
      }
      const before = this.sidecars?.files ?? [];
      const now = read?.files ?? [];
      if (before.length === now.length && before.every((f, i) => f.name === now[i].name && bytesEqual(f.bytes, now[i].bytes))) return;
      this.setSidecarsFromDisk(read);
      const lines = this.parseText().itemLines;
      this.fire(lines.map((line) => ({ range: new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER), text: this.lineAt(line).text })));
    };
    this.sidecarWatcher = vscode.Disposable.from(watcher, watcher.onDidChange(changed), watcher.onDidCreate(changed), watcher.onDidDelete(changed));
  }

  /** The unsaved labels a merge could not settle, as the editor lists them. */
  conflicts(): ConflictEntry[] {
    return this.merger?.conflicts() ?? [];
  }

  /** The user's pick for a conflict (see `ExternalChangeMerger.resolve`). */
  async resolveConflict(id: number, choice: 'mine' | 'disk'): Promise<void> {
    await this.merger?.resolve(id, choice);
  }

  /** Fires after every change of this document (see {@link onDidChangeDialogue}). */
  onDidChange(listener: (e: DialogueChange) => void): vscode.Disposable {
    return onDidChangeDialogue((e) => e.document === this && listener(e));
  }

  /** Fires when a save of this document begins and when it has ended (see {@link onDidSaveDialogue}). */
  onDidSave(listener: (phase: 'will' | 'did') => void): vscode.Disposable {
    return onDidSaveDialogue((e) => e.document === this && listener(e.phase));
  }

  private fireLines(lines: readonly LineReplacement[] | undefined): void {
    if (lines) this.fire(lines.map((e) => ({ range: new vscode.Range(e.line, 0, e.line, Number.MAX_SAFE_INTEGER), text: e.text })));
  }

  /**
   * Replaces whole lines as one edit on VS Code's undo stack (`onDidEditDialogue`); lines whose text is the same are
   * left out.
   *
   * @param label - what VS Code's undo and redo name it
   * @returns the number of lines changed
   * @throws RangeError for a line out of range or a line break in a text (nothing is changed)
   */
  edit(edits: readonly LineReplacement[], label: string, also?: { redo(): readonly number[]; undo(): readonly number[] }): number {
    const done = this.doc.edit(edits, also);
    if (!done) return 0;
    this.fireLines(done.changed);
    editEmitter.fire({ document: this, label, undo: () => this.fireLines(done.undo()), redo: () => this.fireLines(done.redo()) });
    return done.changed.length;
  }

  /**
   * Replaces the whole text with what the file (or `bytes`) holds now, and counts it as in sync with the file.
   * Edits on the undo stack made before it change nothing when undone.
   */
  async reload(bytes?: Uint8Array): Promise<void> {
    const read = bytes ?? (await vscode.workspace.fs.readFile(this.uri));
    // A revert (no bytes given) takes the sidecars as they are on disk too; a merge of a job's write keeps the
    // unsaved sidecar labels (they are not in the study's text).
    if (bytes === undefined && this.sidecarsRead && this.uri.scheme === 'file') {
      try {
        this.setSidecarsFromDisk(readLabelsFolder(this.uri.fsPath));
      } catch {
        // Reported when read first; kept as it was.
      }
    }
    const lines = this.state ? this.state.text.lineCount : 0;
    const text = LineText.fromBytes(read);
    if (this.state) this.state.reload(text);
    else this.state = new LineDocument(text);
    this.newerOnDisk = false;
    this.fire([{ range: new vscode.Range(0, 0, Math.max(0, lines - 1), Number.MAX_SAFE_INTEGER), text: text.getText() }]);
  }

  /** Marks the text as written to the file (called by the provider's save); see `LineDocument.markSaved`. */
  markSaved(top: number): void {
    const was = this.isDirty;
    this.doc.markSaved(top);
    if (was !== this.isDirty) this.fire([]);
  }

  /** The undo stack's top now, for {@link markSaved} after a write that took a snapshot. */
  get stackTop(): number {
    return this.doc.stackTop;
  }

  /** Tells listeners that a save begins, and when it has ended. */
  announceSave(phase: 'will' | 'did'): void {
    saveEmitter.fire({ document: this, phase });
  }

  dispose(): void {
    this.closed = true;
    this.merger?.dispose();
    this.sidecarWatcher?.dispose();
    this.conflictsEmitter.dispose();
    openDialogueDocuments.delete(this);
  }
}

/** Where a hot-exit backup keeps the document's unsaved sidecar labels: beside the backup of its text. */
export function sidecarBackupOf(backup: vscode.Uri): vscode.Uri {
  return backup.with({ path: `${backup.path}.sidecars.json` });
}

/** The parsed form of a dialogue document (`DialogueFileDocument.parse`: cached per version, incremental after label edits). */
export function parseDialogue(document: DialogueFileDocument): DialogueDocument {
  return document.parse();
}

/**
 * Replaces items of `document` (matched by id) with the result of `update`, as one undoable edit
 * (`DialogueFileDocument.updateItems`).
 *
 * @returns number of lines changed
 * @throws Error when a line is not where the parse says (nothing is changed then)
 */
export async function updateItems(document: DialogueFileDocument, update: (item: DialogueItem) => DialogueItem | undefined, label = 'Label'): Promise<number> {
  return document.updateItems(update, label);
}
