/**
 * A dialogue file open in the dialogue editor (issue 19 item 3). The editor is a `CustomEditorProvider`: VS Code
 * does not read the file into a text model first (~5 s for a 45 MB file, and no file over 50 MB at all), so the
 * document is ours. It holds the text VS Code would hold (`LineText`, core) with its undo stack and saved point
 * (`LineDocument`, core), answers the lookups the editor made of a `TextDocument` (`getText`, `lineAt`, `lineCount`,
 * `version`, `isDirty`), and reports every change through {@link onDidChangeDialogue}. Label edits replace whole lines and go on VS Code's undo stack
 * (`onDidChangeCustomDocument` in dialogueEditor.ts); saves, reverts and backups are the provider's.
 *
 * A file on disk is read and decoded on first use, after VS Code has created the editor's webview (reading and
 * decoding 45 MB takes ~0.2 s of the extension host's single thread, which VS Code's round trips wait for).
 */
import * as vscode from 'vscode';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { LineText, type LineReplacement } from '../core/format/lineText';
import { LineDocument } from '../core/format/lineDocument';
import type { RawLine } from '../core/format/jsonl';

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
    return this.state ? this.state.isDirty : this.fromBackup;
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
    changeEmitter.fire({ document: this, contentChanges });
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
  edit(edits: readonly LineReplacement[], label: string): number {
    const done = this.doc.edit(edits);
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
    openDialogueDocuments.delete(this);
  }
}
