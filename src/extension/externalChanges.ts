/**
 * Merge instead of overwrite (issue 14 item 3): when a dialogue file changes on disk (a CLI job, another window)
 * while its editor has unsaved labels, the labels are re-applied on top of what is on disk, so a save writes
 * both the job's results and the labels.
 *
 * How: the text of the document as last in sync with the disk is kept as the base (after a save, the file as
 * written, read back: labels keep arriving while VS Code writes, and those are not on disk yet). When the file changes on disk
 * while the document is dirty, the unsaved labels are the annotation fields that differ between the base and the
 * document (`labelChanges`, core). The document is reverted to the disk's content (VS Code's own revert, so its
 * record of the file's version is current and a later save does not ask "the file is newer"), and the labels are
 * applied again item by item (`rebaseLabelOperations`) as one edit that touches only the lines of changed items:
 * the document is dirty again, holding the disk's content plus the labels. A label changed on both sides, or
 * one whose item or candidate is gone from disk, is shown in the editor with both values until the user picks.
 *
 * VS Code's revert acts on the active editor, so the merge waits until this dialogue editor is the active one
 * (immediately when it is). Unsaved changes that are not labels (generated candidates, scores from a job run in
 * the editor) cannot be merged: then nothing is touched and a warning says so; VS Code's own choice applies on save.
 */
