/**
 * Merge instead of overwrite (issue 14 item 3): when a dialogue file changes on disk (a CLI job, another window)
 * while its editor has unsaved labels, the labels are re-applied on top of what is on disk, so a save writes
 * both the job's results and the labels.
 *
 * How: the text of the document as last in sync with the disk is kept as the base (after a save, the file as
 * written, read back: labels keep arriving while the file is written, and those are not on disk yet). When the file
 * changes on disk while the document is clean, the document is reloaded from it (the dialogue editor's document is
 * ReflectEval's, so VS Code does not). When it changes while the document is dirty, the unsaved labels are the
 * annotation fields that differ between the base and the document (`labelChanges`, core). The document is reloaded
 * from the disk's content, and the labels are applied again item by item (`rebaseLabelOperations`) as one edit that
 * touches only the lines of changed items: the document is dirty again, holding the disk's content plus the labels.
 * A label changed on both sides, or one whose item or candidate is gone from disk, is shown in the editor with both
 * values until the user picks.
 *
 * Unsaved changes that are not labels (generated candidates, scores from a job run in the editor) cannot be merged:
 * then nothing is touched, a warning says so, and the next save asks before writing the document over the file.
 */
import * as vscode from 'vscode';
import { labelChanges, rebaseLabelOperations, type LabelConflict, type LabelFieldChange, type LabelOrphan } from '../core/labels/rebase';
import { documentItems, parseDocument, serializeItem, type DialogueDocument } from '../core/format/jsonl';
import { decodeUtf8Lossy } from '../core/format/bytes';
import { LineText } from '../core/format/lineText';
import type { Annotation, DialogueItem } from '../core/dialogue/types';
import type { ConflictEntry } from '../../webview/editor/protocol';

/** What the merger needs of the document it watches (dialogueDocument.ts `DialogueFileDocument`, which owns it). */
export interface MergedDocument {
  readonly uri: vscode.Uri;
  readonly version: number;
  readonly isDirty: boolean;
  readonly isClosed: boolean;
  readonly name: string;
  /** Set when a merge was impossible: the next save asks before writing over the file. */
  newerOnDisk: boolean;
  getText(): string;
  toBytes(): Uint8Array;
  reload(bytes?: Uint8Array): Promise<void>;
  /** The document's cached parse (read-only). */
  parse(): DialogueDocument;
  /** Replaces items as one undoable edit; returns the lines changed. */
  updateItems(update: (item: DialogueItem) => DialogueItem | undefined, label: string): number;
  onDidChange(listener: () => void): vscode.Disposable;
  onDidSave(listener: (phase: 'will' | 'did') => void): vscode.Disposable;
}

/** Lines that are not items, by text (line endings aside: VS Code gives a document one kind). */
function otherLines(doc: DialogueDocument): string[] {
  return doc.lines.filter((l) => l.kind !== 'item').map((l) => l.raw.text);
}

/** The text of one annotation field for a message: `empathy 4`, `errors parroting, offTopic`, `coherent (none)`. */
function fieldText(a: Annotation | undefined, field: string): string {
  const v = a?.[field];
  if (v === undefined) return `${field} (none)`;
  return `${field} ${Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v)}`;
}

/**
 * How long after the editor opens the base is parsed (ms): after VS Code's round trips that create the webview, which
 * wait for the extension host, and well inside the ~1 s the webview then takes to load its page (docs/scale.md).
 */
export const BASE_DELAY_MS = 250;

type Open = { id: number; conflict: LabelConflict } | { id: number; orphan: LabelOrphan };

/** Watches one dialogue document's file and merges its unsaved labels into what a job wrote there. */
export class ExternalChangeMerger implements vscode.Disposable {
  private base: DialogueDocument | undefined;
  /** When a save of this document began (`onDidSaveDialogue`, `will`), until its written text is the base. */
  private savingSince: number | undefined;
  private busy = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private baseTimer: ReturnType<typeof setTimeout> | undefined;
  private open: Open[] = [];
  private nextId = 1;
  private readonly subscriptions: vscode.Disposable[] = [];