import * as vscode from 'vscode';
import { labelChanges, rebaseLabelOperations, type LabelConflict, type LabelFieldChange, type LabelOrphan } from '../core/labels/rebase';
import { documentItems, headerEditFor, parseDocument, serializeItem, type DialogueDocument } from '../core/format/jsonl';
import { decodeUtf8Lossy } from '../core/format/bytes';
import type { Annotation, DialogueItem } from '../core/dialogue/types';
import type { ConflictEntry, EditorHostMessage } from '../../webview/editor/protocol';

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
  private stale = false;
  /** When a save of this document began (`onWillSaveTextDocument`), until its written text is the base. */
  private savingSince: number | undefined;
  private busy = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private baseTimer: ReturnType<typeof setTimeout> | undefined;
  private open: Open[] = [];
  private nextId = 1;
  private readonly subscriptions: vscode.Disposable[] = [];

  /**
   * @param parse - the document as it is now, parsed: the dialogue editor's cached parse (`parseTextDocument`), so
   *   opening a 45 MB file does not parse it once more here; treated as read-only
   */
  constructor(
    private readonly document: vscode.TextDocument,
    private readonly panel: vscode.WebviewPanel,
    private readonly send: (msg: EditorHostMessage) => void,
    private readonly parse: () => DialogueDocument,
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
      vscode.workspace.onWillSaveTextDocument((e) => {
        if (e.document === document) this.savingSince = Date.now();
      }),
      vscode.workspace.onDidSaveTextDocument((d) => {
        if (d !== document) return;
        // The base is what the save wrote, read back from the disk: label edits applied while VS Code was
        // writing are already in the document's text but not in the file, and taking the text as the base would
        // make the file look changed by someone else, and the next merge would drop those edits.
        void this.readDisk()
          .then((text) => {
            this.base = parseDocument(text, this.name);
            this.stale = false;
          }, () => this.takeBase())
          .finally(() => (this.savingSince = undefined));
      }),
      vscode.workspace.onDidChangeTextDocument((e) => {
        // Reverted or undone to the saved version: in sync with the disk again. Only the dirty-state event (no
        // content changes) tells: the event of a first edit can still report the document clean.
        if (e.document === document && e.contentChanges.length === 0 && !document.isDirty) this.takeBase();
      }),
      panel.onDidChangeViewState(() => {
        if (panel.active && this.stale) this.schedule();
      }),
    );
  }

  private get name(): string {
    return vscode.workspace.asRelativePath(this.document.uri);
  }

  private takeBase(): void {
    this.base = this.parse();
    this.stale = false;
  }

  private async readDisk(): Promise<string> {
    return decodeUtf8Lossy(await vscode.workspace.fs.readFile(this.document.uri));
  }

  private schedule(): void {
    clearTimeout(this.timer);
    // A job writes through a temporary file and a rename: wait for the events to settle.
    this.timer = setTimeout(() => void this.check().catch((err) => void vscode.window.showErrorMessage(`ReflectEval: merging ${this.name}: ${(err as Error).message}`)), 300);
  }

  /** Whether this editor is the active editor (VS Code's revert acts on that one). */
  private isActiveEditor(): boolean {
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    return this.panel.active && tab?.input instanceof vscode.TabInputCustom && tab.input.uri.toString() === this.document.uri.toString();
  }

  private async check(): Promise<void> {
    if (this.busy || this.document.isClosed) return;
    // Our own save in flight (its write fires the watcher): look again once its base is known. A save that
    // never reports back (failed) stops deferring after a minute.
    if (this.savingSince !== undefined && Date.now() - this.savingSince < 60_000) return this.schedule();
    const disk = parseDocument(await this.readDisk(), this.name);
    if (!this.document.isDirty) {
      // VS Code reloads a clean document from disk: that is the new base.
      this.base = disk;
      return;
    }
    if (!this.base) return;
    const same = JSON.stringify(otherLines(disk)) === JSON.stringify(otherLines(this.base)) && documentItems(disk).map((it) => serializeItem(it)).join('\n') === documentItems(this.base).map((it) => serializeItem(it)).join('\n');
    if (same) return;
    if (!this.isActiveEditor()) {
      // Merged when the user comes back to this editor.
      this.stale = true;
      return;
    }
    this.stale = false;
    const current = this.parse();
    const pending = labelChanges(documentItems(this.base), documentItems(current), { base: otherLines(this.base), current: otherLines(current) });
    if (pending.other.length) {
      void vscode.window.showWarningMessage(
        `ReflectEval: ${this.name} changed on disk, and its unsaved changes are not only labels (${pending.other.slice(0, 3).join('; ')}${pending.other.length > 3 ? '; …' : ''}). They cannot be merged: on save, VS Code will ask which version to keep.`,
      );
      return;
    }
    if (pending.changes.length === 0) return;
    await this.merge(pending.changes);
  }

  private async merge(changes: LabelFieldChange[]): Promise<void> {
    this.busy = true;
    const backup = this.document.getText();
    try {
      await vscode.commands.executeCommand('workbench.action.files.revert');
      for (let i = 0; i < 30 && this.document.isDirty; i++) await new Promise((r) => setTimeout(r, 100));
      // Had the revert not happened, the document still holds the labels and re-applying them changes nothing.
      if (this.document.isDirty) throw new Error('VS Code did not reload the file from disk; your labels are still unsaved in the editor');
      this.takeBase();
      const merged = rebaseLabelOperations(documentItems(this.base!), changes);
      const byId = new Map(merged.items.map((it) => [it.id, it]));
      const changed = new Set(merged.changed);
      const n = await this.replaceItems((it) => (changed.has(it.id) ? byId.get(it.id) : undefined), backup);
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
   * Replaces the lines of items for which `update` returns an item, as one WorkspaceEdit; other lines are not
   * touched. On failure, and when `backup` is given, puts `backup` back as the whole text (nothing is lost).
   *
   * @returns the number of lines replaced
   */
  private async replaceItems(update: (item: DialogueItem) => DialogueItem | undefined, backup?: string): Promise<number> {
    const doc = this.parse();
    const edit = new vscode.WorkspaceEdit();
    const updated: { line: number; text?: string; next?: DialogueItem }[] = [];
    for (const line of doc.itemLines) {
      const entry = doc.lines[line];
      if (entry.kind !== 'item') continue;
      const next = update(entry.item);
      if (next) updated.push({ line, next });
    }
    const { header, edit: headerEdit } = headerEditFor(doc, updated.map((u) => u.next!));
    if (headerEdit) updated.unshift({ line: headerEdit.line, text: headerEdit.newText.replace(/^\uFEFF/, '') });
    let n = 0;
    for (const { line, text: given, next } of updated) {
      const text = given ?? serializeItem(next!, header);
      const current = this.document.lineAt(line).text;
      if (text === current.replace(/^\uFEFF/, '')) continue;
      edit.replace(this.document.uri, new vscode.Range(line, current.startsWith('\uFEFF') ? 1 : 0, line, current.length), text);
      n++;
    }
    if (n > 0 && !(await vscode.workspace.applyEdit(edit))) {
      if (backup !== undefined) {
        const all = new vscode.WorkspaceEdit();
        all.replace(this.document.uri, new vscode.Range(0, 0, this.document.lineCount, 0), backup);
        await vscode.workspace.applyEdit(all);
      }
      throw new Error('VS Code refused the edit');
    }
    return n;
  }

  /** Sends the open conflicts and orphaned labels to the webview. */
  sendConflicts(): void {
    if (this.open.length === 0) return this.send({ type: 'conflicts', conflicts: [] });
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
    this.send({ type: 'conflicts', conflicts });
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