  /**
   * @param document - the document watched; its cached parse is the merger's too, so opening a 45 MB file does not
   *   parse it once more here
   * @param onConflicts - the unsaved labels a merge could not settle, whenever that list changes
   */
  constructor(
    private readonly document: MergedDocument,
    private readonly onConflicts: (conflicts: ConflictEntry[]) => void,
  ) {
    // The base is parsed once VS Code has had time to create the webview: the extension host is single-threaded,
    // and parsing a 45 MB file (~0.4 s) while VS Code resolves the editor delays the webview by as much (issue 19
    // item 3). The parse is the editor's cached one, which its first index then reuses.
    const version = document.version;
    const fromDisk = () => void this.readDisk().then((text) => (this.base ??= parseDocument(text, this.name)), () => undefined);
    if (!document.isDirty)
      this.baseTimer = setTimeout(() => {
        if (this.base || document.isClosed) return;
        // Edited or reloaded meanwhile: the base is what the file holds now, as for a document opened dirty.
        if (document.version === version && !document.isDirty) this.takeBase();
        else fromDisk();
      }, BASE_DELAY_MS);
    else fromDisk();
    const uri = document.uri;
    const folder = vscode.Uri.joinPath(uri, '..');
    const watcher = vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, uri.path.slice(uri.path.lastIndexOf('/') + 1)));
    this.subscriptions.push(
      watcher,
      watcher.onDidChange(() => this.schedule()),
      watcher.onDidCreate(() => this.schedule()),
      document.onDidSave((phase) => {
        if (phase === 'will') return void (this.savingSince = Date.now());
        // The base is what the save wrote. With no label edit applied while the file was written (the document is
        // clean), that is the document as it is: its cached parse, no read of the file. Otherwise read back from the
        // disk: those edits are in the text but not in the file, and taking the text as the base would make the
        // file look changed by someone else, and the next merge would drop those edits.
        if (!document.isDirty) {
          this.takeBase();
          this.savingSince = undefined;
          return;
        }
        void this.readDisk()
          .then((text) => void (this.base = parseDocument(text, this.name)), () => this.takeBase())
          .finally(() => (this.savingSince = undefined));
      }),
      document.onDidChange(() => {
        // Reverted, reloaded or undone to the saved version: in sync with the disk again.
        if (!document.isDirty && this.savingSince === undefined) this.takeBase();
      }),
    );
  }

  private get name(): string {
    return this.document.name;
  }

  private parse(): DialogueDocument {
    return this.document.parse();
  }

  private takeBase(): void {
    this.base = this.parse();
  }

  private async readDisk(): Promise<string> {
    return decodeUtf8Lossy(await vscode.workspace.fs.readFile(this.document.uri));
  }

  private schedule(): void {
    clearTimeout(this.timer);
    // A job writes through a temporary file and a rename: wait for the events to settle.
    this.timer = setTimeout(() => void this.check().catch((err) => void vscode.window.showErrorMessage(`ReflectEval: merging ${this.name}: ${(err as Error).message}`)), 300);
  }

  private async check(): Promise<void> {
    if (this.busy || this.document.isClosed) return;
    // Our own save in flight (its write fires the watcher): look again once its base is known. A save that
    // never reports back (failed) stops deferring after a minute.
    if (this.savingSince !== undefined && Date.now() - this.savingSince < 60_000) return this.schedule();
    const bytes = await vscode.workspace.fs.readFile(this.document.uri);
    if (this.document.isClosed) return;
    if (!this.document.isDirty) {
      // A clean document shows what the file holds now: reloaded (not when the change was this editor's own save),
      // and then it is the base (its cached parse: the file is not parsed a second time).
      if (LineText.fromBytes(bytes).getText() !== this.document.getText()) await this.document.reload(bytes);
      this.takeBase();
      return;
    }
    const disk = parseDocument(decodeUtf8Lossy(bytes), this.name);
    if (!this.base) return;
    const same = JSON.stringify(otherLines(disk)) === JSON.stringify(otherLines(this.base)) && documentItems(disk).map((it) => serializeItem(it)).join('\n') === documentItems(this.base).map((it) => serializeItem(it)).join('\n');
    if (same) return;
    const current = this.parse();
    const pending = labelChanges(documentItems(this.base), documentItems(current), { base: otherLines(this.base), current: otherLines(current) });
    if (pending.other.length) {
      // The next save asks before writing over what the job wrote (the provider's save).
      this.document.newerOnDisk = true;
      void vscode.window.showWarningMessage(
        `ReflectEval: ${this.name} changed on disk, and its unsaved changes are not only labels (${pending.other.slice(0, 3).join('; ')}${pending.other.length > 3 ? '; …' : ''}). They cannot be merged: a save will ask before writing the editor's version over the file's (Revert File takes the file's).`,
      );
      return;
    }
    if (pending.changes.length === 0) return;
    await this.merge(pending.changes, bytes);
  }

  private async merge(changes: LabelFieldChange[], disk: Uint8Array): Promise<void> {
    this.busy = true;
    try {
      // Nothing is awaited from the reload to the labels' edit: no label key can land in between.
      const backup = this.document.toBytes();
      await this.document.reload(disk);
      this.takeBase();
      const merged = rebaseLabelOperations(documentItems(this.base!), changes);
      const byId = new Map(merged.items.map((it) => [it.id, it]));
      const changed = new Set(merged.changed);
      let n: number;
      try {
        n = this.replaceItems((it) => (changed.has(it.id) ? byId.get(it.id) : undefined));
      } catch (err) {
        // The labels as they were, unsaved: nothing is lost.
        await this.document.reload(backup);
        throw err;
      }
      for (const conflict of merged.conflicts) this.open.push({ id: this.nextId++, conflict });
      for (const orphan of merged.orphans) this.open.push({ id: this.nextId++, orphan });
      this.sendConflicts();
      const labels = new Set(changes.map((c) => JSON.stringify([c.itemId, c.candidateId, c.annotator]))).size;
      const notes = [merged.conflicts.length ? `${merged.conflicts.length} changed on both sides (shown in the editor: pick one)` : '', merged.orphans.length ? `${merged.orphans.length} for items or candidates no longer in the file (shown in the editor)` : ''].filter(Boolean);
      const message = `ReflectEval: ${this.name} changed on disk; your ${labels} unsaved label(s) were merged into it (${n} item line(s))${notes.length ? `; ${notes.join('; ')}` : ''}. Save to write both.`;
      if (notes.length) void vscode.window.showWarningMessage(message);
      else void vscode.window.showInformationMessage(message);
    } catch (err) {
      void vscode.window.showErrorMessage(`ReflectEval: could not merge your unsaved labels into ${this.name} as changed on disk: ${(err as Error).message}`);
    } finally {
      this.busy = false;
    }
  }

  /**
   * Replaces the lines of items for which `update` returns an item, as one undoable edit; other lines are not
   * touched.
   *
   * @returns the number of lines replaced
   * @throws Error when a line cannot be replaced (nothing is changed then)
   */
  private replaceItems(update: (item: DialogueItem) => DialogueItem | undefined): number {
    return this.document.updateItems(update, 'Merge labels');
  }

  /** Tells the editor the open conflicts and orphaned labels. */
  private sendConflicts(): void {
    this.onConflicts(this.conflicts());
  }

  /** The open conflicts and orphaned labels, as the editor lists them. */
  conflicts(): ConflictEntry[] {
    if (this.open.length === 0) return [];
    const items = documentItems(this.parse());
    const indexOf = new Map(items.map((it, i) => [it.id, i]));
    const candidateText = (itemId: string, candidateId: string) => {
      const text = items[indexOf.get(itemId) ?? -1]?.candidates.find((c) => c.id === candidateId)?.text;
      return text === undefined ? candidateId : text.length > 60 ? `${text.slice(0, 59)}…` : text;
    };
    const conflicts: ConflictEntry[] = this.open.map((o) => {
      if ('conflict' in o) {
        const c = o.conflict;
        return {
          id: o.id,
          kind: 'conflict',
          itemId: c.itemId,
          itemIndex: indexOf.get(c.itemId) ?? null,
          candidate: candidateText(c.itemId, c.candidateId),
          annotator: c.annotator,
          mine: c.fields.map((f) => fieldText(c.mine, f)).join('; '),
          disk: c.fields.map((f) => fieldText(c.disk, f)).join('; '),
        };
      }
      const r = o.orphan;
      const fields = [...new Set(r.changes.map((c) => c.field))].filter((f) => f !== 'updatedAt' && f !== 'annotator');
      return {
        id: o.id,
        kind: r.kind,
        itemId: r.itemId,
        itemIndex: indexOf.get(r.itemId) ?? null,
        candidate: r.candidateId,
        annotator: r.annotator,
        mine: fields.map((f) => fieldText(r.mine, f)).join('; ') || '(label removed)',
        disk: r.kind === 'itemMissing' ? 'item removed' : 'candidate removed',
      };
    });
    return conflicts;
  }

  /**
   * The user's pick for a conflict: `mine` keeps the unsaved label (what the document holds), `disk` puts the
   * disk's annotation back; for an orphaned label, either dismisses it (`mine` first copies it to the clipboard).
   */
  async resolve(id: number, choice: 'mine' | 'disk'): Promise<void> {
    const o = this.open.find((x) => x.id === id);
    if (!o) return;
    if ('conflict' in o && choice === 'disk') {
      const c = o.conflict;
      await this.replaceItems((item) => {
        if (item.id !== c.itemId) return undefined;
        return {
          ...item,
          candidates: item.candidates.map((cand) => {
            if (cand.id !== c.candidateId) return cand;
            const rest = cand.annotations.filter((a) => a.annotator !== c.annotator);
            const at = cand.annotations.findIndex((a) => a.annotator === c.annotator);
            const annotations = c.disk ? (at >= 0 ? cand.annotations.map((a, i) => (i === at ? c.disk! : a)) : [...rest, c.disk]) : rest;
            return { ...cand, annotations };
          }),
        };
      });
    }
    if ('orphan' in o && choice === 'mine') await vscode.env.clipboard.writeText(JSON.stringify(o.orphan, null, 2));
    this.open = this.open.filter((x) => x.id !== id);
    this.sendConflicts();
  }

  dispose(): void {
    clearTimeout(this.timer);
    clearTimeout(this.baseTimer);
    this.subscriptions.forEach((s) => s.dispose());
  }
}
